//! Reproduces the qualitative findings of Yildiz & Alpaydin's neural-network trees (chapter 4 of
//! the thesis) with `ltu::learners::oblique` on the reference data sets, and writes
//! `docs/OBLIQUE_STUDY.md`:
//!
//! ```text
//! cargo run --release -p ltu --example oblique_study [-- --quick] [--out PATH] [--jobs N]
//! ```
//!
//! Every figure is computed here by 10-fold stratified cross-validation on the same folds as the
//! other learners (`ltu::data::split::stratified_kfold`, seed 0): train on nine folds with seed 0,
//! export through `ltu::learn::finish` (which checks the runtime against the trainer), predict the
//! held-out fold with `ltu-runtime`. `--quick` uses three data sets and five folds (to check the
//! program).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use ltu::data::{self, Dataset, LoadOptions};
use ltu::learn::{self, Context};
use ltu::learners::oblique::{self, NodeModel, Params, Partition, Report, Significance};
use ltu::{data::encode, data::split, learners::perceptron_tree};

/// One learner configuration of the study.
#[derive(Clone)]
struct Variant {
    name: &'static str,
    what: &'static str,
    params: Option<Params>,
    /// Shown in the ablation table only.
    ablation: bool,
}

fn variants() -> Vec<Variant> {
    let lp = |partition| Params { partition, ..Params::default() };
    vec![
        Variant { name: "LP-sel", what: "linear nodes, selection partition", params: Some(lp(Partition::Selection)), ablation: false },
        Variant { name: "LP-exch", what: "linear nodes, exchange partition (default)", params: Some(lp(Partition::Exchange)), ablation: false },
        Variant {
            name: "MLP-exch",
            what: "non-linear nodes (f/2 hidden units), exchange",
            params: Some(Params { node: NodeModel::Mlp, ..Params::default() }),
            ablation: false,
        },
        Variant {
            name: "Hyb-F",
            what: "hybrid nodes, combined 5x2 cv F test, exchange",
            params: Some(Params { node: NodeModel::Hybrid, ..Params::default() }),
            ablation: false,
        },
        Variant {
            name: "Hyb-t",
            what: "hybrid nodes, 30-fold cv paired t test; also runs the F test at each node to count agreements",
            params: Some(Params {
                node: NodeModel::Hybrid,
                significance: Significance::TTest,
                compare_tests: true,
                ..Params::default()
            }),
            ablation: false,
        },
        Variant { name: "ptree", what: "perceptron tree (`--algo ptree`, defaults), for reference", params: None, ablation: false },
    ]
    .into_iter()
    .chain(ablations())
    .collect()
}

/// LP-exch with one option changed.
fn ablations() -> Vec<Variant> {
    let v = |name, what, params| Variant { name, what, params: Some(params), ablation: true };
    let d = Params::default;
    vec![
        v(
            "no-balance",
            "both groups' rows weigh 1 in training and threshold refit (the chapter's plain MSE)",
            Params { balance: false, ..d() },
        ),
        v("epochs-40", "40 epochs instead of 300", Params { epochs: 40, ..d() }),
        v(
            "drop-0",
            "`drop_tolerance` 0: only weights that cost no training error are dropped",
            Params { drop_tolerance: 0.0, ..d() },
        ),
        v("drop-2%", "`drop_tolerance` 0.02", Params { drop_tolerance: 0.02, ..d() }),
        v("w-7", "`max_weight` 7 (4-bit weights)", Params { max_weight: 7, ..d() }),
        v(
            "reduced-error",
            "`prune_fraction` 0.25: grown on three quarters of the rows, reduced-error pruning on the \
             rest (the default before error-based pruning)",
            Params { prune_fraction: Some(0.25), ..d() },
        ),
        v(
            "no-prune",
            "`prune_fraction` 0 and `prune_z` 0: grown on every row, not pruned",
            Params { prune_fraction: Some(0.0), prune_z: 0.0, ..d() },
        ),
    ]
}

/// Results of one variant on one fold.
#[derive(Clone, Default)]
struct Fold {
    acc: f64,
    float_acc: f64,
    bytes: usize,
    splits: usize,
    secs: f64,
    report: Report,
}

fn load(name: &str) -> Dataset {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data").join(name);
    data::load(&path, &LoadOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn run_fold(data: &Dataset, test_rows: &[usize], v: &Variant) -> Fold {
    let train = data.subset(&split::complement(test_rows, data.n_rows()));
    let ctx = Context::new(&train, 0, None);
    let t0 = Instant::now();
    let (spec, tree) = match &v.params {
        Some(p) => {
            let tree = oblique::fit(&ctx, p).unwrap_or_else(|e| panic!("{}: {e}", v.name));
            (tree.spec.clone(), Some(tree))
        }
        None => (perceptron_tree::train(&ctx, &perceptron_tree::Params::default()).expect("ptree"), None),
    };
    let secs = t0.elapsed().as_secs_f64();
    let trained = learn::finish(spec, &ctx, false).unwrap_or_else(|e| panic!("{}: {e}", v.name));
    let model = ltu_runtime::Model::from_bytes(&trained.bytes).expect("runtime accepts the model");
    let held = data.subset(test_rows);
    let raw = encode::raw_rows(&trained.spec.inputs, &held);
    let n = raw.len().max(1) as f64;
    let acc =
        raw.iter().zip(&held.y).filter(|(x, &y)| model.predict(x).expect("inputs") == y).count() as f64 / n;
    let (float_acc, report) = match &tree {
        Some(t) => (
            raw.iter().zip(&held.y).filter(|(x, &y)| t.predict_float(x) == y).count() as f64 / n,
            t.report.clone(),
        ),
        None => (acc, Report::default()),
    };
    let stats = trained.spec.stats();
    let splits = if tree.is_some() { report.splits } else { stats.decision_nodes };
    Fold { acc, float_acc, bytes: trained.bytes.len(), splits, secs, report }
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

fn sd(v: &[f64]) -> f64 {
    let m = mean(v);
    (v.iter().map(|a| (a - m).powi(2)).sum::<f64>() / (v.len().max(2) - 1) as f64).sqrt()
}

/// Paired t statistic of `a − b` over folds and whether it is significant (two-sided 5%).
fn paired_t(a: &[f64], b: &[f64]) -> (f64, bool) {
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
    let (m, s) = (mean(&d), sd(&d));
    let k = d.len();
    let t = if s > 0.0 {
        m * (k as f64).sqrt() / s
    } else if m != 0.0 {
        f64::INFINITY * m.signum()
    } else {
        0.0
    };
    // t(k-1) two-sided 5% for k = 5 and 10 folds.
    let crit = if k <= 5 { 2.776 } else { 2.262 };
    (t, t.abs() > crit)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick");
    let out = args.iter().position(|a| a == "--out").and_then(|i| args.get(i + 1)).map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/OBLIQUE_STUDY.md"),
        PathBuf::from,
    );
    let jobs: usize = args
        .iter()
        .position(|a| a == "--jobs")
        .and_then(|i| args.get(i + 1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(2);
    let names: &[&str] = if quick {
        &["iris.csv", "breast-cancer-wisconsin.csv", "glass.csv"]
    } else {
        &[
            "iris.csv",
            "wine.csv",
            "glass.csv",
            "balance-scale.csv",
            "breast-cancer-wisconsin.csv",
            "wdbc.csv",
            "vehicle.csv",
        ]
    };
    let k = if quick { 5 } else { 10 };
    let vs = variants();
    let started = Instant::now();
    // results[dataset][variant][fold]
    let mut results: Vec<Vec<Vec<Fold>>> = Vec::new();
    for name in names {
        let data = load(name);
        let folds = split::stratified_kfold(&data.y, data.n_classes(), k, 0).expect("folds");
        let t0 = Instant::now();
        let per_variant: Vec<Vec<Fold>> = vs
            .iter()
            .map(|v| {
                // Folds spread over `jobs` threads; each result keeps its fold's place.
                let mut res = vec![Fold::default(); k];
                std::thread::scope(|s| {
                    let handles: Vec<_> = (0..jobs.max(1))
                        .map(|j| {
                            let (data, folds) = (&data, &folds);
                            s.spawn(move || {
                                (j..k)
                                    .step_by(jobs.max(1))
                                    .map(|f| (f, run_fold(data, &folds[f], v)))
                                    .collect::<Vec<_>>()
                            })
                        })
                        .collect();
                    for h in handles {
                        for (f, r) in h.join().expect("fold thread") {
                            res[f] = r;
                        }
                    }
                });
                res
            })
            .collect();
        eprintln!("{name}: {:.1} s", t0.elapsed().as_secs_f64());
        results.push(per_variant);
    }
    let total = started.elapsed().as_secs_f64();
    let doc = render(names, &vs, &results, k, total, jobs);
    write(&out, &doc);
    println!("wrote {} ({total:.0} s)", out.display());
}

/// The verdict on a finding: all of it holds, part of it, or none.
fn verdict(all: bool, part: bool) -> &'static str {
    if all {
        "*Reproduced.*"
    } else if part {
        "*Partly reproduced.*"
    } else {
        "*Not reproduced.*"
    }
}

fn write(path: &Path, doc: &str) {
    std::fs::write(path, doc).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

fn col<F: Fn(&Fold) -> f64>(folds: &[Fold], f: F) -> Vec<f64> {
    folds.iter().map(f).collect()
}

fn render(
    names: &[&str],
    vs: &[Variant],
    res: &[Vec<Vec<Fold>>],
    k: usize,
    total: f64,
    jobs: usize,
) -> String {
    let idx = |n: &str| vs.iter().position(|v| v.name == n).expect("variant");
    let (sel, exch, mlp, hyb, hyt) =
        (idx("LP-sel"), idx("LP-exch"), idx("MLP-exch"), idx("Hyb-F"), idx("Hyb-t"));
    let ds = |n: &str| n.trim_end_matches(".csv").to_string();
    let mut o = String::new();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    writeln!(o, "# Oblique trees: the thesis's findings on our data sets\n").unwrap();
    writeln!(
        o,
        "Generated by `cargo run --release -p ltu --example oblique_study`; do not edit by hand, rerun the command. \
         The learner is described in [OBLIQUE.md](OBLIQUE.md).\n"
    )
    .unwrap();
    writeln!(o, "## How this was measured\n").unwrap();
    writeln!(
        o,
        "- {k}-fold stratified cross-validation, the same folds as the other learners (`ltu::data::split::stratified_kfold`, \
         seed 0); each fold: train on the other folds with seed 0, export with `ltu::learn::finish` (the runtime must \
         agree with the trainer on every training row), predict the held-out fold with `ltu-runtime`.\n\
         - Accuracy: held-out, mean ± sample standard deviation over folds, in percent, of the **exported integer \
         model**. *Float*: the same trees with the float networks at their nodes (`ObliqueTree::predict_float`); \
         *export loss* = float − exported, in percentage points.\n\
         - Size: oblique splits after pruning (a non-linear split counts once) and model bytes (the file the runtime \
         reads, without names).\n\
         - Time: wall clock of learning one tree (`oblique::fit`, or `perceptron_tree::train`), mean per fold, on a \
         machine with {cores} cores shared with other work, {jobs} folds at a time; export not included.\n\
         - All variants use `oblique::Params::default()` except what their row says; the whole run took {total:.0} s.\n"
    )
    .unwrap();
    let main: Vec<usize> = (0..vs.len()).filter(|&i| !vs[i].ablation).collect();
    let abl: Vec<usize> = (0..vs.len()).filter(|&i| vs[i].ablation).collect();
    writeln!(o, "| variant | what |\n|---|---|").unwrap();
    for &i in &main {
        writeln!(o, "| {} | {} |", vs[i].name, vs[i].what).unwrap();
    }
    writeln!(o).unwrap();

    // Accuracy table.
    writeln!(o, "## Accuracy (exported model, held out)\n").unwrap();
    write!(o, "| data set |").unwrap();
    for &i in &main {
        write!(o, " {} |", vs[i].name).unwrap();
    }
    writeln!(o, "\n|---|{}", "---:|".repeat(main.len())).unwrap();
    for (d, name) in names.iter().enumerate() {
        write!(o, "| {} |", ds(name)).unwrap();
        for r in main.iter().map(|&i| &res[d][i]) {
            let a = col(r, |f| 100.0 * f.acc);
            write!(o, " {:.1} ± {:.1} |", mean(&a), sd(&a)).unwrap();
        }
        writeln!(o).unwrap();
    }
    writeln!(o).unwrap();

    // Size and time.
    writeln!(o, "## Size and learning time\n").unwrap();
    writeln!(o, "Each cell: oblique splits / model bytes / milliseconds to learn (means over folds).\n")
        .unwrap();
    write!(o, "| data set |").unwrap();
    for &i in &main {
        write!(o, " {} |", vs[i].name).unwrap();
    }
    writeln!(o, "\n|---|{}", "---:|".repeat(main.len())).unwrap();
    for (d, name) in names.iter().enumerate() {
        write!(o, "| {} |", ds(name)).unwrap();
        for r in main.iter().map(|&i| &res[d][i]) {
            write!(
                o,
                " {:.1} / {:.0} / {:.0} |",
                mean(&col(r, |f| f.splits as f64)),
                mean(&col(r, |f| f.bytes as f64)),
                1000.0 * mean(&col(r, |f| f.secs))
            )
            .unwrap();
        }
        writeln!(o).unwrap();
    }
    writeln!(o).unwrap();

    // Export loss and hardening.
    writeln!(o, "## What export costs\n").unwrap();
    writeln!(
        o,
        "Held-out accuracy of the float trees minus the exported integer trees (pp; positive = lost on export), \
         and the share of training rows at the grown nodes whose side changed when the node became integer LTUs \
         (linear nodes: rounding + threshold refit; non-linear nodes: hard-threshold hidden units + rounded output \
         weights). The float tree is the exported tree's structure with each node's float network in place of its \
         integer test: the children were grown on the rows the *integer* test sent them, and the integer \
         threshold was refitted on those rows while the float one was not, so a negative loss means the refit \
         gained more than rounding lost, not that the float networks are unusable.\n"
    )
    .unwrap();
    writeln!(o, "| data set | LP-exch loss | LP-exch rows changed | MLP-exch loss | MLP-exch rows changed | MLP splits kept by Hyb-F |").unwrap();
    writeln!(o, "|---|---:|---:|---:|---:|---:|").unwrap();
    for (d, name) in names.iter().enumerate() {
        let loss = |v: usize| 100.0 * mean(&col(&res[d][v], |f| f.float_acc - f.acc));
        let changed = |v: usize, hard: bool| {
            let (c, n) = res[d][v].iter().fold((0, 0), |a, f| {
                let c = if hard { f.report.hardening_changed } else { f.report.quantization_changed };
                (a.0 + c, a.1 + f.report.node_rows)
            });
            100.0 * c as f64 / n.max(1) as f64
        };
        let (hm, ht) =
            res[d][hyb].iter().fold((0, 0), |a, f| (a.0 + f.report.mlp_splits, a.1 + f.report.splits));
        writeln!(
            o,
            "| {} | {:+.2} | {:.1}% | {:+.2} | {:.1}% | {hm} of {ht} |",
            ds(name),
            loss(exch),
            changed(exch, false),
            loss(mlp),
            changed(mlp, true)
        )
        .unwrap();
    }
    writeln!(o).unwrap();

    // Ablations.
    writeln!(o, "## Options of the linear tree (ablations of LP-exch)\n").unwrap();
    writeln!(o, "Each cell: accuracy % / model bytes (means over folds).\n").unwrap();
    writeln!(o, "| variant | what |\n|---|---|").unwrap();
    for &i in &abl {
        writeln!(o, "| {} | {} |", vs[i].name, vs[i].what).unwrap();
    }
    writeln!(o).unwrap();
    let cols: Vec<usize> = std::iter::once(exch).chain(abl.iter().copied()).collect();
    write!(o, "| data set |").unwrap();
    for &i in &cols {
        write!(o, " {} |", vs[i].name).unwrap();
    }
    writeln!(o, "\n|---|{}", "---:|".repeat(cols.len())).unwrap();
    let cell = |d: usize, i: usize| {
        (100.0 * mean(&col(&res[d][i], |f| f.acc)), mean(&col(&res[d][i], |f| f.bytes as f64)))
    };
    for (d, name) in names.iter().enumerate() {
        write!(o, "| {} |", ds(name)).unwrap();
        for &i in &cols {
            let (a, b) = cell(d, i);
            write!(o, " {a:.1} / {b:.0} |").unwrap();
        }
        writeln!(o).unwrap();
    }
    write!(o, "| **mean** |").unwrap();
    for &i in &cols {
        let a = mean(&(0..names.len()).map(|d| cell(d, i).0).collect::<Vec<_>>());
        let b = mean(&(0..names.len()).map(|d| cell(d, i).1).collect::<Vec<_>>());
        write!(o, " **{a:.1} / {b:.0}** |").unwrap();
    }
    writeln!(o, "\n").unwrap();

    // Findings.
    writeln!(o, "## The thesis's findings, checked\n").unwrap();
    let n = names.len();
    let acc = |d: usize, v: usize| col(&res[d][v], |f| f.acc);
    let m_acc = |d: usize, v: usize| 100.0 * mean(&acc(d, v));
    let m_splits = |d: usize, v: usize| mean(&col(&res[d][v], |f| f.splits as f64));
    let m_time = |d: usize, v: usize| mean(&col(&res[d][v], |f| f.secs));
    let m_bytes = |d: usize, v: usize| mean(&col(&res[d][v], |f| f.bytes as f64));
    // 1. Linear, non-linear and hybrid differ little.
    let mut sig = Vec::new();
    let mut max_gap: f64 = 0.0;
    for (d, name) in names.iter().enumerate() {
        for (a, b) in [(exch, mlp), (exch, hyb), (mlp, hyb)] {
            let (t, s) = paired_t(&acc(d, a), &acc(d, b));
            max_gap = max_gap.max((m_acc(d, a) - m_acc(d, b)).abs());
            if s {
                sig.push(format!("{} {} vs {} (t = {t:.2})", ds(name), vs[a].name, vs[b].name));
            }
        }
    }
    let close = (0..n)
        .filter(|&d| {
            let v = [m_splits(d, exch), m_splits(d, mlp), m_splits(d, hyb)];
            v.iter().cloned().fold(0.0, f64::max)
                <= 1.5 * v.iter().cloned().fold(f64::INFINITY, f64::min).max(1.0)
        })
        .count();
    let v1 = verdict(sig.len() * 10 <= 3 * n && close * 2 > n, sig.len() * 10 <= 3 * n || close * 2 > n);
    writeln!(
        o,
        "1. **Linear, non-linear and hybrid trees differ little in accuracy and size.** {v1} Split counts within \
         1.5× of each other on {close} of {n} data sets. Of the {} pairwise \
         comparisons (LP-exch, MLP-exch, Hyb-F on {n} data sets), {} differ significantly by the {k}-fold cv paired \
         t test at 5%{}; the largest difference of mean accuracy is {max_gap:.1} pp. Oblique splits per tree, \
         LP / MLP / hybrid: {}. Bytes are another matter on the device: a non-linear split is several LTUs, \
         LP / MLP / hybrid bytes: {}.",
        3 * n,
        sig.len(),
        if sig.is_empty() { String::new() } else { format!(" ({})", sig.join("; ")) },
        (0..n)
            .map(|d| format!("{} {:.1} / {:.1} / {:.1}", ds(names[d]), m_splits(d, exch), m_splits(d, mlp), m_splits(d, hyb)))
            .collect::<Vec<_>>()
            .join(", "),
        (0..n)
            .map(|d| format!("{} {:.0} / {:.0} / {:.0}", ds(names[d]), m_bytes(d, exch), m_bytes(d, mlp), m_bytes(d, hyb)))
            .collect::<Vec<_>>()
            .join(", ")
    )
    .unwrap();
    // 2. Learning time.
    let hyb_gt_mlp = (0..n).filter(|&d| m_time(d, hyb) > m_time(d, mlp)).count();
    let mlp_gt_lp = (0..n).filter(|&d| m_time(d, mlp) > m_time(d, exch)).count();
    let ratio = |a: usize, b: usize| {
        let logs: Vec<f64> = (0..n).map(|d| (m_time(d, a) / m_time(d, b).max(1e-9)).ln()).collect();
        mean(&logs).exp()
    };
    let v2 = verdict(hyb_gt_mlp == n && mlp_gt_lp == n, hyb_gt_mlp * 2 > n && mlp_gt_lp * 2 > n);
    writeln!(
        o,
        "2. **Learning time: hybrid > non-linear > linear.** {v2} Hybrid slower than non-linear on {hyb_gt_mlp} of {n} data \
         sets (geometric mean ×{:.1}), non-linear slower than linear on {mlp_gt_lp} of {n} (×{:.1}).",
        ratio(hyb, mlp),
        ratio(mlp, exch)
    )
    .unwrap();
    // 3. Exchange vs selection (multi-class data sets only: with two classes they are the same).
    let multi: Vec<usize> = (0..n)
        .filter(|&d| res[d][sel].iter().zip(&res[d][exch]).any(|(a, b)| a.acc != b.acc || a.bytes != b.bytes))
        .collect();
    let more_acc = multi.iter().filter(|&&d| m_acc(d, exch) > m_acc(d, sel)).count();
    let smaller = multi.iter().filter(|&&d| m_splits(d, exch) < m_splits(d, sel)).count();
    let slower = multi.iter().filter(|&&d| m_time(d, exch) > m_time(d, sel)).count();
    let sig_es: Vec<String> = multi
        .iter()
        .filter_map(|&d| {
            let (t, s) = paired_t(&acc(d, exch), &acc(d, sel));
            s.then(|| format!("{} (t = {t:.2})", ds(names[d])))
        })
        .collect();
    let half = multi.len();
    let v3 = verdict(
        more_acc * 2 > half && smaller * 2 > half && slower * 2 > half,
        more_acc * 2 > half || smaller * 2 > half || slower * 2 > half,
    );
    writeln!(
        o,
        "3. **Exchange is more accurate and smaller than selection, but slower.** {v3} On the {} data sets where the two \
         differ (with two classes they are the same method): exchange more accurate on {more_acc}, fewer splits on \
         {smaller}, slower on {slower}; significant accuracy differences (paired t, 5%): {}. Accuracy exch − sel, pp: {}.",
        multi.len(),
        if sig_es.is_empty() { "none".to_string() } else { sig_es.join(", ") },
        multi
            .iter()
            .map(|&d| format!("{} {:+.1}", ds(names[d]), m_acc(d, exch) - m_acc(d, sel)))
            .collect::<Vec<_>>()
            .join(", ")
    )
    .unwrap();
    // 4. F test and t test agree.
    let (agree, tested) = res
        .iter()
        .flat_map(|r| &r[hyt])
        .fold((0, 0), |a, f| (a.0 + f.report.tests_agree, a.1 + f.report.hybrid_tests));
    let (t_mlp, f_mlp) = (
        res.iter().flat_map(|r| &r[hyt]).map(|f| f.report.hybrid_mlp).sum::<usize>(),
        res.iter().flat_map(|r| &r[hyb]).map(|f| f.report.hybrid_mlp).sum::<usize>(),
    );
    let (_, f_tested) =
        res.iter().flat_map(|r| &r[hyb]).fold((0, 0), |a, f| (a.0, a.1 + f.report.hybrid_tests));
    let acc_gap = (0..n).map(|d| (m_acc(d, hyb) - m_acc(d, hyt)).abs()).fold(0.0, f64::max);
    let v4 = verdict(agree * 10 >= tested * 9, agree * 10 >= tested * 7);
    writeln!(
        o,
        "4. **The F test and the t test agree.** {v4} At the {tested} hybrid nodes of the Hyb-t trees both tests were run on \
         the same node: they chose the same network at {agree} ({:.1}%). The t test kept the MLP at {t_mlp} of \
         {tested} nodes, the F test (Hyb-F trees) at {f_mlp} of {f_tested}; the two hybrids' mean accuracies differ by \
         at most {acc_gap:.1} pp.",
        100.0 * agree as f64 / tested.max(1) as f64
    )
    .unwrap();
    o
}

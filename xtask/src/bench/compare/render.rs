//! The Markdown report of `cargo xtask compare` (`docs/BENCHMARKS.md`): how it was measured, a
//! summary table, the goals, one section per dataset, and the caveats.

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::Result;
use ltu::data::AttrKind;
use ltu::learn::metrics::mean_std;
use ltu::learn::Algo;
use serde_json::Value;

use crate::bench::compare::goals::goals;
use crate::bench::compare::measure::{problem, Outcome, Prepared, LTU_DEADLINE, PAIR_BUDGET, SEED};
use crate::bench::compare::results::{mean, paired, pct, peer_stats, Results};
use crate::bench::compare::series_report::{self, SeriesResults};

/// What the report says about the run itself.
pub struct RunInfo {
    /// Every dataset (not `--quick`, not `--datasets`).
    pub full: bool,
    pub command: String,
    pub jobs: usize,
    pub ltu_seconds: f64,
    pub peers_seconds: f64,
    pub total_seconds: f64,
    pub env_notes: Vec<String>,
    /// `git rev-parse --short=12 HEAD` when the run started.
    pub commit: String,
    /// Whether the working tree had uncommitted changes when the run started.
    pub dirty: bool,
}

/// The commit checked out and whether the working tree has uncommitted changes.
pub fn git_state(root: &Path) -> (String, bool) {
    let git = |args: &[&str]| capture(Command::new("git").current_dir(root).args(args));
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into());
    (commit, git(&["status", "--porcelain"]).is_some_and(|s| !s.is_empty()))
}

/// The command as typed, `cargo xtask compare ...`.
pub fn command_line() -> String {
    let mut s = String::from("cargo xtask");
    for a in std::env::args().skip(1) {
        s.push(' ');
        s.push_str(&a);
    }
    s
}

fn capture(cmd: &mut Command) -> Option<String> {
    let out = cmd.stderr(Stdio::null()).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown (no model name in /proc/cpuinfo)".into())
}

fn ms(seconds: f64) -> String {
    let ms = 1000.0 * seconds;
    if ms < 10.0 {
        format!("{ms:.2} ms")
    } else if ms < 1000.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{seconds:.2} s")
    }
}

/// One algorithm's record over the datasets, against CART.
#[derive(Default)]
struct Tally {
    better: usize,
    equal: usize,
    worse: usize,
    bytes_ratios: Vec<f64>,
    /// Accuracy differences in percentage points.
    deltas: Vec<f64>,
}

impl Tally {
    /// One dataset's Δ vs CART in percentage points, and the bytes ratio for ltu.
    fn record(&mut self, delta_pp: f64, bytes_ratio: Option<f64>) {
        if delta_pp > 1e-10 {
            self.better += 1;
        } else if delta_pp < -1e-10 {
            self.worse += 1;
        } else {
            self.equal += 1;
        }
        self.bytes_ratios.extend(bytes_ratio);
        self.deltas.push(delta_pp);
    }

    /// "more accurate than CART on …, equal on …, less accurate on … (mean Δ …)".
    fn against_cart(&self) -> String {
        let mut sorted = self.deltas.clone();
        sorted.sort_by(f64::total_cmp);
        format!(
            "more accurate than CART on {}, equal on {}, less accurate on {} (mean Δ {:+.2} pp, worst {:+.2} pp, \
             best {:+.2} pp)",
            self.better,
            self.equal,
            self.worse,
            mean(self.deltas.iter().copied()),
            sorted.first().copied().unwrap_or(0.0),
            sorted.last().copied().unwrap_or(0.0),
        )
    }
}

fn geomean(xs: &[f64]) -> f64 {
    (xs.iter().map(|x| x.ln()).sum::<f64>() / xs.len().max(1) as f64).exp()
}

/// The report, and the goal lines for the console.
pub fn render(
    prepared: &[Prepared],
    algos: &[Algo],
    outcomes: &[Vec<Vec<Outcome>>],
    peers: &Value,
    run: &RunInfo,
    series: &SeriesResults,
) -> Result<(String, Vec<String>)> {
    let res = Results::new(prepared, algos, outcomes, peers)?;
    let mut r = String::new();
    let w = &mut r;
    header(w, &res, peers, run)?;
    method(w, &res, peers, run)?;
    if !series.series.is_empty() {
        writeln!(
            w,
            "The sensor-recording sets are trained and tested on their archive split, against their own \
             peers: [their section](#sensor-recordings-archive-test-splits)."
        )?;
        writeln!(w)?;
    }
    let mut goal_lines = Vec::new();
    if !prepared.is_empty() {
        summary_section(w, &res)?;
        goal_lines = goals(w, &res, run.full)?;
        // Per dataset.
        writeln!(w, "## Per dataset")?;
        writeln!(w)?;
        for d in 0..prepared.len() {
            dataset_section(w, &res, d)?;
        }
    }
    if !series.series.is_empty() {
        goal_lines.extend(series_report::section(w, series)?);
    }
    caveats(w, run)?;
    Ok((r, goal_lines))
}

/// The title, and the machine, date and versions of the run.
fn header(w: &mut String, res: &Results, peers: &Value, run: &RunInfo) -> Result<()> {
    let labels: Vec<&str> = res.others.iter().map(|o| o.label.as_str()).collect();
    writeln!(w, "# Benchmarks: ltu against scikit-learn's CART, {} and emlearn", labels.join(", "))?;
    writeln!(w)?;
    writeln!(w, "Generated by `{}`; do not edit by hand, rerun the command.", run.command)?;
    writeln!(w, "Regenerate the full report with `cargo xtask compare` (a quick check: `cargo xtask compare --quick`).")?;
    writeln!(w)?;
    writeln!(w, "## How this was measured")?;
    writeln!(w)?;
    for line in environment(&run.commit, run.dirty, peers) {
        writeln!(w, "{line}")?;
    }
    Ok(())
}

/// Two report bullets: the machine, and the date, commit and versions of a run whose peers
/// reported their versions in `peers` (`python`, `sklearn`, `numpy`, `emlearn`).
pub fn environment(commit: &str, dirty: bool, peers: &Value) -> [String; 2] {
    let date =
        capture(Command::new("date").args(["-u", "+%Y-%m-%d %H:%M UTC"])).unwrap_or_else(|| "unknown".into());
    let rustc = capture(Command::new("rustc").arg("-V")).unwrap_or_else(|| "unknown".into());
    let nproc = std::thread::available_parallelism().map_or(0, |n| n.get());
    let s = |k: &str| peers[k].as_str().unwrap_or("not installed").to_string();
    [
        format!("- Machine: {nproc} cores (`available_parallelism`), CPU `{}` (/proc/cpuinfo).", cpu_model()),
        format!(
            "- Date {date}; git commit `{commit}`{}; {rustc}; Python {}, scikit-learn {}, numpy {}, emlearn {}.",
            if dirty { " **with uncommitted changes in the working tree**" } else { "" },
            s("python"),
            s("sklearn"),
            s("numpy"),
            s("emlearn")
        ),
    ]
}

/// How the figures were measured: protocol, peer settings, inputs, and what each column means.
fn method(w: &mut String, res: &Results, peers: &Value, run: &RunInfo) -> Result<()> {
    let Results { cart, others, runs, .. } = res;
    let s = |k: &str| peers[k].as_str().unwrap_or("not installed").to_string();
    let any_estimate = cart.iter().flatten().any(|f| f.estimated);
    writeln!(
        w,
        "- ltu: every fold through `ltu::learn::evaluate::holdout` (train on the training rows with the algorithm's \
         default options and seed {SEED}, export, then predict the held-out rows with `ltu-runtime`), \
         {} folds at a time. Peers, on **the same folds** (`target/compare/folds.json`, written by the \
         command and read by `bench/peers.py`), one fold at a time after ltu finished, with BLAS and OpenMP \
         limited to {} thread (`threadpoolctl`): CART `{}`{}.",
        run.jobs,
        peers["threads"].as_u64().map_or_else(|| "an unrecorded number of".into(), |n| n.to_string()),
        s("classifier"),
        others.iter().map(|o| format!("; {} `{}`", o.label, o.classifier)).collect::<String>()
    )?;
    writeln!(
        w,
        "- Peer settings: scikit-learn's defaults except what the settings above name (its repr lists exactly \
         the parameters that differ from the defaults). Logistic regression and the MLP standardize their \
         inputs with a `StandardScaler` fitted on the training fold, inside the pipeline; their `max_iter` is \
         raised so that the fits converge, and a fold whose fit still raised scikit-learn's \
         `ConvergenceWarning` is listed under its dataset."
    )?;
    let iterations: Vec<String> = others
        .iter()
        .enumerate()
        .filter_map(|(o, peer)| {
            let all = runs.iter().flat_map(|r| &r[o]);
            let most = all.clone().filter_map(|f| f.n_iter).max()?;
            let stuck = all.clone().filter(|f| !f.converged).count();
            let folds = all.count();
            Some(if stuck == 0 {
                format!("{} converged on all {folds} folds, in at most {most} iterations", peer.label)
            } else {
                format!(
                    "{} did not converge on {stuck} of {folds} folds (at most {most} iterations on any fold)",
                    peer.label
                )
            })
        })
        .collect();
    if !iterations.is_empty() {
        writeln!(w, "- Convergence in this run: {}.", iterations.join("; "))?;
    }
    writeln!(
        w,
        "- Inputs: every peer sees ltu's data exactly as ltu loaded it, encoded the same way for all of them. Categorical attributes are one-hot; a missing \
         number becomes the training fold's mean (ltu's substitute, computed by `ltu::data::encode`); a missing \
         category becomes all zeros, which is what ltu's model sees for an unknown category (every equality \
         feature off). So there is no mode imputation on either side."
    )?;
    writeln!(
        w,
        "- Accuracy: held-out accuracy, mean ± sample standard deviation over folds, in percent. \
         Δ is the mean over folds of (model − CART) in percentage points, on the folds where the model finished \
         (the peers run every fold)."
    )?;
    writeln!(
        w,
        "- Model bytes: ltu's model file as the runtime reads it from flash (format header, CRC, inputs, \
         features, units, structure; no names). CART bytes: the same scikit-learn tree as emlearn C code \
         (`emlearn.convert(..., method=\"loadable\")`, its int16 node layout), compiled with `gcc -Os`, summing \
         the node, root and leaf arrays read with `nm -S`, plus the 28-byte `EmlTrees` descriptor of a 32-bit \
         target.{} Neither figure includes the evaluator's code.",
        if any_estimate { " Figures marked * are estimates from emlearn's node layout (see the notes)." } else { "" }
    )?;
    writeln!(
        w,
        "- Time: wall clock per fold. ltu: encoding, training, export, the runtime check on every training \
         row, and predicting the test rows. Peers: one-hot encoding, `fit` (with the scaling, for the \
         pipelines), `predict` (for CART not the emlearn conversion)."
    )?;
    writeln!(
        w,
        "- Caps: an algorithm's remaining folds on a dataset are skipped once its folds there have taken {} s \
         together, and every fold not started after {} s of ltu training is skipped; skipped folds are \
         listed below and left out of the comparison.",
        PAIR_BUDGET.as_secs(),
        LTU_DEADLINE.as_secs()
    )?;
    writeln!(
        w,
        "- This run took {:.0} s: ltu {:.0} s, peers {:.0} s (the rest: loading, venv checks).",
        run.total_seconds, run.ltu_seconds, run.peers_seconds
    )?;
    for n in &run.env_notes {
        writeln!(w, "- {n}")?;
    }
    writeln!(w)?;

    Ok(())
}

/// The summary table (every dataset against every learner and peer) and each learner's record.
fn summary_section(w: &mut String, res: &Results) -> Result<()> {
    let Results { prepared, algos, outcomes, cart, others, runs } = res;
    let labels: Vec<&str> = others.iter().map(|o| o.label.as_str()).collect();
    writeln!(w, "## Summary")?;
    writeln!(w)?;
    writeln!(
        w,
        "Each peer cell: accuracy (Δ vs CART). Each ltu cell: accuracy (Δ vs CART), model bytes (× CART's \
         emlearn bytes). The accuracy goals are checked on these figures in the next section."
    )?;
    writeln!(w)?;
    let mut head = String::from("| dataset | rows | CART accuracy, emlearn bytes |");
    let mut rule = String::from("|---|---:|---|");
    for l in &labels {
        let _ = write!(head, " {l} |");
        rule.push_str("---|");
    }
    for a in *algos {
        let _ = write!(head, " ltu {a} |");
        rule.push_str("---|");
    }
    writeln!(w, "{head}\n{rule}")?;
    let mut per_algo: Vec<Tally> = (0..algos.len()).map(|_| Tally::default()).collect();
    let mut per_peer: Vec<Tally> = (0..others.len()).map(|_| Tally::default()).collect();
    for (d, p) in prepared.iter().enumerate() {
        let c = &cart[d];
        let (cm, _) = mean_std(&c.iter().map(|f| f.accuracy).collect::<Vec<_>>());
        let cb = mean(c.iter().map(|f| f.bytes));
        let star = if c.iter().any(|f| f.estimated) { "*" } else { "" };
        let mut line = format!("| {} | {} | {}%, {cb:.0}{star} B |", p.name, p.data.n_rows(), pct(cm));
        for (o, r) in runs[d].iter().enumerate() {
            let x = peer_stats(r, c);
            let _ = write!(line, " {}% ({:+.2} pp) |", pct(x.acc_mean), 100.0 * x.delta);
            per_peer[o].record(100.0 * x.delta, None);
        }
        for (a, _) in algos.iter().enumerate() {
            match paired(&outcomes[d][a], c) {
                Some(x) => {
                    let partial =
                        if x.folds < x.of { format!(" [{}/{} folds]", x.folds, x.of) } else { String::new() };
                    let _ = write!(
                        line,
                        " {}% ({:+.2} pp), {:.0} B ({:.2}×){partial} |",
                        pct(x.acc_mean),
                        100.0 * x.delta,
                        x.bytes,
                        x.bytes_ratio
                    );
                    per_algo[a].record(100.0 * x.delta, Some(x.bytes_ratio));
                }
                None => {
                    let why = problem(&outcomes[d][a]).unwrap_or_default();
                    let short =
                        if why.starts_with("not implemented") { "not implemented" } else { "no result" };
                    let _ = write!(line, " {short} |");
                }
            }
        }
        writeln!(w, "{line}")?;
    }
    writeln!(w)?;
    for (o, t) in others.iter().zip(&per_peer) {
        if t.deltas.is_empty() {
            continue;
        }
        writeln!(w, "- **{}** on {} datasets: {}.", o.label, t.deltas.len(), t.against_cart())?;
    }
    for (a, t) in algos.iter().zip(&per_algo) {
        let Tally { bytes_ratios: ratios, .. } = t;
        if ratios.is_empty() {
            writeln!(w, "- **ltu {a}**: no results on any dataset (see below).")?;
            continue;
        }
        writeln!(
            w,
            "- **ltu {a}** on {} datasets: {}; model bytes {:.2}× CART's emlearn bytes (geometric mean; range \
             {:.2}× to {:.2}×).",
            ratios.len(),
            t.against_cart(),
            geomean(ratios),
            ratios.iter().copied().fold(f64::INFINITY, f64::min),
            ratios.iter().copied().fold(0.0, f64::max),
        )?;
    }
    writeln!(w)?;
    Ok(())
}

/// One dataset: what it is, and every learner and peer on its folds.
fn dataset_section(w: &mut String, res: &Results, d: usize) -> Result<()> {
    let Results { prepared, algos, outcomes, cart, others, runs } = res;
    let p = &prepared[d];
    let c = &cart[d];
    let attrs = &p.data.schema.attributes;
    let n_cat = attrs.iter().filter(|a| matches!(a.kind, AttrKind::Categorical { .. })).count();
    let missing = p.data.x.iter().filter(|v| v.is_nan()).count();
    writeln!(w, "### {}", p.name)?;
    writeln!(w)?;
    writeln!(
        w,
        "{} rows, {} attributes ({} numeric, {n_cat} categorical; {} inputs for CART after one-hot), {} classes, \
         {missing} missing cells; {}.",
        p.data.n_rows(),
        attrs.len(),
        attrs.len() - n_cat,
        mean(c.iter().map(|f| f.inputs)),
        p.data.n_classes(),
        p.protocol
    )?;
    for n in &p.notes {
        writeln!(w, "{n}")?;
    }
    writeln!(w)?;
    writeln!(
        w,
        "| model | accuracy % | Δ vs CART | model bytes | × CART bytes | tree nodes | time per fold | × CART time |"
    )?;
    writeln!(w, "|---|---|---:|---:|---:|---:|---:|---:|")?;
    for (a, algo) in algos.iter().enumerate() {
        match paired(&outcomes[d][a], c) {
            Some(x) => {
                let partial =
                    if x.folds < x.of { format!(" ({}/{} folds)", x.folds, x.of) } else { String::new() };
                writeln!(
                    w,
                    "| ltu {algo}{partial} | {} ± {} | {:+.2} pp | {:.0} | {:.2} | — | {} | {:.2} |",
                    pct(x.acc_mean),
                    pct(x.acc_std),
                    100.0 * x.delta,
                    x.bytes,
                    x.bytes_ratio,
                    ms(x.seconds),
                    x.time_ratio
                )?;
            }
            None => {
                writeln!(w, "| ltu {algo} | {} | | | | | | |", problem(&outcomes[d][a]).unwrap_or_default())?;
            }
        }
    }
    let (cm, cs) = mean_std(&c.iter().map(|f| f.accuracy).collect::<Vec<_>>());
    let star = if c.iter().any(|f| f.estimated) { "*" } else { "" };
    writeln!(
        w,
        "| CART → emlearn | {} ± {} | | {:.0}{star} | 1 | {:.1} | {} | 1 |",
        pct(cm),
        pct(cs),
        mean(c.iter().map(|f| f.bytes)),
        mean(c.iter().map(|f| f.nodes)),
        ms(mean(c.iter().map(|f| f.seconds)))
    )?;
    for (o, r) in others.iter().zip(&runs[d]) {
        let x = peer_stats(r, c);
        writeln!(
            w,
            "| {} | {} ± {} | {:+.2} pp | — | — | — | {} | {:.2} |",
            o.label,
            pct(x.acc_mean),
            pct(x.acc_std),
            100.0 * x.delta,
            ms(x.seconds),
            x.time_ratio
        )?;
    }
    dataset_notes(w, res, d)
}

/// A dataset's folds that did not finish, peers that did not converge, and emlearn estimates.
fn dataset_notes(w: &mut String, res: &Results, d: usize) -> Result<()> {
    let Results { algos, outcomes, cart, others, runs, .. } = res;
    let c = &cart[d];
    let mut problems: Vec<String> = algos
        .iter()
        .enumerate()
        .filter(|(a, _)| paired(&outcomes[d][*a], c).is_some())
        .filter_map(|(a, algo)| problem(&outcomes[d][a]).map(|p| format!("ltu {algo}: {p}")))
        .collect();
    for (o, r) in others.iter().zip(&runs[d]) {
        let x = peer_stats(r, c);
        if x.not_converged > 0 {
            problems.push(format!(
                "{}: scikit-learn's `ConvergenceWarning` on {} of {} folds (up to {} iterations); those folds \
                 are counted as they are",
                o.label,
                x.not_converged,
                r.len(),
                x.max_iter.map_or_else(|| "?".into(), |n| n.to_string())
            ));
        }
    }
    let mut notes: Vec<String> = c.iter().filter_map(|f| f.note.clone()).collect();
    notes.dedup();
    if c.iter().any(|f| !f.estimated && (f.bytes - f.layout_bytes).abs() > 0.5) {
        notes.push("the compiled emlearn size differs from its layout formula on some folds".into());
    }
    if !problems.is_empty() || !notes.is_empty() {
        writeln!(w)?;
        for p in problems {
            writeln!(w, "- {p}")?;
        }
        for n in notes {
            writeln!(w, "- * emlearn size estimated from its node layout: {n}")?;
        }
    }
    writeln!(w)?;
    Ok(())
}

/// What the figures cannot say.
fn caveats(w: &mut String, run: &RunInfo) -> Result<()> {
    writeln!(w, "## Caveats")?;
    writeln!(w)?;
    writeln!(
        w,
        "- Ten folds are a small sample: a Δ smaller than the fold standard deviations is not evidence either \
         way. The MONK's rows are one fixed split, so they have no standard deviation."
    )?;
    writeln!(
        w,
        "- The CART accuracy is scikit-learn's float tree. emlearn's loadable trees compare int16 inputs with \
         int16 thresholds, so on data with fractional values the inputs must first be scaled to integers \
         (ltu's format stores that scaling itself); emlearn's own accuracy was not measured here."
    )?;
    writeln!(
        w,
        "- Times are wall clock on a shared 2-core machine; ltu's folds ran {} at a time while the peers ran \
         alone, and other work on the machine adds noise to both. Treat the time ratios as an order of \
         magnitude.",
        run.jobs
    )?;
    writeln!(
        w,
        "- Every ltu algorithm runs with its default options; CART with scikit-learn's defaults (fully grown, \
         no pruning), the other peers with the settings above. Neither side was tuned per dataset. The \
         random forest's 10 trees and the MLP's 100 hidden units are not microcontroller-sized models: they \
         are accuracy references, and their sizes were not measured."
    )?;
    writeln!(
        w,
        "- zoo and led7digit keep their 0/1 columns numeric, as `ltu::data::load` infers them (for a binary \
         column this gives CART the same splits as one-hot); MONK's a1..a6 are read as categorical codes."
    )?;
    Ok(())
}

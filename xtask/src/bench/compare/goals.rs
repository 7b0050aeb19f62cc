//! The accuracy goals, checked on a run's figures: the "## Goals" section of the report.

use std::fmt::Write as _;

use anyhow::{Context as _, Result};
use ltu::learn::Algo;

use crate::bench::compare::datasets::tabular_count;
use crate::bench::compare::measure::Outcome;
use crate::bench::compare::results::{mean, paired, pct, Paired, Results};

/// Accuracies (fractions) this close count as equal when a goal is checked: fold accuracies are
/// ratios of counts, and their means differ from exact ties by rounding only.
const TIE: f64 = 1e-9;
/// The goal against CART: no dataset more than this many percentage points under CART, for any learner.
const MAX_PP_UNDER_CART: f64 = 2.0;

fn met(ok: bool) -> &'static str {
    if ok {
        "**met**"
    } else {
        "**not met**"
    }
}

/// One ltu learner's figures for the goals: its datasets, and the peers on the same datasets and
/// folds.
struct LearnerMeans {
    datasets: usize,
    /// Datasets where some folds did not finish.
    partial: usize,
    /// Datasets without any result.
    missing: Vec<&'static str>,
    ltu: f64,
    lr: f64,
    mlp: f64,
    cart: f64,
}

/// Learner `a`'s mean accuracy against logistic regression's (peer `lr`), the MLP's (peer `mlp`)
/// and CART's, on the datasets and folds where it has results.
fn learner_means(res: &Results, a: usize, lr: usize, mlp: usize) -> LearnerMeans {
    let Results { prepared, outcomes, cart, runs, .. } = res;
    let (mut ltu, mut lrs, mut mlps, mut carts) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut partial, mut missing) = (0, Vec::new());
    for (d, p) in prepared.iter().enumerate() {
        let folds = &outcomes[d][a];
        let Some(x) = paired(folds, &cart[d]) else {
            missing.push(p.name);
            continue;
        };
        if x.folds < x.of {
            partial += 1;
        }
        let done: Vec<usize> =
            (0..folds.len()).filter(|&f| matches!(folds[f], Outcome::Done { .. })).collect();
        ltu.push(x.acc_mean);
        lrs.push(mean(done.iter().map(|&f| runs[d][lr][f].accuracy)));
        mlps.push(mean(done.iter().map(|&f| runs[d][mlp][f].accuracy)));
        carts.push(mean(done.iter().map(|&f| cart[d][f].accuracy)));
    }
    LearnerMeans {
        datasets: ltu.len(),
        partial,
        missing,
        ltu: mean(ltu),
        lr: mean(lrs),
        mlp: mean(mlps),
        cart: mean(carts),
    }
}

/// "over the same 17 datasets" or "over the 8 datasets where hsi has results (none on …)".
fn over(algo: Algo, m: &LearnerMeans) -> String {
    let mut s = if m.missing.is_empty() {
        format!("over the same {} datasets", m.datasets)
    } else {
        format!(
            "over the {} datasets where {algo} has results (of {}; none on {})",
            m.datasets,
            m.datasets + m.missing.len(),
            m.missing.join(", ")
        )
    };
    if m.partial > 0 {
        let _ = write!(
            s,
            "; on {} of them {algo} finished only some folds, and the peers are averaged over those",
            m.partial
        );
    }
    s
}

/// The "## Goals: accuracy against logistic regression, the MLP and CART" section; returns its goal lines for the console.
pub fn goals(w: &mut String, res: &Results, full: bool) -> Result<Vec<String>> {
    let others = &res.others;
    let find = |key: &str| {
        others.iter().position(|o| o.key == key).with_context(|| format!("the peers' results lack `{key}`"))
    };
    let (lr, mlp) = (find("lr")?, find("mlp")?);
    let means: Vec<LearnerMeans> = (0..res.algos.len()).map(|a| learner_means(res, a, lr, mlp)).collect();
    goal_table(w, res, (lr, mlp), &means, full)?;
    let mut lines = means_against_lr(res, &others[lr].label, &means);
    let (best, line) = best_learner_against_mlp(res, mlp);
    lines.push(line);
    let (line, under_lines) = under_cart(res);
    lines.push(line);

    writeln!(w, "Goals:")?;
    writeln!(w)?;
    for l in &lines {
        writeln!(w, "- {l}")?;
    }
    writeln!(w)?;
    writeln!(
        w,
        "Best ltu learner per dataset: {}.",
        best.iter()
            .map(|(name, acc, who, _)| format!("{name} {}% ({})", pct(*acc), who.join(", ")))
            .collect::<Vec<_>>()
            .join("; ")
    )?;
    writeln!(w)?;
    writeln!(w, "More than {MAX_PP_UNDER_CART} points under CART (Δ over the same folds, as in the tables), per learner:")?;
    writeln!(w)?;
    for l in &under_lines {
        writeln!(w, "- {l}")?;
    }
    writeln!(w)?;
    Ok(lines)
}

/// The goals as quoted, what counts as met, and each learner's means against the peers'.
fn goal_table(
    w: &mut String,
    res: &Results,
    (lr, mlp): (usize, usize),
    means: &[LearnerMeans],
    full: bool,
) -> Result<()> {
    let Results { prepared, algos, others, .. } = res;
    let (lr_label, mlp_label) = (&others[lr].label, &others[mlp].label);
    writeln!(w, "## Goals: accuracy against logistic regression, the MLP and CART")?;
    writeln!(w)?;
    writeln!(
        w,
        "> Accuracy, 10-fold CV on the shared datasets: the mean of ptree and the mean of ndl each ≥ logistic \
         regression's, the mean over datasets of the best ltu learner on each ≥ the MLP's mean, and no dataset \
         more than 2 points under CART for any learner's default."
    )?;
    writeln!(w)?;
    writeln!(
        w,
        "Checked on this run's figures. A dataset's accuracy is its mean over folds (MONK's: the one fixed \
         split), and a mean over datasets weighs every dataset equally. A learner is compared with the peers \
         on the datasets and folds where it has results. Means that agree to within {TIE:e} count as equal \
         (met)."
    )?;
    if !full {
        writeln!(w)?;
        writeln!(
            w,
            "**A partial run** ({} of {} datasets, {} of {} learners): the lines below check the goal on \
             these only.",
            prepared.len(),
            tabular_count(),
            algos.len(),
            Algo::ALL.len()
        )?;
    }
    writeln!(w)?;
    writeln!(
        w,
        "| ltu learner | datasets | ltu mean | {lr_label} mean | {mlp_label} mean | CART mean | ≥ {lr_label} | ≥ {mlp_label} |"
    )?;
    writeln!(w, "|---|---:|---:|---:|---:|---:|---|---|")?;
    let yes = |ok: bool| if ok { "yes" } else { "no" };
    for (algo, m) in algos.iter().zip(means) {
        if m.datasets == 0 {
            writeln!(w, "| {algo} | 0 | no result | | | | | |")?;
            continue;
        }
        writeln!(
            w,
            "| {algo} | {}{} | {}% | {}% | {}% | {}% | {} ({:+.2} pp) | {} ({:+.2} pp) |",
            m.datasets,
            if m.missing.is_empty() { String::new() } else { format!(" of {}", prepared.len()) },
            pct(m.ltu),
            pct(m.lr),
            pct(m.mlp),
            pct(m.cart),
            yes(m.ltu >= m.lr - TIE),
            100.0 * (m.ltu - m.lr),
            yes(m.ltu >= m.mlp - TIE),
            100.0 * (m.ltu - m.mlp),
        )?;
    }
    let fewer: Vec<String> = algos
        .iter()
        .zip(means)
        .filter(|(_, m)| !m.missing.is_empty() && m.datasets > 0)
        .map(|(algo, m)| {
            format!("{algo} has results on {} datasets only (none on {})", m.datasets, m.missing.join(", "))
        })
        .collect();
    writeln!(w)?;
    if !fewer.is_empty() {
        writeln!(w, "The peers' means in a row are over that learner's datasets: {}.", fewer.join("; "))?;
        writeln!(w)?;
    }
    Ok(())
}

/// The first goal: ptree's and ndl's means each at least logistic regression's.
fn means_against_lr(res: &Results, lr_label: &str, means: &[LearnerMeans]) -> Vec<String> {
    let algos = res.algos;
    let mut lines = Vec::new();
    // Goal 1: ptree's and ndl's means against logistic regression's.
    for name in ["ptree", "ndl"] {
        let line = match algos.iter().position(|a| a.to_string() == name) {
            None => {
                format!("{name} mean ≥ {lr_label}'s: not checked, {name} was not among this run's algorithms")
            }
            Some(a) if means[a].datasets == 0 => {
                format!("{name} mean ≥ {lr_label}'s: **not met**, {name} has no result on any dataset")
            }
            Some(a) => {
                let m = &means[a];
                format!(
                    "{name} mean ≥ {lr_label}'s: {} — {name} {}% vs {lr_label} {}% ({:+.2} pp), {}",
                    met(m.ltu >= m.lr - TIE),
                    pct(m.ltu),
                    pct(m.lr),
                    100.0 * (m.ltu - m.lr),
                    over(algos[a], m)
                )
            }
        };
        lines.push(line);
    }
    lines
}

/// A dataset's best ltu learners: the dataset, their accuracy, their names, and whether any of
/// them finished only some folds.
type Best = (&'static str, f64, Vec<String>, bool);

/// The second goal: the best ltu learner on each dataset, averaged, at least the MLP's mean.
/// Returns the best learners per dataset and the goal line.
fn best_learner_against_mlp(res: &Results, mlp: usize) -> (Vec<Best>, String) {
    let Results { prepared, algos, outcomes, cart, others, runs } = res;
    let mlp_label = &others[mlp].label;
    // Goal 2: the best ltu learner on each dataset, averaged, against the MLP's mean.
    let mut best: Vec<Best> = Vec::new();
    let mut no_ltu = Vec::new();
    for (d, p) in prepared.iter().enumerate() {
        let results: Vec<(Algo, Paired)> = algos
            .iter()
            .enumerate()
            .filter_map(|(a, algo)| paired(&outcomes[d][a], &cart[d]).map(|x| (*algo, x)))
            .collect();
        let Some(top) = results.iter().map(|(_, x)| x.acc_mean).max_by(f64::total_cmp) else {
            no_ltu.push(p.name);
            continue;
        };
        let winners: Vec<&(Algo, Paired)> = results.iter().filter(|(_, x)| x.acc_mean >= top - TIE).collect();
        best.push((
            p.name,
            top,
            winners.iter().map(|(a, _)| a.to_string()).collect(),
            winners.iter().any(|(_, x)| x.folds < x.of),
        ));
    }
    let mlp_means: Vec<f64> = prepared
        .iter()
        .enumerate()
        .filter(|(_, p)| !no_ltu.contains(&p.name))
        .map(|(d, _)| mean(runs[d][mlp].iter().map(|r| r.accuracy)))
        .collect();
    let line = if best.is_empty() {
        format!(
            "best ltu learner per dataset, mean ≥ {mlp_label}'s: **not met**, no ltu learner has a result"
        )
    } else {
        let b = mean(best.iter().map(|x| x.1));
        let m = mean(mlp_means.iter().copied());
        let mut line = format!(
            "best ltu learner per dataset, mean ≥ {mlp_label}'s: {} — {}% vs {mlp_label} {}% ({:+.2} pp), over {} \
             datasets",
            met(b >= m - TIE),
            pct(b),
            pct(m),
            100.0 * (b - m),
            best.len()
        );
        if !no_ltu.is_empty() {
            let _ = write!(line, " (no ltu result on {})", no_ltu.join(", "));
        }
        let partial = best.iter().filter(|x| x.3).count();
        if partial > 0 {
            let _ = write!(line, "; {partial} of the best results are over only some folds");
        }
        line
    };
    (best, line)
}

/// The third goal: no dataset more than 2 points under CART for any learner's default. Returns
/// the goal line and one line per learner.
fn under_cart(res: &Results) -> (String, Vec<String>) {
    let Results { prepared, algos, outcomes, cart, .. } = res;
    // Goal 3: no dataset more than 2 points under CART, for any learner's default.
    let mut under_lines = Vec::new();
    let mut all_ok = true;
    let mut counts = Vec::new();
    for (a, algo) in algos.iter().enumerate() {
        let mut under = Vec::new();
        let mut missing = Vec::new();
        let mut n = 0;
        for (d, p) in prepared.iter().enumerate() {
            match paired(&outcomes[d][a], &cart[d]) {
                Some(x) => {
                    n += 1;
                    if 100.0 * x.delta < -MAX_PP_UNDER_CART - 100.0 * TIE {
                        under.push(format!("{} {:+.2} pp", p.name, 100.0 * x.delta));
                    }
                }
                None => missing.push(p.name),
            }
        }
        let ok = under.is_empty() && n > 0;
        all_ok &= ok;
        counts.push(format!("{algo} {}", under.len()));
        let mut line = if n == 0 {
            format!("{algo}: **not met**, no result on any dataset")
        } else if under.is_empty() {
            format!("{algo}: {} on the {n} datasets where it has results", met(true))
        } else {
            format!(
                "{algo}: {} — {} of {n} datasets more than {MAX_PP_UNDER_CART} points under CART: {}",
                met(false),
                under.len(),
                under.join(", ")
            )
        };
        if !missing.is_empty() && n > 0 {
            let _ = write!(line, " (no result on {}: {}; not counted)", missing.len(), missing.join(", "));
        }
        under_lines.push(line);
    }
    let line = format!(
        "no dataset more than {MAX_PP_UNDER_CART} points under CART for any learner's default: {} — datasets \
         under, per learner: {}",
        met(all_ok && !algos.is_empty()),
        counts.join(", ")
    );
    (line, under_lines)
}

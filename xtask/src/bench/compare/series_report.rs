//! The "Sensor recordings (archive test splits)" section of the report: ltu's learners and the
//! peers of `bench/series_peers.py` on each set, and the goals checked on them.

use std::fmt::Write as _;

use anyhow::Result;
use ltu::learn::Algo;

use crate::bench::compare::measure::{Outcome, LTU_DEADLINE};
use crate::bench::compare::results::pct;
use crate::bench::compare::series::{Series, SeriesPeer, SeriesPeerRun, SeriesRun};

/// The learner the goal holds within [`MAX_PP_UNDER_PEER`] of the best small peer.
const DEFAULT_LEARNER: &str = "ptree";
/// How far under the best microcontroller-sized peer the default learner may be, in points.
const MAX_PP_UNDER_PEER: f64 = 2.0;
/// Accuracies this close count as equal (ratios of the same counts).
const TIE: f64 = 1e-9;

fn met(ok: bool) -> &'static str {
    if ok {
        "**met**"
    } else {
        "**not met**"
    }
}

fn seconds(s: f64) -> String {
    if s < 1.0 {
        format!("{:.1} ms", 1000.0 * s)
    } else {
        format!("{s:.2} s")
    }
}

/// ltu's results and the peers' on the recordings sets.
pub struct SeriesResults<'a> {
    pub series: &'a [Series],
    pub algos: &'a [Algo],
    /// `[set][learner]`.
    pub runs: &'a [Vec<SeriesRun>],
    pub peers: &'a [SeriesPeer],
    /// `[set][peer]`.
    pub peer_runs: &'a [Vec<SeriesPeerRun>],
    /// Learner-set pairs trained at a time.
    pub jobs: usize,
}

fn accuracy(run: &SeriesRun) -> Option<f64> {
    match run.outcome {
        Outcome::Done { accuracy, .. } => Some(accuracy),
        _ => None,
    }
}

/// The section; returns the goal lines for the console.
pub fn section(w: &mut String, res: &SeriesResults) -> Result<Vec<String>> {
    let SeriesResults { series, algos, runs, peers, peer_runs, .. } = res;
    let s0 = &series[0];
    writeln!(w, "## Sensor recordings (archive test splits)")?;
    writeln!(w)?;
    writeln!(
        w,
        "The time-series sets of [SENSORS.md](SENSORS.md), on the archive's own split: trained on the \
         training recordings, scored on the test recordings. ltu: every learner trained as `ltu train FILE \
         --recordings` trains it, through the library (`ltu::data::recordings`): the default pipeline (the whole \
         recording one window; every statistic of the whole window, and the mean, spread, energy, minimum and \
         maximum of each quarter and each eighth of it, for every channel: {} features per channel), the \
         learner's default options, seed 0. The pipeline is stored in the model, and every test recording is \
         scored by `ltu-runtime`'s `Model::predict_window` on its raw samples, as on a device (each prediction \
         also checked against the trainer's). Bytes: what a device stores (the model with its pipeline \
         table, no host block: `ltu train --strip`), not the evaluator's code; MACs: mean multiply-accumulates \
         per test window, besides the window statistics. Time: training, export and scoring the test windows, \
         {} learner-set pairs at a time; a pair not started within {} s of the first is skipped and listed.",
        s0.pipeline.features.len() / s0.pipeline.channels.len().max(1),
        res.jobs,
        LTU_DEADLINE.as_secs()
    )?;
    writeln!(w)?;
    writeln!(
        w,
        "Peers, measured in the same run by `bench/series_peers.py` (called by `bench/peers.py`, same venv, one \
         thread) on the same recordings, each with scikit-learn's defaults except what is named: {}. Raw samples \
         are every channel's samples one after the other, each recording cut to the length of the set's \
         shortest recording (train or test; below, per set). The k-segment statistics are the mean, the population standard \
         deviation, the mean square, the minimum and the maximum of each of k equal segments of each channel \
         (`numpy.array_split`'s segments; in a recording shorter than k, the empty last segments repeat its last \
         sample). Microcontroller-sized, for the goals: {}.",
        peers.iter().map(|p| format!("**{}**, {}", p.label, p.about)).collect::<Vec<_>>().join("; "),
        peers.iter().filter(|p| p.small).map(|p| p.label.as_str()).collect::<Vec<_>>().join(", ")
    )?;
    writeln!(w)?;
    summary_table(w, res)?;
    let lines = goals(w, res)?;
    for (s, set) in series.iter().enumerate() {
        set_section(w, set, algos, &runs[s], peers, &peer_runs[s])?;
    }
    writeln!(
        w,
        "Caveats: one split and one seed, so a difference of a test recording or two is noise (one test \
         recording is {}). ltu computes its window statistics in integers at each channel's decimal scale, the \
         peers in floating point; ltu's runtime cuts segment i of k at floor(i·n/k), the peers at numpy's \
         boundaries. The sizes of the peers are counts (tree nodes, stored values), not bytes on a device; \
         RF(100) and logistic regression are accuracy references, not microcontroller-sized models.",
        series
            .iter()
            .map(|s| format!("{:.2} points on {}", 100.0 / s.test.recordings.len().max(1) as f64, s.name))
            .collect::<Vec<_>>()
            .join(", ")
    )?;
    writeln!(w)?;
    Ok(lines)
}

/// Every set against every learner and peer: test accuracy.
fn summary_table(w: &mut String, res: &SeriesResults) -> Result<()> {
    let SeriesResults { series, algos, runs, peers, peer_runs, .. } = res;
    let mut head = String::from("| set | channels | classes | samples | train | test |");
    let mut rule = String::from("|---|---:|---:|---|---:|---:|");
    for a in *algos {
        let _ = write!(head, " ltu {a} |");
        rule.push_str("---:|");
    }
    for p in *peers {
        let _ = write!(head, " {} |", p.label);
        rule.push_str("---:|");
    }
    writeln!(w, "Test accuracy, %:")?;
    writeln!(w)?;
    writeln!(w, "{head}\n{rule}")?;
    for (s, set) in series.iter().enumerate() {
        let (lo, hi) = set.train.length_range().min_max(set.test.length_range());
        let mut line = format!(
            "| {} | {} | {} | {lo}..{hi} | {} | {} |",
            set.name,
            set.train.channels.len(),
            set.train.classes.len(),
            set.train.recordings.len(),
            set.test.recordings.len()
        );
        for r in &runs[s] {
            let cell = accuracy(r).map_or_else(
                || if matches!(r.outcome, Outcome::Skipped(_)) { "skipped".into() } else { "failed".into() },
                pct,
            );
            let _ = write!(line, " {cell} |");
        }
        for p in &peer_runs[s] {
            let _ = write!(line, " {} |", pct(p.accuracy));
        }
        writeln!(w, "{line}")?;
    }
    writeln!(w)?;
    Ok(())
}

/// The shortest and longest of two length ranges together.
trait MinMax {
    fn min_max(self, other: Self) -> Self;
}

impl MinMax for (usize, usize) {
    fn min_max(self, other: Self) -> Self {
        (self.0.min(other.0), self.1.max(other.1))
    }
}

/// The goals on every set: the best ltu learner at least the best microcontroller-sized peer,
/// and the default learner within [`MAX_PP_UNDER_PEER`] points of it.
fn goals(w: &mut String, res: &SeriesResults) -> Result<Vec<String>> {
    let SeriesResults { series, algos, runs, peers, peer_runs, .. } = res;
    writeln!(w, "### Goals on the recordings")?;
    writeln!(w)?;
    writeln!(
        w,
        "> On every set: the best ltu learner ≥ the best microcontroller-sized peer ({}), and the default \
         learner ({DEFAULT_LEARNER}) within {MAX_PP_UNDER_PEER} points of that peer.",
        peers.iter().filter(|p| p.small).map(|p| p.label.as_str()).collect::<Vec<_>>().join(", ")
    )?;
    writeln!(w)?;
    writeln!(
        w,
        "Checked on this run's test accuracies; accuracies that agree to within {TIE:e} count as equal. A \
         learner without a result counts as missing the goal."
    )?;
    writeln!(w)?;
    let default = algos.iter().position(|a| a.to_string() == DEFAULT_LEARNER);
    let (mut best_lines, mut default_lines) = (Vec::new(), Vec::new());
    let (mut best_ok, mut default_ok) = (true, default.is_some());
    for (s, set) in series.iter().enumerate() {
        let Some((p, peer_acc)) = peers
            .iter()
            .zip(&peer_runs[s])
            .filter(|(p, _)| p.small)
            .map(|(p, r)| (p, r.accuracy))
            .max_by(|a, b| a.1.total_cmp(&b.1))
        else {
            best_ok = false;
            best_lines.push(format!("{}: no microcontroller-sized peer result", set.name));
            continue;
        };
        let ltu: Vec<(Algo, f64)> =
            algos.iter().zip(&runs[s]).filter_map(|(a, r)| accuracy(r).map(|x| (*a, x))).collect();
        match ltu.iter().map(|x| x.1).max_by(f64::total_cmp) {
            None => {
                best_ok = false;
                best_lines.push(format!("{}: no ltu learner has a result", set.name));
            }
            Some(top) => {
                let ok = top >= peer_acc - TIE;
                best_ok &= ok;
                let who: Vec<String> =
                    ltu.iter().filter(|x| x.1 >= top - TIE).map(|x| x.0.to_string()).collect();
                best_lines.push(format!(
                    "{}: {} — ltu {} {}% vs {} {}% ({:+.2} pp)",
                    set.name,
                    met(ok),
                    who.join(", "),
                    pct(top),
                    p.label,
                    pct(peer_acc),
                    100.0 * (top - peer_acc)
                ));
            }
        }
        if let Some(d) = default {
            match accuracy(&runs[s][d]) {
                None => {
                    default_ok = false;
                    default_lines.push(format!("{}: **not met**, {DEFAULT_LEARNER} has no result", set.name));
                }
                Some(acc) => {
                    let ok = 100.0 * (acc - peer_acc) >= -MAX_PP_UNDER_PEER - 100.0 * TIE;
                    default_ok &= ok;
                    default_lines.push(format!(
                        "{}: {} — {DEFAULT_LEARNER} {}% vs {} {}% ({:+.2} pp)",
                        set.name,
                        met(ok),
                        pct(acc),
                        p.label,
                        pct(peer_acc),
                        100.0 * (acc - peer_acc)
                    ));
                }
            }
        }
    }
    let best_line = format!(
        "recordings: best ltu learner ≥ best microcontroller-sized peer on every set: {} ({} sets)",
        met(best_ok),
        series.len()
    );
    let default_line = match default {
        None => format!(
            "recordings: {DEFAULT_LEARNER} within {MAX_PP_UNDER_PEER} points of the best microcontroller-sized \
             peer: not checked, {DEFAULT_LEARNER} was not among this run's algorithms"
        ),
        Some(_) => format!(
            "recordings: {DEFAULT_LEARNER} within {MAX_PP_UNDER_PEER} points of the best microcontroller-sized \
             peer on every set: {} ({} sets)",
            met(default_ok),
            series.len()
        ),
    };
    writeln!(w, "- {best_line}:")?;
    for l in &best_lines {
        writeln!(w, "  - {l}")?;
    }
    writeln!(w, "- {default_line}:")?;
    for l in &default_lines {
        writeln!(w, "  - {l}")?;
    }
    writeln!(w)?;
    let mut console = vec![best_line];
    console.extend(best_lines.iter().map(|l| format!("  {l}")));
    console.push(default_line);
    console.extend(default_lines.iter().map(|l| format!("  {l}")));
    Ok(console)
}

/// One set: every learner and peer with its costs.
fn set_section(
    w: &mut String,
    set: &Series,
    algos: &[Algo],
    runs: &[SeriesRun],
    peers: &[SeriesPeer],
    peer_runs: &[SeriesPeerRun],
) -> Result<()> {
    writeln!(w, "### {} (recordings)", set.name)?;
    let shortest = set.train.length_range().0.min(set.test.length_range().0);
    writeln!(w)?;
    writeln!(
        w,
        "Train on `{}` ({} recordings), test on `{}` ({}); {} channel(s), {} classes; {} pipeline inputs; \
         the raw peers read the first {shortest} samples of each channel.",
        set.train_file,
        set.train.recordings.len(),
        set.test_file,
        set.test.recordings.len(),
        set.train.channels.len(),
        set.train.classes.len(),
        set.pipeline.features.len()
    )?;
    writeln!(w)?;
    writeln!(w, "| model | test accuracy % | device bytes | MACs per window | inputs | size | time |")?;
    writeln!(w, "|---|---:|---:|---:|---:|---|---:|")?;
    let mut problems = Vec::new();
    for (algo, r) in algos.iter().zip(runs) {
        match &r.outcome {
            Outcome::Done { accuracy, bytes, seconds: t } => writeln!(
                w,
                "| ltu {algo} | {} | {bytes} | {:.1} | {} | — | {} |",
                pct(*accuracy),
                r.mean_macs,
                set.pipeline.features.len(),
                seconds(*t)
            )?,
            Outcome::Failed(e) => {
                writeln!(w, "| ltu {algo} | no result | | | | | |")?;
                problems.push(format!("ltu {algo} failed: {}", e.replace('\n', " ")));
            }
            Outcome::Skipped(why) => {
                writeln!(w, "| ltu {algo} | no result | | | | | |")?;
                problems.push(format!("ltu {algo}: skipped by {why}"));
            }
        }
    }
    for (p, r) in peers.iter().zip(peer_runs) {
        if !r.converged {
            problems.push(format!("{}: scikit-learn's `ConvergenceWarning`; counted as it is", p.label));
        }
        writeln!(
            w,
            "| {} | {} | — | — | {} | {} | {} |",
            p.label,
            pct(r.accuracy),
            r.inputs,
            r.size,
            seconds(r.seconds)
        )?;
    }
    writeln!(w)?;
    if !problems.is_empty() {
        for p in problems {
            writeln!(w, "- {p}")?;
        }
        writeln!(w)?;
    }
    Ok(())
}

//! What a run measured: each model's figures on each target, and the datasets' models together.

use anyhow::{bail, ensure, Result};

use crate::bench::device::pipeline::PipelineReport;
use crate::firmware::qemu::{print_log, Run};
use crate::firmware::Target;

/// Device measurements of one model on one target.
#[derive(Debug, Clone)]
pub struct Measure {
    pub target: Target,
    /// Instructions of `Model::from_bytes` (ltu only).
    pub load: Option<u64>,
    /// Instructions of each prediction.
    pub predict: Vec<u64>,
    /// Painted stack bytes of each prediction.
    pub stack: Vec<u64>,
    /// Flash of the model and all code it needs: text + data minus the twin's.
    pub flash: u64,
    /// On-chip predictions equal to the host's, of `predict.len()`.
    pub agree: usize,
}

/// One model in the report.
#[derive(Debug, Clone)]
pub struct Entry {
    /// `ltu` or `emlearn`.
    pub family: &'static str,
    /// e.g. `ptree`, `ptree --max-depth 2`, `DT inline`.
    pub name: String,
    /// Colour group: the learner (`ptree`, ...) or the peer model (`DT`, `RF10`).
    pub group: String,
    /// 10-fold CV accuracy of what runs on the device.
    pub accuracy: Option<f64>,
    /// Model file bytes (ltu) — emlearn's model is code and tables, counted in flash only.
    pub model_bytes: Option<usize>,
    /// Mean over the measured rows of the essential work (`ModelSpec::essential_work`,
    /// ltu only): the instructions a prediction cannot do without.
    pub essential: Option<f64>,
    /// Linear threshold units in the model (ltu; 0 for a tree of tests, such as FRINGE's).
    pub units: usize,
    /// For a tree whose every decision node is a threshold test: the threshold nodes on each
    /// measured row's path from the root to its leaf (empty for any other model). Instructions
    /// against this count give the walk's cost per node.
    pub path_nodes: Vec<u64>,
    pub measures: Vec<Measure>,
    pub notes: Vec<String>,
}

impl Entry {
    /// Its measurement on the target `triple`, if run there.
    pub fn on(&self, triple: &str) -> Option<&Measure> {
        self.measures.iter().find(|m| m.target.triple == triple)
    }
}

/// Every dataset's models, with what the report says about the run.
pub struct Report {
    /// `git describe --always --dirty` of the measured tree.
    pub commit: String,
    /// Per dataset: its name, rows, rows measured, models.
    pub datasets: Vec<(&'static str, usize, usize, Vec<Entry>)>,
    pub versions: Vec<(String, String)>,
    pub quick: bool,
    /// The sensor pipeline section, when measured.
    pub pipeline: Option<PipelineReport>,
}

/// Reads a bench run: regions (loading first for ltu), `p <class> <stack>` lines, `done`.
pub fn measure(target: Target, run: &Run, host: &[usize], has_load: bool, flash: u64) -> Result<Measure> {
    if run.code != 0 {
        print_log(run);
        bail!("the bench firmware exited with {}", run.code);
    }
    let lines: Vec<(usize, u64)> = run
        .log
        .iter()
        .filter_map(|l| {
            let mut it = l.strip_prefix("p ")?.split_whitespace();
            Some((it.next()?.parse().ok()?, it.next()?.parse().ok()?))
        })
        .collect();
    ensure!(run.log.iter().any(|l| l == "done"), "the bench firmware did not finish: {:?}", run.log);
    ensure!(lines.len() == host.len(), "{} predictions logged, want {}", lines.len(), host.len());
    let skip = usize::from(has_load);
    ensure!(
        run.regions.len() == host.len() + skip,
        "{} measured regions, want {}",
        run.regions.len(),
        host.len() + skip
    );
    Ok(Measure {
        target,
        load: has_load.then(|| run.regions[0]),
        predict: run.regions[skip..].to_vec(),
        stack: lines.iter().map(|l| l.1).collect(),
        flash,
        agree: lines.iter().zip(host).filter(|(l, &h)| l.0 == h).count(),
    })
}

/// One console line of a measurement.
pub fn print_measure(label: &str, m: &Measure) {
    let load = m.load.map_or(String::new(), |l| format!(", load {l}"));
    println!(
        "  {label:<30} {:<10} {:>6} instructions per prediction (max {}){load}, flash {} B, stack {} B, {}/{} agree",
        m.target.core,
        mean(&m.predict),
        m.predict.iter().max().unwrap_or(&0),
        m.flash,
        m.stack.iter().max().unwrap_or(&0),
        m.agree,
        m.predict.len()
    );
}

/// The mean, rounded.
pub fn mean(xs: &[u64]) -> u64 {
    let n = xs.len().max(1) as u64;
    (xs.iter().sum::<u64>() + n / 2) / n
}

/// A fraction as a percentage with one decimal, `—` when unknown.
pub fn pct(a: Option<f64>) -> String {
    a.map_or_else(|| "—".into(), |a| format!("{:.1}", 100.0 * a))
}

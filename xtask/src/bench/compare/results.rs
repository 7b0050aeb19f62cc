//! One run's results side by side — ltu's outcomes and the peers' folds, per dataset — and the
//! figures both the report and the goals compute from them.

use anyhow::Result;
use ltu::learn::metrics::mean_std;
use ltu::learn::Algo;
use serde_json::Value;

use crate::bench::compare::measure::{Outcome, Prepared};
use crate::bench::compare::peers::{other_peers, peer_folds, peer_runs, OtherPeer, PeerFold, PeerRun};

/// ltu's outcomes and the peers' folds of one run.
pub struct Results<'a> {
    /// The datasets as loaded, with their folds.
    pub prepared: &'a [Prepared],
    /// The ltu algorithms run.
    pub algos: &'a [Algo],
    /// ltu's outcomes, `[dataset][algorithm][fold]`.
    pub outcomes: &'a [Vec<Vec<Outcome>>],
    /// CART's folds, `[dataset][fold]`.
    pub cart: Vec<Vec<PeerFold>>,
    /// The peers other than CART.
    pub others: Vec<OtherPeer>,
    /// The other peers' folds, `[dataset][peer][fold]`.
    pub runs: Vec<Vec<Vec<PeerRun>>>,
}

impl<'a> Results<'a> {
    /// Pairs ltu's outcomes with the peers' results (`peers.json`).
    pub fn new(
        prepared: &'a [Prepared],
        algos: &'a [Algo],
        outcomes: &'a [Vec<Vec<Outcome>>],
        peers: &Value,
    ) -> Result<Results<'a>> {
        let cart: Vec<Vec<PeerFold>> =
            prepared.iter().map(|p| peer_folds(peers, p.name)).collect::<Result<_>>()?;
        let others = other_peers(peers)?;
        // [dataset][peer][fold]
        let runs: Vec<Vec<Vec<PeerRun>>> =
            prepared.iter().map(|p| peer_runs(peers, p.name, &others)).collect::<Result<_>>()?;
        Ok(Results { prepared, algos, outcomes, cart, others, runs })
    }
}

/// A peer's figures on one dataset, against CART on the same folds.
pub struct PeerStats {
    pub acc_mean: f64,
    pub acc_std: f64,
    /// Mean of (peer − CART) accuracy over the folds.
    pub delta: f64,
    pub seconds: f64,
    pub time_ratio: f64,
    pub not_converged: usize,
    pub max_iter: Option<u64>,
}

/// A peer's figures against CART on the same folds.
pub fn peer_stats(runs: &[PeerRun], cart: &[PeerFold]) -> PeerStats {
    let (acc_mean, acc_std) = mean_std(&runs.iter().map(|r| r.accuracy).collect::<Vec<_>>());
    let seconds = mean(runs.iter().map(|r| r.seconds));
    PeerStats {
        acc_mean,
        acc_std,
        delta: mean(runs.iter().zip(cart).map(|(r, c)| r.accuracy - c.accuracy)),
        seconds,
        time_ratio: seconds / mean(cart.iter().map(|c| c.seconds)),
        not_converged: runs.iter().filter(|r| !r.converged).count(),
        max_iter: runs.iter().filter_map(|r| r.n_iter).max(),
    }
}

/// A fraction as a percentage with two decimals.
pub fn pct(x: f64) -> String {
    format!("{:.2}", 100.0 * x)
}

/// The mean (0 for none).
pub fn mean(xs: impl IntoIterator<Item = f64>) -> f64 {
    let (s, n) = xs.into_iter().fold((0.0, 0usize), |(s, n), x| (s + x, n + 1));
    s / n.max(1) as f64
}

/// Per (dataset, algorithm): the figures over the folds that finished, paired with CART on the
/// same folds.
pub struct Paired {
    pub folds: usize,
    pub of: usize,
    pub acc_mean: f64,
    pub acc_std: f64,
    /// Mean of (ltu − CART) accuracy over the paired folds.
    pub delta: f64,
    pub bytes: f64,
    pub bytes_ratio: f64,
    pub seconds: f64,
    pub time_ratio: f64,
}

/// ltu's figures over the folds that finished, paired with CART's; `None` if none finished.
pub fn paired(folds: &[Outcome], cart: &[PeerFold]) -> Option<Paired> {
    let done: Vec<(f64, usize, f64, &PeerFold)> = folds
        .iter()
        .zip(cart)
        .filter_map(|(o, c)| match o {
            Outcome::Done { accuracy, bytes, seconds } => Some((*accuracy, *bytes, *seconds, c)),
            _ => None,
        })
        .collect();
    if done.is_empty() {
        return None;
    }
    let accs: Vec<f64> = done.iter().map(|d| d.0).collect();
    let (acc_mean, acc_std) = mean_std(&accs);
    let bytes = mean(done.iter().map(|d| d.1 as f64));
    let seconds = mean(done.iter().map(|d| d.2));
    Some(Paired {
        folds: done.len(),
        of: folds.len(),
        acc_mean,
        acc_std,
        delta: mean(done.iter().map(|d| d.0 - d.3.accuracy)),
        bytes,
        bytes_ratio: bytes / mean(done.iter().map(|d| d.3.bytes)),
        seconds,
        time_ratio: seconds / mean(done.iter().map(|d| d.3.seconds)),
    })
}

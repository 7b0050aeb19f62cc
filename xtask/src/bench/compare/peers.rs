//! The peers' results as `bench/peers.py` writes them: CART's folds (with emlearn's size) and the
//! folds of every other scikit-learn peer.

use anyhow::{Context as _, Result};
use serde_json::Value;

/// One CART fold from the peers' JSON.
pub struct PeerFold {
    pub accuracy: f64,
    pub seconds: f64,
    pub nodes: f64,
    pub inputs: f64,
    pub bytes: f64,
    pub estimated: bool,
    pub layout_bytes: f64,
    pub note: Option<String>,
}

/// CART's folds on dataset `name`.
pub fn peer_folds(peers: &Value, name: &str) -> Result<Vec<PeerFold>> {
    let ds = peers["datasets"]
        .as_array()
        .and_then(|a| a.iter().find(|d| d["name"] == name))
        .with_context(|| format!("the peers' results have no dataset `{name}`"))?;
    let num = |v: &Value, k: &str| v[k].as_f64().with_context(|| format!("{name}: peer fold without `{k}`"));
    ds["folds"]
        .as_array()
        .context("peer dataset without folds")?
        .iter()
        .map(|f| {
            Ok(PeerFold {
                accuracy: num(f, "accuracy")?,
                seconds: num(f, "seconds")?,
                nodes: num(f, "nodes")?,
                inputs: num(f, "inputs")?,
                bytes: num(f, "emlearn_bytes")?,
                estimated: f["emlearn_estimated"].as_bool().unwrap_or(true),
                layout_bytes: num(f, "emlearn_layout_bytes")?,
                note: f["emlearn_note"].as_str().map(str::to_string),
            })
        })
        .collect()
}

/// A peer other than CART, as `bench/peers.py` describes it.
pub struct OtherPeer {
    pub key: String,
    /// Its name in the report.
    pub label: String,
    /// scikit-learn's repr of the unfitted model: every setting that differs from the default.
    pub classifier: String,
}

/// The peers other than CART, in the order of their results.
pub fn other_peers(peers: &Value) -> Result<Vec<OtherPeer>> {
    peers["peers"]
        .as_array()
        .context("the peers' results list no `peers`")?
        .iter()
        .map(|p| {
            let text =
                |k: &str| p[k].as_str().map(str::to_string).with_context(|| format!("peer without `{k}`"));
            Ok(OtherPeer { key: text("key")?, label: text("label")?, classifier: text("classifier")? })
        })
        .collect()
}

/// One fold of a peer other than CART.
pub struct PeerRun {
    pub accuracy: f64,
    pub seconds: f64,
    pub converged: bool,
    pub n_iter: Option<u64>,
}

/// A dataset's folds of every other peer, indexed `[peer][fold]`.
pub fn peer_runs(peers: &Value, name: &str, others: &[OtherPeer]) -> Result<Vec<Vec<PeerRun>>> {
    let ds = peers["datasets"]
        .as_array()
        .and_then(|a| a.iter().find(|d| d["name"] == name))
        .with_context(|| format!("the peers' results have no dataset `{name}`"))?;
    others
        .iter()
        .map(|o| {
            let num = |v: &Value, k: &str| {
                v[k].as_f64().with_context(|| format!("{name}: {} fold without `{k}`", o.label))
            };
            ds["peers"][&o.key]
                .as_array()
                .with_context(|| format!("{name}: no results of {}", o.label))?
                .iter()
                .map(|f| {
                    Ok(PeerRun {
                        accuracy: num(f, "accuracy")?,
                        seconds: num(f, "seconds")?,
                        converged: f["converged"].as_bool().unwrap_or(false),
                        n_iter: f["n_iter"].as_u64(),
                    })
                })
                .collect()
        })
        .collect()
}

//! Pruning: reduced-error pruning on the validation rows and C4.5's error-based pruning.

use super::{Space, TreeNode};
use crate::learners::tree::pessimistic_errors;

/// Reduced-error pruning on `valid`: returns the subtree's validation errors.
pub(super) fn prune(nodes: &mut [TreeNode], id: usize, sp: &Space, valid: &[usize]) -> usize {
    let leaf_errors = valid.iter().filter(|&&r| sp.y[r] != nodes[id].majority).count();
    let Some(split) = nodes[id].split.clone() else {
        return leaf_errors;
    };
    let mut parts = [Vec::new(), Vec::new()];
    for &r in valid {
        parts[usize::from(split.test.side(sp.xi(r)))].push(r);
    }
    let sub = prune(nodes, split.children[0], sp, &parts[0]) + prune(nodes, split.children[1], sp, &parts[1]);
    if leaf_errors <= sub {
        nodes[id].split = None;
        leaf_errors
    } else {
        sub
    }
}

/// Error-based pruning on the growing rows (C4.5): returns the subtree's pessimistic error
/// estimate.
pub(super) fn prune_pessimistic(nodes: &mut [TreeNode], id: usize, sp: &Space, z: f64) -> f64 {
    let node = &nodes[id];
    let errors = node.rows.iter().filter(|&&r| sp.y[r] != node.majority).count();
    let as_leaf = pessimistic_errors(errors as f64, node.rows.len() as f64, z);
    let Some(split) = node.split.clone() else {
        return as_leaf;
    };
    let sub = prune_pessimistic(nodes, split.children[0], sp, z)
        + prune_pessimistic(nodes, split.children[1], sp, z);
    if as_leaf <= sub + 1e-9 {
        nodes[id].split = None;
        as_leaf
    } else {
        sub
    }
}

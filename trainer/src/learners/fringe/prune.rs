//! Pruning a grown tree, bottom-up, in place: reduced-error pruning on held-out rows (the paper's,
//! Quinlan 1987) or C4.5's error-based pruning on the growing rows themselves.

use super::variables::{bit, Values};
use super::TreeNode;
use crate::learners::tree::pessimistic_errors;

/// A tree being pruned and the learning rows' variable values and classes.
struct Pruner<'a> {
    nodes: &'a mut [TreeNode],
    values: &'a Values,
    labels: &'a [usize],
}

/// Reduced-error pruning of `nodes` (root 0) on the pruning `rows`; returns the pruned tree's
/// errors on them.
pub(super) fn reduced_error(
    nodes: &mut [TreeNode],
    values: &Values,
    labels: &[usize],
    rows: &[usize],
) -> usize {
    Pruner { nodes, values, labels }.reduced_error(0, rows)
}

/// Error-based pruning of `nodes` (root 0) on the growing `rows` with C4.5's `z`.
pub(super) fn error_based(nodes: &mut [TreeNode], values: &Values, labels: &[usize], rows: &[usize], z: f64) {
    Pruner { nodes, values, labels }.error_based(0, rows, z);
}

impl Pruner<'_> {
    /// The rows of `rows` where variable `var` is true, and those where it is false.
    fn partition(&self, var: usize, rows: &[usize]) -> (Vec<usize>, Vec<usize>) {
        let b = &self.values.bits[var];
        rows.iter().partition(|&&r| bit(b, r))
    }

    /// Reduced-error pruning, bottom-up: a subtree becomes a leaf of its majority class when that
    /// makes no more errors on the pruning rows reaching it. Returns the errors of node `id`.
    fn reduced_error(&mut self, id: usize, rows: &[usize]) -> usize {
        match self.nodes[id] {
            TreeNode::Leaf { class } => rows.iter().filter(|&&r| self.labels[r] != class).count(),
            TreeNode::Split { var, class, left, right } => {
                let (t, f) = self.partition(var, rows);
                let sub = self.reduced_error(left, &f) + self.reduced_error(right, &t);
                let as_leaf = rows.iter().filter(|&&r| self.labels[r] != class).count();
                if as_leaf <= sub {
                    self.nodes[id] = TreeNode::Leaf { class };
                    as_leaf
                } else {
                    sub
                }
            }
        }
    }

    /// Error-based pruning on the growing rows (C4.5), bottom-up: a subtree becomes a leaf of its
    /// majority class when the leaf's pessimistic error estimate is not above the sum of its
    /// leaves'. Returns the estimate of node `id`.
    fn error_based(&mut self, id: usize, rows: &[usize], z: f64) -> f64 {
        let estimate = |g: &Self, class: usize, rows: &[usize]| {
            let e = rows.iter().filter(|&&r| g.labels[r] != class).count();
            pessimistic_errors(e as f64, rows.len() as f64, z)
        };
        match self.nodes[id] {
            TreeNode::Leaf { class } => estimate(self, class, rows),
            TreeNode::Split { var, class, left, right } => {
                let (t, f) = self.partition(var, rows);
                let sub = self.error_based(left, &f, z) + self.error_based(right, &t, z);
                let as_leaf = estimate(self, class, rows);
                if as_leaf <= sub + 1e-9 {
                    self.nodes[id] = TreeNode::Leaf { class };
                    as_leaf
                } else {
                    sub
                }
            }
        }
    }
}

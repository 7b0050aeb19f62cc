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

/// The errors of each node of `nodes` (root 0) on the `rows` that reach it, were it a leaf of
/// its majority growing class (a node no row reaches: 0).
pub(super) fn node_errors(
    nodes: &[TreeNode],
    values: &Values,
    labels: &[usize],
    rows: &[usize],
) -> Vec<usize> {
    fn walk(
        nodes: &[TreeNode],
        values: &Values,
        labels: &[usize],
        id: usize,
        rows: &[usize],
        out: &mut [usize],
    ) {
        let (TreeNode::Leaf { class } | TreeNode::Split { class, .. }) = nodes[id];
        out[id] = rows.iter().filter(|&&r| labels[r] != class).count();
        if let TreeNode::Split { var, left, right, .. } = nodes[id] {
            let b = &values.bits[var];
            let (t, f): (Vec<usize>, Vec<usize>) = rows.iter().partition(|&&r| bit(b, r));
            walk(nodes, values, labels, left, &f, out);
            walk(nodes, values, labels, right, &t, out);
        }
    }
    let mut out = vec![0; nodes.len()];
    walk(nodes, values, labels, 0, rows, &mut out);
    out
}

/// Which decision nodes of `nodes` (root 0) the subtree of least `errors + alpha × cost` keeps
/// (cost-complexity pruning, Breiman et al. 1984): `errors[id]` are node `id`'s errors as a leaf
/// ([`node_errors`]), `cost[v]` what a test of variable `v` costs. Bottom-up, a subtree becomes a
/// leaf when the leaf's errors are not above the subtree's errors plus `alpha` per unit of cost
/// its tests add, which gives the least total for every `alpha` at once.
pub(super) fn cost_complexity(nodes: &[TreeNode], errors: &[usize], cost: &[f64], alpha: f64) -> Vec<bool> {
    fn walk(
        nodes: &[TreeNode],
        errors: &[usize],
        cost: &[f64],
        alpha: f64,
        id: usize,
        keep: &mut [bool],
    ) -> f64 {
        let as_leaf = errors[id] as f64;
        let TreeNode::Split { var, left, right, .. } = nodes[id] else { return as_leaf };
        let sub = walk(nodes, errors, cost, alpha, left, keep)
            + walk(nodes, errors, cost, alpha, right, keep)
            + alpha * cost[var];
        keep[id] = sub < as_leaf;
        sub.min(as_leaf)
    }
    let mut keep = vec![false; nodes.len()];
    walk(nodes, errors, cost, alpha, 0, &mut keep);
    keep
}

/// The largest cost-complexity subtree of `nodes` whose tests cost at most `cap`: which decision
/// nodes it keeps, and the least penalty of [`cost_complexity`] (to a relative 10^-6, by
/// bisection) that brings the tests' total cost within `cap`; the weakest links go first. A
/// single leaf when even the root's test is over `cap`.
pub(super) fn cut_to(nodes: &[TreeNode], errors: &[usize], cost: &[f64], cap: f64) -> (Vec<bool>, f64) {
    let fits = |keep: &[bool]| kept_totals(nodes, keep, errors, cost).1 <= cap;
    let keep = cost_complexity(nodes, errors, cost, 0.0);
    if fits(&keep) {
        return (keep, 0.0);
    }
    // Above the root's errors per unit of the cheapest test's cost, every subtree costs more
    // than its leaf (no node's errors as a leaf exceed the root's): a single leaf.
    let cheapest = cost.iter().copied().filter(|&c| c > 0.0).fold(f64::INFINITY, f64::min);
    let (mut lo, mut hi) = (0.0, (errors.first().copied().unwrap_or(0) as f64 + 1.0) / cheapest);
    let mut best = cost_complexity(nodes, errors, cost, hi);
    while hi - lo > 1e-6 * hi {
        let mid = 0.5 * (lo + hi);
        let keep = cost_complexity(nodes, errors, cost, mid);
        if fits(&keep) {
            (hi, best) = (mid, keep);
        } else {
            lo = mid;
        }
    }
    if fits(&best) {
        (best, hi)
    } else {
        (vec![false; nodes.len()], hi)
    }
}

/// The total of `per_leaf` over the leaves of the tree `keep` leaves of `nodes`, and of
/// `cost[v]` over its decision nodes.
pub(super) fn kept_totals(
    nodes: &[TreeNode],
    keep: &[bool],
    per_leaf: &[usize],
    cost: &[f64],
) -> (usize, f64) {
    let mut stack = vec![0];
    let (mut leaf_total, mut cost_total) = (0, 0.0);
    while let Some(id) = stack.pop() {
        match nodes[id] {
            TreeNode::Split { var, left, right, .. } if keep[id] => {
                cost_total += cost[var];
                stack.extend([left, right]);
            }
            _ => leaf_total += per_leaf[id],
        }
    }
    (leaf_total, cost_total)
}

/// Turns every decision node of `nodes` that `keep` does not keep into a leaf of its class.
pub(super) fn apply(nodes: &mut [TreeNode], keep: &[bool]) {
    for (node, &k) in nodes.iter_mut().zip(keep) {
        if let TreeNode::Split { class, .. } = *node {
            if !k {
                *node = TreeNode::Leaf { class };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{apply, cost_complexity, cut_to, kept_totals};
    use crate::learners::fringe::TreeNode;

    /// Root tests variable 0: false is leaf 1, true is node 2 testing variable 1 (leaves 3, 4).
    fn tree() -> Vec<TreeNode> {
        vec![
            TreeNode::Split { var: 0, class: 0, left: 1, right: 2 },
            TreeNode::Leaf { class: 0 },
            TreeNode::Split { var: 1, class: 1, left: 3, right: 4 },
            TreeNode::Leaf { class: 0 },
            TreeNode::Leaf { class: 1 },
        ]
    }

    #[test]
    fn each_penalty_keeps_the_subtree_of_least_errors_plus_cost() {
        let nodes = tree();
        // Errors of each node as a leaf; each test costs 12 bytes.
        let errors = [10, 2, 5, 1, 1];
        let cost = [12.0, 12.0];
        // No penalty: every test that lowers the errors stays (4 errors, 24 bytes).
        let keep = cost_complexity(&nodes, &errors, &cost, 0.0);
        assert_eq!(kept_totals(&nodes, &keep, &errors, &cost), (4, 24.0));
        // 0.2 per byte: node 2 saves 3 errors for 2.4, the root 6 for 4.8 (with node 2): both stay.
        let keep = cost_complexity(&nodes, &errors, &cost, 0.2);
        assert_eq!(kept_totals(&nodes, &keep, &errors, &cost), (4, 24.0));
        // 0.3 per byte: node 2 (3 errors for 3.6) goes, then the root (2 + 5 + 3.6 = 10.6
        // against 10) goes too.
        let keep = cost_complexity(&nodes, &errors, &cost, 0.3);
        assert_eq!(kept_totals(&nodes, &keep, &errors, &cost), (10, 0.0));
        // 0.25 per byte: node 2 (3 for 3) goes, the root (2 + 5 + 3 = 10 against 10) goes: a tie
        // prunes.
        let keep = cost_complexity(&nodes, &errors, &cost, 0.25);
        assert_eq!(kept_totals(&nodes, &keep, &errors, &cost), (10, 0.0));
        // Between: node 2 alone goes when its saving is below its cost but the root's is not.
        let errors = [20, 2, 5, 2, 2];
        let keep = cost_complexity(&nodes, &errors, &cost, 0.05);
        assert_eq!(kept_totals(&nodes, &keep, &errors, &cost), (6, 24.0));
        let keep = cost_complexity(&nodes, &errors, &cost, 0.2);
        assert_eq!(kept_totals(&nodes, &keep, &errors, &cost), (7, 12.0));
        let mut pruned = nodes.clone();
        apply(&mut pruned, &keep);
        assert_eq!(pruned[2], TreeNode::Leaf { class: 1 });
        assert_eq!(pruned[0], nodes[0]);
    }

    #[test]
    fn a_cap_removes_the_weakest_link_first_and_leaves_a_leaf_below_every_test() {
        let nodes = tree();
        // Node 2 saves 1 error for its 12 bytes, the root 14 (20 against 2 + 2 + 2) for 24.
        let errors = [20, 2, 5, 2, 2];
        let cost = [12.0, 12.0];
        // Within the cap: nothing goes.
        let (keep, alpha) = cut_to(&nodes, &errors, &cost, 24.0);
        assert_eq!((kept_totals(&nodes, &keep, &errors, &cost), alpha), ((6, 24.0), 0.0));
        // One test's bytes: the weaker node 2 goes (at a penalty just above 1/12 per byte), the
        // root stays.
        let (keep, alpha) = cut_to(&nodes, &errors, &cost, 12.0);
        assert_eq!(kept_totals(&nodes, &keep, &errors, &cost), (7, 12.0));
        assert!((alpha - 1.0 / 12.0).abs() < 1e-4, "{alpha}");
        // Below one test: a single leaf.
        let (keep, _) = cut_to(&nodes, &errors, &cost, 11.0);
        assert_eq!(kept_totals(&nodes, &keep, &errors, &cost), (20, 0.0));
    }
}

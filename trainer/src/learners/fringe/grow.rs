//! One tree of an iteration: ID3 growth by mutual information over the current Boolean
//! variables, ties broken by the widest threshold margin.

use super::variables::{bit, margin, Values};
use super::{Tree, TreeNode, Variable};
use crate::learners::tree::{entropy, majority, EntropyUnit};

/// The learning rows an iteration grows its tree on.
pub(super) struct Sample<'a> {
    /// The variables' values on the learning rows.
    pub(super) values: &'a Values,
    /// The learning rows' classes.
    pub(super) labels: &'a [usize],
    /// Number of classes.
    pub(super) n_classes: usize,
    /// The variables the tree may test (the first of `values`), also read by the tie-break.
    pub(super) variables: &'a [Variable],
    /// The learning rows' raw inputs.
    pub(super) x: &'a [Vec<i32>],
    /// Per attribute, the spread of its learning values (0 for categorical ones).
    pub(super) spread: &'a [f64],
    /// Most tests on a path from the root (0: the root is a leaf).
    pub(super) max_depth: usize,
}

/// Grows a tree on the learning rows `rows` of `sample` until no variable has positive mutual
/// information with the class, or its paths hold [`Sample::max_depth`] tests; returns its nodes, root 0, children after their parent.
pub(super) fn grow(sample: &Sample<'_>, rows: &[usize]) -> Vec<TreeNode> {
    let mut g = Grower { s: sample, nodes: Vec::new() };
    g.grow(rows, 0);
    g.nodes
}

/// The nodes reachable from the root 0 of `nodes` (a pruned tree), renumbered from 0.
pub(super) fn compact(nodes: &[TreeNode]) -> Tree {
    let mut out = Vec::new();
    copy(nodes, 0, &mut out);
    Tree { nodes: out }
}

fn copy(nodes: &[TreeNode], id: usize, out: &mut Vec<TreeNode>) -> usize {
    let me = out.len();
    out.push(nodes[id].clone());
    if let TreeNode::Split { var, class, left, right } = nodes[id] {
        let l = copy(nodes, left, out);
        let r = copy(nodes, right, out);
        out[me] = TreeNode::Split { var, class, left: l, right: r };
    }
    me
}

/// ID3 growth by mutual information.
struct Grower<'a> {
    s: &'a Sample<'a>,
    nodes: Vec<TreeNode>,
}

impl Grower<'_> {
    fn class_counts(&self, rows: &[usize]) -> Vec<u64> {
        let mut c = vec![0u64; self.s.n_classes];
        for &r in rows {
            c[self.s.labels[r]] += 1;
        }
        c
    }

    /// Per variable, class counts of the rows where it is true.
    fn true_counts(&self, rows: &[usize]) -> Vec<Vec<u64>> {
        let k = self.s.n_classes;
        let words = self.s.values.words();
        // Only the sample's variables: the values may hold features added after them.
        let bits = &self.s.values.bits[..self.s.variables.len()];
        let mut out = vec![vec![0u64; k]; bits.len()];
        if rows.len() >= words * k {
            // Large node: popcounts of (variable & node rows of class c).
            let mut masks = vec![vec![0u64; words]; k];
            for &r in rows {
                masks[self.s.labels[r]][r >> 6] |= 1 << (r & 63);
            }
            for (b, o) in bits.iter().zip(&mut out) {
                for (c, m) in masks.iter().enumerate() {
                    o[c] = b.iter().zip(m).map(|(x, y)| u64::from((x & y).count_ones())).sum();
                }
            }
        } else {
            for (b, o) in bits.iter().zip(&mut out) {
                for &r in rows {
                    if bit(b, r) {
                        o[self.s.labels[r]] += 1;
                    }
                }
            }
        }
        out
    }

    fn grow(&mut self, rows: &[usize], depth: usize) -> usize {
        let counts = self.class_counts(rows);
        let class = majority(&counts);
        let id = self.nodes.len();
        self.nodes.push(TreeNode::Leaf { class });
        let n = rows.len() as u64;
        let h = entropy(&counts, EntropyUnit::Bits);
        if h <= 0.0 || depth >= self.s.max_depth {
            return id;
        }
        let mut gains: Vec<(f64, usize)> = Vec::new();
        for (v, t) in self.true_counts(rows).iter().enumerate() {
            let nt: u64 = t.iter().sum();
            if nt == 0 || nt == n {
                continue;
            }
            let f: Vec<u64> = counts.iter().zip(t).map(|(a, b)| a - b).collect();
            let cond = (nt as f64 * entropy(t, EntropyUnit::Bits)
                + (n - nt) as f64 * entropy(&f, EntropyUnit::Bits))
                / n as f64;
            let mi = h - cond;
            if mi > 1e-12 {
                gains.push((mi, v));
            }
        }
        let Some(top) = gains.iter().map(|g| g.0).reduce(f64::max) else { return id };
        // Among the variables of the best gain (ties are common on small data, where many
        // thresholds split a node's rows alike), the one whose threshold lies farthest from the
        // node's rows on either side, relative to its attribute's spread: the widest margin.
        let mut var = usize::MAX;
        let mut best_margin = (f64::NEG_INFINITY, f64::NEG_INFINITY);
        for &(mi, v) in &gains {
            if mi >= top - 1e-12 {
                let m = self.margin(v, rows);
                if m > best_margin {
                    (var, best_margin) = (v, m);
                }
            }
        }
        let b = &self.s.values.bits[var];
        let (t, f): (Vec<usize>, Vec<usize>) = rows.iter().partition(|&&r| bit(b, r));
        let left = self.grow(&f, depth + 1);
        let right = self.grow(&t, depth + 1);
        self.nodes[id] = TreeNode::Split { var, class, left, right };
        id
    }

    /// [`margin`] of variable `var` over the node's rows.
    fn margin(&self, var: usize, rows: &[usize]) -> (f64, f64) {
        margin(&self.s.variables[var], rows.iter().map(|&r| self.s.x[r].as_slice()), self.s.spread)
    }
}

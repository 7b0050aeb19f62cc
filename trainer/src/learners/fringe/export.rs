//! Export of the final tree as a runtime model made only of tests on raw inputs: a constructed
//! feature becomes a chain of threshold and categorical nodes sharing their exits (see the
//! module docs of [`super`]), each chain's tests ordered so that typical inputs leave it early.

use super::{Fringe, Operand, Tree, TreeNode, Variable};
use crate::model::{
    ExportError, InputKind, InputSpec, Literal, LiteralOp, ModelSpec, Node, Structure, WeightKind,
};

impl Fringe {
    /// The final tree as a runtime model (see the module docs for the encoding of tests).
    ///
    /// # Errors
    /// [`ExportError::TooLarge`] if a constructed feature expands to more literals than the
    /// format holds.
    pub fn to_model_spec(&self) -> Result<ModelSpec, ExportError> {
        self.to_model_spec_for(&[])
    }

    /// [`Fringe::to_model_spec`] with each chain's tests ordered for `rows` (the training rows,
    /// raw): among the rows that reach it, the literal that fails most often is tested first, and
    /// the part `Dᵢ` that holds most often is tested first, so the walk stops early on typical
    /// inputs. The predictions are the same in any order; without rows the literals keep their
    /// sorted order.
    ///
    /// # Errors
    /// As [`Fringe::to_model_spec`].
    pub fn to_model_spec_for(&self, rows: &[Vec<i32>]) -> Result<ModelSpec, ExportError> {
        let mut b = Builder { fringe: self, graph: Vec::new(), rows };
        let tree = self.tree();
        let all: Vec<usize> = (0..rows.len()).collect();
        let root = b.emit(tree, 0, &[], &all)?;
        // Every link points forward: reverse postorder from the root.
        let nodes = crate::model::reduce::renumber(&b.graph, root);
        Ok(ModelSpec {
            pipeline: None,
            n_classes: self.n_classes,
            weight_kind: WeightKind::I8,
            inputs: self.inputs.clone(),
            features: Vec::new(),
            units: Vec::new(),
            structure: Structure::Tree(nodes),
            names: None,
        })
    }
}
/// A feature as "all of `lits` hold and none of `fail` holds", each `fail` entry itself such a
/// formula.
#[derive(Debug, Clone, Default)]
struct Flat {
    lits: Vec<Literal>,
    fail: Vec<Flat>,
}

/// A test `x == v` on a categorical input with more values than this is exported as a unit over
/// a one-literal conjunction instead of a [`Node::Categorical`] with a child link per value.
const MAX_CATEGORICAL_NODE_VALUES: u16 = 12;

/// Most literals one constructed feature may expand to in the export.
const MAX_EXPANDED_LITERALS: usize = 4096;

/// Bytes of the model format one tested literal `l` costs in the export: 12 for a threshold
/// node, `12 + 2 × values` for a categorical node, 24 for the two thresholds of `x == v` on an
/// input of more than [`MAX_CATEGORICAL_NODE_VALUES`] values ([`Builder::literal_node`]).
pub(super) fn literal_bytes(inputs: &[InputSpec], l: &Literal) -> f64 {
    match (l.op, inputs[l.attr].kind) {
        (LiteralOp::Eq | LiteralOp::Ne, InputKind::Categorical { n_values })
            if n_values <= MAX_CATEGORICAL_NODE_VALUES =>
        {
            12.0 + 2.0 * f64::from(n_values)
        }
        (LiteralOp::Gt | LiteralOp::Le, _) => 12.0,
        _ => 24.0,
    }
}

/// The literal that holds exactly when `l` fails.
fn negate(l: Literal) -> Literal {
    let op = match l.op {
        LiteralOp::Eq => LiteralOp::Ne,
        LiteralOp::Ne => LiteralOp::Eq,
        LiteralOp::Gt => LiteralOp::Le,
        LiteralOp::Le => LiteralOp::Gt,
    };
    Literal { op, ..l }
}

/// The runtime nodes of a [`Fringe`] tree being built.
struct Builder<'a> {
    fringe: &'a Fringe,
    /// Nodes with graph ids as links (reordered at the end).
    graph: Vec<Node>,
    /// Rows that order each chain's tests (none: sorted order).
    rows: &'a [Vec<i32>],
}

impl Flat {
    /// Whether the condition holds for raw inputs `x`.
    fn holds(&self, x: &[i32]) -> bool {
        self.lits.iter().all(|l| l.holds(x)) && !self.fail.iter().any(|g| g.holds(x))
    }
}

/// Reorders `items` greedily: next the one for which `hit` is true on most of the rows still
/// `alive`, which then leave (ties keep the given order). Returns the rows left at the end. The
/// cost is bounded: at most [`ORDER_ROWS`] of the rows (evenly spaced) are counted, and the rows
/// returned are those of that sample; a list of more than [`ORDER_GREEDY`] items is sorted once
/// by its hits instead of greedily.
fn order_by_hits<T: Clone>(items: &mut [T], alive: &[usize], hit: impl Fn(&T, usize) -> bool) -> Vec<usize> {
    let step = alive.len().div_ceil(ORDER_ROWS).max(1);
    let mut sample: Vec<usize> = alive.iter().copied().step_by(step).collect();
    let hits = |item: &T, rows: &[usize]| rows.iter().filter(|&&r| hit(item, r)).count();
    if items.len() > ORDER_GREEDY {
        let mut keyed: Vec<(usize, T)> =
            items.iter().map(|item| (hits(item, &sample), item.clone())).collect();
        keyed.sort_by_key(|(count, _)| std::cmp::Reverse(*count));
        for (slot, (_, item)) in items.iter_mut().zip(keyed) {
            *slot = item;
        }
        sample.retain(|&r| !items.iter().any(|item| hit(item, r)));
    } else {
        for k in 0..items.len() {
            let best = (k..items.len())
                .max_by_key(|&i| (hits(&items[i], &sample), std::cmp::Reverse(i)))
                .unwrap_or(k);
            items[k..=best].rotate_right(1);
            sample.retain(|&r| !hit(&items[k], r));
        }
    }
    sample
}

/// Rows [`order_by_hits`] counts at most.
const ORDER_ROWS: usize = 4096;

/// Longest list [`order_by_hits`] orders greedily.
const ORDER_GREEDY: usize = 32;

impl Builder<'_> {
    /// Adds node `n`; returns its graph id.
    fn push(&mut self, n: Node) -> usize {
        self.graph.push(n);
        self.graph.len() - 1
    }

    /// The nodes of FRINGE node `id` and its subtree; `known` holds the literals the path to it
    /// decides (a chain leaves out the literals they imply).
    fn emit(
        &mut self,
        tree: &Tree,
        id: usize,
        known: &[Literal],
        reach: &[usize],
    ) -> Result<usize, ExportError> {
        match tree.nodes[id] {
            TreeNode::Leaf { class } => Ok(self.push(Node::Class(class))),
            TreeNode::Split { var, left, right, .. } => {
                let mut flat = Flat::default();
                let mut budget = MAX_EXPANDED_LITERALS;
                self.flatten(var, true, &mut flat, &mut budget)?;
                // What each branch knows: the right one that every literal of `C` holds, the
                // left one, for a single literal, that it fails.
                let mut on_true = known.to_vec();
                on_true.extend(flat.lits.iter().copied());
                let mut on_false = known.to_vec();
                if let ([l], []) = (flat.lits.as_slice(), flat.fail.as_slice()) {
                    on_false.push(negate(*l));
                }
                let (holds, fails): (Vec<usize>, Vec<usize>) =
                    reach.iter().partition(|&&r| flat.holds(&self.rows[r]));
                let f = self.emit(tree, left, &on_false, &fails)?;
                let t = self.emit(tree, right, &on_true, &holds)?;
                Ok(self.test(flat, t, f, &mut known.to_vec(), reach))
            }
        }
    }

    /// Adds to `flat` the condition "variable `v` is `want`".
    fn flatten(&self, v: usize, want: bool, flat: &mut Flat, budget: &mut usize) -> Result<(), ExportError> {
        // Every compound variable is `neg XOR (a ∧ b)`.
        let (neg, a, b) = match &self.fringe.variables[v] {
            Variable::Primitive(l) => {
                *budget = budget.checked_sub(1).ok_or(ExportError::TooLarge("fringe feature literals"))?;
                flat.lits.push(if want { *l } else { negate(*l) });
                return Ok(());
            }
            Variable::And(a, b) => (false, *a, *b),
            Variable::Or(a, b) => (
                true,
                Operand { var: a.var, positive: !a.positive },
                Operand { var: b.var, positive: !b.positive },
            ),
        };
        if want != neg {
            self.flatten(a.var, a.positive, flat, budget)?;
            self.flatten(b.var, b.positive, flat, budget)
        } else {
            let mut sub = Flat::default();
            self.flatten(a.var, a.positive, &mut sub, budget)?;
            self.flatten(b.var, b.positive, &mut sub, budget)?;
            if sub.fail.is_empty() && sub.lits.len() == 1 {
                flat.lits.push(negate(sub.lits[0]));
            } else if sub.lits.is_empty() && sub.fail.len() == 1 {
                let inner = sub.fail.pop().expect("one entry");
                flat.lits.extend(inner.lits);
                flat.fail.extend(inner.fail);
            } else {
                flat.fail.push(sub);
            }
            Ok(())
        }
    }

    /// One node testing literal `l`: to `t` when it holds, else to `f`.
    fn literal_node(&mut self, l: Literal, t: usize, f: usize) -> usize {
        let (l, t, f) = match l.op {
            LiteralOp::Ne | LiteralOp::Le => (negate(l), f, t),
            _ => (l, t, f),
        };
        match (l.op, self.fringe.inputs[l.attr].kind) {
            (LiteralOp::Eq, InputKind::Categorical { n_values })
                if n_values <= MAX_CATEGORICAL_NODE_VALUES =>
            {
                let children = (0..i32::from(n_values)).map(|k| if k == l.value { t } else { f }).collect();
                self.push(Node::Categorical { attr: l.attr, children, default: f })
            }
            (LiteralOp::Gt, _) => {
                self.push(Node::Threshold { attr: l.attr, threshold: l.value, left: f, right: t })
            }
            _ => {
                // `x == v` on a many-valued input: `x > v − 1` then `x <= v`, two threshold
                // nodes instead of a child link per value. Categorical values are `0..n_values`,
                // so `v − 1` does not overflow.
                let le = self.push(Node::Threshold { attr: l.attr, threshold: l.value, left: t, right: f });
                self.push(Node::Threshold { attr: l.attr, threshold: l.value - 1, left: f, right: le })
            }
        }
    }

    /// Nodes that go to `t` when `flat` holds and to `f` otherwise; returns the entry node.
    ///
    /// A chain of one node per literal that shares the exit `f`: the literals of `C` first, then
    /// each part `Dᵢ` that must fail (itself a chain whose exit when it holds is `f`). A literal
    /// that `known` (the literals that hold wherever the chain is entered) decides is not tested.
    fn test(
        &mut self,
        mut flat: Flat,
        t: usize,
        f: usize,
        known: &mut Vec<Literal>,
        reach: &[usize],
    ) -> usize {
        flat.lits.sort_unstable();
        flat.lits.dedup();
        let mut lits = Vec::new();
        for &l in &flat.lits {
            match implied(known, l) {
                Some(true) => {}
                Some(false) => return f,
                None => {
                    lits.push(l);
                    known.push(l);
                }
            }
        }
        let mut fail = Vec::new();
        for g in flat.fail {
            // A part with a literal that cannot hold never holds; one whose literals all hold
            // always does, and then the test fails.
            if g.lits.iter().any(|&l| implied(known, l) == Some(false)) {
                continue;
            }
            if g.fail.is_empty() && g.lits.iter().all(|&l| implied(known, l) == Some(true)) {
                return f;
            }
            fail.push(g);
        }
        // The rows reaching each part: those every literal before it passed, and every part
        // before it failed.
        let rows = self.rows;
        let passed = order_by_hits(&mut lits, reach, |l, r| !l.holds(&rows[r]));
        order_by_hits(&mut fail, &passed, |g, r| g.holds(&rows[r]));
        let mut reaches = Vec::with_capacity(fail.len());
        let mut alive = passed;
        for g in &fail {
            reaches.push(alive.clone());
            alive.retain(|&r| !g.holds(&rows[r]));
        }
        let mut next = t;
        for (g, reach) in fail.into_iter().zip(reaches).rev() {
            next = self.test(g, f, next, &mut known.clone(), &reach);
        }
        for l in lits.into_iter().rev() {
            next = self.literal_node(l, next, f);
        }
        next
    }
}

/// Whether literal `l` holds (`Some(true)`), fails (`Some(false)`) or is undecided (`None`) for
/// every raw input where all of `known` hold. Sound for any raw value (an unknown category
/// included: `x == v` known pins `x`; `x != v` only rules out `v`).
fn implied(known: &[Literal], l: Literal) -> Option<bool> {
    known.iter().filter(|k| k.attr == l.attr).find_map(|k| {
        let (v, w) = (k.value, l.value);
        match (k.op, l.op) {
            (LiteralOp::Eq, LiteralOp::Eq) => Some(v == w),
            (LiteralOp::Eq, LiteralOp::Ne) => Some(v != w),
            (LiteralOp::Eq, LiteralOp::Gt) => Some(v > w),
            (LiteralOp::Eq, LiteralOp::Le) => Some(v <= w),
            (LiteralOp::Ne, LiteralOp::Ne) if v == w => Some(true),
            (LiteralOp::Ne, LiteralOp::Eq) if v == w => Some(false),
            (LiteralOp::Gt, LiteralOp::Gt) if w <= v => Some(true),
            (LiteralOp::Gt, LiteralOp::Le) if w <= v => Some(false),
            (LiteralOp::Le, LiteralOp::Le) if w >= v => Some(true),
            (LiteralOp::Le, LiteralOp::Gt) if w >= v => Some(false),
            _ => None,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::{order_by_hits, ORDER_GREEDY};

    #[test]
    fn greedy_order_counts_only_the_rows_still_alive() {
        // Item 0 hits rows 0..6, item 1 rows 0..5, item 2 rows 6..9: greedily 0 (6 rows), then
        // 2 (rows 6..9 are left; item 1's rows have left with item 0), then 1.
        let sets: [std::ops::Range<usize>; 3] = [0..6, 0..5, 6..9];
        let mut items = vec![0usize, 1, 2];
        let alive: Vec<usize> = (0..12).collect();
        let left = order_by_hits(&mut items, &alive, |&i, r| sets[i].contains(&r));
        assert_eq!(items, [0, 2, 1]);
        assert_eq!(left, [9, 10, 11]);
    }

    #[test]
    fn long_lists_are_sorted_once_by_hits_keeping_ties_in_order() {
        let n = ORDER_GREEDY + 8;
        // Item i hits the rows below i % 5 (so 4, 9, 14, ... hit most): one stable sort.
        let mut items: Vec<usize> = (0..n).collect();
        let alive: Vec<usize> = (0..10).collect();
        let left = order_by_hits(&mut items, &alive, |&i, r| r < i % 5);
        let keys: Vec<usize> = items.iter().map(|i| i % 5).collect();
        assert!(keys.windows(2).all(|w| w[0] >= w[1]), "{keys:?}");
        assert_eq!(&items[..3], [4, 9, 14], "ties keep their order");
        assert_eq!(left, [4, 5, 6, 7, 8, 9]);
    }
}

//! Leaf fitting: refitting every unit on the training rows that reach it ([`LeafFit`]).

use super::space::FeatureSpace;
use super::{LeafFit, NodeState, Params, PerceptronTree, Report, Weight, AUTO_L2};
use crate::model::{InputSpec, Unit};
use crate::rng::Rng;

impl PerceptronTree {
    /// Refits every unit on the training `rows` reaching it
    /// ([`LeafFit::Logistic`]): each leaf LTU (but a class pruning chose), and the unit each
    /// decision node replaced (the candidate pruning restores). A unit's
    /// class counts become those of the rows reaching it. Returns the number of units refitted
    /// and the number of features they left out ([`Params::feature_selection`]).
    pub fn refit_units(
        &mut self,
        rows: &[Vec<i32>],
        labels: &[usize],
        fit: crate::learners::unit_fit::Params,
    ) -> (usize, usize) {
        let reach = self.reach(rows);
        let (mut refitted, mut features_left_out) = (0, 0);
        for (id, here) in reach.iter().enumerate() {
            if here.is_empty() {
                continue;
            }
            let active = match &self.nodes[id] {
                NodeState::Ltu(l) if l.constant => continue,
                NodeState::Ltu(l) => &l.active,
                NodeState::Decision(d) => &d.prior_active,
                NodeState::Empty { .. } => continue,
            };
            let (w, counts, left_out) = self.fit_unit(active, here, rows, labels, fit);
            features_left_out += left_out;
            match &mut self.nodes[id] {
                NodeState::Ltu(l) => {
                    l.pocket.clone_from(&w);
                    l.w = w;
                    l.pocket_current = true;
                    l.class_counts = counts;
                }
                NodeState::Decision(d) => {
                    d.prior_w = w;
                    d.prior_counts = Some(counts);
                }
                NodeState::Empty { .. } => unreachable!(),
            }
            refitted += 1;
        }
        (refitted, features_left_out)
    }

    /// Weights (this tree's unit layout) of a unit over features `active` fitted to the rows
    /// `here`, those rows' class counts, and how many features feature selection left out.
    pub(super) fn fit_unit(
        &self,
        active: &[u32],
        here: &[usize],
        rows: &[Vec<i32>],
        labels: &[usize],
        fit: crate::learners::unit_fit::Params,
    ) -> (Vec<Weight>, Vec<u64>, usize) {
        use crate::learners::unit_fit::{logistic, logistic_pruned, to_integer, Rows};
        let k = self.n_classes;
        let n_rows = if k > 2 { k } else { 1 };
        let dim = active.len() + 1;
        let mut counts = vec![0u64; k];
        for &i in here {
            counts[labels[i]] += 1;
        }
        let present: Vec<usize> = (0..k).filter(|&c| counts[c] > 0).collect();
        let mut w = vec![0 as Weight; n_rows * dim];
        if present.len() < 2 {
            let class = present.first().copied().unwrap_or(0);
            if n_rows == 1 {
                w[dim - 1] = if class == 1 { 1 } else { -1 };
            } else {
                w[class * dim + dim - 1] = 1;
            }
            return (w, counts, 0);
        }
        let mut local = vec![usize::MAX; k];
        for (j, &c) in present.iter().enumerate() {
            local[c] = j;
        }
        let x: Vec<i32> = here
            .iter()
            .flat_map(|&i| active.iter().map(move |&f| self.space.features[f as usize].value(&rows[i])))
            .collect();
        let y: Vec<usize> = here.iter().map(|&i| local[labels[i]]).collect();
        let max_abs: Vec<i64> = active.iter().map(|&f| self.space.features[f as usize].max_abs()).collect();
        let fitted = Rows { x: &x, d: active.len(), y: &y, m: present.len() };
        let (q, left_out) = if self.feature_selection {
            logistic_pruned(fitted, &max_abs, fit)
        } else {
            (to_integer(&logistic(fitted, &max_abs, fit), &max_abs, fitted), 0)
        };
        if n_rows == 1 {
            // Two classes: positive = class 1 = local label 1.
            w.copy_from_slice(&q[0]);
            return (w, counts, left_out);
        }
        // A machine: two present classes give one row (the higher class's, the lower's zero, so
        // the argmax's tie goes to the lower as the binary rule's `score > 0` does); more give one
        // row each. A class no row reached gets the first present class's row with its bias
        // lowered by one: it scores less than that row on every input, so it is never chosen,
        // and it needs no wider weights (compact leaves drop it anyway).
        let fitted_rows: Vec<(usize, &Vec<i64>)> = if q.len() == 1 {
            vec![(present[1], &q[0])]
        } else {
            present.iter().copied().zip(q.iter()).collect()
        };
        for (c, r) in &fitted_rows {
            w[c * dim..(c + 1) * dim].copy_from_slice(r);
        }
        let first = w[present[0] * dim..(present[0] + 1) * dim].to_vec();
        for c in (0..k).filter(|&c| counts[c] == 0) {
            w[c * dim..(c + 1) * dim].copy_from_slice(&first);
            w[c * dim + dim - 1] -= 1;
        }
        (w, counts, left_out)
    }

    /// Indices of the `rows` reaching each node.
    pub(super) fn reach(&self, rows: &[Vec<i32>]) -> Vec<Vec<usize>> {
        let mut reach: Vec<Vec<usize>> = vec![Vec::new(); self.nodes.len()];
        for (i, x) in rows.iter().enumerate() {
            let mut id = 0;
            loop {
                reach[id].push(i);
                match &self.nodes[id] {
                    NodeState::Decision(d) => match d.child(x) {
                        Some(c) => id = c,
                        None => break,
                    },
                    _ => break,
                }
            }
        }
        reach
    }
}

/// [`LeafFit::Auto`]'s choice for training rows `rows`: the L2 penalty of the logistic refit, or
/// `None` for the perceptron's weights (see [`LeafFit::Auto`]). With fewer than 20 rows nothing
/// can be held out and the logistic refit with [`Params::leaf_l2`] is used.
pub(super) fn choose_leaf_fit(
    inputs: &[InputSpec],
    rows: &[Vec<i32>],
    labels: &[usize],
    n_classes: usize,
    p: &Params,
    seed: u64,
) -> Option<f64> {
    let (fit_idx, val_idx) = crate::data::split::hold_out(labels, n_classes, 0.25, seed);
    if rows.len() < 20 || val_idx.is_empty() {
        return Some(p.leaf_l2);
    }
    let (fit_rows, fit_labels) = crate::data::split::pick(rows, labels, &fit_idx);
    let (val_rows, val_labels) = crate::data::split::pick(rows, labels, &val_idx);
    let space = FeatureSpace::standard(inputs, &fit_rows, p.numeric_max_abs, p.numeric_bins);
    let mut grown = PerceptronTree::new(space, n_classes, p);
    grown.fit(&fit_rows, &fit_labels, p, Rng::new(seed).next_u64(), &|_, _| {});
    let mut best: Option<(usize, Option<f64>)> = None;
    for l2 in AUTO_L2.iter().copied().map(Some).chain([None]) {
        let mut tree = grown.clone();
        if let Some(l2) = l2 {
            tree.refit_units(
                &fit_rows,
                &fit_labels,
                crate::learners::unit_fit::Params { l2, ..Default::default() },
            );
        }
        if p.prune_z > 0.0 {
            tree.prune_pessimistic(&fit_rows, &fit_labels, p.prune_z);
        }
        let correct = val_rows.iter().zip(&val_labels).filter(|(x, &y)| tree.predict(x) == y).count();
        if best.is_none_or(|(c, _)| correct > c) {
            best = Some((correct, l2));
        }
    }
    best.and_then(|b| b.1)
}

/// [`PerceptronTree::learn`] with [`LeafFit::Auto`] on more than
/// [`HOLD_OUT_PRUNING_ROWS`](crate::data::split::HOLD_OUT_PRUNING_ROWS) rows and no
/// [`Params::prune_fraction`]: the tree's size is chosen by held-out evidence. A seeded,
/// stratified quarter of the rows is held out; the tree grows once on the rest and is pruned on
/// the held-out rows charging [`Params::weight_cost`] per weight ([`PerceptronTree::prune`]),
/// its units refitted first by logistic regression at the strongest penalty of [`AUTO_L2`].
/// Each other penalty refits the few units of that pruned tree, which is pruned again; the
/// perceptron's weights prune the grown tree itself (no fit needed). The candidate with the
/// lowest charged held-out score wins (ties: the earlier). With a logistic fit its leaves are
/// then split where the held-out rows say it pays (`graft.rs`), and its units are refitted on
/// every row.
///
/// Refitting the grown tree costs one logistic fit per unit on every level of it, and pruning
/// removes nearly all of them on noisy data; so only one penalty pays for that, and the others
/// are chosen on the shape it leaves.
pub(super) fn learn_held_out(
    inputs: &[InputSpec],
    rows: &[Vec<i32>],
    labels: &[usize],
    n_classes: usize,
    p: &Params,
    rng: &Rng,
    progress: &dyn Fn(u64, u64),
) -> (PerceptronTree, Report) {
    let (fit_idx, val_idx) = crate::data::split::hold_out(labels, n_classes, 0.25, rng.fork(2).next_u64());
    let (fit_rows, fit_labels) = crate::data::split::pick(rows, labels, &fit_idx);
    let (val_rows, val_labels) = crate::data::split::pick(rows, labels, &val_idx);
    let space = FeatureSpace::standard(inputs, &fit_rows, p.numeric_max_abs, p.numeric_bins);
    let mut grown = PerceptronTree::new(space, n_classes, p);
    let epochs = grown.fit(&fit_rows, &fit_labels, p, rng.fork(0).next_u64(), progress);
    let consistent = grown.is_consistent(&fit_rows, &fit_labels);
    let charge = p.weight_cost * val_rows.len() as f64;
    let fit = |l2| crate::learners::unit_fit::Params { l2, ..Default::default() };
    let score = |tree: &PerceptronTree| {
        let errors = val_rows.iter().zip(&val_labels).filter(|(x, &y)| tree.predict(x) != y).count();
        errors as f64 + charge * tree.cost(0) as f64
    };
    let mut shaped = grown.clone();
    let left_out = shaped.refit_units(&fit_rows, &fit_labels, fit(AUTO_L2[0])).1;
    let pruned = shaped.prune(&val_rows, &val_labels, charge);
    let mut best = (score(&shaped), Some(AUTO_L2[0]), shaped.clone(), pruned, left_out);
    let others = AUTO_L2[1..].iter().map(|&l2| {
        let mut tree = shaped.clone();
        let left_out = tree.refit_units(&fit_rows, &fit_labels, fit(l2)).1;
        let more = tree.prune(&val_rows, &val_labels, charge);
        (Some(l2), tree, pruned + more, left_out)
    });
    let perceptron = std::iter::once(()).map(|()| {
        let mut tree = grown.clone();
        let pruned = tree.prune(&val_rows, &val_labels, charge);
        (None, tree, pruned, 0)
    });
    for (l2, tree, pruned, left_out) in others.chain(perceptron) {
        let s = score(&tree);
        if s < best.0 {
            best = (s, l2, tree, pruned, left_out);
        }
    }
    let (_, leaf_l2, mut tree, pruned, features_left_out) = best;
    let grafted = leaf_l2.map_or(0, |l2| {
        tree.graft((&fit_rows, &fit_labels), (&val_rows, &val_labels), charge, p.max_depth, fit(l2))
    });
    let refitted = leaf_l2.map_or(0, |l2| tree.refit_units(rows, labels, fit(l2)).0);
    let report = Report {
        epochs,
        consistent,
        leaf_fit: if leaf_l2.is_some() { LeafFit::Logistic } else { LeafFit::Perceptron }.to_string(),
        leaf_l2,
        refitted,
        features_left_out,
        before_pruning: grown.stats(),
        pruned,
        grafted,
        held_out: val_rows.len(),
    };
    (tree, report)
}

/// Removes a linear machine's rows of classes no training instance at its leaf had (they could
/// only ever be wrong on the training data); with two rows left it becomes a binary LTU over the
/// row difference, which decides exactly as the two-row argmax (ties to the first row).
pub(super) fn drop_unseen_classes(unit: &mut Unit, class_counts: &[u64]) {
    if unit.rows.len() < 3 {
        return;
    }
    let keep: Vec<usize> =
        (0..unit.rows.len()).filter(|&o| class_counts.get(unit.classes[o]).is_some_and(|&n| n > 0)).collect();
    if keep.len() < 2 || keep.len() == unit.rows.len() {
        return;
    }
    if keep.len() == 2 {
        let (a, b) = (keep[0], keep[1]);
        let row: Vec<i64> = unit.rows[b].iter().zip(&unit.rows[a]).map(|(x, y)| x - y).collect();
        unit.classes = vec![unit.classes[a], unit.classes[b]];
        unit.rows = vec![row];
    } else {
        unit.rows = keep.iter().map(|&o| unit.rows[o].clone()).collect();
        unit.classes = keep.iter().map(|&o| unit.classes[o]).collect();
    }
}

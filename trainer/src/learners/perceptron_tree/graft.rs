//! Growing by held-out evidence (beyond the paper): after the held-out pruning of
//! [`learn_held_out`](super::refit::learn_held_out), a leaf unit is split on the categorical
//! input whose interactions with the other inputs it misses most, when the split's units, fitted
//! on the growing rows, beat it on the held-out rows by more than their weights cost.
//!
//! The error-correction procedure chooses a test from the class counts (or a short perceptron
//! run on the last [`LOOKAHEAD_ROWS`](super::LOOKAHEAD_ROWS) instances), which cannot tell an
//! input that interacts with another from one that only adds to the score: a unit already fits
//! additive effects, so on noisy rows the test it needs is the one whose branches' units differ.

use super::space::FeatureSpace;
use super::{ltu_n_values, Decision, Ltu, NodeState, PerceptronTree, Test};
use crate::learners::tree::majority;
use crate::model::InputKind;

/// Rows and labels.
pub(super) type Labelled<'a> = (&'a [Vec<i32>], &'a [usize]);

impl PerceptronTree {
    /// Splits leaf units while it pays (see the module docs): each leaf above depth `max_depth`
    /// is tried once on its best categorical input ([`PerceptronTree::interaction_scores`]), its
    /// branches' units fitted on the `fit` rows reaching them with `unit`; the split stays when
    /// its errors on the `val` rows reaching the leaf plus `charge` per weight it adds are below
    /// the leaf's errors. The new leaves are tried in turn. Returns the number of splits kept.
    pub(super) fn graft(
        &mut self,
        fit: Labelled<'_>,
        val: Labelled<'_>,
        charge: f64,
        max_depth: usize,
        unit: crate::learners::unit_fit::Params,
    ) -> usize {
        let mut queue: Vec<usize> =
            (0..self.nodes.len()).filter(|&id| matches!(self.nodes[id], NodeState::Ltu(_))).collect();
        let mut grafted = 0;
        while let Some(id) = queue.pop() {
            let NodeState::Ltu(leaf) = &self.nodes[id] else { continue };
            if leaf.depth >= max_depth {
                continue;
            }
            let fit_here = self.reaching(id, fit.0);
            let val_here = self.reaching(id, val.0);
            if fit_here.len() < 100 || val_here.is_empty() {
                continue;
            }
            let scores = self.interaction_scores(id, &fit_here, fit);
            let Some(&(attr, score)) = scores.iter().max_by(|a, b| a.1.total_cmp(&b.1)) else { continue };
            if score <= 0.0 {
                continue;
            }
            let (decision, children) = self.split_unit(leaf, attr, &fit_here, fit, unit);
            let space = &self.space;
            let value = |x: &[i32], i: usize| space.features[i].value(x);
            let leaf_errors = val_here
                .iter()
                .filter(|&&i| {
                    leaf.predict(|f| value(&val.0[i], f), self.pocket, self.compact_leaves) != val.1[i]
                })
                .count();
            let split_errors = val_here
                .iter()
                .filter(|&&i| {
                    let x = &val.0[i];
                    children[decision.branch(x).0].predict(|f| value(x, f), false, self.compact_leaves)
                        != val.1[i]
                })
                .count();
            let added = 1 + children.iter().map(|c| self.unit_cost(c)).sum::<usize>() - self.unit_cost(leaf);
            if split_errors as f64 + charge * added as f64 >= leaf_errors as f64 {
                continue;
            }
            let mut decision = decision;
            for (b, child) in children.into_iter().enumerate() {
                decision.children[b] = Some(self.nodes.len());
                queue.push(self.nodes.len());
                self.nodes.push(NodeState::Ltu(child));
            }
            self.nodes[id] = NodeState::Decision(decision);
            grafted += 1;
        }
        grafted
    }

    /// Indices of `rows` that reach node `id`.
    fn reaching(&self, id: usize, rows: &[Vec<i32>]) -> Vec<usize> {
        let mut here = Vec::new();
        for (i, x) in rows.iter().enumerate() {
            let mut at = 0;
            while at != id {
                let NodeState::Decision(d) = &self.nodes[at] else { break };
                match d.child(x) {
                    Some(c) => at = c,
                    None => break,
                }
            }
            if at == id {
                here.push(i);
            }
        }
        here
    }

    /// For each categorical input the unit at `id` reads, how much of its residual (per row,
    /// per class: the true class's indicator minus the predicted one's) on the rows `here` lies
    /// in the cells of that input with another input it reads, beyond what either input's values
    /// alone carry: `Σ S²/N` over the cells less the same over each input's values (`S` the
    /// residual sums, `N` the rows). A unit fits additive effects; what it leaves in the cells is
    /// what per-value units could fit.
    fn interaction_scores(&self, id: usize, here: &[usize], fit: Labelled<'_>) -> Vec<(usize, f64)> {
        let NodeState::Ltu(l) = &self.nodes[id] else { return Vec::new() };
        let space = &self.space;
        let mut attrs: Vec<usize> = l.active.iter().filter_map(|&f| space.feature_attr[f as usize]).collect();
        attrs.dedup();
        let k = self.n_classes;
        let slots: Vec<usize> = attrs.iter().map(|&a| space.n_slots(a)).collect();
        let residual: Vec<(usize, usize)> = here
            .iter()
            .map(|&i| {
                let x = &fit.0[i];
                (fit.1[i], l.predict(|f| space.features[f].value(x), self.pocket, self.compact_leaves))
            })
            .collect();
        let ss = |s: &[f64], n: &[f64]| -> f64 {
            n.iter()
                .enumerate()
                .filter(|(_, &m)| m > 0.0)
                .map(|(c, &m)| (0..k).map(|j| s[c * k + j].powi(2)).sum::<f64>() / m)
                .sum()
        };
        let mut scores = Vec::new();
        for (ia, &a) in attrs.iter().enumerate() {
            if !matches!(space.inputs[a].kind, InputKind::Categorical { .. }) || ltu_n_values(space, a) < 2 {
                continue;
            }
            let mut total = 0.0;
            for (ib, &b) in attrs.iter().enumerate().filter(|&(ib, _)| ib != ia) {
                let (na, nb) = (slots[ia], slots[ib]);
                let (mut s, mut n) = (vec![0.0; na * nb * k], vec![0.0; na * nb]);
                let (mut sa, mut ma) = (vec![0.0; na * k], vec![0.0; na]);
                let (mut sb, mut mb) = (vec![0.0; nb * k], vec![0.0; nb]);
                for (&i, &(y, p)) in here.iter().zip(&residual) {
                    let (u, v) = (space.slot(a, fit.0[i][a]), space.slot(b, fit.0[i][b]));
                    let cell = u * nb + v;
                    n[cell] += 1.0;
                    ma[u] += 1.0;
                    mb[v] += 1.0;
                    if y != p {
                        for (c, r) in [(y, 1.0), (p, -1.0)] {
                            s[cell * k + c] += r;
                            sa[u * k + c] += r;
                            sb[v * k + c] += r;
                        }
                    }
                }
                total += ss(&s, &n) - ss(&sa, &ma) - ss(&sb, &mb);
            }
            scores.push((a, total));
        }
        scores
    }

    /// The decision node testing categorical `attr` in place of `leaf`, and one unit per value
    /// fitted on the `fit` rows `here` taking that branch (the leaf's features without `attr`'s).
    fn split_unit(
        &self,
        leaf: &Ltu,
        attr: usize,
        here: &[usize],
        fit: Labelled<'_>,
        unit: crate::learners::unit_fit::Params,
    ) -> (Decision, Vec<Ltu>) {
        let space: &FeatureSpace = &self.space;
        let n_branches = usize::from(ltu_n_values(space, attr));
        let child_active: Vec<u32> =
            leaf.active.iter().copied().filter(|&f| space.feature_attr[f as usize] != Some(attr)).collect();
        let mut child_attrs: Vec<u32> =
            child_active.iter().filter_map(|&f| space.feature_attr[f as usize]).map(|a| a as u32).collect();
        child_attrs.dedup();
        let test = Test::Categorical { attr };
        let mut counts = vec![0u64; self.n_classes];
        let mut parts: Vec<Vec<usize>> = vec![Vec::new(); n_branches];
        let mut decision = Decision {
            test,
            children: vec![None; n_branches],
            seen: vec![0; n_branches],
            fallback: 0,
            prior_active: leaf.active.clone(),
            prior_w: leaf.predicting_weights(self.pocket).to_vec(),
            prior_counts: Some(leaf.class_counts.clone()),
            child_active: child_active.clone(),
            child_attrs: child_attrs.clone(),
            child_w: vec![0; leaf.n_rows * (child_active.len() + 1)],
            depth: leaf.depth,
        };
        for &i in here {
            counts[fit.1[i]] += 1;
            if let (b, true) = decision.branch(&fit.0[i]) {
                decision.seen[b] += 1;
                parts[b].push(i);
            }
        }
        decision.fallback = majority(&counts);
        let children = parts
            .iter()
            .map(|part| {
                let (w, class_counts, _) = self.fit_unit(&child_active, part, fit.0, fit.1, unit);
                let mut l = Ltu::new(
                    space,
                    self.n_classes,
                    self.log_base,
                    leaf.depth + 1,
                    child_active.clone(),
                    child_attrs.clone(),
                    w,
                );
                l.class_counts = class_counts;
                l
            })
            .collect();
        (decision, children)
    }
}

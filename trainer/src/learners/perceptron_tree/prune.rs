//! Pruning after growth: reduced-error pruning on a hold-out and C4.5's error-based pruning.

use super::space::Instance;
use super::{Ltu, NodeState, PerceptronTree};
use crate::learners::tree::pessimistic_errors;

impl PerceptronTree {
    /// Prunes bottom-up with held-out `rows`: each decision subtree (deepest first) is replaced
    /// by the LTU it replaced, or by its majority class, when that does not score worse on the
    /// held-out rows reaching it (section 5.4). A model's score is its held-out errors plus
    /// `charge` per weight it exports ([`PerceptronTree::cost`]); with `charge` 0 this is plain
    /// reduced-error pruning, and a subtree no held-out row reaches is kept. Returns the number
    /// of subtrees replaced.
    pub fn prune(&mut self, rows: &[Vec<i32>], labels: &[usize], charge: f64) -> usize {
        // Held-out rows reaching each node; pruning below a node does not change who reaches it.
        let reach = self.reach(rows);
        let mut pruned = 0;
        // Children have larger ids than their parents.
        for id in (0..self.nodes.len()).rev() {
            let NodeState::Decision(d) = &self.nodes[id] else { continue };
            if reach[id].is_empty() && charge == 0.0 {
                continue;
            }
            let errors = |f: &dyn Fn(&[i32]) -> usize| {
                reach[id].iter().filter(|&&i| f(&rows[i]) != labels[i]).count() as f64
            };
            let subtree =
                errors(&|x| self.predict_from(id, Instance::Raw(x))) + charge * self.cost(id) as f64;
            let prior = Ltu::frozen(&self.space, self.n_classes, self.log_base, d);
            let as_ltu =
                errors(&|x| prior.predict(|i| self.space.features[i].value(x), false, self.compact_leaves))
                    + charge * self.unit_cost(&prior) as f64;
            let as_class = errors(&|_| d.fallback) + charge;
            if as_ltu <= subtree && as_ltu <= as_class {
                self.nodes[id] = NodeState::Ltu(prior);
                pruned += 1;
            } else if as_class < subtree {
                // A machine/LTU with zero weights and only a bias towards the majority class.
                let mut leaf = Ltu::frozen(&self.space, self.n_classes, self.log_base, d);
                leaf.set_constant(d.fallback);
                self.nodes[id] = NodeState::Ltu(leaf);
                pruned += 1;
            }
        }
        pruned
    }

    /// Weights the subtree at `id` exports: its units' (all of a unit's rows, one for a constant) and one
    /// per decision node.
    pub fn cost(&self, id: usize) -> usize {
        match &self.nodes[id] {
            NodeState::Empty { .. } => 0,
            NodeState::Ltu(l) => self.unit_cost(l),
            NodeState::Decision(d) => 1 + d.children.iter().flatten().map(|&c| self.cost(c)).sum::<usize>(),
        }
    }

    /// Weights a unit exports: one for a constant (a single class seen with compact leaves, or
    /// no weight but the bias set), otherwise all of its rows.
    pub(super) fn unit_cost(&self, l: &Ltu) -> usize {
        let dim = l.active.len() + 1;
        let w = l.predicting_weights(self.pocket);
        let constant = w.chunks(dim).all(|r| r[..dim - 1].iter().all(|&v| v == 0));
        if constant || (self.compact_leaves && l.only_class().is_some()) {
            1
        } else {
            w.len()
        }
    }

    /// Error-based pruning with the training `rows` (C4.5's pessimistic pruning, with the LTU a
    /// decision node replaced as a candidate leaf): bottom-up, a decision subtree is replaced by
    /// that LTU, or by its majority class, when the candidate's estimated errors are at most the
    /// sum of the subtree leaves' estimates. The estimate for `e` errors among `n` rows is `n`
    /// times the upper limit of the error rate's confidence interval `z` standard deviations
    /// wide ([`pessimistic_errors`]). Returns the number of subtrees replaced.
    pub fn prune_pessimistic(&mut self, rows: &[Vec<i32>], labels: &[usize], z: f64) -> usize {
        let reach = self.reach(rows);
        // Estimated errors of the (pruned) subtree at each node; children have larger ids.
        let mut est = vec![0.0f64; self.nodes.len()];
        let mut pruned = 0;
        for id in (0..self.nodes.len()).rev() {
            let rows_here = &reach[id];
            let n = rows_here.len() as f64;
            let errors = |f: &dyn Fn(&[i32]) -> usize| {
                rows_here.iter().filter(|&&i| f(&rows[i]) != labels[i]).count() as f64
            };
            match &self.nodes[id] {
                NodeState::Empty { .. } => est[id] = pessimistic_errors(errors(&|_| 0), n, z),
                NodeState::Ltu(l) => {
                    let e = errors(&|x| {
                        l.predict(|i| self.space.features[i].value(x), self.pocket, self.compact_leaves)
                    });
                    est[id] = pessimistic_errors(e, n, z);
                }
                NodeState::Decision(d) => {
                    // Leaves below: grown children, and the fallback class of missing branches.
                    let mut missing = (0.0, 0.0);
                    for &i in rows_here {
                        if d.child(&rows[i]).is_none() {
                            missing.0 += 1.0;
                            missing.1 += f64::from(u8::from(labels[i] != d.fallback));
                        }
                    }
                    let subtree = d.children.iter().flatten().map(|&c| est[c]).sum::<f64>()
                        + pessimistic_errors(missing.1, missing.0, z);
                    let prior = Ltu::frozen(&self.space, self.n_classes, self.log_base, d);
                    let as_ltu = pessimistic_errors(
                        errors(&|x| {
                            prior.predict(|i| self.space.features[i].value(x), false, self.compact_leaves)
                        }),
                        n,
                        z,
                    );
                    let as_class = pessimistic_errors(errors(&|_| d.fallback), n, z);
                    let fallback = d.fallback;
                    est[id] = subtree;
                    if as_ltu <= subtree && as_ltu <= as_class {
                        self.nodes[id] = NodeState::Ltu(prior);
                        est[id] = as_ltu;
                        pruned += 1;
                    } else if as_class <= subtree {
                        let mut leaf = prior;
                        leaf.set_constant(fallback);
                        self.nodes[id] = NodeState::Ltu(leaf);
                        est[id] = as_class;
                        pruned += 1;
                    }
                }
            }
        }
        pruned
    }
}

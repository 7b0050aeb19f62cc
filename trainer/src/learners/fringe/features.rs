//! Feature construction: the find-feature heuristic that reads conjunctions (or, for the CNF
//! dual, disjunctions) off a tree's fringe, and the paper's random baseline.

use std::collections::HashSet;

use super::variables::Values;
use super::{FeatureRule, Operand, Proposal, Tree, TreeNode, Variable};
use crate::rng::Rng;

/// The distinct features the find-feature heuristic reads off `tree`, in leaf order.
pub(super) fn propose(tree: &Tree, rule: FeatureRule, positive: usize) -> Vec<Variable> {
    let mut once = HashSet::new();
    fringe_features(tree, rule, positive).into_iter().filter(|f| once.insert(f.clone())).collect()
}

/// Adds the `proposed` features that are new to `variables` (and `values`) while there are
/// fewer than `max_variables`; with [`Proposal::Random`], a random conjunction instead of each
/// new one, so the baseline adds as many features as the heuristic would. Returns how many were
/// added.
pub(super) fn add_proposed(
    proposed: Vec<Variable>,
    proposal: Proposal,
    max_variables: usize,
    variables: &mut Vec<Variable>,
    values: &mut Values,
    rows: &[Vec<i32>],
    rng: &mut Rng,
) -> usize {
    let mut added = 0;
    for f in proposed {
        if variables.len() >= max_variables {
            break;
        }
        if proposal == Proposal::Random {
            // As many random features as the fringe heuristic would add.
            if values.is_new(&f, rows) {
                if let Some(r) = random_feature(variables, values, rows, rng) {
                    variables.push(r);
                    added += 1;
                }
            }
            continue;
        }
        if values.try_add(&f, rows) {
            variables.push(f);
            added += 1;
        }
    }
    added
}

/// Adds up to `want` random conjunctions to `variables` (and `values`) while there are fewer
/// than `max_variables` (the random baseline on a given schedule). Returns how many were added.
pub(super) fn add_random(
    want: usize,
    max_variables: usize,
    variables: &mut Vec<Variable>,
    values: &mut Values,
    rows: &[Vec<i32>],
    rng: &mut Rng,
) -> usize {
    let mut added = 0;
    while added < want && variables.len() < max_variables {
        let Some(r) = random_feature(variables, values, rows, rng) else { break };
        variables.push(r);
        added += 1;
    }
    added
}

/// The find-feature heuristic: one feature per selected leaf at depth ≥ 2, from the tests at
/// its parent and grandparent, in leaf order (left to right).
fn fringe_features(tree: &Tree, rule: FeatureRule, positive: usize) -> Vec<Variable> {
    let mut out = Vec::new();
    let mut path: Vec<Operand> = Vec::new();
    walk(tree, 0, &mut path, &mut |class, path| {
        let [.., gp, p] = path else { return };
        let pair = if p <= gp { (*p, *gp) } else { (*gp, *p) };
        let neg = |o: Operand| Operand { var: o.var, positive: !o.positive };
        let f = match rule {
            FeatureRule::Dnf if class == positive => Variable::And(pair.0, pair.1),
            FeatureRule::Cnf if class != positive => Variable::Or(neg(pair.0), neg(pair.1)),
            FeatureRule::Symmetric | FeatureRule::Auto => Variable::And(pair.0, pair.1),
            _ => return,
        };
        out.push(f);
    });
    out
}

/// Calls `leaf` with the class and the path tests of every leaf under node `id`, left to right.
fn walk(tree: &Tree, id: usize, path: &mut Vec<Operand>, leaf: &mut impl FnMut(usize, &[Operand])) {
    match tree.nodes[id] {
        TreeNode::Leaf { class } => leaf(class, path),
        TreeNode::Split { var, left, right, .. } => {
            path.push(Operand { var, positive: false });
            walk(tree, left, path, leaf);
            path.pop();
            path.push(Operand { var, positive: true });
            walk(tree, right, path, leaf);
            path.pop();
        }
    }
}

/// A random conjunction of two distinct current variables that is new; `None` after 100 tries.
fn random_feature(
    variables: &[Variable],
    values: &mut Values,
    rows: &[Vec<i32>],
    rng: &mut Rng,
) -> Option<Variable> {
    if variables.len() < 2 {
        return None;
    }
    for _ in 0..100 {
        let a = rng.below(variables.len());
        let mut c = rng.below(variables.len() - 1);
        if c >= a {
            c += 1;
        }
        let v = Variable::And(
            Operand { var: a.min(c), positive: true },
            Operand { var: a.max(c), positive: true },
        );
        if values.try_add(&v, rows) {
            return Some(v);
        }
    }
    None
}

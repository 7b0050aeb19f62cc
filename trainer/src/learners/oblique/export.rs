//! Export to the model IR: the tree's nodes and units.

use std::collections::HashMap;

use super::net::IntTest;
use super::TreeNode;
use crate::learn::Context;
use crate::model::{Feature, ModelSpec, Node, Structure, Unit, WeightKind};

/// Where a decision-diagram edge of a non-linear node leads.
#[derive(Clone, Copy)]
pub(super) enum Link {
    State(usize),
    Exit(bool),
}

/// The decision diagram of `Σ out[h]·[hidden h > 0] + bias > 0` over the hidden units, largest
/// `|out|` first: `(hidden unit, left link, right link)` per state, states in level order (so
/// links point forward). `None` if the decision does not depend on the hidden units.
pub(super) fn diagram(out: &[i64], bias: i64) -> Result<Vec<(usize, Link, Link)>, bool> {
    let mut order: Vec<usize> = (0..out.len()).collect();
    order.sort_by_key(|&h| (std::cmp::Reverse(out[h].abs()), h));
    let l = order.len();
    let mut rest_min = vec![0i64; l + 1];
    let mut rest_max = vec![0i64; l + 1];
    for k in (0..l).rev() {
        rest_min[k] = rest_min[k + 1] + out[order[k]].min(0);
        rest_max[k] = rest_max[k + 1] + out[order[k]].max(0);
    }
    let decided = |k: usize, s: i64| {
        if s + bias + rest_min[k] > 0 {
            Some(true)
        } else if s + bias + rest_max[k] <= 0 {
            Some(false)
        } else {
            None
        }
    };
    if let Some(d) = decided(0, 0) {
        return Err(d);
    }
    let mut states: Vec<(usize, i64)> = vec![(0, 0)];
    let mut index: HashMap<(usize, i64), usize> = HashMap::from([((0, 0), 0)]);
    let mut out_links = Vec::new();
    let mut i = 0;
    while i < states.len() {
        let (k, s) = states[i];
        let h = order[k];
        let mut link = |s2: i64| match decided(k + 1, s2) {
            Some(d) => Link::Exit(d),
            None => {
                let next = states.len();
                let j = *index.entry((k + 1, s2)).or_insert(next);
                if j == next {
                    states.push((k + 1, s2));
                }
                Link::State(j)
            }
        };
        let (left, right) = (link(s), link(s + out[h]));
        out_links.push((h, left, right));
        i += 1;
    }
    Ok(out_links)
}

/// The tree as a [`ModelSpec`]: linear nodes as one `UnitSplit`, non-linear nodes as their
/// decision diagram; only the features some unit reads are kept.
pub(super) fn export(
    ctx: &Context<'_>,
    features: &[Feature],
    nodes: &[TreeNode],
    kind: WeightKind,
) -> ModelSpec {
    let mut out_nodes: Vec<Node> = Vec::new();
    let mut units: Vec<Unit> = Vec::new();
    let mut used = vec![false; features.len()];
    let mut add_unit = |u: &Unit, units: &mut Vec<Unit>| {
        for &t in &u.terms {
            used[t] = true;
        }
        units.push(u.clone());
        units.len() - 1
    };
    // Iterative emission with an explicit stack of pending link fills.
    fn emit(
        id: usize,
        nodes: &[TreeNode],
        out: &mut Vec<Node>,
        units: &mut Vec<Unit>,
        add_unit: &mut dyn FnMut(&Unit, &mut Vec<Unit>) -> usize,
    ) -> usize {
        let Some(split) = &nodes[id].split else {
            out.push(Node::Class(nodes[id].majority));
            return out.len() - 1;
        };
        match &split.test {
            IntTest::Linear(u) => {
                let at = out.len();
                out.push(Node::Class(0));
                let unit = add_unit(u, units);
                let left = emit(split.children[0], nodes, out, units, add_unit);
                let right = emit(split.children[1], nodes, out, units, add_unit);
                out[at] = Node::UnitSplit { unit, left, right };
                at
            }
            IntTest::Mlp { hidden, out: w, bias } => match diagram(w, *bias) {
                Err(side) => emit(split.children[usize::from(side)], nodes, out, units, add_unit),
                Ok(states) => {
                    let base = out.len();
                    out.extend(states.iter().map(|_| Node::Class(0)));
                    let hidden_units: Vec<usize> = hidden.iter().map(|u| add_unit(u, units)).collect();
                    let left = emit(split.children[0], nodes, out, units, add_unit);
                    let right = emit(split.children[1], nodes, out, units, add_unit);
                    let resolve = |l: Link| match l {
                        Link::State(j) => base + j,
                        Link::Exit(false) => left,
                        Link::Exit(true) => right,
                    };
                    for (i, &(h, l, r)) in states.iter().enumerate() {
                        out[base + i] =
                            Node::UnitSplit { unit: hidden_units[h], left: resolve(l), right: resolve(r) };
                    }
                    base
                }
            },
        }
    }
    emit(0, nodes, &mut out_nodes, &mut units, &mut add_unit);
    // Keep only the features some unit reads.
    let mut remap = vec![usize::MAX; features.len()];
    let mut kept = Vec::new();
    for (j, ft) in features.iter().enumerate() {
        if used[j] {
            remap[j] = kept.len();
            kept.push(ft.clone());
        }
    }
    for u in &mut units {
        for t in &mut u.terms {
            *t = remap[*t];
        }
    }
    ModelSpec {
        pipeline: None,
        n_classes: ctx.n_classes(),
        weight_kind: kind,
        inputs: ctx.inputs.clone(),
        features: kept,
        units,
        structure: Structure::Tree(out_nodes),
        names: None,
    }
}

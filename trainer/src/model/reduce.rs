//! Lossless reduction of tree models: the same predictions for every raw input, in fewer nodes.
//!
//! A learner that builds its tests out of smaller ones (FRINGE's conjunction features become
//! chains of one-literal nodes) leaves tests that the path to them has already decided — car's
//! FRINGE tree tests `lug_boot = small` right below the node that found it small — and copies of
//! one subtree under several parents. [`reduce_tree`] removes both, in three steps repeated
//! until nothing changes:
//!
//! 1. **What each node can see.** From the root down (links point forward, so every parent is
//!    done before its children), each node gets the union over its incoming links of what the
//!    raw inputs can be: an interval per input and, for a categorical input of at most 64
//!    values, the set of values still possible, plus whether a value outside `0..n_values` is.
//!    A link narrows its parent's set by the test it stands for (`x <= t` on the left,
//!    `x > t` on the right; a categorical node's link to child `c` keeps the values that go
//!    to `c`). Unit tests narrow nothing.
//! 2. **Decided tests skipped.** A node whose test sends everything it can see to one child is
//!    replaced by that child in every link to it. This only takes links away from the other
//!    children, so their sets shrink and step 1 stays sound in the same pass. A categorical
//!    node's values that cannot reach it go where its default goes (or, when no unknown value
//!    can reach it either, where most of its possible values go): the generated code then tests
//!    fewer values, and equal nodes become equal records.
//! 3. **Equal subtrees shared.** From the leaves up, nodes with the same test and the same
//!    children become one node, and a test whose children are all one node is that node.
//!
//! Each step changes a node's answer only for inputs that cannot reach it, so the tree's
//! prediction is unchanged for every raw input, out-of-range values included. Units and features
//! no remaining node uses are dropped. [`crate::learn::finish`] reduces every tree model.

use std::collections::HashMap;

use crate::model::{Feature, InputKind, ModelSpec, Node, Structure};

/// What one raw input can be at a node: a superset of the values that reach it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Domain {
    /// Smallest and largest raw value.
    lo: i64,
    hi: i64,
    /// Categorical inputs of at most 64 values: the values `0..n_values` still possible (bit
    /// `v`); all ones otherwise.
    mask: u64,
    /// Categorical inputs: whether a value outside `0..n_values` may reach the node.
    out: bool,
}

impl Domain {
    const FULL: Domain = Domain { lo: i32::MIN as i64, hi: i32::MAX as i64, mask: u64::MAX, out: true };

    fn join(&mut self, o: &Domain) {
        self.lo = self.lo.min(o.lo);
        self.hi = self.hi.max(o.hi);
        self.mask |= o.mask;
        self.out |= o.out;
    }

    /// For a categorical input of `n` values: the in-range values possible, and whether an
    /// out-of-range value is.
    fn categorical(&self, n: u16) -> (Vec<usize>, bool) {
        let n = i64::from(n);
        let values = (self.lo.max(0)..=self.hi.min(n - 1))
            .filter(|&v| n > 64 || self.mask & (1 << v) != 0)
            .map(|v| v as usize)
            .collect();
        (values, self.out && (self.lo < 0 || self.hi >= n))
    }
}

/// Reduces a tree model in place (module docs); any other structure is left as it is. Returns
/// how many nodes it removed.
pub fn reduce_tree(spec: &mut ModelSpec) -> usize {
    let Structure::Tree(nodes) = &spec.structure else { return 0 };
    let before = nodes.len();
    let mut nodes = nodes.clone();
    loop {
        let n = nodes.len();
        nodes = share_equal(skip_decided(&nodes, spec));
        if nodes.len() == n {
            break;
        }
    }
    let removed = before - nodes.len();
    if removed > 0 {
        spec.structure = Structure::Tree(nodes);
        drop_unused_units(spec);
    }
    removed
}

/// Steps 1 and 2: every link past the tests its own inputs decide, impossible categorical
/// values sent with the default; the result renumbered from its root.
fn skip_decided(nodes: &[Node], spec: &ModelSpec) -> Vec<Node> {
    let n_values = |attr: usize, children: &[usize]| match spec.inputs[attr].kind {
        InputKind::Categorical { n_values } => n_values,
        InputKind::Numeric { .. } => u16::try_from(children.len()).unwrap_or(u16::MAX),
    };
    // The child each value possible in `d` goes to (in-range values with a child), and whether
    // some value goes to the default (unknown values, values without a child).
    let routes = |attr: usize, children: &[usize], d: &Domain| {
        let (values, out) = d.categorical(n_values(attr, children));
        let out = out || values.iter().any(|&v| v >= children.len());
        let values: Vec<usize> = values.into_iter().filter(|&v| v < children.len()).collect();
        (values, out)
    };
    // Where inputs within `d` that enter node `c` end up: past every test they all pass alike.
    let follow = |mut c: usize, d: &[Domain]| loop {
        c = match &nodes[c] {
            Node::Threshold { attr, threshold, left, right } => {
                let (a, t) = (d[*attr], i64::from(*threshold));
                if a.hi <= t {
                    *left
                } else if a.lo > t {
                    *right
                } else {
                    return c;
                }
            }
            Node::Categorical { attr, children, default } => {
                let (values, out) = routes(*attr, children, &d[*attr]);
                let mut kids = values.iter().map(|&v| children[v]).chain(out.then_some(*default));
                let Some(first) = kids.next() else { return c };
                if kids.all(|k| k == first) {
                    first
                } else {
                    return c;
                }
            }
            _ => return c,
        }
    };
    let mut seen: Vec<Option<Vec<Domain>>> = vec![None; nodes.len()];
    let full = vec![Domain::FULL; spec.inputs.len()];
    let root = follow(0, &full);
    seen[root] = Some(full);
    let mut out = nodes.to_vec();
    // Sends `d` along a link to `*to`, moving the link past the tests `d` decides.
    let send = |seen: &mut Vec<Option<Vec<Domain>>>, to: &mut usize, d: Vec<Domain>| {
        *to = follow(*to, &d);
        match &mut seen[*to] {
            Some(have) => have.iter_mut().zip(&d).for_each(|(h, d)| h.join(d)),
            slot @ None => *slot = Some(d),
        }
    };
    for i in 0..nodes.len() {
        let Some(d) = seen[i].take() else { continue };
        match &mut out[i] {
            Node::Class(_) | Node::Unit(_) => {}
            Node::UnitSplit { left, right, .. } => {
                send(&mut seen, left, d.clone());
                send(&mut seen, right, d);
            }
            Node::Threshold { attr, threshold, left, right } => {
                let t = i64::from(*threshold);
                let mut l = d.clone();
                l[*attr].hi = l[*attr].hi.min(t);
                let mut r = d;
                r[*attr].lo = r[*attr].lo.max(t + 1);
                send(&mut seen, left, l);
                send(&mut seen, right, r);
            }
            Node::Categorical { attr, children, default } => {
                let n = n_values(*attr, children);
                let (values, out_possible) = routes(*attr, children, &d[*attr]);
                route_categorical(*attr, n, children, default, &values, out_possible, d, &mut |to, k| {
                    send(&mut seen, to, k)
                });
            }
        }
    }
    renumber(&out, root)
}

/// Step 1 at a categorical node reached by inputs within `d`: values that cannot come (not in
/// `values`, the in-range values `d` allows) go where the others do, and one domain per distinct
/// child is sent along (`send` moves a link past the tests that domain decides); every link to a
/// child moves with it.
#[allow(clippy::too_many_arguments)]
fn route_categorical(
    attr: usize,
    n: u16,
    children: &mut [usize],
    default: &mut usize,
    values: &[usize],
    out_possible: bool,
    d: Vec<Domain>,
    send: &mut dyn FnMut(&mut usize, Vec<Domain>),
) {
    // Where the values that cannot come go: with the default, or, if no unknown
    // value comes either, with most of the values that do (the first of those).
    let fill = if out_possible {
        *default
    } else {
        let count = |c: usize| values.iter().filter(|&&v| children[v] == c).count();
        values
            .iter()
            .map(|&v| children[v])
            .max_by_key(|&c| (count(c), std::cmp::Reverse(c)))
            .unwrap_or(*default)
    };
    let old = children.to_vec();
    for (v, c) in children.iter_mut().enumerate() {
        if !values.contains(&v) {
            *c = fill;
        }
    }
    if !out_possible {
        *default = fill;
    }
    // One domain per distinct child, sent once; every link to that child moves with it.
    let mut kids: Vec<usize> = values.iter().map(|&v| old[v]).collect();
    kids.extend(out_possible.then_some(*default));
    kids.sort_unstable();
    kids.dedup();
    let mut moved = Vec::new();
    for c in kids {
        let mut here: Vec<usize> = values.iter().copied().filter(|&v| old[v] == c).collect();
        let mut k = d.clone();
        let a = &mut k[attr];
        a.out = out_possible && *default == c;
        if a.out {
            here.extend(old.len()..usize::from(n));
        } else {
            // Only in-range values: the interval shrinks to theirs.
            a.lo = here.first().map_or(0, |&v| v as i64);
            a.hi = here.last().map_or(-1, |&v| v as i64);
        }
        if n <= 64 {
            a.mask = here.iter().fold(0, |m, &v| m | 1 << v);
        }
        let mut to = c;
        send(&mut to, k);
        moved.push((c, to));
    }
    // Links are rewritten from the old child to its new place in one step (a child
    // moved to another child's place must not move again with it).
    let place = |c: usize| moved.iter().find(|m| m.0 == c).map_or(c, |m| m.1);
    for link in children.iter_mut().chain([&mut *default]) {
        *link = place(*link);
    }
}

/// Step 3: equal nodes merged and tests whose children are all one node removed, from the
/// leaves up; the result renumbered from its root.
fn share_equal(nodes: Vec<Node>) -> Vec<Node> {
    let mut canon: Vec<usize> = (0..nodes.len()).collect();
    let mut first: HashMap<Node, usize> = HashMap::new();
    let mut out = nodes;
    for i in (0..out.len()).rev() {
        let node = match &out[i] {
            Node::Categorical { attr, children, default } => {
                let children: Vec<usize> = children.iter().map(|&c| canon[c]).collect();
                let default = canon[*default];
                if children.iter().all(|&c| c == default) {
                    canon[i] = default;
                    continue;
                }
                Node::Categorical { attr: *attr, children, default }
            }
            Node::Threshold { attr, threshold, left, right } => {
                if canon[*left] == canon[*right] {
                    canon[i] = canon[*left];
                    continue;
                }
                Node::Threshold {
                    attr: *attr,
                    threshold: *threshold,
                    left: canon[*left],
                    right: canon[*right],
                }
            }
            Node::UnitSplit { unit, left, right } => {
                if canon[*left] == canon[*right] {
                    canon[i] = canon[*left];
                    continue;
                }
                Node::UnitSplit { unit: *unit, left: canon[*left], right: canon[*right] }
            }
            leaf => leaf.clone(),
        };
        canon[i] = *first.entry(node.clone()).or_insert(i);
        out[i] = node;
    }
    renumber(&out, canon[0])
}

/// The nodes reachable from `root`, renumbered so that the root is 0 and every link points to a
/// larger index (reverse postorder); links in `graph` may point anywhere.
pub(crate) fn renumber(graph: &[Node], root: usize) -> Vec<Node> {
    let mut order = Vec::new();
    let mut seen = vec![false; graph.len()];
    // Iterative postorder: (node, whether its children are done).
    let mut stack = vec![(root, false)];
    while let Some((g, done)) = stack.pop() {
        if done {
            order.push(g);
            continue;
        }
        if seen[g] {
            continue;
        }
        seen[g] = true;
        stack.push((g, true));
        let kids: Vec<usize> = children(&graph[g]);
        for &k in kids.iter().rev() {
            if !seen[k] {
                stack.push((k, false));
            }
        }
    }
    order.reverse();
    let mut index = vec![usize::MAX; graph.len()];
    for (i, &g) in order.iter().enumerate() {
        index[g] = i;
    }
    order
        .iter()
        .map(|&g| match &graph[g] {
            Node::Class(c) => Node::Class(*c),
            Node::Unit(u) => Node::Unit(*u),
            Node::Categorical { attr, children, default } => Node::Categorical {
                attr: *attr,
                children: children.iter().map(|&c| index[c]).collect(),
                default: index[*default],
            },
            Node::Threshold { attr, threshold, left, right } => Node::Threshold {
                attr: *attr,
                threshold: *threshold,
                left: index[*left],
                right: index[*right],
            },
            Node::UnitSplit { unit, left, right } => {
                Node::UnitSplit { unit: *unit, left: index[*left], right: index[*right] }
            }
        })
        .collect()
}

/// A node's links in order (a categorical node's default last).
fn children(node: &Node) -> Vec<usize> {
    match node {
        Node::Class(_) | Node::Unit(_) => Vec::new(),
        Node::Categorical { children, default, .. } => children.iter().copied().chain([*default]).collect(),
        Node::Threshold { left, right, .. } | Node::UnitSplit { left, right, .. } => vec![*left, *right],
    }
}

/// Drops the units no node uses, then the features no unit uses; the rest keep their order.
fn drop_unused_units(spec: &mut ModelSpec) {
    let Structure::Tree(nodes) = &mut spec.structure else { return };
    let mut used = vec![false; spec.units.len()];
    for node in nodes.iter() {
        if let Node::Unit(u) | Node::UnitSplit { unit: u, .. } = node {
            used[*u] = true;
        }
    }
    let unit_index = keep(&mut spec.units, &used);
    for node in nodes.iter_mut() {
        if let Node::Unit(u) | Node::UnitSplit { unit: u, .. } = node {
            *u = unit_index[*u];
        }
    }
    drop_unused_features(spec);
}

/// Drops the features no unit reads; the rest keep their order.
fn drop_unused_features(spec: &mut ModelSpec) {
    let mut used = vec![false; spec.features.len()];
    for unit in &spec.units {
        unit.terms.iter().for_each(|&t| used[t] = true);
    }
    let feature_index = keep(&mut spec.features, &used);
    for unit in &mut spec.units {
        unit.terms.iter_mut().for_each(|t| *t = feature_index[*t]);
    }
}

/// Drops what no prediction can read, for a model whose inputs the caller computes on demand
/// (window features of a pipeline): unit terms whose weights are zero in every row, the features
/// no unit reads, then the inputs no feature or node reads. The rest keep their order, so the
/// model predicts the same for every raw input restricted to the inputs kept. Returns the old
/// index of each input kept.
pub fn drop_unused_inputs(spec: &mut ModelSpec) -> Vec<usize> {
    for unit in &mut spec.units {
        let n = unit.terms.len();
        let live: Vec<bool> = (0..n).map(|j| unit.rows.iter().any(|r| r[j] != 0)).collect();
        if live.iter().all(|&l| l) {
            continue;
        }
        unit.terms = unit.terms.iter().zip(&live).filter(|(_, &l)| l).map(|(&t, _)| t).collect();
        for row in &mut unit.rows {
            let bias = row[n];
            *row = row[..n].iter().zip(&live).filter(|(_, &l)| l).map(|(&w, _)| w).chain([bias]).collect();
        }
    }
    drop_unused_features(spec);
    let mut used = vec![false; spec.inputs.len()];
    for feature in &spec.features {
        match feature {
            Feature::Numeric { attr, .. } | Feature::Equals { attr, .. } | Feature::Greater { attr, .. } => {
                used[*attr] = true;
            }
            Feature::Conjunction(lits) => lits.iter().for_each(|l| used[l.attr] = true),
        }
    }
    if let Structure::Tree(nodes) = &spec.structure {
        for node in nodes {
            if let Node::Threshold { attr, .. } | Node::Categorical { attr, .. } = node {
                used[*attr] = true;
            }
        }
    }
    let kept: Vec<usize> = (0..used.len()).filter(|&i| used[i]).collect();
    let index = keep(&mut spec.inputs, &used);
    for feature in &mut spec.features {
        match feature {
            Feature::Numeric { attr, .. } | Feature::Equals { attr, .. } | Feature::Greater { attr, .. } => {
                *attr = index[*attr];
            }
            Feature::Conjunction(lits) => lits.iter_mut().for_each(|l| l.attr = index[l.attr]),
        }
    }
    if let Structure::Tree(nodes) = &mut spec.structure {
        for node in nodes {
            if let Node::Threshold { attr, .. } | Node::Categorical { attr, .. } = node {
                *attr = index[*attr];
            }
        }
    }
    if let Some(names) = &mut spec.names {
        let _ = keep(&mut names.inputs, &used);
        if names.values.len() == used.len() {
            let _ = keep(&mut names.values, &used);
        }
    }
    if let Some(pipeline) = &mut spec.pipeline {
        if pipeline.features.len() == used.len() {
            let _ = keep(&mut pipeline.features, &used);
        }
    }
    kept
}

/// Keeps the items of `items` whose `used` is set, in order; returns each old index's new one.
fn keep<T>(items: &mut Vec<T>, used: &[bool]) -> Vec<usize> {
    let mut index = vec![usize::MAX; items.len()];
    let mut next = 0;
    for (i, &u) in used.iter().enumerate() {
        if u {
            index[i] = next;
            next += 1;
        }
    }
    let mut i = 0;
    items.retain(|_| {
        i += 1;
        used[i - 1]
    });
    index
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{InputSpec, WeightKind};
    use crate::rng::Rng;

    fn spec(nodes: Vec<Node>) -> ModelSpec {
        let input = |kind| InputSpec { kind, missing: 0 };
        ModelSpec {
            pipeline: None,
            n_classes: 3,
            weight_kind: WeightKind::I8,
            inputs: vec![
                input(InputKind::Numeric { scale_exp: 0, offset: 0 }),
                input(InputKind::Categorical { n_values: 4 }),
                input(InputKind::Categorical { n_values: 3 }),
            ],
            features: Vec::new(),
            units: Vec::new(),
            structure: Structure::Tree(nodes),
            names: None,
        }
    }

    fn nodes(s: &ModelSpec) -> &[Node] {
        match &s.structure {
            Structure::Tree(n) => n,
            _ => unreachable!(),
        }
    }

    /// Every raw input worth telling apart: each value near the tests, out-of-range categories
    /// and the extremes.
    fn inputs() -> Vec<Vec<i32>> {
        let values: Vec<i32> = (-5..=5).chain([i32::MIN, i32::MAX]).collect();
        let mut all = Vec::new();
        for &a in &values {
            for &b in &values {
                for &c in &values {
                    all.push(vec![a, b, c]);
                }
            }
        }
        all
    }

    /// A random DAG of `n` nodes over the three inputs: links point forward, the last three
    /// nodes are the leaves, categorical nodes sometimes have fewer children than values.
    fn random_tree(rng: &mut Rng, n: usize) -> Vec<Node> {
        (0..n)
            .map(|i| {
                if i + 3 >= n {
                    return Node::Class(n - 1 - i);
                }
                let child = |rng: &mut Rng| i + 1 + rng.below(n - i - 1);
                if rng.below(2) == 0 {
                    let (attr, threshold) = (rng.below(3), rng.below(7) as i32 - 2);
                    Node::Threshold { attr, threshold, left: child(rng), right: child(rng) }
                } else {
                    let attr = 1 + rng.below(2);
                    let values = [4, 3][attr - 1] - rng.below(2);
                    let children = (0..values).map(|_| child(rng)).collect();
                    Node::Categorical { attr, children, default: child(rng) }
                }
            })
            .collect()
    }

    #[test]
    fn unused_inputs_dropped_predictions_kept() {
        use crate::model::{Feature, Unit};
        let numeric = |attr| Feature::Numeric { attr, offset: 0, mul: 1, shift: 0, max_abs: 1000 };
        let mut s = spec(vec![
            Node::Threshold { attr: 2, threshold: 1, left: 1, right: 2 },
            Node::Class(0),
            Node::Unit(0),
        ]);
        s.inputs.push(InputSpec { kind: InputKind::Numeric { scale_exp: 0, offset: 0 }, missing: 0 });
        s.features = vec![numeric(0), numeric(3), numeric(1)];
        // Feature 1 (input 3) has zero weight in both rows; input 1 is read by no feature.
        s.units =
            vec![Unit { terms: vec![0, 1], rows: vec![vec![3, 0, -1], vec![-2, 0, 4]], classes: vec![1, 2] }];
        s.features.truncate(2);
        let before = s.clone();
        let kept = drop_unused_inputs(&mut s);
        assert_eq!(kept, [0, 2]);
        assert_eq!(s.inputs.len(), 2);
        assert_eq!(s.units[0].terms, [0]);
        assert_eq!(s.units[0].rows, [vec![3, -1], vec![-2, 4]]);
        let mut rng = Rng::new(7);
        for _ in 0..500 {
            let x: Vec<i32> = (0..4).map(|_| rng.below(9) as i32 - 4).collect();
            let projected: Vec<i32> = kept.iter().map(|&i| x[i]).collect();
            assert_eq!(s.predict(&projected), before.predict(&x), "{x:?}");
        }
    }

    #[test]
    fn predictions_stay_the_same_for_every_input() {
        let mut rng = Rng::new(7);
        let all = inputs();
        let (mut before, mut after) = (0, 0);
        for _ in 0..300 {
            let n = 4 + rng.below(30);
            let original = spec(random_tree(&mut rng, n));
            let mut reduced = original.clone();
            reduce_tree(&mut reduced);
            before += nodes(&original).len();
            after += nodes(&reduced).len();
            for x in &all {
                assert_eq!(original.predict(x), reduced.predict(x), "{x:?}\n{original:?}\n{reduced:?}");
            }
            // Links point forward from the root at 0, and a second reduction finds nothing.
            for (i, node) in nodes(&reduced).iter().enumerate() {
                assert!(children(node).iter().all(|&c| c > i), "{reduced:?}");
            }
            let mut again = reduced.clone();
            assert_eq!(reduce_tree(&mut again), 0, "{reduced:?}");
        }
        assert!(after * 2 < before, "random trees have much to remove: {before} → {after} nodes");
    }

    #[test]
    fn a_test_the_path_decided_is_skipped_and_equal_subtrees_are_shared() {
        // x0 <= 2 ? (x0 <= 4 ? A : B) : (x1 == 1 ? A : (x1 == 1 ? B : A'))
        let tree = vec![
            Node::Threshold { attr: 0, threshold: 2, left: 1, right: 2 },
            Node::Threshold { attr: 0, threshold: 4, left: 4, right: 5 },
            Node::Categorical { attr: 1, children: vec![3, 4, 3, 3], default: 3 },
            Node::Categorical { attr: 1, children: vec![6, 5, 6, 6], default: 6 },
            Node::Class(0),
            Node::Class(1),
            Node::Class(0),
        ];
        let mut s = spec(tree);
        assert_eq!(reduce_tree(&mut s), 6);
        // x0 <= 2 ? A : (x1 == 1 ? A : A) = A.
        assert_eq!(nodes(&s), [Node::Class(0)]);
    }

    #[test]
    fn values_that_cannot_reach_a_node_go_with_its_default() {
        // x1 == 0 ? A : (x1 == 2 ? B : (x1 == 0 ? B : x1 == 1 ? A : C)): the inner node never
        // sees 0 or 2, so it tests 1 against the rest.
        let tree = vec![
            Node::Categorical { attr: 1, children: vec![4, 1, 1, 1], default: 1 },
            Node::Categorical { attr: 1, children: vec![2, 2, 5, 2], default: 2 },
            Node::Categorical { attr: 1, children: vec![5, 4, 5, 6], default: 6 },
            Node::Class(2),
            Node::Class(0),
            Node::Class(1),
            Node::Class(2),
        ];
        let original = spec(tree);
        let mut s = original.clone();
        reduce_tree(&mut s);
        let inner = nodes(&s).iter().rfind(|n| matches!(n, Node::Categorical { .. })).cloned();
        let Some(Node::Categorical { children, default, .. }) = inner else { panic!("{s:?}") };
        assert_eq!(children.iter().filter(|&&c| c != default).count(), 1, "{s:?}");
        for x in inputs() {
            assert_eq!(original.predict(&x), s.predict(&x));
        }
    }
}

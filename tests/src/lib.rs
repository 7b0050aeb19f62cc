//! Shared helpers for the cross-crate tests: a seeded generator of random valid [`ModelSpec`]s of
//! every shape, random inputs that hit the edges, a reference "which inputs does this evaluation
//! need" walker, the hand-built golden models, and a seed loop that names the failing seed.
//!
//! Seeds: every randomized test runs `LTU_CASES` seeds (a per-test default) starting at
//! `LTU_SEED` (default 0). A failure prints the seed and the command that re-runs only it.

use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};

use ltu::model::quantize::weight_range;
use ltu::model::{
    Feature, InputKind, InputSpec, Literal, LiteralOp, ModelSpec, Names, Node, Structure, Unit, WeightKind,
};
use ltu::rng::Rng;

/// Runs `check(seed)` for each seed of this test; on a panic, panics again naming the seed.
///
/// `LTU_SEED` picks the first seed (default 0) and `LTU_CASES` the number of seeds (default
/// `default_cases`), so `LTU_SEED=1234 LTU_CASES=1 cargo test -p ltu-tests NAME` re-runs one case.
pub fn for_each_seed(test: &str, default_cases: u64, check: impl Fn(u64)) {
    let env = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<u64>().ok());
    let first = env("LTU_SEED").unwrap_or(0);
    let cases = env("LTU_CASES").unwrap_or(default_cases);
    for seed in first..first + cases {
        if let Err(e) = catch_unwind(AssertUnwindSafe(|| check(seed))) {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            panic!(
                "{test}: seed {seed} failed: {msg}\n  re-run just this case: \
                 LTU_SEED={seed} LTU_CASES=1 cargo test -p ltu-tests {test}"
            );
        }
    }
}

/// A small extension of [`Rng`] for picking test data.
pub struct Gen {
    /// The underlying generator.
    pub rng: Rng,
}

impl Gen {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Gen {
        Gen { rng: Rng::new(seed) }
    }

    /// Uniform in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        self.rng.below(n)
    }

    /// True with probability `num / den`.
    pub fn chance(&mut self, num: usize, den: usize) -> bool {
        self.rng.below(den) < num
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        assert!(lo <= hi);
        let span = (hi as i128 - lo as i128 + 1) as u128;
        if span > u64::MAX as u128 {
            return self.rng.next_u64() as i64;
        }
        lo + (self.rng.next_u64() as u128 % span) as i64
    }

    /// One of `items`.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    /// Any `i32`, biased towards the extremes and small values.
    pub fn any_i32(&mut self) -> i32 {
        match self.below(4) {
            0 => self.pick(&[i32::MIN, i32::MIN + 1, -1, 0, 1, i32::MAX - 1, i32::MAX]),
            1 => self.rng.next_u64() as i32,
            _ => self.range(-40, 40) as i32,
        }
    }

    /// A weight in `-max..=max` (and within `kind`'s range), often zero or at the bound.
    pub fn weight(&mut self, kind: WeightKind, max: i64) -> i64 {
        let (lo, hi) = weight_range(kind);
        let max = max.min(hi).min(-lo);
        if max <= 0 {
            return 0;
        }
        match self.below(8) {
            0 => 0,
            1 => max,
            2 => -max,
            3 => self.range(-3, 3).clamp(-max, max),
            _ => self.range(-max, max),
        }
    }
}

/// What a random model should look like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// [`Structure::Tree`].
    Tree,
    /// [`Structure::List`].
    List,
    /// [`Structure::Linear`].
    Linear,
}

/// Generates a random valid model for `seed`: every structure, weight kind, feature kind and
/// node kind, dense and sparse units, with or without names. Weights respect `fits(kind)`.
pub fn random_spec(seed: u64) -> ModelSpec {
    let mut g = Gen::new(seed);
    let shape = g.pick(&[Shape::Tree, Shape::Tree, Shape::List, Shape::Linear]);
    let kind = g.pick(&[WeightKind::I8, WeightKind::I16, WeightKind::I32, WeightKind::Fixed]);
    random_spec_with(&mut g, shape, kind)
}

/// [`random_spec`] with the shape and weight kind chosen by the caller.
pub fn random_spec_with(g: &mut Gen, shape: Shape, kind: WeightKind) -> ModelSpec {
    random_spec_sized(g, shape, kind, 6, 6, false)
}

/// [`random_spec_with`] with 1 to `max_inputs` inputs and up to `max_features` features (units
/// read more terms than the runtime's caches hold when these are large). With `standard`, the
/// features are the standard features instead (one numeric feature per numeric input, one
/// `Equals` per categorical value, in input order; every input numeric half of the time), so a
/// unit over every feature is stored dense.
pub fn random_spec_sized(
    g: &mut Gen,
    shape: Shape,
    kind: WeightKind,
    max_inputs: usize,
    max_features: usize,
    standard: bool,
) -> ModelSpec {
    let n_classes = 1 + g.below(5);
    let n_inputs = 1 + g.below(max_inputs);
    let mut inputs = random_input_specs(g, n_inputs);
    let features: Vec<Feature> = if standard {
        if g.chance(1, 2) {
            for inp in &mut inputs {
                inp.kind = InputKind::Numeric { scale_exp: 0, offset: 0 };
            }
        }
        let mut features = Vec::new();
        for (attr, inp) in inputs.iter().enumerate() {
            match inp.kind {
                InputKind::Numeric { .. } => features.push(Feature::Numeric {
                    attr,
                    offset: g.range(-20, 20) as i32,
                    mul: g.range(-300, 300) as i16,
                    shift: g.below(33) as u8,
                    max_abs: 1 + g.below(32767) as u16,
                }),
                InputKind::Categorical { n_values } => {
                    features.extend((0..i32::from(n_values)).map(|value| Feature::Equals { attr, value }));
                }
            }
        }
        features
    } else {
        let n_features = g.below(max_features + 1);
        (0..n_features).map(|_| random_feature(g, &inputs)).collect()
    };

    // Units: binary ones (needed by lists and unit splits) and machines.
    let n_units = 1 + g.below(4);
    let mut units: Vec<Unit> = (0..n_units)
        .map(|u| {
            let binary = u == 0 || g.chance(1, 2);
            random_unit(g, kind, &features, n_classes, binary)
        })
        .collect();
    let binary: Vec<usize> = (0..units.len()).filter(|&u| units[u].rows.len() == 1).collect();

    let structure = match shape {
        Shape::Linear => Structure::Linear(g.below(units.len())),
        Shape::List => Structure::List {
            entries: (0..g.below(5)).map(|_| (g.pick(&binary), g.below(n_classes))).collect(),
            default: g.below(n_classes),
        },
        Shape::Tree => random_tree(g, &inputs, units.len(), &binary, n_classes),
    };

    let names = g.chance(1, 2).then(|| {
        let word = |g: &mut Gen| g.pick(&["", "x", "pétale", "a b", "class, with comma", "Δ"]).to_string();
        Names {
            inputs: (0..n_inputs).map(|_| word(g)).collect(),
            values: (0..n_inputs)
                .map(|i| (0..n_values(&inputs, i).unwrap_or(0)).map(|_| word(g)).collect())
                .collect(),
            classes: (0..n_classes).map(|_| word(g)).collect(),
        }
    });

    // Occasionally make a unit hit its accumulator limit exactly.
    if g.chance(1, 4) {
        let u = g.below(units.len());
        saturate(&mut units[u], kind, &features);
    }
    let spec =
        ModelSpec { pipeline: None, n_classes, weight_kind: kind, inputs, features, units, structure, names };
    assert!(spec.fits(kind), "generator bug: weights do not fit {kind:?}");
    spec
}

/// `n` inputs, numeric or categorical, each with any missing-value substitute.
fn random_input_specs(g: &mut Gen, n: usize) -> Vec<InputSpec> {
    (0..n)
        .map(|_| {
            let kind = if g.chance(1, 2) {
                let scale_exp = g.range(-3, 3) as i8;
                let offset = if g.chance(1, 2) { 0 } else { i64::from(g.any_i32()) * 1000 };
                InputKind::Numeric { scale_exp, offset }
            } else {
                InputKind::Categorical { n_values: 1 + g.below(5) as u16 }
            };
            InputSpec { kind, missing: g.any_i32() }
        })
        .collect()
}

/// How many values categorical input `i` has (`None`: numeric).
fn n_values(inputs: &[InputSpec], i: usize) -> Option<i32> {
    match inputs[i].kind {
        InputKind::Categorical { n_values } => Some(i32::from(n_values)),
        InputKind::Numeric { .. } => None,
    }
}

/// A value to compare input `i` with: in range for categories (sometimes not), anything else.
fn compared(g: &mut Gen, inputs: &[InputSpec], i: usize) -> i32 {
    match n_values(inputs, i) {
        Some(n) if g.chance(3, 4) => g.range(0, i64::from(n) - 1) as i32,
        _ => g.any_i32(),
    }
}

/// A feature of any kind over `inputs`, with extreme parameters now and then.
fn random_feature(g: &mut Gen, inputs: &[InputSpec]) -> Feature {
    let attr = g.below(inputs.len());
    match g.below(5) {
        0 | 1 => Feature::Numeric {
            attr,
            offset: if g.chance(1, 2) { g.range(-20, 20) as i32 } else { g.any_i32() },
            mul: match g.below(4) {
                0 => g.pick(&[i16::MIN, i16::MAX, 0, -1, 1]),
                1 => g.range(-8, 8) as i16,
                _ => g.rng.next_u64() as i16,
            },
            shift: if g.chance(1, 2) { g.pick(&[0, 0, 1, 3, 8, 16, 31, 32]) } else { g.below(33) as u8 },
            max_abs: if g.chance(1, 2) {
                g.pick(&[1, 2, 127, 1000, 32767])
            } else {
                1 + g.below(32767) as u16
            },
        },
        2 => Feature::Equals { attr, value: compared(g, inputs, attr) },
        3 => Feature::Greater { attr, value: compared(g, inputs, attr) },
        _ => Feature::Conjunction(
            (0..1 + g.below(3))
                .map(|_| {
                    let attr = g.below(inputs.len());
                    let op = g.pick(&[LiteralOp::Eq, LiteralOp::Ne, LiteralOp::Gt, LiteralOp::Le]);
                    Literal { attr, op, value: compared(g, inputs, attr) }
                })
                .collect(),
        ),
    }
}

/// A tree of 1 to 14 nodes whose links point forward: constant and unit leaves, categorical,
/// unit and threshold splits.
fn random_tree(
    g: &mut Gen,
    inputs: &[InputSpec],
    n_units: usize,
    binary: &[usize],
    n_classes: usize,
) -> Structure {
    let n_nodes = 1 + g.below(14);
    let categorical: Vec<usize> = (0..inputs.len()).filter(|&i| n_values(inputs, i).is_some()).collect();
    let nodes = (0..n_nodes)
        .map(|i| {
            let later = |g: &mut Gen| i + 1 + g.below(n_nodes - i - 1);
            let leaf = i + 1 == n_nodes || g.chance(1, 4);
            match (leaf, g.below(3)) {
                (true, 0) => Node::Unit(g.below(n_units)),
                (true, _) => Node::Class(g.below(n_classes)),
                (false, 0) if !categorical.is_empty() => {
                    let attr = g.pick(&categorical);
                    let n = n_values(inputs, attr).unwrap() as usize;
                    Node::Categorical {
                        attr,
                        children: (0..n).map(|_| later(g)).collect(),
                        default: later(g),
                    }
                }
                (false, 1) => Node::UnitSplit { unit: g.pick(binary), left: later(g), right: later(g) },
                _ => {
                    let attr = g.below(inputs.len());
                    Node::Threshold {
                        attr,
                        threshold: compared(g, inputs, attr),
                        left: later(g),
                        right: later(g),
                    }
                }
            }
        })
        .collect();
    Structure::Tree(nodes)
}

/// Largest accumulator magnitude a row may reach for `kind`.
fn budget(kind: WeightKind) -> i64 {
    kind.accumulator_limit().min(i64::MAX as u64) as i64
}

fn random_unit(g: &mut Gen, kind: WeightKind, features: &[Feature], n_classes: usize, binary: bool) -> Unit {
    let n_features = features.len();
    let terms: Vec<usize> = if n_features == 0 {
        vec![]
    } else {
        match g.below(3) {
            // Every feature once, in order (what a dense trainer makes).
            0 => (0..n_features).collect(),
            // A few features, possibly repeated, in any order.
            _ => (0..g.below(n_features + 2)).map(|_| g.below(n_features)).collect(),
        }
    };
    let n_rows = if binary { 1 } else { 2 + g.below(3) };
    // Scale of the weights: small, or up to the kind's range.
    let wmax = match g.below(3) {
        0 => 4,
        1 => 200,
        _ => i64::MAX,
    };
    let rows = (0..n_rows)
        .map(|_| {
            // Keep sum |w| * max|f| + |bias| within the accumulator budget, and each dense merged
            // weight (duplicate terms add up) within the kind's range.
            let mut left = budget(kind);
            let mut merged = vec![0i64; n_features];
            let mut row: Vec<i64> = terms
                .iter()
                .map(|&t| {
                    let m = features[t].max_abs();
                    let (_, hi) = weight_range(kind);
                    let room = hi - merged[t].abs();
                    let w = g.weight(kind, wmax.min(left / m).min(room));
                    merged[t] += w;
                    left -= w.abs() * m;
                    w
                })
                .collect();
            row.push(g.weight(kind, wmax.min(left)));
            row
        })
        .collect();
    let classes = (0..n_rows.max(2)).map(|_| g.below(n_classes)).collect();
    Unit { terms, rows, classes }
}

/// Sets a unit's first row so that its accumulator bound equals the kind's limit (or as close
/// as the weight range allows), the edge the runtime's overflow proof must still accept.
fn saturate(unit: &mut Unit, kind: WeightKind, features: &[Feature]) {
    let (_, hi) = weight_range(kind);
    let n = unit.terms.len();
    let mut merged = vec![0i64; features.len()];
    let row = &mut unit.rows[0];
    let mut left = budget(kind);
    for (j, &t) in unit.terms.iter().enumerate() {
        let m = features[t].max_abs();
        let w = (left / m).min(hi - merged[t].abs()).max(0);
        let w = if j % 2 == 0 { w } else { -w };
        row[j] = w;
        merged[t] += w;
        left -= w.abs() * m;
    }
    row[n] = -(left.min(hi));
}

/// Interesting raw values for input `i` of `spec`: every constant it is compared with, +-1.
fn constants(spec: &ModelSpec, i: usize) -> Vec<i32> {
    let mut c = vec![i32::MIN, i32::MAX, 0, -1];
    let mut near = |v: i32| c.extend([v.wrapping_sub(1), v, v.wrapping_add(1)]);
    for f in &spec.features {
        match f {
            Feature::Numeric { attr, offset, .. } if *attr == i => near(*offset),
            Feature::Equals { attr, value } | Feature::Greater { attr, value } if *attr == i => near(*value),
            Feature::Conjunction(lits) => lits.iter().filter(|l| l.attr == i).for_each(|l| near(l.value)),
            _ => {}
        }
    }
    if let Structure::Tree(nodes) = &spec.structure {
        for n in nodes {
            if let Node::Threshold { attr, threshold, .. } = n {
                if *attr == i {
                    near(*threshold);
                }
            }
        }
    }
    if let InputKind::Categorical { n_values } = spec.inputs[i].kind {
        c.extend(-1..=i32::from(n_values));
    }
    c
}

/// Random raw inputs for `spec`: mostly values near its constants, sometimes anything.
pub fn random_inputs(g: &mut Gen, spec: &ModelSpec) -> Vec<i32> {
    (0..spec.inputs.len())
        .map(|i| match g.below(3) {
            0 => g.any_i32(),
            _ => g.pick(&constants(spec, i)),
        })
        .collect()
}

/// What one reference evaluation touches.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Path {
    /// Tree nodes visited, in order (empty for lists and linear models).
    pub nodes: Vec<usize>,
    /// Units whose scores were computed, in order.
    pub units: Vec<usize>,
    /// Inputs the evaluation may need: split inputs on the path and every input of every
    /// feature the evaluated units store (a superset: the runtime short-circuits conjunctions).
    /// A unit stored dense reads every standard feature (every input), even those it weighs 0; a
    /// sparse one only the terms with a non-zero weight in some row.
    pub may_read: BTreeSet<usize>,
    /// Inputs any correct evaluation must read: the split inputs on the path.
    pub must_read: BTreeSet<usize>,
}

/// Walks `spec` on raw inputs `x` like [`ModelSpec::predict`], recording what it touches;
/// `dense[u]` says whether the encoded file stores unit `u` dense (see [`dense_units`]).
pub fn path(spec: &ModelSpec, x: &[i32], dense: &[bool]) -> Path {
    let f = spec.feature_values(x);
    let mut p = Path::default();
    let unit = |p: &mut Path, u: usize| {
        p.units.push(u);
        let unit = &spec.units[u];
        if dense[u] {
            // A dense unit reads the standard features: every input.
            p.may_read.extend(0..spec.inputs.len());
            return;
        }
        let stored: Vec<usize> = {
            (0..unit.terms.len())
                .filter(|&j| unit.rows.iter().any(|r| r[j] != 0))
                .map(|j| unit.terms[j])
                .collect()
        };
        for t in stored {
            match &spec.features[t] {
                Feature::Numeric { attr, .. }
                | Feature::Equals { attr, .. }
                | Feature::Greater { attr, .. } => {
                    p.may_read.insert(*attr);
                }
                Feature::Conjunction(lits) => p.may_read.extend(lits.iter().map(|l| l.attr)),
            }
        }
    };
    match &spec.structure {
        Structure::Linear(u) => unit(&mut p, *u),
        Structure::List { entries, .. } => {
            for &(u, _) in entries {
                unit(&mut p, u);
                if spec.units[u].row_score(0, &f) > 0 {
                    break;
                }
            }
        }
        Structure::Tree(nodes) => {
            let mut i = 0;
            loop {
                p.nodes.push(i);
                i = match &nodes[i] {
                    Node::Class(_) => break,
                    Node::Unit(u) => {
                        unit(&mut p, *u);
                        break;
                    }
                    Node::Categorical { attr, children, default } => {
                        p.must_read.insert(*attr);
                        usize::try_from(x[*attr])
                            .ok()
                            .and_then(|v| children.get(v))
                            .copied()
                            .unwrap_or(*default)
                    }
                    Node::Threshold { attr, threshold, left, right } => {
                        p.must_read.insert(*attr);
                        if x[*attr] <= *threshold {
                            *left
                        } else {
                            *right
                        }
                    }
                    Node::UnitSplit { unit: u, left, right } => {
                        unit(&mut p, *u);
                        if spec.units[*u].row_score(0, &f) <= 0 {
                            *left
                        } else {
                            *right
                        }
                    }
                };
            }
        }
    }
    p.may_read.extend(p.must_read.iter().copied());
    p
}

/// Which units of a loaded model are stored dense (flag bit 0 of each 16-byte unit record clear).
pub fn dense_units(model: &ltu_runtime::Model<'_>) -> Vec<bool> {
    model.repr().units.chunks(ltu_runtime::format::UnitRec::SIZE).map(|r| r[0] & 1 == 0).collect()
}

/// One hand-built golden model with the inputs its expected-predictions file lists.
pub struct Golden {
    /// File stem under `tests/golden/`.
    pub name: &'static str,
    /// The model.
    pub spec: ModelSpec,
    /// Raw inputs to predict.
    pub inputs: Vec<Vec<i32>>,
}

fn numeric() -> InputSpec {
    InputSpec { kind: InputKind::Numeric { scale_exp: 0, offset: 0 }, missing: 0 }
}

fn categorical(n_values: u16) -> InputSpec {
    InputSpec { kind: InputKind::Categorical { n_values }, missing: -1 }
}

/// The golden models: one per structure kind, small enough to reason about by hand.
pub fn golden_models() -> Vec<Golden> {
    let edge = [i32::MIN, -1, 0, 1, i32::MAX];
    let mut grid2 = vec![];
    for a in [i32::MIN, -6, -1, 0, 1, 2, 4, 5, 6, 50, i32::MAX] {
        for b in [-1, 0, 1, 2, 3, i32::MAX] {
            grid2.push(vec![a, b]);
        }
    }
    // Perceptron tree: every node kind, a categorical split with an unknown-value default, a
    // threshold split, an oblique (unit) split, a constant leaf and a linear-machine leaf.
    let tree = ModelSpec {
        pipeline: None,
        n_classes: 3,
        weight_kind: WeightKind::I8,
        inputs: vec![numeric(), categorical(3)],
        features: vec![
            Feature::Numeric { attr: 0, offset: 2, mul: 3, shift: 1, max_abs: 20 },
            Feature::Equals { attr: 1, value: 2 },
            Feature::Conjunction(vec![
                Literal { attr: 0, op: LiteralOp::Gt, value: 0 },
                Literal { attr: 1, op: LiteralOp::Ne, value: 1 },
            ]),
        ],
        units: vec![
            Unit { terms: vec![0, 1, 2], rows: vec![vec![2, -1, 1, -3]], classes: vec![0, 2] },
            Unit {
                terms: vec![1, 2],
                rows: vec![vec![1, 1, 0], vec![-1, 1, 0], vec![0, -1, 1]],
                classes: vec![0, 1, 2],
            },
        ],
        structure: Structure::Tree(vec![
            Node::Threshold { attr: 0, threshold: 4, left: 1, right: 2 },
            Node::Categorical { attr: 1, children: vec![3, 4, 4], default: 3 },
            Node::UnitSplit { unit: 0, left: 3, right: 4 },
            Node::Class(1),
            Node::Unit(1),
        ]),
        names: Some(Names {
            inputs: vec!["length".into(), "colour".into()],
            values: vec![vec![], vec!["red".into(), "green".into(), "blue".into()]],
            classes: vec!["small".into(), "medium".into(), "large".into()],
        }),
    };
    // Neural decision list of two sparse binary units (I16), default class 0.
    let list = ModelSpec {
        pipeline: None,
        n_classes: 3,
        weight_kind: WeightKind::I16,
        inputs: vec![numeric(), numeric()],
        features: vec![
            Feature::Numeric { attr: 0, offset: 0, mul: 1, shift: 0, max_abs: 1000 },
            Feature::Numeric { attr: 1, offset: -5, mul: -2, shift: 2, max_abs: 300 },
            Feature::Greater { attr: 1, value: 1 },
            Feature::Equals { attr: 0, value: 0 },
        ],
        units: vec![
            Unit { terms: vec![0], rows: vec![vec![300, -1500]], classes: vec![0, 1] },
            Unit { terms: vec![1, 2, 3], rows: vec![vec![-7, 1000, 0, 4]], classes: vec![0, 2] },
        ],
        structure: Structure::List { entries: vec![(0, 1), (1, 2)], default: 0 },
        names: None,
    };
    // A dense binary perceptron with I32 weights whose accumulator bound is exactly i32::MAX.
    let binary = ModelSpec {
        pipeline: None,
        n_classes: 2,
        weight_kind: WeightKind::I32,
        inputs: vec![numeric(), numeric()],
        features: vec![
            Feature::Numeric { attr: 0, offset: 0, mul: 1, shift: 0, max_abs: 32767 },
            Feature::Numeric { attr: 1, offset: i32::MIN, mul: i16::MIN, shift: 32, max_abs: 32767 },
        ],
        units: vec![Unit {
            terms: vec![0, 1],
            rows: vec![vec![32768, -32769, i32::MAX as i64 - 32768 * 32767 - 32769 * 32767]],
            classes: vec![0, 1],
        }],
        structure: Structure::Linear(0),
        names: None,
    };
    // A linear machine with I16F16 weights over categorical indicators (ties to the lowest row).
    let machine = ModelSpec {
        pipeline: None,
        n_classes: 4,
        weight_kind: WeightKind::Fixed,
        inputs: vec![categorical(4), numeric()],
        features: vec![
            Feature::Equals { attr: 0, value: 0 },
            Feature::Equals { attr: 0, value: 1 },
            Feature::Greater { attr: 1, value: 2 },
            Feature::Numeric { attr: 1, offset: 0, mul: 1, shift: 0, max_abs: 10 },
        ],
        units: vec![Unit {
            terms: vec![0, 1, 2, 3],
            rows: vec![
                vec![0x1_0000, 0, 0, 0, 0],
                vec![0, 0x1_0000, 0, 0, 0],
                vec![0, 0, 0x8000, 0x2000, -0x8000],
                vec![-0x1_0000, -0x1_0000, 0, 0, -0x1_8000],
            ],
            classes: vec![3, 2, 1, 0],
        }],
        structure: Structure::Linear(0),
        names: Some(Names {
            inputs: vec!["mode".into(), "level".into()],
            values: vec![vec!["a".into(), "b".into(), "c".into(), "d".into()], vec![]],
            classes: vec!["w".into(), "x".into(), "y".into(), "z".into()],
        }),
    };
    let mut edges = vec![];
    for a in edge {
        for b in edge {
            edges.push(vec![a, b]);
        }
    }
    let mut machine_inputs = vec![];
    for a in [-1, 0, 1, 2, 3, 4, i32::MAX] {
        for b in [i32::MIN, 0, 2, 3, 4, 9, 10, 11, i32::MAX] {
            machine_inputs.push(vec![a, b]);
        }
    }
    vec![
        Golden { name: "tree", spec: tree, inputs: grid2.clone() },
        Golden { name: "list", spec: list, inputs: grid2.into_iter().chain(edges.clone()).collect() },
        Golden { name: "binary_i32", spec: binary, inputs: edges },
        Golden { name: "machine_fixed", spec: machine, inputs: machine_inputs },
    ]
}

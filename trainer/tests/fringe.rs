//! FRINGE (Pagallo 1989) through the public API: exact learning of DNF-like targets the plain
//! tree misses, the CNF dual, the symmetric multi-class rule, continuous attributes, the random
//! baseline, export through `learn::finish` (runtime reload, bit-exact agreement) and the checks
//! on parameters and data.
//!
//! The full section 6 reproduction is an example: `cargo run --release -p ltu --example
//! reproduce_fringe` (writes docs/FRINGE_REPRODUCTION.md).

use ltu::data::{AttrKind, Attribute, Dataset, Schema};
use ltu::learn::{self, Context};
use ltu::learners::fringe::{self, FeatureRule, Fringe, Params, Proposal, Stop, Variable};
use ltu::model::{Node, Structure};
use ltu::rng::Rng;
use synth::{Problem, Target};

// Paper data generators, shared with the reproduction example (not part of the library).
#[path = "../examples/paper/fringe.rs"]
mod synth;

fn problem(name: &str) -> Problem {
    synth::problems().into_iter().find(|p| p.name == name).expect("known problem")
}

fn error(f: &Fringe, tree: &fringe::Tree, rows: &[Vec<i32>], labels: &[usize]) -> usize {
    rows.iter().zip(labels).filter(|(x, &y)| tree.predict(&f.values(x)) != y).count()
}

/// A dataset with categorical attributes of the given value counts (raw value = index).
fn categorical_data(n_values: &[usize], rows: &[Vec<i32>], labels: &[usize], n_classes: usize) -> Dataset {
    let attributes = n_values
        .iter()
        .enumerate()
        .map(|(i, &k)| Attribute {
            name: format!("x{i}"),
            kind: AttrKind::Categorical { values: (0..k).map(|v| format!("v{v}")).collect() },
        })
        .collect();
    dataset(attributes, rows, labels, n_classes)
}

/// A dataset of these attributes and integer rows, classes `c0`, `c1`, ...
fn dataset(attributes: Vec<Attribute>, rows: &[Vec<i32>], labels: &[usize], n_classes: usize) -> Dataset {
    Dataset {
        schema: Schema { attributes, classes: (0..n_classes).map(|c| format!("c{c}")).collect() },
        x: rows.iter().flatten().map(|&v| f64::from(v)).collect(),
        y: labels.to_vec(),
        source: "test".into(),
    }
}

/// Trains through `fringe::train` and `learn::finish` (which reloads the bytes through the
/// runtime and checks every training row), then checks the runtime against `Fringe::predict`
/// on `extra` rows too.
fn train_and_check(data: &Dataset, p: &Params, extra: &[Vec<i32>]) -> learn::Trained {
    let ctx = Context::new(data, 7, None);
    let spec = fringe::train(&ctx, p).expect("train");
    let trained = learn::finish(spec, &ctx, true).expect("finish: runtime agrees on every training row");
    let learned = Fringe::learn(&ctx.inputs, &ctx.raw, ctx.labels(), ctx.n_classes(), p, 7).expect("learn");
    let model = ltu_runtime::Model::from_bytes(&trained.bytes).expect("runtime loads the model");
    for x in ctx.raw.iter().chain(extra) {
        assert_eq!(model.predict(x).ok(), Some(learned.predict(x)), "row {x:?}");
        assert_eq!(trained.spec.predict(x), learned.predict(x));
    }
    trained
}

#[test]
fn learns_mult11_exactly_where_the_plain_tree_does_not() {
    let pr = problem("mult11");
    let mut rng = Rng::new(3);
    let (rows, labels) = synth::sample(&pr, 1600, 0.0, 0.0, &mut rng);
    let (test, test_labels) = synth::sample(&pr, 2000, 0.0, 0.0, &mut rng);
    let f = Fringe::learn(&synth::boolean_inputs(32), &rows, &labels, 2, &Params::default(), 3).unwrap();
    assert_eq!(error(&f, f.tree(), &test, &test_labels), 0, "FRINGE is exact on mult11");
    assert!(error(&f, f.plain_tree(), &test, &test_labels) > 20, "the plain tree is not");
    assert!(f.tree().decision_nodes() < f.plain_tree().decision_nodes() / 4);
    assert_eq!(f.stop, Stop::NoNewFeature);
    // Exact on every one of the 2^11 settings of the relevant bits (irrelevant ones at 0).
    for r in 0..1 << 11 {
        let x: Vec<i32> = (0..32).map(|i| i32::from(i < 11 && r >> i & 1 == 1)).collect();
        let b: Vec<bool> = x.iter().map(|&v| v == 1).collect();
        assert_eq!(f.predict(&x), usize::from(pr.target.eval(&b)));
    }
}

#[test]
fn dnf4_final_tree_has_one_node_per_term() {
    let pr = problem("dnf4");
    assert_eq!(synth::sample_size(pr.target.literals(), pr.n_attrs, 10), 1980, "formula (1) for dnf4");
    let mut rng = Rng::new(0);
    let (rows, labels) = synth::sample(&pr, 1980, 0.0, 0.0, &mut rng);
    let (test, test_labels) = synth::sample(&pr, 2000, 0.0, 0.0, &mut rng);
    let f = Fringe::learn(&synth::boolean_inputs(64), &rows, &labels, 2, &Params::default(), 0).unwrap();
    assert_eq!(error(&f, f.tree(), &test, &test_labels), 0);
    assert_eq!(f.tree().decision_nodes(), pr.target.terms());
    assert!(error(&f, f.plain_tree(), &test, &test_labels) > 200);
    // The first iteration only sees primitive variables.
    assert!(f
        .plain_tree()
        .tested_variables()
        .iter()
        .all(|&v| matches!(f.variables[v], Variable::Primitive(_))));
}

#[test]
fn random_baseline_adds_features_but_does_not_learn_dnf4() {
    let pr = problem("dnf4");
    let mut rng = Rng::new(1);
    let (rows, labels) = synth::sample(&pr, 1980, 0.0, 0.0, &mut rng);
    let (test, test_labels) = synth::sample(&pr, 2000, 0.0, 0.0, &mut rng);
    let p = Params { proposal: Proposal::Random, max_iterations: 8, ..Params::default() };
    let f = Fringe::learn(&synth::boolean_inputs(64), &rows, &labels, 2, &p, 1).unwrap();
    assert!(f.variables.len() > 64 + 20, "{} variables", f.variables.len());
    assert!(error(&f, f.tree(), &test, &test_labels) > 200);
    // The paper's schedule: the same number of variables as a FRINGE run at every iteration.
    let fr = Fringe::learn(&synth::boolean_inputs(64), &rows, &labels, 2, &Params::default(), 1).unwrap();
    let schedule: Vec<usize> = fr.iterations.iter().map(|it| it.new_features).collect();
    let rs = Fringe::learn_random_schedule(
        &synth::boolean_inputs(64),
        &rows,
        &labels,
        2,
        &Params::default(),
        1,
        &schedule,
    )
    .unwrap();
    let vars = |f: &Fringe| f.iterations.iter().map(|it| it.variables).collect::<Vec<_>>();
    assert_eq!(vars(&rs), vars(&fr));
    assert_eq!(error(&fr, fr.tree(), &test, &test_labels), 0);
    assert!(error(&rs, rs.tree(), &test, &test_labels) > 200);
}

#[test]
fn exported_models_agree_with_the_runtime_on_nested_features() {
    // par4 and mult11 produce features with negated compound operands: several runtime nodes.
    for name in ["par4", "mult11", "dnf3"] {
        let pr = problem(name);
        let mut rng = Rng::new(11);
        let (rows, labels) = synth::sample(&pr, 1500, 0.0, 0.0, &mut rng);
        let (test, _) = synth::sample(&pr, 500, 0.0, 0.0, &mut rng);
        let data = categorical_data(&vec![2; pr.n_attrs], &rows, &labels, 2);
        let trained = train_and_check(&data, &Params::default(), &test);
        assert!(trained.train_accuracy > 0.99, "{name}: {}", trained.train_accuracy);
        // Constructed tests are chains of tests on raw inputs: no unit, no feature table.
        let Structure::Tree(nodes) = &trained.spec.structure else { panic!("a tree") };
        let model = ltu_runtime::Model::from_bytes(&trained.bytes).unwrap();
        assert!(trained.spec.units.is_empty() && model.repr().features.is_empty(), "{name}");
        assert!(nodes.iter().all(|n| matches!(n, Node::Class(_) | Node::Categorical { .. })), "{name}");
        // A chain's nodes share its "fails" exit: some node has two parents.
        let mut parents = vec![0; nodes.len()];
        for n in nodes {
            if let Node::Categorical { children, default, .. } = n {
                let mut kids: Vec<usize> = children.iter().copied().chain([*default]).collect();
                kids.sort_unstable();
                kids.dedup();
                kids.iter().for_each(|&k| parents[k] += 1);
            }
        }
        assert!(parents.iter().any(|&p| p >= 2), "{name}: constructed tests");
    }
}

#[test]
fn cnf_dual_learns_a_cnf_target() {
    // (x0 ∨ x1) ∧ (x2 ∨ ¬x3) ∧ (x4 ∨ x5 ∨ x6) over 16 attributes.
    let n = 16;
    let target = |x: &[i32]| (x[0] == 1 || x[1] == 1) && (x[2] == 1 || x[3] == 0) && (x[4] + x[5] + x[6] > 0);
    let mut rng = Rng::new(5);
    let sample = |m: usize, rng: &mut Rng| {
        let rows: Vec<Vec<i32>> = (0..m).map(|_| (0..n).map(|_| rng.below(2) as i32).collect()).collect();
        let labels = rows.iter().map(|x| usize::from(target(x))).collect::<Vec<_>>();
        (rows, labels)
    };
    let (rows, labels) = sample(1500, &mut rng);
    let (test, test_labels) = sample(2000, &mut rng);
    let p = Params { rule: FeatureRule::Cnf, ..Params::default() };
    let f = Fringe::learn(&synth::boolean_inputs(n), &rows, &labels, 2, &p, 5).unwrap();
    assert_eq!(error(&f, f.tree(), &test, &test_labels), 0);
    assert!(f.variables.iter().any(|v| matches!(v, Variable::Or(..))));
    assert!(f.tree().decision_nodes() <= 4, "{}", f.tree().decision_nodes());
    let data = categorical_data(&vec![2; n], &rows, &labels, 2);
    train_and_check(&data, &p, &test);
}

#[test]
fn symmetric_rule_handles_several_classes_and_many_valued_attributes() {
    // Class = which of three conjunctions over 4-valued attributes holds first, else class 3.
    let mut rng = Rng::new(9);
    let rows: Vec<Vec<i32>> = (0..2000).map(|_| (0..8).map(|_| rng.below(4) as i32).collect()).collect();
    let labels: Vec<usize> = rows
        .iter()
        .map(|x| {
            if x[0] == 1 && x[1] == 2 {
                0
            } else if x[2] == 3 && x[3] != 0 {
                1
            } else if x[4] == 0 && x[5] == 0 {
                2
            } else {
                3
            }
        })
        .collect();
    let data = categorical_data(&[4; 8], &rows, &labels, 4);
    let trained = train_and_check(&data, &Params::default(), &[]);
    // Not exactly 1: reduced-error pruning on the held-out third may cut a branch that only a
    // few rows reach (3 of the 2000 here).
    assert!(trained.train_accuracy >= 0.998, "{}", trained.train_accuracy);
    let ctx = Context::new(&data, 7, None);
    let f = Fringe::learn(&ctx.inputs, &ctx.raw, ctx.labels(), 4, &Params::default(), 7).unwrap();
    assert!(f.variables.len() > f.iterations[0].variables, "the symmetric rule adds features");
    assert!(f.tree().decision_nodes() < f.plain_tree().decision_nodes());
}

#[test]
fn continuous_attributes_become_threshold_variables() {
    // (a > 50 ∧ b > 30) ∨ (c <= 20 ∧ d > 70), values 0..100 with one decimal.
    let mut rng = Rng::new(4);
    let n = 3000;
    let rows: Vec<Vec<f64>> =
        (0..n).map(|_| (0..6).map(|_| rng.below(1000) as f64 / 10.0).collect()).collect();
    let labels: Vec<usize> = rows
        .iter()
        .map(|x| usize::from((x[0] > 50.0 && x[1] > 30.0) || (x[2] <= 20.0 && x[3] > 70.0)))
        .collect();
    let attributes = (0..6)
        .map(|i| Attribute { name: format!("a{i}"), kind: AttrKind::Numeric { decimals: 1 } })
        .collect();
    let data = Dataset {
        schema: Schema { attributes, classes: vec!["no".into(), "yes".into()] },
        x: rows.iter().flatten().copied().collect(),
        y: labels,
        source: "test".into(),
    };
    let p = Params { numeric_thresholds: 64, ..Params::default() };
    let trained = train_and_check(&data, &p, &[]);
    assert!(trained.train_accuracy > 0.97, "{}", trained.train_accuracy);
    let Structure::Tree(nodes) = &trained.spec.structure else { panic!("a tree") };
    // Two conjunctions of two thresholds each, as chains of threshold nodes (11 when written).
    assert!(trained.spec.stats().decision_nodes <= 12, "{:?}", trained.spec.stats());
    assert!(trained.spec.units.is_empty());
    assert!(nodes.iter().all(|n| matches!(n, Node::Class(_) | Node::Threshold { .. })));
}

/// A numeric dataset (integer values) with attribute names `a0`, `a1`, ...
fn numeric_data(rows: &[Vec<i32>], labels: &[usize], n_classes: usize) -> Dataset {
    let attributes = (0..rows[0].len())
        .map(|i| Attribute { name: format!("a{i}"), kind: AttrKind::Numeric { decimals: 0 } })
        .collect();
    dataset(attributes, rows, labels, n_classes)
}

#[test]
fn thresholds_sit_at_class_boundaries_and_ties_take_the_widest_margin() {
    // Both attributes split the classes alike (a0 <= 95 and a1 <= 9 hold the class-0 rows):
    // a1's gap (9 to 40) is 1.5 of its standard deviations, a0's (95 to 110) 0.6. The tree splits
    // on a1, the second column, halfway across its gap, and no threshold lies inside a run of
    // one class.
    let rows: Vec<Vec<i32>> =
        (0..20).map(|i| if i < 10 { vec![5 * i + 50, i] } else { vec![100 + i, 30 + i] }).collect();
    let labels: Vec<usize> = (0..20).map(|i| usize::from(i >= 10)).collect();
    let data = numeric_data(&rows, &labels, 2);
    let trained = train_and_check(&data, &Params::default(), &[vec![0, 19], vec![0, 20]]);
    assert_eq!(thresholds(&trained), [(1, 24)], "a1 <= 24, halfway between 9 and 40 (rounded down)");
    let ctx = Context::new(&data, 7, None);
    let learned =
        Fringe::learn(&ctx.inputs, &ctx.raw, ctx.labels(), 2, &Params::default(), 7).expect("learn");
    // One boundary per attribute, not a cut between every pair of values; and the two split the
    // rows alike, so only a1's stays.
    assert_eq!(learned.iterations[0].variables, 1, "{:?}", learned.variables);
}

/// The `(attribute, threshold)` of every threshold node of a tree model.
fn thresholds(trained: &learn::Trained) -> Vec<(usize, i32)> {
    let Structure::Tree(nodes) = &trained.spec.structure else { panic!("a tree") };
    nodes
        .iter()
        .filter_map(|n| match n {
            Node::Threshold { attr, threshold, .. } => Some((*attr, *threshold)),
            _ => None,
        })
        .collect()
}

#[test]
fn a_node_splits_on_the_widest_margin_among_equally_good_variables() {
    // Class 1 only where a2 = 1 and, there, a0 > 4 and a1 > 4 alike. Over all rows a0 and a1
    // split differently (filler rows of class 0 put a0 high and a1 low, or the reverse), so both
    // stay variables and the root splits on a2. Below it both separate the classes: a0 by a gap
    // of 1 (a third of its standard deviation), a1 by a gap of 96 (two of its). The node takes
    // a1, the second column; the first in column order would be a0.
    let mut rows = Vec::new();
    let mut labels = Vec::new();
    for i in 0..5 {
        rows.extend([vec![i, i, 1], vec![5 + i, 100 + i, 1]]);
        labels.extend([0, 1]);
        for _ in 0..2 {
            rows.extend([vec![5 + i, i, 0], vec![i, 100 + i, 0]]);
            labels.extend([0, 0]);
        }
    }
    let data = numeric_data(&rows, &labels, 2);
    let trained = train_and_check(&data, &Params::default(), &[vec![9, 50, 1], vec![0, 60, 1]]);
    let t = thresholds(&trained);
    assert!(t.contains(&(1, 52)), "a1 <= 52, halfway between 4 and 100: {t:?}");
    assert!(t.iter().all(|&(attr, _)| attr != 0), "{t:?}");
}

#[test]
fn same_seed_same_model() {
    let pr = problem("dnf3");
    let (rows, labels) = synth::sample(&pr, 800, 0.05, 0.0, &mut Rng::new(2));
    let data = categorical_data(&vec![2; pr.n_attrs], &rows, &labels, 2);
    let a = train_and_check(&data, &Params::default(), &[]);
    let b = train_and_check(&data, &Params::default(), &[]);
    assert_eq!(a.bytes, b.bytes);
}

#[test]
fn check_rejects_bad_params_and_data() {
    assert!(Params::default().check().is_ok());
    let bad = [
        Params { prune_fraction: Some(0.95), ..Params::default() },
        Params { prune_fraction: Some(-0.1), ..Params::default() },
        Params { max_variables: 0, ..Params::default() },
        Params { max_iterations: 0, ..Params::default() },
        Params { numeric_thresholds: 0, ..Params::default() },
    ];
    for p in &bad {
        let e = p.check().expect_err("rejected");
        assert!(matches!(e, learn::TrainError::InvalidOption(_)), "{e}");
    }
    let inputs = synth::boolean_inputs(2);
    let rows = vec![vec![0, 1], vec![1, 0]];
    let ok = Params::default();
    assert!(Fringe::learn(&inputs, &rows, &[0], 2, &ok, 0).is_err(), "labels ≠ rows");
    assert!(Fringe::learn(&inputs, &rows, &[0, 2], 2, &ok, 0).is_err(), "label out of range");
    assert!(Fringe::learn(&inputs, &[vec![0], vec![1]], &[0, 1], 2, &ok, 0).is_err(), "short rows");
    assert!(Fringe::learn(&inputs, &[], &[], 2, &ok, 0).is_err(), "no rows");
    let dnf_bad = Params { rule: FeatureRule::Dnf, positive_class: 2, ..Params::default() };
    assert!(Fringe::learn(&inputs, &rows, &[0, 1], 2, &dnf_bad, 0).is_err(), "positive class");
    assert!(Fringe::learn(&inputs, &rows, &[0, 1], 2, &bad[0], 0).is_err(), "params checked");
}

#[test]
fn sample_size_and_targets() {
    assert_eq!(synth::sample_size(33, 64, 10), 1980);
    assert_eq!(Target::Parity(4).literals(), 32);
    assert_eq!(Target::Multiplexor { address: 3 }.literals(), 32);
    assert_eq!(Target::Majority(11).terms(), 462);
    let mult = Target::Multiplexor { address: 3 };
    // Address 101 = 5 selects data bit 3 + 5 = 8.
    let mut x = vec![false; 11];
    x[0] = true;
    x[2] = true;
    assert!(!mult.eval(&x));
    x[8] = true;
    assert!(mult.eval(&x));
    for pr in synth::problems() {
        if let Target::Dnf(terms) = &pr.target {
            assert!(terms.iter().flatten().all(|&(a, _)| a < pr.n_attrs));
        }
    }
}

#[test]
fn class_noise_is_pruned() {
    // Reduced-error pruning (the paper's) keeps the noisy plain tree much smaller than the
    // unpruned one; error-based pruning (the default) is more cautious (C4.5's estimate on the
    // growing rows themselves) but still removes a third.
    let pr = problem("dnf2");
    let (rows, labels) = synth::sample(&pr, 2000, 0.1, 0.0, &mut Rng::new(8));
    let inputs = synth::boolean_inputs(pr.n_attrs);
    let one =
        |p: Params| Fringe::learn(&inputs, &rows, &labels, 2, &Params { max_iterations: 1, ..p }, 8).unwrap();
    let reduced = one(Params::paper());
    let pessimistic = one(Params::default());
    let unpruned = one(Params { prune_z: 0.0, ..Params::default() });
    assert_eq!(reduced.stop, Stop::MaxIterations);
    assert!(reduced.tree().decision_nodes() * 3 < unpruned.tree().decision_nodes());
    assert!(
        pessimistic.tree().decision_nodes() * 3 < unpruned.tree().decision_nodes() * 2,
        "{} vs {}",
        pessimistic.tree().decision_nodes(),
        unpruned.tree().decision_nodes()
    );
}

#[test]
fn a_byte_cap_keeps_the_most_accurate_tests_that_fit() {
    // A noisy plain tree cut to fewer bytes of tests: every cap is honoured, a smaller cap
    // never keeps more, and the cut tree fits its growing rows at least as well as the tree a
    // depth limit leaves at about the same size (a depth limit cuts every branch alike).
    let pr = problem("dnf2");
    let (rows, labels) = synth::sample(&pr, 2000, 0.1, 0.0, &mut Rng::new(8));
    let inputs = synth::boolean_inputs(pr.n_attrs);
    let plain = Params { max_iterations: 1, prune_fraction: Some(0.0), prune_z: 0.0, ..Params::default() };
    let one = |p: Params| Fringe::learn(&inputs, &rows, &labels, 2, &p, 8).unwrap();
    let full = one(plain.clone());
    let mut last = full.tree().decision_nodes();
    for cap in [240.0, 120.0, 60.0, 24.0, 12.0, 11.0] {
        let cut = one(Params { max_test_bytes: Some(cap), ..plain.clone() });
        let tests = cut.tree().decision_nodes();
        // A test of a boolean attribute costs 12 bytes (`x == 1` on two values).
        assert!(tests as f64 * 12.0 <= cap, "{tests} tests under a cap of {cap}");
        assert!(tests <= last, "cap {cap}: {tests} > {last}");
        last = tests;
        if let Some(depth) = (0..12).find(|&d| {
            one(Params { max_depth: Some(d + 1), ..plain.clone() }).tree().decision_nodes() > tests
        }) {
            let shallow = one(Params { max_depth: Some(depth), ..plain.clone() });
            assert!(shallow.tree().decision_nodes() <= tests);
            assert!(
                error(&cut, cut.tree(), &rows, &labels) <= error(&shallow, shallow.tree(), &rows, &labels),
                "cap {cap}"
            );
        }
    }
    assert_eq!(last, 0, "below one test's bytes the tree is a leaf");
}

/// A random data set: categorical attributes of 2..=20 values (some above the 12 that get a
/// `Categorical` node), numeric ones with one decimal, missing cells, and labels from a random
/// rule with 5% noise over `n_classes`.
fn random_data(seed: u64, n_classes: usize) -> Dataset {
    let mut rng = Rng::new(seed);
    let n_attrs = 3 + rng.below(6);
    let kinds: Vec<Option<usize>> =
        (0..n_attrs).map(|_| if rng.below(3) == 0 { None } else { Some(2 + rng.below(19)) }).collect();
    let n_rows = 150 + rng.below(400);
    let mut x = Vec::new();
    let mut y = Vec::new();
    for _ in 0..n_rows {
        let row: Vec<f64> = kinds
            .iter()
            .map(|k| match k {
                _ if rng.below(40) == 0 => f64::NAN,
                Some(n) => rng.below(*n) as f64,
                None => (rng.below(2000) as f64 - 1000.0) / 10.0,
            })
            .collect();
        let v = |a: usize| if row[a].is_nan() { 0.0 } else { row[a] };
        let class =
            if (v(0) > 1.0 && v(1) < 3.0) || v(2) == 1.0 { 0 } else { 1 + (v(1) as usize) % (n_classes - 1) };
        let class = if rng.below(20) == 0 { rng.below(n_classes) } else { class };
        x.extend(row);
        y.push(class);
    }
    let attributes = kinds
        .iter()
        .enumerate()
        .map(|(i, k)| Attribute {
            name: format!("a{i}"),
            kind: match k {
                Some(n) => AttrKind::Categorical { values: (0..*n).map(|v| format!("v{v}")).collect() },
                None => AttrKind::Numeric { decimals: 1 },
            },
        })
        .collect();
    Dataset {
        schema: Schema { attributes, classes: (0..n_classes).map(|c| format!("c{c}")).collect() },
        x,
        y,
        source: format!("random seed {seed}"),
    }
}

#[test]
fn runtime_agrees_on_random_data_every_rule() {
    let rules = [
        (FeatureRule::Auto, Proposal::Fringe),
        (FeatureRule::Dnf, Proposal::Fringe),
        (FeatureRule::Cnf, Proposal::Fringe),
        (FeatureRule::Symmetric, Proposal::Fringe),
        (FeatureRule::Auto, Proposal::Random),
    ];
    let mut chained = 0;
    for seed in 0..24u64 {
        let n_classes = 2 + (seed as usize % 3);
        let data = random_data(seed, n_classes);
        let (rule, proposal) = rules[seed as usize % rules.len()];
        let p = Params { rule, proposal, numeric_thresholds: 8, ..Params::default() };
        // Extra rows: random raw values, including unknown categories and far-out numbers.
        let ctx = Context::new(&data, 7, None);
        let mut rng = Rng::new(seed + 1000);
        let extra: Vec<Vec<i32>> = (0..300)
            .map(|_| {
                ctx.inputs
                    .iter()
                    .map(|inp| match inp.kind {
                        ltu::model::InputKind::Categorical { n_values } => {
                            rng.below(usize::from(n_values) + 2) as i32
                        }
                        ltu::model::InputKind::Numeric { .. } => rng.below(4000) as i32 - 2000,
                    })
                    .collect()
            })
            .collect();
        let trained = train_and_check(&data, &p, &extra);
        assert!(trained.train_accuracy > 0.5, "seed {seed}: {}", trained.train_accuracy);
        let f = Fringe::learn(&ctx.inputs, &ctx.raw, ctx.labels(), n_classes, &p, 7).unwrap();
        if trained.spec.stats().decision_nodes > f.tree().decision_nodes() {
            chained += 1;
        }
    }
    assert!(chained > 0, "some feature needed a chain of runtime nodes");
}

/// Sections 4–5, Figures 1 and 2: x1·x2 + x3·x4·x5 (here x0·x1 + x2·x3·x4). The first tree
/// replicates the second term under the first; find-feature proposes x0·x1 and x3·x4 (the paper:
/// "x4·x5, x4·x5, x1·x2"); later iterations reach a tree of two decision nodes, one per term.
#[test]
fn figure_1_features_and_figure_2_tree() {
    let rows: Vec<Vec<i32>> = (0..32 * 4).map(|r: i32| (0..5).map(|i| (r >> i) & 1).collect()).collect();
    let labels: Vec<usize> =
        rows.iter().map(|x| usize::from(x[0] & x[1] == 1 || x[2] & x[3] & x[4] == 1)).collect();
    let p = Params { prune_fraction: Some(0.0), prune_z: 0.0, ..Params::default() };
    let f = Fringe::learn(&synth::boolean_inputs(5), &rows, &labels, 2, &p, 0).unwrap();
    assert!(f.plain_tree().decision_nodes() > 5, "replication: {}", f.plain_tree().decision_nodes());
    let first: Vec<String> =
        (f.iterations[0].variables..f.iterations[1].variables).map(|v| f.describe(v)).collect();
    assert!(first.contains(&"x0 ∧ x1".to_string()), "{first:?}");
    assert!(first.contains(&"x3 ∧ x4".to_string()), "{first:?}");
    assert_eq!(f.tree().decision_nodes(), 2);
    assert!(rows.iter().zip(&labels).all(|(x, &y)| f.predict(x) == y));
}

/// The learner contract: `learner::fit::<FringeLearner>` checks, fits, reports with the data's
/// names and gives the same model as `fringe::train`.
#[test]
fn learner_contract_reports_named_tests() {
    let n = 12;
    let mut rng = Rng::new(3);
    let rows: Vec<Vec<i32>> = (0..3000).map(|_| (0..n).map(|_| rng.below(2) as i32).collect()).collect();
    let labels: Vec<usize> =
        rows.iter().map(|x| usize::from(x[0] & x[1] & x[2] == 1 || x[3] & (1 - x[4]) & x[5] == 1)).collect();
    let data = categorical_data(&vec![2; n], &rows, &labels, 2);
    let ctx = Context::new(&data, 3, None);
    let fit = ltu::learn::fit::<fringe::FringeLearner>(&ctx, &Params::default()).expect("fit");
    assert_eq!(fit.spec, fringe::train(&ctx, &Params::default()).unwrap());
    let report = &fit.report;
    assert_eq!(report.stop, Stop::NoNewFeature, "{report:?}");
    assert_eq!(report.decision_nodes, 2, "{report:?}");
    let tests = &report.tests;
    assert!(tests.iter().all(|t| t.contains("x0=v1") || t.contains("x3=v1")), "{tests:?}");
    let trained = learn::finish(fit.spec, &ctx, true).unwrap();
    assert_eq!(trained.train_accuracy, 1.0);
    let bad = Params { rule: FeatureRule::Dnf, positive_class: 5, ..Params::default() };
    assert!(ltu::learn::fit::<fringe::FringeLearner>(&ctx, &bad).is_err());
}

#[test]
fn max_variables_and_max_iterations_stop_the_iteration() {
    let pr = problem("dnf4");
    let (rows, labels) = synth::sample(&pr, 1980, 0.0, 0.0, &mut Rng::new(0));
    let inputs = synth::boolean_inputs(64);
    let p = Params { max_variables: 70, ..Params::default() };
    let f = Fringe::learn(&inputs, &rows, &labels, 2, &p, 0).unwrap();
    assert_eq!(f.stop, Stop::MaxVariables);
    assert_eq!(f.variables.len(), 70);
    assert_eq!(f.iterations.len(), 2, "one tree after the cap is reached");
    // Fewer allowed variables than primitives: nothing is dropped, the plain tree is final.
    let p = Params { max_variables: 10, ..Params::default() };
    let f = Fringe::learn(&inputs, &rows, &labels, 2, &p, 0).unwrap();
    assert_eq!((f.stop, f.variables.len(), f.iterations.len()), (Stop::MaxVariables, 64, 1));
    let p = Params { max_iterations: 3, ..Params::default() };
    let f = Fringe::learn(&inputs, &rows, &labels, 2, &p, 0).unwrap();
    assert_eq!((f.stop, f.iterations.len()), (Stop::MaxIterations, 3));
    assert!(f.iterations[..2].iter().all(|it| it.new_features > 0));
}

#[test]
fn one_class_data_gives_a_single_leaf() {
    let rows = vec![vec![0, 1, 2], vec![1, 1, 0], vec![1, 0, 1]];
    let data = categorical_data(&[2, 2, 3], &rows, &[1, 1, 1], 2);
    let trained = train_and_check(&data, &Params::default(), &[vec![3, 3, 3]]);
    assert_eq!(trained.spec.structure, Structure::Tree(vec![Node::Class(1)]));
    let single = categorical_data(&[2, 2, 3], &rows[..1], &[0], 1);
    let trained = train_and_check(&single, &Params::default(), &[]);
    assert_eq!(trained.spec.structure, Structure::Tree(vec![Node::Class(0)]));
}

/// The default prunes on the learning rows themselves up to `HOLD_OUT_PRUNING_ROWS` and holds
/// out the paper's third above; an explicit fraction (the paper's, or 0) applies at any size.
/// The oblique tree follows the same rule with a quarter.
#[test]
fn default_pruning_depends_on_the_number_of_rows() {
    let limit = ltu::data::split::HOLD_OUT_PRUNING_ROWS;
    let d = Params::default();
    assert_eq!(d.prune_fraction_for(limit), 0.0);
    assert_eq!(d.prune_fraction_for(limit + 1), 1.0 / 3.0);
    assert_eq!(Params::paper().prune_fraction_for(10), 1.0 / 3.0);
    assert_eq!(Params { prune_fraction: Some(0.0), ..d }.prune_fraction_for(10 * limit), 0.0);
    let o = ltu::learners::oblique::Params::default();
    assert_eq!((o.prune_fraction_for(limit), o.prune_fraction_for(limit + 1)), (0.0, 0.25));
    // Through learning: a held-out third of 12,000 rows is reported as pruning rows.
    let pr = problem("dnf2");
    let (rows, labels) = synth::sample(&pr, limit + 2_000, 0.05, 0.0, &mut Rng::new(3));
    let p = Params { max_iterations: 1, ..Params::default() };
    let f = Fringe::learn(&synth::boolean_inputs(pr.n_attrs), &rows, &labels, 2, &p, 3).unwrap();
    assert_eq!(f.prune_rows, 4_000);
}

#[test]
fn chains_tested_in_order_of_the_training_rows_cost_less_and_predict_the_same() {
    // dnf4's features are conjunctions of several literals: the order of a chain's tests matters.
    let pr = problem("dnf4");
    let mut rng = Rng::new(5);
    let (rows, labels) = synth::sample(&pr, 2000, 0.0, 0.0, &mut rng);
    let f =
        Fringe::learn(&synth::boolean_inputs(pr.n_attrs), &rows, &labels, 2, &Params::default(), 5).unwrap();
    let sorted = f.to_model_spec().unwrap();
    let ordered = f.to_model_spec_for(&rows).unwrap();
    assert_eq!(sorted.stats().decision_nodes, ordered.stats().decision_nodes, "the same tests");
    for x in &rows {
        assert_eq!(ordered.predict(x), sorted.predict(x));
        assert_eq!(ordered.predict(x), f.predict(x));
    }
    let (a, b) = (sorted.row_cost(&rows).mean_essential_work, ordered.row_cost(&rows).mean_essential_work);
    assert!(b < a, "ordered {b} vs sorted {a}");
}

/// car's FRINGE tree exported as chains of one-literal tests repeats tests its paths decided
/// (`lug_boot = small` right below the node that found it small); `learn::finish` reduces the
/// tree (`ltu::model`) to fewer nodes that predict the same for every input, and the model it
/// returns holds the reduced tree's tests.
#[test]
fn exported_trees_lose_the_tests_their_paths_decided() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/car.csv");
    let data = ltu::data::load(&path, &ltu::data::LoadOptions::default()).expect("car.csv");
    let ctx = Context::new(&data, 0, None);
    let spec = fringe::train(&ctx, &Params::default()).expect("train");
    let count = |s: &ltu::model::ModelSpec| match &s.structure {
        Structure::Tree(nodes) => nodes.len(),
        _ => unreachable!("FRINGE exports trees"),
    };
    let mut reduced = spec.clone();
    let removed = ltu::model::reduce_tree(&mut reduced);
    assert!(removed * 5 >= count(&spec), "{removed} of {} nodes removed", count(&spec));
    assert_eq!(count(&reduced) + removed, count(&spec));
    // Every combination of values, one out of range included, predicts alike.
    let values: Vec<Vec<i32>> = ctx
        .inputs
        .iter()
        .map(|i| match i.kind {
            ltu::model::InputKind::Categorical { n_values } => (-1..=i32::from(n_values)).collect(),
            ltu::model::InputKind::Numeric { .. } => unreachable!("car is categorical"),
        })
        .collect();
    // The file stores the reduced tree; its layout places a leaf next to each test that falls
    // to it, so the decoded tree holds the reduced tree's tests and copies of its leaves.
    let trained = learn::finish(spec.clone(), &ctx, false).expect("finish");
    let tests = |s: &ltu::model::ModelSpec| match &s.structure {
        Structure::Tree(nodes) => nodes.iter().filter(|n| !matches!(n, Node::Class(_))).count(),
        _ => unreachable!("FRINGE exports trees"),
    };
    assert_eq!(tests(&trained.spec), tests(&reduced));
    let mut x = vec![0; values.len()];
    let mut checked = 0;
    let mut idx = vec![0usize; values.len()];
    loop {
        for (k, &i) in idx.iter().enumerate() {
            x[k] = values[k][i];
        }
        assert_eq!(spec.predict(&x), reduced.predict(&x), "{x:?}");
        assert_eq!(trained.spec.predict(&x), reduced.predict(&x), "{x:?}");
        checked += 1;
        let Some(k) = (0..idx.len()).find(|&k| idx[k] + 1 < values[k].len()) else { break };
        idx[k] += 1;
        idx[..k].iter_mut().for_each(|i| *i = 0);
    }
    assert!(checked > 10_000);
    assert_eq!(ltu::model::reduce_tree(&mut reduced.clone()), 0);
}

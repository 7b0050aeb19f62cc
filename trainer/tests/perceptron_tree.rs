//! Perceptron trees through the public API: the reproduction of Utgoff (1989) section 4.3,
//! linear separability, multi-class sanity, determinism, and agreement between the learner's own
//! prediction and the exported `ModelSpec` on the reference data sets.

use std::path::PathBuf;

use ltu::data::{self, Dataset, LoadOptions};
use ltu::learn::Context;
use ltu::learners::perceptron_tree::{
    self, FeatureSpace, LeafFit, LogBase, Order, Params, PerceptronTree, SplitChoice, SplitRule,
};
use ltu::model::{Node, Structure};

fn load(name: &str, categorical: &[&str]) -> Dataset {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data").join(name);
    let opts = LoadOptions {
        categorical: categorical.iter().map(|s| s.to_string()).collect(),
        ..LoadOptions::default()
    };
    data::load(&path, &opts).unwrap_or_else(|e| panic!("{name}: {e}"))
}

const MONKS: [&str; 6] = ["a1", "a2", "a3", "a4", "a5", "a6"];

/// The 16 instances of section 4.3 in order: `(a, b, c, d)` counted in binary, `a` most
/// significant, false (0) first.
fn xor_instances() -> Vec<([i32; 4], usize)> {
    (0..16)
        .map(|i| {
            let r = [(i >> 3) & 1, (i >> 2) & 1, (i >> 1) & 1, i & 1];
            (r, usize::from(((r[0] | r[1]) ^ (r[2] & r[3])) == 1))
        })
        .collect()
}

/// Section 4.3: (a ∨ b) ⊕ (c ∧ d), the 16 instances presented cyclically in order, the
/// procedure applied while the tree misclassifies any of them.
#[test]
fn reproduces_section_4_3() {
    let data = xor_instances();
    let mut tree = PerceptronTree::new(FeatureSpace::categorical(&[2; 4]), 2, &Params::paper());
    let consistent = |t: &PerceptronTree| data.iter().all(|(x, y)| t.predict(x) == *y);
    let mut n = 0;
    while !consistent(&tree) {
        assert!(n < 10_000, "not consistent after {n} instances:\n{tree}");
        let (x, y) = &data[n % 16];
        tree.update(x, *y);
        n += 1;
    }
    let h = tree.history();
    let stats = tree.stats();
    println!("consistent after instance {n}; splits at {:?}\n{tree}", &h.split_at[..h.splits as usize]);
    // The paper's final tree: two decision nodes and three LTUs (ID3 needs eight decision nodes).
    assert_eq!((stats.decision_nodes, stats.ltus, stats.missing_branches), (2, 3, 0), "{tree}");
    assert_eq!(h.splits, 2);
    // Our figures (the paper reports 34, 60 and 94; see docs/PERCEPTRON_TREE.md).
    assert_eq!((h.split_at[0], h.split_at[1], n), (40, 68, 81));
    // A single LTU cannot represent the concept: the root must have split.
    let spec = tree.to_model_spec();
    let Structure::Tree(nodes) = &spec.structure else { panic!("not a tree") };
    assert!(matches!(nodes[0], Node::Categorical { .. }));
    for (x, y) in &data {
        assert_eq!(spec.predict(x), *y);
    }
}

/// The same concept under every option of the progress test, with and without the pocket, still
/// ends consistent.
#[test]
fn section_4_3_is_learned_under_every_split_option() {
    let data = xor_instances();
    let rows: Vec<Vec<i32>> = data.iter().map(|(x, _)| x.to_vec()).collect();
    let labels: Vec<usize> = data.iter().map(|(_, y)| *y).collect();
    for log_base in [LogBase::E, LogBase::Two, LogBase::Ten] {
        for pocket in [false, true] {
            let p = Params { log_base, pocket, ..Params::paper() };
            let mut tree = PerceptronTree::new(FeatureSpace::categorical(&[2; 4]), 2, &p);
            tree.fit(&rows, &labels, &p, 0, &|_, _| {});
            assert!(tree.is_consistent(&rows, &labels), "{p:?}\n{tree}");
            assert!(tree.stats().decision_nodes >= 1, "{p:?}: a single LTU cannot be consistent");
        }
    }
}

/// Corollary 1 is exact but conservative: on a ⊕ b (4 instances) the weight ranges stay small
/// enough for the bound to be exceeded, which proves non-separability and splits the root.
#[test]
fn corollary_1_detects_xor() {
    let rows: Vec<Vec<i32>> = (0..4).map(|i| vec![i & 1, i >> 1]).collect();
    let labels: Vec<usize> = rows.iter().map(|r| (r[0] ^ r[1]) as usize).collect();
    let p = Params { split_rule: SplitRule::Corollary1, ..Params::paper() };
    let mut tree = PerceptronTree::new(FeatureSpace::categorical(&[2; 2]), 2, &p);
    tree.fit(&rows, &labels, &p, 0, &|_, _| {});
    assert!(tree.is_consistent(&rows, &labels), "{tree}");
    assert_eq!(tree.history().splits, 1, "{tree}");
}

/// Majority of 5 out of 9 boolean attributes is linearly separable: the root LTU converges
/// (perceptron convergence theorem) and never splits, even under the aggressive progress test
/// — with Corollary 1, which only fires when the instances are provably not separable.
#[test]
fn linearly_separable_set_needs_no_split() {
    let n = 9;
    let rows: Vec<Vec<i32>> = (0..1 << n).map(|i: i32| (0..n).map(|b| (i >> b) & 1).collect()).collect();
    let labels: Vec<usize> = rows.iter().map(|r| usize::from(r.iter().sum::<i32>() >= 5)).collect();
    let p = Params { split_rule: SplitRule::Corollary1, ..Params::paper() };
    let mut tree = PerceptronTree::new(FeatureSpace::categorical(&[2; 9]), 2, &p);
    let epochs = tree.fit(&rows, &labels, &p, 1, &|_, _| {});
    assert!(tree.is_consistent(&rows, &labels), "not consistent after {epochs} epochs");
    let s = tree.stats();
    assert_eq!((s.decision_nodes, s.ltus), (0, 1), "{tree}");
    assert_eq!(tree.history().splits, 0);
}

/// Iris (numeric, three classes): linear machines at the leaves and threshold tests.
#[test]
fn iris_training_accuracy() {
    let data = load("iris.csv", &[]);
    let ctx = Context::new(&data, 7, None);
    // The perceptron's leaves: the default logistic refit makes iris one linear machine.
    let p = Params { prune_fraction: 0.0, leaf_fit: LeafFit::Perceptron, ..Params::default() };
    let spec = perceptron_tree::train(&ctx, &p).unwrap();
    let correct = ctx.raw.iter().zip(ctx.labels()).filter(|(x, y)| spec.predict(x) == **y).count();
    let acc = correct as f64 / ctx.raw.len() as f64;
    assert!(acc > 0.9, "training accuracy {acc}");
    assert!(
        spec.units.iter().all(|u| u.rows.len() == 3 || (u.rows.len() == 1 && u.classes.len() == 2)),
        "iris units are 3-row linear machines, or binary LTUs where one class never reached the leaf"
    );
    // The leaf that only setosa reaches is a constant, not a unit (compact_leaves, the default).
    let Structure::Tree(nodes) = &spec.structure else { panic!("not a tree") };
    assert!(nodes.iter().any(|n| matches!(n, Node::Class(_))), "a pure leaf is a constant class");
}

/// `compact_leaves` exports what the leaves need: constant leaves and fewer rows, never more
/// units or weights than without it, the same training accuracy or better; `--paper` keeps
/// every leaf an LTU over all classes.
#[test]
fn compact_leaves_shrink_models_without_losing_training_accuracy() {
    for name in ["iris.csv", "glass.csv", "car.csv", "vehicle.csv"] {
        let data = load(name, &[]);
        let ctx = Context::new(&data, 0, None);
        let accuracy = |spec: &ltu::model::ModelSpec| {
            ctx.raw.iter().zip(ctx.labels()).filter(|(x, y)| spec.predict(x) == **y).count()
        };
        // With the perceptron's weights (the logistic refit prunes iris to a single unit).
        let base = Params { leaf_fit: LeafFit::Perceptron, ..Params::default() };
        let full = perceptron_tree::train(&ctx, &Params { compact_leaves: false, ..base.clone() }).unwrap();
        let compact = perceptron_tree::train(&ctx, &base).unwrap();
        let weights =
            |s: &ltu::model::ModelSpec| s.units.iter().map(|u| u.rows.len() * u.terms.len()).sum::<usize>();
        assert!(compact.units.len() <= full.units.len(), "{name}");
        assert!(weights(&compact) < weights(&full), "{name}: {} vs {}", weights(&compact), weights(&full));
        assert!(accuracy(&compact) >= accuracy(&full), "{name}");
        let paper = perceptron_tree::train(&ctx, &Params { epochs: 5, ..Params::paper() }).unwrap();
        let Structure::Tree(nodes) = &paper.structure else { panic!("not a tree") };
        let leaves_are_units = nodes.iter().all(|n| !matches!(n, Node::Class(_)))
            || paper
                .units
                .iter()
                .all(|u| u.rows.len() == if data.n_classes() > 2 { data.n_classes() } else { 1 });
        assert!(leaves_are_units, "{name}: --paper leaves keep every class row");
    }
}

#[test]
fn same_seed_same_model() {
    for (name, cat) in
        [("iris.csv", &[][..]), ("house-votes-84.csv", &[][..]), ("monks-2_train.csv", &MONKS[..])]
    {
        let data = load(name, cat);
        for order in [Order::Shuffled, Order::Cyclic] {
            let p = Params { order, ..Params::default() };
            let a = perceptron_tree::train(&Context::new(&data, 11, None), &p).unwrap();
            let b = perceptron_tree::train(&Context::new(&data, 11, None), &p).unwrap();
            assert_eq!(a, b, "{name} {order:?}");
        }
        let c = perceptron_tree::train(&Context::new(&data, 12, None), &Params::default()).unwrap();
        let a = perceptron_tree::train(&Context::new(&data, 11, None), &Params::default()).unwrap();
        // A different seed shuffles differently; on these data that changes the model.
        assert_ne!(a, c, "{name}: seeds 11 and 12 gave the same model");
    }
}

/// The learner's own prediction equals the exported model's reference evaluator on every row,
/// over data sets with numeric, categorical, missing and multi-class data, several seeds and
/// option sets (pruning, pocket, depth limits, cyclic order).
#[test]
fn trainer_and_model_spec_agree() {
    let sets: [(&str, &[&str]); 8] = [
        ("iris.csv", &[]),
        ("house-votes-84.csv", &[]),
        ("car.csv", &[]),
        ("monks-1_train.csv", &MONKS),
        ("glass.csv", &[]),
        ("wine.csv", &[]),
        ("breast-cancer-wisconsin.csv", &[]),
        ("balance-scale.csv", &[]),
    ];
    let options = [
        Params::default(),
        Params { pocket: false, prune_fraction: 0.0, epochs: 10, ..Params::default() },
        Params {
            epochs: 5,
            order: Order::Cyclic,
            max_depth: 2,
            min_split: 0,
            numeric_bins: 4,
            ..Params::default()
        },
        Params { epochs: 3, ..Params::paper() },
    ];
    for (name, cat) in sets {
        let data = load(name, cat);
        for seed in [0u64, 1, 2] {
            for (o, p) in options.iter().enumerate() {
                let ctx = Context::new(&data, seed, None);
                let (tree, _) = PerceptronTree::learn(
                    &ctx.inputs,
                    &ctx.raw,
                    ctx.labels(),
                    ctx.n_classes(),
                    p,
                    seed,
                    &|_, _| {},
                )
                .unwrap();
                let spec = tree.to_model_spec();
                assert_eq!(spec, perceptron_tree::train(&ctx, p).unwrap(), "{name} seed {seed} options {o}");
                for (i, x) in ctx.raw.iter().enumerate() {
                    assert_eq!(
                        tree.predict(x),
                        spec.predict(x),
                        "{name} seed {seed} options {o} row {i}\n{tree}"
                    );
                }
                // Unknown categorical values and out-of-range numbers follow the same paths.
                let mut odd = ctx.raw[0].clone();
                for (a, v) in odd.iter_mut().enumerate() {
                    *v = if a % 2 == 0 { i32::MAX } else { -1 };
                }
                assert_eq!(tree.predict(&odd), spec.predict(&odd), "{name} seed {seed} options {o} odd row");
                // Links point forward, as the runtime requires.
                let Structure::Tree(nodes) = &spec.structure else { panic!("not a tree") };
                for (i, n) in nodes.iter().enumerate() {
                    let kids: Vec<usize> = match n {
                        Node::Categorical { children, default, .. } => {
                            children.iter().copied().chain([*default]).collect()
                        }
                        Node::Threshold { left, right, .. } => vec![*left, *right],
                        _ => vec![],
                    };
                    assert!(
                        kids.iter().all(|&k| k > i && k < nodes.len()),
                        "{name} seed {seed}: node {i} {n:?}"
                    );
                }
            }
        }
    }
}

/// The full pipeline (export, runtime load, runtime agreement check) accepts the trees.
#[test]
fn runtime_accepts_and_agrees() {
    for (name, cat) in
        [("house-votes-84.csv", &[][..]), ("monks-3_train.csv", &MONKS[..]), ("wine.csv", &[][..])]
    {
        let data = load(name, cat);
        let ctx = Context::new(&data, 3, None);
        let spec = perceptron_tree::train(&ctx, &Params::default()).unwrap();
        let trained = ltu::learn::finish(spec, &ctx, true).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(trained.train_accuracy > 0.8, "{name}: {}", trained.train_accuracy);
    }
}

#[test]
fn stopping_rules_bound_the_tree() {
    let data = load("kr-vs-kp.csv", &[]);
    let ctx = Context::new(&data, 5, None);
    for depth in [0, 1, 3] {
        let p = Params { max_depth: depth, prune_fraction: 0.0, epochs: 5, ..Params::default() };
        let (tree, _) =
            PerceptronTree::learn(&ctx.inputs, &ctx.raw, ctx.labels(), ctx.n_classes(), &p, 5, &|_, _| {})
                .unwrap();
        assert!(tree.stats().depth <= depth, "max_depth {depth}: {:?}", tree.stats());
    }
    // min_split larger than the data: no LTU ever has seen enough instances in one epoch.
    let p = Params { min_split: 10_000, epochs: 2, prune_fraction: 0.0, ..Params::default() };
    let (tree, _) =
        PerceptronTree::learn(&ctx.inputs, &ctx.raw, ctx.labels(), ctx.n_classes(), &p, 5, &|_, _| {})
            .unwrap();
    assert_eq!(tree.stats().decision_nodes, 0);
}

#[test]
fn invalid_options_are_rejected() {
    let data = load("iris.csv", &[]);
    let ctx = Context::new(&data, 0, None);
    for p in [
        Params { epochs: 0, ..Params::default() },
        Params { prune_fraction: 0.95, ..Params::default() },
        Params { numeric_bins: 1, ..Params::default() },
        Params { numeric_max_abs: 0, ..Params::default() },
    ] {
        assert!(perceptron_tree::train(&ctx, &p).is_err(), "{p:?}");
    }
}

/// Presenting encoded instances (`update_encoded`, what `fit` does) grows exactly the tree that
/// presenting the raw inputs (`update`) grows, step by step, on numeric, categorical, missing and
/// multi-class data; and `fit` equals the raw loop it replaces.
#[test]
fn encoded_and_raw_updates_give_identical_trees() {
    let sets: [(&str, &[&str]); 5] = [
        ("iris.csv", &[]),
        ("house-votes-84.csv", &[]),
        ("glass.csv", &[]),
        ("breast-cancer-wisconsin.csv", &[]),
        ("monks-2_train.csv", &MONKS),
    ];
    let mut splits = 0;
    for (name, cat) in sets {
        let data = load(name, cat);
        let ctx = Context::new(&data, 0, None);
        for p in [Params::default(), Params::paper()] {
            let p = Params { epochs: 5, order: Order::Cyclic, ..p };
            let space = FeatureSpace::standard(&ctx.inputs, &ctx.raw, p.numeric_max_abs, p.numeric_bins);
            let encoded: Vec<_> = ctx.raw.iter().map(|x| space.encode(x)).collect();
            let mut raw = PerceptronTree::new(space.clone(), ctx.n_classes(), &p);
            let mut enc = raw.clone();
            for epoch in 0..p.epochs {
                for (i, (x, &y)) in ctx.raw.iter().zip(ctx.labels()).enumerate() {
                    let (a, b) = (raw.update(x, y), enc.update_encoded(&encoded[i], y));
                    assert_eq!(a, b, "{name} epoch {epoch} row {i}");
                    assert_eq!(raw.predict(x), enc.predict_encoded(&encoded[i]), "{name} row {i}");
                }
            }
            assert_eq!(raw, enc, "{name}");
            assert!(raw.history().adjustments > 0, "{name}");
            splits += raw.history().splits;
            // `fit` (encoded, stops once consistent) against the raw loop.
            let mut fitted = PerceptronTree::new(space, ctx.n_classes(), &p);
            let epochs = fitted.fit(&ctx.raw, ctx.labels(), &p, 0, &|_, _| {});
            let mut manual = PerceptronTree::new(fitted.space().clone(), ctx.n_classes(), &p);
            for _ in 0..epochs {
                for (x, &y) in ctx.raw.iter().zip(ctx.labels()) {
                    manual.update(x, y);
                }
            }
            assert_eq!(fitted, manual, "{name}: fit");
        }
    }
    assert!(splits > 10, "the trees must grow for the comparison to mean anything");
}

/// C4.5's error estimate: above the observed errors, shrinking towards them with more data, and
/// `n·(1 − 0.25^(1/n))` for no errors at z = 0.6745 (confidence factor 25%).
#[test]
fn pessimistic_error_estimate() {
    use perceptron_tree::pessimistic_errors as pe;
    let z = 0.6745;
    assert!((pe(0.0, 1.0, z) - 0.75).abs() < 1e-3);
    for (e, n) in [(1.0, 10.0), (5.0, 20.0), (30.0, 1000.0)] {
        assert!(pe(e, n, z) > e, "{e}/{n}");
        assert!(pe(e, n, z) / n > pe(10.0 * e, 10.0 * n, z) / (10.0 * n), "{e}/{n}");
    }
    assert_eq!(pe(3.0, 0.0, z), 0.0);
}

/// Section 5.4: on led7digit (10% label noise) error-based pruning on the training rows shrinks
/// the tree that keeps splitting on noise, and the pruned tree still agrees with its export.
#[test]
fn pessimistic_pruning_shrinks_noisy_trees() {
    let data = load("led7digit.csv", &[]);
    let ctx = Context::new(&data, 0, None);
    let learn = |p: &Params| {
        PerceptronTree::learn(&ctx.inputs, &ctx.raw, ctx.labels(), ctx.n_classes(), p, 0, &|_, _| {}).unwrap()
    };
    let (pruned, report) = learn(&Params { epochs: 10, ..Params::default() });
    let (full, _) = learn(&Params { epochs: 10, prune_z: 0.0, ..Params::default() });
    assert!(report.pruned > 0);
    assert_eq!(report.before_pruning, full.stats());
    assert!(pruned.stats().ltus < full.stats().ltus, "{:?} vs {:?}", pruned.stats(), full.stats());
    let spec = pruned.to_model_spec();
    for x in &ctx.raw {
        assert_eq!(pruned.predict(x), spec.predict(x));
    }
}

/// `LeafFit::Logistic` refits every unit on the rows reaching it: the report says so, the tree's
/// own prediction still equals the exported model's on every row, every weight fits `i16`, and
/// the paper's configuration keeps the perceptron's weights.
#[test]
fn logistic_leaf_fit_refits_units_and_exports_what_it_predicts() {
    assert_eq!(Params::paper().leaf_fit, LeafFit::Perceptron);
    for (name, cat) in [("iris.csv", &[][..]), ("car.csv", &[][..]), ("monks-2_train.csv", &MONKS[..])] {
        let data = load(name, cat);
        let ctx = Context::new(&data, 0, None);
        for p in [
            Params { leaf_fit: LeafFit::Logistic, ..Params::default() },
            Params { leaf_fit: LeafFit::Logistic, leaf_l2: 10.0, compact_leaves: false, ..Params::default() },
            Params { leaf_fit: LeafFit::Auto, ..Params::default() },
        ] {
            let (tree, report) = PerceptronTree::learn(
                &ctx.inputs,
                &ctx.raw,
                ctx.labels(),
                ctx.n_classes(),
                &p,
                0,
                &|_, _| {},
            )
            .unwrap();
            assert_eq!(report.leaf_fit == "logistic", report.refitted > 0, "{name}: {report:?}");
            if p.leaf_fit == LeafFit::Logistic {
                assert_eq!(report.leaf_l2, Some(p.leaf_l2), "{name}");
            }
            let spec = tree.to_model_spec();
            assert!(spec.fits(ltu::model::WeightKind::I16), "{name}");
            for x in &ctx.raw {
                assert_eq!(tree.predict(x), spec.predict(x), "{name} {p:?}");
            }
            // The full pipeline (export, runtime agreement on every row) accepts it.
            ltu::learn::finish(spec, &ctx, true).unwrap();
        }
        let (_, paper) = PerceptronTree::learn(
            &ctx.inputs,
            &ctx.raw,
            ctx.labels(),
            ctx.n_classes(),
            &Params { epochs: 5, ..Params::paper() },
            0,
            &|_, _| {},
        )
        .unwrap();
        assert_eq!((paper.leaf_fit.as_str(), paper.refitted), ("perceptron", 0), "{name}");
    }
}

/// The refit is what the option promises on held-out rows: over 10 folds of vehicle (numeric,
/// overlapping classes) logistic leaves are more accurate than the perceptron's. Measured with
/// the paper's entropy splits, as docs/PERCEPTRON_TREE.md reports it (with the lookahead
/// splits of the default the two are within two rows of 846: 669 and 671).
#[test]
fn logistic_leaves_generalise_better_on_vehicle() {
    let data = load("vehicle.csv", &[]);
    let folds = ltu::data::split::stratified_kfold(&data.y, data.n_classes(), 10, 0).unwrap();
    let mut correct = [0usize; 2];
    for test in &folds {
        let train = data.subset(&ltu::data::split::complement(test, data.n_rows()));
        let ctx = Context::new(&train, 0, None);
        for (k, leaf_fit) in [LeafFit::Perceptron, LeafFit::Logistic].into_iter().enumerate() {
            let p = Params { leaf_fit, split_choice: SplitChoice::Entropy, ..Params::default() };
            let spec = perceptron_tree::train(&ctx, &p).unwrap();
            let held = data.subset(test);
            let raw = ltu::data::encode::raw_rows(&spec.inputs, &held);
            correct[k] += raw.iter().zip(&held.y).filter(|(x, &y)| spec.predict(x) == y).count();
        }
    }
    assert!(
        correct[1] > correct[0],
        "logistic {} vs perceptron {} of {}",
        correct[1],
        correct[0],
        data.n_rows()
    );
}

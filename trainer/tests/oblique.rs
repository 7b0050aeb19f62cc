//! Oblique trees with neural-network splits through the public API: every exported model is
//! checked against the runtime by `learn::finish`, on the reference data sets, for each node
//! model and partition method; options are validated; training is deterministic for a seed.

use std::path::PathBuf;

use ltu::data::split;
use ltu::data::{self, Dataset, LoadOptions};
use ltu::learn::{self, Context, TrainError};
use ltu::learners::oblique::{self, NodeModel, Params, Partition, Significance};
use ltu::model::{Node, Structure, WeightKind};

fn load(name: &str) -> Dataset {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data").join(name);
    data::load(&path, &LoadOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Trains on `data`, finishes (export + runtime agreement on every training row) and returns
/// the training accuracy of the exported model and the tree.
fn train_checked(data: &Dataset, p: &Params, seed: u64) -> (f64, oblique::ObliqueTree) {
    let ctx = Context::new(data, seed, None);
    let tree = oblique::fit(&ctx, p).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    let trained = learn::finish(tree.spec.clone(), &ctx, true).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    // `finish` may only change the weight width: predictions stay the tree's own.
    for x in &ctx.raw {
        assert_eq!(trained.spec.predict(x), tree.predict(x));
    }
    (trained.train_accuracy, tree)
}

/// Held-out accuracy of the exported model on `test` rows after training on the others.
fn holdout(data: &Dataset, test: &[usize], p: &Params) -> f64 {
    let train = data.subset(&split::complement(test, data.n_rows()));
    let ctx = Context::new(&train, 0, None);
    let trained = learn::finish(oblique::train(&ctx, p).unwrap(), &ctx, false).unwrap();
    let model = ltu_runtime::Model::from_bytes(&trained.bytes).unwrap();
    let held = data.subset(test);
    let raw = ltu::data::encode::raw_rows(&trained.spec.inputs, &held);
    let ok = raw.iter().zip(&held.y).filter(|(x, &y)| model.predict(x).unwrap() == y).count();
    ok as f64 / raw.len() as f64
}

#[test]
fn iris_linear_tree_is_accurate_and_runs_in_the_runtime() {
    let data = load("iris.csv");
    let (acc, tree) = train_checked(&data, &Params::default(), 0);
    assert!(acc >= 0.93, "training accuracy {acc}");
    assert!(tree.report.splits >= 2, "{:?}", tree.report);
    let Structure::Tree(nodes) = &tree.spec.structure else { panic!("not a tree") };
    assert!(nodes.iter().all(|n| matches!(n, Node::UnitSplit { .. } | Node::Class(_))));
    let folds = split::stratified_kfold(&data.y, data.n_classes(), 5, 0).unwrap();
    let acc = holdout(&data, &folds[0], &Params::default());
    assert!(acc >= 0.85, "held-out accuracy {acc}");
}

#[test]
fn selection_and_exchange_both_learn_vehicle() {
    let data = load("vehicle.csv");
    for partition in [Partition::Selection, Partition::Exchange] {
        let p = Params { partition, max_nodes: Some(12), epochs: 60, ..Params::default() };
        let (acc, tree) = train_checked(&data, &p, 3);
        // 4 classes; the majority class is 26%.
        assert!(acc >= 0.5, "{partition:?}: training accuracy {acc}");
        assert!(tree.report.splits >= 1, "{partition:?}: {:?}", tree.report);
    }
}

#[test]
fn mlp_and_hybrid_nodes_export_bit_exact() {
    let data = load("breast-cancer-wisconsin.csv");
    for node in [NodeModel::Mlp, NodeModel::Hybrid] {
        let p = Params {
            node,
            epochs: 15,
            max_nodes: Some(4),
            prune_fraction: Some(0.0),
            prune_z: 0.0,
            ..Params::default()
        };
        let (acc, tree) = train_checked(&data, &p, 1);
        assert!(acc >= 0.9, "{node:?}: training accuracy {acc}");
        if node == NodeModel::Mlp {
            assert_eq!(tree.report.mlp_splits, tree.report.splits, "{:?}", tree.report);
        } else {
            assert!(tree.report.hybrid_tests >= tree.report.splits_grown, "{:?}", tree.report);
        }
    }
}

#[test]
fn forced_mlp_diagram_agrees_with_the_runtime_on_iris() {
    // Iris with 3 classes and 4 inputs: 2 hidden units per non-linear node.
    let data = load("iris.csv");
    for seed in 0..3 {
        let p = Params {
            node: NodeModel::Mlp,
            epochs: 100,
            prune_fraction: Some(0.0),
            prune_z: 0.0,
            ..Params::default()
        };
        let (acc, tree) = train_checked(&data, &p, seed);
        assert!(acc >= 0.9, "seed {seed}: training accuracy {acc}");
        assert!(tree.report.mlp_splits >= 1, "seed {seed}: {:?}", tree.report);
    }
}

#[test]
fn hybrid_counts_test_agreement() {
    let data = load("iris.csv");
    let p = Params {
        node: NodeModel::Hybrid,
        compare_tests: true,
        significance: Significance::TTest,
        t_folds: 10,
        epochs: 10,
        max_nodes: Some(3),
        ..Params::default()
    };
    let (_, tree) = train_checked(&data, &p, 0);
    let r = &tree.report;
    assert!(r.hybrid_tests >= r.splits_grown, "{r:?}");
    assert!(r.tests_agree <= r.hybrid_tests, "{r:?}");
}

#[test]
fn deterministic_for_a_seed() {
    let data = load("vehicle.csv");
    let p = Params { max_nodes: Some(6), epochs: 10, ..Params::default() };
    let ctx = Context::new(&data, 7, None);
    let a = learn::finish(oblique::train(&ctx, &p).unwrap(), &ctx, false).unwrap();
    let b = learn::finish(oblique::train(&ctx, &p).unwrap(), &ctx, false).unwrap();
    assert_eq!(a.bytes, b.bytes);
    let ctx2 = Context::new(&data, 8, None);
    let c = learn::finish(oblique::train(&ctx2, &p).unwrap(), &ctx2, false).unwrap();
    assert_ne!(a.bytes, c.bytes, "a different seed should give a different model");
}

#[test]
fn budgets_bound_the_tree() {
    let data = load("vehicle.csv");
    let p = Params {
        max_nodes: Some(3),
        max_depth: 2,
        epochs: 10,
        prune_fraction: Some(0.0),
        prune_z: 0.0,
        ..Params::default()
    };
    let (_, tree) = train_checked(&data, &p, 0);
    assert!(tree.report.splits <= 3);
    assert!(tree.spec.stats().max_depth <= 3, "{:?}", tree.spec.stats());
}

#[test]
fn i8_weights_are_respected() {
    let data = load("iris.csv");
    let ctx = Context::new(&data, 0, Some(WeightKind::I8));
    let trained = learn::finish(oblique::train(&ctx, &Params::default()).unwrap(), &ctx, false).unwrap();
    assert_eq!(trained.spec.weight_kind, WeightKind::I8);
    assert_eq!(trained.rescaled_units, 0, "units were quantized to i8 by the learner");
    assert!(trained.train_accuracy >= 0.9, "{}", trained.train_accuracy);
}

#[test]
fn every_weight_kind_keeps_the_splits() {
    // i32 weights once left the terms no accumulator room beside the bias's: every test was
    // constant and iris scored 33%.
    let data = load("iris.csv");
    for kind in [WeightKind::I8, WeightKind::I16, WeightKind::I32, WeightKind::Fixed] {
        let ctx = Context::new(&data, 0, Some(kind));
        let trained = learn::finish(oblique::train(&ctx, &Params::default()).unwrap(), &ctx, false).unwrap();
        assert_eq!(trained.spec.weight_kind, kind);
        assert!(trained.train_accuracy >= 0.95, "{kind:?}: {}", trained.train_accuracy);
    }
}

#[test]
fn fixed_point_weights_decide_like_integer_weights() {
    let data = load("iris.csv");
    let p = Params { epochs: 50, ..Params::default() };
    let int = Context::new(&data, 0, None);
    let fixed = Context::new(&data, 0, Some(WeightKind::Fixed));
    let a = learn::finish(oblique::train(&int, &p).unwrap(), &int, false).unwrap();
    let b = learn::finish(oblique::train(&fixed, &p).unwrap(), &fixed, false).unwrap();
    assert_eq!(b.spec.weight_kind, WeightKind::Fixed);
    for x in &int.raw {
        assert_eq!(a.spec.predict(x), b.spec.predict(x));
    }
}

#[test]
fn categorical_inputs_work() {
    let data = load("house-votes-84.csv");
    let (acc, _) = train_checked(&data, &Params { epochs: 10, ..Params::default() }, 0);
    assert!(acc >= 0.9, "training accuracy {acc}");
}

#[test]
fn float_tree_and_exported_tree_mostly_agree() {
    let data = load("breast-cancer-wisconsin.csv");
    let ctx = Context::new(&data, 0, None);
    let tree = oblique::fit(&ctx, &Params::default()).unwrap();
    let same = ctx.raw.iter().filter(|x| tree.predict(x) == tree.predict_float(x)).count();
    assert!(same as f64 >= 0.95 * ctx.raw.len() as f64, "{same} of {}", ctx.raw.len());
}

#[test]
fn check_rejects_bad_values() {
    let bad = [
        Params { epochs: 0, ..Params::default() },
        Params { momentum: 1.0, ..Params::default() },
        Params { momentum: -0.1, ..Params::default() },
        Params { lr_start: 0.0, ..Params::default() },
        Params { lr_end: f64::NAN, ..Params::default() },
        Params { hidden: Some(0), ..Params::default() },
        Params { t_folds: 1, ..Params::default() },
        Params { exchange_passes: 0, ..Params::default() },
        Params { max_depth: 0, ..Params::default() },
        Params { min_split: 1, ..Params::default() },
        Params { prune_fraction: Some(0.95), ..Params::default() },
        Params { numeric_max_abs: 0, ..Params::default() },
        Params { max_weight: 0, ..Params::default() },
        Params { mlp_output_max: 0, ..Params::default() },
        Params { drop_tolerance: 1.5, ..Params::default() },
    ];
    for p in bad {
        assert!(matches!(p.check(), Err(TrainError::InvalidOption(_))), "{p:?} accepted");
        let data = load("iris.csv");
        let ctx = Context::new(&data, 0, None);
        assert!(oblique::train(&ctx, &p).is_err(), "{p:?} trained");
    }
    assert!(Params::default().check().is_ok());
    // No oblique node at all is the bottom of the budget ladder: one leaf, the majority class.
    assert!(Params { max_nodes: Some(0), ..Params::default() }.check().is_ok());
}

#[test]
fn the_learner_contract_fits_and_reports() {
    let data = load("iris.csv");
    let ctx = Context::new(&data, 0, None);
    let fit = ltu::learn::fit::<oblique::Oblique>(&ctx, &Params { epochs: 50, ..Params::default() }).unwrap();
    assert!(fit.report.splits >= 1, "{:?}", fit.report);
    let trained = learn::finish(fit.spec, &ctx, false).unwrap();
    assert!(trained.train_accuracy >= 0.9);
    assert!(ltu::learn::fit::<oblique::Oblique>(&ctx, &Params { epochs: 0, ..Params::default() }).is_err());
}

#[test]
fn option_enums_have_short_command_line_names() {
    assert_eq!("hybrid".parse(), Ok(NodeModel::Hybrid));
    assert_eq!("selection".parse(), Ok(Partition::Selection));
    assert_eq!("f".parse(), Ok(Significance::FTest5x2));
    assert_eq!("t".parse(), Ok(Significance::TTest));
    assert_eq!(Significance::TTest.to_string(), "t");
    assert!("F".parse::<Significance>().is_err_and(|e| e.to_string().contains("expected one of: f, t")));
}

#[test]
fn macs_budget_bounds_the_worst_path() {
    let data = load("vehicle.csv");
    for (node, budget) in [(NodeModel::Linear, 20), (NodeModel::Mlp, 60)] {
        let p = Params { node, max_macs: Some(budget), epochs: 20, ..Params::default() };
        let (_, tree) = train_checked(&data, &p, 0);
        let macs = tree.spec.stats().max_macs;
        assert!(macs <= budget, "{node:?}: {macs} MACs > {budget}");
        assert!(tree.report.splits >= 1, "{node:?}: {:?}", tree.report);
    }
    assert!(Params { max_macs: Some(0), ..Params::default() }.check().is_err());
}

#[test]
fn bytes_budget_bounds_the_file() {
    let data = load("vehicle.csv");
    let free = Params { epochs: 20, ..Params::default() };
    let ctx = Context::new(&data, 0, None);
    let full = learn::finish(oblique::train(&ctx, &free).unwrap(), &ctx, false).unwrap();
    // The budget counts the file a device stores (without the host block).
    let budget = full.device_bytes / 2;
    let p = Params { max_bytes: Some(budget), ..free };
    let tree = oblique::fit(&ctx, &p).unwrap();
    let small = learn::finish(tree.spec.clone(), &ctx, false).unwrap();
    assert!(small.device_bytes <= budget, "{} bytes > {budget}", small.device_bytes);
    assert!(tree.report.cut_for_bytes >= 1, "{:?}", tree.report);
    assert!(small.train_accuracy > 0.4, "{}", small.train_accuracy);
    assert!(Params { max_bytes: Some(0), ..Params::default() }.check().is_err());
}

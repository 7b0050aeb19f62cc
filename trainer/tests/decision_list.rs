//! Neural decision lists and halfspace intersections (Marchand & Golea 1993) through the public
//! API: IncLP's exact separability answers, consistency on separable data, multi-class sanity,
//! determinism, and agreement of the float model, this module's integer evaluator,
//! `ModelSpec::predict` and the runtime.

use std::path::PathBuf;

use ltu::data::{self, AttrKind, Attribute, Dataset, LoadOptions, Schema};
use ltu::learn::{self, Context, TrainError};
use ltu::learners::decision_list::inclp::{self, IncLp, LpSolver, MARGIN, TOLERANCE};

/// Both LP solvers answer every IncLP question.
const SOLVERS: [LpSolver; 2] = [LpSolver::Dense, LpSolver::Simplex];
use ltu::learners::decision_list::{self as dl, Budget, HsiShape, LpStats, Params, Sample, Shape, Stop};
use ltu::model::{Structure, WeightKind};
use ltu::rng::Rng;

// Paper data generators, shared with the reproduction example (not part of the library).
#[path = "../examples/paper/ndl.rs"]
mod synth;

fn load(name: &str, ignore: &[&str]) -> Dataset {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data").join(name);
    let opts =
        LoadOptions { ignore: ignore.iter().map(|s| s.to_string()).collect(), ..LoadOptions::default() };
    data::load(&path, &opts).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// A numeric dataset (4 decimals) from float rows.
fn numeric_dataset(x: &[Vec<f64>], y: &[usize]) -> Dataset {
    let n = x[0].len();
    Dataset {
        schema: Schema {
            attributes: (0..n)
                .map(|j| Attribute { name: format!("x{j}"), kind: AttrKind::Numeric { decimals: 4 } })
                .collect(),
            classes: vec!["neg".into(), "pos".into()],
        },
        x: x.iter().flat_map(|r| r.iter().map(|v| (v * 1e4).round() / 1e4)).collect(),
        y: y.to_vec(),
        source: "synthetic".into(),
    }
}

fn pts(v: &[&[f64]]) -> Vec<Vec<f64>> {
    v.iter().map(|r| r.to_vec()).collect()
}

/// Every covered point scores at least the margin, every excluded one at most minus it.
fn assert_separates(points: &[Vec<f64>], covered: &[usize], exclude: &[usize], h: &dl::Halfspace) {
    for &i in covered {
        assert!(
            h.score(&points[i]) >= MARGIN - 1e3 * TOLERANCE,
            "covered point {i} scores {}",
            h.score(&points[i])
        );
    }
    for &i in exclude {
        assert!(
            h.score(&points[i]) <= -(MARGIN - 1e3 * TOLERANCE),
            "excluded point {i} scores {}",
            h.score(&points[i])
        );
    }
}

#[test]
fn inclp_xor_takes_exactly_one_diagonal_point() {
    for solver in SOLVERS {
        inclp_xor_takes_exactly_one_diagonal_point_with(solver);
    }
}

fn inclp_xor_takes_exactly_one_diagonal_point_with(solver: LpSolver) {
    // XOR in 2D: (1,-1) and (-1,1) cannot both be separated from (1,1) and (-1,-1).
    let p = pts(&[&[1.0, 1.0], &[-1.0, -1.0], &[1.0, -1.0], &[-1.0, 1.0]]);
    for order in [[2, 3], [3, 2]] {
        let mut inc = IncLp::with_solver(&p, &[0, 1], solver);
        assert!(inc.try_add(order[0]));
        assert!(!inc.try_add(order[1]), "XOR must be rejected");
        assert_eq!(inc.covered(), &[order[0]]);
        assert_separates(&p, inc.covered(), &[0, 1], inc.halfspace());
        assert_eq!(inc.stats().rejected, 1);
    }
}

#[test]
fn inclp_rejects_points_inside_the_excluded_hull_and_accepts_outside() {
    for solver in SOLVERS {
        inclp_rejects_points_inside_the_excluded_hull_and_accepts_outside_with(solver);
    }
}

fn inclp_rejects_points_inside_the_excluded_hull_and_accepts_outside_with(solver: LpSolver) {
    // Excluded: the corners of the square; the centre and a point just inside are in their
    // convex hull (inseparable), a point just outside is not.
    let p = pts(&[
        &[1.0, 1.0],
        &[1.0, -1.0],
        &[-1.0, 1.0],
        &[-1.0, -1.0],
        &[0.0, 0.0],
        &[0.999, 0.999],
        &[1.001, 0.0],
    ]);
    let excl = [0, 1, 2, 3];
    let mut inc = IncLp::with_solver(&p, &excl, solver);
    assert!(!inc.try_add(4));
    assert!(!inc.try_add(5));
    assert!(inc.try_add(6));
    assert_separates(&p, inc.covered(), &excl, inc.halfspace());
    // A segment's midpoint cannot be separated from both ends (collinear, degenerate).
    let line = pts(&[&[0.0, 0.0], &[1.0, 1.0], &[0.5, 0.5]]);
    assert!(!IncLp::with_solver(&line, &[0, 1], solver).try_add(2));
}

#[test]
fn inclp_duplicates_are_decided_exactly() {
    for solver in SOLVERS {
        inclp_duplicates_are_decided_exactly_with(solver);
    }
}

fn inclp_duplicates_are_decided_exactly_with(solver: LpSolver) {
    let p = pts(&[&[0.3, -0.2], &[0.3, -0.2], &[0.5, 0.5], &[0.5, 0.5], &[-0.7, 0.1]]);
    // Point 1 duplicates excluded point 0: contradictory rows, rejected.
    let mut inc = IncLp::with_solver(&p, &[0, 4], solver);
    assert!(!inc.try_add(1));
    // Point 3 duplicates covered point 2: accepted by the skip rule, without an LP.
    assert!(inc.try_add(2));
    let before = inc.stats();
    assert!(inc.try_add(3));
    assert_eq!(inc.stats().lp_trials, before.lp_trials);
    assert_eq!(inc.stats().skipped, before.skipped + 1);
    assert_separates(&p, &[2, 3], &[0, 4], inc.halfspace());
    // Nothing to exclude: everything is coverable.
    let mut free = IncLp::with_solver(&p, &[], solver);
    assert!((0..5).all(|i| free.try_add(i)));
}

#[test]
fn inclp_matches_brute_force_on_random_1d_sets() {
    for solver in SOLVERS {
        inclp_matches_brute_force_on_random_1d_sets_with(solver);
    }
}

fn inclp_matches_brute_force_on_random_1d_sets_with(solver: LpSolver) {
    // In 1D (with bias) a set L is separable from P iff all of L lies strictly on one side of
    // all of P: max L < min P or min L > max P. Points on a small grid force ties.
    let mut rng = Rng::new(11);
    for case in 0..300 {
        let n = 2 + rng.below(7);
        let p: Vec<Vec<f64>> = (0..n).map(|_| vec![rng.below(5) as f64 / 4.0 - 0.5]).collect();
        let k = rng.below(n);
        let excl: Vec<usize> = (0..k).collect();
        let mut inc = IncLp::with_solver(&p, &excl, solver);
        let mut taken: Vec<usize> = Vec::new();
        for x in k..n {
            let mut with = taken.clone();
            with.push(x);
            let lmax = with.iter().map(|&i| p[i][0]).fold(f64::MIN, f64::max);
            let lmin = with.iter().map(|&i| p[i][0]).fold(f64::MAX, f64::min);
            let pmin = excl.iter().map(|&i| p[i][0]).fold(f64::MAX, f64::min);
            let pmax = excl.iter().map(|&i| p[i][0]).fold(f64::MIN, f64::max);
            let separable = excl.is_empty() || lmax < pmin || lmin > pmax;
            assert_eq!(
                inc.try_add(x),
                separable,
                "case {case}: points {p:?}, excluded {excl:?}, taken {taken:?}, x {x}"
            );
            if separable {
                taken.push(x);
            }
        }
        assert_separates(&p, inc.covered(), &excl, inc.halfspace());
    }
}

#[test]
fn inclp_solvers_accept_the_same_candidates_on_random_sets() {
    // Points in general position: both solvers answer the same exact question, so they take
    // the same candidates in the same order (the halfspaces differ, both must separate).
    let mut rng = Rng::new(21);
    for case in 0..40 {
        let d = 2 + rng.below(6);
        let n = 40 + rng.below(80);
        let p: Vec<Vec<f64>> = (0..n).map(|_| (0..d).map(|_| 2.0 * rng.f64() - 1.0).collect()).collect();
        let k = 1 + rng.below(n / 2);
        let excl: Vec<usize> = (0..k).collect();
        let mut dense = IncLp::with_solver(&p, &excl, LpSolver::Dense);
        let mut simplex = IncLp::with_solver(&p, &excl, LpSolver::Simplex);
        for x in k..n {
            assert_eq!(dense.try_add(x), simplex.try_add(x), "case {case}, d {d}, candidate {x}");
        }
        assert_eq!(dense.covered(), simplex.covered());
        assert_separates(&p, dense.covered(), &excl, dense.halfspace());
        assert_eq!(dense.stats().numerical_rejections, 0, "case {case}");
    }
}

#[test]
fn find_large_neg_subset_finds_about_half_of_the_parallel_negatives() {
    // Figure 4 setting, small: the best halfspace covers half of the negative measure.
    let mut rng = Rng::new(5);
    let (x, y) = synth::parallel_halfspaces(16, 900, &mut rng);
    let neg: Vec<usize> = (0..x.len()).filter(|&i| y[i] == 0).collect();
    let pos: Vec<usize> = (0..x.len()).filter(|&i| y[i] == 1).collect();
    let mut stats = LpStats::default();
    let c = inclp::find_large_neg_subset(&x, &neg, &pos, Budget::default(), &mut rng, &mut stats);
    assert_separates(&x, &c.covered, &pos, &c.halfspace);
    let frac = c.covered.len() as f64 / neg.len() as f64;
    assert!(frac > 0.40, "cluster {} of {} negatives", c.covered.len(), neg.len());
    // The pocket's cluster obeys the rules (covers no positive).
    let pk =
        inclp::pocket_ratchet(&x, &neg, &pos, Budget { passes: Some(20), ..Budget::default() }, &mut rng);
    assert!(pos.iter().all(|&i| !pk.halfspace.covers(&x[i])));
    assert!(pk.covered.iter().all(|&i| pk.halfspace.covers(&x[i])));
}

#[test]
fn hsi_and_ndl_are_consistent_on_a_separable_intersection() {
    let mut rng = Rng::new(2);
    let normals = synth::orthogonal_normals(5, &mut rng);
    let (x, y) = synth::orthogonal_intersection(&normals, 150, 150, &mut rng);
    let s = Sample { x: &x, y: &y, n_classes: 2, quant: None };
    let p = Params::default();
    let hsi = dl::learn(&s, Shape::Hsi { shape: HsiShape::Intersection, positive: 1 }, &p, 1).unwrap();
    assert_eq!(hsi.report.stop, Stop::Exhausted);
    assert_eq!(hsi.report.float_train_accuracy, 1.0);
    assert_eq!(hsi.default, 1);
    assert!(hsi.nodes.iter().all(|n| n.class == 0));
    let ndl = dl::learn(&s, Shape::Ndl, &p, 1).unwrap();
    assert_eq!(ndl.report.float_train_accuracy, 1.0);
    // Union of halfspaces covering the negatives' complement: the positives are one halfspace
    // intersection, so the union learner on swapped roles is consistent too.
    let uni = dl::learn(&s, Shape::Hsi { shape: HsiShape::Union, positive: 0 }, &p, 1).unwrap();
    assert_eq!(uni.report.float_train_accuracy, 1.0);
    assert!(uni.nodes.iter().all(|n| n.class == 0) && uni.default == 1);

    // The same through the exported model, in every weight kind; finish() checks the runtime.
    let data = numeric_dataset(&x, &y);
    for kind in [WeightKind::I16, WeightKind::I32, WeightKind::Fixed] {
        let ctx = Context::new(&data, 9, Some(kind));
        let fitted = dl::fit(&ctx, None, &p).unwrap();
        assert!(fitted.spec.fits(kind), "{kind:?}");
        let trained = learn::finish(fitted.spec.clone(), &ctx, false).unwrap();
        assert_eq!(trained.train_accuracy, 1.0, "{kind:?}: {:?}", fitted.report());
        assert_eq!(trained.rescaled_units, 0);
    }
}

#[test]
fn contradictory_examples_stop_instead_of_looping() {
    let x = pts(&[&[0.1, 0.2], &[0.1, 0.2], &[0.5, -0.5], &[-0.5, 0.5]]);
    let y = [0, 1, 0, 1];
    let s = Sample { x: &x, y: &y, n_classes: 2, quant: None };
    // The paper's exact method cannot cover either duplicate and stops.
    let exact = Params { relabel_duplicates: false, ..Params::default() };
    let l = dl::learn(&s, Shape::Ndl, &exact, 0).unwrap();
    assert_eq!(l.report.stop, Stop::Inseparable);
    assert_eq!(l.report.relabelled, 0);
    assert_eq!(l.report.float_train_accuracy, 0.75);
    // Majority relabelling (tie: lower class) makes the rows consistent; the list then ends
    // normally, and accuracy is still counted on the original classes.
    let l = dl::learn(&s, Shape::Ndl, &Params::default(), 0).unwrap();
    assert_eq!(l.report.stop, Stop::Exhausted);
    assert_eq!(l.report.relabelled, 1);
    assert_eq!(l.report.float_train_accuracy, 0.75);
}

/// Regression (peer benchmark): on led7digit (7 binary inputs, 10 % noise, most inputs occur with
/// several classes) the exact method stopped at the first step where only contradictory examples
/// were left, 35.6 % training accuracy, everything else falling to the default class.
#[test]
fn noisy_duplicate_heavy_data_does_not_collapse() {
    let data = load("led7digit.csv", &[]);
    let mut rows: Vec<usize> = (0..data.n_rows()).collect();
    Rng::new(5).shuffle(&mut rows);
    let data = data.subset(&rows[..250]);
    let ctx = Context::new(&data, 5, None);
    // The best any function of the inputs can do on these rows: the majority class per input.
    let mut groups: std::collections::HashMap<Vec<i32>, Vec<usize>> = Default::default();
    for (x, &y) in ctx.raw.iter().zip(ctx.labels()) {
        groups.entry(x.clone()).or_default().push(y);
    }
    let bound = groups
        .values()
        .map(|ys| (0..10).map(|c| ys.iter().filter(|&&y| y == c).count()).max().unwrap_or(0))
        .sum::<usize>() as f64
        / data.n_rows() as f64;
    let majority = *data.class_counts().iter().max().unwrap() as f64 / data.n_rows() as f64;

    // Nothing chosen: editing (a choice of the defaults) would also separate the rows.
    let fixed = Params { choose: None, ..Params::default() };
    let exact =
        dl::fit(&ctx, Some(Shape::Ndl), &Params { relabel_duplicates: false, ..fixed.clone() }).unwrap();
    let e = exact.report();
    assert_eq!(e.stop, Stop::Inseparable, "{e:?}");
    assert_eq!(e.relabelled, 0);

    let robust = dl::fit(&ctx, Some(Shape::Ndl), &fixed).unwrap();
    let r = robust.report();
    assert_eq!(r.stop, Stop::Exhausted, "{r:?}");
    assert!(r.relabelled > 0);
    let acc = r.quantized_train_accuracy.unwrap();
    eprintln!(
        "led7digit[250]: majority class {majority:.3}, per-input bound {bound:.3}, exact {:.3} ({} nodes), \
         relabelled {:.3} ({} nodes, {} rows relabelled)",
        e.quantized_train_accuracy.unwrap(),
        e.nodes,
        acc,
        r.nodes,
        r.relabelled
    );
    assert!(acc > 3.0 * majority, "training accuracy {acc} vs majority class {majority}");
    assert!(acc > e.quantized_train_accuracy.unwrap() + 0.2, "{acc} vs exact {e:?}");
    // Relabelling reaches the per-input bound (up to rounding of the weights).
    assert!(acc >= bound - 0.02, "training accuracy {acc}, bound {bound}");
    learn::finish(robust.spec, &ctx, true).unwrap();
}

#[test]
fn iris_multiclass_sanity() {
    let data = load("iris.csv", &[]);
    let mut rng = Rng::new(3);
    let mut rows: Vec<usize> = (0..data.n_rows()).collect();
    rng.shuffle(&mut rows);
    let (train, test) = rows.split_at(100);
    let (train, test) = (data.subset(train), data.subset(test));
    let ctx = Context::new(&train, 3, None);
    let fitted = dl::fit(&ctx, Some(Shape::Ndl), &Params::default()).unwrap();
    let r = fitted.report();
    assert!(r.float_train_accuracy >= 0.99, "{r:?}");
    assert!((1..=12).contains(&r.nodes), "{} nodes", r.nodes);
    let Structure::List { entries, .. } = &fitted.spec.structure else { panic!("not a list") };
    let classes: std::collections::BTreeSet<usize> =
        entries.iter().map(|e| e.1).chain([fitted.learned.default]).collect();
    assert_eq!(classes.len(), 3, "every class is predicted somewhere");
    let raw = ltu::data::encode::raw_rows(&ctx.inputs, &test);
    let correct = raw.iter().zip(&test.y).filter(|(x, y)| fitted.spec.predict(x) == **y).count();
    assert!(correct as f64 / test.n_rows() as f64 >= 0.85, "test accuracy {correct}/50");
    learn::finish(fitted.spec, &ctx, true).unwrap();
    // hsi is two-class only.
    assert!(matches!(dl::train_hsi(&ctx, &Params::default()), Err(TrainError::InvalidOption(_))));
}

/// Every second row of glass (107 rows, all six classes): the multi-class numeric case at half
/// the cost, which keeps the debug-build test time small.
fn glass_half() -> Dataset {
    let data = load("glass.csv", &[]);
    data.subset(&(0..data.n_rows()).step_by(2).collect::<Vec<_>>())
}

#[test]
fn same_seed_same_model() {
    let data = glass_half();
    for seed in [1, 77] {
        let a = dl::train_ndl(&Context::new(&data, seed, None), &Params::default()).unwrap();
        let b = dl::train_ndl(&Context::new(&data, seed, None), &Params::default()).unwrap();
        assert_eq!(a, b, "seed {seed}");
    }
}

#[test]
fn quantized_model_agrees_with_own_evaluator_and_reports_float_differences() {
    let sets = [
        ("iris.csv", vec![]),
        ("house-votes-84.csv", vec![]),
        ("house-votes-84.csv", vec!["physician-fee-freeze"]),
        ("glass.csv (every second row)", vec![]),
    ];
    for (name, ignore) in &sets {
        let data = if name.starts_with("glass") { glass_half() } else { load(name, ignore) };
        for kind in [WeightKind::I8, WeightKind::I16, WeightKind::I32, WeightKind::Fixed] {
            for seed in [kind as u64] {
                let ctx = Context::new(&data, seed, Some(kind));
                let params = Params {
                    validation: if kind == WeightKind::I32 { 0.25 } else { 0.0 },
                    ..Params::default()
                };
                let fitted = dl::fit(&ctx, Some(Shape::Ndl), &params)
                    .unwrap_or_else(|e| panic!("{name} {kind:?} seed {seed}: {e}"));
                assert!(fitted.spec.fits(kind), "{name} {kind:?} seed {seed}: weights do not fit");
                let (mut disagree, mut correct_spec, mut correct_own) = (0, 0, 0);
                for (row, (x, &y)) in ctx.raw.iter().zip(ctx.labels()).enumerate() {
                    let spec = fitted.spec.predict(x);
                    let own = fitted.predict_quantized(x);
                    assert_eq!(
                        spec, own,
                        "{name} {kind:?} seed {seed} row {row}: ModelSpec {spec}, own {own}"
                    );
                    disagree += usize::from(own != fitted.predict_float(x));
                    correct_spec += usize::from(spec == y);
                    correct_own += usize::from(own == y);
                }
                let r = fitted.report();
                if params.validation == 0.0 {
                    // The report counts exactly what the models do on the training rows.
                    assert_eq!(r.float_quantized_disagreements, disagree, "{name} {kind:?} seed {seed}");
                    let q = r.quantized_train_accuracy.unwrap();
                    assert!((q - correct_own as f64 / ctx.raw.len() as f64).abs() < 1e-12);
                } else {
                    assert!(r.validation_rows > 0 && r.validation_accuracy.is_some());
                }
                assert_eq!(correct_spec, correct_own);
                eprintln!(
                    "{name} {ignore:?} {kind:?} seed {seed}: k={} float train {:.4} quantized {:.4} \
                     float/quantized disagreements {disagree}, node coverage changed by rounding {}",
                    r.nodes + 1,
                    r.float_train_accuracy,
                    r.quantized_train_accuracy.unwrap(),
                    r.changed_by_quantization
                );
                let trained = learn::finish(fitted.spec.clone(), &ctx, false)
                    .unwrap_or_else(|e| panic!("{name} {kind:?} seed {seed}: {e}"));
                assert_eq!(trained.rescaled_units, 0, "{name} {kind:?} seed {seed}");
            }
        }
    }
}

#[test]
fn validation_pruning_keeps_a_prefix() {
    let data = load("glass.csv", &[]);
    let ctx = Context::new(&data, 4, None);
    let full = dl::fit(&ctx, Some(Shape::Ndl), &Params { validation: 0.3, ..Params::default() }).unwrap();
    let r = full.report();
    // Stratified hold-out: round(30%) of every class.
    let expected: usize = data.class_counts().iter().map(|&c| (c as f64 * 0.3).round() as usize).sum();
    assert_eq!(r.validation_rows, expected);
    assert_eq!(r.node_info.len(), r.nodes);
    let acc = r.validation_accuracy.unwrap();
    assert!(acc > 0.5 && acc <= 1.0, "validation accuracy {acc}");
    // The list built before pruning had `nodes + pruned` entries; glass needs several.
    assert!(r.nodes + r.pruned >= 2, "{r:?}");
    let capped =
        dl::fit(&ctx, Some(Shape::Ndl), &Params { max_nodes: Some(2), ..Params::default() }).unwrap();
    assert_eq!(capped.report().stop, Stop::MaxNodes);
    assert!(capped.report().nodes <= 2);
    let min = dl::fit(&ctx, Some(Shape::Ndl), &Params { min_cover: 10_000, ..Params::default() }).unwrap();
    assert_eq!(min.report().stop, Stop::MinCover);
    assert_eq!(min.report().nodes, 0);
    learn::finish(min.spec, &ctx, false).unwrap();
}

/// `learn_hsi` without a positive class stops the longer list early; its answer must be the one
/// building both lists completely gives (fewer entries, then fewer training errors, then 1).
#[test]
fn hsi_without_a_positive_class_matches_both_lists_built_completely() {
    for (n, m, seed) in [(4usize, 300usize, 3u64), (6, 400, 5), (3, 200, 8)] {
        let mut rng = Rng::new(seed);
        let normals = synth::orthogonal_normals(n, &mut rng);
        let (x, y) = synth::orthogonal_intersection(&normals, m / 2, m / 2, &mut rng);
        let s = Sample { x: &x, y: &y, n_classes: 2, quant: None };
        let p = Params::default();
        let full: Vec<dl::Learned> = [1, 0]
            .into_iter()
            .map(|positive| {
                dl::learn(&s, Shape::Hsi { shape: HsiShape::Intersection, positive }, &p, seed).unwrap()
            })
            .collect();
        let key = |l: &dl::Learned| (l.nodes.len(), -(l.report.float_train_accuracy * 1e9) as i64);
        let want = if key(&full[1]) < key(&full[0]) { &full[1] } else { &full[0] };
        let got = dl::learn_hsi(&s, &p, seed).unwrap();
        assert_eq!(got.nodes, want.nodes, "n = {n}, m = {m}");
        assert_eq!(got.default, want.default);
        assert_eq!(got.report.positive, want.report.positive);
    }
}

/// `Params::patience` bounds `Find_large_neg_subset`; without it (`unbounded_search`) the search
/// runs to the paper's end and never finds a smaller subset.
#[test]
fn patience_bounds_the_search_and_unbounded_search_is_the_papers() {
    let mut rng = Rng::new(11);
    let normals = synth::orthogonal_normals(6, &mut rng);
    let (x, y) = synth::orthogonal_intersection(&normals, 300, 300, &mut rng);
    // Covering the positive wedge: many small clusters, one pass each.
    let cands: Vec<usize> = (0..x.len()).filter(|&i| y[i] == 1).collect();
    let excl: Vec<usize> = (0..x.len()).filter(|&i| y[i] == 0).collect();
    let search = |patience| {
        let mut stats = LpStats::default();
        let budget = Budget { patience, ..Budget::default() };
        let c = inclp::find_large_neg_subset(&x, &cands, &excl, budget, &mut Rng::new(2), &mut stats);
        (c, stats)
    };
    let (bounded, bs) = search(Some(1));
    let (paper, ps) = search(None);
    assert!(bs.tried < ps.tried, "patience saves work: {} vs {} candidates tried", bs.tried, ps.tried);
    assert!(paper.covered.len() >= bounded.covered.len());
    assert_separates(&x, &bounded.covered, &excl, &bounded.halfspace);
    assert_eq!(Params::unbounded_search().patience, None);
    assert!(!Params::unbounded_search().reuse_two_class_covers);
}

/// `ndl` reports its progress in two phases: the candidate settings learned for the inner
/// cross-validation (folds × candidates), then training rows covered out of training rows, ending
/// covered.
#[test]
fn ndl_reports_rows_covered_as_progress() {
    let data = load("iris.csv", &[]);
    let seen = std::sync::Mutex::new(Vec::new());
    let record = |done: u64, total: u64| seen.lock().unwrap().push((done, total));
    let mut ctx = Context::new(&data, 0, None);
    ctx.progress = &record;
    dl::train_ndl(&ctx, &Params::default()).unwrap();
    let seen = seen.into_inner().unwrap();
    let n = data.n_rows() as u64;
    // iris: 3 classes, so 2 norms × 2 editings, 5 folds.
    let candidates = 5 * 4;
    let split = seen.iter().position(|&(_, t)| t == n).expect("a row phase");
    let (choosing, building) = seen.split_at(split);
    assert!(choosing.iter().all(|&(d, t)| t == candidates && d <= t), "{choosing:?}");
    assert_eq!(choosing.last().map(|p| p.0), Some(candidates), "{choosing:?}");
    assert!(building.len() >= 2, "{building:?}");
    assert!(building.windows(2).all(|w| w[0].0 <= w[1].0), "{building:?}");
    assert!(building.iter().all(|&(d, t)| t == n && d <= t));
    assert_eq!(building.last().unwrap().0, n);
}

/// `Params::search_all_up_to`: a list trained on no more rows than that searches all of them,
/// so the default sample size changes nothing there (the same model as no sample at all); with
/// `search_all_up_to: 0` the sample applies to any number of rows.
#[test]
fn lists_on_few_rows_search_all_of_them_by_default() {
    let mut rng = Rng::new(22);
    let normals = synth::orthogonal_normals(5, &mut rng);
    let (x, mut y) = synth::orthogonal_intersection(&normals, 600, 600, &mut rng);
    for c in y.iter_mut() {
        if rng.f64() < 0.05 {
            *c = 1 - *c;
        }
    }
    let data = numeric_dataset(&x, &y);
    let fit = |p: &Params| dl::fit(&Context::new(&data, 4, None), Some(Shape::Ndl), p).unwrap();
    let default = Params::default();
    assert!(data.n_rows() <= default.search_all_up_to);
    let small_sample = Params { max_search_rows: Some(200), ..Params::default() };
    let unbounded = fit(&Params { max_search_rows: None, ..Params::default() });
    assert_eq!(fit(&default).spec, unbounded.spec);
    assert_eq!(fit(&small_sample).spec, unbounded.spec);
    // With the threshold off, the 200-row sample is searched: another list, whose nodes take
    // rows of other classes outside the sample.
    let sampled = fit(&Params { search_all_up_to: 0, ..small_sample });
    assert_ne!(sampled.spec, unbounded.spec);
    assert!(sampled.report().node_info.iter().any(|n| n.wrong_class > 0));
}

/// `Params::max_search_rows`: on more rows than that, each step searches a seeded sample; the
/// list still ends, is deterministic, and every training row is accounted for by its nodes.
#[test]
fn searching_a_sample_of_the_rows_is_deterministic_and_accounts_for_every_row() {
    let mut rng = Rng::new(21);
    let normals = synth::orthogonal_normals(5, &mut rng);
    let (x, mut y) = synth::orthogonal_intersection(&normals, 600, 600, &mut rng);
    // 5 % label noise: exact covers would memorise it.
    for c in y.iter_mut() {
        if rng.f64() < 0.05 {
            *c = 1 - *c;
        }
    }
    let data = numeric_dataset(&x, &y);
    let p = Params { max_search_rows: Some(200), search_all_up_to: 0, ..Params::default() };
    let fit = |seed| dl::fit(&Context::new(&data, seed, None), Some(Shape::Ndl), &p).unwrap();
    let (a, b) = (fit(4), fit(4));
    assert_eq!(a.spec, b.spec);
    let r = a.report();
    assert!(r.nodes >= 1);
    let covered: usize = r.node_info.iter().map(|n| n.covered).sum();
    assert!(covered <= data.n_rows());
    let trained = learn::finish(a.spec.clone(), &Context::new(&data, 4, None), false).unwrap();
    assert!(trained.train_accuracy > 0.8, "{}", trained.train_accuracy);
}

#[test]
fn prune_weights_zeroes_only_what_no_decision_needs() {
    use ltu::model::Unit;
    // Score 4·x0 + 1·x1 + 0·x2 − 2 over rows where x0 alone decides: x1 never flips a sign.
    let features = vec![vec![1, 1, 5], vec![1, -1, 5], vec![-1, 1, 5], vec![-1, -1, 5], vec![0, 1, 5]];
    let mut unit = Unit { terms: vec![0, 1, 2], rows: vec![vec![4, 1, 0, -2]], classes: vec![0, 1] };
    let before: Vec<bool> = features.iter().map(|f| unit.row_score(0, f) > 0).collect();
    let rows: Vec<usize> = (0..features.len()).collect();
    assert_eq!(dl::prune_weights(&mut unit, &features, &[1, 1, 5], &rows), 1);
    assert_eq!(unit.rows[0], [4, 0, 0, -2], "x1 zeroed, x0 and the bias kept");
    let after: Vec<bool> = features.iter().map(|f| unit.row_score(0, f) > 0).collect();
    assert_eq!(before, after);
    // A row where x1 matters (x0 = 0 alone scores −2, with x1 = 3 it fires): x1 stays.
    let features = vec![vec![1, 0, 0], vec![0, 3, 0], vec![-1, 0, 0]];
    let mut unit = Unit { terms: vec![0, 1, 2], rows: vec![vec![4, 1, 0, -2]], classes: vec![0, 1] };
    assert_eq!(dl::prune_weights(&mut unit, &features, &[1, 3, 1], &[0, 1, 2]), 0);
    assert_eq!(unit.rows[0], [4, 1, 0, -2]);
}

#[test]
fn pruned_lists_decide_every_training_row_as_unpruned_ones_with_fewer_weights() {
    // A list over 7 classes, and a halfspace intersection (`None`: hsi's default shape).
    for (file, shape) in [("zoo.csv", Some(Shape::Ndl)), ("mushroom.csv", None)] {
        let data = load(file, &[]);
        let ctx = Context::new(&data, 0, None);
        // The same settings for both (the choice could differ between them).
        let fixed = Params { choose: None, ..Params::default() };
        let pruned = dl::fit(&ctx, shape, &Params { prune_weights: true, ..fixed.clone() }).unwrap();
        let full = dl::fit(&ctx, shape, &fixed).unwrap();
        let nonzero = |f: &dl::Fitted| f.spec.stats().weights_nonzero;
        assert!(nonzero(&pruned) < nonzero(&full), "{file}: {} vs {}", nonzero(&pruned), nonzero(&full));
        assert!(pruned.report().lp.weights_pruned > 0);
        assert_eq!(full.report().lp.weights_pruned, 0);
        for x in &ctx.raw {
            assert_eq!(pruned.spec.predict(x), full.spec.predict(x), "row {x:?}");
        }
        learn::finish(pruned.spec.clone(), &ctx, true).unwrap();
    }
}

/// The 1-norm margin puts weight only where the separation needs it: `x0` alone separates these
/// points; the max-norm margin also leans on `x1`, which widens its margin a little.
#[test]
fn sum_norm_margin_uses_only_the_features_the_separation_needs() {
    let x = pts(&[&[0.8, 0.3], &[0.6, -0.5], &[0.9, 0.9], &[-0.7, 0.4], &[-0.5, -0.8], &[-0.9, 0.1]]);
    let (covered, excluded) = ([0, 1, 2], [3, 4, 5]);
    let start = dl::Halfspace { w: vec![1.0, 0.0], b: 0.0 };
    let dense = inclp::max_margin(&x, &covered, &excluded, &start, dl::Norm::Max).unwrap();
    let sparse = inclp::max_margin(&x, &covered, &excluded, &start, dl::Norm::Sum).unwrap();
    assert_separates(&x, &covered, &excluded, &dense);
    assert_separates(&x, &covered, &excluded, &sparse);
    assert!(dense.w[1] > 1e-3, "{dense:?}");
    assert!(sparse.w[1].abs() < 1e-9 && sparse.w[0] > 0.0, "{sparse:?}");
}

/// Wilson's editing leaves out a row whose neighbours are all of another class, so the list
/// spends no entry on it and gives it its neighbours' class.
#[test]
fn editing_leaves_out_a_row_among_another_class() {
    let mut data = load("iris.csv", &[]);
    assert_eq!(data.y[0], 0);
    data.y[0] = 2; // a setosa labelled virginica
    let ctx = Context::new(&data, 0, None);
    let fit = |k| {
        dl::fit(
            &ctx,
            Some(Shape::Ndl),
            &Params { choose: None, edit_neighbours: Some(k), ..Params::default() },
        )
    };
    let (kept, edited) = (fit(0).unwrap(), fit(3).unwrap());
    assert_eq!(kept.report().edited, 0);
    assert!(edited.report().edited >= 1, "{:?}", edited.report());
    assert!(
        edited.report().nodes < kept.report().nodes,
        "{} vs {}",
        edited.report().nodes,
        kept.report().nodes
    );
    assert_eq!(kept.spec.predict(&ctx.raw[0]), 2, "the exact covering learns the flipped row");
    assert_eq!(edited.spec.predict(&ctx.raw[0]), 0, "edited out: its neighbours' class");
}

/// With enough rows the candidate settings race: after each inner fold the better half goes on,
/// so the losers were tested on fewer folds, the winner on the most, and the progress count
/// ends at its total. Below the threshold every candidate sees every fold.
#[test]
fn candidate_settings_race_on_many_rows() {
    let data = load("breast-cancer-wisconsin.csv", &[]);
    let calls = std::sync::Mutex::new(Vec::new());
    let progress = |done: u64, total: u64| calls.lock().unwrap().push((done, total));
    let mut ctx = Context::new(&data, 0, None);
    ctx.progress = &progress;
    let choose = |race_from_rows| dl::Choose { race_from_rows, ..dl::Choose::default() };
    let raced =
        dl::fit(&ctx, Some(Shape::Ndl), &Params { choose: Some(choose(0)), ..Params::default() }).unwrap();
    let folds: Vec<usize> = raced.report().candidates.iter().map(|c| c.folds).collect();
    // Eight candidates (two norms, editing or not, list or intersection): 8, 8, 4, 2 per fold.
    assert_eq!(folds.len(), 8, "{folds:?}");
    assert_eq!(folds[0], 4, "the winner ran four folds: {folds:?}");
    assert_eq!(folds.iter().filter(|&&f| f == 2).count(), 4, "{folds:?}");
    assert_eq!(folds.iter().filter(|&&f| f == 3).count(), 2, "{folds:?}");
    // The race's phase counts 8 + 8 + 4 + 2 lists and reaches its end.
    assert!(calls.lock().unwrap().contains(&(22, 22)), "{:?}", calls.lock().unwrap());
    let full =
        dl::fit(&ctx, Some(Shape::Ndl), &Params { choose: Some(choose(usize::MAX)), ..Params::default() })
            .unwrap();
    assert!(full.report().candidates.iter().all(|c| c.folds == 5), "{:?}", full.report().candidates);
}

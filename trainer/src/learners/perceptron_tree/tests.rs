//! Unit tests of the perceptron tree's pieces.

use super::{LogBase, Order, SplitRule};

#[test]
fn option_names_round_trip() {
    crate::names::assert_round_trips(Order::ALL);
    crate::names::assert_round_trips(SplitRule::ALL);
    crate::names::assert_round_trips(LogBase::ALL);
    assert_eq!(Order::ALL, [Order::Cyclic, Order::Shuffled]);
    assert_eq!(SplitRule::Corollary1.to_string(), "corollary1");
    assert_eq!(LogBase::Two.name(), "two");
}

use super::space::quantile_edges;
use super::{FeatureSpace, NodeState, Params, PerceptronTree, Test};
use crate::model::InputSpec;

/// The attribute a decision node's test reads.
fn tested_attr(t: Test) -> usize {
    match t {
        Test::Categorical { attr } | Test::Value { attr, .. } | Test::Threshold { attr, .. } => attr,
    }
}

#[test]
fn xor_splits_the_root_on_one_of_its_attributes() {
    // label = x0 ⊕ x1 with a third, irrelevant attribute: no single LTU separates the classes,
    // so the root LTU stops making progress and the split test must pick x0 or x1.
    let mut tree = PerceptronTree::new(FeatureSpace::categorical(&[2; 3]), 2, &Params::paper());
    let rows: Vec<[i32; 3]> = (0..8).map(|i| [(i >> 2) & 1, (i >> 1) & 1, i & 1]).collect();
    let label = |r: &[i32; 3]| usize::from(r[0] != r[1]);
    let mut n = 0;
    while !rows.iter().all(|r| tree.predict(r) == label(r)) {
        assert!(n < 10_000, "no consistent tree after {n} updates");
        let r = &rows[n % rows.len()];
        tree.update(r, label(r));
        n += 1;
    }
    let NodeState::Decision(root) = &tree.nodes[0] else { panic!("root is not a decision node") };
    assert!(tested_attr(root.test) < 2, "root tests {:?}", root.test);
    assert!(tree.stats().decision_nodes >= 1);
}

#[test]
fn quantile_edges_split_into_equal_bins_and_drop_the_maximum() {
    assert_eq!(quantile_edges((1..=8).collect(), 4), vec![2, 4, 6]);
    // Repeated values give one edge; a constant input gives none (nothing to split).
    assert_eq!(quantile_edges(vec![1, 1, 1, 2], 2), vec![1]);
    assert_eq!(quantile_edges(vec![5; 6], 3), Vec::<i32>::new());
    assert_eq!(quantile_edges(Vec::new(), 3), Vec::<i32>::new());
}

/// `n` rows of 16 categorical attributes of 3 values whose class is one linear threshold
/// function of six of them, with a tenth of the labels flipped: the signal is one linear unit.
fn noisy_linear(n: usize, seed: u64) -> (Vec<InputSpec>, Vec<Vec<i32>>, Vec<usize>) {
    let space = FeatureSpace::categorical(&[3; 16]);
    let mut rng = crate::rng::Rng::new(seed);
    let mut rows = Vec::with_capacity(n);
    let mut labels = Vec::with_capacity(n);
    for _ in 0..n {
        let x: Vec<i32> = (0..16).map(|_| rng.below(3) as i32).collect();
        let score: i32 = x[..6].iter().enumerate().map(|(j, &v)| if j % 2 == 0 { v } else { -v }).sum();
        let clean = usize::from(score > 0);
        labels.push(if rng.below(10) == 0 { 1 - clean } else { clean });
        rows.push(x);
    }
    (space.inputs.clone(), rows, labels)
}

#[test]
fn a_noisy_problem_whose_signal_is_one_unit_gets_one_unit() {
    // Above the hold-out threshold the defaults choose the size on held-out rows, charging every
    // weight: the subtrees the noise makes the error-correction procedure grow do not pay.
    let (inputs, rows, labels) = noisy_linear(crate::data::split::HOLD_OUT_PRUNING_ROWS + 2_000, 7);
    let (tree, report) =
        PerceptronTree::learn(&inputs, &rows, &labels, 2, &Params::default(), 1, &|_, _| {}).unwrap();
    assert!(report.before_pruning.decision_nodes > 0, "nothing grew: {report:?}");
    let stats = tree.stats();
    assert_eq!((stats.decision_nodes, stats.ltus), (0, 1), "{report:?}");
    // The unit is the signal: about 90 % of the (noisy) rows right.
    let correct = rows.iter().zip(&labels).filter(|(x, &y)| tree.predict(x) == y).count();
    assert!(correct as f64 > 0.88 * rows.len() as f64, "{correct} of {} right", rows.len());
}

#[test]
fn charging_weights_prunes_subtrees_reduced_error_pruning_keeps() {
    let (inputs, rows, labels) = noisy_linear(6_000, 11);
    let (fit, val) = rows.split_at(4_000);
    let (fit_labels, val_labels) = labels.split_at(4_000);
    let p = Params { max_depth: 3, ..Params::default() };
    let space = FeatureSpace::standard(&inputs, fit, p.numeric_max_abs, p.numeric_bins);
    let mut grown = PerceptronTree::new(space, 2, &p);
    grown.fit(fit, fit_labels, &p, 3, &|_, _| {});
    let mut plain = grown.clone();
    plain.prune(val, val_labels, 0.0);
    let mut charged = grown;
    charged.prune(val, val_labels, 0.05);
    assert!(charged.cost(0) < plain.cost(0), "{} against {}", charged.cost(0), plain.cost(0));
    let errors = |t: &PerceptronTree| val.iter().zip(val_labels).filter(|(x, &y)| t.predict(x) != y).count();
    // The charge buys the weights back with few held-out errors: never more than it saved.
    let saved = (plain.cost(0) - charged.cost(0)) as f64 * 0.05;
    assert!(errors(&charged) as f64 <= errors(&plain) as f64 + saved);
}

#[test]
fn held_out_growing_splits_on_an_interaction_a_unit_cannot_fit() {
    // Class: an additive score of x2..x5 plus 2 when x0 = x1 (an interaction no unit over
    // one-hot features fits), a twentieth of the labels flipped.
    let space = FeatureSpace::categorical(&[3; 12]);
    let mut rng = crate::rng::Rng::new(3);
    let n = crate::data::split::HOLD_OUT_PRUNING_ROWS + 2_000;
    let (mut rows, mut labels) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for _ in 0..n {
        let x: Vec<i32> = (0..12).map(|_| rng.below(3) as i32).collect();
        let score = x[2] - x[3] + x[4] - x[5] + if x[0] == x[1] { 2 } else { -1 };
        let clean = usize::from(score > 0);
        labels.push(if rng.below(20) == 0 { 1 - clean } else { clean });
        rows.push(x);
    }
    let (tree, report) =
        PerceptronTree::learn(&space.inputs, &rows, &labels, 2, &Params::default(), 1, &|_, _| {}).unwrap();
    let NodeState::Decision(root) = &tree.nodes[0] else { panic!("no split: {report:?}") };
    assert!(tested_attr(root.test) < 2, "root tests {:?}", root.test);
    let correct = rows.iter().zip(&labels).filter(|(x, &y)| tree.predict(x) == y).count();
    assert!(correct as f64 > 0.93 * n as f64, "{correct} of {n} right");
}

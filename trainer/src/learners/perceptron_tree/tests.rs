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

//! `ModelSpec::essential_work`, the yardstick for what a prediction cannot do without,
//! and `ModelSpec::macs` / `row_cost`, counted by hand on small models.

use ltu::model::{
    Feature, InputKind, InputSpec, Literal, LiteralOp, ModelSpec, Node, Structure, Unit, WeightKind,
};

fn numeric() -> InputSpec {
    InputSpec { kind: InputKind::Numeric { scale_exp: 0, offset: 0 }, missing: 0 }
}

/// Inputs x0, x1 (numeric); features: f0 = scaled x0, f1 = [x1 > 5], f2 = [x0 == 1 & x1 > 5].
fn spec(structure: Structure, units: Vec<Unit>) -> ModelSpec {
    ModelSpec {
        pipeline: None,
        n_classes: 3,
        weight_kind: WeightKind::I16,
        inputs: vec![numeric(), numeric()],
        features: vec![
            Feature::Numeric { attr: 0, offset: 0, mul: 1, shift: 0, max_abs: 100 },
            Feature::Greater { attr: 1, value: 5 },
            Feature::Conjunction(vec![
                Literal { attr: 0, op: LiteralOp::Eq, value: 1 },
                Literal { attr: 1, op: LiteralOp::Gt, value: 5 },
            ]),
        ],
        units,
        structure,
        names: None,
    }
}

#[test]
fn tree_counts_nodes_features_weights_and_rows() {
    // A machine of 3 rows over f0, f1, f2 at the right of a threshold node; f2 has zero weights
    // in every row, so it is never computed.
    let machine = Unit {
        terms: vec![0, 1, 2],
        rows: vec![vec![1, 0, 0, 0], vec![0, 2, 0, 1], vec![3, 4, 0, 0]],
        classes: vec![0, 1, 2],
    };
    let tree = Structure::Tree(vec![
        Node::Threshold { attr: 1, threshold: 0, left: 1, right: 2 },
        Node::Class(0),
        Node::Unit(0),
    ]);
    let m = spec(tree, vec![machine]);
    // Left: 10 + 2 nodes.
    assert_eq!(m.essential_work(&[1, 0]), 10 + 2 * 6);
    // Right: 10 + 2 nodes + 3 rows + 4 non-zero weights + f0 (numeric) + f1 (comparison).
    assert_eq!(m.essential_work(&[1, 9]), 10 + 2 * 6 + 3 * 8 + 4 * 5 + 15 + 5);
    // Multiply-accumulates: none on the left, rows × terms of the machine on the right.
    assert_eq!((m.macs(&[1, 0]), m.macs(&[1, 9])), (0, 9));
    assert_eq!(m.stats().max_macs, 9);
    let cost = m.row_cost(&[vec![1, 0], vec![1, 9], vec![1, 9], vec![5, 0]]);
    assert_eq!((cost.mean_macs, cost.max_macs), (4.5, 9));
    assert_eq!(cost.max_essential_work, 10 + 2 * 6 + 3 * 8 + 4 * 5 + 15 + 5);
    assert_eq!(cost.mean_essential_work, (2.0 * 22.0 + 2.0 * 86.0) / 4.0);
}

#[test]
fn list_stops_at_the_entry_that_fires_and_counts_each_feature_once() {
    // Entry 0 reads f0 and the conjunction f2; entry 1 reads f0 again and f1.
    let u0 = Unit { terms: vec![0, 2], rows: vec![vec![1, 1, -1000]], classes: vec![0, 1] };
    let u1 = Unit { terms: vec![0, 1], rows: vec![vec![1, 1, 0]], classes: vec![0, 2] };
    let m = spec(Structure::List { entries: vec![(0, 1), (1, 2)], default: 0 }, vec![u0, u1]);
    // x0 = 2: the conjunction's first literal fails (one literal tested); entry 0 does not fire
    // (2 - 1 - 1000 <= 0); entry 1 fires (2 + 1 > 0).
    let per_entry = 6 + 8 + 2 * 5;
    assert_eq!(m.essential_work(&[2, 9]), 10 + 2 * per_entry + 15 + (4 + 6) + 5);
    // x0 = 1, x1 = 9: both literals tested.
    assert_eq!(m.essential_work(&[1, 9]), 10 + 2 * per_entry + 15 + (4 + 2 * 6) + 5);
    // Both entries tried: 2 terms each.
    assert_eq!(m.macs(&[2, 9]), 4);
    // Entries swapped: entry u1 fires for x0 = 2 (2 + 1 > 0), so u0 is not scored; for
    // x0 = -5, x1 = 0 it does not (-5 - 1 <= 0) and both are.
    let (u0, u1) = (m.units[0].clone(), m.units[1].clone());
    let swapped = spec(Structure::List { entries: vec![(1, 2), (0, 1)], default: 0 }, vec![u0, u1]);
    assert_eq!((swapped.macs(&[2, 9]), swapped.macs(&[-5, 0])), (2, 4));
}

//! Unit tests of the oblique tree's pieces.

use super::export::{diagram, Link};
use super::grow::refit_bias;
use super::{NodeModel, Partition, Significance};

#[test]
fn option_names_round_trip() {
    crate::names::assert_round_trips(NodeModel::ALL);
    crate::names::assert_round_trips(Partition::ALL);
    crate::names::assert_round_trips(Significance::ALL);
}

#[test]
fn refit_bias_finds_the_separating_threshold() {
    let scores = [-5, -3, 0, 2, 4, 9];
    let target = [false, false, false, true, true, true];
    let (b, e) = refit_bias(&scores, &target, [1, 1], 100, 1000);
    assert_eq!(e, 0);
    // Any c in [0, 1] separates; the preferred bias 100 (c = -100) clamps to c = 0.
    assert_eq!(b, 0);
    assert!(scores.iter().zip(target).all(|(&s, t)| (s + b > 0) == t));
}

#[test]
fn diagram_matches_the_threshold_function() {
    let out = [5, -3, 2, 1];
    for bias in -8..8 {
        let d = diagram(&out, bias);
        for bits in 0..16u32 {
            let want = (0..4).filter(|&h| bits >> h & 1 == 1).map(|h| out[h]).sum::<i64>() + bias > 0;
            let got = match &d {
                Err(side) => *side,
                Ok(states) => {
                    let mut i = 0;
                    loop {
                        let (h, l, r) = states[i];
                        match if bits >> h & 1 == 1 { r } else { l } {
                            Link::State(j) => {
                                assert!(j > i, "links point forward");
                                i = j;
                            }
                            Link::Exit(s) => break s,
                        }
                    }
                }
            };
            assert_eq!(got, want, "bias {bias} bits {bits:04b}");
        }
    }
}

#[test]
fn large_data_defaults_start_above_the_hold_out_size() {
    let p = super::Params::default();
    let m = crate::data::split::HOLD_OUT_PRUNING_ROWS;
    assert_eq!(p.net_rows_for(m, 20), usize::MAX);
    assert_eq!(p.net_rows_for(m + 1, 20), super::NET_ROWS);
    assert_eq!(p.net_rows_for(m + 1, 149), 150 * super::NET_ROWS_PER_WEIGHT);
    let given = super::Params { net_rows: Some(300), ..p.clone() };
    assert_eq!((given.net_rows_for(10, 20), given.net_rows_for(m + 1, 149)), (300, 300));
    assert_eq!((p.max_nodes_for(m), p.max_nodes_for(m + 1)), (super::MAX_NODES, super::LARGE_MAX_NODES));
    assert_eq!((p.epochs_for(m), p.epochs_for(m + 1)), (p.epochs, p.large_epochs));
    assert!(super::Params { net_rows: Some(99), ..p.clone() }.check().is_err());
    assert!(super::Params { large_epochs: 0, ..p }.check().is_err());
}

/// Networks trained on a sample of each node's rows still give a tree whose integer tests route
/// every row (the runtime agrees on every training row in `learn::finish`), which fits vehicle
/// about as well as the tree trained on every row, and is another tree.
#[test]
fn sampled_nodes_learn_vehicle() {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/vehicle.csv");
    let data = crate::data::load(&path, &crate::data::LoadOptions::default()).expect("vehicle");
    let ctx = crate::learn::Context::new(&data, 0, None);
    let base = super::Params { max_nodes: Some(8), epochs: 40, ..super::Params::default() };
    let acc = |p: &super::Params| {
        let tree = super::fit(&ctx, p).expect("fits");
        let trained = crate::learn::finish(tree.spec.clone(), &ctx, false).expect("finishes");
        (trained.train_accuracy, trained.bytes)
    };
    let (full, full_bytes) = acc(&base);
    let (sampled, sampled_bytes) = acc(&super::Params { net_rows: Some(200), ..base });
    assert!(sampled >= full - 0.08 && sampled >= 0.6, "sampled {sampled} against full {full}");
    assert_ne!(sampled_bytes, full_bytes);
}

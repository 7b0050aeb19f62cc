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

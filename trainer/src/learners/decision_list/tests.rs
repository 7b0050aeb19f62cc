//! Unit tests of the decision list's pieces.

use super::{learn, majority, Params, Sample, Shape};

/// Three classes in bands of one input: `x < -0.4` is 0, `x > 0.4` is 2, the middle is 1.
fn bands() -> (Vec<Vec<f64>>, Vec<usize>) {
    let x: Vec<Vec<f64>> = (0..21).map(|i| vec![-1.0 + 0.1 * f64::from(i)]).collect();
    let y = x
        .iter()
        .map(|r| {
            if r[0] < -0.4 {
                0
            } else if r[0] > 0.4 {
                2
            } else {
                1
            }
        })
        .collect();
    (x, y)
}

#[test]
fn a_separable_set_is_covered_exactly() {
    // Each outer band is one halfspace away from the rest, so the list covers them and leaves
    // the middle band to the default: every training row is decided correctly.
    let (x, y) = bands();
    let s = Sample { x: &x, y: &y, n_classes: 3, quant: None };
    let l = learn(&s, Shape::Ndl, &Params::default(), 7).expect("learns");
    for (r, &c) in x.iter().zip(&y) {
        assert_eq!(l.predict_float(r), c, "row {r:?}");
    }
    assert!(!l.nodes.is_empty() && l.nodes.len() <= 2, "{} entries", l.nodes.len());
}

#[test]
fn majority_ties_go_to_the_lowest_class() {
    let y = [2, 1, 1, 2, 0];
    assert_eq!(majority(&y, [0, 1, 2, 3].into_iter(), 3), 1);
    assert_eq!(majority(&y, [0, 4].into_iter(), 3), 0);
    assert_eq!(majority(&y, std::iter::empty(), 0), 0);
}

//! Unit tests of the decision list's pieces.

use super::{learn, majority, Params, Sample, Shape, Tolerance};

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

/// `n` rows of a noisy three-class problem in `[-1, 1]^2`: the class is the band of `x₀ + x₁`
/// (below -0.5, between, above 0.5), and a share `noise` of the rows gets a uniformly drawn
/// class instead.
fn noisy_bands(n: usize, noise: f64, seed: u64) -> (Vec<Vec<f64>>, Vec<usize>) {
    let mut rng = crate::rng::Rng::new(seed);
    let mut x = Vec::with_capacity(n);
    let mut y = Vec::with_capacity(n);
    for _ in 0..n {
        let r = vec![2.0 * rng.f64() - 1.0, 2.0 * rng.f64() - 1.0];
        let s = r[0] + r[1];
        let c = if s < -0.5 {
            0
        } else if s > 0.5 {
            2
        } else {
            1
        };
        y.push(if rng.f64() < noise { rng.below(3) } else { c });
        x.push(r);
    }
    (x, y)
}

fn accuracy(l: &super::Learned, x: &[Vec<f64>], y: &[usize]) -> f64 {
    x.iter().zip(y).filter(|(r, &c)| l.predict_float(r) == c).count() as f64 / y.len() as f64
}

#[test]
fn tolerant_entries_beat_the_exact_covering_on_noisy_rows() {
    // With 15 % of the labels redrawn the exact covering spends an entry on each small pure
    // cluster and fits the noise; tolerant entries (each may cover a share of other classes,
    // the list stopped and pruned on held-out rows) follow the bands.
    let (x, y) = noisy_bands(800, 0.15, 1);
    let (tx, ty) = noisy_bands(4000, 0.0, 2);
    let s = Sample { x: &x, y: &y, n_classes: 3, quant: None };
    let exact = Params { tolerance: Some(Tolerance::Exact), choose: None, ..Params::default() };
    let tolerant = Params { tolerance: Some(Tolerance::HeldOut), choose: None, ..Params::default() };
    let e = learn(&s, Shape::Ndl, &exact, 3).expect("learns");
    let t = learn(&s, Shape::Ndl, &tolerant, 3).expect("learns");
    let (ea, ta) = (accuracy(&e, &tx, &ty), accuracy(&t, &tx, &ty));
    assert!(ta > ea + 0.03, "tolerant {ta} vs exact {ea}");
    assert!(ta > 0.9, "tolerant {ta}");
    assert!(t.nodes.len() < e.nodes.len(), "{} vs {} entries", t.nodes.len(), e.nodes.len());
    // Some tolerant entry covers rows of another class, within the largest share tried.
    assert!(t.nodes.iter().any(|n| n.info.wrong_class > 0));
    assert!(t.report.validation_rows > 0);
}

#[test]
fn a_tolerant_entry_keeps_within_its_share() {
    let (x, y) = noisy_bands(600, 0.1, 4);
    let s = Sample { x: &x, y: &y, n_classes: 3, quant: None };
    let p = Params { tolerance: Some(Tolerance::Share(0.1)), choose: None, ..Params::default() };
    let l = learn(&s, Shape::Ndl, &p, 5).expect("learns");
    // The first entry is cut by the share (later ones may be the closing entry of mixed rows).
    let first = &l.report.node_info[0];
    assert!(first.wrong_class > 0 && first.wrong_class as f64 <= 0.1 * first.covered as f64, "{first:?}");
}

#[test]
fn the_exact_covering_stays_the_default_without_choose() {
    // The published procedure: no tolerance unless asked for or chosen.
    let (x, y) = noisy_bands(200, 0.1, 6);
    let s = Sample { x: &x, y: &y, n_classes: 3, quant: None };
    let l = learn(&s, Shape::Ndl, &Params { choose: None, ..Params::default() }, 1).expect("learns");
    assert!(l.report.node_info.iter().all(|n| n.wrong_class == 0));
    assert_eq!(l.report.validation_rows, 0);
    assert_eq!(Params::unbounded_search().tolerance, Some(Tolerance::Exact));
}

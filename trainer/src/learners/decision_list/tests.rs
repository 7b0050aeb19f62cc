//! Unit tests of the decision list's pieces.

use super::{learn, majority, Params, Quant, Sample, Shape, Tolerance};
use crate::model::WeightKind;

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

/// `n` rows of four classes in `[-1, 1]^2`, each class two clusters on opposite sides of the
/// origin: eight clusters on a circle, class `k mod 4` for the `k`-th. No halfspace takes most
/// of a class and little else (its clusters lie on both sides of every line through its mean),
/// and, the circle turned by half a step, no single input isolates a cluster either.
fn opposite_clusters(n: usize, seed: u64) -> (Vec<Vec<f64>>, Vec<usize>) {
    let mut rng = crate::rng::Rng::new(seed);
    let (mut x, mut y) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for _ in 0..n {
        let k = rng.below(8);
        let angle = std::f64::consts::PI * (k as f64 + 0.5) / 4.0;
        let r: Vec<f64> = [angle.cos(), angle.sin()]
            .iter()
            .map(|c| (0.7 * c + 0.08 * rng.normal()).clamp(-1.0, 1.0))
            .collect();
        x.push(r);
        y.push(k % 4);
    }
    (x, y)
}

#[test]
fn tolerant_entries_peel_the_clusters_of_a_class() {
    // One score per class against the rest finds no entry that keeps within a share; a score
    // per cluster of the class does, and the list takes the eight clusters one by one.
    let (x, y) = opposite_clusters(2000, 8);
    let (tx, ty) = opposite_clusters(4000, 9);
    let s = Sample { x: &x, y: &y, n_classes: 4, quant: None };
    let p = Params { tolerance: Some(Tolerance::HeldOut), choose: None, ..Params::default() };
    let l = learn(&s, Shape::Ndl, &p, 3).expect("learns");
    let a = accuracy(&l, &tx, &ty);
    assert!(a > 0.95, "accuracy {a} with {} entries", l.nodes.len());
    assert!(l.nodes.len() <= 24, "{} entries", l.nodes.len());
}

/// `n` rows of two 5-valued attributes and ten 5-valued noise attributes as `±1` value features
/// (60 inputs), class 1 iff `(a + b) mod 5` is 0 or 1, with a share `noise` of the labels
/// flipped. The class is an interaction: over all rows every value feature is nearly
/// uninformative, and class 1 is 10 of the 25 value pairs, more than a score per cluster can
/// isolate (its clusters are drawn over the noise attributes too); within one value of `a` it is
/// two values of `b`.
pub(super) fn interaction(n: usize, noise: f64, seed: u64) -> (Vec<Vec<f64>>, Vec<usize>) {
    let mut rng = crate::rng::Rng::new(seed);
    let (mut x, mut y) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for _ in 0..n {
        let v: Vec<usize> = (0..12).map(|_| rng.below(5)).collect();
        let row: Vec<f64> =
            v.iter().flat_map(|&k| (0..5).map(move |j| if j == k { 1.0 } else { -1.0 })).collect();
        let mut c = usize::from((v[0] + v[1]) % 5 <= 1);
        if rng.f64() < noise {
            c = 1 - c;
        }
        x.push(row);
        y.push(c);
    }
    (x, y)
}

#[test]
fn mixed_rows_left_get_closing_entries_instead_of_the_default() {
    // Two overlapping Gaussian classes along one input (means ∓0.3, spread 0.35): no halfspace
    // takes a large share of either class within 6 % of the other, so without closing entries
    // the rows in the overlap all get the default class. Cut where they gain, the entries
    // place the boundary near 0, as the Bayes rule does (about 80 % right).
    let mut rng = crate::rng::Rng::new(21);
    let mut draw = |n: usize| -> (Vec<Vec<f64>>, Vec<usize>) {
        (0..n)
            .map(|_| {
                let c = rng.below(2);
                let m = if c == 0 { -0.3 } else { 0.3 };
                (vec![(m + 0.35 * rng.normal()).clamp(-1.0, 1.0), rng.f64() * 2.0 - 1.0], c)
            })
            .unzip()
    };
    let (x, y) = draw(3000);
    let (tx, ty) = draw(4000);
    let s = Sample { x: &x, y: &y, n_classes: 2, quant: None };
    let p = Params { tolerance: Some(Tolerance::Share(0.06)), choose: None, ..Params::default() };
    let l = learn(&s, Shape::Ndl, &p, 5).expect("learns");
    let a = accuracy(&l, &tx, &ty);
    assert!(a > 0.77, "accuracy {a} with {} entries", l.nodes.len());
}

#[test]
fn quantized_tolerant_entries_cover_their_minimum_share_of_rows() {
    // Five overlapping Gaussian classes on a coarse integer grid with 8-bit weights: a cut at its
    // share on the float score moves a few rows across when the unit is rounded, and the entry
    // taken must still be one of the large ones, not an entry of a few rows further down.
    let mut rng = crate::rng::Rng::new(31);
    let means: Vec<Vec<f64>> = (0..5).map(|_| (0..6).map(|_| 0.5 * rng.normal()).collect()).collect();
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for _ in 0..6000 {
        let c = rng.below(5);
        x.push(
            means[c]
                .iter()
                .map(|m| ((m + 0.45 * rng.normal()).clamp(-1.0, 1.0) * 100.0).round() / 100.0)
                .collect(),
        );
        y.push(c);
    }
    let features: Vec<Vec<i32>> =
        x.iter().map(|r: &Vec<f64>| r.iter().map(|v| (v * 100.0).round() as i32).collect()).collect();
    let max_abs = vec![100i64; 6];
    let quant = Quant { features: &features, max_abs: &max_abs, kind: WeightKind::I8 };
    let s = Sample { x: &x, y: &y, n_classes: 5, quant: Some(quant) };
    let p = Params { tolerance: Some(Tolerance::HeldOut), choose: None, ..Params::default() };
    let l = learn(&s, Shape::Ndl, &p, 2).expect("learns");
    let min_cover = (x.len() - l.report.validation_rows) / 500;
    for n in &l.report.node_info {
        assert!(
            n.covered >= min_cover,
            "an entry of {} rows (at least {min_cover}): {:?}",
            n.covered,
            l.report.node_info
        );
    }
}

#[test]
fn tolerant_intersections_keep_the_positive_class_that_holds_out_best() {
    // Both classes as the intersection's positive class, on a noisy interaction: with tolerant
    // entries the lists hold rows out, and the one kept is the more accurate there, whatever
    // their lengths.
    let (x, y) = interaction(3000, 0.05, 11);
    let s = Sample { x: &x, y: &y, n_classes: 2, quant: None };
    let p = Params { tolerance: Some(Tolerance::HeldOut), choose: None, ..Params::default() };
    let hsi = |positive| {
        let l =
            learn(&s, Shape::Hsi { shape: super::HsiShape::Intersection, positive }, &p, 3).expect("learns");
        (l.report.validation_accuracy.expect("held out"), l.nodes.len())
    };
    let (zero, one) = (hsi(0), hsi(1));
    let kept = super::learn::learn_hsi(&s, &p, 3).expect("learns");
    let best = if zero.0 > one.0 { zero } else { one };
    assert_eq!(
        (kept.report.validation_accuracy, kept.nodes.len()),
        (Some(best.0), best.1),
        "{zero:?} {one:?}"
    );
    // The case decides: the more accurate list is not the shorter one.
    let shorter = if zero.1 < one.1 { zero } else { one };
    assert!(shorter.0 < best.0, "{zero:?} {one:?}");
}

//! Integer weights within the runtime's proven accumulator bound: the one implementation every
//! learner and the byte codec (`ModelSpec::to_bytes`) use.
//!
//! A unit's weight row holds one stored value per term and its bias last (the IR's layout,
//! [`Unit::rows`](crate::model::Unit::rows)). The runtime accepts a row only when every value
//! fits the weight kind and the row's bound `|bias| + Σ |w_j|·max|f_j|`
//! ([`ltu_runtime::format::row_bound`]) is at most
//! [`WeightKind::accumulator_limit`]: then no input can overflow its accumulator. This module
//! answers the three questions a learner has about that bound:
//!
//! - [`row_fits`] / [`rows_fit`]: does an integer row (or a unit's rows) fit a kind?
//! - [`quantize`]: float rows → integer rows. All rows of one unit share one scale `s` (a linear
//!   machine compares its rows, so they must keep their ratios); `W_j = round(s·w_j)`, chosen as
//!   large as the [`Grid`] allows and then lowered until every rounded row fits.
//! - [`rescale`]: integer rows that do not fit → divided by the smallest common power of two
//!   (rounding to nearest) after which they do.
//!
//! Float weights are per unit of the *integer* feature: a learner that trained on features
//! normalised to `x_j = f_j / max|f_j|` divides its weight `w_j` by `max|f_j|` first.
//!
//! # For a learner with float halfspaces (the decision list's API)
//!
//! ```
//! use ltu::model::{Unit, WeightKind};
//! use ltu::model::quantize::{quantize, rows_fit, Grid};
//!
//! // A halfspace 0.8·x0 − 0.3·x1 + 0.1 over x_j = f_j / max_abs_j.
//! let (w, b, max_abs) = ([0.8, -0.3], 0.1, [1024i64, 1]);
//! let row: Vec<f64> = w.iter().zip(&max_abs).map(|(w, &m)| w / m as f64).chain([b]).collect();
//! let q = quantize(&[row], &max_abs, Grid::new(WeightKind::I16));
//! assert!(rows_fit(&q.rows, &max_abs, WeightKind::I16));
//! // The IR's unit scores it; nothing else evaluates integer weights.
//! let unit = Unit { terms: vec![0, 1], rows: q.rows, classes: vec![0, 1] };
//! assert!(unit.row_score(0, &[1024, -1]) > 0);
//! ```

use ltu_runtime::format::row_bound;
use ltu_runtime::WeightKind;

/// Range of stored values of a weight kind (`i32`'s for [`WeightKind::Fixed`], whose stored
/// values are `I16F16` bits).
pub fn weight_range(kind: WeightKind) -> (i64, i64) {
    match kind {
        WeightKind::I8 => (i8::MIN.into(), i8::MAX.into()),
        WeightKind::I16 => (i16::MIN.into(), i16::MAX.into()),
        WeightKind::I32 | WeightKind::Fixed => (i32::MIN.into(), i32::MAX.into()),
    }
}

/// Whether one integer row (terms, then the bias) fits `kind`: every value within
/// [`weight_range`] and the row's accumulator bound within [`WeightKind::accumulator_limit`].
/// `max_abs[j]` is the largest absolute value of term `j`'s feature.
///
/// # Panics
/// If `row` is not one longer than `max_abs`.
pub fn row_fits(row: &[i64], max_abs: &[i64], kind: WeightKind) -> bool {
    let (lo, hi) = weight_range(kind);
    row.iter().all(|w| (lo..=hi).contains(w)) && bound(row, max_abs, 0) <= kind.accumulator_limit()
}

/// Whether every row of a unit fits `kind` ([`row_fits`]).
pub fn rows_fit(rows: &[Vec<i64>], max_abs: &[i64], kind: WeightKind) -> bool {
    rows.iter().all(|r| row_fits(r, max_abs, kind))
}

/// The runtime's bound of `row`, counting the bias as at least `bias_reserve`.
fn bound(row: &[i64], max_abs: &[i64], bias_reserve: i64) -> u64 {
    let n = max_abs.len();
    assert_eq!(row.len(), n + 1, "a row has one weight per term and a bias");
    let bias = row[n].abs().max(bias_reserve);
    row_bound(bias, row[..n].iter().zip(max_abs).map(|(&w, &m)| (w, m.unsigned_abs())))
}

/// The integer grid [`quantize`] rounds onto.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grid {
    /// Weight representation: the range of every value and the accumulator limit.
    pub kind: WeightKind,
    /// Largest stored `|weight|` of a term (at most the kind's maximum).
    pub max_weight: i64,
    /// Largest stored `|bias|` (at most the kind's maximum).
    pub max_bias: i64,
    /// Accumulator room kept for a bias the learner sets later: the bound must hold with any
    /// bias of magnitude up to `bias_reserve`, not only the rounded one (0: no reserve).
    pub bias_reserve: i64,
}

impl Grid {
    /// The whole range of `kind`, no reserve.
    pub fn new(kind: WeightKind) -> Grid {
        let (_, hi) = weight_range(kind);
        Grid { kind, max_weight: hi, max_bias: hi, bias_reserve: 0 }
    }

    fn admits(&self, row: &[i64], max_abs: &[i64]) -> bool {
        let n = max_abs.len();
        row[..n].iter().all(|w| w.abs() <= self.max_weight)
            && row[n].abs() <= self.max_bias
            && row_fits(row, max_abs, self.kind)
            && bound(row, max_abs, self.bias_reserve) <= self.kind.accumulator_limit()
    }
}

/// Integer rows and the scale that made them.
#[derive(Debug, Clone, PartialEq)]
pub struct Quantized {
    /// `round(scale · w)` of each float row, in the same layout.
    pub rows: Vec<Vec<i64>>,
    /// The common scale (0 when the rows were all zero or not finite).
    pub scale: f64,
}

/// Rounds float rows (terms, then the bias; per unit of the integer feature) onto `grid` with
/// one common scale `s`: `W = round(s·w)`.
///
/// `s` starts at the largest value for which the weights stay within [`Grid::max_weight`], the
/// biases within [`Grid::max_bias`], and the accumulator bound provably holds after rounding
/// (each rounded value may grow by ½); it is then lowered by 0.5% at a time until every rounded
/// row fits (in practice the first value does). Rows that are all zero, or hold a value that is
/// not finite, give zero rows (scale 0).
///
/// # Panics
/// If a row is not one longer than `max_abs`.
pub fn quantize(rows: &[Vec<f64>], max_abs: &[i64], grid: Grid) -> Quantized {
    let n = max_abs.len();
    assert!(rows.iter().all(|r| r.len() == n + 1), "a row has one weight per term and a bias");
    let zero = || Quantized { rows: vec![vec![0; n + 1]; rows.len()], scale: 0.0 };
    if rows.iter().flatten().any(|w| !w.is_finite()) {
        return zero();
    }
    let largest = |r: &[f64]| r.iter().fold(0.0f64, |a, w| a.max(w.abs()));
    let weights = rows.iter().map(|r| largest(&r[..n])).fold(0.0, f64::max);
    let biases = rows.iter().map(|r| r[n].abs()).fold(0.0, f64::max);
    if weights == 0.0 && biases == 0.0 {
        return zero();
    }
    let mut s = f64::INFINITY;
    if weights > 0.0 {
        s = s.min(grid.max_weight as f64 / weights);
    }
    if biases > 0.0 {
        s = s.min(grid.max_bias as f64 / biases);
    }
    // Rounding adds at most ½·max|f_j| per term and ½ to the bias.
    let rounding = 0.5 * (max_abs.iter().map(|&m| m as f64).sum::<f64>() + 1.0);
    let room = grid.kind.accumulator_limit() as f64 - grid.bias_reserve as f64 - rounding;
    let l1 = rows
        .iter()
        .map(|r| r[..n].iter().zip(max_abs).map(|(w, &m)| w.abs() * m as f64).sum::<f64>() + r[n].abs())
        .fold(0.0, f64::max);
    if room > 0.0 && l1 > 0.0 {
        s = s.min(room / l1);
    }
    loop {
        let q: Vec<Vec<i64>> =
            rows.iter().map(|r| r.iter().map(|w| (w * s).round() as i64).collect()).collect();
        if q.iter().all(|r| grid.admits(r, max_abs)) {
            return Quantized { rows: q, scale: s };
        }
        s *= 0.995;
        if s < f64::MIN_POSITIVE {
            return zero();
        }
    }
}

/// Divides a unit's integer rows by the smallest common power of two `2^k` (rounding to nearest,
/// ties away from zero) after which they fit `kind` ([`rows_fit`]); returns `k` (0: they fitted
/// and are unchanged). Scaling can change decisions where scores were close to a boundary.
pub fn rescale(rows: &mut [Vec<i64>], max_abs: &[i64], kind: WeightKind) -> u32 {
    let shifted = |shift: u32| -> Vec<Vec<i64>> {
        rows.iter().map(|r| r.iter().map(|&w| round_shift(w, shift)).collect()).collect()
    };
    let mut shift = 0;
    while shift < 63 && !rows_fit(&shifted(shift), max_abs, kind) {
        shift += 1;
    }
    if shift > 0 {
        let new = shifted(shift);
        rows.clone_from_slice(&new);
    }
    shift
}

/// `w / 2^shift` rounded to nearest, ties away from zero.
fn round_shift(w: i64, shift: u32) -> i64 {
    if shift == 0 {
        return w;
    }
    let half = 1i64 << (shift - 1);
    if w >= 0 {
        (w + half) >> shift
    } else {
        -((-w + half) >> shift)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantized_rows_fit_and_keep_their_ratios() {
        let rows = vec![vec![0.5, -0.25, 0.1], vec![-1.0, 0.75, 0.0]];
        for kind in [WeightKind::I8, WeightKind::I16, WeightKind::I32, WeightKind::Fixed] {
            let q = quantize(&rows, &[3, 1], Grid::new(kind));
            assert!(rows_fit(&q.rows, &[3, 1], kind), "{kind:?}");
            let (_, hi) = weight_range(kind);
            // The largest weight uses the range unless the accumulator bound binds.
            assert!(q.rows[1][0] == -hi || kind == WeightKind::I32, "{kind:?}: {:?}", q.rows);
            assert_eq!(q.rows[0][0], (0.5 * q.scale).round() as i64);
        }
    }

    #[test]
    fn the_bound_binds_for_i32() {
        let q = quantize(&[vec![1.0, 1.0, 1.0, 1.0]], &[32767, 32767, 1], Grid::new(WeightKind::I32));
        assert!(rows_fit(&q.rows, &[32767, 32767, 1], WeightKind::I32));
        let b = bound(&q.rows[0], &[32767, 32767, 1], 0);
        assert!(b > WeightKind::I32.accumulator_limit() - 100_000, "{b}: the room is used");
    }

    #[test]
    fn grid_caps_and_reserve() {
        let grid = Grid { kind: WeightKind::I16, max_weight: 100, max_bias: 50, bias_reserve: 32767 };
        let q = quantize(&[vec![2.0, -1.0, 4.0]], &[127, 127], grid);
        assert_eq!(q.rows, vec![vec![25, -13, 50]]);
        let wide = quantize(&[vec![1.0, 0.0]], &[1 << 40], Grid { bias_reserve: 1 << 30, ..grid });
        assert!(bound(&wide.rows[0], &[1 << 40], 1 << 30) <= WeightKind::I16.accumulator_limit());
    }

    #[test]
    fn degenerate_rows_are_zero() {
        let z = Quantized { rows: vec![vec![0, 0]], scale: 0.0 };
        assert_eq!(quantize(&[vec![0.0, 0.0]], &[5], Grid::new(WeightKind::I8)), z);
        assert_eq!(quantize(&[vec![f64::NAN, 1.0]], &[5], Grid::new(WeightKind::I8)), z);
    }

    #[test]
    fn rescale_finds_the_smallest_shift() {
        let mut rows = vec![vec![300, -129, 7]];
        assert_eq!(rescale(&mut rows, &[1, 1], WeightKind::I8), 2);
        assert_eq!(rows, vec![vec![75, -32, 2]]);
        assert_eq!(rescale(&mut rows, &[1, 1], WeightKind::I8), 0);
        let mut wide = vec![vec![i32::MAX as i64, 1]];
        assert_eq!(rescale(&mut wide, &[2], WeightKind::I32), 2);
        assert!(rows_fit(&wide, &[2], WeightKind::I32));
    }
}

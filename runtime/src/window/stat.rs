//! The statistics: one integer kernel each, over a window seen as up to two slices.

use core::fmt;

use super::{Feature, Result, Sample, WindowError, MAX_WINDOW_LEN};

/// A statistic of a run of samples, with a stable code for model files and a stable name.
///
/// `n` is the number of samples, `x[0..n]` the samples oldest first, `Σ` a sum over them and
/// `floor` rounding toward −∞. Every value is computed exactly in integers; the
/// [module documentation](super#no-overflow) proves that nothing overflows for
/// `1 ≤ n ≤ MAX_WINDOW_LEN` and that every result fits the range below.
///
/// | code | name            | value                                                            | range              |
/// |------|-----------------|------------------------------------------------------------------|--------------------|
/// | 0    | `mean`          | `floor(Σx / n)`                                                  | `−32768..=32767`   |
/// | 1    | `spread`        | `floor(sqrt(Σ(x − Σx/n)² / n))`, population standard deviation   | `0..=32767`        |
/// | 2    | `energy`        | `floor(Σx² / n)`, mean square                                    | `0..=2^30`         |
/// | 3    | `min`           | smallest sample                                                  | `−32768..=32767`   |
/// | 4    | `max`           | largest sample                                                   | `−32768..=32767`   |
/// | 5    | `peak_to_peak`  | `max − min`                                                      | `0..=65535`        |
/// | 6    | `mean_abs_diff` | `floor(Σ_{t<n−1} abs(x[t+1] − x[t]) / (n − 1))`; 0 when `n = 1` | `0..=65535`        |
/// | 7    | `slope`         | `floor(2^SLOPE_SHIFT · b)`, `b` the least-squares slope of `x` against `t` in counts per sample; 0 when `n = 1` | `−2^24..=2^24` |
/// | 8    | `crossings`     | number of `t < n − 1` where `x[t]` and `x[t+1]` lie on different sides of the mean | `0..=4095` |
///
/// `spread` is exact: the variance is computed as the integer `n·Σx² − (Σx)²` divided by `n²`
/// (floored, which does not change the floor of its square root).
///
/// `slope`: with `t = 0..n`, `b = Σ(t − t̄)·x / Σ(t − t̄)²`, which for integer `t` is
/// `6·Σ(2t − n + 1)·x / (n·(n² − 1))`; the result is `floor(2^SLOPE_SHIFT · 6 · Σ(2t − n + 1)·x
/// / (n·(n² − 1)))`, i.e. the slope in units of `1/256` count per sample, rounded toward −∞.
///
/// `crossings`: a sample is *high* if `x > floor(Σx / n)` and *low* otherwise. For integer
/// samples this is the same as comparing with the exact mean `Σx/n`: `x` is high iff
/// `x > Σx/n`, and a sample equal to the exact mean counts as low. The statistic counts the
/// consecutive pairs that differ (one high, one low).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(u8)]
pub enum Stat {
    /// `floor(Σx / n)`.
    Mean = 0,
    /// Population standard deviation, floored.
    Spread = 1,
    /// Mean square, floored.
    Energy = 2,
    /// Smallest sample.
    Min = 3,
    /// Largest sample.
    Max = 4,
    /// Largest minus smallest sample.
    PeakToPeak = 5,
    /// Mean absolute difference of consecutive samples, floored.
    MeanAbsDiff = 6,
    /// Least-squares slope in `2^-SLOPE_SHIFT` counts per sample, floored.
    Slope = 7,
    /// Number of consecutive pairs on different sides of the mean.
    Crossings = 8,
}

/// The `slope` statistic is the least-squares slope times `2^SLOPE_SHIFT` (256), floored.
pub const SLOPE_SHIFT: u32 = 8;

impl Stat {
    /// Every statistic, in code order (`Stat::ALL[c].code() == c`).
    pub const ALL: [Stat; 9] = [
        Stat::Mean,
        Stat::Spread,
        Stat::Energy,
        Stat::Min,
        Stat::Max,
        Stat::PeakToPeak,
        Stat::MeanAbsDiff,
        Stat::Slope,
        Stat::Crossings,
    ];

    /// The stable code stored in model files.
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The statistic with code `code`, if any.
    pub const fn from_code(code: u8) -> Option<Stat> {
        if (code as usize) < Stat::ALL.len() {
            Some(Stat::ALL[code as usize])
        } else {
            None
        }
    }

    /// The stable lowercase name, e.g. `"mean_abs_diff"`.
    pub const fn name(self) -> &'static str {
        match self {
            Stat::Mean => "mean",
            Stat::Spread => "spread",
            Stat::Energy => "energy",
            Stat::Min => "min",
            Stat::Max => "max",
            Stat::PeakToPeak => "peak_to_peak",
            Stat::MeanAbsDiff => "mean_abs_diff",
            Stat::Slope => "slope",
            Stat::Crossings => "crossings",
        }
    }

    /// The statistic named `name` (exactly as [`name`](Self::name) spells it), if any.
    pub fn from_name(name: &str) -> Option<Stat> {
        Stat::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The statistic of `samples`.
    ///
    /// ```
    /// use ltu_runtime::window::Stat;
    ///
    /// assert_eq!(Stat::Mean.compute(&[-3, 0])?, -2); // -1.5 floors to -2
    /// assert_eq!(Stat::Slope.compute(&[0, 1, 2, 3])?, 256); // one count per sample
    /// # Ok::<(), ltu_runtime::window::WindowError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`WindowError::WindowEmpty`] for no samples, [`WindowError::WindowTooLong`] for more than
    /// [`MAX_WINDOW_LEN`].
    pub fn compute(self, samples: &[Sample]) -> Result<Feature> {
        Ok(self.of(Samples::new(samples, &[])?))
    }

    /// The statistic of checked samples; total (no error, no panic, no overflow).
    pub(super) fn of(self, xs: Samples<'_>) -> Feature {
        // Each statistic runs the cheapest pass that gives it: a mean needs no squares, an
        // extreme no sums. The finishing arithmetic is `Sums`'s either way.
        match self {
            Stat::Mean => Sums::of_sum(xs).mean(),
            Stat::Spread => Sums::of_moments(xs).spread(),
            Stat::Energy => Sums::of_sum_sq(xs).energy(),
            Stat::Min => xs.fold(i32::MAX, i32::min),
            Stat::Max => xs.fold(i32::MIN, i32::max),
            Stat::PeakToPeak => xs.fold(i32::MIN, i32::max) - xs.fold(i32::MAX, i32::min),
            Stat::MeanAbsDiff => mean_abs_diff(xs),
            Stat::Slope => slope(xs),
            Stat::Crossings => crossings(xs, Sums::of_sum(xs).mean()),
        }
    }
}

impl fmt::Display for Stat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The samples of a window in order, as the concatenation of two slices (a ring buffer's older
/// and newer part; the second is empty for a plain slice), holding `1..=MAX_WINDOW_LEN` samples.
///
/// Reading a ring buffer through its two slices costs no copy and no scratch buffer, and the
/// kernels stay plain loops over slices.
#[derive(Debug, Clone, Copy)]
pub(super) struct Samples<'a> {
    parts: [&'a [Sample]; 2],
}

impl<'a> Samples<'a> {
    /// Checks the length: `1..=MAX_WINDOW_LEN` samples in all.
    pub(super) fn new(older: &'a [Sample], newer: &'a [Sample]) -> Result<Self> {
        let n = older.len().saturating_add(newer.len());
        if n == 0 {
            Err(WindowError::WindowEmpty)
        } else if n > MAX_WINDOW_LEN {
            Err(WindowError::WindowTooLong)
        } else {
            Ok(Samples { parts: [older, newer] })
        }
    }

    /// Number of samples, `1..=MAX_WINDOW_LEN`.
    pub(super) fn len(&self) -> usize {
        self.parts[0].len() + self.parts[1].len()
    }

    /// The samples `[start, end)`, for `start < end <= self.len()` (so the result is not empty).
    pub(super) fn range(self, start: usize, end: usize) -> Self {
        let [a, b] = self.parts;
        let split = a.len();
        let a = a.get(start.min(split)..end.min(split)).unwrap_or_default();
        let b = b.get(start.saturating_sub(split)..end.saturating_sub(split)).unwrap_or_default();
        Samples { parts: [a, b] }
    }

    /// `f` folded over the samples in order, each widened to `i32`.
    fn fold(self, init: i32, f: impl Fn(i32, i32) -> i32) -> i32 {
        let mut acc = init;
        for part in self.parts {
            for &x in part {
                acc = f(acc, i32::from(x));
            }
        }
        acc
    }

    /// The first sample.
    fn first(&self) -> i32 {
        let [a, b] = self.parts;
        a.first().or(b.first()).map_or(0, |&x| i32::from(x))
    }
}

/// Running sums over the samples of one window: everything the order-free statistics need, in
/// one pass.
///
/// Sized for speed on cores without a 64-bit multiply: `|Σx| ≤ 2^27` and each `x² ≤ 2^30` fit
/// an `i32`; only the sum of squares needs 64 bits (an add with carry per sample).
pub(super) struct Sums {
    n: u32,
    sum: i32,
    sum_sq: u64,
    pub(super) min: i32,
    pub(super) max: i32,
}

impl Sums {
    /// Not inlined: [`Stat::of`] calls it from six arms, and one copy of the loop is smaller
    /// (on a Cortex-M0 the inlined copies made `Stat::of` 3.4 KiB) for the cost of one call.
    #[inline(never)]
    pub(super) fn of(xs: Samples<'_>) -> Self {
        let mut s = Sums { n: 0, sum: 0, sum_sq: 0, min: i32::MAX, max: i32::MIN };
        for part in xs.parts {
            s.n += part.len() as u32;
            for &x in part {
                let x = i32::from(x);
                s.sum += x;
                s.sum_sq += u64::from((x * x).unsigned_abs());
                s.min = s.min.min(x);
                s.max = s.max.max(x);
            }
        }
        s
    }

    /// Only `n` and `Σx`, for [`Sums::mean`]: no squares, no extremes.
    fn of_sum(xs: Samples<'_>) -> Self {
        let sum = xs.fold(0, |acc, x| acc + x);
        Sums { n: xs.len() as u32, sum, sum_sq: 0, min: 0, max: 0 }
    }

    /// Only `n`, `Σx` and `Σx²`, for [`Sums::spread`]: no extremes.
    fn of_moments(xs: Samples<'_>) -> Self {
        let (mut sum, mut sum_sq) = (0i32, 0u64);
        for part in xs.parts {
            for &x in part {
                let x = i32::from(x);
                sum += x;
                sum_sq += u64::from((x * x).unsigned_abs());
            }
        }
        Sums { n: xs.len() as u32, sum, sum_sq, min: 0, max: 0 }
    }

    /// Only `n` and `Σx²`, for [`Sums::energy`].
    fn of_sum_sq(xs: Samples<'_>) -> Self {
        let mut sum_sq = 0u64;
        for part in xs.parts {
            for &x in part {
                let x = i32::from(x);
                sum_sq += u64::from((x * x).unsigned_abs());
            }
        }
        Sums { n: xs.len() as u32, sum: 0, sum_sq, min: 0, max: 0 }
    }

    /// `floor(Σx / n)`.
    pub(super) fn mean(&self) -> Feature {
        // n ≥ 1 (Samples is never empty), so div_euclid is floor division.
        self.sum.div_euclid(self.n as i32)
    }

    /// `floor(sqrt((n·Σx² − (Σx)²) / n²))`.
    pub(super) fn spread(&self) -> Feature {
        let n = i64::from(self.n);
        let sum = i64::from(self.sum);
        // n ≤ 2^12, Σx² ≤ 2^42: both products ≤ 2^54 (module docs).
        let n2_var = n * self.sum_sq as i64 - sum * sum;
        // floor(sqrt(floor(v))) == floor(sqrt(v)) for v ≥ 0, so flooring the variance first is exact.
        let var = (n2_var / (n * n)) as u64;
        var.isqrt() as Feature
    }

    /// `floor(Σx² / n)`.
    pub(super) fn energy(&self) -> Feature {
        (self.sum_sq / u64::from(self.n)) as Feature
    }

    /// The sums of `n` samples whose sum is `sum` and sum of squares `sum_sq`, kept elsewhere
    /// (the running sums of a [`Stream`](super::Stream)), for [`mean`](Self::mean),
    /// [`spread`](Self::spread) and [`energy`](Self::energy). `min` and `max` are left at the
    /// identities of an empty fold (`i32::MAX`, `i32::MIN`): they are not known and not read.
    /// The caller guarantees `1 ≤ n ≤ MAX_WINDOW_LEN` and that the sums are exact.
    pub(super) fn from_running(n: u32, sum: i32, sum_sq: u64) -> Self {
        Sums { n, sum, sum_sq, min: i32::MAX, max: i32::MIN }
    }
}

/// `floor(Σ|x[t+1] − x[t]| / (n − 1))`, 0 for one sample. The sum is at most
/// `4095 · 65535 < 2^28`.
fn mean_abs_diff(xs: Samples<'_>) -> Feature {
    let mut prev = xs.first();
    let mut total: u32 = 0;
    for part in xs.parts {
        for &x in part {
            let x = i32::from(x);
            total += (x - prev).unsigned_abs();
            prev = x;
        }
    }
    // The first sample's difference to itself added 0.
    mean_abs_diff_of(total, xs.len())
}

/// `floor(total / (n − 1))` for `total = Σ|x[t+1] − x[t]|` over `n` samples, 0 for one sample.
pub(super) fn mean_abs_diff_of(total: u32, n: usize) -> Feature {
    match n as u32 - 1 {
        0 => 0,
        gaps => (total / gaps) as Feature,
    }
}

/// `floor(2^SLOPE_SHIFT · 6 · Σ(2t − n + 1)·x / (n·(n² − 1)))`, 0 for one sample.
///
/// Each term has `|2t − n + 1| ≤ n − 1 < 2^12` and `|x| ≤ 2^15`, so it fits an `i32`; the sum is
/// at most `Σ|2t − n + 1| · 2^15 ≤ n²/2 · 2^15 ≤ 2^38` and the scaled numerator `≤ 1536 · 2^38 <
/// 2^49`, an `i64`. The denominator is `≤ 2^36`.
fn slope(xs: Samples<'_>) -> Feature {
    let n = xs.len() as i64;
    if n < 2 {
        return 0;
    }
    let mut weight = 1 - n as i32; // 2t − n + 1 at t = 0
    let mut moment: i64 = 0;
    for part in xs.parts {
        for &x in part {
            moment += i64::from(weight * i32::from(x));
            weight += 2;
        }
    }
    slope_of(moment, n)
}

/// `floor(2^SLOPE_SHIFT · 6 · moment / (n·(n² − 1)))` for `moment = Σ(2t − n + 1)·x` over `n`
/// samples, 0 for one sample (see [`slope`] for the bounds).
pub(super) fn slope_of(moment: i64, n: i64) -> Feature {
    if n < 2 {
        return 0;
    }
    let numerator = moment * (6 << SLOPE_SHIFT);
    let denominator = n * (n * n - 1);
    // Positive denominator: div_euclid is floor division.
    numerator.div_euclid(denominator) as Feature
}

/// Number of consecutive pairs where one sample is `> mean` and the other `≤ mean`.
pub(super) fn crossings(xs: Samples<'_>, mean: Feature) -> Feature {
    let mut prev_high = xs.first() > mean;
    let mut count: i32 = 0;
    for part in xs.parts {
        for &x in part {
            let high = i32::from(x) > mean;
            count += i32::from(high != prev_high);
            prev_high = high;
        }
    }
    count
}

#[cfg(test)]
pub(super) mod tests {
    extern crate std;

    use std::vec::Vec;

    use proptest::prelude::*;

    use super::*;

    /// Each statistic straight from its definition in exact `i128` arithmetic, written
    /// independently of the kernels (textbook slope formula, crossings against the exact mean).
    pub(in crate::window) fn reference(stat: Stat, xs: &[i16]) -> i64 {
        let x: Vec<i128> = xs.iter().map(|&x| i128::from(x)).collect();
        let n = x.len() as i128;
        let sum: i128 = x.iter().sum();
        let sum_sq: i128 = x.iter().map(|x| x * x).sum();
        let value = match stat {
            Stat::Mean => sum.div_euclid(n),
            Stat::Spread => {
                // largest s with s²·n² ≤ n·Σx² − (Σx)²
                let m2 = n * sum_sq - sum * sum;
                (0..=1i128 << 16).take_while(|s| s * s * n * n <= m2).last().unwrap()
            }
            Stat::Energy => sum_sq / n,
            Stat::Min => *x.iter().min().unwrap(),
            Stat::Max => *x.iter().max().unwrap(),
            Stat::PeakToPeak => x.iter().max().unwrap() - x.iter().min().unwrap(),
            Stat::MeanAbsDiff if n == 1 => 0,
            Stat::MeanAbsDiff => x.windows(2).map(|w| (w[1] - w[0]).abs()).sum::<i128>() / (n - 1),
            Stat::Slope if n == 1 => 0,
            Stat::Slope => {
                let st: i128 = (0..n).sum();
                let stt: i128 = (0..n).map(|t| t * t).sum();
                let stx: i128 = x.iter().zip(0..).map(|(x, t)| t * x).sum();
                (256 * (n * stx - st * sum)).div_euclid(n * stt - st * st)
            }
            Stat::Crossings => x.windows(2).filter(|w| (n * w[0] > sum) != (n * w[1] > sum)).count() as i128,
        };
        value as i64
    }

    fn check_all(xs: &[i16]) {
        for stat in Stat::ALL {
            assert_eq!(i64::from(stat.compute(xs).unwrap()), reference(stat, xs), "{stat} of {xs:?}");
        }
    }

    #[test]
    fn codes_and_names_are_pinned() {
        // Stored in model files and shown by the trainer: never renumber or rename.
        let pinned = [
            (0, "mean"),
            (1, "spread"),
            (2, "energy"),
            (3, "min"),
            (4, "max"),
            (5, "peak_to_peak"),
            (6, "mean_abs_diff"),
            (7, "slope"),
            (8, "crossings"),
        ];
        assert_eq!(Stat::ALL.map(|s| (s.code(), s.name())), pinned);
        for code in 0..=u8::MAX {
            assert_eq!(
                Stat::from_code(code).map(Stat::code),
                (usize::from(code) < pinned.len()).then_some(code)
            );
        }
        for stat in Stat::ALL {
            assert_eq!(Stat::from_name(stat.name()), Some(stat));
            assert_eq!(std::format!("{stat}"), stat.name());
        }
        assert_eq!(Stat::from_name("Mean"), None);
        assert_eq!(Stat::from_name(""), None);
    }

    #[test]
    fn mean_floors_not_truncates() {
        assert_eq!(Stat::Mean.compute(&[-1, 0]), Ok(-1)); // -0.5; truncation would give 0
        assert_eq!(Stat::Mean.compute(&[-2, -3, -3]), Ok(-3)); // -2.67
        assert_eq!(Stat::Mean.compute(&[1, 0]), Ok(0));
        assert_eq!(Stat::Mean.compute(&[-4, -2]), Ok(-3));
    }

    #[test]
    fn spread_energy_extremes_by_hand() {
        assert_eq!(Stat::Spread.compute(&[-3, 1, 2, 4]), Ok(2)); // variance 6.5
        assert_eq!(Stat::Energy.compute(&[-3, 1, 2, 4]), Ok(7)); // 30 / 4
        assert_eq!(Stat::Energy.compute(&[-1, 0]), Ok(0)); // 0.5
        assert_eq!(Stat::Min.compute(&[3, -7, 5]), Ok(-7));
        assert_eq!(Stat::Max.compute(&[3, -7, 5]), Ok(5));
        assert_eq!(Stat::PeakToPeak.compute(&[3, -7, 5]), Ok(12));
        assert_eq!(Stat::PeakToPeak.compute(&[i16::MAX, i16::MIN]), Ok(65535));
    }

    #[test]
    fn mean_abs_diff_by_hand() {
        assert_eq!(Stat::MeanAbsDiff.compute(&[1, 4, 2, 2]), Ok(1)); // (3 + 2 + 0) / 3
        assert_eq!(Stat::MeanAbsDiff.compute(&[-5, 5]), Ok(10));
        assert_eq!(Stat::MeanAbsDiff.compute(&[-5, -9, -5]), Ok(4));
        assert_eq!(Stat::MeanAbsDiff.compute(&[i16::MIN, i16::MAX]), Ok(65535));
        assert_eq!(Stat::MeanAbsDiff.compute(&[7]), Ok(0));
    }

    #[test]
    fn slope_by_hand() {
        assert_eq!(Stat::Slope.compute(&[0, 1, 2, 3]), Ok(256));
        assert_eq!(Stat::Slope.compute(&[3, 2, 1, 0]), Ok(-256));
        assert_eq!(Stat::Slope.compute(&[-10, -10]), Ok(0));
        assert_eq!(Stat::Slope.compute(&[0, 0, 1]), Ok(128)); // 1/2
        assert_eq!(Stat::Slope.compute(&[0, 1, 0]), Ok(0));
        assert_eq!(Stat::Slope.compute(&[0, 0, 0, 1]), Ok(76)); // 0.3 · 256 = 76.8
        assert_eq!(Stat::Slope.compute(&[1, 0, 0, 0]), Ok(-77)); // -76.8 floors; truncation gives -76
        assert_eq!(Stat::Slope.compute(&[i16::MIN, i16::MAX]), Ok(65535 * 256));
        assert_eq!(Stat::Slope.compute(&[i16::MAX, i16::MIN]), Ok(-65535 * 256));
        assert_eq!(Stat::Slope.compute(&[i16::MIN]), Ok(0));
    }

    #[test]
    fn crossings_by_hand() {
        assert_eq!(Stat::Crossings.compute(&[0, 1, 0, 1]), Ok(3)); // mean 0.5
        assert_eq!(Stat::Crossings.compute(&[-1, 1]), Ok(1));
        assert_eq!(Stat::Crossings.compute(&[-3, -1]), Ok(1)); // mean -2
        assert_eq!(Stat::Crossings.compute(&[2, 2, 2, 3]), Ok(1)); // mean 2.25
        assert_eq!(Stat::Crossings.compute(&[0, 1, 2]), Ok(1)); // 1 equals the mean: low
        assert_eq!(Stat::Crossings.compute(&[1, 0, 1, 2, 1]), Ok(2)); // low, low, low, high, low
        assert_eq!(Stat::Crossings.compute(&[4, 4, 4]), Ok(0));
        assert_eq!(Stat::Crossings.compute(&[9]), Ok(0));
    }

    #[test]
    fn length_one_and_errors() {
        for x in [i16::MIN, -1, 0, 1, i16::MAX] {
            let xi = i32::from(x);
            let want = [xi, 0, xi * xi, xi, xi, 0, 0, 0, 0];
            assert_eq!(Stat::ALL.map(|s| s.compute(&[x]).unwrap()), want);
        }
        for stat in Stat::ALL {
            assert_eq!(stat.compute(&[]), Err(WindowError::WindowEmpty));
            assert_eq!(stat.compute(&[0; MAX_WINDOW_LEN + 1]), Err(WindowError::WindowTooLong));
        }
    }

    #[test]
    fn extremes_at_max_length() {
        let n = MAX_WINDOW_LEN;
        let constant_min = [i16::MIN; MAX_WINDOW_LEN];
        let constant_max = [i16::MAX; MAX_WINDOW_LEN];
        let alternating: Vec<i16> = (0..n).map(|t| if t % 2 == 0 { i16::MIN } else { i16::MAX }).collect();
        // Largest slope moment: each sample at the extreme with the sign of t − t̄.
        let step_up: Vec<i16> = (0..n).map(|t| if t < n / 2 { i16::MIN } else { i16::MAX }).collect();
        let step_down: Vec<i16> = step_up.iter().rev().copied().collect();
        let ramp: Vec<i16> = (0..n).map(|t| (t as i32 * 16 - 32768) as i16).collect();
        for xs in [&constant_min[..], &constant_max, &alternating, &step_up, &step_down, &ramp] {
            check_all(xs);
        }
        assert_eq!(Stat::Energy.compute(&constant_min), Ok(1 << 30));
        assert_eq!(Stat::MeanAbsDiff.compute(&alternating), Ok(65535));
        assert_eq!(Stat::Crossings.compute(&alternating), Ok(4095));
        assert_eq!(Stat::Slope.compute(&ramp), Ok(16 * 256));
        // A step of 65535 halfway: b = 1.5 · 65535 · n / (n² − 1) = 23.9996…
        assert_eq!(Stat::Slope.compute(&step_up).map(|s| s / 256), Ok(23));
        assert_eq!(Stat::Slope.compute(&step_down).map(|s| s.div_euclid(256)), Ok(-24));
    }

    #[test]
    fn slope_agrees_with_floating_point() {
        // Independent of the integer reference: a least-squares fit in f64, within rounding.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..2000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let n = 2 + (seed % 300) as usize;
            let xs: Vec<i16> = (0..n)
                .map(|t| {
                    let noise = (seed.rotate_left(t as u32 % 64) & 0xff) as f64 - 128.0;
                    ((t as f64) * ((seed >> 40) % 200) as f64 / 10.0 - 1000.0 + noise) as i16
                })
                .collect();
            let tm = (n as f64 - 1.0) / 2.0;
            let xm = xs.iter().map(|&x| f64::from(x)).sum::<f64>() / n as f64;
            let sxy: f64 = xs.iter().enumerate().map(|(t, &x)| (t as f64 - tm) * (f64::from(x) - xm)).sum();
            let sxx: f64 = (0..n).map(|t| (t as f64 - tm).powi(2)).sum();
            let want = sxy / sxx * 256.0;
            let got = f64::from(Stat::Slope.compute(&xs).unwrap());
            assert!(got <= want + 1e-6 && want < got + 1.0 + 1e-6, "seed {seed}: {got} vs {want}");
        }
    }

    #[test]
    fn two_parts_equal_one_slice() {
        let xs = [5i16, -3, 8, 8, -20, 0, 1];
        for split in 0..=xs.len() {
            let (a, b) = xs.split_at(split);
            let parts = Samples::new(a, b).unwrap();
            for stat in Stat::ALL {
                assert_eq!(stat.of(parts), stat.compute(&xs).unwrap(), "{stat} split at {split}");
                for start in 0..xs.len() {
                    for end in start + 1..=xs.len() {
                        assert_eq!(stat.of(parts.range(start, end)), stat.compute(&xs[start..end]).unwrap());
                    }
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        #[test]
        fn matches_reference(xs in proptest::collection::vec(any::<i16>(), 1..200)) {
            for stat in Stat::ALL {
                prop_assert_eq!(i64::from(stat.compute(&xs).unwrap()), reference(stat, &xs), "{}", stat);
            }
        }

        #[test]
        fn matches_reference_small_values(xs in proptest::collection::vec(-3i16..=3, 1..64)) {
            // Small values make ties (samples equal to the mean, exact slopes) common.
            for stat in Stat::ALL {
                prop_assert_eq!(i64::from(stat.compute(&xs).unwrap()), reference(stat, &xs), "{}", stat);
            }
        }

        #[test]
        fn matches_reference_extreme_values(
            xs in proptest::collection::vec(prop_oneof![Just(i16::MIN), Just(i16::MAX), -1i16..=1], 1..MAX_WINDOW_LEN)
        ) {
            for stat in Stat::ALL {
                prop_assert_eq!(i64::from(stat.compute(&xs).unwrap()), reference(stat, &xs), "{}", stat);
            }
        }
    }
}

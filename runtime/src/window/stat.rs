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
        match self {
            Stat::Mean => Sums::of(xs).mean(),
            Stat::Spread => Sums::of(xs).spread(),
            Stat::Energy => Sums::of(xs).energy(),
            Stat::Min => Sums::of(xs).min,
            Stat::Max => Sums::of(xs).max,
            Stat::PeakToPeak => Sums::of(xs).peak_to_peak(),
            Stat::MeanAbsDiff => mean_abs_diff(xs),
            Stat::Slope => slope(xs),
            Stat::Crossings => crossings(xs, Sums::of(xs).mean()),
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

    /// `max − min`.
    pub(super) fn peak_to_peak(&self) -> Feature {
        self.max - self.min
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
    match xs.len() as u32 - 1 {
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
    let numerator = moment * (6 << SLOPE_SHIFT);
    let denominator = n * (n * n - 1);
    // Positive denominator: div_euclid is floor division.
    numerator.div_euclid(denominator) as Feature
}

/// Number of consecutive pairs where one sample is `> mean` and the other `≤ mean`.
fn crossings(xs: Samples<'_>, mean: Feature) -> Feature {
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

//! Integer feature extraction for windows of raw sensor samples.
//!
//! A model trained on summary features of a sensor signal must see exactly the same features on the
//! device as it saw on the laptop. This module is the one implementation of those features: the
//! trainer pipeline (`cargo xtask features`) and the firmware both call it, so the two cannot drift.
//! Everything is integer arithmetic with documented rounding; no floats, no allocation, no `unsafe`.
//!
//! # Samples, windows, features
//!
//! A [`Sample`] is one raw sensor reading (`i16` ADC counts). A window is the most recent
//! `1..=`[`MAX_WINDOW_LEN`] samples of one channel. For each channel, [`features`] computes
//! [`FEATURES_PER_CHANNEL`] values, in the order of [`FEATURE_NAMES`]:
//!
//! | index | name     | value (`n` = window length, `x` = samples)            | rounding        | range               |
//! |-------|----------|--------------------------------------------------------|-----------------|---------------------|
//! | 0     | `mean`   | `Σx / n`                                               | floor (toward −∞) | `i16` range       |
//! | 1     | `spread` | `sqrt(Σ(x − Σx/n)² / n)`, population standard deviation | floor           | `0..=32767`         |
//! | 2     | `energy` | `Σx² / n`, mean square, in counts²                      | floor           | `0..=2^30`          |
//! | 3     | `min`    | smallest sample                                        | exact           | `i16` range         |
//! | 4     | `max`    | largest sample                                         | exact           | `i16` range         |
//!
//! A feature vector for several channels is channel-major: all features of channel 0, then of
//! channel 1, and so on. Feature `k` of channel `c` sits at index `c * FEATURES_PER_CHANNEL + k`
//! and is called `ch{c}_{FEATURE_NAMES[k]}` (see [`FeatureName`]), e.g. `ch2_energy`.
//!
//! # Window features
//!
//! The five features above are the whole-window [`Stat`]s `Mean`, `Spread`, `Energy`, `Min` and
//! `Max` ([`FEATURE_STATS`]). A model can read more: a [`WindowFeature`] is any [`Stat`] (also
//! peak-to-peak, mean absolute difference, least-squares slope and mean crossings) of any
//! channel, over the whole window or one of up to [`MAX_SEGMENTS`] equal segments of it, named
//! e.g. `ch1_slope_s2of4`. [`compute_into`] (slices) and [`SensorWindows::compute_into`] (ring
//! buffers, read in place) compute just the features a model lists. [`Stat`] defines each
//! statistic exactly; each has one implementation, which [`features`] uses too.
//!
//! # No overflow
//!
//! With `n ≤ 2^12` and `|x| ≤ 2^15`: `|Σx| ≤ 2^27`, `Σx² ≤ 2^42`, `n·Σx² ≤ 2^54` and
//! `(Σx)² ≤ 2^54`, so `n·Σx² − (Σx)²` (which is `n²` times the variance, never negative by
//! Cauchy–Schwarz) fits an `i64` with room to spare. Every result fits an `i32`: the mean and the
//! extremes are samples' range, the energy is at most `(−2^15)² = 2^30`, and the spread is at most
//! half the sample range, `32767.5`. Windows longer than [`MAX_WINDOW_LEN`] are rejected, never
//! truncated.
//!
//! The other statistics: `max − min ≤ 2^16 − 1`. The absolute differences of consecutive samples
//! sum to at most `(n − 1)·(2^16 − 1) < 2^28` (a `u32`), and their floored mean is at most
//! `2^16 − 1`. The slope's sum `Σ(2t − n + 1)·x` has terms below `2^12 · 2^15 = 2^27` (each an
//! `i32`) and is at most `Σ|2t − n + 1| · 2^15 ≤ (n²/2)·2^15 ≤ 2^38`; times `6·2^8` it stays below
//! `2^49`, and the denominator `n·(n² − 1)` below `2^36`, both `i64`. The slope itself is at most
//! the sample range `2^16 − 1` in absolute value (for any constant `c`, `b = Σ(t − t̄)(x − c) /
//! Σ(t − t̄)²`; take `c` the midrange so `|x − c| ≤ (2^16 − 1)/2`, and `Σ|t − t̄| ≤ 2·Σ(t − t̄)²`
//! because every non-zero `|t − t̄|` is at least `1/2`), so the scaled slope is within `±2^24`.
//! Crossings are at most `n − 1 ≤ 4095`.
//!
//! # Streaming
//!
//! On a device samples arrive one at a time. [`SlidingWindow`] keeps the last `N` samples of one
//! channel in a `heapless` ring buffer; [`SensorWindows`] keeps one per channel, takes one frame
//! (a sample of every channel) at a time and says when a new window is ready every `hop` frames.
//!
//! ```
//! use ltu_runtime::window::{SensorWindows, FEATURES_PER_CHANNEL};
//!
//! // 2 channels, windows of 4 samples, a new window every 2 frames.
//! let mut windows = SensorWindows::<2, 4>::new(2)?;
//! let mut features = [0i32; 2 * FEATURES_PER_CHANNEL];
//! let mut ready = 0;
//! for t in 0..8i16 {
//!     if windows.push_frame([t, -t]) {
//!         windows.extract_into(&mut features)?;
//!         ready += 1;
//!     }
//! }
//! assert_eq!(ready, 3); // after frames 4, 6 and 8
//! // The last window holds 4, 5, 6, 7 and -4, -5, -6, -7.
//! assert_eq!(&features[..5], &[5, 1, 31, 4, 7]); // mean 5.5 floors to 5
//! assert_eq!(&features[5..], &[-6, 1, 31, -7, -4]); // mean -5.5 floors to -6
//! # Ok::<(), ltu_runtime::window::WindowError>(())
//! ```
//!
//! Windows usually overlap (`hop < N`), and recomputing a feature over the whole window at
//! every hop costs `N` samples of work per feature. A [`Stream`] serves a fixed list of
//! [`WindowFeature`]s (a model's inputs: [`Stream::for_pipeline`]) from running sums instead:
//! per segment `Σx`, `Σx²`, `Σ abs(x[t+1] − x[t])` and the slope's moment `Σ(2t − L + 1)·x`,
//! each updated in O(1) per frame by the sample that leaves the segment and the one that enters
//! it. `mean`, `spread`, `energy`, `mean_abs_diff` and `slope` then cost O(1) per window;
//! `min`, `max`, `peak_to_peak` and `crossings` one pass over their segment, when asked. The
//! values equal [`WindowFeature::compute`] of the same window exactly, and
//! [`Model::predict_stream`](crate::Model::predict_stream) asks for just the inputs the
//! evaluation path reads.
//!
//! ```
//! use ltu_runtime::window::{Stat, Stream, WindowFeature};
//!
//! // Energy of channel 0 and slope of channel 1's last quarter; windows of 16, hop 4.
//! let features = ["ch0_energy", "ch1_slope_s3of4"].map(|n| n.parse::<WindowFeature>().unwrap());
//! let mut stream = Stream::<2, 16, 2>::new(&features, 4)?;
//! for t in 0..100i16 {
//!     if stream.push_frame([t % 4, -2 * t]) {
//!         assert_eq!(stream.value(0), Some((0 + 1 + 4 + 9) / 4)); // mean square of 0, 1, 2, 3
//!         assert_eq!(stream.value(1), Some(-2 << 8)); // -2 counts per sample
//!     }
//! }
//! // The values are those of the window the stream holds, computed from scratch.
//! let ch0: Vec<i16> = stream.windows().channel(0).unwrap().iter().collect();
//! assert_eq!(stream.value(0), Some(WindowFeature::whole(0, Stat::Energy).compute(&ch0)?));
//! # Ok::<(), ltu_runtime::window::WindowError>(())
//! ```

#![deny(missing_docs)]
#![forbid(unsafe_code)]

use core::fmt;

use heapless::HistoryBuf;

mod feature;
mod stat;
mod stream;

pub use feature::{compute_into, WindowFeature, MAX_SEGMENTS};
use stat::{Samples, Sums};
pub use stat::{Stat, SLOPE_SHIFT};
pub use stream::Stream;

/// One raw sensor reading, e.g. ADC counts.
pub type Sample = i16;

/// One computed feature value, as fed to [`Model::predict`](crate::Model::predict).
pub type Feature = i32;

/// Longest window accepted, in samples (the bound the overflow argument relies on).
pub const MAX_WINDOW_LEN: usize = 4096;

/// Number of features computed per channel.
pub const FEATURES_PER_CHANNEL: usize = 5;

/// The statistic of each per-channel feature of [`features`], in feature-vector order.
pub const FEATURE_STATS: [Stat; FEATURES_PER_CHANNEL] =
    [Stat::Mean, Stat::Spread, Stat::Energy, Stat::Min, Stat::Max];

/// Name suffix of each per-channel feature, in feature-vector order (the names of
/// [`FEATURE_STATS`]).
pub const FEATURE_NAMES: [&str; FEATURES_PER_CHANNEL] = [
    FEATURE_STATS[0].name(),
    FEATURE_STATS[1].name(),
    FEATURE_STATS[2].name(),
    FEATURE_STATS[3].name(),
    FEATURE_STATS[4].name(),
];

/// Why features could not be computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum WindowError {
    /// A window holds no samples.
    WindowEmpty,
    /// A window holds more than [`MAX_WINDOW_LEN`] samples.
    WindowTooLong,
    /// The output slice's length is not `FEATURES_PER_CHANNEL` times the number of windows, or
    /// not the number of [`WindowFeature`]s requested.
    OutputLength,
    /// The hop of a [`SensorWindows`] is not in `1..=N`.
    HopInvalid,
    /// A [`WindowFeature`] reads a channel that does not exist.
    ChannelInvalid,
    /// A [`WindowFeature`]'s `segments` is not in `1..=MAX_SEGMENTS`.
    SegmentsInvalid,
    /// A [`WindowFeature`]'s `segment` is not less than its `segments`.
    SegmentInvalid,
    /// A string is not a [`WindowFeature`] name.
    NameInvalid,
    /// A [`Stream`] was asked to serve more features than its capacity `F`.
    TooManyFeatures,
    /// A model's pipeline has a different number of channels than the [`Stream`]'s `C`.
    ChannelCountMismatch,
    /// A model's pipeline has a different window length than the [`Stream`]'s `N` (or takes the
    /// whole recording as one window, which cannot stream).
    WindowLengthMismatch,
}

/// `Result` with a [`WindowError`].
pub type Result<T> = core::result::Result<T, WindowError>;

impl fmt::Display for WindowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            WindowError::WindowEmpty => "window holds no samples",
            WindowError::WindowTooLong => "window longer than MAX_WINDOW_LEN samples",
            WindowError::OutputLength => "feature output length does not match the features requested",
            WindowError::HopInvalid => "hop must be between 1 and the window length",
            WindowError::ChannelInvalid => "window feature reads a channel that does not exist",
            WindowError::SegmentsInvalid => "window feature segments must be between 1 and MAX_SEGMENTS",
            WindowError::SegmentInvalid => "window feature segment must be less than its segments",
            WindowError::NameInvalid => "not a window feature name (ch{c}_{stat} or ch{c}_{stat}_s{i}of{k})",
            WindowError::TooManyFeatures => "more features than the stream has room for",
            WindowError::ChannelCountMismatch => "pipeline channel count differs from the stream's",
            WindowError::WindowLengthMismatch => "pipeline window length differs from the stream's",
        })
    }
}

impl core::error::Error for WindowError {}

/// The features of one channel's window. See the [module documentation](self) for definitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Features {
    /// Mean, rounded toward negative infinity.
    pub mean: Feature,
    /// Population standard deviation, rounded down.
    pub spread: Feature,
    /// Mean of the squared samples, rounded down.
    pub energy: Feature,
    /// Smallest sample.
    pub min: Feature,
    /// Largest sample.
    pub max: Feature,
}

impl Features {
    /// The features in [`FEATURE_NAMES`] order.
    pub const fn to_array(&self) -> [Feature; FEATURES_PER_CHANNEL] {
        [self.mean, self.spread, self.energy, self.min, self.max]
    }
}

impl Features {
    /// The five features of checked samples, in one pass.
    fn of(xs: Samples<'_>) -> Self {
        let sums = Sums::of(xs);
        Features {
            mean: sums.mean(),
            spread: sums.spread(),
            energy: sums.energy(),
            min: sums.min,
            max: sums.max,
        }
    }
}

/// Computes the features of one channel's window.
///
/// ```
/// use ltu_runtime::window::features;
///
/// let f = features(&[-3, 1, 2, 4])?;
/// assert_eq!(f.to_array(), [1, 2, 7, -3, 4]); // mean 1, std 2.55, mean square 7.5
/// # Ok::<(), ltu_runtime::window::WindowError>(())
/// ```
///
/// # Errors
///
/// [`WindowError::WindowEmpty`] for an empty window, [`WindowError::WindowTooLong`] for one
/// longer than [`MAX_WINDOW_LEN`].
pub fn features(window: &[Sample]) -> Result<Features> {
    Ok(Features::of(Samples::new(window, &[])?))
}

/// Writes the channel-major feature vector of several channels' windows into `out`.
///
/// `out` must hold exactly `FEATURES_PER_CHANNEL` values per window. Windows may differ in length.
///
/// ```
/// use ltu_runtime::window::extract_into;
///
/// let recording = [1i16, 2, 3, 10, 10, 10]; // 2 channels x 3 samples, channel-major
/// let mut out = [0i32; 10];
/// extract_into(recording.chunks(3), &mut out)?;
/// assert_eq!(out, [2, 0, 4, 1, 3, 10, 0, 100, 10, 10]);
/// # Ok::<(), ltu_runtime::window::WindowError>(())
/// ```
///
/// # Errors
///
/// [`WindowError::OutputLength`] if `out` is not `FEATURES_PER_CHANNEL` times the number of
/// windows long, and the errors of [`features`]. On error `out` may be partly written.
pub fn extract_into<'a, I>(windows: I, out: &mut [Feature]) -> Result<()>
where
    I: IntoIterator<Item = &'a [Sample]>,
{
    if !out.len().is_multiple_of(FEATURES_PER_CHANNEL) {
        return Err(WindowError::OutputLength);
    }
    let mut chunks = out.chunks_exact_mut(FEATURES_PER_CHANNEL);
    for window in windows {
        let slot = chunks.next().ok_or(WindowError::OutputLength)?;
        slot.copy_from_slice(&features(window)?.to_array());
    }
    match chunks.next() {
        Some(_) => Err(WindowError::OutputLength),
        None => Ok(()),
    }
}

/// Number of features for `n_channels` channels.
pub const fn feature_count(n_channels: usize) -> usize {
    n_channels * FEATURES_PER_CHANNEL
}

/// The name of one entry of a feature vector; displays as `ch{channel}_{suffix}`, e.g. `ch0_mean`.
///
/// ```
/// use ltu_runtime::window::FeatureName;
///
/// assert_eq!(FeatureName::of_index(7).to_string(), "ch1_energy");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct FeatureName {
    /// Channel number.
    pub channel: usize,
    /// Index into [`FEATURE_NAMES`].
    pub feature: usize,
}

impl FeatureName {
    /// The name of entry `index` of a channel-major feature vector.
    pub const fn of_index(index: usize) -> Self {
        FeatureName { channel: index / FEATURES_PER_CHANNEL, feature: index % FEATURES_PER_CHANNEL }
    }

    /// The per-channel suffix, one of [`FEATURE_NAMES`].
    pub const fn suffix(&self) -> &'static str {
        FEATURE_NAMES[self.feature % FEATURES_PER_CHANNEL]
    }
}

impl fmt::Display for FeatureName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ch{}_{}", self.channel, self.suffix())
    }
}

/// The last `N` samples of one channel, in a ring buffer; the oldest sample drops out on push.
#[derive(Debug, Clone, Default)]
pub struct SlidingWindow<const N: usize> {
    buf: HistoryBuf<Sample, N>,
}

impl<const N: usize> SlidingWindow<N> {
    /// An empty window. `N` must be in `1..=MAX_WINDOW_LEN` (checked at compile time).
    pub const fn new() -> Self {
        const { assert!(N >= 1 && N <= MAX_WINDOW_LEN, "window length must be in 1..=MAX_WINDOW_LEN") };
        SlidingWindow { buf: HistoryBuf::new() }
    }

    /// Appends a sample, dropping the oldest one if the window is full.
    pub fn push(&mut self, sample: Sample) {
        self.buf.write(sample);
    }

    /// Number of samples held, at most `N`.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// Whether no sample has been pushed since creation or [`clear`](Self::clear).
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// Whether the window holds `N` samples.
    pub fn is_full(&self) -> bool {
        self.buf.is_full()
    }

    /// Forgets every sample.
    pub fn clear(&mut self) {
        self.buf.clear();
    }

    /// The samples held, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = Sample> + '_ {
        self.buf.oldest_ordered().copied()
    }

    /// The features of the samples held (equal to [`features`] of them, oldest first).
    ///
    /// # Errors
    ///
    /// [`WindowError::WindowEmpty`] if no sample is held.
    pub fn features(&self) -> Result<Features> {
        let (older, newer) = self.buf.as_slices();
        Ok(Features::of(Samples::new(older, newer)?))
    }

    /// The window feature `feature` of the samples held (equal to [`WindowFeature::compute`] of
    /// them, oldest first); `feature.channel` is not read. The ring buffer is read in place
    /// through its two halves: no copy, no scratch buffer.
    ///
    /// # Errors
    ///
    /// As [`WindowFeature::compute`]: [`WindowError::WindowEmpty`] if no sample is held, and the
    /// segment errors of an unchecked `feature`.
    pub fn compute(&self, feature: &WindowFeature) -> Result<Feature> {
        let (older, newer) = self.buf.as_slices();
        feature.compute_parts(older, newer)
    }
}

/// One [`SlidingWindow`] of `N` samples per channel, for `C` channels sampled together.
///
/// Push one frame (a sample of every channel) at a time; [`push_frame`](Self::push_frame) returns
/// `true` when a new window is ready: first when the windows fill up, then every `hop` frames.
/// With `hop == N` consecutive windows do not overlap.
#[derive(Debug, Clone)]
pub struct SensorWindows<const C: usize, const N: usize> {
    channels: [SlidingWindow<N>; C],
    hop: usize,
    since_ready: usize,
}

impl<const C: usize, const N: usize> SensorWindows<C, N> {
    /// Empty windows that become ready every `hop` frames.
    ///
    /// # Errors
    ///
    /// [`WindowError::HopInvalid`] unless `1 <= hop <= N`.
    pub const fn new(hop: usize) -> Result<Self> {
        if hop == 0 || hop > N {
            return Err(WindowError::HopInvalid);
        }
        Ok(SensorWindows { channels: [const { SlidingWindow::new() }; C], hop, since_ready: 0 })
    }

    /// Appends one sample per channel; returns whether a new window is ready.
    pub fn push_frame(&mut self, frame: [Sample; C]) -> bool {
        for (window, sample) in self.channels.iter_mut().zip(frame) {
            window.push(sample);
        }
        // Saturates at `hop`, so it cannot overflow however long nobody reads the windows.
        self.since_ready = (self.since_ready + 1).min(self.hop);
        if self.is_full() && self.since_ready == self.hop {
            self.since_ready = 0;
            true
        } else {
            false
        }
    }

    /// Whether every channel's window holds `N` samples.
    pub fn is_full(&self) -> bool {
        // Every push and clear reaches all channels alike, so the first speaks for all.
        self.channels.first().is_none_or(SlidingWindow::is_full)
    }

    /// Forgets every sample and restarts the hop count.
    pub fn clear(&mut self) {
        self.channels.iter_mut().for_each(SlidingWindow::clear);
        self.since_ready = 0;
    }

    /// The window of channel `c`, if `c < C`.
    pub fn channel(&self, c: usize) -> Option<&SlidingWindow<N>> {
        self.channels.get(c)
    }

    /// Writes the channel-major feature vector of the current windows into `out`.
    ///
    /// # Errors
    ///
    /// [`WindowError::OutputLength`] unless `out.len() == feature_count(C)`;
    /// [`WindowError::WindowEmpty`] if nothing has been pushed. On error `out` may be partly written.
    pub fn extract_into(&self, out: &mut [Feature]) -> Result<()> {
        if out.len() != feature_count(C) {
            return Err(WindowError::OutputLength);
        }
        for (window, slot) in self.channels.iter().zip(out.chunks_exact_mut(FEATURES_PER_CHANNEL)) {
            slot.copy_from_slice(&window.features()?.to_array());
        }
        Ok(())
    }

    /// The window feature `feature` of the current windows.
    ///
    /// ```
    /// use ltu_runtime::window::{SensorWindows, Stat, WindowFeature};
    ///
    /// let mut windows = SensorWindows::<2, 4>::new(4)?;
    /// for t in 0..6i16 {
    ///     windows.push_frame([t, 10 * t]);
    /// }
    /// // Channel 1 holds 20, 30, 40, 50: 10 counts per sample.
    /// assert_eq!(windows.compute(&WindowFeature::whole(1, Stat::Slope))?, 10 << 8);
    /// let model_reads = ["ch0_min_s1of2", "ch1_peak_to_peak"].map(|n| n.parse::<WindowFeature>().unwrap());
    /// let values: Result<Vec<i32>, _> = model_reads.iter().map(|f| windows.compute(f)).collect();
    /// assert_eq!(values?, [4, 30]);
    /// # Ok::<(), ltu_runtime::window::WindowError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// The errors of [`WindowFeature::validate`] with `C` channels, and
    /// [`WindowError::WindowEmpty`] if nothing has been pushed.
    pub fn compute(&self, feature: &WindowFeature) -> Result<Feature> {
        let window = self.channels.get(usize::from(feature.channel)).ok_or(WindowError::ChannelInvalid)?;
        window.compute(feature)
    }

    /// Computes `features` of the current windows into `out`, in order; see [`compute_into`].
    ///
    /// # Errors
    ///
    /// [`WindowError::OutputLength`] unless `out.len() == features.len()`, and the errors of
    /// [`compute`](Self::compute). On error `out` may be partly written.
    pub fn compute_into(&self, features: &[WindowFeature], out: &mut [Feature]) -> Result<()> {
        if out.len() != features.len() {
            return Err(WindowError::OutputLength);
        }
        for (feature, slot) in features.iter().zip(out) {
            *slot = self.compute(feature)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use std::string::ToString;
    use std::vec::Vec;

    use proptest::prelude::*;

    use super::*;

    /// Reference features in exact wide arithmetic, written independently of the kernels.
    fn reference(xs: &[i16]) -> [i32; 5] {
        let n = xs.len() as i128;
        let sum: i128 = xs.iter().map(|&x| i128::from(x)).sum();
        let sum_sq: i128 = xs.iter().map(|&x| i128::from(x) * i128::from(x)).sum();
        let mean = sum.div_euclid(n);
        // largest s with s² ≤ (n·Σx² − (Σx)²) / n², i.e. s²·n² ≤ n·Σx² − (Σx)²
        let m2 = n * sum_sq - sum * sum;
        let (mut s, mut hi) = (0i128, 1i128 << 16); // invariant: s² n² ≤ m2 < hi² n²
        while hi - s > 1 {
            let mid = (s + hi) / 2;
            if mid * mid * n * n <= m2 {
                s = mid;
            } else {
                hi = mid;
            }
        }
        let energy = sum_sq / n;
        let min = *xs.iter().min().unwrap();
        let max = *xs.iter().max().unwrap();
        [mean as i32, s as i32, energy as i32, min.into(), max.into()]
    }

    #[test]
    fn names_match_struct_order() {
        let f = Features { mean: 0, spread: 1, energy: 2, min: 3, max: 4 };
        assert_eq!(f.to_array(), [0, 1, 2, 3, 4]);
        assert_eq!(FEATURE_NAMES, ["mean", "spread", "energy", "min", "max"]);
        assert_eq!(FEATURE_STATS.map(Stat::name), FEATURE_NAMES);
        for i in 0..10 {
            let name = FeatureName::of_index(i);
            let stat = FEATURE_STATS[name.feature];
            assert_eq!(WindowFeature::whole(name.channel as u8, stat).to_string(), name.to_string());
        }
        let names: Vec<_> = (0..10).map(|i| FeatureName::of_index(i).to_string()).collect();
        assert_eq!(names[0], "ch0_mean");
        assert_eq!(names[4], "ch0_max");
        assert_eq!(names[5], "ch1_mean");
        assert_eq!(names[9], "ch1_max");
    }

    #[test]
    fn length_one() {
        for x in [i16::MIN, -1, 0, 1, i16::MAX] {
            let xi = i32::from(x);
            assert_eq!(features(&[x]).unwrap().to_array(), [xi, 0, xi * xi, xi, xi]);
        }
    }

    #[test]
    fn all_min_at_max_length() {
        let xs = [i16::MIN; MAX_WINDOW_LEN];
        assert_eq!(features(&xs).unwrap().to_array(), [-32768, 0, 1 << 30, -32768, -32768]);
    }

    #[test]
    fn all_max_at_max_length() {
        let xs = [i16::MAX; MAX_WINDOW_LEN];
        assert_eq!(features(&xs).unwrap().to_array(), [32767, 0, 32767 * 32767, 32767, 32767]);
    }

    #[test]
    fn extremes_alternating_give_largest_spread() {
        let xs: Vec<i16> =
            (0..MAX_WINDOW_LEN).map(|i| if i % 2 == 0 { i16::MIN } else { i16::MAX }).collect();
        let f = features(&xs).unwrap();
        // mean -0.5 floors to -1; std is exactly 32767.5, floored.
        assert_eq!(f.mean, -1);
        assert_eq!(f.spread, 32767);
        assert_eq!(f.to_array(), reference(&xs));
    }

    #[test]
    fn mean_rounds_toward_negative_infinity() {
        assert_eq!(features(&[-1, 0]).unwrap().mean, -1);
        assert_eq!(features(&[1, 0]).unwrap().mean, 0);
        assert_eq!(features(&[-2, -3, -3]).unwrap().mean, -3);
    }

    #[test]
    fn spread_floors_exactly_at_perfect_squares() {
        // variance exactly 4 -> 2; variance 3.99.. -> 1
        assert_eq!(features(&[-2, 2]).unwrap().spread, 2);
        assert_eq!(features(&[0, 0, 0, 4]).unwrap().spread, 1); // var 3
        assert_eq!(features(&[0, 4]).unwrap().spread, 2); // var 4
    }

    #[test]
    fn rejects_empty_and_too_long() {
        assert_eq!(features(&[]), Err(WindowError::WindowEmpty));
        let xs = [0i16; MAX_WINDOW_LEN + 1];
        assert_eq!(features(&xs), Err(WindowError::WindowTooLong));
        assert!(features(&xs[..MAX_WINDOW_LEN]).is_ok());
    }

    #[test]
    fn extract_checks_output_length() {
        let rec = [1i16, 2, 3, 4];
        let mut short = [0i32; 5];
        let mut exact = [0i32; 10];
        let mut long = [0i32; 15];
        let mut ragged = [0i32; 11];
        assert_eq!(extract_into(rec.chunks(2), &mut short), Err(WindowError::OutputLength));
        assert_eq!(extract_into(rec.chunks(2), &mut long), Err(WindowError::OutputLength));
        assert_eq!(extract_into(rec.chunks(2), &mut ragged), Err(WindowError::OutputLength));
        assert_eq!(extract_into(rec.chunks(2), &mut exact), Ok(()));
        assert_eq!(exact[..5], reference(&[1, 2]));
        assert_eq!(exact[5..], reference(&[3, 4]));
        let empty: [&[i16]; 1] = [&[]];
        assert_eq!(extract_into(empty, &mut short), Err(WindowError::WindowEmpty));
    }

    #[test]
    fn sliding_window_keeps_last_n() {
        let mut w = SlidingWindow::<3>::new();
        assert!(w.is_empty());
        assert_eq!(w.features(), Err(WindowError::WindowEmpty));
        for x in 1..=5 {
            w.push(x);
        }
        assert!(w.is_full());
        assert_eq!(w.len(), 3);
        assert_eq!(w.iter().collect::<Vec<_>>(), [3, 4, 5]);
        assert_eq!(w.features().unwrap(), features(&[3, 4, 5]).unwrap());
        w.clear();
        assert!(w.is_empty());
    }

    #[test]
    fn sensor_windows_hop() {
        assert_eq!(SensorWindows::<1, 4>::new(0).err(), Some(WindowError::HopInvalid));
        assert_eq!(SensorWindows::<1, 4>::new(5).err(), Some(WindowError::HopInvalid));
        let mut w = SensorWindows::<2, 4>::new(4).unwrap();
        let mut out = [0i32; 10];
        assert_eq!(w.extract_into(&mut out), Err(WindowError::WindowEmpty));
        assert_eq!(w.extract_into(&mut out[..9]), Err(WindowError::OutputLength));
        let ready: Vec<bool> = (0..12i16).map(|t| w.push_frame([t, 100 - t])).collect();
        let want: Vec<bool> = (1..=12).map(|k| k % 4 == 0).collect();
        assert_eq!(ready, want);
        w.extract_into(&mut out).unwrap();
        assert_eq!(out[..5], reference(&[8, 9, 10, 11]));
        assert_eq!(out[5..], reference(&[92, 91, 90, 89]));
        assert_eq!(w.channel(1).unwrap().iter().collect::<Vec<_>>(), [92, 91, 90, 89]);
        assert!(w.channel(2).is_none());
        w.clear();
        assert!(!w.is_full());
        assert!(!(0..3i16).any(|t| w.push_frame([t, t])));
        assert!(w.push_frame([3, 3]));
    }

    proptest! {
        // Long vectors are slow to generate in debug builds; 64 cases still cover the lengths.
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn matches_reference(xs in proptest::collection::vec(any::<i16>(), 1..300)) {
            prop_assert_eq!(features(&xs).unwrap().to_array(), reference(&xs));
        }

        #[test]
        fn matches_reference_extreme_values(
            xs in proptest::collection::vec(prop_oneof![Just(i16::MIN), Just(i16::MAX), -2i16..=2], 1..MAX_WINDOW_LEN)
        ) {
            prop_assert_eq!(features(&xs).unwrap().to_array(), reference(&xs));
        }

        #[test]
        fn five_features_are_the_whole_window_stats(xs in proptest::collection::vec(any::<i16>(), 1..300)) {
            let old = features(&xs).unwrap().to_array();
            let new = FEATURE_STATS.map(|stat| WindowFeature::whole(0, stat).compute(&xs).unwrap());
            prop_assert_eq!(old, new);
            // And through a ring buffer, as the firmware reads them.
            let mut windows = SensorWindows::<1, 64>::new(1).unwrap();
            for &x in &xs {
                windows.push_frame([x]);
            }
            let held = &xs[xs.len().saturating_sub(64)..];
            let mut extracted = [0; FEATURES_PER_CHANNEL];
            windows.extract_into(&mut extracted).unwrap();
            let mut computed = [0; FEATURES_PER_CHANNEL];
            windows.compute_into(&FEATURE_STATS.map(|s| WindowFeature::whole(0, s)), &mut computed).unwrap();
            prop_assert_eq!(extracted, features(held).unwrap().to_array());
            prop_assert_eq!(computed, extracted);
        }

        #[test]
        fn sliding_equals_batch(xs in proptest::collection::vec(any::<i16>(), 1..100)) {
            let mut w = SlidingWindow::<16>::new();
            for (i, &x) in xs.iter().enumerate() {
                w.push(x);
                let start = (i + 1).saturating_sub(16);
                prop_assert_eq!(w.features().unwrap(), features(&xs[start..=i]).unwrap());
            }
        }
    }
}

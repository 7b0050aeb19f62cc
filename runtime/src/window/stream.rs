//! Window features kept up to date frame by frame: running sums per segment, O(1) per sample.

use heapless::Vec;

use super::stat::{crossings, mean_abs_diff_of, slope_of, Samples, Sums};
use super::{Feature, Result, Sample, SensorWindows, SlidingWindow, Stat, WindowError, WindowFeature};

/// The window features a model reads, kept as running sums while frames stream in.
///
/// `C` channels, windows of `N` samples (`1..=`[`MAX_WINDOW_LEN`](super::MAX_WINDOW_LEN),
/// checked at compile time), at most `F` features. A `Stream` holds a [`SensorWindows`] (the
/// ring buffers) and, for every distinct segment (channel, `segments`, `segment`) that a tracked
/// feature reads with a summing statistic, the running sums of that segment:
///
/// | statistic                        | kept as                         | at window time                 |
/// |----------------------------------|---------------------------------|--------------------------------|
/// | `mean`, `spread`, `energy`       | `Σx`, `Σx²`                     | O(1): the same rounding as [`Stat`] |
/// | `mean_abs_diff`                  | `Σ abs(x[t+1] − x[t])`          | O(1)                           |
/// | `slope`                          | `Σ(2t − L + 1)·x` (and `Σx`)    | O(1)                           |
/// | `crossings`                      | `Σx` (for the mean)             | one pass over the segment      |
/// | `min`, `max`, `peak_to_peak`     | nothing                         | one pass over the segment      |
///
/// Once the windows are full, each frame moves every segment one sample forward: one sample
/// leaves at its start, one enters at its end (the next sample in the window, or the new sample
/// for a segment that ends the window), and the sums change by those two samples alone, read
/// from the ring buffer before the new frame overwrites it. The slope's moment of a segment of
/// `L` samples `x[0..L]` moving to `x[1..L]` followed by `y` changes as
///
/// ```text
/// M' = Σ_{t<L} (2t − L + 1)·x'[t]   with x'[t] = x[t+1] for t < L − 1, x'[L−1] = y
///    = M − 2·Σx + (L + 1)·x[0] + (L − 1)·y
/// ```
///
/// (every remaining sample's weight drops by 2, the leaving sample took `1 − L`, the entering
/// one takes `L − 1`), with `Σx` the segment's sum before the move.
///
/// The extremes and the crossings have no exact O(1) update from a fixed set of sums: when the
/// smallest sample leaves, the new minimum is whichever remaining sample is smallest, which only
/// a sorted structure (a monotonic deque per segment, `O(L)` more RAM each) could say, and which
/// samples lie above the mean changes whenever the mean does. They are computed from the ring
/// buffer when asked, as [`WindowFeature::compute`] does.
///
/// Every value equals [`WindowFeature::compute`] of the current window, bit for bit: the running
/// sums are exact integers and are finished by the same code as the window kernels.
///
/// # No overflow
///
/// The sums are always the exact sums of a segment's current samples, so they stay within the
/// bounds of the [module documentation](super#no-overflow): `|Σx| ≤ 2^27` (an `i32`),
/// `Σx² ≤ 2^42` (a `u64`), `Σ|Δx| < 2^28` (a `u32`), `|M| ≤ 2^38` (an `i64`). An update adds
/// and subtracts one sample's share: `Σx − x[0] + y` passes through at most `2^27 + 2^15`;
/// `Σx² − x[0]²` and `Σ|Δx| − |x[1] − x[0]|` subtract a term of the sum itself, so they never go
/// below 0, and the results are again within bounds. The moment update adds
/// `(L + 1)·|x[0]| ≤ 4097 · 2^15 < 2^28`, `(L − 1)·|y| < 2^27` and `2·|Σx| ≤ 2^28` to
/// `|M| ≤ 2^38` (each product of an `i64`), so it passes through less than `2^39` and ends at
/// the new segment's moment, again within `2^38`. Nothing wraps, saturates or panics, for any
/// samples.
///
/// # RAM
///
/// Fixed at compile time, no allocation: the [`SensorWindows`] (`C` ring buffers of `N`
/// samples, `2·N` bytes each plus a write index and a flag, and the hop counter), `8` bytes
/// per feature (the feature and which segment's sums it reads) and `32` bytes per segment slot
/// (`F` slots are reserved, since every feature could read its own segment), plus two lengths.
/// On a 32-bit core (Cortex-M) that is at most `C·(2·N + 8) + 40·F + 24` bytes (the total is
/// a multiple of 8), e.g. 832 bytes for 3 channels, windows of 64 samples and 10 features; on
/// a 64-bit host `C·(2·N + 16) + 40·F + 32` for even `N`, less for odd `N` (the test
/// `ram_is_fixed` pins it).
///
/// ```
/// use ltu_runtime::window::{Stat, Stream, WindowFeature};
///
/// let features = [
///     WindowFeature::whole(0, Stat::Mean),
///     WindowFeature { channel: 1, stat: Stat::Slope, segments: 2, segment: 1 },
///     WindowFeature::whole(1, Stat::Max),
/// ];
/// // 2 channels, windows of 8 samples, a new window every 4 frames, room for 4 features.
/// let mut stream = Stream::<2, 8, 4>::new(&features, 4)?;
/// let mut windows = 0;
/// for t in 0..16i16 {
///     if stream.push_frame([t, 3 * t]) {
///         windows += 1;
///         // Channel 0 holds t − 7 ..= t; channel 1 rises 3 counts per sample.
///         assert_eq!(stream.value(0), Some(i32::from(t) - 4)); // mean t − 3.5, floored
///         assert_eq!(stream.value(1), Some(3 << 8));
///         assert_eq!(stream.value(2), Some(3 * i32::from(t)));
///     }
/// }
/// assert_eq!(windows, 3); // after frames 8, 12 and 16
/// # Ok::<(), ltu_runtime::window::WindowError>(())
/// ```
///
/// With the `pipeline` feature, [`Stream::for_pipeline`] tracks a model's inputs and
/// [`Model::predict_stream`](crate::Model::predict_stream) predicts from the current window.
#[derive(Debug, Clone)]
pub struct Stream<const C: usize, const N: usize, const F: usize> {
    windows: SensorWindows<C, N>,
    features: Vec<Tracked, F>,
    segments: Vec<Segment, F>,
}

/// A feature the stream serves, and the running sums it reads, if its statistic has them.
#[derive(Debug, Clone, Copy)]
struct Tracked {
    feature: WindowFeature,
    /// Index into [`Stream::segments`]; `None` for `min`, `max` and `peak_to_peak`.
    segment: Option<u16>,
}

/// The running sums of the samples `[start, end)` of one channel's full window.
///
/// Fields ordered widest first, so the record is 32 bytes with no padding.
#[derive(Debug, Clone, Copy)]
struct Segment {
    /// `Σx²`.
    sum_sq: u64,
    /// `Σ(2t − L + 1)·x[t]` over the segment's `L` samples, `t` counted from its start.
    moment: i64,
    /// `Σx`.
    sum: i32,
    /// `Σ|x[t+1] − x[t]|` over consecutive samples of the segment.
    abs_diff: u32,
    start: u16,
    end: u16,
    channel: u8,
    segments: u8,
    segment: u8,
    /// Which sums beyond `Σx` the segment's statistics read ([`NEEDS_SQ`], [`NEEDS_MOMENT`],
    /// [`NEEDS_ABS_DIFF`]): a push updates only those.
    needs: u8,
}

/// `Σx²`, for spread and energy.
const NEEDS_SQ: u8 = 1;
/// The slope moment.
const NEEDS_MOMENT: u8 = 2;
/// `Σ|x[t+1] − x[t]|`, for the mean absolute difference.
const NEEDS_ABS_DIFF: u8 = 4;

/// The sums beyond `Σx` that `stat` is finished from.
const fn needs(stat: Stat) -> u8 {
    match stat {
        Stat::Spread | Stat::Energy => NEEDS_SQ,
        Stat::Slope => NEEDS_MOMENT,
        Stat::MeanAbsDiff => NEEDS_ABS_DIFF,
        _ => 0,
    }
}

/// Whether a statistic is finished from running sums (and so needs a [`Segment`]).
const fn has_sums(stat: Stat) -> bool {
    !matches!(stat, Stat::Min | Stat::Max | Stat::PeakToPeak)
}

/// Sample `j` (0 = oldest) of a window, read in place from the ring buffer's two halves
/// `(older, newer)`; 0 past the end (never asked: the callers stay below `N` of a full window).
fn at((older, newer): (&[Sample], &[Sample]), j: usize) -> i32 {
    let x = match j.checked_sub(older.len()) {
        None => older.get(j),
        Some(k) => newer.get(k),
    };
    x.map_or(0, |&x| i32::from(x))
}

impl Segment {
    /// Sums over the samples `[start, end)` of the full `window`, from scratch.
    fn of<const N: usize>(window: &SlidingWindow<N>, start: usize, end: usize) -> (i32, u64, u32, i64) {
        let len = end - start;
        // 2t − L + 1 at t = 0; |weight| < 2^12 and |weight·x| < 2^27, as in the slope kernel.
        let mut weight = 1 - len as i32;
        let (mut sum, mut sum_sq, mut abs_diff, mut moment) = (0i32, 0u64, 0u32, 0i64);
        let mut prev: Option<i32> = None;
        for x in window.iter().skip(start).take(len) {
            let x = i32::from(x);
            sum += x;
            sum_sq += u64::from((x * x).unsigned_abs());
            moment += i64::from(weight * x);
            weight += 2;
            if let Some(p) = prev {
                abs_diff += (x - p).unsigned_abs();
            }
            prev = Some(x);
        }
        (sum, sum_sq, abs_diff, moment)
    }

    /// Recomputes the sums from the window, which has just filled up.
    fn restart<const N: usize>(&mut self, window: &SlidingWindow<N>) {
        (self.sum, self.sum_sq, self.abs_diff, self.moment) =
            Self::of(window, usize::from(self.start), usize::from(self.end));
    }

    /// Moves the segment one sample forward: `window` is full and still holds the old samples;
    /// `new` is the sample about to be pushed. See [`Stream`] for the update and its bounds.
    fn slide<const N: usize>(&mut self, window: &SlidingWindow<N>, new: Sample) {
        let (start, end) = (usize::from(self.start), usize::from(self.end));
        let len = (end - start) as i64; // 1..=N
        let window = window.buf.as_slices();
        let leaving = at(window, start);
        let entering = if end < N { at(window, end) } else { i32::from(new) };
        // Only the sums the segment's statistics read; the others keep their values from the
        // last restart and are never read.
        if self.needs & NEEDS_MOMENT != 0 {
            // Uses the sum before the move.
            self.moment +=
                (len + 1) * i64::from(leaving) + (len - 1) * i64::from(entering) - 2 * i64::from(self.sum);
        }
        self.sum += entering - leaving;
        if self.needs & NEEDS_SQ != 0 {
            self.sum_sq = self.sum_sq - u64::from((leaving * leaving).unsigned_abs())
                + u64::from((entering * entering).unsigned_abs());
        }
        if self.needs & NEEDS_ABS_DIFF != 0 && len >= 2 {
            // The pair (x[0], x[1]) leaves; the pair (x[L−1], y) enters.
            let first_gap = (at(window, start + 1) - leaving).unsigned_abs();
            let last_gap = (entering - at(window, end - 1)).unsigned_abs();
            self.abs_diff = self.abs_diff - first_gap + last_gap;
        }
    }

    /// The statistic `stat` of the segment, whose samples `xs` are.
    fn finish(&self, stat: Stat, xs: Samples<'_>) -> Feature {
        let len = usize::from(self.end - self.start);
        let sums = Sums::from_running(len as u32, self.sum, self.sum_sq);
        match stat {
            Stat::Mean => sums.mean(),
            Stat::Spread => sums.spread(),
            Stat::Energy => sums.energy(),
            Stat::MeanAbsDiff => mean_abs_diff_of(self.abs_diff, len),
            Stat::Slope => slope_of(self.moment, len as i64),
            Stat::Crossings => crossings(xs, sums.mean()),
            Stat::Min | Stat::Max | Stat::PeakToPeak => stat.of(xs),
        }
    }
}

impl<const C: usize, const N: usize, const F: usize> Stream<C, N, F> {
    /// An empty stream serving `features` (value `i` is `features[i]`), with a window ready
    /// every `hop` frames once the windows are full.
    ///
    /// Features that read the same segment of the same channel share one set of running sums.
    ///
    /// # Errors
    ///
    /// [`WindowError::HopInvalid`] unless `1 <= hop <= N`; the errors of
    /// [`WindowFeature::validate`] with `C` channels; [`WindowError::TooManyFeatures`] for more
    /// than `F` features.
    pub fn new(features: &[WindowFeature], hop: usize) -> Result<Self> {
        let mut stream =
            Stream { windows: SensorWindows::new(hop)?, features: Vec::new(), segments: Vec::new() };
        for feature in features {
            stream.track(*feature)?;
        }
        Ok(stream)
    }

    /// A stream serving the inputs of a model's sensor pipeline (value `i` is input `i`,
    /// [`Pipeline::feature`](crate::Pipeline::feature)), with the pipeline's hop.
    ///
    /// # Errors
    ///
    /// [`WindowError::ChannelCountMismatch`] unless the pipeline has `C` channels,
    /// [`WindowError::WindowLengthMismatch`] unless its windows are `N` samples (a pipeline
    /// whose window is the whole recording, length 0, cannot stream), and
    /// [`WindowError::TooManyFeatures`] if the model has more than `F` inputs.
    #[cfg(feature = "pipeline")]
    pub fn for_pipeline(pipeline: &crate::Pipeline<'_>) -> Result<Self> {
        if pipeline.n_channels() != C {
            return Err(WindowError::ChannelCountMismatch);
        }
        if pipeline.window() != N {
            return Err(WindowError::WindowLengthMismatch);
        }
        let mut stream = Stream {
            windows: SensorWindows::new(pipeline.hop())?,
            features: Vec::new(),
            segments: Vec::new(),
        };
        let mut i = 0;
        while let Some(feature) = pipeline.feature(i) {
            stream.track(feature)?;
            i += 1;
        }
        Ok(stream)
    }

    /// Adds one feature, sharing the running sums of a segment already tracked.
    fn track(&mut self, feature: WindowFeature) -> Result<()> {
        feature.validate(C)?;
        let segment = if has_sums(feature.stat) {
            let same = |s: &Segment| {
                (s.channel, s.segments, s.segment) == (feature.channel, feature.segments, feature.segment)
            };
            let index = match self.segments.iter().position(same) {
                Some(index) => {
                    self.segments[index].needs |= needs(feature.stat);
                    index
                }
                None => {
                    let (start, end) = feature.bounds(N);
                    let new = Segment {
                        sum_sq: 0,
                        moment: 0,
                        sum: 0,
                        abs_diff: 0,
                        // N ≤ MAX_WINDOW_LEN = 4096: both fit a u16.
                        start: start as u16,
                        end: end as u16,
                        channel: feature.channel,
                        segments: feature.segments,
                        segment: feature.segment,
                        needs: needs(feature.stat),
                    };
                    self.segments.push(new).map_err(|_| WindowError::TooManyFeatures)?;
                    self.segments.len() - 1
                }
            };
            // index < F; a stream with more than 65536 features could not fit any RAM.
            Some(u16::try_from(index).map_err(|_| WindowError::TooManyFeatures)?)
        } else {
            None
        };
        self.features.push(Tracked { feature, segment }).map_err(|_| WindowError::TooManyFeatures)
    }

    /// Appends one sample per channel and updates every running sum; returns whether a new
    /// window is ready (first when the windows fill up, then every `hop` frames, as
    /// [`SensorWindows::push_frame`]).
    ///
    /// Costs O(1) per tracked segment (four ring-buffer reads and a few adds), except on the
    /// frame that fills the windows, when each segment's sums are computed once from its samples.
    pub fn push_frame(&mut self, frame: [Sample; C]) -> bool {
        let was_full = self.windows.is_full();
        if was_full {
            for segment in &mut self.segments {
                let c = usize::from(segment.channel);
                if let (Some(window), Some(&new)) = (self.windows.channel(c), frame.get(c)) {
                    segment.slide(window, new);
                }
            }
        }
        let ready = self.windows.push_frame(frame);
        if !was_full && self.windows.is_full() {
            for segment in &mut self.segments {
                if let Some(window) = self.windows.channel(usize::from(segment.channel)) {
                    segment.restart(window);
                }
            }
        }
        ready
    }

    /// Value `i`: feature `i` of the current window, equal to [`WindowFeature::compute`] of it.
    /// `None` until the windows are full, and past the last feature.
    ///
    /// Summing statistics cost O(1); `min`, `max`, `peak_to_peak` and `crossings` one pass over
    /// their segment. Nothing is cached: ask once per window, or let
    /// [`Model::predict_stream`](crate::Model::predict_stream) ask for just the inputs the
    /// evaluation path reads.
    pub fn value(&self, i: usize) -> Option<Feature> {
        if !self.windows.is_full() {
            return None;
        }
        let tracked = self.features.get(i)?;
        let feature = tracked.feature;
        let window = self.windows.channel(usize::from(feature.channel))?;
        let (older, newer) = window.buf.as_slices();
        let (start, end) = feature.bounds(N);
        let xs = Samples::new(older, newer).ok()?.range(start, end);
        Some(match tracked.segment.and_then(|s| self.segments.get(usize::from(s))) {
            Some(segment) => segment.finish(feature.stat, xs),
            None => feature.stat.of(xs),
        })
    }

    /// The features served, in value order.
    pub fn features(&self) -> impl ExactSizeIterator<Item = WindowFeature> + '_ {
        self.features.iter().map(|t| t.feature)
    }

    /// Number of features served.
    pub fn n_features(&self) -> usize {
        self.features.len()
    }

    /// Whether every channel's window holds `N` samples (so [`value`](Self::value) answers).
    pub fn is_full(&self) -> bool {
        self.windows.is_full()
    }

    /// The ring buffers, for anything the stream does not track.
    pub fn windows(&self) -> &SensorWindows<C, N> {
        &self.windows
    }

    /// Forgets every sample and restarts the hop count; the features stay.
    pub fn clear(&mut self) {
        self.windows.clear();
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use std::vec::Vec as StdVec;

    use proptest::prelude::*;

    use super::super::{MAX_SEGMENTS, MAX_WINDOW_LEN};
    use super::*;

    /// Pushes `frames` through a stream of `features` and checks, after every frame of a full
    /// window, every value against [`WindowFeature::compute`] of the window slice; returns how
    /// many windows were ready.
    fn check<const C: usize, const N: usize, const F: usize>(
        frames: &[[Sample; C]],
        features: &[WindowFeature],
        hop: usize,
    ) -> usize {
        let mut stream = Stream::<C, N, F>::new(features, hop).unwrap();
        let mut ready = 0;
        for (t, &frame) in frames.iter().enumerate() {
            let was_ready = stream.push_frame(frame);
            ready += usize::from(was_ready);
            let seen = t + 1;
            assert_eq!(stream.is_full(), seen >= N);
            assert_eq!(was_ready, seen >= N && (seen - N).is_multiple_of(hop), "frame {t}");
            if seen < N {
                assert!((0..features.len()).all(|i| stream.value(i).is_none()));
                continue;
            }
            for (i, f) in features.iter().enumerate() {
                let channel: StdVec<Sample> =
                    frames[seen - N..seen].iter().map(|frame| frame[usize::from(f.channel)]).collect();
                assert_eq!(stream.value(i), Some(f.compute(&channel).unwrap()), "{f} after frame {t}");
            }
            assert_eq!(stream.value(features.len()), None);
        }
        ready
    }

    fn every_feature(channels: u8, segments: &[u8]) -> StdVec<WindowFeature> {
        let mut all = StdVec::new();
        for channel in 0..channels {
            for stat in Stat::ALL {
                for &k in segments {
                    for segment in 0..k {
                        all.push(WindowFeature { channel, stat, segments: k, segment });
                    }
                }
            }
        }
        all
    }

    fn feature() -> impl Strategy<Value = WindowFeature> {
        (0u8..2, 0..Stat::ALL.len(), 1..=MAX_SEGMENTS, any::<u8>()).prop_map(
            |(channel, stat, segments, seed)| WindowFeature {
                channel,
                stat: Stat::ALL[stat],
                segments,
                segment: seed % segments,
            },
        )
    }

    fn extreme() -> impl Strategy<Value = Sample> {
        prop_oneof![Just(i16::MIN), Just(i16::MAX), -1i16..=1]
    }

    #[test]
    fn every_stat_and_segment_by_hand() {
        // A ramp with a kink and negative values; every feature of 1, 2, 3 and 5 segments.
        let frames: StdVec<[Sample; 2]> =
            (0..40i16).map(|t| [t * t - 300, if t % 7 < 3 { -t } else { 2 * t }]).collect();
        let features = every_feature(2, &[1, 2, 3, 5]);
        assert_eq!(features.len(), 2 * 9 * 11);
        assert_eq!(check::<2, 11, 198>(&frames, &features, 3), 10);
        // Windows shorter than the segment count: single-sample segments.
        assert_eq!(check::<2, 3, 198>(&frames, &features, 1), 38);
        let one = every_feature(1, &[MAX_SEGMENTS]);
        let frames: StdVec<[Sample; 1]> = (0..20i16).map(|t| [t * 3 - 9]).collect();
        assert_eq!(check::<1, 1, 144>(&frames, &one, 1), 20);
        assert_eq!(check::<1, 5, 144>(&frames, &one, 5), 4);
    }

    #[test]
    fn segments_share_sums() {
        let features = [
            WindowFeature::whole(0, Stat::Mean),
            WindowFeature::whole(0, Stat::Slope),
            WindowFeature::whole(1, Stat::Mean),
            WindowFeature::whole(0, Stat::Min),
            WindowFeature { channel: 0, stat: Stat::Spread, segments: 2, segment: 1 },
            WindowFeature { channel: 0, stat: Stat::Crossings, segments: 2, segment: 1 },
        ];
        let stream = Stream::<2, 8, 6>::new(&features, 2).unwrap();
        assert_eq!(stream.segments.len(), 3);
        assert_eq!(
            stream.features.iter().map(|t| t.segment).collect::<StdVec<_>>(),
            [Some(0), Some(0), Some(1), None, Some(2), Some(2)]
        );
        assert_eq!(stream.features().collect::<StdVec<_>>(), features);
        assert_eq!(stream.n_features(), 6);
    }

    #[test]
    fn errors() {
        let mean = WindowFeature::whole(0, Stat::Mean);
        assert_eq!(Stream::<1, 4, 1>::new(&[mean], 0).err(), Some(WindowError::HopInvalid));
        assert_eq!(Stream::<1, 4, 1>::new(&[mean], 5).err(), Some(WindowError::HopInvalid));
        assert_eq!(Stream::<1, 4, 1>::new(&[mean, mean], 4).err(), Some(WindowError::TooManyFeatures));
        let max = WindowFeature::whole(0, Stat::Max);
        assert_eq!(Stream::<1, 4, 1>::new(&[max, max], 4).err(), Some(WindowError::TooManyFeatures));
        let ch1 = WindowFeature::whole(1, Stat::Mean);
        assert_eq!(Stream::<1, 4, 1>::new(&[ch1], 4).err(), Some(WindowError::ChannelInvalid));
        let bad = WindowFeature { channel: 0, stat: Stat::Mean, segments: 17, segment: 0 };
        assert_eq!(Stream::<1, 4, 1>::new(&[bad], 4).err(), Some(WindowError::SegmentsInvalid));
        let bad = WindowFeature { channel: 0, stat: Stat::Mean, segments: 2, segment: 2 };
        assert_eq!(Stream::<1, 4, 1>::new(&[bad], 4).err(), Some(WindowError::SegmentInvalid));
        // No features is a valid (if idle) stream.
        let mut idle = Stream::<1, 2, 0>::new(&[], 1).unwrap();
        assert!(!idle.push_frame([1]));
        assert!(idle.push_frame([2]));
        assert_eq!(idle.value(0), None);
    }

    #[test]
    fn clear_starts_over() {
        let features = [WindowFeature::whole(0, Stat::Slope), WindowFeature::whole(0, Stat::MeanAbsDiff)];
        let mut stream = Stream::<1, 4, 2>::new(&features, 2).unwrap();
        for t in 0..9 {
            stream.push_frame([t * 100]);
        }
        assert_eq!(stream.value(0), Some(100 << 8));
        stream.clear();
        assert!(!stream.is_full());
        assert_eq!(stream.value(0), None);
        assert!(!(0..3).any(|t| stream.push_frame([-t])));
        assert!(stream.push_frame([-3]));
        assert_eq!(stream.value(0), Some(-1 << 8));
        assert_eq!(stream.value(1), Some(1));
        assert_eq!(stream.windows().channel(0).unwrap().iter().collect::<StdVec<_>>(), [0, -1, -2, -3]);
    }

    #[test]
    fn extremes_at_max_window() {
        const N: usize = MAX_WINDOW_LEN;
        // Runs at the extremes: the largest sums, squares, gaps and moments the bounds allow, and
        // their largest changes as the window slides.
        let patterns: [fn(usize) -> Sample; 4] = [
            |t| if t % 2 == 0 { i16::MIN } else { i16::MAX },
            |t| if (t / N).is_multiple_of(2) { i16::MIN } else { i16::MAX },
            |t| if (t / (N / 2)).is_multiple_of(2) { i16::MAX } else { i16::MIN },
            |t| if t % 3 == 0 { i16::MIN } else { i16::MAX },
        ];
        let features = every_feature(1, &[1, 2, MAX_SEGMENTS]);
        let frames: StdVec<[Sample; 1]> = (0..3 * N).map(|t| [patterns[t / N % 4](t)]).collect();
        // Long windows: checking every frame costs O(N) per feature, so hop through them.
        let mut stream = Stream::<1, N, 171>::new(&features, N / 4).unwrap();
        let mut ready = 0;
        for (t, &frame) in frames.iter().enumerate() {
            if stream.push_frame(frame) {
                ready += 1;
                let window: StdVec<Sample> = frames[t + 1 - N..=t].iter().map(|f| f[0]).collect();
                for (i, f) in features.iter().enumerate() {
                    assert_eq!(stream.value(i), Some(f.compute(&window).unwrap()), "{f} at {t}");
                }
            }
        }
        assert_eq!(ready, 9);
        for pattern in patterns {
            let frames: StdVec<[Sample; 1]> = (0..N + 40).map(|t| [pattern(t)]).collect();
            let mut stream = Stream::<1, N, 171>::new(&features, 1).unwrap();
            for (t, &frame) in frames.iter().enumerate() {
                stream.push_frame(frame);
                if t + 1 >= N && (t % 13 == 0 || t + 1 == frames.len()) {
                    let window: StdVec<Sample> = frames[t + 1 - N..=t].iter().map(|f| f[0]).collect();
                    for (i, f) in features.iter().enumerate() {
                        assert_eq!(stream.value(i), Some(f.compute(&window).unwrap()), "{f} at {t}");
                    }
                }
            }
        }
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn ram_is_fixed() {
        // The 64-bit formula of the type's documentation, for even `N`. (On a Cortex-M
        // `Stream<3, 64, 10>` measures 832 bytes and `Stream<1, 4096, 171>` 15,064, both equal
        // to the 32-bit bound.)
        fn formula(c: usize, n: usize, f: usize) -> usize {
            c * (2 * n + 16) + 40 * f + 32
        }
        assert_eq!(core::mem::size_of::<Tracked>(), 8);
        assert_eq!(core::mem::size_of::<Segment>(), 32);
        assert_eq!(core::mem::size_of::<Stream<3, 64, 10>>(), formula(3, 64, 10));
        assert_eq!(core::mem::size_of::<Stream<1, MAX_WINDOW_LEN, 171>>(), formula(1, MAX_WINDOW_LEN, 171));
        assert_eq!(core::mem::size_of::<Stream<6, 128, 32>>(), formula(6, 128, 32));
        // Odd N: the ring buffers' padding is shorter.
        assert!(core::mem::size_of::<Stream<2, 7, 1>>() < formula(2, 7, 1));
    }

    /// Streams fed to models: predictions equal [`Model::predict_window`](crate::Model::predict_window).
    #[cfg(all(feature = "pipeline", feature = "tree"))]
    mod model {
        extern crate std;

        use std::vec;
        use std::vec::Vec as StdVec;

        use proptest::prelude::*;

        use super::{feature, Sample, Stat, Stream, WindowError, WindowFeature};
        use crate::format::{
            self, node_kind, InputRec, ModelRepr, NodeRec, PipelineRepr, StructureRepr, WeightKind,
        };
        use crate::{Error, Model};

        /// A model file: a chain of threshold tests, test `j` on input `j` (feature `j` of a
        /// pipeline of `channels` channels, windows of `window` samples, hop `hop`): at most
        /// `thresholds[j]` decides class `j % 4`, above it goes on to test `j + 1`; past the last
        /// test, class `m % 4`. Without a pipeline if `channels` is 0.
        fn chain(
            features: &[WindowFeature],
            thresholds: &[i32],
            channels: u16,
            window: u16,
            hop: u16,
        ) -> StdVec<u8> {
            let m = features.len() as u16;
            let mut nodes = StdVec::new();
            for (j, &value) in (0..m).zip(thresholds) {
                let test = NodeRec { head: j, link: 2 * j + 2, value };
                let leaf = NodeRec { head: node_kind::CLASS, link: 0, value: i32::from(j % 4) };
                nodes.extend(test.to_bytes());
                nodes.extend(leaf.to_bytes());
            }
            nodes.extend(NodeRec { head: node_kind::CLASS, link: 0, value: i32::from(m % 4) }.to_bytes());
            let inputs: StdVec<u8> =
                features.iter().flat_map(|_| InputRec { n_values: 0 }.to_bytes()).collect();
            let recs: StdVec<u8> =
                features.iter().flat_map(|f| [f.channel, f.stat.code(), f.segments, f.segment]).collect();
            let repr = ModelRepr {
                n_classes: 4,
                weight_kind: WeightKind::I8,
                inputs: &inputs,
                scales: &[],
                features: &[],
                literals: &[],
                units: &[],
                term_features: &[],
                weights: &[],
                unit_classes: &[],
                structure: StructureRepr::Tree { nodes: &nodes, children: &[] },
                pipeline: (channels > 0).then_some(PipelineRepr {
                    n_channels: channels,
                    window,
                    hop,
                    features: &recs,
                }),
                host: None,
            };
            let mut out = vec![0u8; 64 + nodes.len() + inputs.len() + recs.len()];
            let n = format::encode(&repr, &mut out).unwrap();
            out.truncate(n);
            out
        }

        /// The windows of `frames` ending at frame `end` (exclusive), one slice per channel.
        fn windows<const C: usize>(frames: &[[Sample; C]], end: usize, n: usize) -> StdVec<StdVec<Sample>> {
            (0..C).map(|c| frames[end - n..end].iter().map(|f| f[c]).collect()).collect()
        }

        #[test]
        fn for_pipeline_checks_the_model() {
            let features = [WindowFeature::whole(0, Stat::Mean), WindowFeature::whole(1, Stat::Slope)];
            let bytes = chain(&features, &[0, 0], 2, 8, 4);
            let model = Model::from_bytes(&bytes).unwrap();
            let pipeline = model.pipeline().unwrap();
            let stream = Stream::<2, 8, 2>::for_pipeline(&pipeline).unwrap();
            assert_eq!(stream.features().collect::<StdVec<_>>(), features);
            assert_eq!(
                Stream::<3, 8, 2>::for_pipeline(&pipeline).err(),
                Some(WindowError::ChannelCountMismatch)
            );
            assert_eq!(
                Stream::<2, 9, 2>::for_pipeline(&pipeline).err(),
                Some(WindowError::WindowLengthMismatch)
            );
            assert_eq!(Stream::<2, 8, 1>::for_pipeline(&pipeline).err(), Some(WindowError::TooManyFeatures));
            let whole_recording = chain(&features, &[0, 0], 2, 0, 0);
            let model = Model::from_bytes(&whole_recording).unwrap();
            assert_eq!(
                Stream::<2, 8, 2>::for_pipeline(&model.pipeline().unwrap()).err(),
                Some(WindowError::WindowLengthMismatch)
            );
        }

        #[test]
        fn predict_stream_checks_the_stream() {
            let features = [WindowFeature::whole(0, Stat::Mean), WindowFeature::whole(1, Stat::Slope)];
            let bytes = chain(&features, &[0, 0], 2, 4, 2);
            let model = Model::from_bytes(&bytes).unwrap();
            let mut stream = Stream::<2, 4, 2>::for_pipeline(&model.pipeline().unwrap()).unwrap();
            // Not full yet.
            assert_eq!(model.predict_stream(&stream), Err(Error::PredictWindow));
            for t in 0..4 {
                stream.push_frame([t, -t]);
            }
            // Mean 1 > 0, slope -256 <= 0: class 1.
            assert_eq!(model.predict_stream(&stream), Ok(1));
            // Other features, other order, other shapes, no pipeline: refused.
            let mut swapped = Stream::<2, 4, 2>::new(&[features[1], features[0]], 2).unwrap();
            let mut fewer = Stream::<2, 4, 2>::new(&features[..1], 2).unwrap();
            let mut longer = Stream::<2, 5, 2>::new(&features, 2).unwrap();
            let mut wider = Stream::<3, 4, 2>::new(&features, 2).unwrap();
            for t in 0..5 {
                swapped.push_frame([t, t]);
                fewer.push_frame([t, t]);
                longer.push_frame([t, t]);
                wider.push_frame([t, t, t]);
            }
            assert_eq!(model.predict_stream(&swapped), Err(Error::PredictWindow));
            assert_eq!(model.predict_stream(&fewer), Err(Error::PredictWindow));
            assert_eq!(model.predict_stream(&longer), Err(Error::PredictWindow));
            assert_eq!(model.predict_stream(&wider), Err(Error::PredictWindow));
            let plain = chain(&features, &[0, 0], 0, 0, 0);
            assert_eq!(Model::from_bytes(&plain).unwrap().predict_stream(&stream), Err(Error::PredictWindow));
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(64))]

            #[test]
            fn predictions_equal_predict_window(
                frames in proptest::collection::vec(any::<[Sample; 2]>(), 24..120),
                features in proptest::collection::vec(feature(), 1..10),
                nudges in proptest::collection::vec(-1i32..=1, 10),
                hop_seed in any::<u16>(),
            ) {
                const N: usize = 23;
                let hop = 1 + hop_seed % N as u16;
                // Thresholds at the features' values on the first window, so the chain splits
                // both ways on the windows that follow.
                let first = windows(&frames, N, N);
                let thresholds: StdVec<i32> = features
                    .iter()
                    .zip(&nudges)
                    .map(|(f, nudge)| f.compute(&first[usize::from(f.channel)]).unwrap().saturating_add(*nudge))
                    .collect();
                let bytes = chain(&features, &thresholds, 2, N as u16, hop);
                let model = Model::from_bytes(&bytes).unwrap();
                let mut stream = Stream::<2, N, 10>::for_pipeline(&model.pipeline().unwrap()).unwrap();
                let mut predicted = 0;
                for (t, &frame) in frames.iter().enumerate() {
                    if stream.push_frame(frame) {
                        let held = windows(&frames, t + 1, N);
                        let slices: StdVec<&[Sample]> = held.iter().map(StdVec::as_slice).collect();
                        let want = model.predict_window(&slices).unwrap();
                        prop_assert_eq!(model.predict_stream(&stream), Ok(want));
                        predicted += 1;
                    }
                }
                prop_assert_eq!(predicted, 1 + (frames.len() - N) / usize::from(hop));
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]

        #[test]
        fn streamed_equals_computed(
            frames in proptest::collection::vec(any::<[Sample; 2]>(), 0..80),
            features in proptest::collection::vec(feature(), 0..12),
            hop_seed in any::<usize>(),
        ) {
            check::<2, 1, 12>(&frames, &features, 1);
            check::<2, 5, 12>(&frames, &features, 1 + hop_seed % 5);
            check::<2, 16, 12>(&frames, &features, 1 + hop_seed % 16);
            check::<2, 37, 12>(&frames, &features, 1 + hop_seed % 37);
        }

        #[test]
        fn streamed_equals_computed_small_values(
            frames in proptest::collection::vec(any::<[i8; 2]>().prop_map(|f| f.map(|x| Sample::from(x) % 3)), 0..60),
            features in proptest::collection::vec(feature(), 1..12),
            hop_seed in any::<usize>(),
        ) {
            // Small values make ties (samples equal to the mean, exact slopes) common.
            check::<2, 7, 12>(&frames, &features, 1 + hop_seed % 7);
            check::<2, 20, 12>(&frames, &features, 1 + hop_seed % 20);
        }

        #[test]
        fn streamed_equals_computed_extreme_values(
            frames in proptest::collection::vec(
                [extreme(), extreme()],
                0..200,
            ),
            features in proptest::collection::vec(feature(), 1..12),
            hop_seed in any::<usize>(),
        ) {
            check::<2, 64, 12>(&frames, &features, 1 + hop_seed % 64);
        }
    }
}

//! Window features: one statistic of one segment of one channel's window, and their names.

use core::fmt;
use core::str::FromStr;

use super::stat::Samples;
use super::{Feature, Result, Sample, Stat, WindowError};

/// Most segments a window can be cut into.
pub const MAX_SEGMENTS: u8 = 16;

/// One feature a model reads from a window of several channels: the statistic `stat` of segment
/// `segment` (0-based) of `segments` equal parts of channel `channel`'s window.
///
/// # Segments
///
/// Segment `i` of `k` of a window of `n` samples is the samples `[floor(i·n/k),
/// floor((i+1)·n/k))`. The segments are consecutive, cover the window and differ in length by at
/// most one. When that range is empty (only possible when `n < k`) the segment is the single
/// sample at `min(floor(i·n/k), n − 1)` (which is `floor(i·n/k)`, always `< n`). So every
/// `n ≥ 1` and `1 ≤ k ≤` [`MAX_SEGMENTS`] give `k` non-empty segments, and `segments = 1` is the
/// whole window.
///
/// # Names
///
/// A feature displays (and [parses](WindowFeature::from_str)) as `ch{channel}_{stat}` when
/// `segments == 1` and `ch{channel}_{stat}_s{segment}of{segments}` otherwise, with
/// [`Stat::name`] and the segment 0-based: `ch0_mean`, `ch2_slope_s0of4` … `ch2_slope_s3of4`.
///
/// ```
/// use ltu_runtime::window::{Stat, WindowFeature};
///
/// let last_half_slope = WindowFeature { channel: 1, stat: Stat::Slope, segments: 2, segment: 1 };
/// assert_eq!(last_half_slope.to_string(), "ch1_slope_s1of2");
/// assert_eq!("ch1_slope_s1of2".parse(), Ok(last_half_slope));
/// // Samples 2..4 of [0, 0, 5, 7]: rises 2 counts per sample, 512/256.
/// assert_eq!(last_half_slope.compute(&[0, 0, 5, 7])?, 512);
/// # Ok::<(), ltu_runtime::window::WindowError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct WindowFeature {
    /// The channel whose window is read.
    pub channel: u8,
    /// The statistic computed.
    pub stat: Stat,
    /// Number of equal parts the window is cut into, `1..=MAX_SEGMENTS`.
    pub segments: u8,
    /// The part read, `0..segments`.
    pub segment: u8,
}

impl WindowFeature {
    /// The statistic over channel `channel`'s whole window (one segment).
    pub const fn whole(channel: u8, stat: Stat) -> Self {
        WindowFeature { channel, stat, segments: 1, segment: 0 }
    }

    /// Checks the feature against a pipeline of `n_channels` channels.
    ///
    /// # Errors
    ///
    /// [`WindowError::ChannelInvalid`] unless `channel < n_channels`,
    /// [`WindowError::SegmentsInvalid`] unless `1 <= segments <= MAX_SEGMENTS`,
    /// [`WindowError::SegmentInvalid`] unless `segment < segments`.
    pub fn validate(&self, n_channels: usize) -> Result<()> {
        if usize::from(self.channel) >= n_channels {
            return Err(WindowError::ChannelInvalid);
        }
        self.check_segment()
    }

    fn check_segment(&self) -> Result<()> {
        if self.segments == 0 || self.segments > MAX_SEGMENTS {
            Err(WindowError::SegmentsInvalid)
        } else if self.segment >= self.segments {
            Err(WindowError::SegmentInvalid)
        } else {
            Ok(())
        }
    }

    /// The feature of one channel's window `channel_samples` (oldest first); `channel` is not
    /// read. One pass over the segment, two for [`Stat::Crossings`].
    ///
    /// # Errors
    ///
    /// [`WindowError::SegmentsInvalid`] or [`WindowError::SegmentInvalid`] as for
    /// [`validate`](Self::validate), [`WindowError::WindowEmpty`] for no samples and
    /// [`WindowError::WindowTooLong`] for more than
    /// [`MAX_WINDOW_LEN`](super::MAX_WINDOW_LEN).
    pub fn compute(&self, channel_samples: &[Sample]) -> Result<Feature> {
        self.compute_parts(channel_samples, &[])
    }

    /// As [`compute`](Self::compute), for a window stored as `older` followed by `newer` (the two
    /// halves of a ring buffer).
    pub(super) fn compute_parts(&self, older: &[Sample], newer: &[Sample]) -> Result<Feature> {
        self.check_segment()?;
        let window = Samples::new(older, newer)?;
        let (start, end) = self.bounds(window.len());
        Ok(self.stat.of(window.range(start, end)))
    }

    /// The segment's samples `[start, end)` in a window of `n` samples (see [Segments](Self#segments)),
    /// for `1 ≤ n ≤ MAX_WINDOW_LEN` and checked segments: `start < end ≤ n`.
    pub(super) fn bounds(&self, n: usize) -> (usize, usize) {
        let (i, k) = (usize::from(self.segment), usize::from(self.segments));
        // i < k ≤ 16 and n ≤ 4096: no overflow; start ≤ n − 1 because i < k.
        let start = i * n / k;
        let end = ((i + 1) * n / k).max(start + 1);
        (start, end)
    }
}

/// Computes `features` of the windows `channels` (one slice per channel, oldest sample first;
/// windows may differ in length) into `out`, in order.
///
/// Each feature reads only its own segment, in one or two passes, so a model that reads few
/// features costs little; nothing is allocated or copied.
///
/// ```
/// use ltu_runtime::window::{compute_into, Stat, WindowFeature};
///
/// let accel: &[i16] = &[0, 4, 0, 4, 2, 2]; // mean 2: low, high, low, high, low, low
/// let gyro: &[i16] = &[-1, -2, -3, -4, -5, -6];
/// let features = [
///     WindowFeature::whole(0, Stat::Crossings),
///     WindowFeature { channel: 0, stat: Stat::Mean, segments: 3, segment: 2 },
///     WindowFeature::whole(1, Stat::Slope),
/// ];
/// let mut out = [0; 3];
/// compute_into(&features, &[accel, gyro], &mut out)?;
/// assert_eq!(out, [4, 2, -256]); // 4 crossings; mean of [2, 2]; -1 count per sample
/// # Ok::<(), ltu_runtime::window::WindowError>(())
/// ```
///
/// # Errors
///
/// [`WindowError::OutputLength`] unless `out.len() == features.len()`, the errors of
/// [`WindowFeature::validate`] with `channels.len()` channels and those of
/// [`WindowFeature::compute`]. On error `out` may be partly written.
pub fn compute_into(features: &[WindowFeature], channels: &[&[Sample]], out: &mut [Feature]) -> Result<()> {
    if out.len() != features.len() {
        return Err(WindowError::OutputLength);
    }
    for (feature, slot) in features.iter().zip(out) {
        let samples = channels.get(usize::from(feature.channel)).ok_or(WindowError::ChannelInvalid)?;
        *slot = feature.compute(samples)?;
    }
    Ok(())
}

impl fmt::Display for WindowFeature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ch{}_{}", self.channel, self.stat.name())?;
        if self.segments != 1 {
            write!(f, "_s{}of{}", self.segment, self.segments)?;
        }
        Ok(())
    }
}

impl FromStr for WindowFeature {
    type Err = WindowError;

    /// Parses the name [`Display`](fmt::Display) writes, and only that spelling: no leading
    /// zeros, no `_s0of1`, segments checked as by [`validate`](WindowFeature::validate).
    ///
    /// # Errors
    ///
    /// [`WindowError::NameInvalid`] for anything else; [`WindowError::SegmentsInvalid`] or
    /// [`WindowError::SegmentInvalid`] for a well-formed name with impossible segments.
    fn from_str(name: &str) -> Result<Self> {
        let rest = name.strip_prefix("ch").ok_or(WindowError::NameInvalid)?;
        let (channel, rest) = rest.split_once('_').ok_or(WindowError::NameInvalid)?;
        let channel = decimal_u8(channel)?;
        if let Some(stat) = Stat::from_name(rest) {
            return Ok(WindowFeature::whole(channel, stat));
        }
        let (stat, segment) = rest.rsplit_once("_s").ok_or(WindowError::NameInvalid)?;
        let stat = Stat::from_name(stat).ok_or(WindowError::NameInvalid)?;
        let (segment, segments) = segment.split_once("of").ok_or(WindowError::NameInvalid)?;
        let feature =
            WindowFeature { channel, stat, segments: decimal_u8(segments)?, segment: decimal_u8(segment)? };
        if feature.segments == 1 {
            return Err(WindowError::NameInvalid); // written without a suffix
        }
        feature.check_segment()?;
        Ok(feature)
    }
}

/// A `u8` in canonical decimal: digits only, no sign, no leading zero.
fn decimal_u8(s: &str) -> Result<u8> {
    let canonical = s.bytes().all(|b| b.is_ascii_digit()) && (s == "0" || !s.starts_with('0'));
    if !canonical {
        return Err(WindowError::NameInvalid);
    }
    s.parse().map_err(|_| WindowError::NameInvalid)
}

#[cfg(test)]
mod tests {
    extern crate std;

    use std::string::ToString;
    use std::vec::Vec;

    use proptest::prelude::*;

    use super::super::stat::tests::reference;
    use super::super::{SensorWindows, SlidingWindow, MAX_WINDOW_LEN};
    use super::*;

    fn segment(stat: Stat, segments: u8, segment: u8) -> WindowFeature {
        WindowFeature { channel: 0, stat, segments, segment }
    }

    /// The segment bounds from the definition, in `i128` so nothing can wrap.
    fn bounds(n: usize, i: usize, k: usize) -> (usize, usize) {
        let start = (i as i128 * n as i128 / k as i128) as usize;
        let end = ((i as i128 + 1) * n as i128 / k as i128) as usize;
        if start == end {
            let only = start.min(n - 1);
            (only, only + 1)
        } else {
            (start, end)
        }
    }

    #[test]
    fn segments_by_hand() {
        let xs: Vec<i16> = (0..10).collect();
        // [0, 3), [3, 6), [6, 10)
        let mins: Vec<_> = (0..3).map(|i| segment(Stat::Min, 3, i).compute(&xs).unwrap()).collect();
        let maxs: Vec<_> = (0..3).map(|i| segment(Stat::Max, 3, i).compute(&xs).unwrap()).collect();
        assert_eq!((mins, maxs), (std::vec![0, 3, 6], std::vec![2, 5, 9]));
        // n < k: 2 samples in 4 segments: [0,0) -> sample 0, [0,1), [1,1) -> sample 1, [1,2)
        let both = [10i16, 20];
        let got: Vec<_> = (0..4).map(|i| segment(Stat::Mean, 4, i).compute(&both).unwrap()).collect();
        assert_eq!(got, [10, 10, 20, 20]);
        // One sample, the most segments: every segment is that sample.
        for i in 0..MAX_SEGMENTS {
            assert_eq!(segment(Stat::Energy, MAX_SEGMENTS, i).compute(&[-3]), Ok(9));
        }
    }

    #[test]
    fn segments_are_nonempty_and_partition_long_windows() {
        for n in 1..=40usize {
            let ramp: Vec<i16> = (0..n as i16).collect();
            for k in 1..=MAX_SEGMENTS {
                let mut next = 0;
                for i in 0..k {
                    let (start, end) = bounds(n, usize::from(i), usize::from(k));
                    assert!(start < end && end <= n);
                    assert_eq!(
                        segment(Stat::Min, k, i).compute(&ramp),
                        Ok(start as i32),
                        "n {n} k {k} i {i}"
                    );
                    assert_eq!(
                        segment(Stat::Max, k, i).compute(&ramp),
                        Ok(end as i32 - 1),
                        "n {n} k {k} i {i}"
                    );
                    if n >= usize::from(k) {
                        assert_eq!(start, next, "consecutive");
                        next = end;
                    }
                }
                if n >= usize::from(k) {
                    assert_eq!(next, n, "covers the window");
                }
            }
        }
    }

    #[test]
    fn segment_of_max_window() {
        let xs: Vec<i16> =
            (0..MAX_WINDOW_LEN).map(|t| if t % 3 == 0 { i16::MIN } else { i16::MAX }).collect();
        for stat in Stat::ALL {
            for i in 0..MAX_SEGMENTS {
                let (start, end) = bounds(xs.len(), usize::from(i), usize::from(MAX_SEGMENTS));
                let got = segment(stat, MAX_SEGMENTS, i).compute(&xs).unwrap();
                assert_eq!(i64::from(got), reference(stat, &xs[start..end]));
            }
        }
    }

    #[test]
    fn validate_and_errors() {
        assert_eq!(WindowFeature::whole(2, Stat::Max).validate(3), Ok(()));
        assert_eq!(WindowFeature::whole(3, Stat::Max).validate(3), Err(WindowError::ChannelInvalid));
        let bad_segments = [(0, 0, WindowError::SegmentsInvalid), (17, 0, WindowError::SegmentsInvalid)];
        let bad_segment = [(1, 1, WindowError::SegmentInvalid), (16, 16, WindowError::SegmentInvalid)];
        for (segments, segment, err) in bad_segments.into_iter().chain(bad_segment) {
            let f = WindowFeature { channel: 0, stat: Stat::Mean, segments, segment };
            assert_eq!(f.validate(1), Err(err));
            assert_eq!(f.compute(&[1, 2, 3]), Err(err));
        }
        assert_eq!(segment(Stat::Mean, 16, 15).validate(1), Ok(()));
        assert_eq!(segment(Stat::Mean, 2, 1).compute(&[]), Err(WindowError::WindowEmpty));
        let long = [0i16; MAX_WINDOW_LEN + 1];
        assert_eq!(segment(Stat::Mean, 2, 1).compute(&long), Err(WindowError::WindowTooLong));
    }

    #[test]
    fn compute_into_checks_arguments() {
        let a: &[i16] = &[1, 2, 3];
        let b: &[i16] = &[-1];
        let features = [WindowFeature::whole(1, Stat::Min), segment(Stat::Max, 3, 1)];
        let mut out = [0; 2];
        assert_eq!(compute_into(&features, &[a, b], &mut out), Ok(()));
        assert_eq!(out, [-1, 2]);
        assert_eq!(compute_into(&features, &[a, b], &mut [0; 3]), Err(WindowError::OutputLength));
        assert_eq!(compute_into(&features, &[a], &mut out), Err(WindowError::ChannelInvalid));
        assert_eq!(compute_into(&features, &[a, &[]], &mut out), Err(WindowError::WindowEmpty));
        assert_eq!(compute_into(&[], &[], &mut []), Ok(()));
    }

    #[test]
    fn sensor_windows_compute() {
        let mut w = SensorWindows::<2, 4>::new(1).unwrap();
        let f = WindowFeature::whole(1, Stat::PeakToPeak);
        assert_eq!(w.compute(&f), Err(WindowError::WindowEmpty));
        for t in 0..7i16 {
            w.push_frame([t, t * t]);
        }
        // Channel 1 holds 9, 16, 25, 36 (its ring buffer has wrapped).
        assert_eq!(w.compute(&f), Ok(27));
        assert_eq!(w.compute(&WindowFeature::whole(2, Stat::Min)), Err(WindowError::ChannelInvalid));
        let features = [f, segment(Stat::MeanAbsDiff, 2, 1), WindowFeature::whole(1, Stat::Crossings)];
        let mut out = [0; 3];
        w.compute_into(&features, &mut out).unwrap();
        assert_eq!(out, [27, 1, 1]);
        assert_eq!(w.compute_into(&features, &mut out[..2]), Err(WindowError::OutputLength));
    }

    #[test]
    fn names() {
        assert_eq!(WindowFeature::whole(0, Stat::Mean).to_string(), "ch0_mean");
        assert_eq!(WindowFeature::whole(12, Stat::MeanAbsDiff).to_string(), "ch12_mean_abs_diff");
        let f = WindowFeature { channel: 255, stat: Stat::PeakToPeak, segments: 16, segment: 15 };
        assert_eq!(f.to_string(), "ch255_peak_to_peak_s15of16");
        for stat in Stat::ALL {
            for segments in 1..=MAX_SEGMENTS {
                for segment in 0..segments {
                    let f = WindowFeature { channel: 7, stat, segments, segment };
                    assert_eq!(f.to_string().parse(), Ok(f));
                }
            }
        }
        for bad in [
            "",
            "ch",
            "ch0",
            "ch0_",
            "Ch0_mean",
            "ch0mean",
            "ch_mean",
            "ch01_mean",
            "ch+1_mean",
            "ch256_mean",
            "ch0_Mean",
            "ch0_mean_",
            "ch0_mean_s0of1",
            "ch0_mean_s01of2",
            "ch0_mean_s1of",
            "ch0_mean_sof2",
            "ch0_mean_s1of2_",
            "ch0_bogus_s0of2",
        ] {
            assert_eq!(bad.parse::<WindowFeature>(), Err(WindowError::NameInvalid), "{bad:?}");
        }
        assert_eq!("ch0_mean_s2of2".parse::<WindowFeature>(), Err(WindowError::SegmentInvalid));
        assert_eq!("ch0_mean_s0of17".parse::<WindowFeature>(), Err(WindowError::SegmentsInvalid));
        assert_eq!("ch0_mean_s0of0".parse::<WindowFeature>(), Err(WindowError::SegmentsInvalid));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        #[test]
        fn segments_match_reference(
            xs in proptest::collection::vec(any::<i16>(), 1..120),
            segments in 1..=MAX_SEGMENTS,
            seed in any::<u8>(),
        ) {
            let segment = seed % segments;
            let (start, end) = bounds(xs.len(), usize::from(segment), usize::from(segments));
            for stat in Stat::ALL {
                let f = WindowFeature { channel: 0, stat, segments, segment };
                prop_assert_eq!(i64::from(f.compute(&xs).unwrap()), reference(stat, &xs[start..end]));
            }
        }

        #[test]
        fn ring_buffer_equals_slice(
            xs in proptest::collection::vec(any::<i16>(), 1..40),
            segments in 1..=MAX_SEGMENTS,
            seed in any::<u8>(),
        ) {
            // A 13-sample ring buffer wraps at every offset as samples arrive.
            let mut w = SlidingWindow::<13>::new();
            for (i, &x) in xs.iter().enumerate() {
                w.push(x);
                let window = &xs[(i + 1).saturating_sub(13)..=i];
                for stat in Stat::ALL {
                    let f = WindowFeature { channel: 9, stat, segments, segment: seed % segments };
                    prop_assert_eq!(w.compute(&f), f.compute(window));
                }
            }
        }
    }
}

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
        let n = window.len();
        let (i, k) = (usize::from(self.segment), usize::from(self.segments));
        // i < k ≤ 16 and n ≤ 4096: no overflow; start ≤ n − 1 because i < k.
        let start = i * n / k;
        let end = ((i + 1) * n / k).max(start + 1);
        Ok(self.stat.of(window.range(start, end)))
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

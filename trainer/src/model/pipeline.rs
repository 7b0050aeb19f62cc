//! The sensor pipeline in front of a model: how the raw samples of a recording become the
//! model's inputs. Samples become integer counts by a decimal scale per channel, recordings are
//! cut into windows, and each model input is one statistic of one channel over (a segment of) a
//! window, computed by `ltu_runtime::window` on the host and on the device alike.

use std::ops::Range;

use ltu_runtime::window::{Sample, Stat, WindowFeature};

/// One channel of the samples: its name and how its values become counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Channel {
    /// Name (the column or column prefix it was read from).
    pub name: String,
    /// A value `v` becomes the sample `round(v · 10^scale_exp)`, clamped to the `i16` range.
    pub scale_exp: i8,
}

/// The pipeline a model was trained behind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pipeline {
    /// The channels, in the order [`WindowFeature::channel`] counts them.
    pub channels: Vec<Channel>,
    /// Samples per window; 0 makes the whole recording one window.
    pub window: u16,
    /// Samples from the start of one window to the next (at least 1 when `window > 0`).
    pub hop: u16,
    /// What each model input is, in input order.
    pub features: Vec<WindowFeature>,
    /// The column naming each frame's recording in the long layout; `None`: the wide layout.
    pub recording: Option<String>,
}

impl Pipeline {
    /// The sample count of value `v` on a channel of scale `scale_exp`: rounded half away from
    /// zero, clamped to the `i16` range. `None` for a value that is not finite.
    pub fn to_sample(v: f64, scale_exp: i8) -> Option<Sample> {
        v.is_finite()
            .then(|| (v * 10f64.powi(i32::from(scale_exp))).round().clamp(-32768.0, 32767.0) as Sample)
    }

    /// The windows of a recording of `len` samples, as sample ranges: one per `hop` samples
    /// while a whole window fits; the whole recording when `window` is 0. A recording shorter
    /// than a window has none.
    pub fn windows(&self, len: usize) -> Vec<Range<usize>> {
        if self.window == 0 {
            return if len == 0 { Vec::new() } else { std::iter::once(0..len).collect() };
        }
        let (w, hop) = (usize::from(self.window), usize::from(self.hop.max(1)));
        (0..).map(|k| k * hop).take_while(|start| start + w <= len).map(|start| start..start + w).collect()
    }

    /// The largest decimal scale (from 9 down to −9) at which the largest magnitude `max_abs`
    /// of a channel's values still fits a sample (`≤ 32767`): as fine a step as the `i16`
    /// samples allow.
    pub fn scale_for(max_abs: f64) -> i8 {
        (-9..=9i8).rev().find(|&k| max_abs * 10f64.powi(i32::from(k)) <= 32767.0).unwrap_or(-9)
    }
}

/// What computing a model's window statistics costs per window: the extraction that comes before
/// [`crate::model::ModelSpec::essential_work`]'s classification on the device.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Extraction {
    /// Window statistics computed per window (each model input once).
    pub statistics: usize,
    /// Samples per window the figures assume (the longest training window for whole recordings).
    pub window: usize,
    /// Multiply-accumulates: one per sample that spread, energy and slope read (they square or
    /// weight every sample); the other statistics multiply nothing.
    pub macs: u64,
    /// Cortex-M3 instructions by [`stat_work`]'s cost model.
    pub instructions: u64,
}

impl Pipeline {
    /// The cost of computing every statistic of the pipeline over a window of `window` samples.
    pub fn extraction(&self, window: usize) -> Extraction {
        let mut cost = Extraction { statistics: self.features.len(), window, macs: 0, instructions: 0 };
        for f in &self.features {
            let n = segment_len(f, window);
            cost.macs += stat_macs(f.stat, n);
            cost.instructions += stat_work(f.stat, n);
        }
        cost
    }
}

/// Multiply-accumulates of statistic `stat` over `n` samples: one per sample for spread and
/// energy (each sample squared) and slope (each sample weighted by its time), none otherwise.
pub fn stat_macs(stat: Stat, n: usize) -> u64 {
    if matches!(stat, Stat::Spread | Stat::Energy | Stat::Slope) {
        n as u64
    } else {
        0
    }
}

/// Samples in the segment `f` reads of a window of `n` samples (at least 1; see
/// [`WindowFeature`]'s segments).
fn segment_len(f: &WindowFeature, n: usize) -> usize {
    let (i, k) = (usize::from(f.segment), usize::from(f.segments.max(1)));
    let start = i * n / k;
    ((i + 1) * n / k).max(start + 1) - start
}

// The cost model's constants: (fixed, per sample) Cortex-M3 instructions of each kernel. Spread
// and the extremes are fitted to the firmware example's QEMU count (one spread and two minima over
// 100 samples: 2,545 instructions); the others are estimated from their loop bodies.
const MEAN_FIXED: u64 = 40;
const MEAN_PER_SAMPLE: u64 = 5;
const SPREAD_FIXED: u64 = 165;
const SPREAD_PER_SAMPLE: u64 = 11;
const ENERGY_FIXED: u64 = 60;
const ENERGY_PER_SAMPLE: u64 = 8;
const EXTREME_FIXED: u64 = 40;
const EXTREME_PER_SAMPLE: u64 = 6;
const MAD_FIXED: u64 = 50;
const MAD_PER_SAMPLE: u64 = 8;
const SLOPE_FIXED: u64 = 110;
const SLOPE_PER_SAMPLE: u64 = 9;
const CROSSINGS_FIXED: u64 = 30;
const CROSSINGS_PER_SAMPLE: u64 = 7;

/// Cortex-M3 instructions `ltu_runtime::window` spends on statistic `stat` of `n` samples
/// (`opt-level = "s"`): a fixed part (the call, the segment bounds, the final division or square
/// root) plus the instructions of its inner loop per sample, read from the loops' machine code and
/// checked against the firmware example's QEMU counts (docs/SENSORS.md). A yardstick like
/// [`crate::model::ModelSpec::essential_work`], not a promise for every core.
pub fn stat_work(stat: Stat, n: usize) -> u64 {
    let (fixed, per_sample) = match stat {
        Stat::Mean => (MEAN_FIXED, MEAN_PER_SAMPLE),
        Stat::Spread => (SPREAD_FIXED, SPREAD_PER_SAMPLE),
        Stat::Energy => (ENERGY_FIXED, ENERGY_PER_SAMPLE),
        Stat::Min | Stat::Max => (EXTREME_FIXED, EXTREME_PER_SAMPLE),
        Stat::PeakToPeak => (EXTREME_FIXED, 2 * EXTREME_PER_SAMPLE),
        Stat::MeanAbsDiff => (MAD_FIXED, MAD_PER_SAMPLE),
        Stat::Slope => (SLOPE_FIXED, SLOPE_PER_SAMPLE),
        Stat::Crossings => (MEAN_FIXED + CROSSINGS_FIXED, MEAN_PER_SAMPLE + CROSSINGS_PER_SAMPLE),
    };
    fixed + per_sample * n as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pipeline(window: u16, hop: u16) -> Pipeline {
        Pipeline { channels: Vec::new(), window, hop, features: Vec::new(), recording: None }
    }

    #[test]
    fn extraction_counts_each_statistic_over_its_segment() {
        let f = |s: &str| s.parse::<WindowFeature>().unwrap();
        let mut p = pipeline(0, 0);
        p.features = vec![f("ch0_min"), f("ch0_energy_s1of4"), f("ch0_slope_s0of3"), f("ch0_mean")];
        let e = p.extraction(10);
        assert_eq!((e.statistics, e.window), (4, 10));
        // energy over samples 2..5 (3), slope over 0..3 (3): one multiply-accumulate per sample.
        assert_eq!(e.macs, 6);
        let want = stat_work(Stat::Min, 10)
            + stat_work(Stat::Energy, 3)
            + stat_work(Stat::Slope, 3)
            + stat_work(Stat::Mean, 10);
        assert_eq!(e.instructions, want);
        assert!(stat_work(Stat::Spread, 100) > stat_work(Stat::Mean, 100));
        // Segments of a window shorter than their count are one sample each.
        assert_eq!(segment_len(&f("ch0_max_s3of4"), 2), 1);
    }

    #[test]
    fn windows_cover_whole_windows_only() {
        assert_eq!(pipeline(0, 0).windows(7), vec![0..7]);
        assert!(pipeline(0, 0).windows(0).is_empty());
        assert_eq!(pipeline(4, 2).windows(9), vec![0..4, 2..6, 4..8]);
        assert_eq!(pipeline(4, 4).windows(8), vec![0..4, 4..8]);
        assert!(pipeline(10, 1).windows(9).is_empty());
    }

    #[test]
    fn samples_round_and_clamp() {
        assert_eq!(Pipeline::to_sample(1.25, 1), Some(13));
        assert_eq!(Pipeline::to_sample(-1.25, 1), Some(-13));
        assert_eq!(Pipeline::to_sample(1e9, 0), Some(32767));
        assert_eq!(Pipeline::to_sample(-1e9, 0), Some(-32768));
        assert_eq!(Pipeline::to_sample(f64::NAN, 0), None);
    }

    #[test]
    fn scale_is_the_finest_that_fits() {
        assert_eq!(Pipeline::scale_for(3.2), 4);
        assert_eq!(Pipeline::scale_for(3.3), 3);
        assert_eq!(Pipeline::scale_for(4000.0), 0);
        assert_eq!(Pipeline::scale_for(0.0), 9);
        assert_eq!(Pipeline::scale_for(1e12), -8);
    }
}

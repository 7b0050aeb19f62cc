//! The BasicMotions recordings: CSV reading, conversion to `i16` sensor counts, window features.
//!
//! `data/basicmotions.csv` holds 80 recordings of a smart watch's accelerometer and gyroscope
//! (6 channels x 100 samples, channel-major `ch0_t000..ch5_t099`, class last); rows 1-40 are the
//! archive's TRAIN split, rows 41-80 its TEST split. The values are floats; a real sensor gives
//! integers, so every value becomes `round(x * COUNTS_PER_UNIT)` (half away from zero) as an
//! `i16` "ADC count". The largest magnitude in the file is 34.87, i.e. 31380 counts: a value
//! that would not fit `i16` is an error, never silently saturated.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use anyhow::{bail, ensure, Context, Result};
use ltu_runtime::window::{extract_into, feature_count, FeatureName};

/// Sensor channels per recording.
pub const CHANNELS: usize = 6;
/// Samples per channel per recording (10 s at 10 Hz).
pub const SAMPLES: usize = 100;
/// Simulated sensor resolution: counts per unit of the CSV's values.
pub const COUNTS_PER_UNIT: f64 = 900.0;
/// Recordings in the TRAIN split (the first rows of the file).
pub const N_TRAIN: usize = 40;
/// Features per recording.
pub const N_FEATURES: usize = feature_count(CHANNELS);

/// One recording: `CHANNELS * SAMPLES` counts, channel-major, and its class label.
#[derive(Debug, Clone)]
pub struct Recording {
    /// Counts, channel-major (`samples[c * SAMPLES + t]`).
    pub samples: Vec<i16>,
    /// Class label from the CSV.
    pub class: String,
}

impl Recording {
    /// The window features the model reads, computed by `ltu_runtime::window` exactly as on the chip.
    pub fn features(&self) -> Result<Vec<i32>> {
        let mut out = vec![0; N_FEATURES];
        extract_into(self.samples.chunks(SAMPLES), &mut out)
            .map_err(|e| anyhow::anyhow!("window features: {e}"))?;
        Ok(out)
    }
}

/// Converts one CSV value to sensor counts; `None` if it does not fit an `i16`.
pub fn to_counts(x: f64) -> Option<i16> {
    let v = (x * COUNTS_PER_UNIT).round();
    (f64::from(i16::MIN)..=f64::from(i16::MAX)).contains(&v).then_some(v as i16)
}

/// Reads and converts every recording of a BasicMotions CSV file.
pub fn load(path: &Path) -> Result<Vec<Recording>> {
    let text = fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    parse(&text).with_context(|| format!("in {}", path.display()))
}

fn parse(text: &str) -> Result<Vec<Recording>> {
    let mut lines = text.lines().enumerate();
    let (_, header) = lines.next().context("empty file")?;
    let names: Vec<&str> = header.split(',').collect();
    ensure!(
        names.len() == CHANNELS * SAMPLES + 1,
        "line 1: {} columns, want {} (6 channels x 100 samples + class)",
        names.len(),
        CHANNELS * SAMPLES + 1
    );
    for (i, name) in names[..CHANNELS * SAMPLES].iter().enumerate() {
        let want = format!("ch{}_t{:03}", i / SAMPLES, i % SAMPLES);
        ensure!(*name == want, "line 1, column {}: `{name}`, want `{want}` (channel-major layout)", i + 1);
    }
    ensure!(names[CHANNELS * SAMPLES] == "class", "line 1: last column is not `class`");
    let mut recordings = Vec::new();
    for (i, line) in lines {
        if line.is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split(',').collect();
        ensure!(
            fields.len() == names.len(),
            "line {}: {} columns, want {}",
            i + 1,
            fields.len(),
            names.len()
        );
        let mut samples = Vec::with_capacity(CHANNELS * SAMPLES);
        for (j, field) in fields[..CHANNELS * SAMPLES].iter().enumerate() {
            let x: f64 =
                field.parse().ok().filter(|x: &f64| x.is_finite()).with_context(|| {
                    format!("line {}, column {}: `{field}` is not a number", i + 1, j + 1)
                })?;
            match to_counts(x) {
                Some(v) => samples.push(v),
                None => {
                    bail!("line {}, column {}: {x} * {COUNTS_PER_UNIT} does not fit an i16", i + 1, j + 1)
                }
            }
        }
        recordings.push(Recording { samples, class: fields[CHANNELS * SAMPLES].to_string() });
    }
    ensure!(recordings.len() > N_TRAIN, "{} recordings, want more than {N_TRAIN}", recordings.len());
    Ok(recordings)
}

/// A features CSV: header `ch0_mean,...,ch5_max,class`, one row per recording.
pub fn features_csv(recordings: &[Recording]) -> Result<String> {
    let mut out = String::new();
    for i in 0..N_FEATURES {
        write!(out, "{},", FeatureName::of_index(i))?;
    }
    out.push_str("class\n");
    for r in recordings {
        for f in r.features()? {
            write!(out, "{f},")?;
        }
        writeln!(out, "{}", r.class)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> String {
        let mut h: Vec<String> =
            (0..CHANNELS * SAMPLES).map(|i| format!("ch{}_t{:03}", i / SAMPLES, i % SAMPLES)).collect();
        h.push("class".into());
        h.join(",")
    }

    #[test]
    fn counts_round_half_away_from_zero_and_reject_overflow() {
        assert_eq!(to_counts(0.0005), Some(0)); // 0.45
        assert_eq!(to_counts(1.0 / 1800.0), Some(1)); // 0.5
        assert_eq!(to_counts(-1.0 / 1800.0), Some(-1));
        assert_eq!(to_counts(7.51e-4), Some(1)); // 0.6759
        assert_eq!(to_counts(34.86621), Some(31380));
        assert_eq!(to_counts(32767.0 / 900.0), Some(i16::MAX));
        assert_eq!(to_counts(-32768.0 / 900.0), Some(i16::MIN));
        assert_eq!(to_counts(32768.0 / 900.0), None);
        assert_eq!(to_counts(-32769.0 / 900.0), None);
    }

    #[test]
    fn parse_rejects_bad_layout_and_values() {
        let row = |v: &str| vec![v; CHANNELS * SAMPLES].join(",") + ",Walking";
        let ok = format!("{}\n{}\n", header(), row("0.5"));
        let recs = parse(&ok);
        // one row is not more than N_TRAIN
        assert!(recs.unwrap_err().to_string().contains("want more than"));
        let many = format!("{}\n{}", header(), (0..=N_TRAIN).map(|_| row("1") + "\n").collect::<String>());
        let recs = parse(&many).unwrap();
        assert_eq!(recs.len(), N_TRAIN + 1);
        assert!(recs[0].samples.iter().all(|&s| s == 900));
        let swapped = header().replacen("ch0_t000,ch0_t001", "ch0_t001,ch0_t000", 1);
        assert!(parse(&format!("{swapped}\n{}\n", row("1"))).unwrap_err().to_string().contains("column 1"));
        let e = parse(&format!("{}\n{}\n", header(), row("40"))).unwrap_err().to_string();
        assert!(e.contains("line 2, column 1") && e.contains("i16"), "{e}");
        let e = parse(&format!("{}\n{}\n", header(), row("x"))).unwrap_err().to_string();
        assert!(e.contains("`x` is not a number"), "{e}");
    }
}

//! Synthetic datasets of the shapes users' data takes at scale, generated from a fixed seed so
//! every run (and every machine) trains on the same rows.
//!
//! - `sensor`: multi-class sensor diagnosis — 11 classes, each a mixture of 3 Gaussian clusters
//!   in 12 informative dimensions, 12 redundant columns (noisy mixes of two informative ones) and
//!   24 noise columns; every column in its own unit, magnitudes from 10^-7 to 10^6, a few riding on
//!   a large offset (a small variation around a bias), printed with 7 significant digits.
//! - `mixture`: a numeric Gaussian mixture at unit scale — 5 classes of 2 clusters in 8 informative
//!   dimensions, 4 redundant and 8 noise columns, 100,000 training rows.
//! - `additive`: noisy categorical data — 30 attributes of 5 values; the class is whether an
//!   additive function of 6 attributes plus one interaction of two of them exceeds its median, with
//!   5 % of the labels flipped.
//!
//! Each shape is written as `NAME-train.csv` and `NAME-test.csv` (test rows from the same
//! distribution, generated after the training rows).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};
use ltu::rng::Rng;

/// One synthetic dataset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Multi-class numeric, columns at magnitudes from 10^-7 to 10^6.
    Sensor,
    /// Numeric Gaussian mixture at unit scale, 100,000 rows.
    Mixture,
    /// Categorical, additive with one interaction, 5 % label noise.
    Additive,
}

impl Shape {
    /// Every shape, in report order.
    pub const ALL: [Shape; 3] = [Shape::Sensor, Shape::Mixture, Shape::Additive];

    /// The file name stem.
    pub fn name(self) -> &'static str {
        match self {
            Shape::Sensor => "sensor",
            Shape::Mixture => "mixture",
            Shape::Additive => "additive",
        }
    }

    /// Training and test rows.
    pub fn rows(self) -> (usize, usize) {
        match self {
            Shape::Sensor => (50_000, 12_000),
            Shape::Mixture => (100_000, 20_000),
            Shape::Additive => (50_000, 20_000),
        }
    }

    /// One line about the shape, for reports.
    pub fn about(self) -> &'static str {
        match self {
            Shape::Sensor => {
                "11 classes, 48 numeric columns (12 informative, 12 redundant, 24 noise) at magnitudes 10^-7 to 10^6"
            }
            Shape::Mixture => "5 classes, 20 numeric columns (8 informative, 4 redundant, 8 noise) at unit scale",
            Shape::Additive => {
                "2 classes, 30 categorical attributes of 5 values; additive in 6 plus one interaction, 5 % label noise"
            }
        }
    }
}

/// The training and test file of `shape` under `dir`.
pub fn paths(dir: &Path, shape: Shape) -> (PathBuf, PathBuf) {
    (dir.join(format!("{}-train.csv", shape.name())), dir.join(format!("{}-test.csv", shape.name())))
}

/// Writes `shape`'s training and test files into `dir` (created if needed) unless both exist.
pub fn write(dir: &Path, shape: Shape) -> Result<(PathBuf, PathBuf)> {
    let (train, test) = paths(dir, shape);
    if train.is_file() && test.is_file() {
        return Ok((train, test));
    }
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let (n_train, n_test) = shape.rows();
    let (header, mut rows) = generator(shape);
    let mut rng = Rng::new(0x5ca1e ^ shape as u64);
    for (path, n) in [(&train, n_train), (&test, n_test)] {
        let mut text = header.clone();
        for _ in 0..n {
            text.push_str(&rows(&mut rng));
        }
        let tmp = path.with_extension("csv.tmp");
        std::fs::write(&tmp, text).with_context(|| format!("writing {}", tmp.display()))?;
        std::fs::rename(&tmp, path)
            .with_context(|| format!("renaming {} to {}", tmp.display(), path.display()))?;
    }
    Ok((train, test))
}

/// The CSV header of `shape` and its row generator.
fn generator(shape: Shape) -> (String, RowGen) {
    match shape {
        Shape::Sensor => numeric(&NumericShape::SENSOR),
        Shape::Mixture => numeric(&NumericShape::MIXTURE),
        Shape::Additive => additive(),
    }
}

/// Draws one CSV line (with its newline) from the generator it is given.
type RowGen = Box<dyn FnMut(&mut Rng) -> String>;

/// The parameters of a numeric mixture.
struct NumericShape {
    classes: usize,
    clusters: usize,
    informative: usize,
    redundant: usize,
    noise: usize,
    /// Spread of the cluster centres (the clusters have unit variance).
    spread: f64,
    /// Decimal magnitudes of the columns, spread evenly from the first to the second, and whether
    /// every fourth column rides on an offset of a thousand times its magnitude.
    magnitudes: Option<(i32, i32)>,
    /// Column name prefix.
    prefix: &'static str,
}

impl NumericShape {
    const SENSOR: NumericShape = NumericShape {
        classes: 11,
        clusters: 3,
        informative: 12,
        redundant: 12,
        noise: 24,
        spread: 1.6,
        magnitudes: Some((-7, 6)),
        prefix: "s",
    };
    const MIXTURE: NumericShape = NumericShape {
        classes: 5,
        clusters: 2,
        informative: 8,
        redundant: 4,
        noise: 8,
        spread: 1.0,
        magnitudes: None,
        prefix: "x",
    };
}

/// Header and row generator of a numeric mixture. The structure (centres, mixes, column units)
/// comes from its own generator, so it is the same for the training and the test rows.
fn numeric(s: &NumericShape) -> (String, RowGen) {
    let mut structure = Rng::new(17);
    let n_cols = s.informative + s.redundant + s.noise;
    let centres: Vec<Vec<f64>> = (0..s.classes * s.clusters)
        .map(|_| (0..s.informative).map(|_| s.spread * structure.normal()).collect())
        .collect();
    let mixes: Vec<(usize, usize, f64)> = (0..s.redundant)
        .map(|_| {
            (structure.below(s.informative), structure.below(s.informative), structure.f64() * 2.0 - 1.0)
        })
        .collect();
    // Column order is shuffled so informative columns are not simply the first ones.
    let mut order: Vec<usize> = (0..n_cols).collect();
    structure.shuffle(&mut order);
    let units: Vec<(f64, f64)> = (0..n_cols)
        .map(|j| match s.magnitudes {
            None => (1.0, 0.0),
            Some((lo, hi)) => {
                let e = lo + ((hi - lo) as f64 * j as f64 / (n_cols - 1) as f64).round() as i32;
                let unit = 10f64.powi(e);
                (unit, if j % 4 == 3 { 1000.0 * unit } else { 0.0 })
            }
        })
        .collect();
    let mut header: String = (0..n_cols).map(|j| format!("{}{j:02},", s.prefix)).collect();
    header.push_str("class\n");
    let (classes, clusters, informative, scientific) =
        (s.classes, s.clusters, s.informative, s.magnitudes.is_some());
    let rows = move |rng: &mut Rng| {
        let class = rng.below(classes);
        let centre = &centres[class * clusters + rng.below(clusters)];
        let x: Vec<f64> = centre.iter().map(|m| m + rng.normal()).collect();
        let mut cols: Vec<f64> = x.clone();
        cols.extend(mixes.iter().map(|&(a, b, w)| x[a] + w * x[b] + 0.3 * rng.normal()));
        cols.extend((0..n_cols - informative - mixes.len()).map(|_| rng.normal()));
        let mut line = String::new();
        for &j in &order {
            let (unit, offset) = units[j];
            let v = offset + cols[j] * unit;
            if scientific {
                let _ = write!(line, "{v:.6e},");
            } else {
                let _ = write!(line, "{v:.4},");
            }
        }
        let _ = writeln!(line, "c{class}");
        line
    };
    (header, Box::new(rows))
}

/// Header and row generator of the categorical additive shape.
fn additive() -> (String, RowGen) {
    const ATTRS: usize = 30;
    const VALUES: usize = 5;
    const RELEVANT: usize = 6;
    let mut structure = Rng::new(29);
    let effects: Vec<Vec<f64>> =
        (0..RELEVANT).map(|_| (0..VALUES).map(|_| structure.normal()).collect()).collect();
    let interaction: Vec<f64> = (0..VALUES * VALUES).map(|_| structure.normal()).collect();
    let score = move |x: &[usize]| -> f64 {
        (0..RELEVANT).map(|j| effects[j][x[j]]).sum::<f64>() + interaction[x[0] * VALUES + x[1]]
    };
    // The class threshold is the score's median over a sample of its own.
    let mut sample: Vec<f64> = (0..20_001)
        .map(|_| {
            let x: Vec<usize> = (0..ATTRS).map(|_| structure.below(VALUES)).collect();
            score(&x)
        })
        .collect();
    sample.sort_by(f64::total_cmp);
    let median = sample[sample.len() / 2];
    let mut header: String = (0..ATTRS).map(|j| format!("c{j:02},")).collect();
    header.push_str("class\n");
    let rows = move |rng: &mut Rng| {
        let x: Vec<usize> = (0..ATTRS).map(|_| rng.below(VALUES)).collect();
        let mut positive = score(&x) > median;
        if rng.f64() < 0.05 {
            positive = !positive;
        }
        let mut line: String = x.iter().map(|&v| format!("{},", (b'a' + v as u8) as char)).collect();
        line.push_str(if positive { "yes\n" } else { "no\n" });
        line
    };
    (header, Box::new(rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_match_their_header_and_repeat_for_a_seed() {
        for shape in Shape::ALL {
            let (header, mut rows) = generator(shape);
            let (_, mut again) = generator(shape);
            let columns = header.trim_end().split(',').count();
            let (mut a, mut b) = (Rng::new(1), Rng::new(1));
            for _ in 0..200 {
                let line = rows(&mut a);
                assert_eq!(line, again(&mut b), "{}", shape.name());
                assert_eq!(line.trim_end().split(',').count(), columns, "{}: {line}", shape.name());
            }
        }
    }

    #[test]
    fn sensor_columns_span_the_promised_magnitudes() {
        let (_, mut rows) = generator(Shape::Sensor);
        let mut rng = Rng::new(3);
        let (mut smallest, mut largest) = (f64::INFINITY, 0f64);
        for _ in 0..500 {
            for cell in rows(&mut rng).trim_end().split(',').filter(|c| !c.starts_with('c')) {
                let v: f64 = cell.parse().unwrap();
                smallest = smallest.min(v.abs());
                largest = largest.max(v.abs());
            }
        }
        assert!(smallest < 1e-7 && largest > 1e8, "{smallest} {largest}");
    }

    #[test]
    fn additive_labels_are_balanced_with_noise() {
        let (_, mut rows) = generator(Shape::Additive);
        let mut rng = Rng::new(5);
        let yes = (0..4000).filter(|_| rows(&mut rng).ends_with("yes\n")).count();
        assert!((1700..2300).contains(&yes), "{yes}");
    }
}

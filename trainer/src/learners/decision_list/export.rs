//! A list from a training context: the sample columns (standard features, constant and
//! duplicate ones left out), the learning, and the export as a runtime list.

use std::sync::atomic::AtomicUsize;

use super::choose::choose;
use super::learn::{learn_hsi_with, learn_with};
use super::noise::Edits;
use super::{Learned, Params, Quant, Report, Sample, Shape};
use crate::data::encode;
use crate::learn::{Context, TrainError};
use crate::model::{Feature, ModelSpec, Structure, Unit, WeightKind};

/// A trained list with its feature space and report: the exported [`ModelSpec`] plus everything
/// needed to compare it with the float model it came from.
#[derive(Debug, Clone)]
pub struct Fitted {
    /// The exported model (weights already of the context's kind, `I16` if none was asked).
    pub spec: ModelSpec,
    /// The learned list on the sample columns.
    pub learned: Learned,
    /// The feature of each sample column.
    pub columns: Vec<Feature>,
    /// `max_abs` of each sample column.
    pub max_abs: Vec<i64>,
}

impl Fitted {
    fn features(&self, raw: &[i32]) -> Vec<i32> {
        self.columns.iter().map(|f| f.value(raw)).collect()
    }

    /// The float list's prediction for raw inputs (weights before rounding).
    pub fn predict_float(&self, raw: &[i32]) -> usize {
        let x: Vec<f64> =
            self.features(raw).iter().zip(&self.max_abs).map(|(&v, &m)| f64::from(v) / m as f64).collect();
        self.learned.predict_float(&x)
    }

    /// The quantized list's prediction for raw inputs, by this module's own integer evaluator
    /// (independent of [`ModelSpec::predict`], which it must equal).
    pub fn predict_quantized(&self, raw: &[i32]) -> usize {
        self.learned.predict_quantized(&self.features(raw), &self.max_abs)
    }

    /// The training report.
    pub fn report(&self) -> &Report {
        &self.learned.report
    }
}

/// Learns a list from a training context and exports it as a [`Structure::List`].
///
/// # Errors
/// [`TrainError::InvalidOption`] for bad options (see [`learn`](fn@super::learn)) or `feature_max_abs == 0`.
pub fn fit(ctx: &Context<'_>, shape: Option<Shape>, p: &Params) -> Result<Fitted, TrainError> {
    if p.feature_max_abs == 0 {
        return Err(TrainError::InvalidOption("feature_max_abs must be at least 1".into()));
    }
    let kind = ctx.weight_kind.unwrap_or(WeightKind::I16);
    let all = encode::standard_features(&ctx.inputs, &ctx.raw, p.feature_max_abs);
    let rows = encode::feature_rows(&all, &ctx.raw);
    // Columns: drop features constant on the training rows and those equal or opposite to an
    // earlier kept one (they change no separation).
    let mut keep: Vec<usize> = Vec::new();
    for j in 0..all.len() {
        let col = |j: usize| rows.iter().map(move |r| r[j]);
        let first = rows.first().map_or(0, |r| r[j]);
        if col(j).all(|v| v == first) {
            continue;
        }
        let dup = keep.iter().any(|&k| {
            all[k].max_abs() == all[j].max_abs()
                && (col(k).zip(col(j)).all(|(a, b)| a == b) || col(k).zip(col(j)).all(|(a, b)| a == -b))
        });
        if !dup {
            keep.push(j);
        }
    }
    let columns: Vec<Feature> = keep.iter().map(|&j| all[j].clone()).collect();
    let max_abs: Vec<i64> = columns.iter().map(Feature::max_abs).collect();
    let fint: Vec<Vec<i32>> = rows.iter().map(|r| keep.iter().map(|&j| r[j]).collect()).collect();
    let x: Vec<Vec<f64>> = fint
        .iter()
        .map(|r| r.iter().zip(&max_abs).map(|(&v, &m)| f64::from(v) / m as f64).collect())
        .collect();
    let sample = Sample {
        x: &x,
        y: ctx.labels(),
        n_classes: ctx.n_classes(),
        quant: Some(Quant { features: &fint, max_abs: &max_abs, kind }),
    };
    let (shape, p, candidates) = match p.choose {
        Some(c) => choose(&sample, shape, p, c, ctx.seed, ctx.progress)?,
        None => (shape, p.clone(), Vec::new()),
    };
    let mut learned = match shape {
        Some(sh) => learn_with(
            &sample,
            sh,
            &p,
            ctx.seed,
            ctx.progress,
            &AtomicUsize::new(usize::MAX),
            &Edits::default(),
        )?,
        None => learn_hsi_with(&sample, &p, ctx.seed, ctx.progress, &Edits::default())?,
    };
    learned.report.candidates = candidates;
    // Export only the features some unit uses.
    let mut used = vec![false; columns.len()];
    for n in &learned.nodes {
        if let Some(u) = &n.unit {
            for (j, w) in u.rows[0][..columns.len()].iter().enumerate() {
                used[j] |= *w != 0;
            }
        }
    }
    let mut index = vec![usize::MAX; columns.len()];
    let mut features = Vec::new();
    for j in 0..columns.len() {
        if used[j] {
            index[j] = features.len();
            features.push(columns[j].clone());
        }
    }
    let mut units = Vec::new();
    let mut entries = Vec::new();
    for n in &learned.nodes {
        let u = n.unit.as_ref().expect("fit always quantizes");
        let weights = &u.rows[0];
        let terms: Vec<usize> = (0..columns.len()).filter(|&j| weights[j] != 0).collect();
        let mut row: Vec<i64> = terms.iter().map(|&j| weights[j]).collect();
        row.push(weights[columns.len()]);
        entries.push((units.len(), n.class));
        units.push(Unit {
            terms: terms.iter().map(|&j| index[j]).collect(),
            rows: vec![row],
            classes: vec![learned.default, n.class],
        });
    }
    let spec = ModelSpec {
        pipeline: None,
        n_classes: ctx.n_classes(),
        weight_kind: kind,
        inputs: ctx.inputs.clone(),
        features,
        units,
        structure: Structure::List { entries, default: learned.default },
        names: None,
    };
    Ok(Fitted { spec, learned, columns, max_abs })
}

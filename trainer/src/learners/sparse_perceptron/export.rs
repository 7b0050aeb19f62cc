//! The unit as a runtime model: the votes or refitted weights scaled and rounded to integers
//! over the conjunction features.

use super::literals::feature_of;
use super::refit::{decide_float, Refit};
use super::Booster;
use crate::learn::Context;
use crate::learners::unit_fit;
use crate::model::quantize::{self, Grid, Quantized};
use crate::model::{Feature, ModelSpec, Structure, Unit, WeightKind};

/// The integer unit of a refit: `ctx.weight_kind` if given, else `I8` when rounding there
/// changes no decision of the float unit on `rows`, else `I16`. Returns the model, its weight
/// kind and the scale.
pub(super) fn export_refit(ctx: &Context<'_>, r: &Refit, rows: &[&[i32]]) -> (ModelSpec, WeightKind, f64) {
    let max_abs: Vec<i64> = r.features.iter().map(Feature::max_abs).collect();
    let values: Vec<Vec<i32>> =
        rows.iter().map(|x| r.features.iter().map(|f| f.value(x)).collect()).collect();
    let q = |kind| quantize::quantize(&r.rows, &max_abs, Grid::new(kind));
    let (kind, Quantized { rows: int_rows, scale }) = match ctx.weight_kind {
        Some(kind) => (kind, q(kind)),
        None => {
            let narrow = q(WeightKind::I8);
            let same = values.iter().all(|v| decide_float(&r.rows, v) == unit_fit::decide_i(&narrow.rows, v));
            if same {
                (WeightKind::I8, narrow)
            } else {
                (WeightKind::I16, q(WeightKind::I16))
            }
        }
    };
    let classes: Vec<usize> = if r.rows.len() == 1 { vec![0, 1] } else { (0..r.rows.len()).collect() };
    (build_spec(ctx, &r.features, &int_rows, classes, kind), kind, scale)
}
/// Merges identical conjunctions (summing their votes) into one unit with a row per booster,
/// scales every weight by the largest factor that fits `kind` and rounds. Returns the model and
/// the scale.
pub(super) fn export(ctx: &Context<'_>, boosters: &[Booster], kind: WeightKind) -> (ModelSpec, f64) {
    let mut features: Vec<Feature> = Vec::new();
    // Per booster: votes per feature, then the bias.
    let mut votes: Vec<Vec<f64>> = vec![Vec::new(); boosters.len()];
    let mut bias = vec![0.0; boosters.len()];
    for (b, booster) in boosters.iter().enumerate() {
        for h in &booster.hypotheses {
            let vote = h.alpha * f64::from(h.sign);
            match feature_of(&h.literals) {
                None => bias[b] += vote,
                Some((feature, s)) => {
                    let j = features.iter().position(|f| *f == feature).unwrap_or_else(|| {
                        features.push(feature);
                        features.len() - 1
                    });
                    votes[b].resize(features.len(), 0.0);
                    votes[b][j] += s * vote;
                }
            }
        }
    }
    let n = features.len();
    for (v, &b) in votes.iter_mut().zip(&bias) {
        v.resize(n, 0.0);
        v.push(b);
    }
    let max_abs: Vec<i64> = features.iter().map(Feature::max_abs).collect();
    let Quantized { rows, scale } = quantize::quantize(&votes, &max_abs, Grid::new(kind));
    let classes: Vec<usize> = if boosters.len() == 1 {
        vec![0, boosters[0].class]
    } else {
        boosters.iter().map(|b| b.class).collect()
    };
    (build_spec(ctx, &features, &rows, classes, kind), scale)
}

/// One linear unit over `features` with integer `rows` (weights, bias last), dropping features
/// whose weight is 0 in every row.
fn build_spec(
    ctx: &Context<'_>,
    features: &[Feature],
    rows: &[Vec<i64>],
    classes: Vec<usize>,
    kind: WeightKind,
) -> ModelSpec {
    let n = features.len();
    let keep: Vec<usize> = (0..n).filter(|&j| rows.iter().any(|r| r[j] != 0)).collect();
    ModelSpec {
        pipeline: None,
        n_classes: ctx.n_classes(),
        weight_kind: kind,
        inputs: ctx.inputs.clone(),
        features: keep.iter().map(|&j| features[j].clone()).collect(),
        units: vec![Unit {
            terms: (0..keep.len()).collect(),
            rows: rows.iter().map(|r| keep.iter().map(|&j| r[j]).chain([r[n]]).collect()).collect(),
            classes,
        }],
        structure: Structure::Linear(0),
        names: None,
    }
}

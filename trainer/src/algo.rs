//! The training pipeline shared by every algorithm: encode the data, learn, choose the weight
//! representation, export, and prove the runtime agrees.

use std::fmt;

use crate::data::Dataset;
use crate::encode;
use crate::export::{ExportError, InputSpec, ModelSpec, WeightKind};

/// A learning algorithm, by its CLI name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Algo {
    /// Perceptron tree (Utgoff 1989).
    Ptree,
    /// Neural decision list (Marchand & Golea 1993).
    Ndl,
    /// Halfspace intersection by greedy set covering (Marchand & Golea 1993, section 3).
    Hsi,
    /// Sparse perceptron by boosting (Jackson & Craven 1996).
    Sparse,
    /// Multivariate (oblique) tree (Yildiz & Alpaydin); not implemented, so hidden from the
    /// command line's help and value lists.
    #[value(hide = true)]
    Oblique,
    /// FRINGE feature construction (Pagallo 1989); not implemented, hidden like `Oblique`.
    #[value(hide = true)]
    Fringe,
}

impl fmt::Display for Algo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            Algo::Ptree => "ptree",
            Algo::Ndl => "ndl",
            Algo::Hsi => "hsi",
            Algo::Sparse => "sparse",
            Algo::Oblique => "oblique",
            Algo::Fringe => "fringe",
        };
        f.write_str(s)
    }
}

/// Why training failed.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    /// The algorithm is not available yet.
    #[error("algorithm `{0}` is not implemented yet (available: ptree, ndl, hsi, sparse)")]
    NotImplemented(Algo),
    /// An option value is invalid for this algorithm or data.
    #[error("invalid option: {0}")]
    InvalidOption(String),
    /// The model could not be encoded.
    #[error(transparent)]
    Export(#[from] ExportError),
    /// The runtime's prediction differs from the trainer's: a bug, never silently shipped.
    #[error(
        "runtime disagrees with the trainer on training row {row}: trainer {trainer}, runtime {runtime}"
    )]
    Disagreement {
        /// Row of the training data.
        row: usize,
        /// Trainer's class.
        trainer: usize,
        /// Runtime's class (or error).
        runtime: String,
    },
}

/// What every algorithm receives.
pub struct Context<'a> {
    /// Training data (schema, labels).
    pub data: &'a Dataset,
    /// Raw input descriptors (see [`encode`]).
    pub inputs: Vec<InputSpec>,
    /// Raw inputs of each training row.
    pub raw: Vec<Vec<i32>>,
    /// Seed for every random choice.
    pub seed: u64,
    /// Requested weight representation; float-learning algorithms quantize to it
    /// (`I16` when not given), integer ones are rescaled only if they do not fit.
    pub weight_kind: Option<WeightKind>,
    /// Reports progress as (done, total) units of work; a no-op when quiet.
    pub progress: &'a (dyn Fn(u64, u64) + Sync),
}

impl<'a> Context<'a> {
    /// Encodes `data` for training.
    pub fn new(data: &'a Dataset, seed: u64, weight_kind: Option<WeightKind>) -> Self {
        let inputs = encode::input_specs(data);
        let raw = encode::raw_rows(&inputs, data);
        Context { data, inputs, raw, seed, weight_kind, progress: &|_, _| {} }
    }

    /// Class labels of the training rows.
    pub fn labels(&self) -> &[usize] {
        &self.data.y
    }

    /// Number of classes.
    pub fn n_classes(&self) -> usize {
        self.data.schema.classes.len()
    }
}

/// Options of every algorithm.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Options {
    /// Perceptron tree options.
    pub ptree: crate::perceptron_tree::Params,
    /// Neural decision list / halfspace intersection options.
    pub ndl: crate::decision_list::Params,
    /// Sparse perceptron options.
    pub sparse: crate::sparse_perceptron::Params,
}

/// A trained, exported and verified model.
#[derive(Debug, Clone)]
pub struct Trained {
    /// The model.
    pub spec: ModelSpec,
    /// Its file bytes (runtime format).
    pub bytes: Vec<u8>,
    /// Accuracy of the exported model on the training data.
    pub train_accuracy: f64,
    /// Units whose weights had to be scaled down to fit the weight kind.
    pub rescaled_units: usize,
}

/// Learns a model with `algo`, then finishes it with [`finish`].
///
/// # Errors
/// [`TrainError`] for bad options, unimplemented algorithms, export failures or a disagreement
/// between trainer and runtime.
pub fn train(algo: Algo, ctx: &Context<'_>, opts: &Options, with_names: bool) -> Result<Trained, TrainError> {
    let spec = match algo {
        Algo::Ptree => crate::perceptron_tree::train(ctx, &opts.ptree)?,
        Algo::Ndl => crate::decision_list::train_ndl(ctx, &opts.ndl)?,
        Algo::Hsi => crate::decision_list::train_hsi(ctx, &opts.ndl)?,
        Algo::Sparse => crate::sparse_perceptron::train(ctx, &opts.sparse)?,
        other => return Err(TrainError::NotImplemented(other)),
    };
    finish(spec, ctx, with_names)
}

/// Chooses the weight kind (the requested one, else the smallest integer kind that fits),
/// rescales units that do not fit, attaches names, exports, reloads the bytes through the
/// runtime and checks that the runtime predicts exactly what the trainer's reference evaluator
/// predicts on every training row.
///
/// # Errors
/// [`TrainError::Export`] or [`TrainError::Disagreement`].
pub fn finish(mut spec: ModelSpec, ctx: &Context<'_>, with_names: bool) -> Result<Trained, TrainError> {
    let kind = match ctx.weight_kind {
        Some(WeightKind::Fixed) if spec.weight_kind != WeightKind::Fixed => {
            // Integer weights become I16F16 bits.
            for u in &mut spec.units {
                for row in &mut u.rows {
                    for w in row.iter_mut() {
                        *w = w.saturating_mul(1 << 16);
                    }
                }
            }
            WeightKind::Fixed
        }
        Some(k) => k,
        None => spec.smallest_integer_kind().unwrap_or(WeightKind::I32),
    };
    let rescaled_units = if spec.fits(kind) {
        spec.weight_kind = kind;
        0
    } else {
        spec.rescale(kind)
    };
    spec.names = with_names.then(|| encode::names(&ctx.data.schema));
    let bytes = spec.to_bytes()?;
    let model = ltu_runtime::Model::from_bytes(&bytes).map_err(ExportError::Rejected)?;
    let mut correct = 0;
    for (row, (x, &y)) in ctx.raw.iter().zip(ctx.labels()).enumerate() {
        let want = spec.predict(x);
        match model.predict(x) {
            Ok(got) if got == want => {}
            other => {
                return Err(TrainError::Disagreement { row, trainer: want, runtime: format!("{other:?}") });
            }
        }
        correct += usize::from(want == y);
    }
    let train_accuracy = correct as f64 / ctx.raw.len().max(1) as f64;
    Ok(Trained { spec, bytes, train_accuracy, rescaled_units })
}

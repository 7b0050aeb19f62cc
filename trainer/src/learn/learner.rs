//! The learner contract: what every learning algorithm receives ([`Context`]), how it fails
//! ([`TrainError`]), what it implements ([`Learner`]) and what it returns ([`Fit`]).
//!
//! A learner is a type with parameters that have defaults and are checked once
//! ([`Learner::check`]), a `fit` that learns from the encoded training rows and reports what it
//! did, and a conversion of what it learned to the model IR ([`ModelSpec`]). Everything after
//! that — choosing the weight width, exporting, proving the runtime agrees — is shared
//! (`crate::learn::finish`), and so is the list of learners (`crate::learn`'s registry, one line
//! per learner), from which the command line's names, help and dispatch are derived.
//!
//! This module imports no learner; learners import it.

use serde::Serialize;

use crate::data::encode;
use crate::data::Dataset;
use crate::model::{ExportError, InputSpec, ModelSpec, WeightKind};

/// Why training failed.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
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

/// What every learner receives.
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
    /// The sensor pipeline whose window features the rows are (input `i` is its feature `i`),
    /// for rows cut from recordings. Its models keep only the inputs they read
    /// ([`crate::model::drop_unused_inputs`]) and carry the pipeline with those features.
    pub pipeline: Option<crate::model::Pipeline>,
    /// Samples in the longest window of the rows, for the cost of [`Context::pipeline`]'s
    /// extraction ([`crate::model::Pipeline::extraction`]).
    pub window_len: usize,
}

impl<'a> Context<'a> {
    /// Encodes `data` for training.
    pub fn new(data: &'a Dataset, seed: u64, weight_kind: Option<WeightKind>) -> Self {
        let inputs = encode::input_specs(data);
        let raw = encode::raw_rows(&inputs, data);
        Context { data, inputs, raw, seed, weight_kind, progress: &|_, _| {}, pipeline: None, window_len: 0 }
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

/// A learning algorithm.
pub trait Learner {
    /// Its name on the command line and in reports (`ptree`, `ndl`, ...).
    const NAME: &'static str;
    /// One line for `--help`: what it learns and from which paper.
    const ABOUT: &'static str;
    /// Options, with defaults.
    type Params: Default + Clone + std::fmt::Debug;
    /// Options after [`Learner::check`]: the only form `fit` accepts.
    type Checked;
    /// What the learner learned, in its own terms.
    type Model;
    /// What it did (epochs, pruning, quantization changes, ...), shown by `ltu train --json`.
    type Report: Serialize + Clone + std::fmt::Debug;

    /// Checks the options against each other and against the data, once.
    ///
    /// # Errors
    /// [`TrainError::InvalidOption`] naming the option and the accepted range.
    fn check(p: &Self::Params, ctx: &Context<'_>) -> Result<Self::Checked, TrainError>;

    /// Learns from `ctx`'s encoded rows.
    ///
    /// # Errors
    /// A learner-specific failure (for example data it cannot handle).
    fn fit(ctx: &Context<'_>, p: &Self::Checked) -> Result<(Self::Model, Self::Report), TrainError>;

    /// The model IR that `crate::learn::finish` exports and verifies.
    fn to_spec(model: &Self::Model) -> ModelSpec;

    /// Successively cheaper settings derived from `p` (smaller, fewer units or rounds), richest
    /// first, not including `p`: what a device budget (`crate::learn::Budget`) searches when the
    /// model `p` gives does not fit. Empty for a learner without such a ladder.
    fn ladder(_p: &Self::Params) -> Vec<Self::Params> {
        Vec::new()
    }
}

/// A learner's result in the IR, with its report: its own [`Learner::Report`] from [`fit`], any
/// learner's [`Report`](super::Report) from [`Algo::fit`](super::Algo::fit).
#[derive(Debug, Clone)]
pub struct Fit<R> {
    /// The model.
    pub spec: ModelSpec,
    /// What the learner reported.
    pub report: R,
}

/// Checks `p`, fits and converts: the one path from options to IR, for any learner.
///
/// # Errors
/// As [`Learner::check`] and [`Learner::fit`].
pub fn fit<L: Learner>(ctx: &Context<'_>, p: &L::Params) -> Result<Fit<L::Report>, TrainError> {
    let checked = L::check(p, ctx)?;
    let (model, report) = L::fit(ctx, &checked)?;
    Ok(Fit { spec: L::to_spec(&model), report })
}

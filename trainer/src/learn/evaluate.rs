//! Held-out evaluation over the learner registry, through the runtime: train on some rows, export,
//! load the bytes with `ltu-runtime` and predict the others exactly as a device would. What
//! `ltu cv`, `cargo xtask compare` and `cargo xtask bench-device` share.

use crate::data::encode;
use crate::data::Dataset;
use crate::learn::{self, Algo, Options, Trained};
use crate::learn::{Context, TrainError};
use crate::model::WeightKind;

/// How a model is trained for an evaluation.
#[derive(Debug, Clone, Copy)]
pub struct Setup<'a> {
    /// The learner.
    pub algo: Algo,
    /// Every learner's options (only `algo`'s are read).
    pub options: &'a Options,
    /// Seed of every random choice.
    pub seed: u64,
    /// Requested weight representation (`None`: the learner's choice).
    pub weight_kind: Option<WeightKind>,
}

impl<'a> Setup<'a> {
    /// `algo` with `options`, seed 0 and the learner's weight representation.
    pub fn new(algo: Algo, options: &'a Options) -> Self {
        Setup { algo, options, seed: 0, weight_kind: None }
    }
}

/// Why an evaluation failed.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// Training (or export) failed.
    #[error(transparent)]
    Train(#[from] TrainError),
    /// The runtime refused the model or a row (a bug: `learn::finish` verified the model).
    #[error("the runtime: {0}")]
    Runtime(ltu_runtime::Error),
}

/// What one train/test split gives.
#[derive(Debug, Clone)]
pub struct Heldout {
    /// Accuracy on the test rows, predicted by the runtime.
    pub accuracy: f64,
    /// Predicted class of each test row, in `test_rows` order.
    pub predictions: Vec<usize>,
    /// The model trained on the training rows.
    pub trained: Trained,
}

/// Trains `setup` on `train_rows` of `data` and predicts `test_rows` through the runtime.
///
/// # Errors
/// [`EvalError`].
pub fn holdout(
    data: &Dataset,
    train_rows: &[usize],
    test_rows: &[usize],
    setup: &Setup<'_>,
) -> Result<Heldout, EvalError> {
    let train = data.subset(train_rows);
    let ctx = Context::new(&train, setup.seed, setup.weight_kind);
    let trained = learn::train(setup.algo, &ctx, setup.options, false)?;
    let model = ltu_runtime::Model::from_bytes(&trained.bytes).map_err(EvalError::Runtime)?;
    let test = data.subset(test_rows);
    let raw = encode::raw_rows(&trained.spec.inputs, &test);
    let predictions =
        raw.iter().map(|x| model.predict(x).map_err(EvalError::Runtime)).collect::<Result<Vec<_>, _>>()?;
    let correct = predictions.iter().zip(&test.y).filter(|(p, y)| p == y).count();
    Ok(Heldout { accuracy: correct as f64 / raw.len().max(1) as f64, predictions, trained })
}

/// Every fold of `folds` (the test rows of each; the rest train) on up to `jobs` threads, in fold
/// order.
pub fn cross_validate(
    data: &Dataset,
    folds: &[Vec<usize>],
    setup: &Setup<'_>,
    jobs: usize,
) -> Vec<Result<Heldout, EvalError>> {
    let n = data.n_rows();
    let jobs = jobs.max(1);
    let mut results: Vec<Option<Result<Heldout, EvalError>>> = (0..folds.len()).map(|_| None).collect();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..jobs)
            .map(|j| {
                s.spawn(move || {
                    (j..folds.len())
                        .step_by(jobs)
                        .map(|f| {
                            (
                                f,
                                holdout(
                                    data,
                                    &crate::data::split::complement(&folds[f], n),
                                    &folds[f],
                                    setup,
                                ),
                            )
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for h in handles {
            for (f, r) in h.join().expect("a fold panicked") {
                results[f] = Some(r);
            }
        }
    });
    results.into_iter().map(|r| r.expect("every fold ran")).collect()
}

/// Mean and sample standard deviation.
pub fn mean_std(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n.max(1.0);
    let var = if xs.len() > 1 { xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0) } else { 0.0 };
    (mean, var.sqrt())
}

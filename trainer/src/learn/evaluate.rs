//! Held-out evaluation over the learner registry, through the runtime: train on some rows, export,
//! load the bytes with `ltu-runtime` and predict the others exactly as a device would. What
//! `ltu cv`, `cargo xtask compare` and `cargo xtask bench-device` share.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::data::split::complement;
use crate::data::Dataset;
use crate::learn::{self, Algo, AlgoChoice, Options, Trained};
use crate::learn::{Context, TrainError};
use crate::model::WeightKind;

/// How a model is trained for an evaluation.
#[derive(Debug, Clone, Copy)]
pub struct Setup<'a> {
    /// The learner, or [`AlgoChoice::Auto`].
    pub algo: AlgoChoice,
    /// Every learner's options (only those of `algo`'s learners are read).
    pub options: &'a Options,
    /// Seed of every random choice.
    pub seed: u64,
    /// Requested weight representation (`None`: the learner's choice).
    pub weight_kind: Option<WeightKind>,
    /// The pipeline whose window features the rows are ([`Context::pipeline`]).
    pub pipeline: Option<&'a crate::model::Pipeline>,
    /// Samples in the longest window ([`Context::window_len`]).
    pub window_len: usize,
}

impl<'a> Setup<'a> {
    /// `algo` with `options`, seed 0 and the learner's weight representation.
    pub fn new(algo: Algo, options: &'a Options) -> Self {
        Setup {
            algo: AlgoChoice::One(algo),
            options,
            seed: 0,
            weight_kind: None,
            pipeline: None,
            window_len: 0,
        }
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
    let mut ctx = Context::new(&train, setup.seed, setup.weight_kind);
    ctx.pipeline = setup.pipeline.cloned();
    ctx.window_len = setup.window_len;
    let trained = learn::train_choice(setup.algo, &ctx, setup.options, false)?;
    let model = ltu_runtime::Model::from_bytes(&trained.bytes).map_err(EvalError::Runtime)?;
    let test = data.subset(test_rows);
    let raw = trained.rows(&test);
    let predictions =
        raw.iter().map(|x| model.predict(x).map_err(EvalError::Runtime)).collect::<Result<Vec<_>, _>>()?;
    let correct = predictions.iter().zip(&test.y).filter(|(p, y)| p == y).count();
    Ok(Heldout { accuracy: correct as f64 / raw.len().max(1) as f64, predictions, trained })
}

/// Every fold of `folds` (the test rows of each; the rest train) on up to `jobs` threads, in fold
/// order; `progress(done, total)` is called as each fold finishes.
pub fn cross_validate(
    data: &Dataset,
    folds: &[Vec<usize>],
    setup: &Setup<'_>,
    jobs: usize,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Vec<Result<Heldout, EvalError>> {
    let n = data.n_rows();
    let done = AtomicUsize::new(0);
    progress(0, folds.len());
    in_parallel(folds.len(), jobs, |f| {
        let result = holdout(data, &complement(&folds[f], n), &folds[f], setup);
        progress(done.fetch_add(1, Ordering::SeqCst) + 1, folds.len());
        result
    })
}

/// `work(i)` for every `i` in `0..n` on up to `jobs` threads (at most `n`), each thread taking
/// the next unstarted item; the results in item order. The one scheduler of folds, used by
/// [`cross_validate`] and by benchmarks that spread (dataset, learner, fold) items over threads.
///
/// # Panics
/// If `work` panics (the panic is propagated).
pub fn in_parallel<T: Send>(n: usize, jobs: usize, work: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let next = AtomicUsize::new(0);
    let jobs = jobs.clamp(1, n.max(1));
    let mut results: Vec<(usize, T)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..jobs)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= n {
                            break mine;
                        }
                        mine.push((i, work(i)));
                    }
                })
            })
            .collect();
        let mut all = Vec::with_capacity(n);
        for h in handles {
            match h.join() {
                Ok(mine) => all.extend(mine),
                Err(payload) => std::panic::resume_unwind(payload),
            }
        }
        all
    });
    results.sort_unstable_by_key(|&(i, _)| i);
    results.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::in_parallel;

    #[test]
    fn in_parallel_keeps_item_order_whatever_the_threads() {
        for jobs in [0, 1, 2, 3, 20] {
            assert_eq!(in_parallel(7, jobs, |i| i * i), vec![0, 1, 4, 9, 16, 25, 36], "jobs {jobs}");
        }
        assert!(in_parallel(0, 4, |i| i).is_empty());
    }
}

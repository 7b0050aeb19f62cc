//! Training on the host: every ltu model configuration (the learners' defaults and their budget
//! settings), trained on all rows and cross-validated on the benchmark's folds.

use std::collections::BTreeMap;

use ltu::learn::evaluate::Setup;
use ltu::learn::{self, Algo, Context, Options};

use crate::bench::device::datasets::{Prepared, SEED};

/// One ltu model configuration: a learner with its defaults, or with a budget setting.
#[derive(Clone, Copy)]
pub struct Variant {
    /// Label in the report, e.g. `ptree --max-depth 2`.
    pub label: &'static str,
    pub algo: Algo,
    /// A budget setting (reported as such) rather than the defaults.
    pub budget: bool,
    /// Applies the variant's options.
    pub set: fn(&mut Options),
}

/// Budget settings the learners offer, measured beside every registered learner's defaults.
pub const BUDGETS: &[Variant] = &[
    Variant { label: "ptree --max-depth 2", algo: Algo::Ptree, budget: true, set: |o| o.ptree.max_depth = 2 },
    Variant { label: "ndl --max-nodes 4", algo: Algo::Ndl, budget: true, set: |o| o.ndl.max_nodes = Some(4) },
    Variant {
        label: "sparse --rounds 8",
        algo: Algo::Sparse,
        budget: true,
        set: |o| o.sparse.rounds = Some(8),
    },
    // Between 8 rounds and the default (at least 32): breast-cancer-wisconsin's 8-round model is
    // 0.1 point short of the forest's accuracy less 1.
    Variant {
        label: "sparse --rounds 16",
        algo: Algo::Sparse,
        budget: true,
        set: |o| o.sparse.rounds = Some(16),
    },
    // Refitted units that leave out the features that do not pay for themselves (Akaike's
    // criterion): about half the weights, for a point of accuracy on some datasets.
    Variant {
        label: "ptree --feature-selection true",
        algo: Algo::Ptree,
        budget: true,
        set: |o| o.ptree.feature_selection = true,
    },
    // The plain decision tree, FRINGE's first iteration (no constructed features): the
    // paper's baseline, and the smallest tree FRINGE offers (in C, 180–816 B on the datasets
    // with categorical or few inputs).
    Variant {
        label: "fringe --max-variables 1",
        algo: Algo::Fringe,
        budget: true,
        set: |o| o.fringe.max_variables = 1,
    },
    // Unpruned: a larger tree of threshold tests, which codegen turns into a few compares each.
    Variant {
        label: "fringe --prune-z 0",
        algo: Algo::Fringe,
        budget: true,
        set: |o| {
            o.fringe.prune_fraction = Some(0.0);
            o.fringe.prune_z = 0.0;
        },
    },
];

/// Every registered learner with its defaults (the registry in `ltu::learn`), each followed by its
/// budget settings.
pub fn variants() -> Vec<Variant> {
    Algo::ALL
        .iter()
        .flat_map(|&algo| {
            std::iter::once(Variant { label: algo.name(), algo, budget: false, set: |_| {} })
                .chain(BUDGETS.iter().filter(move |b| b.algo == algo).copied())
        })
        .collect()
}

/// What the ltu side of one variant produced on the host.
pub enum Trained {
    /// Trained: the device's model file, the rows it reads and its host predictions.
    Model {
        bytes: Vec<u8>,
        spec: Box<ltu::model::ModelSpec>,
        inputs: Vec<Vec<i32>>,
        host: Vec<usize>,
        accuracy: Option<f64>,
        folds_failed: usize,
    },
    /// Training on all rows failed.
    Failed(String),
}

/// Trains every applicable variant on all rows and cross-validates it, on all cores.
pub fn train_variants(p: &Prepared, rows: &[usize], variants: &[Variant]) -> Vec<Trained> {
    // Work items: (variant, None) = train on all rows, (variant, Some(fold)).
    let items: Vec<(usize, Option<usize>)> = (0..variants.len())
        .flat_map(|v| std::iter::once((v, None)).chain((0..p.folds.len()).map(move |f| (v, Some(f)))))
        .collect();
    type Out = Result<(Option<(Vec<u8>, Vec<u8>)>, f64), String>;
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let n = p.data.n_rows();
    let outs: Vec<Out> = ltu::learn::evaluate::in_parallel(items.len(), jobs, |i| {
        let (v, fold) = items[i];
        let variant = &variants[v];
        let mut opts = Options::default();
        (variant.set)(&mut opts);
        match fold {
            None => {
                let ctx = Context::new(&p.data, SEED, None);
                // The device stores the model without its host block (`ltu train --strip`).
                let strip = ltu::model::Host { strip: true, meta: None };
                learn::train(variant.algo, &ctx, &opts, false)
                    .and_then(|t| {
                        let device = t.spec.to_bytes_with(&strip)?;
                        Ok((Some((t.bytes, device)), t.train_accuracy))
                    })
                    .map_err(|e| e.to_string())
            }
            Some(f) => {
                let test = &p.folds[f];
                let train = ltu::data::split::complement(test, n);
                let setup = Setup { seed: SEED, ..Setup::new(variant.algo, &opts) };
                ltu::learn::evaluate::holdout(&p.data, &train, test, &setup)
                    .map(|h| (None, h.accuracy))
                    .map_err(|e| e.to_string())
            }
        }
    });
    let results: BTreeMap<(usize, Option<usize>), Out> = items.into_iter().zip(outs).collect();
    (0..variants.len())
        .map(|v| match &results[&(v, None)] {
            Err(e) => Trained::Failed(e.clone()),
            Ok((bytes, _)) => {
                let (bytes, device) = bytes.clone().unwrap_or_default();
                let accs: Vec<f64> = (0..p.folds.len())
                    .filter_map(|f| results[&(v, Some(f))].as_ref().ok().map(|r| r.1))
                    .collect();
                let folds_failed = p.folds.len() - accs.len();
                // Held-out accuracy over all rows (folds weighted by size), as the peers compute it.
                let correct: f64 = (0..p.folds.len())
                    .filter_map(|f| {
                        results[&(v, Some(f))].as_ref().ok().map(|r| r.1 * p.folds[f].len() as f64)
                    })
                    .sum();
                let total: usize = (0..p.folds.len())
                    .filter(|&f| results[&(v, Some(f))].is_ok())
                    .map(|f| p.folds[f].len())
                    .sum();
                let accuracy = (folds_failed == 0 && total > 0).then(|| correct / total as f64);
                let model =
                    ltu_runtime::Model::from_bytes(&bytes).expect("the trainer verified its own bytes");
                let spec = ltu::model::ModelSpec::from_model(&model);
                let inputs = ltu::data::encode::raw_rows(&spec.inputs, &p.data.subset(rows));
                let host =
                    inputs.iter().map(|x| model.predict(x).expect("row length is the model's")).collect();
                Trained::Model { bytes: device, spec: Box::new(spec), inputs, host, accuracy, folds_failed }
            }
        })
        .collect()
}

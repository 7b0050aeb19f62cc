//! The sensor-recording sets of `cargo xtask compare`: each ltu learner trained as `ltu train
//! FILE --recordings` trains it (the default pipeline: the whole recording one window, the
//! default window features) on the archive's training recordings, and scored on the test
//! recordings through the runtime's `predict_window`, raw samples in, as on a device. The
//! recordings go to `bench/series_peers.py` as JSON, and its results come back from the peers'
//! output.

use std::panic::{self, AssertUnwindSafe};
use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{bail, Context as _, Result};
use ltu::data::recordings::{self, Layout, PipelineOptions, Recordings};
use ltu::data::{self, encode, Dataset, LoadOptions};
use ltu::learn::evaluate;
use ltu::learn::{self, Algo, Context, Options};
use ltu::model::{Host, Pipeline};
use serde_json::{json, Value};

use crate::bench::compare::datasets::{Files, Spec};
use crate::bench::compare::measure::{panic_message, Outcome, LTU_DEADLINE, SEED};

/// A recordings set as loaded: its training and test recordings, the pipeline fitted to the
/// training recordings, and the training windows' feature rows.
pub struct Series {
    pub name: &'static str,
    pub train_file: &'static str,
    pub test_file: &'static str,
    pub train: Recordings,
    pub test: Recordings,
    pub pipeline: Pipeline,
    /// The training windows' feature rows (one per recording: the whole recording is a window).
    pub windows: Dataset,
    /// Per pipeline channel, the test recordings' channel it reads (matched by name).
    pub test_columns: Vec<usize>,
    /// Per test recording, its class as an index into the training recordings' classes.
    pub test_labels: Vec<usize>,
}

/// One ltu learner on one set: the outcome, and on success the cost of a test window.
#[derive(Clone)]
pub struct SeriesRun {
    pub outcome: Outcome,
    /// Mean multiply-accumulates per test window (the model only, not the window statistics).
    pub mean_macs: f64,
}

fn load(root: &Path, file: &str, spec: &Spec, layout: &Layout) -> Result<Recordings> {
    let opts = LoadOptions {
        categorical: spec.categorical.iter().map(|c| (*c).to_string()).collect(),
        ..LoadOptions::default()
    };
    let path = root.join("data").join(file);
    let data = data::load(&path, &opts)?;
    recordings::from_dataset(&data, layout).with_context(|| format!("reading {}", path.display()))
}

/// Reads a set's recordings and fits the default pipeline to its training recordings, as `ltu
/// train FILE --recordings` does (`--recording COLUMN` for the long layout).
pub fn prepare(root: &Path, spec: &Spec) -> Result<Series> {
    let Files::Recordings { train, test, recording } = spec.files else {
        bail!("{} is not a recordings set", spec.name);
    };
    let layout = match recording {
        Some(column) => Layout::Long { recording: column.to_string() },
        None => Layout::Wide,
    };
    let tr = load(root, train, spec, &layout)?;
    let te = load(root, test, spec, &layout)?;
    let mut pipeline = recordings::fit_pipeline(&tr, &PipelineOptions::default())?;
    pipeline.recording = recording.map(str::to_string);
    let columns: Vec<usize> = (0..tr.channels.len()).collect();
    let (windows, _) = recordings::windows_dataset(&tr, &pipeline, &columns)?;
    let test_columns = pipeline
        .channels
        .iter()
        .map(|ch| {
            te.channels
                .iter()
                .position(|n| *n == ch.name)
                .with_context(|| format!("{test}: no channel `{}`", ch.name))
        })
        .collect::<Result<Vec<_>>>()?;
    let test_labels = te
        .recordings
        .iter()
        .map(|r| {
            let class = &te.classes[r.class];
            tr.classes.iter().position(|c| c == class).with_context(|| {
                format!("{test}: recording `{}` has class `{class}`, which {train} lacks", r.id)
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Series {
        name: spec.name,
        train_file: train,
        test_file: test,
        train: tr,
        test: te,
        pipeline,
        windows,
        test_columns,
        test_labels,
    })
}

/// Every (set, learner) on `jobs` threads; outcomes indexed `[set][learner]`. A pair not started
/// within [`LTU_DEADLINE`] of the first is skipped (the tabular folds' cap does not eat into it).
pub fn run_ltu(series: &[Series], algos: &[Algo], jobs: usize) -> Vec<Vec<SeriesRun>> {
    let start = Instant::now();
    let items: Vec<(usize, usize)> =
        (0..series.len()).flat_map(|s| (0..algos.len()).map(move |a| (s, a))).collect();
    let console = Mutex::new(());
    let runs = evaluate::in_parallel(items.len(), jobs, |i| {
        let (s, a) = items[i];
        let run = if start.elapsed() > LTU_DEADLINE {
            SeriesRun { outcome: Outcome::Skipped("the overall ltu time cap"), mean_macs: 0.0 }
        } else {
            let result = panic::catch_unwind(AssertUnwindSafe(|| one(&series[s], algos[a])));
            match result {
                Ok(Ok(run)) => run,
                Ok(Err(e)) => failed(format!("{e:#}")),
                Err(payload) => failed(format!("panicked: {}", panic_message(payload.as_ref()))),
            }
        };
        let _lock = console.lock().unwrap();
        let line = match &run.outcome {
            Outcome::Done { accuracy, bytes, seconds } => {
                format!("{:.2}% test accuracy, {bytes} B, {seconds:.1} s", 100.0 * accuracy)
            }
            Outcome::Failed(e) => format!("failed: {}", e.replace('\n', " ")),
            Outcome::Skipped(why) => format!("skipped by {why}"),
        };
        println!("  {:<8} {:<24} {line}", algos[a].to_string(), series[s].name);
        run
    });
    runs.chunks(algos.len().max(1)).map(<[SeriesRun]>::to_vec).collect()
}

fn failed(why: String) -> SeriesRun {
    SeriesRun { outcome: Outcome::Failed(why), mean_macs: 0.0 }
}

/// Trains `algo` on the training windows as `ltu train --recordings` does (default options, seed
/// 0, names kept), stores the pipeline in the model, and scores every test window through the
/// runtime's `predict_window`, checking it against the trainer's own prediction.
fn one(s: &Series, algo: Algo) -> Result<SeriesRun> {
    let start = Instant::now();
    let ctx = Context::new(&s.windows, SEED, None);
    let mut trained = learn::train(algo, &ctx, &Options::default(), true)?;
    trained.spec.pipeline = Some(s.pipeline.clone());
    let device = trained.spec.to_bytes_with(&Host { strip: true, meta: None })?;
    let model = ltu_runtime::Model::from_bytes(&device).map_err(|e| anyhow::anyhow!("{e}"))?;
    let (test_windows, _) = recordings::windows_dataset(&s.test, &s.pipeline, &s.test_columns)?;
    let raw = encode::raw_rows(&trained.spec.inputs, &test_windows);
    let (mut correct, mut n) = (0usize, 0usize);
    for (recording, &label) in s.test.recordings.iter().zip(&s.test_labels) {
        let samples = recordings::samples(recording, &s.pipeline, &s.test_columns);
        for window in s.pipeline.windows(recording.len()) {
            let slices: Vec<&[i16]> = samples.iter().map(|c| &c[window.clone()]).collect();
            let p = model.predict_window(&slices).map_err(|e| anyhow::anyhow!("test window {n}: {e}"))?;
            let host = trained.spec.predict(&raw[n]);
            if host != p {
                bail!("the runtime's pipeline disagrees with the trainer on test window {n}: trainer {host}, runtime {p}");
            }
            correct += usize::from(p == label);
            n += 1;
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    Ok(SeriesRun {
        outcome: Outcome::Done { accuracy: correct as f64 / n.max(1) as f64, bytes: device.len(), seconds },
        mean_macs: trained.spec.row_cost(&raw).mean_macs,
    })
}

/// The recordings as `bench/series_peers.py` reads them: per set, every recording's samples
/// `[channel][time]` (test channels in the training recordings' order) and class indices into
/// the training recordings' classes.
pub fn recordings_json(series: &[Series]) -> Value {
    let sets: Vec<Value> = series
        .iter()
        .map(|s| {
            let train: Vec<&Vec<Vec<f64>>> = s.train.recordings.iter().map(|r| &r.samples).collect();
            let test: Vec<Vec<&Vec<f64>>> = s
                .test
                .recordings
                .iter()
                .map(|r| s.test_columns.iter().map(|&c| &r.samples[c]).collect())
                .collect();
            json!({
                "name": s.name,
                "channels": s.train.channels,
                "classes": s.train.classes,
                "train": {"samples": train, "y": s.train.labels()},
                "test": {"samples": test, "y": s.test_labels},
            })
        })
        .collect();
    json!({"seed": SEED, "datasets": sets})
}

/// ltu's outcomes on the recordings sets, as written to `target/compare/ltu-recordings.json`.
pub fn ltu_json(series: &[Series], algos: &[Algo], runs: &[Vec<SeriesRun>]) -> Value {
    let rows: Vec<Value> = series
        .iter()
        .zip(runs)
        .flat_map(|(s, per_algo)| {
            algos.iter().zip(per_algo).map(|(algo, r)| {
                let result = match &r.outcome {
                    Outcome::Done { accuracy, bytes, seconds } => json!({
                        "accuracy": accuracy, "device_bytes": bytes, "seconds": seconds,
                        "mean_macs": r.mean_macs,
                    }),
                    Outcome::Failed(e) => json!({"error": e}),
                    Outcome::Skipped(why) => json!({"skipped": why}),
                };
                json!({"dataset": s.name, "algo": algo, "result": result})
            })
        })
        .collect();
    json!({"seed": SEED, "results": rows})
}

/// A peer on the recordings sets, as `bench/series_peers.py` describes it.
pub struct SeriesPeer {
    pub key: String,
    /// Its name in the report.
    pub label: String,
    /// Whether it counts as microcontroller-sized for the goals.
    pub small: bool,
    /// What it is, in a sentence.
    pub about: String,
}

/// One peer on one set.
pub struct SeriesPeerRun {
    pub accuracy: f64,
    pub seconds: f64,
    /// Inputs the model sees.
    pub inputs: u64,
    /// Its size: tree nodes (forests) or stored values (1-NN), with a unit.
    pub size: String,
    /// Whether the fit finished without scikit-learn's `ConvergenceWarning`.
    pub converged: bool,
}

/// The peers and their runs `[set][peer]` from the peers' output.
pub fn peer_runs(peers: &Value, series: &[Series]) -> Result<(Vec<SeriesPeer>, Vec<Vec<SeriesPeerRun>>)> {
    let rec = &peers["recordings"];
    let list = rec["peers"].as_array().context("the peers' results list no recordings peers")?;
    let text =
        |v: &Value, k: &str| v[k].as_str().map(str::to_string).with_context(|| format!("peer without `{k}`"));
    let others = list
        .iter()
        .map(|p| {
            Ok(SeriesPeer {
                key: text(p, "key")?,
                label: text(p, "label")?,
                small: p["small"].as_bool().unwrap_or(false),
                about: text(p, "about")?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let runs = series
        .iter()
        .map(|s| {
            let ds = rec["datasets"]
                .as_array()
                .and_then(|a| a.iter().find(|d| d["name"] == s.name))
                .with_context(|| format!("the peers' results have no recordings set `{}`", s.name))?;
            others
                .iter()
                .map(|o| {
                    let r = &ds["peers"][&o.key];
                    let num = |k: &str| {
                        r[k].as_f64().with_context(|| format!("{}: {} without `{k}`", s.name, o.label))
                    };
                    Ok(SeriesPeerRun {
                        accuracy: num("accuracy")?,
                        seconds: num("seconds")?,
                        inputs: r["inputs"].as_u64().unwrap_or(0),
                        size: text(r, "size")?,
                        converged: r["converged"].as_bool().unwrap_or(false),
                    })
                })
                .collect::<Result<Vec<_>>>()
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((others, runs))
}

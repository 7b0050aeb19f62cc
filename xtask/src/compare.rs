//! `cargo xtask compare`: ltu's learners against scikit-learn's CART on the same folds, and the
//! size of that CART tree as emlearn C code. Writes `docs/BENCHMARKS.md`.
//!
//! The flow: load each dataset with the trainer library, make 10 stratified folds with
//! `ltu::split` (MONK's problems: their fixed train/test files), train and test every ltu
//! algorithm on every fold with `ltu::evaluate::holdout` (folds in parallel), write the data as
//! loaded and the exact folds to `target/compare/folds.json`, run `bench/peers.py` in a venv
//! under `target/` on those folds, and render both result sets into one Markdown report.
//!
//! Nothing is hidden: an algorithm that is not implemented, fails, panics, or runs out of its
//! time budget on a dataset is listed as such, and comparisons use only the folds that ran.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _, Result};
use ltu::algo::Algo;
use ltu::algo::Options;
use ltu::data::{self, AttrKind, Dataset, LoadOptions};
use ltu::evaluate::{self, mean_std, Setup};
use ltu::export::InputKind;
use serde_json::{json, Value};

use crate::cmd;

/// Folds of the cross-validation.
const FOLDS: usize = 10;
/// Seed of the fold assignment and of every ltu algorithm.
const SEED: u64 = 0;
/// Summed fold time after which an algorithm's remaining folds on a dataset are skipped.
const PAIR_BUDGET: Duration = Duration::from_secs(150);
/// Wall-clock time after which every ltu fold not yet started is skipped.
const LTU_DEADLINE: Duration = Duration::from_secs(9 * 60);
/// The venv for the peers, created on first use.
const VENV: &str = "target/peers-venv";
/// Scratch files: folds, results, partial reports.
const OUT_DIR: &str = "target/compare";
/// The committed report (full runs only, unless `--out` says otherwise).
const REPORT: &str = "docs/BENCHMARKS.md";

/// Arguments of `cargo xtask compare`.
#[derive(clap::Args)]
pub struct Args {
    /// A few small datasets only, for a fast check (the report goes to target/compare/)
    #[arg(long)]
    quick: bool,
    /// Only these datasets, comma-separated (e.g. iris,car,monks-2)
    #[arg(long, value_delimiter = ',')]
    datasets: Vec<String>,
    /// ltu algorithms to compare, comma-separated (default: every registered learner)
    #[arg(long, value_delimiter = ',', value_parser = str::parse::<Algo>)]
    algos: Vec<Algo>,
    /// ltu folds trained in parallel (default: available cores)
    #[arg(long)]
    jobs: Option<usize>,
    /// Report path (default: docs/BENCHMARKS.md for a full run, target/compare/BENCHMARKS.md otherwise)
    #[arg(long)]
    out: Option<PathBuf>,
}

/// Where a dataset's rows come from.
enum Files {
    /// One file, cross-validated.
    Cv(&'static str),
    /// A fixed split: train on one file, test on the other.
    Split { train: &'static str, test: &'static str },
}

struct Spec {
    name: &'static str,
    files: Files,
    /// Numeric-looking columns that are really category codes.
    categorical: &'static [&'static str],
}

const MONKS_CODES: &[&str] = &["a1", "a2", "a3", "a4", "a5", "a6"];

const fn cv(name: &'static str, file: &'static str) -> Spec {
    Spec { name, files: Files::Cv(file), categorical: &[] }
}

const fn monks(name: &'static str, train: &'static str, test: &'static str) -> Spec {
    Spec { name, files: Files::Split { train, test }, categorical: MONKS_CODES }
}

const DATASETS: &[Spec] = &[
    cv("iris", "iris.csv"),
    cv("wine", "wine.csv"),
    cv("zoo", "zoo.csv"),
    cv("glass", "glass.csv"),
    cv("house-votes-84", "house-votes-84.csv"),
    cv("balance-scale", "balance-scale.csv"),
    cv("led7digit", "led7digit.csv"),
    cv("breast-cancer-wisconsin", "breast-cancer-wisconsin.csv"),
    cv("wdbc", "wdbc.csv"),
    cv("vehicle", "vehicle.csv"),
    cv("car", "car.csv"),
    cv("segment", "segment.csv"),
    cv("kr-vs-kp", "kr-vs-kp.csv"),
    cv("mushroom", "mushroom.csv"),
    monks("monks-1", "monks-1_train.csv", "monks-1_test.csv"),
    monks("monks-2", "monks-2_train.csv", "monks-2_test.csv"),
    monks("monks-3", "monks-3_train.csv", "monks-3_test.csv"),
];

const QUICK: &[&str] = &["iris", "wine", "house-votes-84", "monks-2"];

struct Fold {
    train: Vec<usize>,
    test: Vec<usize>,
}

/// A dataset as loaded, with its folds.
struct Prepared {
    name: &'static str,
    data: Dataset,
    folds: Vec<Fold>,
    /// How the folds were made, for the report.
    protocol: String,
    notes: Vec<String>,
}

/// What happened to one ltu fold.
#[derive(Clone)]
enum Outcome {
    Done { accuracy: f64, bytes: usize, seconds: f64 },
    Failed(String),
    Skipped(&'static str),
}

/// Runs the comparison and writes the report.
///
/// # Errors
/// A dataset that does not load, a venv that cannot be made, a peer script that fails, or a
/// report that cannot be written. ltu training failures are reported, not errors.
pub fn run(root: &Path, args: &Args) -> Result<()> {
    if cfg!(debug_assertions) {
        // Training times of a debug build say nothing about ltu: rerun optimized.
        println!("compare: running the optimized xtask so training times are representative");
        let mut cargo = cmd::cargo(root);
        cargo.args(["run", "--release", "--quiet", "-p", "xtask", "--"]).args(std::env::args_os().skip(1));
        return cmd::run(&mut cargo);
    }
    let started = Instant::now();
    let specs = select(args)?;
    let full = !args.quick && args.datasets.is_empty();
    let out_dir = root.join(OUT_DIR);
    std::fs::create_dir_all(&out_dir).with_context(|| format!("creating {}", out_dir.display()))?;

    let (python, mut env_notes) = ensure_venv(root)?;

    let prepared = specs.iter().map(|s| prepare(root, s)).collect::<Result<Vec<_>>>()?;
    let folds_path = out_dir.join("folds.json");
    write_json(&folds_path, &folds_json(&prepared))?;

    let jobs = args.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let algos: &[Algo] = if args.algos.is_empty() { Algo::ALL } else { &args.algos };
    println!("ltu: {} datasets x {} algorithms, {jobs} folds at a time", prepared.len(), algos.len());
    let ltu_started = Instant::now();
    let outcomes = run_ltu(&prepared, algos, jobs);
    let ltu_seconds = ltu_started.elapsed().as_secs_f64();
    write_json(&out_dir.join("ltu.json"), &ltu_json(&prepared, algos, &outcomes))?;

    println!("peers: scikit-learn CART and emlearn on the same folds");
    let peers_path = out_dir.join("peers.json");
    let peers_started = Instant::now();
    // emlearn compiles its C models under `tmp/` of the working directory: keep that in target/.
    cmd::run(
        Command::new(&python)
            .current_dir(&out_dir)
            .arg(root.join("bench/peers.py"))
            .arg("--folds")
            .arg(&folds_path)
            .arg("--out")
            .arg(&peers_path),
    )?;
    let peers_seconds = peers_started.elapsed().as_secs_f64();
    let text =
        std::fs::read_to_string(&peers_path).with_context(|| format!("reading {}", peers_path.display()))?;
    let peers: Value =
        serde_json::from_str(&text).with_context(|| format!("parsing {}", peers_path.display()))?;
    if peers["emlearn"].is_null() {
        env_notes
            .push("emlearn could not be imported in the venv, so every emlearn size is an estimate.".into());
    }

    let run = RunInfo {
        command: command_line(),
        jobs,
        ltu_seconds,
        peers_seconds,
        total_seconds: started.elapsed().as_secs_f64(),
        env_notes,
    };
    let report = render(root, &prepared, algos, &outcomes, &peers, &run)?;
    let out = match &args.out {
        Some(p) => p.clone(),
        None if full => root.join(REPORT),
        None => out_dir.join("BENCHMARKS.md"),
    };
    std::fs::write(&out, report).with_context(|| format!("writing {}", out.display()))?;
    println!("wrote {} in {:.0} s", out.display(), run.total_seconds);
    Ok(())
}

fn select(args: &Args) -> Result<Vec<&'static Spec>> {
    for name in &args.datasets {
        if !DATASETS.iter().any(|s| s.name == name) {
            let known: Vec<&str> = DATASETS.iter().map(|s| s.name).collect();
            bail!("unknown dataset `{name}` (known: {})", known.join(", "));
        }
    }
    let chosen: Vec<&Spec> = DATASETS
        .iter()
        .filter(|s| args.datasets.is_empty() || args.datasets.iter().any(|d| d == s.name))
        .filter(|s| !args.quick || QUICK.contains(&s.name))
        .collect();
    if chosen.is_empty() {
        bail!("no dataset selected (--quick keeps only {})", QUICK.join(", "));
    }
    Ok(chosen)
}

/// Makes the venv and installs the peers when missing; returns its python and notes for the
/// report (emlearn failing to install is a note, not an error: its size is then estimated).
pub fn ensure_venv(root: &Path) -> Result<(PathBuf, Vec<String>)> {
    let venv = root.join(VENV);
    let python = venv.join("bin/python");
    if !python.exists() {
        cmd::run(Command::new("python3").args(["-m", "venv"]).arg(&venv))
            .context("creating the peers' venv needs python3 with the venv module")?;
    }
    let pip =
        |package: &str| cmd::run(Command::new(&python).args(["-m", "pip", "install", "--quiet", package]));
    if !imports(&python, "sklearn") {
        pip("scikit-learn")?;
    }
    let mut notes = Vec::new();
    if !imports(&python, "emlearn") {
        if let Err(e) = pip("emlearn") {
            notes.push(format!("`pip install emlearn` failed ({e:#}); emlearn sizes are estimates."));
        }
    }
    Ok((python, notes))
}

fn imports(python: &Path, module: &str) -> bool {
    Command::new(python)
        .args(["-c", &format!("import {module}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn prepare(root: &Path, spec: &Spec) -> Result<Prepared> {
    let opts = LoadOptions {
        categorical: spec.categorical.iter().map(|c| (*c).to_string()).collect(),
        ..LoadOptions::default()
    };
    let mut notes = Vec::new();
    if !spec.categorical.is_empty() {
        notes.push(format!("{} read as categorical codes.", spec.categorical.join(", ")));
    }
    match spec.files {
        Files::Cv(file) => {
            let path = root.join("data").join(file);
            let data = data::load(&path, &opts)?;
            let folds = ltu::split::stratified_kfold(&data.y, data.n_classes(), FOLDS, SEED)
                .with_context(|| format!("{}: cannot make {FOLDS} folds", path.display()))?;
            let n = data.n_rows();
            let folds = folds
                .into_iter()
                .map(|test| Fold { train: ltu::split::complement(&test, n), test })
                .collect();
            Ok(Prepared {
                name: spec.name,
                data,
                folds,
                protocol: format!("{FOLDS}-fold stratified CV (`ltu::split::stratified_kfold`, seed {SEED})"),
                notes,
            })
        }
        Files::Split { train, test } => {
            let train_path = root.join("data").join(train);
            let test_path = root.join("data").join(test);
            let tr = data::load(&train_path, &opts)?;
            let (te, align) = data::load_with_schema(&test_path, &LoadOptions::default(), &tr.schema)?;
            if align.unseen_value_cells() > 0 || align.unseen_class_rows() > 0 {
                notes.push(format!(
                    "The test file has {} cells with values and {} rows with classes the training file lacks \
                     (read as unknown).",
                    align.unseen_value_cells(),
                    align.unseen_class_rows()
                ));
            }
            let (n_train, n_test) = (tr.n_rows(), te.n_rows());
            let mut x = tr.x;
            x.extend_from_slice(&te.x);
            let mut y = tr.y;
            y.extend_from_slice(&te.y);
            let data = Dataset { schema: te.schema, x, y, source: format!("{train} + {test}") };
            let folds =
                vec![Fold { train: (0..n_train).collect(), test: (n_train..n_train + n_test).collect() }];
            Ok(Prepared {
                name: spec.name,
                data,
                folds,
                protocol: format!(
                    "the fixed split: train on `{train}` ({n_train} rows), test on `{test}` ({n_test} rows, all \
                     432 possible examples, so it includes the training rows)"
                ),
                notes,
            })
        }
    }
}

/// ltu's substitute for a missing number in each numeric attribute, from the training rows
/// (`null` for categorical attributes: ltu reads a missing category as "unknown").
fn numeric_means(data: &Dataset, train: &[usize]) -> Vec<Value> {
    ltu::encode::input_specs(&data.subset(train))
        .iter()
        .map(|s| match s.kind {
            InputKind::Numeric { scale_exp } => {
                json!(f64::from(s.missing) / 10f64.powi(i32::from(scale_exp)))
            }
            InputKind::Categorical { .. } => Value::Null,
        })
        .collect()
}

fn folds_json(prepared: &[Prepared]) -> Value {
    let datasets: Vec<Value> = prepared
        .iter()
        .map(|p| {
            let (attributes, x) = data_json(&p.data);
            let folds: Vec<Value> = p
                .folds
                .iter()
                .map(|f| json!({"train": f.train, "test": f.test, "numeric_means": numeric_means(&p.data, &f.train)}))
                .collect();
            json!({
                "name": p.name,
                "source": p.data.source,
                "classes": p.data.schema.classes,
                "attributes": attributes,
                "x": x,
                "y": p.data.y,
                "folds": folds,
            })
        })
        .collect();
    json!({"seed": SEED, "datasets": datasets})
}

/// The data as the peer scripts read it: attribute kinds, and values as numbers with `null` for
/// missing (category values as their indices).
pub fn data_json(data: &Dataset) -> (Vec<Value>, Vec<Vec<Value>>) {
    let attributes = data
        .schema
        .attributes
        .iter()
        .map(|a| match &a.kind {
            AttrKind::Numeric { .. } => json!({"name": a.name, "kind": "numeric", "n_values": 0}),
            AttrKind::Categorical { values } => {
                json!({"name": a.name, "kind": "categorical", "n_values": values.len()})
            }
        })
        .collect();
    let x = (0..data.n_rows())
        .map(|r| data.row(r).iter().map(|&v| if v.is_nan() { Value::Null } else { json!(v) }).collect())
        .collect();
    (attributes, x)
}

fn write_json(path: &Path, value: &Value) -> Result<()> {
    let text = serde_json::to_string(value)?;
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

/// Every (dataset, algorithm, fold) on `jobs` threads. Returns outcomes indexed
/// `[dataset][algorithm][fold]`.
fn run_ltu(prepared: &[Prepared], algos: &[Algo], jobs: usize) -> Vec<Vec<Vec<Outcome>>> {
    let items: Vec<(usize, usize, usize)> = prepared
        .iter()
        .enumerate()
        .flat_map(|(d, p)| (0..algos.len()).flat_map(move |a| (0..p.folds.len()).map(move |f| (d, a, f))))
        .collect();
    let outcomes: Mutex<Vec<Vec<Vec<Option<Outcome>>>>> =
        Mutex::new(prepared.iter().map(|p| vec![vec![None; p.folds.len()]; algos.len()]).collect());
    // Summed fold time of each (dataset, algorithm).
    let spent: Mutex<BTreeMap<(usize, usize), Duration>> = Mutex::new(BTreeMap::new());
    let next = AtomicUsize::new(0);
    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(&(d, a, f)) = items.get(i) else { break };
                let over_budget = spent.lock().unwrap().get(&(d, a)).is_some_and(|t| *t > PAIR_BUDGET);
                let outcome = if start.elapsed() > LTU_DEADLINE {
                    Outcome::Skipped("the overall ltu time cap")
                } else if over_budget {
                    Outcome::Skipped("this algorithm's time cap on this dataset")
                } else {
                    let t = Instant::now();
                    let o = one_fold(&prepared[d], algos[a], f);
                    *spent.lock().unwrap().entry((d, a)).or_default() += t.elapsed();
                    o
                };
                let mut all = outcomes.lock().unwrap();
                all[d][a][f] = Some(outcome);
                if all[d][a].iter().all(Option::is_some) {
                    let done: Vec<Outcome> = all[d][a].iter().flatten().cloned().collect();
                    println!("  {:<8} {:<24} {}", algos[a].to_string(), prepared[d].name, summary(&done));
                }
            });
        }
    });
    outcomes
        .into_inner()
        .unwrap()
        .into_iter()
        .map(|per_algo| per_algo.into_iter().map(|folds| folds.into_iter().flatten().collect()).collect())
        .collect()
}

fn one_fold(p: &Prepared, algo: Algo, f: usize) -> Outcome {
    let options = Options::default();
    let setup = Setup { seed: SEED, ..Setup::new(algo, &options) };
    let fold = &p.folds[f];
    let start = Instant::now();
    let result =
        panic::catch_unwind(AssertUnwindSafe(|| evaluate::holdout(&p.data, &fold.train, &fold.test, &setup)));
    let seconds = start.elapsed().as_secs_f64();
    match result {
        Ok(Ok(h)) => Outcome::Done { accuracy: h.accuracy, bytes: h.trained.bytes.len(), seconds },
        Ok(Err(e)) => Outcome::Failed(format!("{e:#}")),
        Err(payload) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "(no message)".into());
            Outcome::Failed(format!("panicked: {msg}"))
        }
    }
}

/// One line for the console.
fn summary(folds: &[Outcome]) -> String {
    let accs: Vec<f64> = folds
        .iter()
        .filter_map(|o| match o {
            Outcome::Done { accuracy, .. } => Some(*accuracy),
            _ => None,
        })
        .collect();
    if accs.is_empty() {
        return problem(folds).unwrap_or_default();
    }
    let (m, s) = mean_std(&accs);
    let mut line = format!("{:.2}% ± {:.2} ({} folds)", 100.0 * m, 100.0 * s, accs.len());
    if let Some(p) = problem(folds) {
        let _ = write!(line, "; {p}");
    }
    line
}

/// What went wrong on the folds that did not finish, if any.
fn problem(folds: &[Outcome]) -> Option<String> {
    let missing = folds.iter().filter(|o| !matches!(o, Outcome::Done { .. })).count();
    let first = folds.iter().find(|o| !matches!(o, Outcome::Done { .. }))?;
    let n = folds.len();
    Some(match first {
        Outcome::Failed(e) => format!("failed on {missing} of {n} folds: {}", e.replace('\n', " ")),
        Outcome::Skipped(why) => format!("{missing} of {n} folds skipped by {why}"),
        Outcome::Done { .. } => unreachable!("found a fold that did not finish"),
    })
}

fn ltu_json(prepared: &[Prepared], algos: &[Algo], outcomes: &[Vec<Vec<Outcome>>]) -> Value {
    let rows: Vec<Value> = prepared
        .iter()
        .zip(outcomes)
        .flat_map(|(p, per_algo)| {
            algos.iter().zip(per_algo).map(|(algo, folds)| {
                let folds: Vec<Value> = folds
                    .iter()
                    .map(|o| match o {
                        Outcome::Done { accuracy, bytes, seconds } => {
                            json!({"accuracy": accuracy, "model_bytes": bytes, "seconds": seconds})
                        }
                        Outcome::Failed(e) => json!({"error": e}),
                        Outcome::Skipped(why) => json!({"skipped": why}),
                    })
                    .collect();
                json!({"dataset": p.name, "algo": algo, "folds": folds})
            })
        })
        .collect();
    json!({"seed": SEED, "results": rows})
}

/// One CART fold from the peers' JSON.
struct PeerFold {
    accuracy: f64,
    seconds: f64,
    nodes: f64,
    inputs: f64,
    bytes: f64,
    estimated: bool,
    layout_bytes: f64,
    note: Option<String>,
}

fn peer_folds(peers: &Value, name: &str) -> Result<Vec<PeerFold>> {
    let ds = peers["datasets"]
        .as_array()
        .and_then(|a| a.iter().find(|d| d["name"] == name))
        .with_context(|| format!("the peers' results have no dataset `{name}`"))?;
    let num = |v: &Value, k: &str| v[k].as_f64().with_context(|| format!("{name}: peer fold without `{k}`"));
    ds["folds"]
        .as_array()
        .context("peer dataset without folds")?
        .iter()
        .map(|f| {
            Ok(PeerFold {
                accuracy: num(f, "accuracy")?,
                seconds: num(f, "seconds")?,
                nodes: num(f, "nodes")?,
                inputs: num(f, "inputs")?,
                bytes: num(f, "emlearn_bytes")?,
                estimated: f["emlearn_estimated"].as_bool().unwrap_or(true),
                layout_bytes: num(f, "emlearn_layout_bytes")?,
                note: f["emlearn_note"].as_str().map(str::to_string),
            })
        })
        .collect()
}

struct RunInfo {
    command: String,
    jobs: usize,
    ltu_seconds: f64,
    peers_seconds: f64,
    total_seconds: f64,
    env_notes: Vec<String>,
}

/// The command as typed, `cargo xtask compare ...`.
fn command_line() -> String {
    let mut s = String::from("cargo xtask");
    for a in std::env::args().skip(1) {
        s.push(' ');
        s.push_str(&a);
    }
    s
}

fn capture(cmd: &mut Command) -> Option<String> {
    let out = cmd.stderr(Stdio::null()).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown (no model name in /proc/cpuinfo)".into())
}

fn pct(x: f64) -> String {
    format!("{:.2}", 100.0 * x)
}

fn ms(seconds: f64) -> String {
    let ms = 1000.0 * seconds;
    if ms < 10.0 {
        format!("{ms:.2} ms")
    } else if ms < 1000.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{seconds:.2} s")
    }
}

fn mean(xs: impl IntoIterator<Item = f64>) -> f64 {
    let (s, n) = xs.into_iter().fold((0.0, 0usize), |(s, n), x| (s + x, n + 1));
    s / n.max(1) as f64
}

/// Per (dataset, algorithm): the figures over the folds that finished, paired with CART on the
/// same folds.
struct Paired {
    folds: usize,
    of: usize,
    acc_mean: f64,
    acc_std: f64,
    /// Mean of (ltu − CART) accuracy over the paired folds.
    delta: f64,
    bytes: f64,
    bytes_ratio: f64,
    seconds: f64,
    time_ratio: f64,
}

fn paired(folds: &[Outcome], cart: &[PeerFold]) -> Option<Paired> {
    let done: Vec<(f64, usize, f64, &PeerFold)> = folds
        .iter()
        .zip(cart)
        .filter_map(|(o, c)| match o {
            Outcome::Done { accuracy, bytes, seconds } => Some((*accuracy, *bytes, *seconds, c)),
            _ => None,
        })
        .collect();
    if done.is_empty() {
        return None;
    }
    let accs: Vec<f64> = done.iter().map(|d| d.0).collect();
    let (acc_mean, acc_std) = mean_std(&accs);
    let bytes = mean(done.iter().map(|d| d.1 as f64));
    let seconds = mean(done.iter().map(|d| d.2));
    Some(Paired {
        folds: done.len(),
        of: folds.len(),
        acc_mean,
        acc_std,
        delta: mean(done.iter().map(|d| d.0 - d.3.accuracy)),
        bytes,
        bytes_ratio: bytes / mean(done.iter().map(|d| d.3.bytes)),
        seconds,
        time_ratio: seconds / mean(done.iter().map(|d| d.3.seconds)),
    })
}

/// One algorithm's record over the datasets, against CART.
#[derive(Default)]
struct Tally {
    better: usize,
    equal: usize,
    worse: usize,
    bytes_ratios: Vec<f64>,
    /// Accuracy differences in percentage points.
    deltas: Vec<f64>,
}

fn geomean(xs: &[f64]) -> f64 {
    (xs.iter().map(|x| x.ln()).sum::<f64>() / xs.len().max(1) as f64).exp()
}

fn render(
    root: &Path,
    prepared: &[Prepared],
    algos: &[Algo],
    outcomes: &[Vec<Vec<Outcome>>],
    peers: &Value,
    run: &RunInfo,
) -> Result<String> {
    let cart: Vec<Vec<PeerFold>> =
        prepared.iter().map(|p| peer_folds(peers, p.name)).collect::<Result<_>>()?;
    let git = |args: &[&str]| capture(Command::new("git").current_dir(root).args(args));
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into());
    let dirty = git(&["status", "--porcelain"]).is_some_and(|s| !s.is_empty());
    let date =
        capture(Command::new("date").args(["-u", "+%Y-%m-%d %H:%M UTC"])).unwrap_or_else(|| "unknown".into());
    let rustc = capture(Command::new("rustc").arg("-V")).unwrap_or_else(|| "unknown".into());
    let nproc = std::thread::available_parallelism().map_or(0, |n| n.get());
    let s = |k: &str| peers[k].as_str().unwrap_or("not installed").to_string();
    let any_estimate = cart.iter().flatten().any(|f| f.estimated);

    let mut r = String::new();
    let w = &mut r;
    writeln!(w, "# Benchmarks: ltu against scikit-learn's CART and emlearn")?;
    writeln!(w)?;
    writeln!(w, "Generated by `{}`; do not edit by hand, rerun the command.", run.command)?;
    writeln!(w, "Regenerate the full report with `cargo xtask compare` (a quick check: `cargo xtask compare --quick`).")?;
    writeln!(w)?;
    writeln!(w, "## How this was measured")?;
    writeln!(w)?;
    writeln!(
        w,
        "- Machine: {nproc} cores (`available_parallelism`), CPU `{}` (/proc/cpuinfo).",
        cpu_model()
    )?;
    writeln!(
        w,
        "- Date {date}; git commit `{commit}`{}; {rustc}; Python {}, scikit-learn {}, numpy {}, emlearn {}.",
        if dirty { " **with uncommitted changes in the working tree**" } else { "" },
        s("python"),
        s("sklearn"),
        s("numpy"),
        s("emlearn")
    )?;
    writeln!(
        w,
        "- ltu: every fold through `ltu::evaluate::holdout` (train on the training rows with the algorithm's \
         default options and seed {SEED}, export, then predict the held-out rows with `ltu-runtime`), \
         {} folds at a time. Peer: `{}` on **the same folds** (`target/compare/folds.json`, written by the \
         command and read by `bench/peers.py`), one fold at a time after ltu finished.",
        run.jobs,
        s("classifier")
    )?;
    writeln!(
        w,
        "- Inputs: CART sees ltu's data exactly as ltu loaded it. Categorical attributes are one-hot; a missing \
         number becomes the training fold's mean (ltu's substitute, computed by `ltu::encode`); a missing \
         category becomes all zeros, which is what ltu's model sees for an unknown category (every equality \
         feature off). So there is no mode imputation on either side."
    )?;
    writeln!(
        w,
        "- Accuracy: held-out accuracy, mean ± sample standard deviation over folds, in percent. \
         Δ is the mean over folds of (ltu − CART) in percentage points, on the folds where ltu finished."
    )?;
    writeln!(
        w,
        "- Model bytes: ltu's model file as the runtime reads it from flash (format header, CRC, inputs, \
         features, units, structure; no names). CART bytes: the same scikit-learn tree as emlearn C code \
         (`emlearn.convert(..., method=\"loadable\")`, its int16 node layout), compiled with `gcc -Os`, summing \
         the node, root and leaf arrays read with `nm -S`, plus the 28-byte `EmlTrees` descriptor of a 32-bit \
         target.{} Neither figure includes the evaluator's code.",
        if any_estimate { " Figures marked * are estimates from emlearn's node layout (see the notes)." } else { "" }
    )?;
    writeln!(
        w,
        "- Time: wall clock per fold. ltu: encoding, training, export, the runtime check on every training \
         row, and predicting the test rows. CART: one-hot encoding, `fit`, `predict` (not the emlearn \
         conversion)."
    )?;
    writeln!(
        w,
        "- Caps: an algorithm's remaining folds on a dataset are skipped once its folds there have taken {} s \
         together, and every fold not started after {} s of ltu training is skipped; skipped folds are \
         listed below and left out of the comparison.",
        PAIR_BUDGET.as_secs(),
        LTU_DEADLINE.as_secs()
    )?;
    writeln!(
        w,
        "- This run took {:.0} s: ltu {:.0} s, peers {:.0} s (the rest: loading, venv checks).",
        run.total_seconds, run.ltu_seconds, run.peers_seconds
    )?;
    for n in &run.env_notes {
        writeln!(w, "- {n}")?;
    }
    writeln!(w)?;

    // Summary.
    writeln!(w, "## Summary")?;
    writeln!(w)?;
    writeln!(w, "Each ltu cell: accuracy (Δ vs CART), model bytes (× CART's emlearn bytes).")?;
    writeln!(w)?;
    let mut head = String::from("| dataset | rows | CART accuracy, emlearn bytes |");
    let mut rule = String::from("|---|---:|---|");
    for a in algos {
        let _ = write!(head, " ltu {a} |");
        rule.push_str("---|");
    }
    writeln!(w, "{head}\n{rule}")?;
    let mut per_algo: Vec<Tally> = (0..algos.len()).map(|_| Tally::default()).collect();
    for (d, p) in prepared.iter().enumerate() {
        let c = &cart[d];
        let (cm, _) = mean_std(&c.iter().map(|f| f.accuracy).collect::<Vec<_>>());
        let cb = mean(c.iter().map(|f| f.bytes));
        let star = if c.iter().any(|f| f.estimated) { "*" } else { "" };
        let mut line = format!("| {} | {} | {}%, {cb:.0}{star} B |", p.name, p.data.n_rows(), pct(cm));
        for (a, _) in algos.iter().enumerate() {
            match paired(&outcomes[d][a], c) {
                Some(x) => {
                    let partial =
                        if x.folds < x.of { format!(" [{}/{} folds]", x.folds, x.of) } else { String::new() };
                    let _ = write!(
                        line,
                        " {}% ({:+.2} pp), {:.0} B ({:.2}×){partial} |",
                        pct(x.acc_mean),
                        100.0 * x.delta,
                        x.bytes,
                        x.bytes_ratio
                    );
                    let t = &mut per_algo[a];
                    if x.delta > 1e-12 {
                        t.better += 1;
                    } else if x.delta < -1e-12 {
                        t.worse += 1;
                    } else {
                        t.equal += 1;
                    }
                    t.bytes_ratios.push(x.bytes_ratio);
                    t.deltas.push(100.0 * x.delta);
                }
                None => {
                    let why = problem(&outcomes[d][a]).unwrap_or_default();
                    let short =
                        if why.starts_with("not implemented") { "not implemented" } else { "no result" };
                    let _ = write!(line, " {short} |");
                }
            }
        }
        writeln!(w, "{line}")?;
    }
    writeln!(w)?;
    for (a, Tally { better: win, equal: tie, worse: loss, bytes_ratios: ratios, deltas }) in
        algos.iter().zip(&per_algo)
    {
        if ratios.is_empty() {
            writeln!(w, "- **ltu {a}**: no results on any dataset (see below).")?;
            continue;
        }
        let mut sorted = deltas.clone();
        sorted.sort_by(f64::total_cmp);
        writeln!(
            w,
            "- **ltu {a}** on {} datasets: more accurate than CART on {win}, equal on {tie}, less accurate on \
             {loss} (mean Δ {:+.2} pp, worst {:+.2} pp, best {:+.2} pp); model bytes {:.2}× CART's emlearn \
             bytes (geometric mean; range {:.2}× to {:.2}×).",
            ratios.len(),
            mean(deltas.iter().copied()),
            sorted[0],
            sorted[sorted.len() - 1],
            geomean(ratios),
            ratios.iter().copied().fold(f64::INFINITY, f64::min),
            ratios.iter().copied().fold(0.0, f64::max),
        )?;
    }
    writeln!(w)?;

    // Per dataset.
    writeln!(w, "## Per dataset")?;
    writeln!(w)?;
    for (d, p) in prepared.iter().enumerate() {
        let c = &cart[d];
        let attrs = &p.data.schema.attributes;
        let n_cat = attrs.iter().filter(|a| matches!(a.kind, AttrKind::Categorical { .. })).count();
        let missing = p.data.x.iter().filter(|v| v.is_nan()).count();
        writeln!(w, "### {}", p.name)?;
        writeln!(w)?;
        writeln!(
            w,
            "{} rows, {} attributes ({} numeric, {n_cat} categorical; {} inputs for CART after one-hot), {} classes, \
             {missing} missing cells; {}.",
            p.data.n_rows(),
            attrs.len(),
            attrs.len() - n_cat,
            mean(c.iter().map(|f| f.inputs)),
            p.data.n_classes(),
            p.protocol
        )?;
        for n in &p.notes {
            writeln!(w, "{n}")?;
        }
        writeln!(w)?;
        writeln!(
            w,
            "| model | accuracy % | Δ vs CART | model bytes | × CART bytes | tree nodes | time per fold | × CART time |"
        )?;
        writeln!(w, "|---|---|---:|---:|---:|---:|---:|---:|")?;
        for (a, algo) in algos.iter().enumerate() {
            match paired(&outcomes[d][a], c) {
                Some(x) => {
                    let partial =
                        if x.folds < x.of { format!(" ({}/{} folds)", x.folds, x.of) } else { String::new() };
                    writeln!(
                        w,
                        "| ltu {algo}{partial} | {} ± {} | {:+.2} pp | {:.0} | {:.2} | — | {} | {:.2} |",
                        pct(x.acc_mean),
                        pct(x.acc_std),
                        100.0 * x.delta,
                        x.bytes,
                        x.bytes_ratio,
                        ms(x.seconds),
                        x.time_ratio
                    )?;
                }
                None => {
                    writeln!(
                        w,
                        "| ltu {algo} | {} | | | | | | |",
                        problem(&outcomes[d][a]).unwrap_or_default()
                    )?;
                }
            }
        }
        let (cm, cs) = mean_std(&c.iter().map(|f| f.accuracy).collect::<Vec<_>>());
        let star = if c.iter().any(|f| f.estimated) { "*" } else { "" };
        writeln!(
            w,
            "| CART → emlearn | {} ± {} | | {:.0}{star} | 1 | {:.1} | {} | 1 |",
            pct(cm),
            pct(cs),
            mean(c.iter().map(|f| f.bytes)),
            mean(c.iter().map(|f| f.nodes)),
            ms(mean(c.iter().map(|f| f.seconds)))
        )?;
        let problems: Vec<String> = algos
            .iter()
            .enumerate()
            .filter(|(a, _)| paired(&outcomes[d][*a], c).is_some())
            .filter_map(|(a, algo)| problem(&outcomes[d][a]).map(|p| format!("ltu {algo}: {p}")))
            .collect();
        let mut notes: Vec<String> = c.iter().filter_map(|f| f.note.clone()).collect();
        notes.dedup();
        if c.iter().any(|f| !f.estimated && (f.bytes - f.layout_bytes).abs() > 0.5) {
            notes.push("the compiled emlearn size differs from its layout formula on some folds".into());
        }
        if !problems.is_empty() || !notes.is_empty() {
            writeln!(w)?;
            for p in problems {
                writeln!(w, "- {p}")?;
            }
            for n in notes {
                writeln!(w, "- * emlearn size estimated from its node layout: {n}")?;
            }
        }
        writeln!(w)?;
    }

    writeln!(w, "## Caveats")?;
    writeln!(w)?;
    writeln!(
        w,
        "- Ten folds are a small sample: a Δ smaller than the fold standard deviations is not evidence either \
         way. The MONK's rows are one fixed split, so they have no standard deviation."
    )?;
    writeln!(
        w,
        "- The CART accuracy is scikit-learn's float tree. emlearn's loadable trees compare int16 inputs with \
         int16 thresholds, so on data with fractional values the inputs must first be scaled to integers \
         (ltu's format stores that scaling itself); emlearn's own accuracy was not measured here."
    )?;
    writeln!(
        w,
        "- Times are wall clock on a shared 2-core machine; ltu's folds ran {} at a time while the peers ran \
         alone, and other work on the machine adds noise to both. Treat the time ratios as an order of \
         magnitude.",
        run.jobs
    )?;
    writeln!(
        w,
        "- Every ltu algorithm runs with its default options; CART with scikit-learn's defaults (fully grown, \
         no pruning). Neither side was tuned per dataset."
    )?;
    writeln!(
        w,
        "- zoo and led7digit keep their 0/1 columns numeric, as `ltu::data::load` infers them (for a binary \
         column this gives CART the same splits as one-hot); MONK's a1..a6 are read as categorical codes."
    )?;
    Ok(r)
}

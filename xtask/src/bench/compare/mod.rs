//! `cargo xtask compare`: ltu's learners against scikit-learn's CART, logistic regression, MLP and
//! random forest on the same folds, the size of that CART tree as emlearn C code, and issue 12's
//! accuracy goals checked on the run. Writes `docs/BENCHMARKS.md`.
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

use crate::bench::python::{data_json, ensure_venv};
use crate::cmd;

/// Folds of the cross-validation.
const FOLDS: usize = 10;
/// Seed of the fold assignment and of every ltu algorithm.
const SEED: u64 = 0;
/// Summed fold time after which an algorithm's remaining folds on a dataset are skipped.
const PAIR_BUDGET: Duration = Duration::from_secs(300);
/// Wall-clock time after which every ltu fold not yet started is skipped.
const LTU_DEADLINE: Duration = Duration::from_secs(12 * 60);
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
    // The tree measured is the one at the start (xtask is built from it): a file edited while
    // the folds run does not make the figures those of uncommitted code.
    let (commit, dirty) = git_state(root);
    let specs = select(args)?;
    // `--algos` with fewer than every learner is partial too: it must not replace the committed
    // report, whose per-learner sections would go missing.
    let every_algo = args.algos.is_empty() || Algo::ALL.iter().all(|a| args.algos.contains(a));
    let full = !args.quick && args.datasets.is_empty() && every_algo;
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

    println!("peers: scikit-learn CART (and its emlearn size), logistic regression, MLP, random forest on the same folds");
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
        full,
        command: command_line(),
        jobs,
        ltu_seconds,
        peers_seconds,
        total_seconds: started.elapsed().as_secs_f64(),
        env_notes,
        commit,
        dirty,
    };
    let (report, goal_lines) = render(&prepared, algos, &outcomes, &peers, &run)?;
    let out = match &args.out {
        Some(p) => p.clone(),
        None if full => root.join(REPORT),
        None => out_dir.join("BENCHMARKS.md"),
    };
    std::fs::write(&out, report).with_context(|| format!("writing {}", out.display()))?;
    println!("goals (issue 12):");
    for g in goal_lines {
        println!("  {}", g.replace("**", ""));
    }
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

/// A peer other than CART, as `bench/peers.py` describes it.
struct OtherPeer {
    key: String,
    /// Its name in the report.
    label: String,
    /// scikit-learn's repr of the unfitted model: every setting that differs from the default.
    classifier: String,
}

fn other_peers(peers: &Value) -> Result<Vec<OtherPeer>> {
    peers["peers"]
        .as_array()
        .context("the peers' results list no `peers`")?
        .iter()
        .map(|p| {
            let text =
                |k: &str| p[k].as_str().map(str::to_string).with_context(|| format!("peer without `{k}`"));
            Ok(OtherPeer { key: text("key")?, label: text("label")?, classifier: text("classifier")? })
        })
        .collect()
}

/// One fold of a peer other than CART.
struct PeerRun {
    accuracy: f64,
    seconds: f64,
    converged: bool,
    n_iter: Option<u64>,
}

/// A dataset's folds of every other peer, indexed `[peer][fold]`.
fn peer_runs(peers: &Value, name: &str, others: &[OtherPeer]) -> Result<Vec<Vec<PeerRun>>> {
    let ds = peers["datasets"]
        .as_array()
        .and_then(|a| a.iter().find(|d| d["name"] == name))
        .with_context(|| format!("the peers' results have no dataset `{name}`"))?;
    others
        .iter()
        .map(|o| {
            let num = |v: &Value, k: &str| {
                v[k].as_f64().with_context(|| format!("{name}: {} fold without `{k}`", o.label))
            };
            ds["peers"][&o.key]
                .as_array()
                .with_context(|| format!("{name}: no results of {}", o.label))?
                .iter()
                .map(|f| {
                    Ok(PeerRun {
                        accuracy: num(f, "accuracy")?,
                        seconds: num(f, "seconds")?,
                        converged: f["converged"].as_bool().unwrap_or(false),
                        n_iter: f["n_iter"].as_u64(),
                    })
                })
                .collect()
        })
        .collect()
}

/// A peer's figures on one dataset, against CART on the same folds.
struct PeerStats {
    acc_mean: f64,
    acc_std: f64,
    /// Mean of (peer − CART) accuracy over the folds.
    delta: f64,
    seconds: f64,
    time_ratio: f64,
    not_converged: usize,
    max_iter: Option<u64>,
}

fn peer_stats(runs: &[PeerRun], cart: &[PeerFold]) -> PeerStats {
    let (acc_mean, acc_std) = mean_std(&runs.iter().map(|r| r.accuracy).collect::<Vec<_>>());
    let seconds = mean(runs.iter().map(|r| r.seconds));
    PeerStats {
        acc_mean,
        acc_std,
        delta: mean(runs.iter().zip(cart).map(|(r, c)| r.accuracy - c.accuracy)),
        seconds,
        time_ratio: seconds / mean(cart.iter().map(|c| c.seconds)),
        not_converged: runs.iter().filter(|r| !r.converged).count(),
        max_iter: runs.iter().filter_map(|r| r.n_iter).max(),
    }
}

struct RunInfo {
    /// Every dataset (not `--quick`, not `--datasets`).
    full: bool,
    command: String,
    jobs: usize,
    ltu_seconds: f64,
    peers_seconds: f64,
    total_seconds: f64,
    env_notes: Vec<String>,
    /// `git rev-parse --short=12 HEAD` when the run started.
    commit: String,
    /// Whether the working tree had uncommitted changes when the run started.
    dirty: bool,
}

/// The commit checked out and whether the working tree has uncommitted changes.
fn git_state(root: &Path) -> (String, bool) {
    let git = |args: &[&str]| capture(Command::new("git").current_dir(root).args(args));
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into());
    (commit, git(&["status", "--porcelain"]).is_some_and(|s| !s.is_empty()))
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

impl Tally {
    /// One dataset's Δ vs CART in percentage points, and the bytes ratio for ltu.
    fn record(&mut self, delta_pp: f64, bytes_ratio: Option<f64>) {
        if delta_pp > 1e-10 {
            self.better += 1;
        } else if delta_pp < -1e-10 {
            self.worse += 1;
        } else {
            self.equal += 1;
        }
        self.bytes_ratios.extend(bytes_ratio);
        self.deltas.push(delta_pp);
    }

    /// "more accurate than CART on …, equal on …, less accurate on … (mean Δ …)".
    fn against_cart(&self) -> String {
        let mut sorted = self.deltas.clone();
        sorted.sort_by(f64::total_cmp);
        format!(
            "more accurate than CART on {}, equal on {}, less accurate on {} (mean Δ {:+.2} pp, worst {:+.2} pp, \
             best {:+.2} pp)",
            self.better,
            self.equal,
            self.worse,
            mean(self.deltas.iter().copied()),
            sorted.first().copied().unwrap_or(0.0),
            sorted.last().copied().unwrap_or(0.0),
        )
    }
}

fn geomean(xs: &[f64]) -> f64 {
    (xs.iter().map(|x| x.ln()).sum::<f64>() / xs.len().max(1) as f64).exp()
}

fn render(
    prepared: &[Prepared],
    algos: &[Algo],
    outcomes: &[Vec<Vec<Outcome>>],
    peers: &Value,
    run: &RunInfo,
) -> Result<(String, Vec<String>)> {
    let cart: Vec<Vec<PeerFold>> =
        prepared.iter().map(|p| peer_folds(peers, p.name)).collect::<Result<_>>()?;
    let others = other_peers(peers)?;
    // [dataset][peer][fold]
    let runs: Vec<Vec<Vec<PeerRun>>> =
        prepared.iter().map(|p| peer_runs(peers, p.name, &others)).collect::<Result<_>>()?;
    let labels: Vec<&str> = others.iter().map(|o| o.label.as_str()).collect();
    let (commit, dirty) = (&run.commit, run.dirty);
    let date =
        capture(Command::new("date").args(["-u", "+%Y-%m-%d %H:%M UTC"])).unwrap_or_else(|| "unknown".into());
    let rustc = capture(Command::new("rustc").arg("-V")).unwrap_or_else(|| "unknown".into());
    let nproc = std::thread::available_parallelism().map_or(0, |n| n.get());
    let s = |k: &str| peers[k].as_str().unwrap_or("not installed").to_string();
    let any_estimate = cart.iter().flatten().any(|f| f.estimated);

    let mut r = String::new();
    let w = &mut r;
    writeln!(w, "# Benchmarks: ltu against scikit-learn's CART, {} and emlearn", labels.join(", "))?;
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
         {} folds at a time. Peers, on **the same folds** (`target/compare/folds.json`, written by the \
         command and read by `bench/peers.py`), one fold at a time after ltu finished, with BLAS and OpenMP \
         limited to {} thread (`threadpoolctl`): CART `{}`{}.",
        run.jobs,
        peers["threads"].as_u64().map_or_else(|| "an unrecorded number of".into(), |n| n.to_string()),
        s("classifier"),
        others.iter().map(|o| format!("; {} `{}`", o.label, o.classifier)).collect::<String>()
    )?;
    writeln!(
        w,
        "- Peer settings: scikit-learn's defaults except what the settings above name (its repr lists exactly \
         the parameters that differ from the defaults). Logistic regression and the MLP standardize their \
         inputs with a `StandardScaler` fitted on the training fold, inside the pipeline; their `max_iter` is \
         raised so that the fits converge, and a fold whose fit still raised scikit-learn's \
         `ConvergenceWarning` is listed under its dataset."
    )?;
    let iterations: Vec<String> = others
        .iter()
        .enumerate()
        .filter_map(|(o, peer)| {
            let all = runs.iter().flat_map(|r| &r[o]);
            let most = all.clone().filter_map(|f| f.n_iter).max()?;
            let stuck = all.clone().filter(|f| !f.converged).count();
            let folds = all.count();
            Some(if stuck == 0 {
                format!("{} converged on all {folds} folds, in at most {most} iterations", peer.label)
            } else {
                format!(
                    "{} did not converge on {stuck} of {folds} folds (at most {most} iterations on any fold)",
                    peer.label
                )
            })
        })
        .collect();
    if !iterations.is_empty() {
        writeln!(w, "- Convergence in this run: {}.", iterations.join("; "))?;
    }
    writeln!(
        w,
        "- Inputs: every peer sees ltu's data exactly as ltu loaded it, encoded the same way for all of them. Categorical attributes are one-hot; a missing \
         number becomes the training fold's mean (ltu's substitute, computed by `ltu::encode`); a missing \
         category becomes all zeros, which is what ltu's model sees for an unknown category (every equality \
         feature off). So there is no mode imputation on either side."
    )?;
    writeln!(
        w,
        "- Accuracy: held-out accuracy, mean ± sample standard deviation over folds, in percent. \
         Δ is the mean over folds of (model − CART) in percentage points, on the folds where the model finished \
         (the peers run every fold)."
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
         row, and predicting the test rows. Peers: one-hot encoding, `fit` (with the scaling, for the \
         pipelines), `predict` (for CART not the emlearn conversion)."
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
    writeln!(
        w,
        "Each peer cell: accuracy (Δ vs CART). Each ltu cell: accuracy (Δ vs CART), model bytes (× CART's \
         emlearn bytes). Issue 12's goals are checked on these figures in the next section."
    )?;
    writeln!(w)?;
    let mut head = String::from("| dataset | rows | CART accuracy, emlearn bytes |");
    let mut rule = String::from("|---|---:|---|");
    for l in &labels {
        let _ = write!(head, " {l} |");
        rule.push_str("---|");
    }
    for a in algos {
        let _ = write!(head, " ltu {a} |");
        rule.push_str("---|");
    }
    writeln!(w, "{head}\n{rule}")?;
    let mut per_algo: Vec<Tally> = (0..algos.len()).map(|_| Tally::default()).collect();
    let mut per_peer: Vec<Tally> = (0..others.len()).map(|_| Tally::default()).collect();
    for (d, p) in prepared.iter().enumerate() {
        let c = &cart[d];
        let (cm, _) = mean_std(&c.iter().map(|f| f.accuracy).collect::<Vec<_>>());
        let cb = mean(c.iter().map(|f| f.bytes));
        let star = if c.iter().any(|f| f.estimated) { "*" } else { "" };
        let mut line = format!("| {} | {} | {}%, {cb:.0}{star} B |", p.name, p.data.n_rows(), pct(cm));
        for (o, r) in runs[d].iter().enumerate() {
            let x = peer_stats(r, c);
            let _ = write!(line, " {}% ({:+.2} pp) |", pct(x.acc_mean), 100.0 * x.delta);
            per_peer[o].record(100.0 * x.delta, None);
        }
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
                    per_algo[a].record(100.0 * x.delta, Some(x.bytes_ratio));
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
    for (o, t) in others.iter().zip(&per_peer) {
        if t.deltas.is_empty() {
            continue;
        }
        writeln!(w, "- **{}** on {} datasets: {}.", o.label, t.deltas.len(), t.against_cart())?;
    }
    for (a, t) in algos.iter().zip(&per_algo) {
        let Tally { bytes_ratios: ratios, .. } = t;
        if ratios.is_empty() {
            writeln!(w, "- **ltu {a}**: no results on any dataset (see below).")?;
            continue;
        }
        writeln!(
            w,
            "- **ltu {a}** on {} datasets: {}; model bytes {:.2}× CART's emlearn bytes (geometric mean; range \
             {:.2}× to {:.2}×).",
            ratios.len(),
            t.against_cart(),
            geomean(ratios),
            ratios.iter().copied().fold(f64::INFINITY, f64::min),
            ratios.iter().copied().fold(0.0, f64::max),
        )?;
    }
    writeln!(w)?;

    let goal_lines = goals(w, prepared, algos, outcomes, &cart, &others, &runs, run.full)?;

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
        for (o, r) in others.iter().zip(&runs[d]) {
            let x = peer_stats(r, c);
            writeln!(
                w,
                "| {} | {} ± {} | {:+.2} pp | — | — | — | {} | {:.2} |",
                o.label,
                pct(x.acc_mean),
                pct(x.acc_std),
                100.0 * x.delta,
                ms(x.seconds),
                x.time_ratio
            )?;
        }
        let mut problems: Vec<String> = algos
            .iter()
            .enumerate()
            .filter(|(a, _)| paired(&outcomes[d][*a], c).is_some())
            .filter_map(|(a, algo)| problem(&outcomes[d][a]).map(|p| format!("ltu {algo}: {p}")))
            .collect();
        for (o, r) in others.iter().zip(&runs[d]) {
            let x = peer_stats(r, c);
            if x.not_converged > 0 {
                problems.push(format!(
                    "{}: scikit-learn's `ConvergenceWarning` on {} of {} folds (up to {} iterations); those folds \
                     are counted as they are",
                    o.label,
                    x.not_converged,
                    r.len(),
                    x.max_iter.map_or_else(|| "?".into(), |n| n.to_string())
                ));
            }
        }
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
         no pruning), the other peers with the settings above. Neither side was tuned per dataset. The \
         random forest's 10 trees and the MLP's 100 hidden units are not microcontroller-sized models: they \
         are accuracy references, and their sizes were not measured."
    )?;
    writeln!(
        w,
        "- zoo and led7digit keep their 0/1 columns numeric, as `ltu::data::load` infers them (for a binary \
         column this gives CART the same splits as one-hot); MONK's a1..a6 are read as categorical codes."
    )?;
    Ok((r, goal_lines))
}

/// Accuracies (fractions) this close count as equal when a goal is checked: fold accuracies are
/// ratios of counts, and their means differ from exact ties by rounding only.
const TIE: f64 = 1e-9;
/// Issue 12: no dataset more than this many percentage points under CART, for any learner.
const MAX_PP_UNDER_CART: f64 = 2.0;

fn met(ok: bool) -> &'static str {
    if ok {
        "**met**"
    } else {
        "**not met**"
    }
}

/// One ltu learner's figures for the goals: its datasets, and the peers on the same datasets and
/// folds.
struct LearnerMeans {
    datasets: usize,
    /// Datasets where some folds did not finish.
    partial: usize,
    /// Datasets without any result.
    missing: Vec<&'static str>,
    ltu: f64,
    lr: f64,
    mlp: f64,
    cart: f64,
}

fn learner_means(
    prepared: &[Prepared],
    outcomes: &[Vec<Vec<Outcome>>],
    a: usize,
    cart: &[Vec<PeerFold>],
    runs: &[Vec<Vec<PeerRun>>],
    lr: usize,
    mlp: usize,
) -> LearnerMeans {
    let (mut ltu, mut lrs, mut mlps, mut carts) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut partial, mut missing) = (0, Vec::new());
    for (d, p) in prepared.iter().enumerate() {
        let folds = &outcomes[d][a];
        let Some(x) = paired(folds, &cart[d]) else {
            missing.push(p.name);
            continue;
        };
        if x.folds < x.of {
            partial += 1;
        }
        let done: Vec<usize> =
            (0..folds.len()).filter(|&f| matches!(folds[f], Outcome::Done { .. })).collect();
        ltu.push(x.acc_mean);
        lrs.push(mean(done.iter().map(|&f| runs[d][lr][f].accuracy)));
        mlps.push(mean(done.iter().map(|&f| runs[d][mlp][f].accuracy)));
        carts.push(mean(done.iter().map(|&f| cart[d][f].accuracy)));
    }
    LearnerMeans {
        datasets: ltu.len(),
        partial,
        missing,
        ltu: mean(ltu),
        lr: mean(lrs),
        mlp: mean(mlps),
        cart: mean(carts),
    }
}

/// "over the same 17 datasets" or "over the 8 datasets where hsi has results (none on …)".
fn over(algo: Algo, m: &LearnerMeans) -> String {
    let mut s = if m.missing.is_empty() {
        format!("over the same {} datasets", m.datasets)
    } else {
        format!(
            "over the {} datasets where {algo} has results (of {}; none on {})",
            m.datasets,
            m.datasets + m.missing.len(),
            m.missing.join(", ")
        )
    };
    if m.partial > 0 {
        let _ = write!(
            s,
            "; on {} of them {algo} finished only some folds, and the peers are averaged over those",
            m.partial
        );
    }
    s
}

/// The "Goals (issue 12)" section; returns its goal lines for the console.
#[allow(clippy::too_many_arguments)]
fn goals(
    w: &mut String,
    prepared: &[Prepared],
    algos: &[Algo],
    outcomes: &[Vec<Vec<Outcome>>],
    cart: &[Vec<PeerFold>],
    others: &[OtherPeer],
    runs: &[Vec<Vec<PeerRun>>],
    full: bool,
) -> Result<Vec<String>> {
    let find = |key: &str| {
        others.iter().position(|o| o.key == key).with_context(|| format!("the peers' results lack `{key}`"))
    };
    let (lr, mlp) = (find("lr")?, find("mlp")?);
    let (lr_label, mlp_label) = (&others[lr].label, &others[mlp].label);
    let means: Vec<LearnerMeans> =
        (0..algos.len()).map(|a| learner_means(prepared, outcomes, a, cart, runs, lr, mlp)).collect();
    let mut lines = Vec::new();

    writeln!(w, "## Goals (issue 12)")?;
    writeln!(w)?;
    writeln!(
        w,
        "> Accuracy, 10-fold CV on the shared datasets: the mean of ptree and the mean of ndl each ≥ logistic \
         regression's, the mean over datasets of the best ltu learner on each ≥ the MLP's mean, and no dataset \
         more than 2 points under CART for any learner's default."
    )?;
    writeln!(w)?;
    writeln!(
        w,
        "Checked on this run's figures. A dataset's accuracy is its mean over folds (MONK's: the one fixed \
         split), and a mean over datasets weighs every dataset equally. A learner is compared with the peers \
         on the datasets and folds where it has results. Means that agree to within {TIE:e} count as equal \
         (met)."
    )?;
    if !full {
        writeln!(w)?;
        writeln!(
            w,
            "**A partial run** ({} of {} datasets, {} of {} learners): the lines below check the goal on \
             these only.",
            prepared.len(),
            DATASETS.len(),
            algos.len(),
            Algo::ALL.len()
        )?;
    }
    writeln!(w)?;
    writeln!(
        w,
        "| ltu learner | datasets | ltu mean | {lr_label} mean | {mlp_label} mean | CART mean | ≥ {lr_label} | ≥ {mlp_label} |"
    )?;
    writeln!(w, "|---|---:|---:|---:|---:|---:|---|---|")?;
    let yes = |ok: bool| if ok { "yes" } else { "no" };
    for (algo, m) in algos.iter().zip(&means) {
        if m.datasets == 0 {
            writeln!(w, "| {algo} | 0 | no result | | | | | |")?;
            continue;
        }
        writeln!(
            w,
            "| {algo} | {}{} | {}% | {}% | {}% | {}% | {} ({:+.2} pp) | {} ({:+.2} pp) |",
            m.datasets,
            if m.missing.is_empty() { String::new() } else { format!(" of {}", prepared.len()) },
            pct(m.ltu),
            pct(m.lr),
            pct(m.mlp),
            pct(m.cart),
            yes(m.ltu >= m.lr - TIE),
            100.0 * (m.ltu - m.lr),
            yes(m.ltu >= m.mlp - TIE),
            100.0 * (m.ltu - m.mlp),
        )?;
    }
    let fewer: Vec<String> = algos
        .iter()
        .zip(&means)
        .filter(|(_, m)| !m.missing.is_empty() && m.datasets > 0)
        .map(|(algo, m)| {
            format!("{algo} has results on {} datasets only (none on {})", m.datasets, m.missing.join(", "))
        })
        .collect();
    writeln!(w)?;
    if !fewer.is_empty() {
        writeln!(w, "The peers' means in a row are over that learner's datasets: {}.", fewer.join("; "))?;
        writeln!(w)?;
    }

    // Goal 1: ptree's and ndl's means against logistic regression's.
    for name in ["ptree", "ndl"] {
        let line = match algos.iter().position(|a| a.to_string() == name) {
            None => {
                format!("{name} mean ≥ {lr_label}'s: not checked, {name} was not among this run's algorithms")
            }
            Some(a) if means[a].datasets == 0 => {
                format!("{name} mean ≥ {lr_label}'s: **not met**, {name} has no result on any dataset")
            }
            Some(a) => {
                let m = &means[a];
                format!(
                    "{name} mean ≥ {lr_label}'s: {} — {name} {}% vs {lr_label} {}% ({:+.2} pp), {}",
                    met(m.ltu >= m.lr - TIE),
                    pct(m.ltu),
                    pct(m.lr),
                    100.0 * (m.ltu - m.lr),
                    over(algos[a], m)
                )
            }
        };
        lines.push(line);
    }

    // Goal 2: the best ltu learner on each dataset, averaged, against the MLP's mean.
    let mut best: Vec<(&str, f64, Vec<String>, bool)> = Vec::new(); // dataset, accuracy, learners, partial
    let mut no_ltu = Vec::new();
    for (d, p) in prepared.iter().enumerate() {
        let results: Vec<(Algo, Paired)> = algos
            .iter()
            .enumerate()
            .filter_map(|(a, algo)| paired(&outcomes[d][a], &cart[d]).map(|x| (*algo, x)))
            .collect();
        let Some(top) = results.iter().map(|(_, x)| x.acc_mean).max_by(f64::total_cmp) else {
            no_ltu.push(p.name);
            continue;
        };
        let winners: Vec<&(Algo, Paired)> = results.iter().filter(|(_, x)| x.acc_mean >= top - TIE).collect();
        best.push((
            p.name,
            top,
            winners.iter().map(|(a, _)| a.to_string()).collect(),
            winners.iter().any(|(_, x)| x.folds < x.of),
        ));
    }
    let mlp_means: Vec<f64> = prepared
        .iter()
        .enumerate()
        .filter(|(_, p)| !no_ltu.contains(&p.name))
        .map(|(d, _)| mean(runs[d][mlp].iter().map(|r| r.accuracy)))
        .collect();
    let line = if best.is_empty() {
        format!(
            "best ltu learner per dataset, mean ≥ {mlp_label}'s: **not met**, no ltu learner has a result"
        )
    } else {
        let b = mean(best.iter().map(|x| x.1));
        let m = mean(mlp_means.iter().copied());
        let mut line = format!(
            "best ltu learner per dataset, mean ≥ {mlp_label}'s: {} — {}% vs {mlp_label} {}% ({:+.2} pp), over {} \
             datasets",
            met(b >= m - TIE),
            pct(b),
            pct(m),
            100.0 * (b - m),
            best.len()
        );
        if !no_ltu.is_empty() {
            let _ = write!(line, " (no ltu result on {})", no_ltu.join(", "));
        }
        let partial = best.iter().filter(|x| x.3).count();
        if partial > 0 {
            let _ = write!(line, "; {partial} of the best results are over only some folds");
        }
        line
    };
    lines.push(line);

    // Goal 3: no dataset more than 2 points under CART, for any learner's default.
    let mut under_lines = Vec::new();
    let mut all_ok = true;
    let mut counts = Vec::new();
    for (a, algo) in algos.iter().enumerate() {
        let mut under = Vec::new();
        let mut missing = Vec::new();
        let mut n = 0;
        for (d, p) in prepared.iter().enumerate() {
            match paired(&outcomes[d][a], &cart[d]) {
                Some(x) => {
                    n += 1;
                    if 100.0 * x.delta < -MAX_PP_UNDER_CART - 100.0 * TIE {
                        under.push(format!("{} {:+.2} pp", p.name, 100.0 * x.delta));
                    }
                }
                None => missing.push(p.name),
            }
        }
        let ok = under.is_empty() && n > 0;
        all_ok &= ok;
        counts.push(format!("{algo} {}", under.len()));
        let mut line = if n == 0 {
            format!("{algo}: **not met**, no result on any dataset")
        } else if under.is_empty() {
            format!("{algo}: {} on the {n} datasets where it has results", met(true))
        } else {
            format!(
                "{algo}: {} — {} of {n} datasets more than {MAX_PP_UNDER_CART} points under CART: {}",
                met(false),
                under.len(),
                under.join(", ")
            )
        };
        if !missing.is_empty() && n > 0 {
            let _ = write!(line, " (no result on {}: {}; not counted)", missing.len(), missing.join(", "));
        }
        under_lines.push(line);
    }
    lines.push(format!(
        "no dataset more than {MAX_PP_UNDER_CART} points under CART for any learner's default: {} — datasets \
         under, per learner: {}",
        met(all_ok && !algos.is_empty()),
        counts.join(", ")
    ));

    writeln!(w, "Goals:")?;
    writeln!(w)?;
    for l in &lines {
        writeln!(w, "- {l}")?;
    }
    writeln!(w)?;
    writeln!(
        w,
        "Best ltu learner per dataset: {}.",
        best.iter()
            .map(|(name, acc, who, _)| format!("{name} {}% ({})", pct(*acc), who.join(", ")))
            .collect::<Vec<_>>()
            .join("; ")
    )?;
    writeln!(w)?;
    writeln!(w, "More than {MAX_PP_UNDER_CART} points under CART (Δ over the same folds, as in the tables), per learner:")?;
    writeln!(w)?;
    for l in &under_lines {
        writeln!(w, "- {l}")?;
    }
    writeln!(w)?;
    Ok(lines)
}

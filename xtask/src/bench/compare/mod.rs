//! `cargo xtask compare`: ltu's learners against scikit-learn's CART, logistic regression, MLP and
//! random forest on the same folds, the size of that CART tree as emlearn C code, and the
//! accuracy goals (against logistic regression, the MLP and CART) checked on the run. Writes `docs/BENCHMARKS.md`.
//!
//! The flow: load each dataset with the trainer library, make 10 stratified folds with
//! `ltu::data::split` (MONK's problems: their fixed train/test files), train and test every ltu
//! algorithm on every fold with `ltu::learn::evaluate::holdout` (folds in parallel), write the data as
//! loaded and the exact folds to `target/compare/folds.json`, run `bench/peers.py` in a venv
//! under `target/` on those folds, and render both result sets into one Markdown report.
//!
//! The sensor-recording sets (`series`) take their own path: the archive's train/test split, the
//! default window pipeline, the recordings written to `target/compare/recordings.json` for the
//! peers of `bench/series_peers.py`, and their own section and goals in the report.
//!
//! Nothing is hidden: an algorithm that is not implemented, fails, panics, or runs out of its
//! time budget on a dataset is listed as such, and comparisons use only the folds that ran.

mod datasets;
mod goals;
mod measure;
mod peers;
pub mod render;
mod results;
mod series;
mod series_report;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context as _, Result};
use ltu::learn::Algo;
use serde_json::Value;

use crate::bench::compare::datasets::select;
use crate::bench::compare::measure::{folds_json, ltu_json, prepare, run_ltu};
use crate::bench::compare::render::{command_line, git_state, render, RunInfo};
use crate::bench::compare::series_report::SeriesResults;
use crate::bench::python::ensure_venv;
use crate::cmd;

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
    /// Instead of the shared datasets: every learner on synthetic problems of 10^4-10^5 rows (cargo xtask synth) against CART, logistic regression and a random forest; writes docs/SCALE.md
    #[arg(long, conflicts_with_all = ["quick", "datasets", "jobs"])]
    scale: bool,
    /// Report path (default: docs/BENCHMARKS.md for a full run, target/compare/BENCHMARKS.md otherwise; with --scale, docs/SCALE.md)
    #[arg(long)]
    out: Option<PathBuf>,
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
    if args.scale {
        return crate::bench::scale::run(root, &args.algos, args.out.as_deref());
    }
    let started = Instant::now();
    // The tree measured is the one at the start (xtask is built from it): a file edited while
    // the folds run does not make the figures those of uncommitted code.
    let (commit, dirty) = git_state(root);
    let specs = select(args.quick, &args.datasets)?;
    // `--algos` with fewer than every learner is partial too: it must not replace the committed
    // report, whose per-learner sections would go missing.
    let every_algo = args.algos.is_empty() || Algo::ALL.iter().all(|a| args.algos.contains(a));
    let full = !args.quick && args.datasets.is_empty() && every_algo;
    let out_dir = root.join(OUT_DIR);
    std::fs::create_dir_all(&out_dir).with_context(|| format!("creating {}", out_dir.display()))?;

    let (python, mut env_notes) = ensure_venv(root)?;

    let (series_specs, table_specs): (Vec<_>, Vec<_>) = specs.into_iter().partition(|s| s.is_recordings());
    let prepared = table_specs.iter().map(|s| prepare(root, s)).collect::<Result<Vec<_>>>()?;
    let series = series_specs.iter().map(|s| series::prepare(root, s)).collect::<Result<Vec<_>>>()?;
    let folds_path = out_dir.join("folds.json");
    write_json(&folds_path, &folds_json(&prepared))?;
    let recordings_path = out_dir.join("recordings.json");
    if !series.is_empty() {
        write_json(&recordings_path, &series::recordings_json(&series))?;
    }

    let jobs = args.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let algos: &[Algo] = if args.algos.is_empty() { Algo::ALL } else { &args.algos };
    println!("ltu: {} datasets x {} algorithms, {jobs} folds at a time", prepared.len(), algos.len());
    let ltu_started = Instant::now();
    let outcomes = run_ltu(&prepared, algos, jobs);
    write_json(&out_dir.join("ltu.json"), &ltu_json(&prepared, algos, &outcomes))?;
    if !series.is_empty() {
        println!("ltu: {} recordings sets x {} algorithms, test splits", series.len(), algos.len());
    }
    let series_runs = series::run_ltu(&series, algos, jobs);
    if !series.is_empty() {
        write_json(&out_dir.join("ltu-recordings.json"), &series::ltu_json(&series, algos, &series_runs))?;
    }
    let ltu_seconds = ltu_started.elapsed().as_secs_f64();

    println!("peers: scikit-learn CART (and its emlearn size), logistic regression, MLP, random forest on the same folds");
    let peers_path = out_dir.join("peers.json");
    let peers_started = Instant::now();
    // emlearn compiles its C models under `tmp/` of the working directory: keep that in target/.
    let mut peers_cmd = Command::new(&python);
    peers_cmd
        .current_dir(&out_dir)
        .arg(root.join("bench/peers.py"))
        .arg("--folds")
        .arg(&folds_path)
        .arg("--out")
        .arg(&peers_path);
    if !series.is_empty() {
        peers_cmd.arg("--recordings").arg(&recordings_path);
    }
    cmd::run(&mut peers_cmd)?;
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
    let (series_peers, series_peer_runs) =
        if series.is_empty() { (Vec::new(), Vec::new()) } else { series::peer_runs(&peers, &series)? };
    let series_results = SeriesResults {
        series: &series,
        algos,
        runs: &series_runs,
        peers: &series_peers,
        peer_runs: &series_peer_runs,
        jobs,
    };
    let (report, goal_lines) = render(&prepared, algos, &outcomes, &peers, &run, &series_results)?;
    let out = match &args.out {
        Some(p) => p.clone(),
        None if full => root.join(REPORT),
        None => out_dir.join("BENCHMARKS.md"),
    };
    std::fs::write(&out, report).with_context(|| format!("writing {}", out.display()))?;
    println!("goals (accuracy against logistic regression, the MLP and CART; on the recordings, the peers):");
    for g in goal_lines {
        println!("  {}", g.replace("**", ""));
    }
    println!("wrote {} in {:.0} s", out.display(), run.total_seconds);
    Ok(())
}

fn write_json(path: &Path, value: &Value) -> Result<()> {
    let text = serde_json::to_string(value)?;
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

//! `cargo xtask bench-device`: what one prediction costs on a microcontroller, ltu against
//! emlearn, instruction for instruction. Writes `docs/DEVICE.md` and one SVG per dataset under
//! `docs/device/`.
//!
//! The flow, per dataset: load it with the trainer library and make ltu's 10 stratified folds;
//! hand data and folds to `bench/device.py` (scikit-learn + emlearn in a venv under `target/`),
//! which picks the measured rows, cross-validates `DecisionTreeClassifier` and
//! `RandomForestClassifier(10, max_depth=10)` on the same folds, and writes emlearn's C (inline and
//! loadable, int16) with the rows and its host predictions; train every ltu variant on all rows and
//! cross-validate it on the same folds; then, for every model, build a bench firmware that embeds
//! the model and the rows (`firmware-example/examples/bench.rs` for ltu, `bench/c/harness.c` for
//! emlearn) and its twin without a model, run it under QEMU with the instruction-count plugin, and
//! record instructions per prediction, loading, flash (text + data minus the twin's), painted
//! stack, and whether every on-chip prediction equals the host's.
//!
//! The sensor pipeline section (`pipeline.rs`; `--pipeline` runs it alone and writes
//! `docs/DEVICE-PIPELINE.md`, a full run writes it into both reports) measures raw samples to a
//! class on basicmotions: per window through the runtime, as generated code and against a C loop
//! feeding emlearn's forest, and the streaming cost per sample.
//!
//! `--quick` measures one dataset on the Cortex-M3 and RISC-V and checks the committed firmware
//! model's Cortex-M3 counts against `bench/device-reference.txt` (a regression guard: exact counts,
//! never times).
//!
//! Every other run measures every core: the Cortex-M3, M0 and M4F and RV32IMAC (QEMU `virt`), each
//! with the Rust bench firmware (ltu's runtime, generated Rust) and the C harness (ltu's generated
//! C, emlearn; arm-none-eabi-gcc with newlib's headers, riscv64-unknown-elf-gcc with picolibc's).
//! `--target` adds a core to `--quick`.

mod build;
mod datasets;
mod figures;
mod goals;
mod guard;
mod measure;
mod pipeline;
mod render;
mod svg;
mod train;

use std::fs;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use anyhow::{bail, ensure, Context as _, Result};
use serde_json::Value;

use crate::bench::device::datasets::{data_json, prepare, select};
use crate::bench::device::figures::Report;
use crate::bench::device::guard::reference_guard;
use crate::bench::device::measure::{emlearn_models, ltu_models};
use crate::bench::device::render::{render, render_pipeline, versions};
use crate::bench::device::svg::pareto_svg;
use crate::bench::python;
use crate::firmware::{self, Target, QEMU_RISCV32, TARGETS};
use crate::{cmd, prereq};

/// Scratch directory.
const OUT_DIR: &str = "target/bench-device";
/// The committed report and its pictures.
const REPORT: &str = "docs/DEVICE.md";
const PICTURES: &str = "docs/device";
/// The committed report of the sensor pipeline section alone (`--pipeline`).
const PIPELINE_REPORT: &str = "docs/DEVICE-PIPELINE.md";

/// Arguments of `cargo xtask bench-device`.
#[derive(clap::Args)]
pub struct Args {
    /// One dataset on the Cortex-M3 and RISC-V, plus the regression guard on the committed
    /// firmware model (the report goes to target/bench-device/)
    #[arg(long)]
    quick: bool,
    /// Only these datasets, comma-separated (e.g. iris,car)
    #[arg(long, value_delimiter = ',')]
    datasets: Vec<String>,
    /// Rewrite bench/device-reference.txt with today's counts of the committed firmware model
    #[arg(long)]
    update_reference: bool,
    /// The sensor pipeline section (basicmotions, raw samples to a class per window, and the
    /// streaming cost per sample); alone, only that section, written to docs/DEVICE-PIPELINE.md
    /// (a full run measures it too)
    #[arg(long)]
    pipeline: bool,
    /// With --quick, also measure on this target, e.g. thumbv6m-none-eabi (repeat for several);
    /// other runs measure every target
    #[arg(long = "target", value_name = "TRIPLE")]
    targets: Vec<String>,
}

/// Runs the benchmark and writes the report.
///
/// # Errors
/// Missing tools that cannot be installed, a dataset that does not load, a failing build or QEMU
/// run, or a report that cannot be written. A learner that fails on a dataset is reported, not
/// an error; an on-chip prediction that differs from the host's is reported and fails the command.
pub fn run(root: &Path, args: &Args) -> Result<()> {
    if cfg!(debug_assertions) && !args.quick {
        // Training and cross-validation in a debug build take minutes: rerun optimized. `--quick`
        // trains on iris alone, seconds even unoptimized: an optimized xtask would cost more to
        // build than it saves.
        println!("bench-device: running the optimized xtask");
        let mut cargo = cmd::cargo(root);
        cargo.args(["run", "--release", "--quiet", "-p", "xtask", "--"]).args(std::env::args_os().skip(1));
        return cmd::run(&mut cargo);
    }
    // `--pipeline` alone measures only the sensor pipeline; a full run measures it too.
    let pipeline_only = args.pipeline && !args.quick && args.datasets.is_empty();
    let with_pipeline = args.pipeline || (!args.quick && args.datasets.is_empty());
    let full = !args.quick && args.datasets.is_empty() && !args.pipeline;
    let specs = if pipeline_only { Vec::new() } else { select(args.quick, &args.datasets)? };
    // The Cortex-M3 and RISC-V (`--quick`) or every target, the Cortex-M3 first: the report is
    // built around it.
    let mut targets: Vec<Target> = if args.quick {
        TARGETS
            .iter()
            .copied()
            .filter(|t| t.triple == TARGETS[0].triple || t.machine.qemu == QEMU_RISCV32)
            .collect()
    } else {
        TARGETS.to_vec()
    };
    for triple in &args.targets {
        let target = firmware::target(triple)?;
        if !targets.contains(&target) {
            targets.push(target);
        }
    }
    let triples: Vec<&str> = targets.iter().map(|t| t.triple).collect();
    prereq::rust(&triples, false)?;
    prereq::qemu_and_gcc()?;
    prereq::arm_gcc()?;
    if targets.iter().any(|t| t.machine.qemu == QEMU_RISCV32) {
        prereq::riscv_gcc()?;
    }
    let (python, _) = python::ensure_venv(root)?;
    let out = root.join(OUT_DIR);
    fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    let plugin = firmware::plugin(root)?;

    let mut guard = None;
    if args.quick || args.update_reference {
        guard = Some(reference_guard(root, &plugin, args.update_reference)?);
        if args.update_reference && !args.quick && args.datasets.is_empty() && !args.pipeline {
            return Ok(());
        }
    }

    let commit = cmd::output(Command::new("git").current_dir(root).args(["describe", "--always", "--dirty"]))
        .map_or_else(|_| "unknown".into(), |s| s.trim().to_string());
    let mut report =
        Report { commit, datasets: Vec::new(), versions: Vec::new(), quick: args.quick, pipeline: None };
    if !specs.is_empty() {
        let peers = measure_datasets(root, &out, &specs, &targets, &plugin, &python, &mut report)?;
        report.versions = versions(&peers);
    }
    if with_pipeline {
        let started = Instant::now();
        let p = pipeline::run(root, &out, &targets, &plugin, &python)?;
        if report.versions.is_empty() {
            report.versions = p.versions.clone();
        }
        println!(
            "
sensor pipeline section: {:.0} s",
            started.elapsed().as_secs_f64()
        );
        report.pipeline = Some(p);
    }

    let mut mismatches: Vec<String> = report
        .datasets
        .iter()
        .flat_map(|(name, _, _, entries)| {
            entries.iter().flat_map(move |e| {
                e.measures.iter().filter(|m| m.agree != m.predict.len()).map(move |m| {
                    format!(
                        "{name} {} on {}: {} of {} agree",
                        e.name,
                        m.target.core,
                        m.agree,
                        m.predict.len()
                    )
                })
            })
        })
        .collect();
    if let Some(p) = &report.pipeline {
        mismatches.extend(pipeline::mismatches(p));
    }

    let docs = full || pipeline_only;
    let (md_path, pictures, pipeline_path) = if docs {
        (root.join(REPORT), root.join(PICTURES), root.join(PIPELINE_REPORT))
    } else {
        (out.join("DEVICE.md"), out.join("device"), out.join("DEVICE-PIPELINE.md"))
    };
    if !pipeline_only {
        fs::create_dir_all(&pictures).with_context(|| format!("creating {}", pictures.display()))?;
        for (name, _, _, entries) in &report.datasets {
            let svg = pareto_svg(name, entries);
            let path = pictures.join(format!("{name}.svg"));
            fs::write(&path, svg).with_context(|| format!("writing {}", path.display()))?;
        }
        let md = render(&report, &guard);
        fs::write(&md_path, md).with_context(|| format!("writing {}", md_path.display()))?;
        println!(
            "
wrote {} and {}/*.svg",
            md_path.display(),
            pictures.display()
        );
    }
    if report.pipeline.is_some() {
        let md = render_pipeline(&report);
        fs::write(&pipeline_path, md).with_context(|| format!("writing {}", pipeline_path.display()))?;
        println!("wrote {}", pipeline_path.display());
    }
    if !mismatches.is_empty() {
        bail!("on-chip predictions differ from the host's: {}", mismatches.join("; "));
    }
    Ok(())
}

/// The datasets of `specs`: their peers by `bench/device.py`, then every ltu and emlearn model
/// measured into `report`. Returns what `bench/device.py` wrote.
fn measure_datasets(
    root: &Path,
    out: &Path,
    specs: &[&datasets::Spec],
    targets: &[Target],
    plugin: &Path,
    python: &Path,
    report: &mut Report,
) -> Result<Value> {
    let prepared = specs.iter().map(|s| prepare(root, out, s)).collect::<Result<Vec<_>>>()?;
    let data_path = out.join("data.json");
    fs::write(&data_path, serde_json::to_string(&data_json(&prepared))?)
        .with_context(|| format!("writing {}", data_path.display()))?;
    println!("peers: scikit-learn and emlearn (bench/device.py)");
    let peers_path = out.join("peers.json");
    // emlearn compiles its C models under `tmp/` of the working directory: keep that in target/.
    cmd::run(
        Command::new(python)
            .current_dir(out)
            .arg(root.join("bench/device.py"))
            .arg("--data")
            .arg(&data_path)
            .arg("--work")
            .arg(out.join("emlearn"))
            .arg("--out")
            .arg(&peers_path),
    )?;
    let peers: Value = serde_json::from_str(
        &fs::read_to_string(&peers_path).with_context(|| format!("reading {}", peers_path.display()))?,
    )
    .with_context(|| format!("parsing {}", peers_path.display()))?;
    for (d, p) in prepared.iter().enumerate() {
        let peer = &peers["datasets"][d];
        ensure!(peer["name"] == p.name, "peers.json lists datasets in another order");
        let rows: Vec<usize> = serde_json::from_value(peer["rows"].clone())?;
        println!("\n{}: {} rows, {} measured on the device", p.name, p.data.n_rows(), rows.len());
        let mut entries = ltu_models(root, out, p, &rows, targets, plugin)?;
        entries.extend(emlearn_models(root, p.name, peer, &peers, targets, plugin)?);
        report.datasets.push((p.name, p.data.n_rows(), rows.len(), entries));
    }
    Ok(peers)
}

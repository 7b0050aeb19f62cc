//! Measuring on the device: every ltu model (through the runtime, as generated Rust, as generated
//! C) and every emlearn model, built into a bench firmware and run under QEMU with the
//! instruction-count plugin.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};
use ltu::learn::Algo;
use ltu::model::{ModelSpec, Node, Step, Structure};
use serde_json::Value;

use crate::bench::device::build::{build_c, build_rust, rows_h, Build};
use crate::bench::device::datasets::{Prepared, FOLDS};
use crate::bench::device::figures::{measure, print_measure, Entry, Measure};
use crate::bench::device::train::{train_variants, variants, Trained};
use crate::firmware::cost::sizes;
use crate::firmware::inputs::rows_rs;
use crate::firmware::qemu;
use crate::firmware::{Target, QEMU_RISCV32, TARGETS};

/// Flash of the twins (the bench firmware with the same rows and no model), built once per rows
/// file and target: the Rust twin keyed by `rows.rs`, the C twin by `rows.h`.
#[derive(Default)]
struct Twins {
    rust: BTreeMap<(String, &'static str), u64>,
    c: BTreeMap<(String, &'static str), u64>,
}

/// What every ltu build of one dataset shares.
struct Bench<'a> {
    root: &'a Path,
    plugin: &'a Path,
    /// `target/bench-device/ltu/<dataset>`.
    base: PathBuf,
    name: &'static str,
}

/// One variant's files on disk: its directory, the C harness's directory, and its rows as Rust
/// and as C.
struct Files {
    dir: PathBuf,
    c_dir: PathBuf,
    rows_src: String,
    rows_h_src: String,
}

/// What a variant's measurements depend on: its model file, its generated Rust and C, and the
/// cores it runs on (the rows are the dataset's).
type Built = (Vec<u8>, String, Vec<&'static str>);

/// One variant's measurements: through the runtime, as generated Rust, as generated C.
#[derive(Default, Clone)]
struct Measured {
    runtime: Vec<Measure>,
    rust: Vec<Measure>,
    c: Vec<Measure>,
}

/// Every ltu model configuration on dataset `p`: trained, written out, built and measured
/// For a tree whose every decision node is a threshold test, the threshold nodes on each row's
/// path from the root to its leaf; empty for any other model.
fn threshold_path_nodes(spec: &ModelSpec, rows: &[Vec<i32>]) -> Vec<u64> {
    let Structure::Tree(nodes) = &spec.structure else { return Vec::new() };
    if nodes.iter().any(|n| !matches!(n, Node::Threshold { .. } | Node::Class(_))) {
        return Vec::new();
    }
    let path = |x: &[i32]| {
        let (mut i, mut n) = (0, 0);
        while let Step::Next(next) = nodes[i].step(x, |_| false) {
            (i, n) = (next, n + 1);
        }
        n
    };
    rows.iter().map(|x| path(x)).collect()
}

/// (`out`: the scratch directory).
pub fn ltu_models(
    root: &Path,
    out: &Path,
    p: &Prepared,
    rows: &[usize],
    targets: &[Target],
    plugin: &Path,
) -> Result<Vec<Entry>> {
    let variants = variants();
    let trained = train_variants(p, rows, &variants);
    let bench = Bench { root, plugin, base: out.join("ltu").join(p.name), name: p.name };
    let mut twins = Twins::default();
    // Measurements by what was built and the cores it ran on: a variant whose training gave the
    // same model file and generated code as an earlier one (a budget or a limit the default model
    // already met) is not built and run again. Its label and the variant it repeats.
    let mut done: BTreeMap<Built, (Measured, &'static str)> = BTreeMap::new();
    let mut entries = Vec::new();
    for (variant, t) in variants.iter().zip(trained) {
        let group = variant.algo.to_string();
        let (bytes, spec, inputs, host, accuracy, folds_failed) = match t {
            Trained::Failed(e) => {
                if !(variant.algo == Algo::Hsi && p.data.n_classes() != 2) {
                    println!("  {:<22} failed: {e}", variant.label);
                    entries.push(Entry {
                        family: "ltu",
                        name: variant.label.into(),
                        group,
                        accuracy: None,
                        model_bytes: None,
                        essential: None,
                        units: 0,
                        path_nodes: Vec::new(),
                        measures: Vec::new(),
                        notes: vec![format!("training failed: {e}")],
                    });
                }
                continue;
            }
            Trained::Model { bytes, spec, inputs, host, accuracy, folds_failed } => {
                (bytes, spec, inputs, host, accuracy, folds_failed)
            }
        };
        // The runtime as a firmware that runs only this model builds it: just the model's kinds.
        let features: Vec<&str> = ltu_runtime::Model::from_bytes(&bytes)
            .context("the trainer verified its own bytes")?
            .features_needed()
            .collect();
        let files = write_files(&bench, variant.label, &bytes, &spec, &inputs)?;
        let essential = (!inputs.is_empty())
            .then(|| inputs.iter().map(|x| spec.essential_work(x) as f64).sum::<f64>() / inputs.len() as f64);
        let path_nodes = threshold_path_nodes(&spec, &inputs);
        let mut notes = Vec::new();
        if folds_failed > 0 {
            notes.push(format!("{folds_failed} of {FOLDS} CV folds failed to train"));
        }
        // Budget variants on the cores the report is built around; the defaults on every core.
        let cores: Vec<Target> =
            targets.iter().copied().filter(|&t| !variant.budget || every_variant(t)).collect();
        // The generated code but for its comment, which names the variant.
        let code = ltu::model::codegen::rust_source(&spec, "") + &ltu::model::codegen::c_source(&spec, "");
        let key = (bytes.clone(), code, cores.iter().map(|t| t.triple).collect());
        let measured = if let Some((m, first)) = done.get(&key) {
            println!("  {:<30} the model and code of `{first}`: its measurements", variant.label);
            m.clone()
        } else {
            let mut measured = Measured::default();
            for &target in &cores {
                let rust = measure_rust(&bench, &mut twins, target, &files, &features, &host, variant.label)?;
                let (runtime, generated) = rust;
                measured.runtime.push(runtime);
                measured.rust.push(generated);
                measured.c.push(measure_c(&bench, &mut twins, target, &files, &host, variant.label)?);
            }
            done.insert(key, (measured.clone(), variant.label));
            measured
        };
        let entry = |name: String, model_bytes: Option<usize>, measures: Vec<Measure>| Entry {
            family: "ltu",
            name,
            group: group.clone(),
            accuracy,
            model_bytes,
            essential,
            units: spec.units.len(),
            path_nodes: path_nodes.clone(),
            measures,
            notes: notes.clone(),
        };
        entries.push(entry(variant.label.into(), Some(bytes.len()), measured.runtime));
        entries.push(entry(format!("{} codegen-rs", variant.label), None, measured.rust));
        entries.push(entry(format!("{} codegen-c", variant.label), None, measured.c));
    }
    Ok(entries)
}

/// Whether a core measures every ltu variant, budget settings included: the Cortex-M3 and RISC-V,
/// whose goals are checked (the Cortex-M0 and M4F the learners' defaults only).
pub fn every_variant(target: Target) -> bool {
    target.triple == TARGETS[0].triple || target.machine.qemu == QEMU_RISCV32
}

/// Writes one variant's model file, rows, generated Rust and generated C (with the C harness's
/// entry point) under the dataset's directory.
fn write_files(
    bench: &Bench,
    label: &str,
    bytes: &[u8],
    spec: &ModelSpec,
    inputs: &[Vec<i32>],
) -> Result<Files> {
    let dir = bench.base.join(label.replace([' ', '-'], "_").trim_matches('_'));
    fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let rows_src = rows_rs(inputs);
    fs::write(dir.join("model.ltu"), bytes)?;
    fs::write(dir.join("rows.rs"), &rows_src)?;
    let about = format!("{} ({label})", bench.name);
    fs::write(dir.join("model.rs"), ltu::model::codegen::rust_source(spec, &about))?;
    let c_dir = dir.join("c");
    fs::create_dir_all(&c_dir)?;
    let rows_h_src = rows_h(inputs);
    fs::write(c_dir.join("rows.h"), &rows_h_src)?;
    fs::write(
        c_dir.join("model.c"),
        format!(
            "{}\n/* The bench harness's entry point. */\n\
             int32_t model_predict(const int32_t *features, int32_t features_length)\n{{\n    \
             (void)features_length;\n    return ltu_predict(features);\n}}\n",
            ltu::model::codegen::c_source(spec, &about)
        ),
    )?;
    Ok(Files { dir, c_dir, rows_src, rows_h_src })
}

/// The Rust bench firmware on `target`: the model through the runtime (only the cargo
/// `features` its kinds need) and as generated Rust. Returns both measurements.
fn measure_rust(
    bench: &Bench,
    twins: &mut Twins,
    target: Target,
    files: &Files,
    features: &[&str],
    host: &[usize],
    label: &str,
) -> Result<(Measure, Measure)> {
    let key = (files.rows_src.clone(), target.triple);
    let twin_flash = match twins.rust.get(&key) {
        Some(&f) => f,
        None => {
            let twin_dir = bench.base.join(format!("twin-{}", twins.rust.len()));
            fs::create_dir_all(&twin_dir)?;
            fs::write(twin_dir.join("rows.rs"), &files.rows_src)?;
            let elf = build_rust(bench.root, target, &twin_dir, Build::Null, &[])?;
            let f = sizes(&fs::read(&elf)?)?.flash;
            twins.rust.insert(key, f);
            f
        }
    };
    let run_one = |build: Build| -> Result<Measure> {
        let elf = build_rust(bench.root, target, &files.dir, build, features)?;
        let flash = sizes(&fs::read(&elf)?)?.flash - twin_flash;
        let run = qemu::run(&elf, target.machine, Some(bench.plugin))?;
        let codegen = build == Build::Codegen;
        let label = if codegen { format!("{label} codegen-rs") } else { label.to_string() };
        let m = measure(target, &run, host, !codegen, flash)
            .with_context(|| format!("{} {label} on {}", bench.name, target.core))?;
        print_measure(&label, &m);
        Ok(m)
    };
    let runtime = run_one(Build::Runtime)?;
    let generated = run_one(Build::Codegen)?;
    Ok((runtime, generated))
}

/// The generated C in the C harness on `target`, like emlearn's models.
fn measure_c(
    bench: &Bench,
    twins: &mut Twins,
    target: Target,
    files: &Files,
    host: &[usize],
    label: &str,
) -> Result<Measure> {
    let c_dir = &files.c_dir;
    let key = (files.rows_h_src.clone(), target.triple);
    let c_twin_flash = match twins.c.get(&key) {
        Some(&f) => f,
        None => {
            let elf = c_dir.join(format!("twin-{}.elf", target.triple));
            build_c(bench.root, target, c_dir, c_dir, None, &[], &elf)?;
            let f = sizes(&fs::read(&elf)?)?.flash;
            twins.c.insert(key, f);
            f
        }
    };
    let elf = c_dir.join(format!("model-{}.elf", target.triple));
    build_c(bench.root, target, c_dir, c_dir, Some(&c_dir.join("model.c")), &[], &elf)?;
    let flash = sizes(&fs::read(&elf)?)?.flash - c_twin_flash;
    let run = qemu::run_text(&elf, target.machine, Some(bench.plugin))?;
    let label = format!("{label} codegen-c");
    let m = measure(target, &run, host, false, flash)
        .with_context(|| format!("{} {label} on {}", bench.name, target.core))?;
    print_measure(&label, &m);
    Ok(m)
}

/// emlearn's models of one dataset as `bench/device.py` wrote them, built and measured on every
/// target.
pub fn emlearn_models(
    root: &Path,
    name: &str,
    peer: &Value,
    peers: &Value,
    targets: &[Target],
    plugin: &Path,
) -> Result<Vec<Entry>> {
    let include = PathBuf::from(peers["emlearn_include"].as_str().context("peers.json: emlearn_include")?);
    let header = PathBuf::from(peer["rows_header"].as_str().context("peers.json: rows_header")?);
    let rows_dir = header.parent().context("rows header has a directory")?.to_path_buf();
    let mut twins: BTreeMap<&str, u64> = BTreeMap::new();
    for &target in targets {
        let elf = rows_dir.join(format!("twin-{}.elf", target.triple));
        build_c(root, target, &include, &rows_dir, None, &[], &elf)?;
        twins.insert(target.triple, sizes(&fs::read(&elf)?)?.flash);
    }
    let mut entries = Vec::new();
    for model in peer["models"].as_array().context("peers.json: models")? {
        let model_name = model["name"].as_str().unwrap_or("?");
        let cv = &model["cv"];
        for variant in model["variants"].as_array().context("peers.json: variants")? {
            let method = variant["method"].as_str().unwrap_or("?");
            let src = PathBuf::from(variant["source"].as_str().context("peers.json: source")?);
            let host: Vec<usize> = serde_json::from_value(variant["host_predictions"].clone())?;
            let mut measures = Vec::new();
            for &target in targets {
                let elf = src.with_extension(format!("{}.elf", target.triple));
                build_c(root, target, &include, &rows_dir, Some(&src), &[], &elf)?;
                let flash = sizes(&fs::read(&elf)?)?.flash - twins[target.triple];
                let run = qemu::run_text(&elf, target.machine, Some(plugin))?;
                let m = measure(target, &run, &host, false, flash)
                    .with_context(|| format!("{name} emlearn {model_name} {method} on {}", target.core))?;
                print_measure(&format!("emlearn {model_name} {method}"), &m);
                measures.push(m);
            }
            let agreement = cv["agreement"].as_u64().unwrap_or(0);
            let heldout = cv["heldout_rows"].as_u64().unwrap_or(0);
            let mut notes = Vec::new();
            if agreement < heldout {
                notes.push(format!(
                    "emlearn's C differs from scikit-learn on {} of {heldout} held-out rows (scikit-learn {:.2}%)",
                    heldout - agreement,
                    100.0 * cv["sklearn_accuracy"].as_f64().unwrap_or(0.0)
                ));
            }
            entries.push(Entry {
                family: "emlearn",
                name: format!("{model_name} {method}"),
                group: model_name.to_string(),
                accuracy: cv["emlearn_accuracy"].as_f64(),
                model_bytes: None,
                essential: None,
                units: 0,
                path_nodes: Vec::new(),
                measures,
                notes,
            });
        }
    }
    Ok(entries)
}

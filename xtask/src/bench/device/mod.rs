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
//! `--quick` measures one dataset on the Cortex-M3 and checks the committed firmware model's counts
//! against `bench/device-reference.txt` (a regression guard: exact counts, never times).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use anyhow::{bail, ensure, Context as _, Result};
use ltu::algo::Options;
use ltu::algo::{self, Algo, Context};
use ltu::data::{self, Dataset, LoadOptions};
use ltu::evaluate::Setup;
use serde_json::{json, Value};

use crate::bench::python;
use crate::firmware::cost::sizes;
use crate::firmware::inputs::{rows_rs, Inputs};
use crate::firmware::qemu::{self, print_log, Run};
use crate::firmware::{self, BuildOptions, Target, TARGETS};
use crate::prereq;
use crate::{cmd, dataset};

/// Folds of the cross-validation (ltu's and the peers', the same rows).
const FOLDS: usize = 10;
/// Seed of the folds and of every ltu learner.
const SEED: u64 = 0;
/// Rows measured on the device per dataset.
const ROWS: usize = 50;
/// Scratch directory.
const OUT_DIR: &str = "target/bench-device";
/// The committed report and its pictures.
const REPORT: &str = "docs/DEVICE.md";
const PICTURES: &str = "docs/device";
/// Recorded instruction counts of the committed firmware model (the regression guard).
const REFERENCE: &str = "bench/device-reference.txt";

/// Arguments of `cargo xtask bench-device`.
#[derive(clap::Args)]
pub struct Args {
    /// One dataset on the Cortex-M3, plus the regression guard on the committed firmware model
    /// (the report goes to target/bench-device/)
    #[arg(long)]
    quick: bool,
    /// Only these datasets, comma-separated (e.g. iris,car)
    #[arg(long, value_delimiter = ',')]
    datasets: Vec<String>,
    /// Rewrite bench/device-reference.txt with today's counts of the committed firmware model
    #[arg(long)]
    update_reference: bool,
}

/// Where a dataset's rows come from.
#[derive(Clone, Copy)]
enum Source {
    /// A CSV file under `data/`.
    Csv(&'static str),
    /// `data/basicmotions.csv` turned into the firmware's integer window features.
    BasicMotions,
}

struct Spec {
    name: &'static str,
    source: Source,
}

const DATASETS: &[Spec] = &[
    Spec { name: "iris", source: Source::Csv("iris.csv") },
    Spec { name: "wdbc", source: Source::Csv("wdbc.csv") },
    Spec { name: "vehicle", source: Source::Csv("vehicle.csv") },
    Spec { name: "breast-cancer-wisconsin", source: Source::Csv("breast-cancer-wisconsin.csv") },
    Spec { name: "basicmotions-window", source: Source::BasicMotions },
    Spec { name: "kr-vs-kp", source: Source::Csv("kr-vs-kp.csv") },
    Spec { name: "car", source: Source::Csv("car.csv") },
];
const QUICK: &[&str] = &["iris"];

/// One ltu model configuration: a learner with its defaults, or with a budget setting.
#[derive(Clone, Copy)]
struct Variant {
    /// Label in the report, e.g. `ptree --max-depth 2`.
    label: &'static str,
    algo: Algo,
    /// A budget setting (reported as such) rather than the defaults.
    budget: bool,
    /// Applies the variant's options.
    set: fn(&mut Options),
}

/// Budget settings the learners offer, measured beside every registered learner's defaults.
const BUDGETS: &[Variant] = &[
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

/// Every registered learner with its defaults (the registry in `ltu::algo`), each followed by its
/// budget settings.
fn variants() -> Vec<Variant> {
    Algo::ALL
        .iter()
        .flat_map(|&algo| {
            std::iter::once(Variant { label: algo.name(), algo, budget: false, set: |_| {} })
                .chain(BUDGETS.iter().filter(move |b| b.algo == algo).copied())
        })
        .collect()
}

/// A dataset as loaded, with its folds.
struct Prepared {
    name: &'static str,
    data: Dataset,
    /// Test rows of each fold.
    folds: Vec<Vec<usize>>,
}

/// Device measurements of one model on one target.
#[derive(Debug, Clone)]
struct Measure {
    target: Target,
    /// Instructions of `Model::from_bytes` (ltu only).
    load: Option<u64>,
    /// Instructions of each prediction.
    predict: Vec<u64>,
    /// Painted stack bytes of each prediction.
    stack: Vec<u64>,
    /// Flash of the model and all code it needs: text + data minus the twin's.
    flash: u64,
    /// On-chip predictions equal to the host's, of `predict.len()`.
    agree: usize,
}

/// One model in the report.
#[derive(Debug, Clone)]
struct Entry {
    /// `ltu` or `emlearn`.
    family: &'static str,
    /// e.g. `ptree`, `ptree --max-depth 2`, `DT inline`.
    name: String,
    /// Colour group: the learner (`ptree`, ...) or the peer model (`DT`, `RF10`).
    group: String,
    /// 10-fold CV accuracy of what runs on the device.
    accuracy: Option<f64>,
    /// Model file bytes (ltu) — emlearn's model is code and tables, counted in flash only.
    model_bytes: Option<usize>,
    /// Mean over the measured rows of issue 11's essential work (`ModelSpec::essential_work`,
    /// ltu only): the instructions a prediction cannot do without.
    essential: Option<f64>,
    /// Linear threshold units in the model (ltu; 0 for a tree of tests, such as FRINGE's).
    units: usize,
    measures: Vec<Measure>,
    notes: Vec<String>,
}

impl Entry {
    fn on(&self, triple: &str) -> Option<&Measure> {
        self.measures.iter().find(|m| m.target.triple == triple)
    }
}

/// Runs the benchmark and writes the report.
///
/// # Errors
/// Missing tools that cannot be installed, a dataset that does not load, a failing build or QEMU
/// run, or a report that cannot be written. A learner that fails on a dataset is reported, not
/// an error; an on-chip prediction that differs from the host's is reported and fails the command.
pub fn run(root: &Path, args: &Args) -> Result<()> {
    if cfg!(debug_assertions) {
        // Training and cross-validation in a debug build take minutes: rerun optimized.
        println!("bench-device: running the optimized xtask");
        let mut cargo = cmd::cargo(root);
        cargo.args(["run", "--release", "--quiet", "-p", "xtask", "--"]).args(std::env::args_os().skip(1));
        return cmd::run(&mut cargo);
    }
    let specs = select(args)?;
    let targets: Vec<Target> = if args.quick { vec![TARGETS[0]] } else { TARGETS.to_vec() };
    let triples: Vec<&str> = targets.iter().map(|t| t.triple).collect();
    prereq::rust(&triples, false)?;
    prereq::qemu_and_gcc()?;
    prereq::arm_gcc()?;
    let (python, _) = python::ensure_venv(root)?;
    let out = root.join(OUT_DIR);
    fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    let plugin = firmware::plugin(root)?;

    let mut guard = None;
    if args.quick || args.update_reference {
        guard = Some(reference_guard(root, &plugin, args.update_reference)?);
        if args.update_reference && !args.quick && args.datasets.is_empty() {
            return Ok(());
        }
    }

    let prepared = specs.iter().map(|s| prepare(root, s)).collect::<Result<Vec<_>>>()?;
    let data_path = out.join("data.json");
    fs::write(&data_path, serde_json::to_string(&data_json(&prepared))?)
        .with_context(|| format!("writing {}", data_path.display()))?;
    println!("peers: scikit-learn and emlearn (bench/device.py)");
    let peers_path = out.join("peers.json");
    // emlearn compiles its C models under `tmp/` of the working directory: keep that in target/.
    cmd::run(
        Command::new(&python)
            .current_dir(&out)
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

    let commit = cmd::output(Command::new("git").current_dir(root).args(["describe", "--always", "--dirty"]))
        .map_or_else(|_| "unknown".into(), |s| s.trim().to_string());
    let mut report = Report { commit, datasets: Vec::new(), versions: versions(&peers), quick: args.quick };
    for (d, p) in prepared.iter().enumerate() {
        let peer = &peers["datasets"][d];
        ensure!(peer["name"] == p.name, "peers.json lists datasets in another order");
        let rows: Vec<usize> = serde_json::from_value(peer["rows"].clone())?;
        println!("\n{}: {} rows, {} measured on the device", p.name, p.data.n_rows(), rows.len());
        let mut entries = ltu_models(root, p, &rows, &targets, &plugin)?;
        entries.extend(emlearn_models(root, p.name, peer, &peers, &targets, &plugin)?);
        report.datasets.push((p.name, p.data.n_rows(), rows.len(), entries));
    }

    let mismatches: Vec<String> = report
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

    let (md_path, pictures) = if args.quick || !args.datasets.is_empty() {
        (out.join("DEVICE.md"), out.join("device"))
    } else {
        (root.join(REPORT), root.join(PICTURES))
    };
    fs::create_dir_all(&pictures).with_context(|| format!("creating {}", pictures.display()))?;
    for (name, _, _, entries) in &report.datasets {
        let svg = pareto_svg(name, entries);
        let path = pictures.join(format!("{name}.svg"));
        fs::write(&path, svg).with_context(|| format!("writing {}", path.display()))?;
    }
    let md = render(&report, &guard);
    fs::write(&md_path, md).with_context(|| format!("writing {}", md_path.display()))?;
    println!("\nwrote {} and {}/*.svg", md_path.display(), pictures.display());
    if !mismatches.is_empty() {
        bail!("on-chip predictions differ from the host's: {}", mismatches.join("; "));
    }
    Ok(())
}

fn select(args: &Args) -> Result<Vec<&'static Spec>> {
    for name in &args.datasets {
        if !DATASETS.iter().any(|s| s.name == name) {
            let known: Vec<&str> = DATASETS.iter().map(|s| s.name).collect();
            bail!("unknown dataset `{name}` (known: {})", known.join(", "));
        }
    }
    Ok(DATASETS
        .iter()
        .filter(|s| args.datasets.is_empty() || args.datasets.iter().any(|d| d == s.name))
        .filter(|s| !args.quick || !args.datasets.is_empty() || QUICK.contains(&s.name))
        .collect())
}

fn prepare(root: &Path, spec: &Spec) -> Result<Prepared> {
    let path = match spec.source {
        Source::Csv(file) => root.join("data").join(file),
        Source::BasicMotions => {
            let recordings = dataset::load(&root.join("data/basicmotions.csv"))?;
            let csv = dataset::features_csv(&recordings)?;
            let path = root.join(OUT_DIR).join("basicmotions-window.csv");
            fs::write(&path, csv).with_context(|| format!("writing {}", path.display()))?;
            path
        }
    };
    let data = data::load(&path, &LoadOptions::default())?;
    let folds = ltu::split::stratified_kfold(&data.y, data.n_classes(), FOLDS, SEED)
        .with_context(|| format!("{}: cannot make {FOLDS} folds", path.display()))?;
    Ok(Prepared { name: spec.name, data, folds })
}

fn data_json(prepared: &[Prepared]) -> Value {
    let datasets: Vec<Value> = prepared
        .iter()
        .map(|p| {
            let (attributes, x) = python::data_json(&p.data);
            json!({
                "name": p.name,
                "attributes": attributes,
                "x": x,
                "y": p.data.y,
                "folds": p.folds,
                "rows": ROWS,
            })
        })
        .collect();
    json!({ "datasets": datasets })
}

fn rows_h(rows: &[Vec<i32>]) -> String {
    let n_inputs = rows.first().map_or(0, Vec::len);
    let mut s = String::from(
        "/* Generated by `cargo xtask bench-device`: the raw inputs ltu's model reads. */\n\
         #include <stdint.h>\ntypedef int32_t row_t;\n",
    );
    let _ = writeln!(s, "#define N_ROWS {}u\n#define N_FEATURES {n_inputs}", rows.len());
    s.push_str("static const row_t ROWS[N_ROWS][N_FEATURES] = {\n");
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .map(|v| if *v == i32::MIN { "(-2147483647 - 1)".into() } else { v.to_string() })
            .collect();
        let _ = writeln!(s, "  {{{}}},", cells.join(", "));
    }
    s.push_str("};\n");
    s
}

/// What the ltu side of one variant produced on the host.
enum Trained {
    Model {
        bytes: Vec<u8>,
        spec: Box<ltu::export::ModelSpec>,
        inputs: Vec<Vec<i32>>,
        host: Vec<usize>,
        accuracy: Option<f64>,
        folds_failed: usize,
    },
    Failed(String),
}

/// Trains every applicable variant on all rows and cross-validates it, on all cores.
fn train_variants(p: &Prepared, rows: &[usize], variants: &[Variant]) -> Vec<Trained> {
    // Work items: (variant, None) = train on all rows, (variant, Some(fold)).
    let items: Vec<(usize, Option<usize>)> = (0..variants.len())
        .flat_map(|v| std::iter::once((v, None)).chain((0..p.folds.len()).map(move |f| (v, Some(f)))))
        .collect();
    type Out = Result<(Option<(Vec<u8>, Vec<u8>)>, f64), String>;
    let results: Mutex<BTreeMap<(usize, Option<usize>), Out>> = Mutex::new(BTreeMap::new());
    let next = AtomicUsize::new(0);
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let n = p.data.n_rows();
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(&(v, fold)) = items.get(i) else { break };
                let variant = &variants[v];
                let mut opts = Options::default();
                (variant.set)(&mut opts);
                let out: Out = match fold {
                    None => {
                        let ctx = Context::new(&p.data, SEED, None);
                        // The device stores the model without its host block (`ltu train --strip`).
                        let strip = ltu::export::Host { strip: true, meta: None };
                        algo::train(variant.algo, &ctx, &opts, false)
                            .and_then(|t| {
                                let device = t.spec.to_bytes_with(&strip)?;
                                Ok((Some((t.bytes, device)), t.train_accuracy))
                            })
                            .map_err(|e| e.to_string())
                    }
                    Some(f) => {
                        let test = &p.folds[f];
                        let train = ltu::split::complement(test, n);
                        let setup = Setup { seed: SEED, ..Setup::new(variant.algo, &opts) };
                        ltu::evaluate::holdout(&p.data, &train, test, &setup)
                            .map(|h| (None, h.accuracy))
                            .map_err(|e| e.to_string())
                    }
                };
                results.lock().unwrap().insert((v, fold), out);
            });
        }
    });
    let results = results.into_inner().unwrap();
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
                let spec = ltu::export::ModelSpec::from_model(&model);
                let inputs = ltu::encode::raw_rows(&spec.inputs, &p.data.subset(rows));
                let host =
                    inputs.iter().map(|x| model.predict(x).expect("row length is the model's")).collect();
                Trained::Model { bytes: device, spec: Box::new(spec), inputs, host, accuracy, folds_failed }
            }
        })
        .collect()
}

fn ltu_models(
    root: &Path,
    p: &Prepared,
    rows: &[usize],
    targets: &[Target],
    plugin: &Path,
) -> Result<Vec<Entry>> {
    let variants = variants();
    let trained = train_variants(p, rows, &variants);
    let base = root.join(OUT_DIR).join("ltu").join(p.name);
    let cargo_dir = root.join(OUT_DIR).join("cargo");
    // Twins keyed by their rows.rs and target: one per dataset and target in practice.
    let mut twins: BTreeMap<(String, &str), u64> = BTreeMap::new();
    let mut c_twins: BTreeMap<(String, &str), u64> = BTreeMap::new();
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
        let dir = base.join(variant.label.replace([' ', '-'], "_").trim_matches('_'));
        fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        let rows_src = rows_rs(&inputs);
        fs::write(dir.join("model.ltu"), &bytes)?;
        fs::write(dir.join("rows.rs"), &rows_src)?;
        let about = format!("{} ({})", p.name, variant.label);
        fs::write(dir.join("model.rs"), ltu::codegen::rust_source(&spec, &about))?;
        let c_dir = dir.join("c");
        fs::create_dir_all(&c_dir)?;
        let rows_h_src = rows_h(&inputs);
        fs::write(c_dir.join("rows.h"), &rows_h_src)?;
        fs::write(
            c_dir.join("model.c"),
            format!(
                "{}\n/* The bench harness's entry point. */\n\
                 int32_t model_predict(const int32_t *features, int32_t features_length)\n{{\n    \
                 (void)features_length;\n    return ltu_predict(features);\n}}\n",
                ltu::codegen::c_source(&spec, &about)
            ),
        )?;
        let essential = (!inputs.is_empty())
            .then(|| inputs.iter().map(|x| spec.essential_work(x) as f64).sum::<f64>() / inputs.len() as f64);
        let mut notes = Vec::new();
        if folds_failed > 0 {
            notes.push(format!("{folds_failed} of {FOLDS} CV folds failed to train"));
        }
        let mut measures = Vec::new();
        let mut generated = Vec::new();
        let mut generated_c = Vec::new();
        // Budget variants on the Cortex-M3 only; the defaults on every target.
        for &target in targets.iter().filter(|t| !variant.budget || t.triple == TARGETS[0].triple) {
            let key = (rows_src.clone(), target.triple);
            let twin_flash = match twins.get(&key) {
                Some(&f) => f,
                None => {
                    let twin_dir = base.join(format!("twin-{}", twins.len()));
                    fs::create_dir_all(&twin_dir)?;
                    fs::write(twin_dir.join("rows.rs"), &rows_src)?;
                    let elf = build_rust(root, target, &twin_dir, &cargo_dir, Build::Null, &[])?;
                    let f = sizes(&fs::read(&elf)?)?.flash;
                    twins.insert(key, f);
                    f
                }
            };
            for build in [Build::Runtime, Build::Codegen] {
                let elf = build_rust(root, target, &dir, &cargo_dir, build, &features)?;
                let flash = sizes(&fs::read(&elf)?)?.flash - twin_flash;
                let run = qemu::run(&elf, target.machine, Some(plugin))?;
                let codegen = build == Build::Codegen;
                let label =
                    if codegen { format!("{} codegen-rs", variant.label) } else { variant.label.to_string() };
                let m = measure(target, &run, &host, !codegen, flash)
                    .with_context(|| format!("{} {label} on {}", p.name, target.core))?;
                print_measure(&label, &m);
                if codegen {
                    generated.push(m);
                } else {
                    measures.push(m);
                }
            }
            // The generated C in the C harness, like emlearn's models.
            let key = (rows_h_src.clone(), target.triple);
            let c_twin_flash = match c_twins.get(&key) {
                Some(&f) => f,
                None => {
                    let elf = c_dir.join(format!("twin-{}.elf", target.triple));
                    build_c(root, target, &c_dir, &c_dir, None, &elf)?;
                    let f = sizes(&fs::read(&elf)?)?.flash;
                    c_twins.insert(key, f);
                    f
                }
            };
            let elf = c_dir.join(format!("model-{}.elf", target.triple));
            build_c(root, target, &c_dir, &c_dir, Some(&c_dir.join("model.c")), &elf)?;
            let flash = sizes(&fs::read(&elf)?)?.flash - c_twin_flash;
            let run = qemu::run_text(&elf, target.machine, Some(plugin))?;
            let label = format!("{} codegen-c", variant.label);
            let m = measure(target, &run, &host, false, flash)
                .with_context(|| format!("{} {label} on {}", p.name, target.core))?;
            print_measure(&label, &m);
            generated_c.push(m);
        }
        entries.push(Entry {
            family: "ltu",
            name: variant.label.into(),
            group: group.clone(),
            accuracy,
            model_bytes: Some(bytes.len()),
            essential,
            units: spec.units.len(),
            measures,
            notes: notes.clone(),
        });
        entries.push(Entry {
            family: "ltu",
            name: format!("{} codegen-rs", variant.label),
            group: group.clone(),
            accuracy,
            model_bytes: None,
            essential,
            units: spec.units.len(),
            measures: generated,
            notes: notes.clone(),
        });
        entries.push(Entry {
            family: "ltu",
            name: format!("{} codegen-c", variant.label),
            group,
            accuracy,
            model_bytes: None,
            essential,
            units: spec.units.len(),
            measures: generated_c,
            notes,
        });
    }
    Ok(entries)
}

/// What the Rust bench firmware runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Build {
    /// `model.ltu` through `ltu_runtime::Model`.
    Runtime,
    /// Nothing: the twin for flash.
    Null,
    /// `model.rs` from `ltu::codegen`.
    Codegen,
}

/// Builds the bench firmware; through the runtime, with only the cargo features `features` (the
/// model's [`ltu_runtime::Model::features_needed`]), as a firmware that runs one model would.
fn build_rust(
    root: &Path,
    target: Target,
    dir: &Path,
    cargo_dir: &Path,
    build: Build,
    features: &[&str],
) -> Result<PathBuf> {
    let options = BuildOptions {
        model_dir: Some(dir),
        target_dir: Some(cargo_dir),
        example: Some("bench"),
        null_twin: build == Build::Null,
        codegen: build == Build::Codegen,
        runtime_features: (build == Build::Runtime).then_some(features),
    };
    let elf = firmware::build(root, target, &options)?;
    let suffix = if build == Build::Codegen { "-codegen" } else { "" };
    let copy = dir.join(format!("bench-{}{suffix}.elf", target.triple));
    fs::copy(&elf, &copy).with_context(|| format!("copying {} to {}", elf.display(), copy.display()))?;
    Ok(copy)
}

/// Reads a bench run: regions (loading first for ltu), `p <class> <stack>` lines, `done`.
fn measure(target: Target, run: &Run, host: &[usize], has_load: bool, flash: u64) -> Result<Measure> {
    if run.code != 0 {
        print_log(run);
        bail!("the bench firmware exited with {}", run.code);
    }
    let lines: Vec<(usize, u64)> = run
        .log
        .iter()
        .filter_map(|l| {
            let mut it = l.strip_prefix("p ")?.split_whitespace();
            Some((it.next()?.parse().ok()?, it.next()?.parse().ok()?))
        })
        .collect();
    ensure!(run.log.iter().any(|l| l == "done"), "the bench firmware did not finish: {:?}", run.log);
    ensure!(lines.len() == host.len(), "{} predictions logged, want {}", lines.len(), host.len());
    let skip = usize::from(has_load);
    ensure!(
        run.regions.len() == host.len() + skip,
        "{} measured regions, want {}",
        run.regions.len(),
        host.len() + skip
    );
    Ok(Measure {
        target,
        load: has_load.then(|| run.regions[0]),
        predict: run.regions[skip..].to_vec(),
        stack: lines.iter().map(|l| l.1).collect(),
        flash,
        agree: lines.iter().zip(host).filter(|(l, &h)| l.0 == h).count(),
    })
}

/// C compiler flags of each target.
fn c_flags(target: Target) -> &'static [&'static str] {
    match target.triple {
        "thumbv6m-none-eabi" => &["-mcpu=cortex-m0", "-mthumb", "-mfloat-abi=soft"],
        "thumbv7em-none-eabihf" => &["-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16"],
        _ => &["-mcpu=cortex-m3", "-mthumb", "-mfloat-abi=soft"],
    }
}

/// The firmware example's memory layout for a target (the C firmware uses the same).
fn memory_x(root: &Path, target: Target) -> PathBuf {
    let file = match target.triple {
        "thumbv6m-none-eabi" => "microbit.x",
        "thumbv7em-none-eabihf" => "mps2.x",
        _ => "lm3s6965.x",
    };
    firmware::dir(root).join("memory").join(file)
}

/// Builds the C bench firmware around one model source (`None`: the twin, `null.c`).
fn build_c(
    root: &Path,
    target: Target,
    include: &Path,
    rows_dir: &Path,
    model: Option<&Path>,
    out: &Path,
) -> Result<()> {
    let c = root.join("bench/c");
    let build = out.with_extension("d");
    fs::create_dir_all(&build)?;
    fs::copy(memory_x(root, target), build.join("memory.x"))?;
    let model_src = model.map_or_else(|| c.join("null.c"), Path::to_path_buf);
    let mut gcc = Command::new("arm-none-eabi-gcc");
    gcc.args(c_flags(target))
        .args(["-Os", "-std=gnu11", "-ffunction-sections", "-fdata-sections", "-fno-common", "-w"])
        .arg("-I")
        .arg(include)
        .arg("-I")
        .arg(rows_dir)
        .args(["-nostartfiles", "-nostdlib", "-Wl,--gc-sections"])
        .arg(format!("-L{}", build.display()))
        .arg("-T")
        .arg(c.join("link.ld"))
        .arg(c.join("startup.c"))
        .arg(c.join("harness.c"))
        .arg(&model_src)
        .args(["-lc", "-lgcc", "-o"])
        .arg(out);
    cmd::run(&mut gcc)
}

fn emlearn_models(
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
        build_c(root, target, &include, &rows_dir, None, &elf)?;
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
                build_c(root, target, &include, &rows_dir, Some(&src), &elf)?;
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
                measures,
                notes,
            });
        }
    }
    Ok(entries)
}

/// One console line of a measurement.
fn print_measure(label: &str, m: &Measure) {
    let load = m.load.map_or(String::new(), |l| format!(", load {l}"));
    println!(
        "  {label:<30} {:<10} {:>6} instructions per prediction (max {}){load}, flash {} B, stack {} B, {}/{} agree",
        m.target.core,
        mean(&m.predict),
        m.predict.iter().max().unwrap_or(&0),
        m.flash,
        m.stack.iter().max().unwrap_or(&0),
        m.agree,
        m.predict.len()
    );
}

fn mean(xs: &[u64]) -> u64 {
    let n = xs.len().max(1) as u64;
    (xs.iter().sum::<u64>() + n / 2) / n
}

/// Instruction counts of the committed firmware model on the bench example (Cortex-M3).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Guard {
    load: u64,
    predict_total: u64,
    predict_max: u64,
    stack_max: u64,
}

impl Guard {
    fn line(&self) -> String {
        format!(
            "{} load={} predict_total={} predict_max={} stack_max={}",
            TARGETS[0].triple, self.load, self.predict_total, self.predict_max, self.stack_max
        )
    }

    fn parse(text: &str) -> Result<Guard> {
        let line = text
            .lines()
            .find(|l| l.starts_with(TARGETS[0].triple))
            .with_context(|| format!("no `{}` line", TARGETS[0].triple))?;
        let field = |key: &str| -> Result<u64> {
            let v = line
                .split_whitespace()
                .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
                .with_context(|| format!("no `{key}=` in `{line}`"))?;
            v.parse().with_context(|| format!("`{key}={v}` is not a count"))
        };
        Ok(Guard {
            load: field("load")?,
            predict_total: field("predict_total")?,
            predict_max: field("predict_max")?,
            stack_max: field("stack_max")?,
        })
    }
}

/// The regression guard: the committed firmware model on its TEST recordings' features
/// (`firmware-example/model/rows.rs`), Cortex-M3. Fails if any count grew past the reference.
fn reference_guard(root: &Path, plugin: &Path, update: bool) -> Result<(Guard, Option<Guard>)> {
    let target = TARGETS[0];
    let model_dir = firmware::model_dir(root);
    let inputs = Inputs::read(&model_dir)?;
    let host: Vec<usize> = inputs.expected.iter().map(|&c| usize::from(c)).collect();
    let options = BuildOptions {
        model_dir: Some(&model_dir),
        target_dir: Some(&root.join(OUT_DIR).join("cargo")),
        example: Some("bench"),
        null_twin: false,
        codegen: false,
        runtime_features: None,
    };
    let elf = firmware::build(root, target, &options)?;
    let run = qemu::run(&elf, target.machine, Some(plugin))?;
    let m = measure(target, &run, &host, true, 0).context("the committed firmware model")?;
    let now = Guard {
        load: m.load.unwrap_or(0),
        predict_total: m.predict.iter().sum(),
        predict_max: m.predict.iter().copied().max().unwrap_or(0),
        stack_max: m.stack.iter().copied().max().unwrap_or(0),
    };
    let path = root.join(REFERENCE);
    if update {
        let text = format!(
            "# Exact Cortex-M3 counts of the committed firmware model (firmware-example/model/) in the bench\n\
             # example: Model::from_bytes, the sum and the largest of its predictions on rows.rs, and the\n\
             # deepest painted stack. `cargo xtask bench-device --quick` (run by `cargo xtask test`) fails\n\
             # when a count grows; rewrite with `cargo xtask bench-device --update-reference`.\n{}\n",
            now.line()
        );
        fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
        println!("wrote {}: {}", path.display(), now.line());
        return Ok((now, None));
    }
    let reference =
        Guard::parse(&fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?)
            .with_context(|| format!("parsing {}", path.display()))?;
    println!("committed firmware model, {}: {}", target.core, now.line());
    println!("reference ({REFERENCE}):  {}", reference.line());
    let grew: Vec<String> = [
        ("load", now.load, reference.load),
        ("predict_total", now.predict_total, reference.predict_total),
        ("predict_max", now.predict_max, reference.predict_max),
        ("stack_max", now.stack_max, reference.stack_max),
    ]
    .iter()
    .filter(|(_, a, b)| a > b)
    .map(|(k, a, b)| format!("{k} {b} -> {a}"))
    .collect();
    ensure!(
        grew.is_empty(),
        "the committed firmware model got more expensive on the {}: {} (if that is intended, run \
         `cargo xtask bench-device --update-reference` and commit {REFERENCE})",
        target.core,
        grew.join(", ")
    );
    if now != reference {
        println!(
            "counts went down: run `cargo xtask bench-device --update-reference` and commit {REFERENCE}"
        );
    }
    Ok((now, Some(reference)))
}

struct Report {
    /// `git describe --always --dirty` of the measured tree.
    commit: String,
    datasets: Vec<(&'static str, usize, usize, Vec<Entry>)>,
    versions: Vec<(String, String)>,
    quick: bool,
}

fn versions(peers: &Value) -> Vec<(String, String)> {
    let first_line = |c: &mut Command| cmd::output(c).ok().and_then(|s| s.lines().next().map(str::to_string));
    let mut v = vec![
        ("rustc".to_string(), first_line(Command::new("rustc").arg("--version"))),
        ("qemu-system-arm".into(), first_line(Command::new("qemu-system-arm").arg("--version"))),
        ("arm-none-eabi-gcc".into(), first_line(Command::new("arm-none-eabi-gcc").arg("--version"))),
    ];
    if let Some(obj) = peers["versions"].as_object() {
        for (k, val) in obj {
            v.push((k.clone(), val.as_str().map(str::to_string)));
        }
    }
    v.into_iter().map(|(k, val)| (k, val.unwrap_or_else(|| "unknown".into()))).collect()
}

fn pct(a: Option<f64>) -> String {
    a.map_or_else(|| "—".into(), |a| format!("{:.1}", 100.0 * a))
}

fn render(report: &Report, guard: &Option<(Guard, Option<Guard>)>) -> String {
    let m3 = TARGETS[0].triple;
    let mut s = String::new();
    let _ = writeln!(s, "# On the device: ltu against emlearn, instruction for instruction\n");
    let _ = writeln!(
        s,
        "Generated by `cargo xtask bench-device{}` at commit `{}` — do not edit by hand. Every figure below was \
         measured in the same run.\n",
        if report.quick { " --quick" } else { "" },
        report.commit
    );
    s.push_str(
        "## Method\n\n\
         - **Device**: QEMU `mps2-an385` (Cortex-M3) for every model; the learners' defaults and every emlearn model \
         also on `microbit` (Cortex-M0) and `mps2-an386` (Cortex-M4F) in a full run. Instruction counts are exact: \
         the TCG plugin `firmware-example/tools/insncount.c` counts the instructions between two marker no-ops \
         around each call (the harness's argument moves and call are inside, about 5 instructions).\n\
         - **Rows**: per dataset, `np.sort(np.random.RandomState(0).choice(n, 50, replace=False))` of all rows \
         (`bench/device.py`). ltu's firmware gets the exact integers the host handed `Model::predict` for those \
         rows (what `ltu predict --json` prints as `inputs`); emlearn's gets the same rows quantized to int16 as \
         emlearn's own example does (`MinMaxScaler` on all rows, × 32767).\n\
         - **Datasets**: CSV files from `data/` as `ltu` loads them; `basicmotions-window` is the firmware \
         example's integer window features (`ltu_runtime::window`: mean, spread, energy, min and max of each of the \
         6 IMU channels, 30 inputs) of all 80 recordings of `data/basicmotions.csv`. emlearn gets numeric columns as \
         they are and categorical ones one-hot.\n\
         - **ltu** (`firmware-example/examples/bench.rs`, Rust, `opt-level = \"s\"`, LTO, one codegen unit): \
         `Model::from_bytes` measured once as its own region (\"load\"), then `predict` through an \
         `#[inline(never)]` function with `black_box` on model and row. Models are trained on all rows with seed 0 \
         without the host block (`--strip`: no names, input scales or metadata); the budget variants are the size options the learners offer today. \
         The runtime is built as a firmware that runs only that model would build it: `default-features = false` and \
         the cargo features `ltu inspect` lists for the model (`Model::features_needed`: its structure, weight kind \
         and `sparse` if it has a feature table), so code for other kinds of models is not linked.\n\
         - **emlearn** (`bench/c/harness.c`, `arm-none-eabi-gcc -Os -ffunction-sections -fdata-sections`, \
         `--gc-sections`, no LTO): `DecisionTreeClassifier(random_state=0)` and \
         `RandomForestClassifier(n_estimators=10, max_depth=10, random_state=0)` trained on all rows of the int16 \
         data, converted with `emlearn.convert(..., method=\"inline\" | \"loadable\", dtype=\"int16_t\")`; \
         `model_predict` sits in its own translation unit, so the call is real.\n\
         - **Flash**: text + data of the firmware minus text + data of its twin, the same firmware with the same \
         rows whose predict returns 0 and holds no model: the model plus every byte of code it needs (runtime, \
         libgcc helpers).\n\
         - **Stack**: before each prediction the 8 KiB below the caller are painted; afterwards the deepest \
         overwritten word gives the bytes used (the largest over the rows is shown).\n\
         - **Accuracy**: 10-fold cross-validation on the same folds for every model (`ltu::split::stratified_kfold`, \
         seed 0). ltu: the runtime's predictions of each fold's model; emlearn: its C model's predictions \
         (compiled on the host by emlearn), which is what the device computes.\n\
         - **device = host**: every on-chip prediction compared with the host's (ltu: the runtime on the host; \
         emlearn: its C code compiled on the host).\n\n",
    );
    s.push_str("Versions: ");
    let vs: Vec<String> = report.versions.iter().map(|(k, v)| format!("{k}: `{v}`")).collect();
    s.push_str(&vs.join(", "));
    s.push_str("\n\n");

    let _ = writeln!(s, "## Summary (Cortex-M3)\n");
    s.push_str(
        "Per dataset: emlearn's random forest (inline) and single tree (inline); and, run by the runtime from a \
         model file and compiled in as generated Rust or C (`ltu codegen`), the cheapest ltu model whose accuracy is \
         within 1 point of the forest's, else the most accurate ltu model.\n\n",
    );
    s.push_str(
        "| dataset | RF10 inline: acc % · instr · flash B | DT inline: acc % · instr · flash B | ltu with the runtime: model · acc % · instr · flash B · stack B | ltu codegen (Rust or C): model · acc % · instr · flash B · stack B |\n|---|---|---|---|---|\n",
    );
    for (name, _, _, entries) in &report.datasets {
        let cell = |e: Option<&Entry>| {
            e.and_then(|e| e.on(m3).map(|m| (e, m))).map_or("—".into(), |(e, m)| {
                format!("{} · {} · {}", pct(e.accuracy), mean(&m.predict), m.flash)
            })
        };
        let rf = entries.iter().find(|e| e.name == "RF10 inline");
        let dt = entries.iter().find(|e| e.name == "DT inline");
        let target_acc = rf.and_then(|e| e.accuracy).unwrap_or(0.0) - 0.01;
        let pick = |codegen: bool| {
            let ltu: Vec<(&Entry, &Measure)> = entries
                .iter()
                .filter(|e| e.family == "ltu" && e.name.contains("codegen") == codegen)
                .filter_map(|e| e.on(m3).map(|m| (e, m)))
                .collect();
            let best = ltu
                .iter()
                .filter(|(e, _)| e.accuracy.is_some_and(|a| a >= target_acc))
                .min_by_key(|(_, m)| mean(&m.predict))
                .or_else(|| ltu.iter().max_by(|a, b| a.0.accuracy.partial_cmp(&b.0.accuracy).unwrap()))
                .copied();
            best.map_or("—".into(), |(e, m)| {
                format!(
                    "`{}` · {} · {} · {} · {}",
                    e.name,
                    pct(e.accuracy),
                    mean(&m.predict),
                    m.flash,
                    m.stack.iter().max().unwrap_or(&0)
                )
            })
        };
        let _ = writeln!(s, "| {name} | {} | {} | {} | {} |", cell(rf), cell(dt), pick(false), pick(true));
    }
    s.push('\n');

    s.push_str(&goals(report, m3));

    if let Some((now, reference)) = guard {
        let _ = writeln!(s, "## Regression guard\n");
        let _ = writeln!(
            s,
            "The committed firmware model (`firmware-example/model/`, 40 TEST recordings of basicmotions) in the bench \
             example on the Cortex-M3: `{}`{}.\n",
            now.line(),
            reference.as_ref().map_or(String::new(), |r| format!("; reference `{REFERENCE}`: `{}`", r.line()))
        );
    }

    let _ = writeln!(s, "## Per dataset\n");
    for (name, n, measured, entries) in &report.datasets {
        let _ = writeln!(s, "### {name}\n");
        let _ = writeln!(s, "{n} rows, {measured} measured on the device.\n");
        let _ = writeln!(
            s,
            "![accuracy against instructions per prediction and against flash, {name}](device/{name}.svg)\n"
        );
        s.push_str("| model | CV acc % | instructions / predict: mean (min–max) | load | flash B | model file B | stack B | device = host |\n|---|---|---|---|---|---|---|---|\n");
        for e in entries {
            let label = format!("{} `{}`", e.family, e.name);
            match e.on(m3) {
                Some(m) => {
                    let _ = writeln!(
                        s,
                        "| {label} | {} | {} ({}–{}) | {} | {} | {} | {} | {}/{} |",
                        pct(e.accuracy),
                        mean(&m.predict),
                        m.predict.iter().min().unwrap_or(&0),
                        m.predict.iter().max().unwrap_or(&0),
                        m.load.map_or("—".into(), |l| l.to_string()),
                        m.flash,
                        e.model_bytes.map_or("—".into(), |b| b.to_string()),
                        m.stack.iter().max().unwrap_or(&0),
                        m.agree,
                        m.predict.len()
                    );
                }
                None => {
                    let _ = writeln!(s, "| {label} | {} | — | — | — | — | — | — |", pct(e.accuracy));
                }
            }
        }
        let others: Vec<&Target> =
            TARGETS[1..].iter().filter(|t| entries.iter().any(|e| e.on(t.triple).is_some())).collect();
        if !others.is_empty() {
            s.push_str("\nOther cores (mean instructions per prediction · flash B · stack B):\n\n| model |");
            for t in &others {
                let _ = write!(s, " {} |", t.core);
            }
            s.push_str("\n|---|");
            for _ in &others {
                s.push_str("---|");
            }
            s.push('\n');
            for e in entries.iter().filter(|e| others.iter().any(|t| e.on(t.triple).is_some())) {
                let _ = write!(s, "| {} `{}` |", e.family, e.name);
                for t in &others {
                    match e.on(t.triple) {
                        Some(m) => {
                            let _ = write!(
                                s,
                                " {} · {} · {} |",
                                mean(&m.predict),
                                m.flash,
                                m.stack.iter().max().unwrap_or(&0)
                            );
                        }
                        None => s.push_str(" — |"),
                    }
                }
                s.push('\n');
            }
        }
        let notes: Vec<String> = entries
            .iter()
            .flat_map(|e| e.notes.iter().map(move |n| format!("- {} `{}`: {n}", e.family, e.name)))
            .collect();
        if !notes.is_empty() {
            s.push_str("\nNotes:\n\n");
            for n in notes {
                s.push_str(&n);
                s.push('\n');
            }
        }
        s.push('\n');
    }
    s
}

/// Issue 12's picture goal, as a check: ltu's Pareto front lies left of emlearn's when every
/// emlearn model is dominated by some ltu model, at least as accurate and no more costly, in
/// each picture (instructions per prediction; flash).
fn pareto_goal(report: &Report, m3: &str) -> String {
    let mut s = String::from(
        "Issue 12's pictures: ltu's Pareto front lies left of emlearn's when every emlearn model has an ltu model \
         at least as accurate with no more instructions per prediction (left picture) and one at least as accurate \
         with no more flash (right picture).\n\n",
    );
    let mut left = 0;
    let mut lines = Vec::new();
    for (name, _, _, entries) in &report.datasets {
        let ltu: Vec<(f64, u64, u64)> = entries
            .iter()
            .filter(|e| e.family == "ltu")
            .filter_map(|e| Some((e.accuracy?, e.on(m3)?)))
            .map(|(a, m)| (a, mean(&m.predict), m.flash))
            .collect();
        let mut misses = Vec::new();
        let mut peers = 0;
        for e in entries.iter().filter(|e| e.family == "emlearn") {
            let (Some(acc), Some(m)) = (e.accuracy, e.on(m3)) else { continue };
            peers += 1;
            let (instr, flash) = (mean(&m.predict), m.flash);
            let as_good = || ltu.iter().filter(|l| l.0 >= acc - 1e-9);
            if !as_good().any(|l| l.1 <= instr) {
                misses.push(format!(
                    "`{}` ({} %, {instr} instructions): no ltu model as accurate with as few instructions",
                    e.name,
                    pct(Some(acc))
                ));
            }
            if !as_good().any(|l| l.2 <= flash) {
                misses.push(format!(
                    "`{}` ({} %, {flash} B): no ltu model as accurate in as little flash",
                    e.name,
                    pct(Some(acc))
                ));
            }
        }
        if peers == 0 {
            continue;
        }
        if misses.is_empty() {
            left += 1;
            lines.push(format!("- {name}: **left** of emlearn's {peers} models in both pictures"));
        } else {
            lines.push(format!("- {name}: not left of emlearn's: {}", misses.join("; ")));
        }
    }
    let _ = writeln!(s, "Left on {left} of {} datasets:\n", lines.len());
    for l in lines {
        let _ = writeln!(s, "{l}");
    }
    s.push('\n');
    s
}

/// The device goals of issues 11 and 12, checked on this run's Cortex-M3 figures.
fn goals(report: &Report, m3: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "## Goals (Cortex-M3)\n");
    s.push_str(
        "Issue 12: on every dataset some ltu model within 1 point of emlearn's RF10 (inline) in accuracy, with at \
         most half its instructions per prediction and at most its flash.\n\n",
    );
    let mut met = 0;
    let mut lines = Vec::new();
    for (name, _, _, entries) in &report.datasets {
        let Some((rf, rfm)) =
            entries.iter().find(|e| e.name == "RF10 inline").and_then(|e| e.on(m3).map(|m| (e, m)))
        else {
            continue;
        };
        let (acc, instr, flash) = (rf.accuracy.unwrap_or(0.0) - 0.01, mean(&rfm.predict), rfm.flash);
        let candidates: Vec<(&Entry, &Measure)> = entries
            .iter()
            .filter(|e| e.family == "ltu" && e.accuracy.is_some_and(|a| a >= acc - 1e-9))
            .filter_map(|e| e.on(m3).map(|m| (e, m)))
            .collect();
        let ok = candidates
            .iter()
            .filter(|(_, m)| 2 * mean(&m.predict) <= instr && m.flash <= flash)
            .min_by_key(|(_, m)| mean(&m.predict));
        let line = match ok {
            Some((e, m)) => {
                met += 1;
                format!("- {name}: **met** by `{}` ({} %, {} instructions, {} B; RF10 {} %, {instr}, {flash} B)", e.name, pct(e.accuracy), mean(&m.predict), m.flash, pct(rf.accuracy))
            }
            None => match candidates.iter().min_by_key(|(_, m)| mean(&m.predict)) {
                Some((e, m)) => format!(
                    "- {name}: not met; the cheapest ltu model within 1 point is `{}` ({} %, {} instructions, {} B) against at most {} instructions and {flash} B",
                    e.name, pct(e.accuracy), mean(&m.predict), m.flash, instr / 2
                ),
                None => format!("- {name}: not met; no ltu model within 1 point of RF10's {} %", pct(rf.accuracy)),
            },
        };
        lines.push(line);
    }
    let _ = writeln!(s, "Met on {met} of {} datasets:\n", lines.len());
    for l in lines {
        let _ = writeln!(s, "{l}");
    }
    s.push('\n');
    s.push_str(&pareto_goal(report, m3));

    // Issue 11, over every model run by the runtime.
    let runtime: Vec<(&str, &Entry, &Measure)> = report
        .datasets
        .iter()
        .flat_map(|(name, _, _, entries)| entries.iter().map(move |e| (*name, e)))
        .filter(|(_, e)| e.family == "ltu" && !e.name.contains("codegen"))
        .filter_map(|(n, e)| e.on(m3).map(|m| (n, e, m)))
        .collect();
    if runtime.is_empty() {
        return s;
    }
    let n = runtime.len();
    let stack_ok = runtime.iter().filter(|(_, _, m)| m.stack.iter().all(|&b| b <= 160)).count();
    let stack_max = runtime.iter().flat_map(|(_, _, m)| m.stack.iter().copied()).max().unwrap_or(0);
    let code = |e: &Entry, m: &Measure| m.flash.saturating_sub(e.model_bytes.unwrap_or(0) as u64);
    let code_ok = runtime.iter().filter(|(_, e, m)| code(e, m) <= 3072).count();
    let (code_min, code_max) = (
        runtime.iter().map(|(_, e, m)| code(e, m)).min().unwrap_or(0),
        runtime.iter().map(|(_, e, m)| code(e, m)).max().unwrap_or(0),
    );
    let per_byte =
        |e: &Entry, m: &Measure| m.load.unwrap_or(0) as f64 / e.model_bytes.unwrap_or(1).max(1) as f64;
    let load_ok = runtime.iter().filter(|(_, e, m)| per_byte(e, m) <= 40.0).count();
    let load_max = runtime.iter().map(|(_, e, m)| per_byte(e, m)).fold(0.0, f64::max);
    // Against the generated C of the same model (straight-line code: a stronger baseline than a
    // loop over the same arrays).
    let mut vs_c = Vec::new();
    for (name, e, m) in &runtime {
        let c = report
            .datasets
            .iter()
            .find(|d| d.0 == *name)
            .and_then(|d| d.3.iter().find(|x| x.name == format!("{} codegen-c", e.name)))
            .and_then(|x| x.on(m3));
        if let Some(c) = c {
            vs_c.push(mean(&m.predict) as f64 / mean(&c.predict).max(1) as f64);
        }
    }
    vs_c.sort_by(f64::total_cmp);
    // Against issue 11's essential work of the same predictions.
    let mut vs_essential: Vec<(f64, String)> = runtime
        .iter()
        .filter_map(|(name, e, m)| {
            e.essential.map(|w| (mean(&m.predict) as f64 / w.max(1.0), format!("{name} `{}`", e.name)))
        })
        .collect();
    vs_essential.sort_by(|a, b| a.0.total_cmp(&b.0));
    s.push_str("Issue 11, over the ");
    let _ = writeln!(s, "{n} models run by the runtime:\n");
    let _ = writeln!(s, "- Stack of `predict` ≤ 160 B: {stack_ok} of {n} (largest {stack_max} B).");
    let _ = writeln!(
        s,
        "- Runtime code with one model kind (flash minus the model file) ≤ 3 KB: {code_ok} of {n} ({code_min}–{code_max} B)."
    );
    let _ =
        writeln!(s, "- Loading ≤ 40 instructions per model byte: {load_ok} of {n} (largest {load_max:.1}).");
    if let (Some(lo), Some(hi)) = (vs_c.first(), vs_c.last()) {
        let median = vs_c[vs_c.len() / 2];
        let _ = writeln!(
            s,
            "- Instructions per prediction against `ltu codegen` C of the same model: {lo:.1}–{hi:.1}× (median {median:.1}×); the goal is fewer than a straightforward C evaluator."
        );
    }
    if let (Some(lo), Some(hi)) = (vs_essential.first(), vs_essential.last()) {
        let ok = vs_essential.iter().filter(|(r, _)| *r <= 1.5).count();
        let median = vs_essential[vs_essential.len() / 2].0;
        let _ = writeln!(
            s,
            "- Instructions per prediction ≤ 1.5 × the essential work (`ModelSpec::essential_work`, issue 11's count): {ok} of {n}; {:.1}× ({}) to {:.1}× ({}), median {median:.1}×.",
            lo.0, lo.1, hi.0, hi.1
        );
    }
    s.push_str(&issue11_why(&runtime, code));
    s.push_str(&issue11_table(report, &runtime, code));
    s.push('\n');
    s
}

/// Issue 11's goals model by model: what each runtime model measured against each goal, the goals
/// it misses, and the same model compiled to C (`ltu codegen`) against the goals that apply to it.
fn issue11_table(
    report: &Report,
    runtime: &[(&str, &Entry, &Measure)],
    code: impl Fn(&Entry, &Measure) -> u64,
) -> String {
    let m3 = TARGETS[0].triple;
    let mut s = String::from(
        "\nModel by model (✗ marks a missed goal: stack ≤ 160 B, runtime code ≤ 3072 B, loading ≤ 40 \
         instructions per model byte, instructions ≤ 1.5 × the essential work; the last column is the same model \
         as generated C, whose stack and instructions the same goals apply to):\n\n\
         | dataset | model | stack B | runtime code B | load / byte | instr / essential | runtime / generated C | misses | generated C: instr / essential · stack B |\n\
         |---|---|---|---|---|---|---|---|---|\n",
    );
    let mark = |ok: bool| if ok { "" } else { " ✗" };
    for (name, e, m) in runtime {
        let stack = m.stack.iter().copied().max().unwrap_or(0);
        let bytes = code(e, m);
        let per_byte = m.load.unwrap_or(0) as f64 / e.model_bytes.unwrap_or(1).max(1) as f64;
        let ratio = e.essential.map(|w| mean(&m.predict) as f64 / w.max(1.0));
        let c = report
            .datasets
            .iter()
            .find(|d| d.0 == *name)
            .and_then(|d| d.3.iter().find(|x| x.name == format!("{} codegen-c", e.name)))
            .and_then(|x| x.on(m3).map(|cm| (x, cm)));
        let mut misses = Vec::new();
        if stack > 160 {
            misses.push("stack");
        }
        if bytes > 3072 {
            misses.push("code");
        }
        if per_byte > 40.0 {
            misses.push("loading");
        }
        if ratio.is_none_or(|r| r > 1.5) {
            misses.push("instructions");
        }
        let vs_c = c.map_or("—".to_string(), |(_, cm)| {
            format!("{:.1}×", mean(&m.predict) as f64 / mean(&cm.predict).max(1) as f64)
        });
        let generated = c.map_or("—".to_string(), |(x, cm)| {
            let r = x.essential.map_or(f64::NAN, |w| mean(&cm.predict) as f64 / w.max(1.0));
            let st = cm.stack.iter().copied().max().unwrap_or(0);
            format!("{r:.2}×{} · {st}{}", mark(r <= 1.5), mark(st <= 160))
        });
        let _ = writeln!(
            s,
            "| {name} | `{}` | {stack}{} | {bytes}{} | {per_byte:.1}{} | {}{} | {vs_c} | {} | {generated} |",
            e.name,
            mark(stack <= 160),
            mark(bytes <= 3072),
            mark(per_byte <= 40.0),
            ratio.map_or("—".to_string(), |r| format!("{r:.2}×")),
            mark(ratio.is_some_and(|r| r <= 1.5)),
            if misses.is_empty() { "none".to_string() } else { misses.join(", ") },
        );
    }
    s
}

/// Which of issue 11's goals the runtime's models miss and why, by kind of model: trees of tests
/// (no unit: every FRINGE model) and models with units.
fn issue11_why(runtime: &[(&str, &Entry, &Measure)], code: impl Fn(&Entry, &Measure) -> u64) -> String {
    let mut s = String::from(
        "\nWhich models miss which goal, and why (docs/FORMAT.md section 9 has the profiles):\n\n",
    );
    for (tests, what) in
        [(true, "Trees of tests (no unit: every FRINGE model)"), (false, "Models with units")]
    {
        let group: Vec<_> = runtime.iter().filter(|(_, e, _)| (e.units == 0) == tests).collect();
        if group.is_empty() {
            continue;
        }
        let range = |v: Vec<f64>| {
            let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = v.iter().copied().fold(0.0, f64::max);
            (lo, hi)
        };
        let stack =
            range(group.iter().map(|(_, _, m)| m.stack.iter().copied().max().unwrap_or(0) as f64).collect());
        let bytes = range(group.iter().map(|(_, e, m)| code(e, m) as f64).collect());
        let ratio = range(
            group
                .iter()
                .filter_map(|(_, e, m)| e.essential.map(|w| mean(&m.predict) as f64 / w.max(1.0)))
                .collect(),
        );
        let names: Vec<String> = {
            let mut g: Vec<&str> = group.iter().map(|(_, e, _)| e.group.as_str()).collect();
            g.sort_unstable();
            g.dedup();
            g.iter().map(|g| format!("`{g}`")).collect()
        };
        let _ = writeln!(
            s,
            "- {what}, {} models ({}): stack {:.0}–{:.0} B, runtime code {:.0}–{:.0} B, {:.1}–{:.1}× the essential work.",
            group.len(),
            names.join(", "),
            stack.0,
            stack.1,
            bytes.0,
            bytes.1,
            ratio.0,
            ratio.1
        );
        let why = if tests {
            "  They meet the stack and code goals (a build with the `tree` feature alone links the walk, 174 B, and the \
             loader). They miss 1.5× the essential work: the walk over 12-byte node records costs about 23 instructions \
             per threshold node where the yardstick allows 9, and no layout read by safe Rust through bounds-tested \
             slices gets under about 10."
        } else {
            "  They miss the stack goal: three frames (the walk; the unit evaluator, which holds the 64-byte cache of \
             numeric features; the row scorer) with 36 bytes of saved registers each. They miss the code goal: the \
             loader's checks and accumulator proof (about 2 KB), the unit and feature evaluators, and `memcpy` (0.9 KB, \
             moving the 100-byte `Model`). They miss 1.5× the essential work: per unit about 35 instructions of record \
             decoding and best-row bookkeeping, per row about 45 before its first weight, per numeric input about 30, \
             where the yardstick allows 8 per row and 15 per input."
        };
        let _ = writeln!(s, "{why}");
    }
    s.push_str(
        "\nFor a fixed model `ltu codegen` meets every instruction goal (docs/CODEGEN.md); the runtime is for models \
         that arrive at run time.\n",
    );
    s
}

fn colour(group: &str) -> &'static str {
    match group {
        "ptree" => "#1f77b4",
        "ndl" => "#ff7f0e",
        "hsi" => "#9467bd",
        "sparse" => "#2ca02c",
        "DT" => "#7f7f7f",
        "RF10" => "#d62728",
        "oblique" => "#8c564b",
        "fringe" => "#e377c2",
        _ => "#000000",
    }
}

/// A point's label in the pictures: `ptree d≤2`, `RF10 ld`.
fn short_label(name: &str) -> String {
    name.replace(" --max-depth ", " d≤")
        .replace(" --max-nodes ", " n≤")
        .replace(" --rounds ", " r=")
        .replace(" --prune-z ", " z=")
        .replace(" codegen-rs", " rs")
        .replace(" codegen-c", " c")
        .replace(" inline", "")
        .replace(" loadable", " ld")
}

/// Indices of the Pareto-optimal points: no other point is at least as cheap and at least as
/// accurate, and strictly better in one.
fn pareto(points: &[(f64, f64)]) -> Vec<usize> {
    (0..points.len())
        .filter(|&i| {
            let (c, a) = points[i];
            !points.iter().any(|&(c2, a2)| c2 <= c && a2 >= a && (c2 < c || a2 > a))
        })
        .collect()
}

/// Two panels: accuracy against instructions per prediction, and against flash (log scales),
/// every model measured on the Cortex-M3, the Pareto front drawn and its points ringed.
fn pareto_svg(name: &str, entries: &[Entry]) -> String {
    let m3 = TARGETS[0].triple;
    let pts: Vec<(&Entry, f64, f64, f64)> = entries
        .iter()
        .filter_map(|e| {
            let m = e.on(m3)?;
            Some((e, mean(&m.predict).max(1) as f64, m.flash.max(1) as f64, 100.0 * e.accuracy?))
        })
        .collect();
    let (w, h, pw, ph, left, top) = (980.0, 470.0, 380.0, 300.0, 70.0, 40.0);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="20" font-size="14" text-anchor="middle">{name}: 10-fold CV accuracy against cost on a Cortex-M3 (up and left is better)</text>"#,
        w / 2.0
    );
    if pts.is_empty() {
        s.push_str("</svg>\n");
        return s;
    }
    let (amin, amax) = pts.iter().fold((f64::MAX, f64::MIN), |(lo, hi), p| (lo.min(p.3), hi.max(p.3)));
    let (amin, amax) = ((amin - 1.0).floor(), (amax + 1.0).ceil().min(100.0).max(amin + 1.0));
    for (panel, xlabel) in [
        (0usize, "instructions per prediction (mean, log scale)"),
        (1, "flash bytes: runtime + model (log scale)"),
    ] {
        let x0 = left + panel as f64 * (pw + 110.0);
        let cost = |p: &(&Entry, f64, f64, f64)| if panel == 0 { p.1 } else { p.2 };
        let (cmin, cmax) =
            pts.iter().fold((f64::MAX, f64::MIN), |(lo, hi), p| (lo.min(cost(p)), hi.max(cost(p))));
        let (lmin, lmax) = ((cmin.log10() - 0.1).floor(), (cmax.log10() + 0.1).ceil());
        let sx = |c: f64| x0 + (c.log10() - lmin) / (lmax - lmin) * pw;
        let sy = |a: f64| top + (amax - a) / (amax - amin) * ph;
        let _ = writeln!(
            s,
            r##"<rect x="{x0}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#444"/>"##
        );
        let mut decade = lmin;
        while decade <= lmax {
            for k in 1..10 {
                let c = 10f64.powf(decade) * f64::from(k);
                if c.log10() > lmax + 1e-9 {
                    break;
                }
                let x = sx(c);
                let major = k == 1;
                let _ = writeln!(
                    s,
                    r##"<line x1="{x:.1}" y1="{top}" x2="{x:.1}" y2="{}" stroke="{}" stroke-width="0.5"/>"##,
                    top + ph,
                    if major { "#bbb" } else { "#eee" }
                );
                if major {
                    let _ = writeln!(
                        s,
                        r#"<text x="{x:.1}" y="{}" text-anchor="middle">{}</text>"#,
                        top + ph + 14.0,
                        c as u64
                    );
                }
            }
            decade += 1.0;
        }
        let step = if amax - amin > 20.0 {
            5.0
        } else if amax - amin > 8.0 {
            2.0
        } else {
            1.0
        };
        let mut a = (amin / step).ceil() * step;
        while a <= amax {
            let y = sy(a);
            let _ = writeln!(
                s,
                r##"<line x1="{x0}" y1="{y:.1}" x2="{}" y2="{y:.1}" stroke="#eee" stroke-width="0.5"/>"##,
                x0 + pw
            );
            let _ = writeln!(s, r#"<text x="{}" y="{:.1}" text-anchor="end">{a}</text>"#, x0 - 4.0, y + 4.0);
            a += step;
        }
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle">{xlabel}</text>"#,
            x0 + pw / 2.0,
            top + ph + 32.0
        );
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle" transform="rotate(-90 {} {})">accuracy %</text>"#,
            x0 - 40.0,
            top + ph / 2.0,
            x0 - 40.0,
            top + ph / 2.0
        );
        let coords: Vec<(f64, f64)> = pts.iter().map(|p| (cost(p), p.3)).collect();
        let mut front = pareto(&coords);
        front.sort_by(|&i, &j| coords[i].0.partial_cmp(&coords[j].0).unwrap());
        let mut path = String::new();
        for (k, &i) in front.iter().enumerate() {
            let (x, y) = (sx(coords[i].0), sy(coords[i].1));
            if k == 0 {
                let _ = write!(path, "M{x:.1},{y:.1}");
            } else {
                let _ = write!(path, " H{x:.1} V{y:.1}");
            }
        }
        let _ = writeln!(s, r##"<path d="{path}" fill="none" stroke="#222" stroke-dasharray="4 3"/>"##);
        for (i, p) in pts.iter().enumerate() {
            let (x, y) = (sx(cost(p)), sy(p.3));
            let c = colour(&p.0.group);
            let hollow = p.0.name.ends_with("loadable") || p.0.name.contains("--");
            let fill = if hollow { "white" } else { c };
            if p.0.name.ends_with("codegen-c") {
                let _ = writeln!(
                    s,
                    r#"<polygon points="{:.1},{:.1} {:.1},{:.1} {:.1},{:.1}" fill="{fill}" stroke="{c}" stroke-width="2"><title>ltu {} — {:.1}%, {}</title></polygon>"#,
                    x,
                    y - 6.5,
                    x + 6.0,
                    y + 5.0,
                    x - 6.0,
                    y + 5.0,
                    p.0.name,
                    p.3,
                    cost(p) as u64
                );
            } else if p.0.name.ends_with("codegen-rs") {
                let _ = writeln!(
                    s,
                    r#"<polygon points="{:.1},{:.1} {:.1},{:.1} {:.1},{:.1} {:.1},{:.1}" fill="{fill}" stroke="{c}" stroke-width="2"><title>ltu {} — {:.1}%, {}</title></polygon>"#,
                    x,
                    y - 6.5,
                    x + 6.5,
                    y,
                    x,
                    y + 6.5,
                    x - 6.5,
                    y,
                    p.0.name,
                    p.3,
                    cost(p) as u64
                );
            } else if p.0.family == "ltu" {
                let _ = writeln!(
                    s,
                    r#"<circle cx="{x:.1}" cy="{y:.1}" r="5" fill="{fill}" stroke="{c}" stroke-width="2"><title>ltu {} — {:.1}%, {}</title></circle>"#,
                    p.0.name,
                    p.3,
                    cost(p) as u64
                );
            } else {
                let _ = writeln!(
                    s,
                    r#"<rect x="{:.1}" y="{:.1}" width="9" height="9" fill="{fill}" stroke="{c}" stroke-width="2"><title>emlearn {} — {:.1}%, {}</title></rect>"#,
                    x - 4.5,
                    y - 4.5,
                    p.0.name,
                    p.3,
                    cost(p) as u64
                );
            }
            let _ = writeln!(
                s,
                r##"<text x="{:.1}" y="{:.1}" font-size="9" fill="#333">{}</text>"##,
                x + 7.0,
                y - 6.0,
                short_label(&p.0.name)
            );
            if front.contains(&i) {
                let _ = writeln!(
                    s,
                    r##"<circle cx="{x:.1}" cy="{y:.1}" r="9" fill="none" stroke="#222" stroke-width="1"/>"##
                );
            }
        }
    }
    // Legend.
    let mut ly = top + ph + 52.0;
    let mut lx = left;
    let groups: Vec<(&str, &str)> = {
        let mut g: Vec<(&str, &str)> = Vec::new();
        for p in &pts {
            let key = (p.0.family, p.0.group.as_str());
            if !g.contains(&key) {
                g.push(key);
            }
        }
        g
    };
    for (family, group) in groups {
        let c = colour(group);
        if family == "ltu" {
            let _ = writeln!(s, r#"<circle cx="{lx}" cy="{ly}" r="5" fill="{c}"/>"#);
        } else {
            let _ =
                writeln!(s, r#"<rect x="{}" y="{}" width="9" height="9" fill="{c}"/>"#, lx - 4.5, ly - 4.5);
        }
        let _ = writeln!(s, r#"<text x="{}" y="{}">{family} {group}</text>"#, lx + 10.0, ly + 4.0);
        lx += 130.0;
        if lx > w - 150.0 {
            lx = left;
            ly += 18.0;
        }
    }
    let _ = writeln!(
        s,
        r#"<text x="{left}" y="{}">circle: ltu runtime + model file; diamond / triangle: ltu codegen, Rust / C; square: emlearn</text>"#,
        ly + 20.0
    );
    let _ = writeln!(
        s,
        r#"<text x="{left}" y="{}">filled: defaults / emlearn inline; hollow: budget option / emlearn loadable; ringed: on the Pareto front (dashed)</text>"#,
        ly + 36.0
    );
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pareto_keeps_only_undominated_points() {
        let pts = [(10.0, 90.0), (20.0, 95.0), (15.0, 80.0), (30.0, 95.0), (5.0, 70.0)];
        assert_eq!(pareto(&pts), [0, 1, 4]);
    }

    #[test]
    fn pareto_goal_needs_a_dominating_ltu_model_in_each_picture() {
        let entry = |family: &'static str, name: &str, accuracy: f64, predict: u64, flash: u64| Entry {
            family,
            name: name.into(),
            group: name.into(),
            accuracy: Some(accuracy),
            model_bytes: None,
            essential: None,
            units: 0,
            measures: vec![Measure {
                target: TARGETS[0],
                load: None,
                predict: vec![predict],
                stack: vec![16],
                flash,
                agree: 1,
            }],
            notes: Vec::new(),
        };
        let m3 = TARGETS[0].triple;
        let report = |entries: Vec<Entry>| Report {
            commit: "test".into(),
            datasets: vec![("d", 10, 10, entries)],
            versions: Vec::new(),
            quick: false,
        };
        // One ltu model cheaper on instructions, another as accurate in less flash: left.
        let left = report(vec![
            entry("ltu", "fast", 0.95, 50, 900),
            entry("ltu", "small", 0.96, 400, 200),
            entry("emlearn", "DT inline", 0.95, 100, 300),
        ]);
        assert!(pareto_goal(&left, m3).contains("Left on 1 of 1 datasets"), "{}", pareto_goal(&left, m3));
        // Both misses of one emlearn model are reported.
        let not =
            report(vec![entry("ltu", "big", 0.95, 150, 900), entry("emlearn", "DT inline", 0.95, 100, 300)]);
        let text = pareto_goal(&not, m3);
        assert!(text.contains("Left on 0 of 1 datasets"), "{text}");
        assert!(text.contains("as few instructions") && text.contains("as little flash"), "{text}");
    }

    #[test]
    fn issue11_why_groups_trees_of_tests_and_models_with_units() {
        let entry = |group: &str, units: usize, model_bytes: usize| Entry {
            family: "ltu",
            name: group.into(),
            group: group.into(),
            accuracy: Some(1.0),
            model_bytes: Some(model_bytes),
            essential: Some(20.0),
            units,
            measures: Vec::new(),
            notes: Vec::new(),
        };
        let measure = |predict: u64, stack: u64, flash: u64| Measure {
            target: TARGETS[0],
            load: Some(100),
            predict: vec![predict],
            stack: vec![stack],
            flash,
            agree: 1,
        };
        let (fringe, ptree, ndl) = (entry("fringe", 0, 100), entry("ptree", 1, 200), entry("ndl", 3, 300));
        let (a, b, c) = (measure(60, 48, 2900), measure(100, 276, 6200), measure(200, 216, 5300));
        let runtime = [("iris", &fringe, &a), ("iris", &ptree, &b), ("car", &ndl, &c)];
        let code = |e: &Entry, m: &Measure| m.flash - e.model_bytes.unwrap() as u64;
        let text = issue11_why(&runtime, code);
        assert!(
            text.contains("Trees of tests (no unit: every FRINGE model), 1 models (`fringe`): stack 48–48 B, runtime code 2800–2800 B, 3.0–3.0×"),
            "{text}"
        );
        assert!(
            text.contains("Models with units, 2 models (`ndl`, `ptree`): stack 216–276 B, runtime code 5000–6000 B, 5.0–10.0×"),
            "{text}"
        );
    }

    #[test]
    fn guard_line_round_trips() {
        let g = Guard { load: 1, predict_total: 2, predict_max: 3, stack_max: 4 };
        assert_eq!(Guard::parse(&format!("# comment\n{}\n", g.line())).unwrap(), g);
        assert!(Guard::parse("thumbv7m-none-eabi load=1").is_err());
    }
}

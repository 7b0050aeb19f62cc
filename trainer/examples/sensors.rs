//! From raw sensor recordings to a model that computes its own inputs on the device, measured
//! on the archive TRAIN/TEST splits of the four bundled time-series sets (basicmotions,
//! gunpoint, italypowerdemand, japanese-vowels).
//!
//! For each set: read the training recordings, fit the default pipeline
//! ([`recordings::Family::defaults`], the whole recording one window), train every registered
//! learner on the windows' statistics (default options, seed 0; `hsi` only on two-class sets),
//! store the pipeline in the model, load it with the runtime and score the test recordings
//! through `Model::predict_window` on their raw samples, as a device would. Beside them, a
//! 1-nearest-neighbour classifier (Euclidean) on the raw samples. Each learner runs in a child
//! process given [`CAP_SECONDS`]; one that takes longer is stopped and reported as such.
//!
//! Prints the tables and writes them into docs/SENSORS.md between the `sensors-table` markers.
//!
//! `cargo run --release -p ltu --example sensors` (a few minutes).

use std::collections::BTreeSet;
use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use ltu::data::recordings::{self, Layout, PipelineOptions, Recordings};
use ltu::data::{self, Dataset, LoadOptions};
use ltu::learn::{self, Algo, Context, Options};
use ltu::model::{stat_macs, stat_work, Feature, ModelSpec, Node, Pipeline, Structure};
use ltu_runtime::window::Stat;

/// A learner that has not finished training after this many seconds on a set is stopped.
const CAP_SECONDS: u64 = 120;

const BEGIN: &str =
    "<!-- sensors-table:begin (written by `cargo run --release -p ltu --example sensors`) -->";
const END: &str = "<!-- sensors-table:end -->";

/// The four sets: file stem and layout.
fn sets() -> Vec<(&'static str, Layout)> {
    vec![
        ("basicmotions", Layout::Wide),
        ("gunpoint", Layout::Wide),
        ("italypowerdemand", Layout::Wide),
        ("japanese-vowels", Layout::Long { recording: "recording".into() }),
    ]
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn load(name: &str) -> Dataset {
    let path = repo().join("data").join(name);
    let opts = LoadOptions { categorical: vec!["class".into()], ..LoadOptions::default() };
    data::load(&path, &opts).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn read(set: &str, split: &str, layout: &Layout) -> Recordings {
    let data = load(&format!("{set}_{split}.csv"));
    recordings::from_dataset(&data, layout).unwrap_or_else(|e| panic!("{set} {split}: {e}"))
}

/// What one learner did on one set.
#[derive(Debug, Clone)]
struct Run {
    accuracy: f64,
    device_bytes: usize,
    /// Distinct inputs the model refers to (a non-zero weight or a test).
    inputs_used: usize,
    /// Mean distinct inputs the runtime computed per test window.
    inputs_computed: f64,
    /// Cortex-M3 instructions of computing the kept statistics per window (the cost model).
    extraction: f64,
    train_accuracy: f64,
    train_seconds: f64,
}

/// Distinct inputs a model refers to: those of a feature with a non-zero weight in some unit,
/// and those a tree node tests.
fn inputs_used(spec: &ModelSpec) -> usize {
    let mut used = BTreeSet::new();
    let feature = |f: &Feature, used: &mut BTreeSet<usize>| match f {
        Feature::Numeric { attr, .. } | Feature::Equals { attr, .. } | Feature::Greater { attr, .. } => {
            used.insert(*attr);
        }
        Feature::Conjunction(lits) => used.extend(lits.iter().map(|l| l.attr)),
    };
    for unit in &spec.units {
        for (k, &t) in unit.terms.iter().enumerate() {
            if unit.rows.iter().any(|row| row[k] != 0) {
                feature(&spec.features[t], &mut used);
            }
        }
    }
    if let Structure::Tree(nodes) = &spec.structure {
        for node in nodes {
            if let Node::Categorical { attr, .. } | Node::Threshold { attr, .. } = node {
                used.insert(*attr);
            }
        }
    }
    used.len()
}

/// Child process: trains `algo` on `set` and prints one `RESULT` line.
fn run_one(set: &str, layout: &Layout, algo: Algo) -> Run {
    let train = read(set, "train", layout);
    let mut pipeline: Pipeline =
        recordings::fit_pipeline(&train, &PipelineOptions::default()).expect("pipeline");
    pipeline.recording = match layout {
        Layout::Long { recording } => Some(recording.clone()),
        Layout::Wide => None,
    };
    let columns: Vec<usize> = (0..train.channels.len()).collect();
    let (windows, _) = recordings::windows_dataset(&train, &pipeline, &columns).expect("windows");
    // As `ltu train --recordings`: the model keeps the statistics it reads, in its pipeline.
    let mut ctx = Context::new(&windows, 0, None);
    ctx.pipeline = Some(pipeline.clone());
    ctx.window_len = train.recordings.iter().map(|r| r.len()).max().unwrap_or(0);
    let start = Instant::now();
    let trained = learn::train(algo, &ctx, &Options::default(), true).expect("train");
    let train_seconds = start.elapsed().as_secs_f64();
    let kept = trained.spec.pipeline.clone().expect("the model carries its pipeline");
    let model = ltu_runtime::Model::from_bytes(&trained.bytes).expect("the runtime loads the model");
    let classes = trained.spec.names.as_ref().expect("names").classes.clone();

    // The test recordings through the runtime, channels and classes matched by name.
    let test = read(set, "test", layout);
    let test_columns: Vec<usize> = pipeline
        .channels
        .iter()
        .map(|ch| test.channels.iter().position(|n| *n == ch.name).expect("test channel"))
        .collect();
    // The trainer's own prediction of each test window, to check the device against.
    let (test_windows, _) = recordings::windows_dataset(&test, &pipeline, &test_columns).expect("windows");
    let raw = trained.rows(&test_windows);
    let (mut correct, mut n, mut computed) = (0usize, 0usize, 0usize);
    for recording in &test.recordings {
        let samples = recordings::samples(recording, &pipeline, &test_columns);
        for window in pipeline.windows(recording.len()) {
            let slices: Vec<&[i16]> = samples.iter().map(|c| &c[window.clone()]).collect();
            let p = model.predict_window(&slices).expect("predict_window");
            // Which inputs the runtime asks for on this window (it computes only those).
            let mut read = BTreeSet::new();
            let again = model
                .predict_with(|i| {
                    read.insert(i);
                    let f = kept.features.get(i)?;
                    f.compute(slices[usize::from(f.channel)]).ok()
                })
                .expect("predict_with");
            assert_eq!(p, again);
            assert_eq!(trained.spec.predict(&raw[n]), p, "{set} {algo}: trainer and runtime disagree");
            computed += read.len();
            correct += usize::from(classes[p] == test.classes[recording.class]);
            n += 1;
        }
    }
    Run {
        accuracy: correct as f64 / n as f64,
        device_bytes: trained.device_bytes,
        extraction: trained.extraction.map_or(0.0, |e| e.instructions as f64),
        inputs_used: inputs_used(&trained.spec),
        inputs_computed: computed as f64 / n as f64,
        train_accuracy: trained.train_accuracy,
        train_seconds,
    }
}

/// 1-nearest-neighbour (Euclidean, raw values, every channel) accuracy on the test recordings;
/// each recording cut to the shortest recording's length (train and test).
fn nearest_neighbour(train: &Recordings, test: &Recordings) -> (f64, usize) {
    let shortest = train.length_range().0.min(test.length_range().0);
    let vector = |r: &ltu::data::recordings::Recording, columns: &[usize]| -> Vec<f64> {
        columns.iter().flat_map(|&c| r.samples[c][..shortest].iter().copied()).collect()
    };
    let own: Vec<usize> = (0..train.channels.len()).collect();
    let test_columns: Vec<usize> = train
        .channels
        .iter()
        .map(|name| test.channels.iter().position(|n| n == name).expect("test channel"))
        .collect();
    let references: Vec<(Vec<f64>, &str)> =
        train.recordings.iter().map(|r| (vector(r, &own), train.classes[r.class].as_str())).collect();
    let correct = test
        .recordings
        .iter()
        .filter(|r| {
            let x = vector(r, &test_columns);
            let nearest = references
                .iter()
                .map(|(v, class)| (v.iter().zip(&x).map(|(a, b)| (a - b) * (a - b)).sum::<f64>(), *class))
                .min_by(|a, b| a.0.total_cmp(&b.0))
                .expect("training recordings");
            nearest.1 == test.classes[r.class]
        })
        .count();
    (correct as f64 / test.recordings.len() as f64, shortest)
}

/// Runs one learner in a child process, stopping it after [`CAP_SECONDS`]. `Err` says why
/// there is no result.
fn run_child(set: &str, algo: Algo) -> Result<Run, String> {
    let exe = std::env::current_exe().expect("own path");
    let mut child = Command::new(exe)
        .args(["--one", set, algo.name()])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn");
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            let mut out = String::new();
            child.stdout.take().expect("stdout").read_to_string(&mut out).expect("read");
            if !status.success() {
                return Err(format!("failed ({status})"));
            }
            let line = out.lines().find_map(|l| l.strip_prefix("RESULT\t")).ok_or("no result")?;
            let f: Vec<f64> = line.split('\t').map(|v| v.parse().expect("number")).collect();
            return Ok(Run {
                accuracy: f[0],
                device_bytes: f[1] as usize,
                inputs_used: f[2] as usize,
                inputs_computed: f[3],
                train_accuracy: f[4],
                train_seconds: f[5],
                extraction: f[6],
            });
        }
        if start.elapsed() > Duration::from_secs(CAP_SECONDS) {
            child.kill().expect("kill");
            child.wait().expect("wait");
            return Err(format!("stopped after {CAP_SECONDS} s"));
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn pct(x: f64) -> String {
    format!("{:.1}", 100.0 * x)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() == 4 && args[1] == "--one" {
        let layout = sets().into_iter().find(|(s, _)| *s == args[2]).expect("set").1;
        let algo: Algo = args[3].parse().expect("algo");
        let r = run_one(&args[2], &layout, algo);
        println!(
            "RESULT\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
            r.accuracy,
            r.device_bytes,
            r.inputs_used,
            r.inputs_computed,
            r.train_accuracy,
            r.train_seconds,
            r.extraction
        );
        return;
    }
    let start = Instant::now();
    let algos: Vec<Algo> = Algo::ALL.to_vec();
    let mut summary = Vec::new();
    let mut detail = Vec::new();
    let mut notes = Vec::new();
    for (set, layout) in sets() {
        let train = read(set, "train", &layout);
        let test = read(set, "test", &layout);
        let pipeline = recordings::fit_pipeline(&train, &PipelineOptions::default()).expect("pipeline");
        let (nn, nn_len) = nearest_neighbour(&train, &test);
        let (lo, hi) = train.length_range();
        let (tlo, thi) = test.length_range();
        println!(
            "{set}: {} channels, {} classes, {} training and {} test recordings of {}..{} / {}..{} samples, {} inputs; 1-NN {}% (on {nn_len} samples)",
            train.channels.len(),
            train.classes.len(),
            train.recordings.len(),
            test.recordings.len(),
            lo,
            hi,
            tlo,
            thi,
            pipeline.features.len(),
            pct(nn)
        );
        let mut cells = Vec::new();
        for &algo in &algos {
            if algo == Algo::Hsi && train.classes.len() > 2 {
                cells.push("–".to_string());
                continue;
            }
            let wall = Instant::now();
            let result = run_child(set, algo);
            let wall = wall.elapsed().as_secs_f64();
            match result {
                Ok(r) => {
                    println!(
                        "  {:8} test {:>5}%  train {:>5}%  {:>6} device bytes  {:>3} inputs used  {:>5.1} computed/window  train {:>6.1} s  (wall {:.1} s)",
                        algo.name(),
                        pct(r.accuracy),
                        pct(r.train_accuracy),
                        r.device_bytes,
                        r.inputs_used,
                        r.inputs_computed,
                        r.train_seconds,
                        wall
                    );
                    cells.push(pct(r.accuracy));
                    detail.push(format!(
                        "| {set} | {} | {} | {} | {} | {} of {} | {:.1} | {:.0} | {:.1} |",
                        algo.name(),
                        pct(r.accuracy),
                        pct(r.train_accuracy),
                        r.device_bytes,
                        r.inputs_used,
                        pipeline.features.len(),
                        r.inputs_computed,
                        r.extraction,
                        r.train_seconds
                    ));
                }
                Err(why) => {
                    println!("  {:8} {why} (wall {wall:.1} s)", algo.name());
                    cells.push("no result".to_string());
                    notes.push(format!("{} on {set}: {why}.", algo.name()));
                    detail.push(format!("| {set} | {} | {why} | | | | | | |", algo.name()));
                }
            }
        }
        summary.push(format!(
            "| {set} | {} | {} | {}..{} | {} | {} | {} | {} |",
            train.channels.len(),
            train.classes.len(),
            lo.min(tlo),
            hi.max(thi),
            train.recordings.len(),
            test.recordings.len(),
            cells.join(" | "),
            pct(nn)
        ));
    }
    let seconds = start.elapsed().as_secs_f64();
    let mut table = String::new();
    table.push_str(&format!(
        "Test accuracy (%) on the archive's TEST split, every learner with its default options and seed 0 \
         on the training recordings' windows (the whole recording one window, the default features), \
         scored by the runtime's `Model::predict_window` on the raw test samples. 1-NN: Euclidean \
         nearest neighbour on the raw samples{}.\n\n",
        " (japanese-vowels: every recording cut to the shortest, 7 frames)"
    ));
    table.push_str(&format!(
        "| set | channels | classes | samples | train | test | {} | 1-NN raw |\n",
        algos.iter().map(|a| a.name()).collect::<Vec<_>>().join(" | ")
    ));
    table.push_str(&format!("|{}\n", "---|".repeat(7 + algos.len())));
    for row in &summary {
        table.push_str(row);
        table.push('\n');
    }
    table.push_str(
        "\nPer model: test and training accuracy (%), the bytes a device stores (model and \
         pipeline, no host block: `--strip`), the inputs the model refers to (a non-zero weight or a \
         tree test) of the pipeline's inputs, the mean number of inputs the runtime computed per \
         test window (it computes an input when the evaluation path reads it; a unit stored dense \
         reads all of its standard features), what computing the statistics the model keeps costs \
         per window by `ltu train`'s Cortex-M3 cost model (`ltu::model::stat_work`; the firmware \
         example measures one model on QEMU), and training time in seconds.\n\n",
    );
    table.push_str(
        "| set | learner | test % | train % | device bytes | inputs used | computed / window | extraction, M3 instructions / window | train s |\n",
    );
    table.push_str("|---|---|---|---|---|---|---|---|---|\n");
    for row in &detail {
        table.push_str(row);
        table.push('\n');
    }
    for note in &notes {
        table.push_str(&format!("\n{note}\n"));
    }
    table.push_str(&format!(
        "\nWhole run: {seconds:.0} s (release build, each learner capped at {CAP_SECONDS} s).\n"
    ));
    table.push_str(&stat_costs());
    println!("\n{table}");
    write_doc(&table);
}

/// The extraction cost model per statistic (`ltu::model::stat_work`): Cortex-M3 instructions for
/// a segment of 25 and of 100 samples, the part per sample, and multiply-accumulates per sample.
fn stat_costs() -> String {
    let mut out = String::from(
        "\nThe cost model `ltu train` counts extraction with (`ltu::model::stat_work`), per statistic \
         over a segment of `n` samples: Cortex-M3 instructions, and multiply-accumulates.\n\n\
         | statistic | n = 25 | n = 100 | per sample | multiply-accumulates per sample |\n|---|---|---|---|---|\n",
    );
    for stat in Stat::ALL {
        let (w25, w100) = (stat_work(stat, 25), stat_work(stat, 100));
        let macs = stat_macs(stat, 1);
        out.push_str(&format!("| `{stat}` | {w25} | {w100} | {} | {macs} |\n", (w100 - w25) / 75));
    }
    out
}

/// Replaces the text between the markers of docs/SENSORS.md with `table`.
fn write_doc(table: &str) {
    let path = repo().join("docs/SENSORS.md");
    let Ok(doc) = std::fs::read_to_string(&path) else {
        eprintln!("{} not found: table not written", path.display());
        return;
    };
    let (Some(b), Some(e)) = (doc.find(BEGIN), doc.find(END)) else {
        eprintln!("{}: no markers: table not written", path.display());
        return;
    };
    let out = format!("{}{BEGIN}\n\n{table}\n{}", &doc[..b], &doc[e..]);
    std::fs::write(&path, out).expect("write docs/SENSORS.md");
    println!("wrote {}", path.display());
}

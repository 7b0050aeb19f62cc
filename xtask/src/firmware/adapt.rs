//! `cargo xtask adapt`: the firmware that adapts to a drifted sensor (`firmware-example/examples/adapt.rs`).
//!
//! The scenario: a model trained on the host from the basicmotions TRAIN recordings (a smart
//! watch's 3-axis accelerometer, channels 0..3, and gyroscope, channels 3..6) is deployed on a
//! device whose accelerometer reads 1/9.80665 of what the training device read ([`DRIFT`]): the
//! factor between m/s² and g, as when a replacement sensor reports g where the model learned from
//! m/s². The device is given the labelled drifted TRAIN recordings (10 per class, classes
//! interleaved: [`update_csv`]) and corrects its model with `ltu_runtime::Learner` in epochs until
//! one makes no mistake ([`MAX_EPOCHS`] at most); it is evaluated on the TEST recordings, which no
//! update sees, drifted and undrifted. The host runs the same updates with the runtime's learner
//! and with `ltu update` (the trainer's reference of the procedure), which must agree byte for
//! byte, and hands the firmware the learned model's length and CRC: the firmware exits non-zero
//! unless its own learned model has them.

use std::fmt::{self, Write as _};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{anyhow, ensure, Context, Result};
use ltu_runtime::{Learner, Model, Outcome};

use crate::firmware::cost::{self, Spread};
use crate::firmware::inputs::{self, frames_le, model_inputs, windows_of, Window};
use crate::firmware::qemu::{self, print_log};
use crate::firmware::{self, demo, BuildOptions, Target};
use crate::steps::Steps;
use crate::{cmd, prereq};

/// Where `cargo xtask adapt` works, relative to the repository root.
pub const OUT_DIR: &str = "target/adapt";
/// The recordings the base model learns from, and (drifted) the recordings the device learns from.
pub const TRAIN_CSV: &str = demo::TRAIN_CSV;
/// The held-back recordings: accuracy before and after, drifted and undrifted.
pub const TEST_CSV: &str = inputs::TEST_CSV;
/// `ltu train` options of the base model: a perceptron tree over the window statistics. On these
/// recordings it is one linear machine (a unit to correct); a tree of tests only would not learn.
pub const TRAIN_OPTIONS: [&str; 6] =
    ["--recordings", "--algo", "ptree", "--window-features", "mean,spread,energy,min,max", "--quiet"];
/// Standard gravity, m/s² per g.
const G: f64 = 9.80665;
/// The drift: the accelerometer (channels 0, 1, 2) reads 1/9.80665 of the training device's values.
pub const DRIFT: [ChannelDrift; 3] = [
    ChannelDrift { channel: 0, gain: 1.0 / G, offset: 0.0 },
    ChannelDrift { channel: 1, gain: 1.0 / G, offset: 0.0 },
    ChannelDrift { channel: 2, gain: 1.0 / G, offset: 0.0 },
];
/// The drifted recordings the device learns from, in its order (relative to the repository root).
pub const UPDATE_CSV: &str = "target/adapt/update.csv";
/// Labelled drifted windows per class the device learns from, at most.
pub const MAX_PER_CLASS: usize = 20;
/// Passes over the update windows, at most; learning stops after the first pass without a mistake.
pub const MAX_EPOCHS: usize = 20;
/// The accuracy on drifted TEST windows after learning must be within this many points of the
/// accuracy on undrifted ones.
pub const GOAL_POINTS: f64 = 5.0;
/// The firmware example.
pub const EXAMPLE: &str = "adapt";
/// Exit code of the firmware when its learned model differs from the host's (`EXIT_MISMATCH`).
const EXIT_MISMATCH: i32 = 1;

/// A sensor channel whose readings changed: every value `v` of the channel reads `gain * v + offset`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChannelDrift {
    /// The channel (`chK_` columns of the recordings).
    pub channel: usize,
    /// Multiplier.
    pub gain: f64,
    /// Added after the gain, in the recording's units.
    pub offset: f64,
}

/// Applies `drift` to the wide-layout recordings `text` (a header of `chK_tNNN` columns and a
/// `class` column, one recording per line): each value of a drifted channel becomes
/// `gain * v + offset`, written with six decimals; other cells are copied. `name` is for errors.
pub fn drift_csv(text: &str, drift: &[ChannelDrift], name: &str) -> Result<String> {
    let mut lines = text.lines();
    let header = lines.next().with_context(|| format!("{name}: empty file"))?;
    let channel_of: Vec<Option<usize>> = header
        .split(',')
        .map(|col| {
            let (ch, _) = col.strip_prefix("ch")?.split_once("_t")?;
            ch.parse().ok()
        })
        .collect();
    for d in drift {
        ensure!(
            channel_of.contains(&Some(d.channel)),
            "{name}: no column of channel {} (ch{}_t...) to drift",
            d.channel,
            d.channel
        );
    }
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    out.push_str(header);
    out.push('\n');
    for (i, line) in lines.enumerate() {
        let cells: Vec<&str> = line.split(',').collect();
        ensure!(
            cells.len() == channel_of.len(),
            "{name}, line {}: {} cells, the header has {}",
            i + 2,
            cells.len(),
            channel_of.len()
        );
        for (k, (cell, ch)) in cells.iter().zip(&channel_of).enumerate() {
            if k > 0 {
                out.push(',');
            }
            match ch.and_then(|c| drift.iter().find(|d| d.channel == c)) {
                Some(d) => {
                    let v: f64 = cell.trim().parse().map_err(|e| {
                        anyhow::anyhow!("{name}, line {}, column {}: `{cell}`: {e}", i + 2, k + 1)
                    })?;
                    let _ = write!(out, "{:.6}", d.gain * v + d.offset);
                }
                None => out.push_str(cell),
            }
        }
        out.push('\n');
    }
    Ok(out)
}

/// Reads `src`, drifts it and writes `dst` (paths relative to `root`).
pub fn write_drifted(root: &Path, src: &str, dst: &str, drift: &[ChannelDrift]) -> Result<()> {
    let text = fs::read_to_string(root.join(src)).with_context(|| format!("reading {src}"))?;
    let drifted = drift_csv(&text, drift, src)?;
    let path = root.join(dst);
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    fs::write(&path, drifted).with_context(|| format!("writing {dst}"))
}

/// One window and its class index.
pub type Labelled = (Window, usize);

/// The scenario's model and windows.
pub struct Scenario {
    /// The base model file, trained on the undrifted TRAIN recordings.
    pub model: Vec<u8>,
    /// The drifted TRAIN windows the device learns from, in the order it sees them.
    pub update: Vec<Labelled>,
    /// The drifted TEST windows (never learned from).
    pub drifted: Vec<Labelled>,
    /// The undrifted TEST windows.
    pub clean: Vec<Labelled>,
}

impl Scenario {
    /// Trains the base model with `ltu train`, writes the drifted recordings next to it (`OUT_DIR`)
    /// and cuts the windows as the model's pipeline does.
    pub fn generate(root: &Path) -> Result<Scenario> {
        fs::create_dir_all(root.join(OUT_DIR)).with_context(|| format!("creating {OUT_DIR}"))?;
        let model_path = format!("{OUT_DIR}/model.ltu");
        demo::train_with(root, TRAIN_CSV, &TRAIN_OPTIONS, &model_path)?;
        let model = fs::read(root.join(&model_path)).with_context(|| format!("reading {model_path}"))?;
        let drifted_train = format!("{OUT_DIR}/drifted_train.csv");
        let drifted_test = format!("{OUT_DIR}/drifted_test.csv");
        write_drifted(root, TRAIN_CSV, &drifted_train, &DRIFT)?;
        write_drifted(root, TEST_CSV, &drifted_test, &DRIFT)?;
        let loaded = inputs::load_model(&model)?;
        let names = loaded.names().context("the model carries no class names")?;
        let classes: Vec<&str> = (0..loaded.n_classes()).map(|c| names.class(c)).collect();
        let text = fs::read_to_string(root.join(&drifted_train))
            .with_context(|| format!("reading {drifted_train}"))?;
        fs::write(root.join(UPDATE_CSV), update_csv(&text, &classes, &drifted_train)?)
            .with_context(|| format!("writing {UPDATE_CSV}"))?;
        let update = labelled_windows(root, &loaded, UPDATE_CSV)?;
        let drifted = labelled_windows(root, &loaded, &drifted_test)?;
        let clean = labelled_windows(root, &loaded, TEST_CSV)?;
        Ok(Scenario { model, update, drifted, clean })
    }
}

/// The windows of `csv` with the index of their class among the model's.
fn labelled_windows(root: &Path, model: &Model<'_>, csv: &str) -> Result<Vec<Labelled>> {
    let names = model.names().context("the model carries no class names")?;
    windows_of(root, model, csv)?
        .into_iter()
        .map(|(window, class)| {
            let label = (0..model.n_classes())
                .find(|&c| names.class(c) == class)
                .with_context(|| format!("{csv}: class `{class}` is not one of the model's"))?;
            Ok((window, label))
        })
        .collect()
}

/// At most `per_class` windows of each class, in rounds: the first window of every class (in class
/// order), then the second, and so on, so that the learner sees the classes mixed.
pub fn interleave<T>(items: Vec<(T, usize)>, per_class: usize) -> Vec<(T, usize)> {
    let mut seen = Vec::new();
    let mut ranked: Vec<(usize, (T, usize))> = items
        .into_iter()
        .filter_map(|item| {
            let label = item.1;
            if seen.len() <= label {
                seen.resize(label + 1, 0);
            }
            seen[label] += 1;
            (seen[label] <= per_class).then_some((seen[label], item))
        })
        .collect();
    ranked.sort_by_key(|(rank, (_, label))| (*rank, *label));
    ranked.into_iter().map(|(_, item)| item).collect()
}

/// The recordings the device learns from, in the order it sees them: the recordings of `text`
/// (wide layout, the class in the last column) [`interleave`]d, at most [`MAX_PER_CLASS`] per class.
/// `classes` are the model's, in its order; `name` is for errors.
pub fn update_csv(text: &str, classes: &[&str], name: &str) -> Result<String> {
    let mut lines = text.lines();
    let header = lines.next().with_context(|| format!("{name}: empty file"))?;
    let rows = lines
        .enumerate()
        .map(|(i, line)| {
            let class = line.rsplit(',').next().unwrap_or_default().trim();
            let label = classes.iter().position(|c| *c == class).with_context(|| {
                format!("{name}, line {}: class `{class}` is not one of the model's", i + 2)
            })?;
            Ok((line, label))
        })
        .collect::<Result<Vec<_>>>()?;
    let mut out = format!("{header}\n");
    for (line, _) in interleave(rows, MAX_PER_CLASS) {
        out.push_str(line);
        out.push('\n');
    }
    Ok(out)
}

/// Windows of `windows` the model classifies correctly.
fn correct(model: &Model<'_>, windows: &[Labelled]) -> Result<usize> {
    let mut right = 0;
    for (i, (window, label)) in windows.iter().enumerate() {
        let channels: Vec<&[i16]> = window.iter().map(Vec::as_slice).collect();
        let class = model.predict_window(&channels).map_err(|e| anyhow!("predict on window {i}: {e}"))?;
        right += usize::from(class == *label);
    }
    Ok(right)
}

/// What the host computes: the accuracies, and the learned model the device must reproduce.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostRun {
    /// Undrifted TEST windows classified correctly by the base model.
    pub clean: usize,
    /// Drifted TEST windows classified correctly before learning.
    pub before: usize,
    /// ... and after.
    pub after: usize,
    /// Mistakes (updates whose outcome was not `Correct`) in each epoch.
    pub mistakes: Vec<usize>,
    /// Whether each update, in order, found a mistake.
    pub was_mistake: Vec<bool>,
    /// The learned model file.
    pub learned: Vec<u8>,
    /// Its CRC-32 (its last four bytes).
    pub crc: u32,
    /// RAM the learner needs for this model (its weight table).
    pub ram: usize,
}

/// Runs the scenario's updates on the host with the runtime's learner, as the firmware does:
/// epochs over the update windows until one makes no mistake, at most [`MAX_EPOCHS`].
pub fn learn_on_host(s: &Scenario) -> Result<HostRun> {
    let model = inputs::load_model(&s.model)?;
    let clean = correct(&model, &s.clean)?;
    let before = correct(&model, &s.drifted)?;
    let rows = s
        .update
        .iter()
        .map(|(window, label)| Ok((model_inputs(&model, window)?, *label)))
        .collect::<Result<Vec<_>>>()?;
    let ram = Learner::ram_needed(&s.model).map_err(|e| anyhow!("Learner::ram_needed: {e}"))?;
    let mut buffer = vec![0; ram];
    let mut learner = Learner::new(&s.model, &mut buffer).map_err(|e| anyhow!("Learner::new: {e}"))?;
    let mut mistakes = Vec::new();
    let mut was_mistake = Vec::new();
    while mistakes.len() < MAX_EPOCHS {
        let mut m = 0;
        for (i, (x, label)) in rows.iter().enumerate() {
            let outcome = learner.update(x, *label).map_err(|e| anyhow!("update with window {i}: {e}"))?;
            was_mistake.push(!matches!(outcome, Outcome::Correct));
            m += usize::from(!matches!(outcome, Outcome::Correct));
        }
        mistakes.push(m);
        if m == 0 {
            break;
        }
    }
    let after = correct(&learner.model(), &s.drifted)?;
    let mut learned = Vec::with_capacity(learner.file_len());
    learner
        .write_file(|bytes| {
            learned.extend_from_slice(bytes);
            Ok::<(), ()>(())
        })
        .map_err(|()| anyhow!("writing the learned model"))?;
    Model::from_bytes(&learned).map_err(|e| anyhow!("the learned model does not load: {e}"))?;
    Ok(HostRun { clean, before, after, mistakes, was_mistake, learned, crc: learner.crc(), ram })
}

/// The same updates by the trainer's reference of the procedure, as a user rehearses them: `ltu
/// update MODEL UPDATE_CSV` once per epoch, with the same stopping rule (its JSON report counts the
/// updates that found no mistake). Returns the learned model file and the mistakes per epoch.
pub fn learn_with_cli(root: &Path) -> Result<(Vec<u8>, Vec<usize>)> {
    let ltu = cmd::ltu(root)?;
    let mut current = format!("{OUT_DIR}/model.ltu");
    let mut mistakes = Vec::new();
    while mistakes.len() < MAX_EPOCHS {
        let next = format!("{OUT_DIR}/ltu-update-epoch{}.ltu", mistakes.len() + 1);
        let json = cmd::output(
            Command::new(&ltu)
                .current_dir(root)
                .args(["--json", "update", &current, UPDATE_CSV, "-o", &next]),
        )?;
        let report: serde_json::Value = serde_json::from_str(&json)
            .with_context(|| format!("`ltu update` printed no JSON report: {json}"))?;
        let count = |v: &serde_json::Value| v.as_u64().map(|n| n as usize);
        let (Some(updates), Some(correct)) =
            (count(&report["updates"]), count(&report["outcomes"]["correct"]))
        else {
            anyhow::bail!("`ltu update`'s report lacks updates or outcomes.correct: {json}");
        };
        mistakes.push(updates.saturating_sub(correct));
        current = next;
        if mistakes.last() == Some(&0) {
            break;
        }
    }
    let learned = fs::read(root.join(&current)).with_context(|| format!("reading {current}"))?;
    Ok((learned, mistakes))
}

/// The firmware's inputs, written into `dir`: the model, each set of windows (frames as a sensor
/// delivers them, `frames_le`) with one label byte per window, and `expected.rs`, the constants the
/// firmware checks itself against.
pub fn write_firmware_inputs(dir: &Path, s: &Scenario, host: &HostRun) -> Result<()> {
    fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.join(name);
        fs::write(&path, bytes).with_context(|| format!("writing {}", path.display()))
    };
    write("model.ltu", &s.model)?;
    for (name, set) in [("update", &s.update), ("drifted", &s.drifted), ("clean", &s.clean)] {
        write(&format!("{name}.bin"), &set.iter().flat_map(|(w, _)| frames_le(w)).collect::<Vec<_>>())?;
        let labels = set
            .iter()
            .map(|(_, l)| u8::try_from(*l).context("class index above 255"))
            .collect::<Result<Vec<_>>>()?;
        write(&format!("{name}_labels.bin"), &labels)?;
    }
    write("expected.rs", expected_rs(host).as_bytes())
}

/// Rust source of the constants the firmware reads (`include!`d by `examples/adapt.rs`).
fn expected_rs(host: &HostRun) -> String {
    format!(
        "// Generated by `cargo xtask adapt`: what the host computed for the same updates.\n\
         /// Bytes of RAM the learner needs for the model (`Learner::ram_needed`).\n\
         pub const LEARN_RAM: usize = {};\n\
         /// Passes over the update windows, at most.\n\
         pub const MAX_EPOCHS: usize = {MAX_EPOCHS};\n\
         /// Length of the model the host learned.\n\
         pub const EXPECTED_LEN: usize = {};\n\
         /// Its CRC-32.\n\
         pub const EXPECTED_CRC: u32 = {:#010x};\n",
        host.ram,
        host.learned.len(),
        host.crc
    )
}

/// What the firmware logged (lines `adapt <what> key=value ...`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeviceRun {
    /// Windows in each set.
    pub windows: [usize; 3],
    /// Correct on undrifted TEST windows, drifted before and after learning.
    pub correct: [usize; 3],
    /// Mistakes per epoch.
    pub mistakes: Vec<usize>,
    /// Updates per epoch.
    pub updates: usize,
    /// Length and CRC of the device's learned model.
    pub learned: (usize, u32),
    /// Bytes of the learner's RAM buffer, of the `Learner` value itself and of a `Model` (which
    /// the learner holds: a predicting firmware has one too).
    pub ram: (usize, usize, usize),
    /// Deepest stack of one update and of one prediction, in bytes.
    pub stack: (usize, usize),
    /// Whether the learned model was saved to the simulated flash and restored equal.
    pub restored: bool,
}

/// The `key=value` fields of a log line that starts with `adapt <what>`, after the level that
/// the decoded defmt frame starts with (`INFO`).
fn fields<'a>(line: &'a str, what: &str) -> Option<Vec<(&'a str, &'a str)>> {
    let line = line.trim_start();
    let line = match line.split_once(' ') {
        Some((level, rest)) if ["TRACE", "DEBUG", "INFO", "WARN", "ERROR"].contains(&level) => {
            rest.trim_start()
        }
        _ => line,
    };
    let rest = line.strip_prefix("adapt ")?.strip_prefix(what)?;
    if !rest.is_empty() && !rest.starts_with(' ') {
        return None;
    }
    Some(rest.split_whitespace().filter_map(|f| f.split_once('=')).collect())
}

/// The value of `key` in `fields`, parsed (decimal, or hexadecimal after `0x`).
fn value(fields: &[(&str, &str)], key: &str, line: &str) -> Result<u64> {
    let v = fields
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, v)| *v)
        .with_context(|| format!("no {key}= in `{line}`"))?;
    let parsed = match v.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => v.parse(),
    };
    parsed.with_context(|| format!("bad {key}= in `{line}`"))
}

/// Reads the firmware's log.
pub fn parse_log(log: &[String]) -> Result<DeviceRun> {
    let mut run = DeviceRun::default();
    let mut seen = [false; 3];
    let (mut learned, mut ram, mut stack, mut store) = (false, false, false, false);
    for line in log {
        let line = line.as_str();
        let get = |f: &[(&str, &str)], key| value(f, key, line).map(|v| v as usize);
        if let Some(f) = fields(line, "accuracy") {
            let set = ["undrifted", "before", "after"]
                .iter()
                .position(|s| f.contains(&("set", s)))
                .with_context(|| format!("unknown set in `{line}`"))?;
            run.correct[set] = get(&f, "correct")?;
            run.windows[set] = get(&f, "windows")?;
            seen[set] = true;
        } else if let Some(f) = fields(line, "epoch") {
            ensure!(get(&f, "n")? == run.mistakes.len() + 1, "epochs out of order at `{line}`");
            run.mistakes.push(get(&f, "mistakes")?);
            run.updates = get(&f, "updates")?;
        } else if let Some(f) = fields(line, "learned") {
            run.learned = (get(&f, "len")?, u32::try_from(value(&f, "crc", line)?)?);
            learned = true;
        } else if let Some(f) = fields(line, "ram") {
            run.ram = (get(&f, "buffer")?, get(&f, "learner")?, get(&f, "model")?);
            ram = true;
        } else if let Some(f) = fields(line, "stack") {
            run.stack = (get(&f, "update")?, get(&f, "predict")?);
            stack = true;
        } else if let Some(f) = fields(line, "store") {
            run.restored = get(&f, "equal")? == 1;
            store = true;
        }
    }
    for (set, ok) in ["undrifted", "before", "after"].iter().zip(seen) {
        ensure!(ok, "the log has no `adapt accuracy set={set}` line");
    }
    ensure!(!run.mistakes.is_empty(), "the log has no `adapt epoch` line");
    ensure!(
        run.mistakes.last() == Some(&0) || run.mistakes.len() == MAX_EPOCHS,
        "the log stops after epoch {} with {:?} mistakes (learning goes on until an epoch makes none, or {MAX_EPOCHS} epochs)",
        run.mistakes.len(),
        run.mistakes.last()
    );
    ensure!(learned && ram && stack && store, "the log lacks a learned, ram, stack or store line");
    Ok(run)
}

/// One target's figures.
pub struct Report {
    /// The target.
    pub target: Target,
    /// What its firmware logged.
    pub device: DeviceRun,
    /// Instructions of the plain prediction.
    pub predict: u64,
    /// Instructions of each update that found no mistake (`Outcome::Correct`).
    pub no_mistake: Vec<u64>,
    /// Instructions of each update that found a mistake (a correction, or none possible).
    pub mistake: Vec<u64>,
    /// Whether the learned model's length and CRC are the host's.
    pub equal: bool,
}

/// Percentage.
fn pct(right: usize, n: usize) -> f64 {
    100.0 * right as f64 / n.max(1) as f64
}

/// Width of each column of the table of [`Report`]s (the first is left-aligned).
const WIDTHS: [usize; 11] = [10, 9, 8, 8, 6, 7, 27, 27, 11, 14, 5];

/// One row of the table of [`Report`]s.
fn table_row(cells: [&str; 11]) -> String {
    let mut row = format!("{:<w$}", cells[0], w = WIDTHS[0]);
    for (cell, w) in cells.iter().zip(WIDTHS).skip(1) {
        let _ = write!(row, "  {cell:>w$}");
    }
    row
}

/// The header of the table of [`Report`]s.
pub fn table_header() -> String {
    let top = [
        "core",
        "undrifted",
        "drifted",
        "drifted",
        "epochs",
        "predict",
        "update, no mistake",
        "update, mistake",
        "RAM",
        "stack bytes",
        "bytes",
    ];
    let bottom = [
        "",
        "accuracy",
        "before",
        "after",
        "",
        "insns",
        "min/mean/max insns (max/p)",
        "min/mean/max insns (max/p)",
        "buf+Learner-Model",
        "update/predict",
        "equal",
    ];
    format!("{}\n{}", table_row(top), table_row(bottom))
}

/// `min/mean/max (max / predict)` of a list of instruction counts.
fn spread_cell(xs: &[u64], predict: u64) -> String {
    if xs.is_empty() {
        return "-".to_string();
    }
    let Spread(min, mean, max) = Spread::of(xs);
    format!("{min}/{mean}/{max} ({:.2}x)", max as f64 / predict.max(1) as f64)
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = &self.device;
        let accuracy = |set: usize| format!("{:.1}%", pct(d.correct[set], d.windows[set]));
        f.write_str(&table_row([
            self.target.core,
            &accuracy(0),
            &accuracy(1),
            &accuracy(2),
            &d.mistakes.len().to_string(),
            &self.predict.to_string(),
            &spread_cell(&self.no_mistake, self.predict),
            &spread_cell(&self.mistake, self.predict),
            &format!("{}+{}-{}", d.ram.0, d.ram.1, d.ram.2),
            &format!("{}/{}", d.stack.0, d.stack.1),
            if self.equal { "yes" } else { "NO" },
        ]))
    }
}

/// `cargo xtask adapt`: the scenario on the host, then the firmware on each requested target.
///
/// # Errors
/// An unknown target triple.
pub fn run(root: &Path, triples: &[String]) -> Result<ExitCode> {
    let targets = firmware::targets(triples)?;
    let mut steps = Steps::default();
    let names: Vec<&str> = targets.iter().map(|t| t.triple).collect();
    if steps.run("prerequisites", || {
        prereq::rust(&names, false)?;
        prereq::qemu_and_gcc()
    }) {
        all(root, &targets, &mut steps);
    }
    Ok(steps.finish())
}

/// The host scenario and every target; records one step per check.
pub fn all(root: &Path, targets: &[Target], steps: &mut Steps) {
    let dir = root.join(OUT_DIR).join("firmware");
    let mut host = None;
    steps.run("adapt: base model, drift and learning on the host", || {
        let scenario = Scenario::generate(root)?;
        let run = learn_on_host(&scenario)?;
        let (reference, mistakes) = learn_with_cli(root)?;
        ensure!(
            reference == run.learned && mistakes == run.mistakes,
            "the runtime's learner and `ltu update` disagree: mistakes per epoch {:?} and {:?}, learned models {} \
             bytes with CRC {:#010x} and {} bytes with CRC {:#010x}",
            run.mistakes,
            mistakes,
            run.learned.len(),
            run.crc,
            reference.len(),
            ltu_runtime::format::crc32(reference.get(..reference.len().saturating_sub(4)).unwrap_or_default())
        );
        println!("`ltu update` (the trainer's reference) learns the same model, byte for byte");
        println!(
            "{} update windows ({} classes), {} drifted and {} undrifted TEST windows",
            scenario.update.len(),
            inputs::load_model(&scenario.model)?.n_classes(),
            scenario.drifted.len(),
            scenario.clean.len()
        );
        println!(
            "host: undrifted {:.1}%, drifted before {:.1}%, after {:.1}% ({} epochs, mistakes {:?}); learned model {} bytes, CRC {:#010x}, learner RAM {} bytes",
            pct(run.clean, scenario.clean.len()),
            pct(run.before, scenario.drifted.len()),
            pct(run.after, scenario.drifted.len()),
            run.mistakes.len(),
            run.mistakes,
            run.learned.len(),
            run.crc,
            run.ram
        );
        write_firmware_inputs(&dir, &scenario, &run)?;
        host = Some((run, [scenario.clean.len(), scenario.drifted.len(), scenario.update.len()]));
        Ok(())
    });
    let Some((host, sizes)) = host else { return };
    steps.run(
        &format!("adapt: drifted accuracy after learning within {GOAL_POINTS} points of undrifted (host)"),
        || {
            let (clean, after) = (pct(host.clean, sizes[0]), pct(host.after, sizes[1]));
            ensure!(
                after + GOAL_POINTS >= clean,
                "drifted after learning {after:.1}%, undrifted {clean:.1}%: more than {GOAL_POINTS} points apart"
            );
            Ok(())
        },
    );
    let mut reports = Vec::new();
    for &target in targets {
        reports.extend(check_target(root, target, &dir, &host, sizes, steps));
    }
    if let Some(&first) = targets.first() {
        steps.run(&format!("adapt: {}: cargo clippy --example adapt -- -D warnings", first.triple), || {
            clippy(root, first, &dir)
        });
        steps.run(
            &format!("adapt: {}: a learned model other than the host's exits {EXIT_MISMATCH}", first.triple),
            || check_mismatch(root, first, &dir, &host),
        );
    }
    if !reports.is_empty() {
        println!("\nSummary (`cargo xtask adapt`):\n{}", table_header());
        for r in &reports {
            println!("{r}");
        }
    }
}

/// The firmware features of the adapt example over the inputs in `dir`: as a firmware that learns
/// one model is built, the runtime with only the kinds this model needs, and learning.
fn features(dir: &Path) -> Result<Vec<&'static str>> {
    let model_bytes = host_model(dir)?;
    let model = inputs::load_model(&model_bytes)?;
    Ok(model.features_needed().chain(["learn"]).collect())
}

/// Builds the adapt example for `target` over the inputs in `dir`; returns the ELF's path.
fn build(root: &Path, target: Target, dir: &Path) -> Result<PathBuf> {
    let features = features(dir)?;
    let options = BuildOptions {
        model_dir: Some(dir),
        example: Some(EXAMPLE),
        runtime_features: Some(&features),
        ..BuildOptions::default()
    };
    firmware::build(root, target, &options)
}

/// `cargo clippy` over the adapt example for `target` (CI's firmware lint skips it: it needs the
/// generated inputs in `dir`).
fn clippy(root: &Path, target: Target, dir: &Path) -> Result<()> {
    let features = features(dir)?.join(",");
    cmd::run(
        cmd::cargo(&firmware::dir(root))
            .args(["clippy", "--release", "--target", target.triple, "--example", EXAMPLE])
            .args(["--no-default-features", "--features", &features, "--", "-D", "warnings"])
            .env("LTU_MODEL_DIR", dir)
            .env("DEFMT_LOG", "info"),
    )
}

/// The firmware told to expect another CRC than the host's must exit [`EXIT_MISMATCH`]: the exit
/// code means something.
fn check_mismatch(root: &Path, target: Target, dir: &Path, host: &HostRun) -> Result<()> {
    let bad = root.join(OUT_DIR).join("mismatch");
    fs::create_dir_all(&bad).with_context(|| format!("creating {}", bad.display()))?;
    for entry in fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        if let Some(name) = path.file_name() {
            fs::copy(&path, bad.join(name)).with_context(|| format!("copying {}", path.display()))?;
        }
    }
    let other = HostRun { crc: host.crc ^ 1, ..host.clone() };
    fs::write(bad.join("expected.rs"), expected_rs(&other)).context("writing expected.rs")?;
    let elf = build(root, target, &bad)?;
    let run = qemu::run(&elf, target.machine, None)?;
    print_log(&run);
    ensure!(run.code == EXIT_MISMATCH, "exit code {}, want {EXIT_MISMATCH}", run.code);
    let marker = "differs from the host's";
    ensure!(run.log.iter().any(|l| l.contains(marker)), "no log line says `{marker}`");
    Ok(())
}

/// Builds the firmware for `target` over the inputs in `dir`, runs it under QEMU with the
/// instruction-count plugin and checks it against the host.
fn check_target(
    root: &Path,
    target: Target,
    dir: &Path,
    host: &HostRun,
    sizes: [usize; 3],
    steps: &mut Steps,
) -> Option<Report> {
    let name = target.triple;
    let mut report = None;
    steps.run(
        &format!("adapt: {name} on QEMU {} ({}): learns the host's model", target.machine, target.core),
        || {
            let elf = build(root, target, dir)?;
            let plugin = firmware::plugin(root)?;
            let run = qemu::run(&elf, target.machine, Some(&plugin))?;
            print_log(&run);
            let device = parse_log(&run.log)?;
            let equal = device.learned == (host.learned.len(), host.crc);
            ensure!(
                run.code == 0 || (run.code == EXIT_MISMATCH && !equal),
                "exit code {} (the log says the learned model {} the host's)",
                run.code,
                if equal { "equals" } else { "differs from" }
            );
            ensure!(
            equal,
            "the device learned a model of {} bytes with CRC {:#010x}, the host {} bytes with CRC {:#010x}",
            device.learned.0,
            device.learned.1,
            host.learned.len(),
            host.crc
        );
            ensure!(run.code == 0, "exit code {}, want 0", run.code);
            ensure!(
                device.windows == [sizes[0], sizes[1], sizes[1]] && device.updates == sizes[2],
                "the device counted windows {:?} and {} updates per epoch; the host {:?}",
                device.windows,
                device.updates,
                sizes
            );
            ensure!(
                device.correct == [host.clean, host.before, host.after] && device.mistakes == host.mistakes,
                "the device's accuracies {:?} or mistakes per epoch {:?} differ from the host's {:?} / {:?}",
                device.correct,
                device.mistakes,
                [host.clean, host.before, host.after],
                host.mistakes
            );
            ensure!(
                device.restored,
                "the model restored from the simulated flash differs from the learned one"
            );
            let n_updates = device.mistakes.len() * device.updates;
            ensure!(
                run.regions.len() == 1 + n_updates,
                "{} measured regions, want 1 prediction and {n_updates} updates",
                run.regions.len()
            );
            ensure!(run.regions.iter().all(|&n| n > 0), "a measured region counted 0 instructions");
            let elf_bytes = fs::read(&elf).with_context(|| format!("reading {}", elf.display()))?;
            let sizes = cost::sizes(&elf_bytes)?;
            println!("flash {} bytes, static RAM {} bytes", sizes.flash, sizes.ram);
            // The device made the host's updates (same model bytes, same mistakes per epoch), so
            // the host's outcomes say which updates corrected.
            let (mut no_mistake, mut mistake) = (Vec::new(), Vec::new());
            for (&n, &was) in run.regions[1..].iter().zip(&host.was_mistake) {
                if was { &mut mistake } else { &mut no_mistake }.push(n);
            }
            report = Some(Report { target, device, predict: run.regions[0], no_mistake, mistake, equal });
            Ok(())
        },
    );
    report
}

/// The model file among the firmware's inputs.
fn host_model(dir: &Path) -> Result<Vec<u8>> {
    let path = dir.join("model.ltu");
    fs::read(&path).with_context(|| format!("reading {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drift_changes_only_the_drifted_channels() {
        let text = "ch0_t000,ch0_t001,ch1_t000,ch1_t001,class\n1,2.5,3,-4E-1,a\n0,0,0,0,b\n";
        let d = [ChannelDrift { channel: 1, gain: 2.0, offset: 0.5 }];
        let out = drift_csv(text, &d, "t.csv").unwrap();
        assert_eq!(
            out,
            "ch0_t000,ch0_t001,ch1_t000,ch1_t001,class\n1,2.5,6.500000,-0.300000,a\n0,0,0.500000,0.500000,b\n"
        );
        assert_eq!(drift_csv(text, &d, "t.csv").unwrap(), out, "deterministic");
    }

    #[test]
    fn interleave_takes_classes_in_turn_and_caps_each() {
        let items = vec![('a', 0), ('b', 0), ('c', 0), ('d', 1), ('e', 2), ('f', 2)];
        let out: Vec<char> = interleave(items.clone(), 2).into_iter().map(|(c, _)| c).collect();
        assert_eq!(out, ['a', 'd', 'e', 'b', 'f']);
        assert_eq!(interleave(items, 20).len(), 6);
    }

    #[test]
    fn update_csv_interleaves_the_recordings_by_class() {
        let text = "ch0_t000,class\n1,b\n2,b\n3,a\n4,b\n5,a\n";
        assert_eq!(
            update_csv(text, &["a", "b"], "t.csv").unwrap(),
            "ch0_t000,class\n3,a\n1,b\n5,a\n2,b\n4,b\n"
        );
        let err = update_csv(text, &["a"], "t.csv").unwrap_err().to_string();
        assert!(err.contains("t.csv, line 2: class `b`"), "{err}");
    }

    fn log(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    const LOG: [&str; 10] = [
        "adapt model bytes=1476 inputs=30 classes=4",
        "INFO  adapt accuracy set=undrifted correct=40 windows=40",
        "adapt accuracy set=before correct=13 windows=40",
        "adapt epoch n=1 mistakes=21 updates=40",
        "adapt epoch n=2 mistakes=0 updates=40",
        "adapt accuracy set=after correct=40 windows=40",
        "adapt learned len=1476 crc=0x00c0ffee host_len=1476 host_crc=0x00c0ffee",
        "adapt ram buffer=248 learner=60 model=40",
        "adapt stack update=312 predict=200",
        "adapt store equal=1 slot=0 seq=1 bytes=1476 pages_erased=2 words_written=373",
    ];

    #[test]
    fn the_firmware_log_is_read() {
        let run = parse_log(&log(&LOG)).unwrap();
        assert_eq!(run.windows, [40, 40, 40]);
        assert_eq!(run.correct, [40, 13, 40]);
        assert_eq!(run.mistakes, [21, 0]);
        assert_eq!(run.updates, 40);
        assert_eq!(run.learned, (1476, 0x00c0_ffee));
        assert_eq!(run.ram, (248, 60, 40));
        assert_eq!(run.stack, (312, 200));
        assert!(run.restored);
    }

    #[test]
    fn an_incomplete_or_garbled_log_is_an_error() {
        // Every line but the first (the model's size) is required.
        for (drop, line) in LOG.iter().enumerate().skip(1) {
            let mut lines = LOG.to_vec();
            lines.remove(drop);
            assert!(parse_log(&log(&lines)).is_err(), "without `{line}`");
        }
        assert!(parse_log(&log(&LOG[1..])).is_ok());
        let mut lines = LOG.to_vec();
        lines[7] = "adapt ram buffer=x learner=60 model=40";
        let err = parse_log(&log(&lines)).unwrap_err().to_string();
        assert!(err.contains("bad buffer="), "{err}");
        lines = LOG.to_vec();
        lines.swap(3, 4);
        assert!(parse_log(&log(&lines)).unwrap_err().to_string().contains("out of order"));
        // A line whose word only starts like a key is not that key.
        assert_eq!(fields("adapt epochs n=1", "epoch"), None);
        assert_eq!(fields("INFO adapt epoch n=1", "epoch"), Some(vec![("n", "1")]));
        assert_eq!(fields("INFO x adapt epoch n=1", "epoch"), None);
    }

    #[test]
    fn expected_rs_holds_the_host_figures() {
        let host = HostRun {
            clean: 40,
            before: 13,
            after: 40,
            mistakes: vec![21, 0],
            was_mistake: vec![true; 21],
            learned: vec![0; 1476],
            crc: 0xc0ffee,
            ram: 248,
        };
        let rs = expected_rs(&host);
        assert!(rs.contains("pub const LEARN_RAM: usize = 248;"), "{rs}");
        assert!(rs.contains("pub const EXPECTED_LEN: usize = 1476;"), "{rs}");
        assert!(rs.contains("pub const EXPECTED_CRC: u32 = 0x00c0ffee;"), "{rs}");
        assert!(rs.contains(&format!("pub const MAX_EPOCHS: usize = {MAX_EPOCHS};")), "{rs}");
    }

    #[test]
    fn bad_cells_are_located() {
        let d = [ChannelDrift { channel: 0, gain: 1.0, offset: 0.0 }];
        let err = drift_csv("ch0_t000,class\nx,a\n", &d, "t.csv").unwrap_err().to_string();
        assert!(err.contains("t.csv, line 2, column 1"), "{err}");
        let err = drift_csv("ch0_t000,class\n1\n", &d, "t.csv").unwrap_err().to_string();
        assert!(err.contains("line 2: 1 cells"), "{err}");
        let missing = [ChannelDrift { channel: 3, gain: 1.0, offset: 0.0 }];
        assert!(drift_csv("ch0_t000,class\n1,a\n", &missing, "t.csv").is_err());
    }
}

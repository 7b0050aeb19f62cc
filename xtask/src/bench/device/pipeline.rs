//! The sensor pipeline section of `cargo xtask bench-device`: what it costs on the device to go
//! from raw samples to a class, on basicmotions (`data/basicmotions_{train,test}.csv`).
//!
//! For each ltu model trained with `ltu train --recordings` ([`MODELS`]: the firmware example's
//! model and the learners' default window statistics), on the TEST windows at the model's channel
//! scales (`firmware::inputs::windows_of`), one measured call per window from the samples to the
//! class: through the runtime (`Model::predict_window`), and compiled in (`ltu codegen --window`:
//! `classify_window` in Rust, `ltu_classify_window` in C). The peer: every whole-window statistic
//! of every channel by a plain C loop (`bench/c/window_peer.c`) and emlearn's RF10 trained on
//! those statistics of the TRAIN windows (`bench/device.py --pipeline`).
//!
//! Streaming, for the firmware's model: the first [`STREAM_WINDOWS`] TEST recordings played back
//! to back frame by frame, a window of 100 samples every [`HOP`] frames, one measured region per
//! pushed frame, through the runtime's `window::Stream::push_frame`, the generated Rust
//! `Stream::push` and the generated C `ltu_push`.
//!
//! Every on-chip class is compared with the host's (`Model::predict_window` on the same samples;
//! for the peer, emlearn's C compiled on the host over the runtime's statistics).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{anyhow, bail, ensure, Context as _, Result};
use ltu::model::codegen::{self, Lang};
use ltu::model::{Host, ModelSpec};
use ltu_runtime::window::Stat;
use ltu_runtime::Model;
use serde_json::{json, Value};

use crate::bench::device::build::build_c;
use crate::bench::device::figures::{mean, measure, print_measure, Measure};
use crate::bench::device::render::versions;
use crate::cmd;
use crate::firmware::cost::sizes;
use crate::firmware::demo::{TRAIN_CSV, TRAIN_OPTIONS};
use crate::firmware::inputs::{frames_le, host_predictions, windows_of, Window, CHANNELS, TEST_CSV, WINDOW};
use crate::firmware::qemu::{self, print_log, Run};
use crate::firmware::{self, BuildOptions, Target, TARGETS};

/// Frames from one window to the next in the streaming measurement: windows of 100 samples
/// overlap by 90 (`HOP` in `firmware-example/examples/pipeline.rs`).
pub const HOP: usize = 10;
/// TEST recordings played back to back in the streaming measurement (`STREAM_WINDOWS` there).
pub const STREAM_WINDOWS: usize = 10;
/// The statistics the peer's C loop computes for every channel, in its order.
pub const PEER_STATS: [Stat; 5] = [Stat::Mean, Stat::Spread, Stat::Energy, Stat::Min, Stat::Max];

/// One ltu model of the section: its label and the `ltu train` options after the data file.
pub struct PipelineModel {
    pub label: &'static str,
    pub options: &'static [&'static str],
    /// The firmware example's model (`cargo xtask demo`'s options): the one the goals are about.
    pub firmware: bool,
}

/// The ltu models measured: the firmware's, and the learners' default window statistics.
pub const MODELS: &[PipelineModel] = &[
    PipelineModel {
        label: "fringe --window-features mean,spread,energy,min,max",
        options: &TRAIN_OPTIONS,
        firmware: true,
    },
    PipelineModel {
        label: "fringe",
        options: &["--recordings", "--algo", "fringe", "--quiet"],
        firmware: false,
    },
    PipelineModel {
        label: "sparse",
        options: &["--recordings", "--algo", "sparse", "--quiet"],
        firmware: false,
    },
];

/// One way from raw samples to a class, measured per window.
#[derive(Debug, Clone)]
pub struct WindowEntry {
    /// `ltu` or `emlearn`.
    pub family: &'static str,
    /// The model, e.g. `fringe` or `RF10 inline`.
    pub model: String,
    /// How it runs, e.g. `runtime predict_window`.
    pub path: &'static str,
    pub firmware: bool,
    /// Share of the TEST windows classified right.
    pub accuracy: f64,
    /// The statistics computed per window.
    pub statistics: Vec<String>,
    /// Model file bytes (ltu through the runtime).
    pub model_bytes: Option<usize>,
    pub measures: Vec<Measure>,
}

/// Streaming measurements of one path on one target.
#[derive(Debug, Clone)]
pub struct StreamMeasure {
    pub target: Target,
    /// Instructions of each push, frame by frame.
    pub pushes: Vec<u64>,
    /// Whether each push completed a window.
    pub ready: Vec<bool>,
    /// Flash of the stream, its model and all code they need: text + data minus the twin's.
    pub flash: u64,
    /// Deepest painted stack over all pushes.
    pub stack: u64,
    /// On-chip classes equal to the host's, of `windows`.
    pub agree: usize,
    pub windows: usize,
}

impl StreamMeasure {
    /// Instructions of the pushes after the window filled that complete no window: a sample of
    /// every channel in, one out, the running sums moved.
    pub fn updates(&self) -> Vec<u64> {
        self.pushes
            .iter()
            .zip(&self.ready)
            .enumerate()
            .filter(|&(f, (_, &r))| f >= WINDOW && !r)
            .map(|(_, (&n, _))| n)
            .collect()
    }

    /// Instructions of the pushes that complete a window (the update, the statistics the model
    /// reads and the classification).
    pub fn at_windows(&self) -> Vec<u64> {
        self.pushes.iter().zip(&self.ready).filter(|(_, &r)| r).map(|(&n, _)| n).collect()
    }
}

/// One streaming path.
#[derive(Debug, Clone)]
pub struct StreamEntry {
    pub model: String,
    pub path: &'static str,
    pub measures: Vec<StreamMeasure>,
}

/// What the section measured.
#[derive(Debug, Clone)]
pub struct PipelineReport {
    pub windows: Vec<WindowEntry>,
    pub streams: Vec<StreamEntry>,
    /// TEST windows measured per window.
    pub n_windows: usize,
    /// Frames pushed in the streaming measurement.
    pub stream_frames: usize,
    /// The tools' versions (`render::versions`).
    pub versions: Vec<(String, String)>,
}

/// What the measurements of one model share.
struct Ctx<'a> {
    root: &'a Path,
    plugin: &'a Path,
    /// Flash of the twins, by the rows they embed and the target.
    twins: BTreeMap<(String, &'static str), u64>,
}

/// Trains, builds and measures the section (`out`: the scratch directory, `python`: the peers'
/// venv).
pub fn run(
    root: &Path,
    out: &Path,
    targets: &[Target],
    plugin: &Path,
    python: &Path,
) -> Result<PipelineReport> {
    let base = out.join("pipeline");
    fs::create_dir_all(&base).with_context(|| format!("creating {}", base.display()))?;
    let mut ctx = Ctx { root, plugin, twins: BTreeMap::new() };
    let mut report = PipelineReport {
        windows: Vec::new(),
        streams: Vec::new(),
        n_windows: 0,
        stream_frames: 0,
        versions: Vec::new(),
    };
    let mut firmware_windows = None;
    let ltu = cmd::ltu(root)?;
    for m in MODELS {
        println!("\nsensor pipeline: ltu {}", m.label);
        let dir = base.join(slug(m.label));
        fs::create_dir_all(&dir)?;
        let trained = dir.join("trained.ltu");
        cmd::run(
            Command::new(&ltu)
                .current_dir(root)
                .args(["train", TRAIN_CSV])
                .args(m.options)
                .arg("-o")
                .arg(&trained),
        )?;
        let bytes = fs::read(&trained).with_context(|| format!("reading {}", trained.display()))?;
        let named = Model::from_bytes(&bytes).map_err(|e| anyhow!("the runtime rejects {}: {e}", m.label))?;
        let labelled = windows_of(root, &named, TEST_CSV)?;
        let windows: Vec<Window> = labelled.iter().map(|(w, _)| w.clone()).collect();
        let host: Vec<usize> = host_predictions(&named, &windows)?.into_iter().map(usize::from).collect();
        let names = named.names().context("the trained model carries its names")?;
        let right =
            labelled.iter().zip(&host).filter(|((_, label), &p)| names.class(p) == label.as_str()).count();
        let accuracy = right as f64 / labelled.len().max(1) as f64;
        let statistics: Vec<String> = (0..named.n_inputs()).map(|i| names.input(i).to_string()).collect();
        println!(
            "  reads {} statistics ({}); TEST accuracy {right}/{} = {:.1}%",
            statistics.len(),
            statistics.join(", "),
            labelled.len(),
            100.0 * accuracy
        );
        // The device stores the model without its host block (`ltu train --strip`).
        let spec = ModelSpec::from_model(&named);
        let device = spec
            .to_bytes_with(&Host { strip: true, meta: None })
            .map_err(|e| anyhow!("stripping {}: {e}", m.label))?;
        let stripped = Model::from_bytes(&device).map_err(|e| anyhow!("the stripped {}: {e}", m.label))?;
        ensure!(stripped.pipeline().is_some(), "the stripped model lost its pipeline");
        let features: Vec<&str> = stripped.features_needed().collect();
        let stream_windows = if m.firmware { stream_windows(&windows) } else { Vec::new() };
        write_files(&dir, m.label, &device, &spec, &windows)?;
        report.n_windows = windows.len();

        let mut runtime = Vec::new();
        let mut rust = Vec::new();
        let mut c = Vec::new();
        for &target in targets {
            runtime.push(ctx.window_rust(&dir, target, Some(&features[..]), &host, m.label)?);
            rust.push(ctx.window_rust(&dir, target, None, &host, m.label)?);
            c.push(ctx.window_c(
                &dir,
                target,
                &dir.join("c/model.c"),
                None,
                &host,
                &format!("{} codegen-c", m.label),
            )?);
        }
        let entry = |path: &'static str, model_bytes: Option<usize>, measures: Vec<Measure>| WindowEntry {
            family: "ltu",
            model: m.label.into(),
            path,
            firmware: m.firmware,
            accuracy,
            statistics: statistics.clone(),
            model_bytes,
            measures,
        };
        report.windows.push(entry("runtime `predict_window`", Some(device.len()), runtime));
        report.windows.push(entry("codegen-rs `classify_window`", None, rust));
        report.windows.push(entry("codegen-c `ltu_classify_window`", None, c));

        if m.firmware {
            let host_stream: Vec<usize> =
                host_predictions(&named, &stream_windows)?.into_iter().map(usize::from).collect();
            let frames = STREAM_WINDOWS.min(windows.len()) * WINDOW;
            report.stream_frames = frames;
            let mut runtime = Vec::new();
            let mut rust = Vec::new();
            // Streaming on the Cortex-M3: the per-sample cost the goal is about.
            let m3 = TARGETS[0];
            runtime.push(ctx.stream_rust(&dir, m3, Some(&features[..]), &host_stream, frames, m.label)?);
            rust.push(ctx.stream_rust(&dir, m3, None, &host_stream, frames, m.label)?);
            let c = vec![ctx.stream_c(&dir, m3, &host_stream, frames, m.label)?];
            report.streams.push(StreamEntry {
                model: m.label.into(),
                path: "runtime `Stream::push_frame`",
                measures: runtime,
            });
            report.streams.push(StreamEntry {
                model: m.label.into(),
                path: "codegen-rs `Stream::push`",
                measures: rust,
            });
            report.streams.push(StreamEntry {
                model: m.label.into(),
                path: "codegen-c `ltu_push`",
                measures: c,
            });
            firmware_windows = Some((bytes.clone(), dir.clone()));
        }
    }
    let (firmware_bytes, firmware_dir) = firmware_windows.context("no firmware model among the models")?;
    let firmware_model = Model::from_bytes(&firmware_bytes).map_err(|e| anyhow!("{e}"))?;
    let (entry, versions) = peer(&mut ctx, &base, &firmware_model, &firmware_dir, targets, python)?;
    report.windows.push(entry);
    report.versions = versions;
    Ok(report)
}

/// A directory name for a label.
fn slug(label: &str) -> String {
    label.replace([' ', '-', ',', '.'], "_").trim_matches('_').to_string()
}

/// The windows the stream completes when the first [`STREAM_WINDOWS`] windows are played back to
/// back: the last `WINDOW` frames every `HOP` frames once `WINDOW` are in.
fn stream_windows(windows: &[Window]) -> Vec<Window> {
    let played = &windows[..STREAM_WINDOWS.min(windows.len())];
    let channel = |c: usize| -> Vec<i16> { played.iter().flat_map(|w| w[c].iter().copied()).collect() };
    let signal: Vec<Vec<i16>> = (0..CHANNELS).map(channel).collect();
    let frames = played.len() * WINDOW;
    (WINDOW..=frames)
        .step_by(HOP)
        .map(|end| signal.iter().map(|c| c[end - WINDOW..end].to_vec()).collect())
        .collect()
}

/// Whether push `f` (from 0) of the stream completes a window.
fn ready(f: usize) -> bool {
    f + 1 >= WINDOW && (f + 1 - WINDOW).is_multiple_of(HOP)
}

/// Writes the model file, the windows (`recordings.bin` for the Rust firmware, `windows.h` for
/// the C harness), and the generated Rust and C with the
/// pipeline for windows of `WINDOW` samples and a hop of [`HOP`].
fn write_files(dir: &Path, label: &str, device: &[u8], spec: &ModelSpec, windows: &[Window]) -> Result<()> {
    fs::write(dir.join("model.ltu"), device)?;
    fs::write(dir.join("recordings.bin"), windows.iter().flat_map(frames_le).collect::<Vec<u8>>())?;
    let window = codegen::Window::new(WINDOW, HOP).map_err(|e| anyhow!("{e}"))?;
    let about = format!("basicmotions ({label})");
    fs::write(dir.join("model.rs"), codegen::source_with(spec, &about, Lang::Rust, Some(window)))?;
    let c_dir = dir.join("c");
    fs::create_dir_all(&c_dir)?;
    let (size_h, windows_h) = windows_h(windows);
    fs::write(c_dir.join("window_size.h"), size_h)?;
    fs::write(c_dir.join("windows.h"), windows_h)?;
    fs::write(
        c_dir.join("model.c"),
        format!(
            "{}\n/* The bench harness's entry points: per window, and streaming. */\n\
             int32_t window_classify(const int16_t samples[LTU_N_CHANNELS][LTU_WINDOW])\n{{\n    \
             return ltu_classify_window(samples);\n}}\n\n\
             static struct ltu_stream stream;\n\n\
             void stream_init(void)\n{{\n    ltu_stream_init(&stream);\n}}\n\n\
             int32_t stream_push(const int16_t frame[LTU_N_CHANNELS])\n{{\n    \
             return ltu_push(&stream, frame);\n}}\n",
            codegen::source_with(spec, &about, Lang::C, Some(window))
        ),
    )?;
    Ok(())
}

/// The per-window `i16` literals of channel `c`.
fn samples(w: &Window, c: usize) -> String {
    w[c].iter().map(i16::to_string).collect::<Vec<_>>().join(",")
}

/// `window_size.h` and `windows.h` of the C harness built with `BENCH_WINDOWS`.
fn windows_h(windows: &[Window]) -> (String, String) {
    let size = format!(
        "/* Generated by `cargo xtask bench-device`: the shape of a window. */\n\
         #define N_CHANNELS {CHANNELS}\n#define WINDOW {WINDOW}\n"
    );
    let mut s = String::from(
        "/* Generated by `cargo xtask bench-device`: TEST windows of raw samples at the model's channel\n \
         * scales, WINDOWS[w][c][t]. */\n#include <stdint.h>\n#include \"window_size.h\"\n",
    );
    let frames = STREAM_WINDOWS.min(windows.len()) * WINDOW;
    let n_ready = (0..frames).filter(|&f| ready(f)).count();
    let _ = writeln!(s, "#define N_WINDOWS {}u", windows.len());
    let _ = writeln!(s, "#define STREAM_FRAMES {frames}u\n#define N_READY {n_ready}u");
    s.push_str("static const int16_t WINDOWS[N_WINDOWS][N_CHANNELS][WINDOW] = {\n");
    for w in windows {
        s.push_str("  {\n");
        for c in 0..CHANNELS {
            let _ = writeln!(s, "    {{{}}},", samples(w, c));
        }
        s.push_str("  },\n");
    }
    s.push_str("};\n");
    (size, s)
}

impl Ctx<'_> {
    /// Builds the pipeline example from `dir`; returns a copy of the ELF in `dir`.
    fn build(
        &self,
        dir: &Path,
        target: Target,
        features: Option<&[&str]>,
        null: bool,
        stream: bool,
    ) -> Result<PathBuf> {
        let options = BuildOptions {
            model_dir: Some(dir),
            example: Some("pipeline"),
            null_twin: null,
            stream,
            codegen: !null && features.is_none(),
            runtime_features: if null { None } else { features },
        };
        let elf = firmware::build(self.root, target, &options)?;
        let what = match (null, features.is_some()) {
            (true, _) => "null",
            (false, true) => "runtime",
            (false, false) => "codegen",
        };
        let copy =
            dir.join(format!("pipeline-{}-{what}{}.elf", target.triple, if stream { "-stream" } else { "" }));
        fs::copy(&elf, &copy).with_context(|| format!("copying {} to {}", elf.display(), copy.display()))?;
        Ok(copy)
    }

    /// Flash of the Rust twin (no model, no pipeline) over the windows in `dir`.
    fn rust_twin(&mut self, dir: &Path, target: Target, stream: bool) -> Result<u64> {
        let recordings = fs::read(dir.join("recordings.bin"))?;
        let key = (format!("rust{stream}:{}", String::from_utf8_lossy(&recordings)), target.triple);
        if let Some(&f) = self.twins.get(&key) {
            return Ok(f);
        }
        let elf = self.build(dir, target, None, true, stream)?;
        let f = sizes(&fs::read(&elf)?)?.flash;
        self.twins.insert(key, f);
        Ok(f)
    }

    /// Per window in Rust: through the runtime (with the cargo `features`) or, without, the
    /// generated `classify_window`.
    fn window_rust(
        &mut self,
        dir: &Path,
        target: Target,
        features: Option<&[&str]>,
        host: &[usize],
        label: &str,
    ) -> Result<Measure> {
        let twin = self.rust_twin(dir, target, false)?;
        let elf = self.build(dir, target, features, false, false)?;
        let flash = sizes(&fs::read(&elf)?)?.flash - twin;
        let run = qemu::run(&elf, target.machine, Some(self.plugin))?;
        let label = format!("{label} {}", if features.is_some() { "runtime" } else { "codegen-rs" });
        let m = measure(target, &run, host, false, flash)
            .with_context(|| format!("{label} on {}", target.core))?;
        print_measure(&label, &m);
        Ok(m)
    }

    /// Per window in the C harness: `source` defines `window_classify`; `include` is emlearn's
    /// headers for the peer.
    fn window_c(
        &mut self,
        dir: &Path,
        target: Target,
        source: &Path,
        include: Option<&Path>,
        host: &[usize],
        label: &str,
    ) -> Result<Measure> {
        let (elf, flash) = self.build_c(dir, target, source, include, "BENCH_WINDOWS")?;
        let run = qemu::run_text(&elf, target.machine, Some(self.plugin))?;
        let m = measure(target, &run, host, false, flash)
            .with_context(|| format!("{label} on {}", target.core))?;
        print_measure(label, &m);
        Ok(m)
    }

    /// Streaming in the C harness: the generated `ltu_push` behind `stream_push`.
    fn stream_c(
        &mut self,
        dir: &Path,
        target: Target,
        host: &[usize],
        frames: usize,
        label: &str,
    ) -> Result<StreamMeasure> {
        let (elf, flash) = self.build_c(dir, target, &dir.join("c/model.c"), None, "BENCH_STREAM")?;
        let run = qemu::run_text(&elf, target.machine, Some(self.plugin))?;
        let label = format!("{label} codegen-c stream");
        let m = stream_measure(target, &run, host, frames, flash)
            .with_context(|| format!("{label} on {}", target.core))?;
        print_stream(&label, &m);
        Ok(m)
    }

    /// Builds the C harness in mode `define` around `source` (and its twin, once per windows and
    /// mode); returns the ELF and its flash minus the twin's.
    fn build_c(
        &mut self,
        dir: &Path,
        target: Target,
        source: &Path,
        include: Option<&Path>,
        define: &str,
    ) -> Result<(PathBuf, u64)> {
        let c_dir = dir.join("c");
        let include = include.unwrap_or(&c_dir);
        let key = (format!("{define}:{}", fs::read_to_string(c_dir.join("windows.h"))?), target.triple);
        let twin = match self.twins.get(&key) {
            Some(&f) => f,
            None => {
                let elf = c_dir.join(format!("twin-{define}-{}.elf", target.triple));
                build_c(self.root, target, include, &c_dir, None, &[define], &elf)?;
                let f = sizes(&fs::read(&elf)?)?.flash;
                self.twins.insert(key, f);
                f
            }
        };
        let stem = source.file_stem().and_then(|s| s.to_str()).unwrap_or("model");
        let elf = c_dir.join(format!("{stem}-{define}-{}.elf", target.triple));
        build_c(self.root, target, include, &c_dir, Some(source), &[define], &elf)?;
        let flash = sizes(&fs::read(&elf)?)?.flash - twin;
        Ok((elf, flash))
    }

    /// Streaming in Rust: the runtime's `Stream` (with the cargo `features`) or, without, the
    /// generated `Stream`.
    fn stream_rust(
        &mut self,
        dir: &Path,
        target: Target,
        features: Option<&[&str]>,
        host: &[usize],
        frames: usize,
        label: &str,
    ) -> Result<StreamMeasure> {
        let twin = self.rust_twin(dir, target, true)?;
        let elf = self.build(dir, target, features, false, true)?;
        let flash = sizes(&fs::read(&elf)?)?.flash - twin;
        let run = qemu::run(&elf, target.machine, Some(self.plugin))?;
        let label = format!("{label} {} stream", if features.is_some() { "runtime" } else { "codegen-rs" });
        let m = stream_measure(target, &run, host, frames, flash)
            .with_context(|| format!("{label} on {}", target.core))?;
        print_stream(&label, &m);
        Ok(m)
    }
}

/// Reads a streaming run: one region per frame, `p <class> <stack>` per completed window, `done`.
fn stream_measure(
    target: Target,
    run: &Run,
    host: &[usize],
    frames: usize,
    flash: u64,
) -> Result<StreamMeasure> {
    if run.code != 0 {
        print_log(run);
        bail!("the pipeline bench firmware exited with {}", run.code);
    }
    let lines: Vec<(usize, u64)> = run
        .log
        .iter()
        .filter_map(|l| {
            let mut it = l.strip_prefix("p ")?.split_whitespace();
            Some((it.next()?.parse().ok()?, it.next()?.parse().ok()?))
        })
        .collect();
    ensure!(run.log.iter().any(|l| l == "done"), "the firmware did not finish: {:?}", run.log);
    ensure!(lines.len() == host.len(), "{} windows logged, want {}", lines.len(), host.len());
    ensure!(
        run.regions.len() == frames,
        "{} measured regions, want one per frame ({frames})",
        run.regions.len()
    );
    Ok(StreamMeasure {
        target,
        pushes: run.regions.clone(),
        ready: (0..frames).map(ready).collect(),
        flash,
        stack: lines.iter().map(|l| l.1).max().unwrap_or(0),
        agree: lines.iter().zip(host).filter(|(l, &h)| l.0 == h).count(),
        windows: host.len(),
    })
}

/// One console line of a streaming measurement.
fn print_stream(label: &str, m: &StreamMeasure) {
    let updates = m.updates();
    println!(
        "  {label:<30} {:<10} {:.1} instructions per sample per channel ({} per frame, max {}), {} per completed window, flash {} B, stack {} B, {}/{} agree",
        m.target.core,
        per_sample(&updates),
        mean(&updates),
        updates.iter().max().unwrap_or(&0),
        mean(&m.at_windows()),
        m.flash,
        m.stack,
        m.agree,
        m.windows
    );
}

/// Mean instructions of a push divided by the channels it carries.
pub fn per_sample(pushes: &[u64]) -> f64 {
    pushes.iter().sum::<u64>() as f64 / pushes.len().max(1) as f64 / CHANNELS as f64
}

/// The peer: every whole-window statistic of every channel by a plain C loop, and emlearn's RF10
/// trained on those statistics of the TRAIN windows (at the firmware model's channel scales).
fn peer(
    ctx: &mut Ctx,
    base: &Path,
    model: &Model<'_>,
    firmware_dir: &Path,
    targets: &[Target],
    python: &Path,
) -> Result<(WindowEntry, Vec<(String, String)>)> {
    println!("\nsensor pipeline: emlearn RF10 on a C loop's window statistics");
    let train = windows_of(ctx.root, model, TRAIN_CSV)?;
    let test = windows_of(ctx.root, model, TEST_CSV)?;
    let mut classes: Vec<String> = Vec::new();
    let mut class_of = |name: &str| match classes.iter().position(|c| c == name) {
        Some(i) => i,
        None => {
            classes.push(name.to_string());
            classes.len() - 1
        }
    };
    let train_y: Vec<usize> = train.iter().map(|(_, l)| class_of(l)).collect();
    let test_y: Vec<usize> = test.iter().map(|(_, l)| class_of(l)).collect();
    let stats = |set: &[(Window, String)]| -> Result<Vec<Vec<i32>>> {
        set.iter().map(|(w, _)| peer_statistics(w)).collect()
    };
    let dir = base.join("emlearn");
    let c_dir = dir.join("c");
    fs::create_dir_all(&c_dir)?;
    let data = json!({
        "train_x": stats(&train)?,
        "train_y": train_y,
        "test_x": stats(&test)?,
        "test_y": test_y,
    });
    let data_path = dir.join("pipeline.json");
    fs::write(&data_path, serde_json::to_string(&data)?)?;
    let peers_path = dir.join("peers.json");
    cmd::run(
        Command::new(python)
            .current_dir(&dir)
            .arg(ctx.root.join("bench/device.py"))
            .arg("--pipeline")
            .arg("--data")
            .arg(&data_path)
            .arg("--work")
            .arg(&c_dir)
            .arg("--out")
            .arg(&peers_path),
    )?;
    let peers: Value = serde_json::from_str(&fs::read_to_string(&peers_path)?)
        .with_context(|| format!("parsing {}", peers_path.display()))?;
    let p = &peers["pipeline"];
    let host: Vec<usize> = serde_json::from_value(p["host_predictions"].clone())?;
    let include = PathBuf::from(peers["emlearn_include"].as_str().context("peers.json: emlearn_include")?);
    // The same windows, headers and harness as the firmware model's generated C.
    for file in ["windows.h", "window_size.h"] {
        fs::copy(firmware_dir.join("c").join(file), c_dir.join(file))?;
    }
    let source = ctx.root.join("bench/c/window_peer.c");
    let mut measures = Vec::new();
    for &target in targets {
        measures.push(ctx.window_c(&dir, target, &source, Some(&include), &host, "emlearn RF10 + C loop")?);
    }
    let statistics =
        (0..CHANNELS).flat_map(|c| PEER_STATS.iter().map(move |s| format!("{s}(channel {c})"))).collect();
    let entry = WindowEntry {
        family: "emlearn",
        model: "RF10 inline".into(),
        path: "C loop (5 statistics × 6 channels) + `model_predict`",
        firmware: false,
        accuracy: p["emlearn_accuracy"].as_f64().context("peers.json: emlearn_accuracy")?,
        statistics,
        model_bytes: None,
        measures,
    };
    Ok((entry, versions(&peers)))
}

/// The statistics the peer's C loop computes, by the runtime's kernels.
fn peer_statistics(w: &Window) -> Result<Vec<i32>> {
    w.iter()
        .flat_map(|channel| PEER_STATS.iter().map(move |s| s.compute(channel)))
        .map(|r| r.map_err(|e| anyhow!("window statistics: {e}")))
        .collect()
}

/// Every on-chip class of the section that differs from the host's.
pub fn mismatches(report: &PipelineReport) -> Vec<String> {
    let mut out = Vec::new();
    for e in &report.windows {
        for m in e.measures.iter().filter(|m| m.agree != m.predict.len()) {
            out.push(format!(
                "pipeline {} {} on {}: {} of {} agree",
                e.model,
                e.path,
                m.target.core,
                m.agree,
                m.predict.len()
            ));
        }
    }
    for e in &report.streams {
        for m in e.measures.iter().filter(|m| m.agree != m.windows) {
            out.push(format!(
                "stream {} {} on {}: {} of {} agree",
                e.model, e.path, m.target.core, m.agree, m.windows
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_completes_a_window_every_hop_once_full() {
        let ready: Vec<usize> = (0..3 * WINDOW).filter(|&f| ready(f)).collect();
        assert_eq!(ready.first(), Some(&(WINDOW - 1)));
        assert_eq!(ready[1] - ready[0], HOP);
        let windows: Vec<Window> =
            (0..3).map(|k| (0..CHANNELS).map(|c| vec![(100 * k + c) as i16; WINDOW]).collect()).collect();
        let played = stream_windows(&windows);
        assert_eq!(played.len(), ready.len());
        // The second window is the last 90 samples of the first recording and 10 of the second.
        assert_eq!(played[1][2][WINDOW - HOP - 1], 2);
        assert_eq!(played[1][2][WINDOW - HOP], 102);
    }

    #[test]
    fn peer_statistics_are_channel_major() {
        let w: Window = (0..CHANNELS).map(|c| (0..WINDOW).map(|t| (c * 1000 + t) as i16).collect()).collect();
        let s = peer_statistics(&w).unwrap();
        assert_eq!(s.len(), CHANNELS * PEER_STATS.len());
        assert_eq!(&s[5..10], &[1049, 28, 1_102_283, 1000, 1099]);
    }
}

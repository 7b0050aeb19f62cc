//! Training speed and scale: times `ltu train` on seeded synthetic data and writes
//! `docs/TRAINING_SPEED.md`.
//!
//! ```text
//! cargo build --release -p ltu
//! cargo run --release -p ltu --example train_speed [-- --quick] [--cap SECONDS] [--only CASE]
//!     [--ltu PATH] [--before JSON] [--json JSON] [--out MD] [--from JSON]
//! ```
//!
//! Every data set is generated here from a fixed seed and written as CSV under
//! `target/train-speed/` (never committed), then each case runs the `ltu` binary (`--ltu`,
//! default: the `ltu` next to this example's directory, i.e. `target/release/ltu`) as a child
//! process, killed after `--cap` seconds (default 600). Times are wall-clock seconds of the whole
//! command (reading the CSV, training, the held-out estimate `ltu train` makes by default,
//! exporting and verifying through the runtime).
//!
//! Cases:
//!
//! * `table1-*`: Marchand & Golea's table 1 problem (intersection of two orthogonal halfspaces,
//!   n = 10, m = 3000, the reproduction example's seeds), through `ltu train --algo hsi` and
//!   `--algo ndl`, with and without `--no-estimate`, next to the reproduction example's own call
//!   (`decision_list::learn` on float weights, positive class 1), timed in this process.
//! * `table1-n50-ndl`: the same problem at n = 50, m = 14000 (the paper's largest).
//! * `numeric-*`: 100,000 rows × 20 numeric attributes, 3 classes (a `make_classification`-style
//!   generator: 8 informative attributes, 2 Gaussian clusters per class on the vertices of a
//!   hypercube, 4 redundant linear combinations, 8 noise attributes, 1 % of the labels flipped),
//!   one case per learner with its defaults.
//!
//! `--json` writes the measured rows; `--before` reads such a file from an earlier commit and adds
//! its times as a "before" column; `--from` writes the report of such a file without measuring.
//! The committed report is
//! `... --example train_speed -- --from docs/training-speed.json --before docs/training-speed-4919e08.json`,
//! and `docs/training-speed.json` came from `... -- --json docs/training-speed.json`
//! (`docs/training-speed-4919e08.json`: a run of an earlier commit, named in the file).

use std::fmt::Write as _;
use std::io::{BufWriter, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use ltu::learners::decision_list::{self as dl, HsiShape, Params, Sample, Shape};
use ltu::rng::Rng;
use serde::{Deserialize, Serialize};

// Paper data generators, shared with the tests (not part of the library).
#[path = "paper/ndl.rs"]
mod synth;

/// One measured command.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Measured {
    /// Case name (stable across runs: the `--before` key).
    case: String,
    /// What ran.
    command: String,
    /// Wall-clock seconds (`None`: killed at the cap or failed).
    seconds: Option<f64>,
    /// CPU seconds (user + system) of the command, from `/proc/self/stat` (Linux; `None`
    /// elsewhere or when killed). Less sensitive than wall time to other jobs on the machine.
    #[serde(default)]
    cpu_seconds: Option<f64>,
    /// Training accuracy as `ltu train` reports it.
    train_accuracy: Option<f64>,
    /// Held-out estimate as `ltu train` reports it.
    heldout_accuracy: Option<f64>,
    /// Model bytes.
    bytes: Option<usize>,
    /// Why there is no time (`killed after N s`, or the error).
    note: String,
}

/// Results of one run of this program.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Results {
    /// `git rev-parse --short HEAD` when it ran (with `+` if the tree had changes).
    commit: String,
    /// The cap in seconds.
    cap: f64,
    /// The machine it ran on (`None` in files written before it was recorded).
    #[serde(default)]
    machine: Option<String>,
    rows: Vec<Measured>,
}

/// User + system CPU seconds of this process's waited-for children (`/proc/self/stat` fields
/// `cutime` and `cstime`, in clock ticks of 1/100 s on Linux).
fn children_cpu() -> Option<f64> {
    proc_stat_seconds(13)
}

/// User + system CPU seconds of this process (`/proc/self/stat` fields `utime` and `stime`).
fn own_cpu() -> Option<f64> {
    proc_stat_seconds(11)
}

/// The sum of two consecutive tick fields of `/proc/self/stat`, counted from the field after the
/// command name (which is in parentheses and may hold spaces), in seconds.
fn proc_stat_seconds(first: usize) -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let fields: Vec<&str> = stat[stat.rfind(')')? + 2..].split_whitespace().collect();
    let ticks = fields.get(first)?.parse::<f64>().ok()? + fields.get(first + 1)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

fn write_csv(path: &Path, x: &[Vec<f64>], y: &[usize], classes: &[&str], decimals: usize) {
    let file = std::fs::File::create(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut w = BufWriter::new(file);
    let d = x.first().map_or(0, Vec::len);
    let header: Vec<String> = (0..d).map(|j| format!("x{j}")).chain(["class".to_string()]).collect();
    writeln!(w, "{}", header.join(",")).expect("write");
    for (row, &c) in x.iter().zip(y) {
        for v in row {
            write!(w, "{v:.decimals$},").expect("write");
        }
        writeln!(w, "{}", classes[c]).expect("write");
    }
}

/// The table 1 training set of the reproduction example's run `run` (same seed, same draws).
fn table1(n: usize, m: usize, run: u64) -> (Vec<Vec<f64>>, Vec<usize>) {
    let mut rng = Rng::new(1000 * n as u64 + run);
    let normals = synth::orthogonal_normals(n, &mut rng);
    synth::orthogonal_intersection(&normals, m / 2, m / 2, &mut rng)
}

/// A `make_classification`-style problem: `informative` attributes with `clusters` Gaussian
/// clusters per class centred on distinct vertices of the hypercube `{-1, 1}^informative`, then
/// `redundant` random linear combinations of them, then noise attributes up to `d`, and a
/// `flip` fraction of labels replaced by a uniform class.
fn numeric(m: usize, d: usize, classes: usize, seed: u64) -> (Vec<Vec<f64>>, Vec<usize>) {
    let (informative, redundant, clusters, flip) = (8usize, 4usize, 2usize, 0.01);
    let mut rng = Rng::new(seed);
    let mut vertices: Vec<u64> = Vec::new();
    while vertices.len() < classes * clusters {
        let v = rng.next_u64() & ((1 << informative) - 1);
        if !vertices.contains(&v) {
            vertices.push(v);
        }
    }
    let mix: Vec<Vec<f64>> =
        (0..redundant).map(|_| (0..informative).map(|_| 2.0 * rng.f64() - 1.0).collect()).collect();
    let (mut x, mut y) = (Vec::with_capacity(m), Vec::with_capacity(m));
    for i in 0..m {
        let class = i % classes;
        let vertex = vertices[class * clusters + rng.below(clusters)];
        let mut row: Vec<f64> =
            (0..informative).map(|j| if vertex >> j & 1 == 1 { 1.0 } else { -1.0 } + rng.normal()).collect();
        let extra: Vec<f64> = mix.iter().map(|w| w.iter().zip(&row).map(|(a, b)| a * b).sum()).collect();
        row.extend(extra);
        while row.len() < d {
            row.push(rng.normal());
        }
        let label = if rng.f64() < flip { rng.below(classes) } else { class };
        x.push(row);
        y.push(label);
    }
    // Shuffle the rows (the class order above is periodic).
    let mut idx: Vec<usize> = (0..m).collect();
    rng.shuffle(&mut idx);
    (idx.iter().map(|&i| x[i].clone()).collect(), idx.iter().map(|&i| y[i]).collect())
}

/// Runs `ltu train` with `args` on `data`, killed after `cap`.
fn ltu_train(ltu: &Path, case: &str, data: &Path, args: &[&str], cap: Duration) -> Measured {
    let mut full: Vec<String> = vec!["train".into(), data.display().to_string()];
    full.extend(args.iter().map(|s| s.to_string()));
    full.extend(["-o".into(), "/dev/null".into(), "--json".into()]);
    let shown = format!(
        "ltu {}",
        full.iter()
            .map(|a| a.replace(&*data.parent().map_or(String::new(), |p| p.display().to_string()), "DATA"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    eprint!("{case}: {shown} ... ");
    let out_path = std::env::temp_dir().join(format!("ltu-train-speed-{}.json", std::process::id()));
    let out = std::fs::File::create(&out_path).expect("temporary file");
    let cpu_before = children_cpu();
    let start = Instant::now();
    let mut child =
        Command::new(ltu).args(&full).stdout(out).stderr(Stdio::null()).spawn().unwrap_or_else(|e| {
            panic!("{}: {e} (build it first: cargo build --release -p ltu)", ltu.display())
        });
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break Some(s);
        }
        if start.elapsed() >= cap {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let seconds = start.elapsed().as_secs_f64();
    let cpu = children_cpu().zip(cpu_before).map(|(a, b)| a - b);
    let text = std::fs::read_to_string(&out_path).unwrap_or_default();
    let _ = std::fs::remove_file(&out_path);
    let mut m = Measured {
        case: case.into(),
        command: shown,
        seconds: None,
        cpu_seconds: None,
        train_accuracy: None,
        heldout_accuracy: None,
        bytes: None,
        note: String::new(),
    };
    match status {
        None => m.note = format!("killed after {:.0} s", cap.as_secs_f64()),
        Some(s) if !s.success() => m.note = format!("failed: {}", text.trim()),
        Some(_) => {
            let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
            m.seconds = Some(seconds);
            m.cpu_seconds = cpu;
            m.train_accuracy = v["train_accuracy"].as_f64();
            m.heldout_accuracy = v["estimate"]["accuracy"].as_f64();
            m.bytes = v["model_bytes"].as_u64().map(|b| b as usize);
        }
    }
    eprintln!(
        "{}",
        m.seconds
            .map_or(m.note.clone(), |s| format!("{s:.2} s, {:.2} s CPU", m.cpu_seconds.unwrap_or(f64::NAN)))
    );
    m
}

/// The reproduction example's table 1 call (float weights, positive class 1, `params`: the
/// reproduction uses [`Params::unbounded_search`]), timed here.
fn example_call(case: &str, n: usize, m: usize, runs: u64, params: &Params, what: &str) -> Measured {
    let mut total = 0.0;
    let cpu_start = own_cpu();
    for run in 0..runs {
        let (x, y) = table1(n, m, run);
        let s = Sample { x: &x, y: &y, n_classes: 2, quant: None };
        let t = Instant::now();
        dl::learn(&s, Shape::Hsi { shape: HsiShape::Intersection, positive: 1 }, params, run)
            .expect("valid sample");
        total += t.elapsed().as_secs_f64();
    }
    let seconds = total / runs as f64;
    // The data generation is included: it is small next to the training.
    let cpu = own_cpu().zip(cpu_start).map(|(a, b)| (a - b) / runs as f64);
    eprintln!("{case}: {what}, {seconds:.2} s per run");
    Measured {
        case: case.into(),
        command: format!("decision_list::learn (float, hsi, positive 1) {what}, mean of runs 0..{runs}"),
        seconds: Some(seconds),
        cpu_seconds: cpu,
        train_accuracy: None,
        heldout_accuracy: None,
        bytes: None,
        note: String::new(),
    }
}

fn git_commit() -> String {
    let run = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .output()
            .ok()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_default()
    };
    let head = run(&["rev-parse", "--short", "HEAD"]);
    let dirty = !run(&["status", "--porcelain", "--untracked-files=no"]).is_empty();
    format!("{head}{}", if dirty { "+" } else { "" })
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!("{cpu}, {cores} cores visible, {} {}", std::env::consts::OS, std::env::consts::ARCH)
}

fn read_results(path: &str) -> Results {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}")))
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned()
}

fn secs(s: Option<f64>, note: &str) -> String {
    match s {
        Some(s) => format!("{s:.2} s"),
        None if note.starts_with("killed") => format!("> {}", note.trim_start_matches("killed after ")),
        None => "failed".into(),
    }
}

fn pct(a: Option<f64>) -> String {
    a.map_or("—".into(), |a| format!("{:.1} %", 100.0 * a))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick");
    let cap =
        Duration::from_secs_f64(arg(&args, "--cap").map_or(600.0, |s| s.parse().expect("--cap SECONDS")));
    let only = arg(&args, "--only");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let ltu = arg(&args, "--ltu").map_or_else(
        || {
            let exe = std::env::current_exe().expect("current exe");
            exe.parent().and_then(Path::parent).map_or_else(|| PathBuf::from("ltu"), |d| d.join("ltu"))
        },
        PathBuf::from,
    );
    let dir = root.join("target/train-speed");
    std::fs::create_dir_all(&dir).expect("target/train-speed");
    // `--from JSON`: no measuring, the report of an earlier `--json` file.
    let from: Option<Results> = arg(&args, "--from").map(|p| read_results(&p));
    let wanted = |case: &str| from.is_none() && only.as_deref().is_none_or(|o| case.starts_with(o));
    // The commit at the start: a long run must not record one committed while it ran.
    let commit = git_commit();
    let mut rows: Vec<Measured> = Vec::new();

    // Table 1, n = 10, m = 3000 (run 0 of the reproduction example).
    let (n, m) = if quick { (10, 600) } else { (10, 3000) };
    if wanted("table1-n10") {
        let (x, y) = table1(n, m, 0);
        let path = dir.join(format!("table1-n{n}-m{m}.csv"));
        write_csv(&path, &x, &y, &["neg", "pos"], 6);
        let runs = if quick { 1 } else { 3 };
        rows.push(example_call(
            "table1-n10-example",
            n,
            m,
            runs,
            &Params::unbounded_search(),
            "with Params::unbounded_search() as reproduce_ndl's table 1",
        ));
        rows.push(example_call(
            "table1-n10-library-default",
            n,
            m,
            runs,
            &Params::default(),
            "with Params::default()",
        ));
        for (case, extra) in [
            ("table1-n10-hsi", &["--algo", "hsi"][..]),
            ("table1-n10-hsi-no-estimate", &["--algo", "hsi", "--no-estimate"][..]),
            ("table1-n10-ndl", &["--algo", "ndl"][..]),
            ("table1-n10-ndl-no-estimate", &["--algo", "ndl", "--no-estimate"][..]),
            // The example learns one list with fixed settings: without the inner
            // cross-validation that chooses them, the CLI does the same work.
            ("table1-n10-hsi-fixed", &["--algo", "hsi", "--no-estimate", "--validation-folds", "0"][..]),
            ("table1-n10-ndl-fixed", &["--algo", "ndl", "--no-estimate", "--validation-folds", "0"][..]),
        ] {
            rows.push(ltu_train(&ltu, case, &path, extra, cap));
        }
    }
    if wanted("table1-n50") {
        let (n, m) = if quick { (50, 2000) } else { (50, 14000) };
        let (x, y) = table1(n, m, 0);
        let path = dir.join(format!("table1-n{n}-m{m}.csv"));
        write_csv(&path, &x, &y, &["neg", "pos"], 6);
        rows.push(ltu_train(&ltu, "table1-n50-ndl", &path, &["--algo", "ndl"], cap));
    }
    if wanted("numeric") {
        let m = if quick { 5_000 } else { 100_000 };
        let (x, y) = numeric(m, 20, 3, 12);
        let path = dir.join(format!("numeric-m{m}-d20-c3.csv"));
        write_csv(&path, &x, &y, &["a", "b", "c"], 4);
        for algo in ltu::learn::Algo::ALL.iter().filter(|a| a.name() != "hsi") {
            let case = format!("numeric-{}", algo.name());
            rows.push(ltu_train(&ltu, &case, &path, &["--algo", algo.name()], cap));
        }
    }

    let results = from.unwrap_or(Results { commit, cap: cap.as_secs_f64(), machine: Some(machine()), rows });
    if let Some(path) = arg(&args, "--json") {
        std::fs::write(&path, serde_json::to_string_pretty(&results).expect("json")).expect("--json PATH");
        eprintln!("wrote {path}");
    }
    let before: Option<Results> = arg(&args, "--before").map(|p| read_results(&p));
    let mut out = String::new();
    writeln!(out, "# Training speed and scale\n").unwrap();
    writeln!(
        out,
        "Generated by `cargo build --release -p ltu && cargo run --release -p ltu --example train_speed{}` \
         (do not edit by hand) at commit {}, on {}. Every data set is generated by the example from a fixed \
         seed (see `trainer/examples/train_speed.rs`); times are wall-clock seconds of the whole `ltu train` \
         command, each killed after {:.0} s. The machine is shared (two cores, other jobs running), so single \
         times are noisy; compare rows of one run.\n",
        if quick { " -- --quick" } else { "" },
        results.commit,
        // A report written `--from` a file names the machine that measured it, not this one.
        results.machine.as_deref().unwrap_or("a machine the file does not record"),
        results.cap
    )
    .unwrap();
    let has_before = before.is_some();
    if let Some(b) = &before {
        writeln!(
            out,
            "\"before\" is the same program at commit {} (cap {:.0} s): its CPU time where that run \
             recorded one, else its wall-clock time.\n",
            b.commit, b.cap
        )
        .unwrap();
    }
    writeln!(
        out,
        "| case | command | {}time | CPU time | training accuracy | held-out accuracy | model bytes |",
        if has_before { "before | " } else { "" }
    )
    .unwrap();
    writeln!(out, "|---|---|{}---|---|---|---|---|", if has_before { "---|" } else { "" }).unwrap();
    for r in &results.rows {
        let b = before.as_ref().and_then(|b| b.rows.iter().find(|x| x.case == r.case));
        writeln!(
            out,
            "| {} | `{}` | {}{} | {} | {} | {} | {} |",
            r.case,
            r.command,
            if has_before {
                b.map_or("—".into(), |b| match b.cpu_seconds {
                    Some(c) => format!("{c:.2} s"),
                    None => secs(b.seconds, &b.note),
                }) + " | "
            } else {
                String::new()
            },
            secs(r.seconds, &r.note),
            r.cpu_seconds.map_or("—".into(), |c| format!("{c:.2} s")),
            pct(r.train_accuracy),
            pct(r.heldout_accuracy),
            r.bytes.map_or("—".into(), |b| b.to_string())
        )
        .unwrap();
    }
    targets(&mut out, &results);
    out.push_str(NOTES);
    let out_path = arg(&args, "--out").map_or_else(|| root.join("docs/TRAINING_SPEED.md"), PathBuf::from);
    std::fs::write(&out_path, out).unwrap_or_else(|e| panic!("{}: {e}", out_path.display()));
    eprintln!("wrote {}", out_path.display());
}

/// The speed goals, checked against this run's CPU times (wall time when CPU is unknown).
fn targets(out: &mut String, results: &Results) {
    let row = |case: &str| results.rows.iter().find(|r| r.case == case);
    let time = |r: &Measured| r.cpu_seconds.or(r.seconds);
    writeln!(out, "\n## Speed goals in this run (CPU time)\n").unwrap();
    if let Some(example) = row("table1-n10-example").and_then(time) {
        for case in [
            "table1-n10-hsi-fixed",
            "table1-n10-hsi-no-estimate",
            "table1-n10-hsi",
            "table1-n10-ndl-fixed",
            "table1-n10-ndl-no-estimate",
            "table1-n10-ndl",
        ] {
            if let Some(t) = row(case).and_then(time) {
                let ratio = t / example;
                writeln!(
                    out,
                    "* `{case}` within 2× of the reproduction example's {example:.2} s: {:.1}× — {}",
                    ratio,
                    if ratio <= 2.0 { "met" } else { "not met" }
                )
                .unwrap();
            }
        }
    }
    let cases: Vec<&Measured> = results
        .rows
        .iter()
        .filter(|r| r.case == "table1-n50-ndl" || r.case.starts_with("numeric-"))
        .collect();
    for r in cases {
        let t = time(r);
        writeln!(
            out,
            "* `{}` under 60 s (`ltu train` with its held-out estimate: two trainings): {} — {}",
            r.case,
            t.map_or_else(|| secs(None, &r.note), |t| format!("{t:.1} s")),
            if t.is_some_and(|t| t < 60.0) { "met" } else { "not met" }
        )
        .unwrap();
    }
}

/// How to read the table (independent of any particular run's numbers).
const NOTES: &str = "
## Reading the table

* `time` is wall-clock, `CPU time` user + system seconds of the command (both threads of `hsi`
  without `--positive`, which builds its two lists side by side). On a shared machine CPU time is
  the steadier figure; compare rows of one run.
* `ltu train` trains twice by default: the model on every row, then a second one on three
  quarters of them for the held-out estimate. The `-no-estimate` rows time the first alone.
* `table1-n10-example` is what `reproduce_ndl` times for table 1: one `hsi` list with the
  positive class given, float weights, `Params::unbounded_search()` (the paper's search, microlp),
  no file reading, export or verification. `table1-n10-library-default` is the same call with
  `Params::default()` (bounded search, dense LP solver). The `ltu train` rows add file reading,
  i16 weights in the loop, export and verification, and (for `hsi` without `--positive`) the
  second list.
* What shapes these times (`docs/DECISION_LIST.md`, `docs/SPARSE_PERCEPTRON.md`): for
  `ndl`/`hsi`, `Find_large_neg_subset` ends after three passes without a larger subset
  (`--patience`), two-class lists reuse the losing class's cover, `hsi` stops the longer list
  once the shorter is done, each step searches a sample of at most 2,000 rows on more than 4,000
  training rows (`--max-search-rows`, `Params::search_all_up_to`), and IncLP's questions go to a
  dense active-set method (`trainer/src/learners/decision_list/dense.rs`) rather than microlp;
  `oblique` copies each epoch's rows in visiting order before it trains on them; `sparse` counts
  pair masses from histograms.
* `ndl`/`hsi` choose their margin norm, Wilson's editing and (ndl on two classes) the halfspace
  intersection by 5-fold cross-validation inside the training rows, on up to 10,000 rows
  (`decision_list::Choose`); with 2,000 or more rows the candidates race (each runs two folds,
  then the better half goes on after each fold; `Choose::race_from_rows`). That learns several
  candidate lists before the final one, so the `table1-n10` rows cost more than the
  reproduction example, which learns one list with fixed settings; the `-fixed` rows
  (`--validation-folds 0 --no-estimate`) are the like-for-like comparison. `table1-n50` and
  `numeric` (more than 10,000 rows) choose nothing.
* The `before` column is a run of an earlier commit (named in its JSON file) on the machine that
  file records; compare it with this run only where both ran on the same machine.
";

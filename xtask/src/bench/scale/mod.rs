//! `cargo xtask compare --scale`: every learner's defaults on synthetic problems of the shapes
//! users' data takes at 10^4–10^5 rows ([`synth`]), against scikit-learn's CART, logistic
//! regression and random forest in the same run; writes `docs/SCALE.md`.
//!
//! Each learner is trained the way a user trains it — `ltu train TRAIN --algo A --test TEST
//! --json`, the release binary, pinned to one core with `taskset` — so the time is the CPU time a
//! user's core spends (reading the CSV, training, the runtime's check, writing the model), and
//! the accuracy is the runtime's on the test file. A training that has used [`CAP_SECONDS`] of
//! CPU time is stopped and reported as such. The peers run afterwards (`bench/scale_peers.py`, one thread).

mod report;
pub mod synth;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result};
use ltu::learn::Algo;
use serde_json::Value;

use crate::bench::compare::render::{command_line, git_state};
use crate::bench::python::ensure_venv;
use crate::cmd;
use synth::Shape;

/// Where the data, models and peer results go.
const OUT_DIR: &str = "target/scale";
/// The committed report.
pub const REPORT: &str = "docs/SCALE.md";
/// A training still running after this long is stopped (the goal is a minute).
pub const CAP_SECONDS: u64 = 180;

/// A training still running after this much wall-clock time is stopped whatever CPU time it used.
const WALL_GUARD_SECONDS: u64 = 20 * CAP_SECONDS;

/// One learner on one shape.
#[derive(Debug, Clone)]
pub struct Run {
    /// `--algo`'s value.
    pub algo: String,
    /// What happened.
    pub outcome: Outcome,
}

/// How one training ended.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// Trained: the runtime's accuracy on the test file, the device bytes (no host block), the
    /// worst-case multiply-accumulates, the wall time on one core and the warnings printed.
    Trained { accuracy: f64, train_accuracy: f64, bytes: u64, macs: u64, seconds: f64, warnings: Vec<String> },
    /// Stopped at [`CAP_SECONDS`].
    Capped,
    /// `ltu train` failed; its message.
    Failed(String),
}

/// Runs every learner (or `algos`) on every shape and the peers, and writes the report to `out`
/// (default [`REPORT`]).
///
/// # Errors
/// Data that cannot be written, a binary that does not build, a venv or peer script that fails.
pub fn run(root: &Path, algos: &[Algo], out: Option<&Path>) -> Result<()> {
    let started = Instant::now();
    let (commit, dirty) = git_state(root);
    let dir = root.join(OUT_DIR);
    for shape in Shape::ALL {
        synth::write(&dir, shape)?;
    }
    let ltu = cmd::ltu_release(root)?;
    let pin = cmd::exists("taskset");
    let names: Vec<String> = if algos.is_empty() {
        Algo::ALL.iter().map(|a| a.name().to_string()).collect()
    } else {
        algos.iter().map(|a| a.name().to_string()).collect()
    };
    let models = dir.join("models");
    std::fs::create_dir_all(&models).with_context(|| format!("creating {}", models.display()))?;
    let mut runs: Vec<(Shape, Vec<Run>)> = Vec::new();
    for shape in Shape::ALL {
        let (train, test) = synth::paths(&dir, shape);
        let mut shape_runs = Vec::new();
        for algo in &names {
            let model = models.join(format!("{}-{algo}.ltu", shape.name()));
            let outcome = train_one(&ltu, pin, algo, &train, &test, &model)?;
            println!("{} {algo}: {}", shape.name(), report::outcome_line(&outcome));
            shape_runs.push(Run { algo: algo.clone(), outcome });
        }
        runs.push((shape, shape_runs));
    }
    let ltu_seconds = started.elapsed().as_secs_f64();

    let (python, notes) = ensure_venv(root)?;
    let peers_path = dir.join("peers.json");
    let shapes: Vec<&str> = Shape::ALL.iter().map(|s| s.name()).collect();
    println!("peers: scikit-learn CART, logistic regression, random forest (one thread)");
    let peers_started = Instant::now();
    cmd::run(
        Command::new(&python)
            .current_dir(&dir)
            .arg(root.join("bench/scale_peers.py"))
            .arg("--data")
            .arg(&dir)
            .arg("--shapes")
            .arg(shapes.join(","))
            .arg("--out")
            .arg(&peers_path),
    )?;
    let peers_seconds = peers_started.elapsed().as_secs_f64();
    let text =
        std::fs::read_to_string(&peers_path).with_context(|| format!("reading {}", peers_path.display()))?;
    let peers: Value =
        serde_json::from_str(&text).with_context(|| format!("parsing {}", peers_path.display()))?;

    let info = report::Info {
        command: command_line(),
        commit,
        dirty,
        pinned: pin,
        ltu_seconds,
        peers_seconds,
        notes,
    };
    let (text, goals) = report::render(&runs, &peers, &info)?;
    let out: PathBuf = out.map_or_else(|| root.join(REPORT), Path::to_path_buf);
    let tmp = out.with_extension("md.tmp");
    std::fs::write(&tmp, text).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, &out)
        .with_context(|| format!("renaming {} to {}", tmp.display(), out.display()))?;
    println!("goals:");
    for g in goals {
        println!("  {g}");
    }
    println!("wrote {} in {:.0} s", out.display(), started.elapsed().as_secs_f64());
    Ok(())
}

/// `ltu train` on one shape, pinned to one core when `pin`, stopped at [`CAP_SECONDS`].
/// Why `ltu train` failed, from its stderr: the innermost cause (`ltu` prints the error, then
/// each cause on a line of its own), which is the learner's reason; the outer lines name this
/// machine's paths.
fn failure(stderr: &str) -> String {
    let lines: Vec<&str> = stderr
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("error") || l.starts_with("caused by"))
        .collect();
    match lines.last() {
        Some(l) => l.strip_prefix("caused by:").unwrap_or(l).trim().to_string(),
        None => stderr.trim().to_string(),
    }
}

fn train_one(ltu: &Path, pin: bool, algo: &str, train: &Path, test: &Path, model: &Path) -> Result<Outcome> {
    let mut command = if pin {
        let mut c = Command::new("taskset");
        c.args(["-c", "0"]).arg(ltu);
        c
    } else {
        Command::new(ltu)
    };
    command
        .args(["-q", "--json", "train"])
        .arg(train)
        .args(["--algo", algo, "--test"])
        .arg(test)
        .arg("-o")
        .arg(model)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let before = children_cpu_seconds()?;
    let started = Instant::now();
    let mut child = command.spawn().with_context(|| format!("running {}", cmd::display(&command)))?;
    // The pipes are drained by threads so a chatty child never blocks on a full pipe.
    let mut stdout = child.stdout.take().context("ltu's stdout")?;
    let mut stderr = child.stderr.take().context("ltu's stderr")?;
    let out_reader = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut s).map(|_| s)
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut s).map(|_| s)
    });
    // The cap is on the CPU time the training has used, so other work on the machine only makes
    // the run longer, never a learner capped; the wall-clock guard only catches a child that
    // stops making progress.
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        let cpu = running_cpu_seconds(child.id()).unwrap_or(0.0);
        if cpu > CAP_SECONDS as f64 || started.elapsed() > Duration::from_secs(WALL_GUARD_SECONDS) {
            child.kill()?;
            child.wait()?;
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let seconds = children_cpu_seconds()? - before;
    let stdout = out_reader.join().map_err(|_| anyhow::anyhow!("reading ltu's stdout panicked"))??;
    let stderr = err_reader.join().map_err(|_| anyhow::anyhow!("reading ltu's stderr panicked"))??;
    let Some(status) = status else {
        return Ok(Outcome::Capped);
    };
    if !status.success() {
        return Ok(Outcome::Failed(failure(&stderr)));
    }
    let json: Value = serde_json::from_str(&stdout).context("parsing `ltu train --json`")?;
    let number =
        |v: &Value, what: &str| v.as_f64().with_context(|| format!("`ltu train --json` has no {what}"));
    Ok(Outcome::Trained {
        accuracy: number(&json["estimate"]["accuracy"], "estimate.accuracy")?,
        train_accuracy: number(&json["train_accuracy"], "train_accuracy")?,
        bytes: json["device_bytes"].as_u64().context("`ltu train --json` has no device_bytes")?,
        macs: json["max_macs"].as_u64().unwrap_or(0),
        seconds,
        warnings: json["warnings"]
            .as_array()
            .map(|w| w.iter().filter_map(|s| s.as_str().map(str::to_string)).collect())
            .unwrap_or_default(),
    })
}

/// CPU time (user and system) of this process's children that have ended and been waited for.
fn children_cpu_seconds() -> Result<f64> {
    use nix::sys::resource::{getrusage, UsageWho};
    let usage = getrusage(UsageWho::RUSAGE_CHILDREN).context("getrusage of the children")?;
    let seconds = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 + t.tv_usec() as f64 * 1e-6;
    Ok(seconds(usage.user_time()) + seconds(usage.system_time()))
}

/// CPU time (user and system) a running process `pid` has used so far, from `/proc/PID/stat`
/// (`None` where there is no such file).
fn running_cpu_seconds(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name (which may hold spaces, so split after its closing paren):
    // state is the first, utime and stime the 12th and 13th.
    let fields: Vec<&str> = stat.get(stat.rfind(')')? + 1..)?.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    let per_second = nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK).ok()??;
    Some(ticks / per_second as f64)
}

#[cfg(test)]
mod tests {
    use super::failure;

    #[test]
    fn a_failure_is_its_innermost_cause_without_the_paths_around_it() {
        let stderr = "error: training hsi on /tmp/x/sensor-train.csv\n  caused by: invalid option: hsi needs exactly two classes, the data has 11\n";
        assert_eq!(failure(stderr), "invalid option: hsi needs exactly two classes, the data has 11");
        assert_eq!(failure("error: out of memory\n"), "error: out of memory");
        assert_eq!(failure("killed\n"), "killed");
    }
}

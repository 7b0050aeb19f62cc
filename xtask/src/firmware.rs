//! Building `firmware-example/`, running it under QEMU, decoding its defmt log, counting its
//! instructions and measuring its size.

use std::fmt;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context, Result};
use defmt_decoder::{DecodeError, Table};
use object::{Object, ObjectSection, SectionFlags, SectionKind};

use crate::cmd;

/// A microcontroller target the firmware runs on under QEMU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Target {
    /// Rust target triple.
    pub triple: &'static str,
    /// QEMU machine (`qemu-system-arm -machine`).
    pub machine: &'static str,
    /// The core, for reports.
    pub core: &'static str,
}

/// Every target `cargo xtask qemu` runs, the default first.
pub const TARGETS: [Target; 3] = [
    Target { triple: "thumbv7m-none-eabi", machine: "mps2-an385", core: "Cortex-M3" },
    Target { triple: "thumbv6m-none-eabi", machine: "microbit", core: "Cortex-M0" },
    Target { triple: "thumbv7em-none-eabihf", machine: "mps2-an386", core: "Cortex-M4F" },
];

/// The target with this triple.
pub fn target(triple: &str) -> Result<Target> {
    TARGETS.iter().copied().find(|t| t.triple == triple).with_context(|| {
        let known: Vec<_> = TARGETS.iter().map(|t| t.triple).collect();
        format!("unknown firmware target `{triple}` (known: {})", known.join(", "))
    })
}

/// The firmware crate's directory.
pub fn dir(root: &Path) -> PathBuf {
    root.join("firmware-example")
}

/// Where the firmware's generated inputs live (committed, so the firmware builds standalone).
pub fn model_dir(root: &Path) -> PathBuf {
    dir(root).join("model")
}

/// Options for [`build`] that the negative checks change.
#[derive(Default)]
pub struct BuildOptions<'a> {
    /// Inputs other than `firmware-example/model/` (sets `LTU_MODEL_DIR`).
    pub model_dir: Option<&'a Path>,
    /// A cargo target directory other than `firmware-example/target/`.
    pub target_dir: Option<&'a Path>,
    /// Build this example (`firmware-example/examples/`) instead of the application.
    pub example: Option<&'a str>,
    /// Build the bench example's twin that holds no model (`LTU_BENCH_NULL=1`).
    pub null_twin: bool,
    /// Build the bench example over the generated Rust source `model.rs` (`LTU_BENCH_CODEGEN=1`).
    pub codegen: bool,
    /// Build the runtime with only these model kinds (`--no-default-features --features ...`,
    /// what [`ltu_runtime::Model::features_needed`] lists); `None`: every kind.
    pub runtime_features: Option<&'a [&'a str]>,
}

/// Builds the firmware in release mode for `target`; returns the ELF's path.
pub fn build(root: &Path, target: Target, options: &BuildOptions) -> Result<PathBuf> {
    let fw = dir(root);
    let mut cargo = cmd::cargo(&fw);
    cargo.args(["build", "--release", "--target", target.triple]).env("DEFMT_LOG", "info");
    if let Some(model_dir) = options.model_dir {
        cargo.env("LTU_MODEL_DIR", model_dir);
    } else {
        cargo.env_remove("LTU_MODEL_DIR");
    }
    if let Some(example) = options.example {
        cargo.args(["--example", example]);
    }
    if let Some(features) = options.runtime_features {
        cargo.args(["--no-default-features", "--features", &features.join(",")]);
    }
    for (var, on) in [("LTU_BENCH_NULL", options.null_twin), ("LTU_BENCH_CODEGEN", options.codegen)] {
        if on {
            cargo.env(var, "1");
        } else {
            cargo.env_remove(var);
        }
    }
    let target_dir = options.target_dir.map_or_else(|| fw.join("target"), Path::to_path_buf);
    cargo.arg("--target-dir").arg(&target_dir);
    cmd::run(&mut cargo)?;
    let release = target_dir.join(target.triple).join("release");
    Ok(match options.example {
        Some(example) => release.join("examples").join(example),
        None => release.join("ltu-firmware-example"),
    })
}

/// Builds the instruction-count plugin into `target/insncount/` unless it is up to date.
pub fn plugin(root: &Path) -> Result<PathBuf> {
    let src = dir(root).join("tools/insncount.c");
    let out_dir = root.join("target/insncount");
    let lib = out_dir.join("libinsncount.so");
    let modified = |p: &Path| fs::metadata(p).and_then(|m| m.modified()).ok();
    if let (Some(lib_time), Some(src_time)) = (modified(&lib), modified(&src)) {
        if lib_time >= src_time {
            return Ok(lib);
        }
    }
    fs::create_dir_all(&out_dir).with_context(|| format!("creating {}", out_dir.display()))?;
    cmd::run(
        Command::new("gcc")
            .args(["-shared", "-fPIC", "-O2", "-Wall", "-Werror", "-o"])
            .arg(&lib)
            .arg(&src)
            .arg("-ldl"),
    )?;
    Ok(lib)
}

/// What one QEMU run of the firmware produced.
#[derive(Debug)]
pub struct Run {
    /// QEMU's exit code: the firmware's, passed through semihosting.
    pub code: i32,
    /// The decoded defmt log, one line per frame.
    pub log: Vec<String>,
    /// Instructions in each measured region, in order (with the plugin).
    pub regions: Vec<u64>,
    /// Instructions executed in the whole run (with the plugin).
    pub total: Option<u64>,
    /// QEMU's stderr lines other than the plugin's.
    pub stderr: Vec<String>,
}

/// Runs an ELF under QEMU (`machine`), optionally with the instruction-count plugin, and decodes
/// its defmt output. Gives up after `QEMU_TIMEOUT` seconds (default 120).
pub fn run(elf: &Path, machine: &str, plugin: Option<&Path>) -> Result<Run> {
    let elf_bytes = fs::read(elf).with_context(|| format!("reading {}", elf.display()))?;
    let (mut run, stdout) = run_raw(elf, machine, plugin)?;
    run.log = decode(&elf_bytes, &stdout)?;
    Ok(run)
}

/// Runs an ELF under QEMU like [`run`] for firmware that writes plain text over semihosting
/// (the C bench firmware): one log entry per line of its output.
pub fn run_text(elf: &Path, machine: &str, plugin: Option<&Path>) -> Result<Run> {
    let (mut run, stdout) = run_raw(elf, machine, plugin)?;
    run.log = String::from_utf8_lossy(&stdout).lines().map(String::from).collect();
    Ok(run)
}

/// Runs an ELF under QEMU; returns the run without its log, and the semihosting output.
fn run_raw(elf: &Path, machine: &str, plugin: Option<&Path>) -> Result<(Run, Vec<u8>)> {
    let mut qemu = Command::new("qemu-system-arm");
    // Nothing but semihosting reaches stdout; stdin is not read.
    qemu.args(["-machine", machine, "-display", "none", "-serial", "null", "-monitor", "none"])
        .args(["-semihosting-config", "enable=on,target=native"]);
    if let Some(plugin) = plugin {
        qemu.arg("-plugin").arg(plugin);
    }
    qemu.arg("-kernel").arg(elf);
    qemu.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let what = cmd::display(&qemu);
    let mut child = qemu.spawn().with_context(|| format!("could not start `{what}`"))?;
    let reader = |mut pipe: Box<dyn Read + Send>| {
        thread::spawn(move || {
            let mut buf = Vec::new();
            pipe.read_to_end(&mut buf).map(|_| buf)
        })
    };
    let stdout = reader(Box::new(child.stdout.take().context("no stdout pipe")?));
    let stderr = reader(Box::new(child.stderr.take().context("no stderr pipe")?));
    let timeout =
        Duration::from_secs(std::env::var("QEMU_TIMEOUT").ok().and_then(|s| s.parse().ok()).unwrap_or(120));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if start.elapsed() > timeout {
            child.kill().ok();
            child.wait().ok();
            bail!("`{what}` did not finish within {} s (set QEMU_TIMEOUT to wait longer)", timeout.as_secs());
        }
        thread::sleep(Duration::from_millis(5));
    };
    let stdout = stdout.join().expect("stdout reader panicked")?;
    let stderr = stderr.join().expect("stderr reader panicked")?;
    let code = status.code().with_context(|| format!("`{what}` was killed by a signal"))?;

    let mut run = Run { code, log: Vec::new(), regions: Vec::new(), total: None, stderr: Vec::new() };
    for line in String::from_utf8_lossy(&stderr).lines() {
        if let Some(rest) = line.strip_prefix("insncount region=") {
            let (k, n) = rest.split_once(" insns=").with_context(|| format!("bad plugin line `{line}`"))?;
            ensure!(
                k.parse::<usize>().ok() == Some(run.regions.len()),
                "plugin regions out of order at `{line}`"
            );
            run.regions.push(n.parse().with_context(|| format!("bad plugin line `{line}`"))?);
        } else if let Some(n) = line.strip_prefix("insncount total=") {
            run.total = Some(n.parse().with_context(|| format!("bad plugin line `{line}`"))?);
        } else {
            run.stderr.push(line.to_string());
        }
    }
    if plugin.is_some() && run.total.is_none() {
        bail!("the instruction-count plugin printed no total; QEMU said: {}", run.stderr.join(" | "));
    }
    Ok((run, stdout))
}

/// Decodes the defmt frames the firmware wrote, with the string table from its ELF.
pub fn decode(elf: &[u8], bytes: &[u8]) -> Result<Vec<String>> {
    let table = Table::parse(elf)?.context("the ELF has no .defmt section (not a defmt firmware?)")?;
    let mut decoder = table.new_stream_decoder();
    decoder.received(bytes);
    let mut lines = Vec::new();
    loop {
        match decoder.decode() {
            Ok(frame) => lines.push(frame.display(false).to_string()),
            Err(DecodeError::UnexpectedEof) => break,
            Err(DecodeError::Malformed) => bail!("malformed defmt frame after {} frames", lines.len()),
        }
    }
    Ok(lines)
}

/// Memory a firmware image needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sizes {
    /// Bytes stored in flash: code, read-only data, vector table, initial values of `.data`.
    pub flash: u64,
    /// Static RAM: `.data`, `.bss`, `.uninit` (the stack comes on top).
    pub ram: u64,
}

/// Reads flash and static RAM use from the ELF's allocated sections.
pub fn sizes(elf: &[u8]) -> Result<Sizes> {
    const SHF_WRITE: u64 = 1;
    const SHF_ALLOC: u64 = 2;
    let file = object::File::parse(elf).context("parsing the firmware ELF")?;
    let mut sizes = Sizes { flash: 0, ram: 0 };
    for section in file.sections() {
        let SectionFlags::Elf { sh_flags } = section.flags() else { continue };
        if sh_flags & SHF_ALLOC == 0 {
            continue;
        }
        if section.kind() != SectionKind::UninitializedData {
            sizes.flash += section.size();
        }
        if sh_flags & SHF_WRITE != 0 {
            sizes.ram += section.size();
        }
    }
    Ok(sizes)
}

/// Instruction counts of the measured regions, which alternate: feature extraction, then
/// classification, once per recording.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cost {
    /// Per recording: computing the window features.
    pub features: Vec<u64>,
    /// Per recording: `Model::predict`.
    pub classify: Vec<u64>,
}

impl Cost {
    /// Splits the plugin's regions; there must be two per recording.
    pub fn from_regions(regions: &[u64], recordings: usize) -> Result<Cost> {
        ensure!(
            regions.len() == 2 * recordings,
            "{} measured regions, want 2 per recording ({recordings} recordings)",
            regions.len()
        );
        Ok(Cost {
            features: regions.iter().step_by(2).copied().collect(),
            classify: regions.iter().skip(1).step_by(2).copied().collect(),
        })
    }
}

/// Minimum, mean (rounded) and maximum.
pub struct Spread(pub u64, pub u64, pub u64);

impl Spread {
    /// Of a non-empty list.
    pub fn of(xs: &[u64]) -> Spread {
        let sum: u64 = xs.iter().sum();
        let n = xs.len().max(1) as u64;
        Spread(
            xs.iter().copied().min().unwrap_or(0),
            (sum + n / 2) / n,
            xs.iter().copied().max().unwrap_or(0),
        )
    }
}

impl fmt::Display for Spread {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == self.2 {
            write!(f, "{}", self.0)
        } else {
            write!(f, "{} (min {}, max {})", self.1, self.0, self.2)
        }
    }
}

/// Measurements of one target, for reports.
pub struct Report {
    /// The target.
    pub target: Target,
    /// Instruction counts.
    pub cost: Cost,
    /// Whole-run instruction count.
    pub total: u64,
    /// Image sizes.
    pub sizes: Sizes,
    /// Bytes of the embedded model file.
    pub model_bytes: u64,
    /// Bytes of embedded test data (recordings and expected predictions).
    pub test_data_bytes: u64,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = &self.target;
        writeln!(f, "{} ({}, QEMU {}):", t.core, t.triple, t.machine)?;
        writeln!(
            f,
            "  instructions per feature extraction (6 channels x 100 samples): {}",
            Spread::of(&self.cost.features)
        )?;
        writeln!(f, "  instructions per classification: {}", Spread::of(&self.cost.classify))?;
        writeln!(f, "  instructions for the whole run: {}", self.total)?;
        write!(
            f,
            "  flash {} bytes (model {} bytes, test recordings {} bytes, firmware without test data {} bytes), static RAM {} bytes",
            self.sizes.flash,
            self.model_bytes,
            self.test_data_bytes,
            self.sizes.flash.saturating_sub(self.test_data_bytes),
            self.sizes.ram
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cost_alternates_and_checks_count() {
        let c = Cost::from_regions(&[10, 1, 11, 2], 2).unwrap();
        assert_eq!(c.features, [10, 11]);
        assert_eq!(c.classify, [1, 2]);
        assert!(Cost::from_regions(&[10, 1, 11], 2).is_err());
    }

    #[test]
    fn spread_display() {
        assert_eq!(Spread::of(&[5, 5]).to_string(), "5");
        assert_eq!(Spread::of(&[1, 2, 4]).to_string(), "2 (min 1, max 4)");
    }

    #[test]
    fn unknown_target_is_named() {
        assert_eq!(target("thumbv6m-none-eabi").unwrap().machine, "microbit");
        assert!(target("x86").unwrap_err().to_string().contains("thumbv7m-none-eabi"));
    }
}

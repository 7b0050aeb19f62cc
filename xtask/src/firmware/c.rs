//! The C firmware example (`firmware-example/c/`), configured and built with CMake for one target
//! and run under QEMU. Two binaries replay the recordings the Rust firmware replays:
//! `classify_codegen` (the model compiled in: C from `ltu codegen --lang c --window`) and
//! `classify_api` (the model file through the runtime's C API, `runtime-c/`; built when that
//! crate is in the tree). Each must exit 0, print every recording's class equal to the host's,
//! and count the same instructions per window on two runs; a wrong host prediction must make
//! them exit 1 and a corrupted model must make `classify_api` exit 2.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, ensure, Context, Result};

use crate::cmd;
use crate::firmware::checks::exit;
use crate::firmware::cost::{self, Sizes, Spread};
use crate::firmware::inputs::{self, Inputs};
use crate::firmware::qemu::{self, print_log};
use crate::firmware::{self, Target};
use crate::steps::Steps;

/// The binary with the model compiled in.
const CODEGEN: &str = "classify_codegen";
/// The binary over the runtime's C API.
const API: &str = "classify_api";

/// The profile setting runtime-c/CMakeLists.txt runs cargo with. `cargo xtask test` builds the
/// runtime and libltu_c.a for the cross targets with it too, so that the C firmware's library
/// (built in the same target directory) reuses their crates instead of compiling them again.
pub const CROSS_ENV: [(&str, &str); 1] = [("CARGO_PROFILE_RELEASE_PANIC", "abort")];

/// The CMake project's directory.
pub fn dir(root: &Path) -> PathBuf {
    firmware::dir(root).join("c")
}

/// The CMake toolchain file (under `firmware-example/c/cmake/`) and the C compiler of a target.
fn toolchain(target: Target) -> Result<(&'static str, &'static str)> {
    Ok(match target.triple {
        "thumbv7m-none-eabi" => ("cortex-m3.cmake", "arm-none-eabi-gcc"),
        "riscv32imac-unknown-none-elf" => ("riscv32.cmake", "riscv64-unknown-elf-gcc"),
        other => bail!(
            "the C firmware has no toolchain file for `{other}` \
             (it builds for thumbv7m-none-eabi and riscv32imac-unknown-none-elf)"
        ),
    })
}

/// The binaries the CMake project builds.
const BINARIES: [&str; 2] = [CODEGEN, API];

/// Whether the C firmware builds for `target` (it has a toolchain file for it).
pub fn builds_for(target: Target) -> bool {
    toolchain(target).is_ok()
}

/// How the CMake project is configured.
struct Config {
    /// The `ltu` command.
    ltu: PathBuf,
    /// The runtime's cargo features `classify_api` links (`LTU_FEATURES`): what the committed
    /// model needs, as a firmware that runs one model is built.
    features: String,
}

impl Config {
    fn new(root: &Path) -> Result<Config> {
        let inputs = Inputs::read(&firmware::model_dir(root))?;
        let features: Vec<&str> = inputs::load_model(&inputs.model)?.features_needed().collect();
        Ok(Config { ltu: cmd::ltu(root)?, features: features.join(",") })
    }
}

/// Configures the CMake project into `build` for `target`, with the inputs in `model_dir`, and
/// builds `cmake_targets` (all when empty).
fn cmake_build(
    root: &Path,
    target: Target,
    config: &Config,
    model_dir: &Path,
    build: &Path,
    cmake_targets: &[&str],
) -> Result<()> {
    let (toolchain, compiler) = toolchain(target)?;
    for program in ["cmake", compiler] {
        ensure!(cmd::exists(program), "`{program}` is not installed (the C firmware needs it)");
    }
    let src = dir(root);
    let mut configure = Command::new("cmake");
    configure
        .arg("-S")
        .arg(&src)
        .arg("-B")
        .arg(build)
        .arg("--toolchain")
        .arg(src.join("cmake").join(toolchain))
        .arg(format!("-DLTU={}", config.ltu.display()))
        .arg(format!("-DLTU_MODEL_DIR={}", model_dir.display()))
        .arg(format!("-DLTU_FEATURES={}", config.features))
        // The workspace's target directory: the library's crates are those `cargo xtask test`'s
        // cross builds compiled, with the same profile settings (`CROSS_ENV`). CMake runs cargo
        // on every build, so the library at that path is always the one with these features.
        .arg(format!("-DLTU_CARGO_TARGET_DIR={}", cmd::target_dir(root).display()));
    cmd::run(&mut configure)?;
    let mut make = Command::new("cmake");
    make.arg("--build").arg(build);
    if !cmake_targets.is_empty() {
        make.arg("--target").args(cmake_targets);
    }
    cmd::run(&mut make)
}

/// Checks the log of one run: a line `recording R: class K (host: E)` for each recording in
/// order, with K equal to E and E the host's prediction; nothing else starts with `recording`.
fn check_predictions(log: &[String], expected: &[u8]) -> Result<()> {
    let mut n = 0;
    for line in log.iter().filter(|l| l.starts_with("recording ")) {
        let want =
            expected.get(n).with_context(|| format!("more prediction lines than recordings: `{line}`"))?;
        let agreeing = format!("recording {n}: class {want} (host: {want})");
        ensure!(*line == agreeing, "`{line}`, want `{agreeing}`");
        n += 1;
    }
    ensure!(n == expected.len(), "{n} prediction lines, want one per recording ({})", expected.len());
    Ok(())
}

/// What one binary costs.
struct Measured {
    name: &'static str,
    /// Instructions of each window's measured region.
    windows: Vec<u64>,
    /// Instructions of the whole run.
    total: u64,
    sizes: Sizes,
}

/// Runs one binary twice with the instruction-count plugin: exit 0, every prediction the host's,
/// one measured region per recording, the same counts both times.
fn run_binary(
    elf: &Path,
    target: Target,
    plugin: &Path,
    inputs: &Inputs,
    name: &'static str,
) -> Result<Measured> {
    let run = qemu::run_text(elf, target.machine, Some(plugin))?;
    if run.code != exit::OK {
        print_log(&run);
    }
    ensure!(
        run.code == exit::OK,
        "exit code {}, want {} (all predictions match the host)",
        run.code,
        exit::OK
    );
    check_predictions(&run.log, &inputs.expected).inspect_err(|_| print_log(&run))?;
    let recordings = inputs.expected.len();
    ensure!(
        run.regions.len() == recordings,
        "{} measured regions, want one per recording ({recordings})",
        run.regions.len()
    );
    ensure!(run.regions.iter().all(|&n| n > 0), "a measured region counted 0 instructions");
    let again = qemu::run_text(elf, target.machine, Some(plugin))?;
    ensure!(
        again.code == run.code && again.regions == run.regions && again.total == run.total,
        "two runs differ: exit {} / {} and {:?} / {:?} instructions",
        run.code,
        again.code,
        run.total,
        again.total
    );
    let bytes = fs::read(elf).with_context(|| format!("reading {}", elf.display()))?;
    Ok(Measured { name, windows: run.regions, total: run.total.unwrap_or(0), sizes: cost::sizes(&bytes)? })
}

/// Builds the C firmware for `target` and runs each binary under QEMU (`target.machine`), then the
/// runs that must fail; prints instructions per window and flash of each binary. Records one step
/// per check.
pub fn check(root: &Path, target: Target, steps: &mut Steps) {
    let name = target.triple;
    let base = root.join("target/firmware-c").join(name);
    let mut config = None;
    let built = steps.run(&format!("{name}: C firmware: CMake build of {}", BINARIES.join(", ")), || {
        let c = Config::new(root)?;
        cmake_build(root, target, &c, &firmware::model_dir(root), &base.join("build"), &[])?;
        config = Some(c);
        Ok(())
    });
    let (true, Some(config)) = (built, config) else { return };

    let mut measured = Vec::new();
    for binary in BINARIES {
        steps.run(
            &format!(
                "{name}: C {binary} on QEMU {} ({}): exit 0, every class the host's, counts repeat",
                target.machine, target.core
            ),
            || {
                let inputs = Inputs::read(&firmware::model_dir(root))?;
                let plugin = firmware::plugin(root)?;
                measured.push(run_binary(
                    &base.join("build").join(binary),
                    target,
                    &plugin,
                    &inputs,
                    binary,
                )?);
                Ok(())
            },
        );
    }
    check_failures(root, target, &config, &base, steps);

    if !measured.is_empty() {
        let inputs = Inputs::read(&firmware::model_dir(root)).ok();
        let test_data = inputs.map_or(0, |i| (i.recordings.len() + i.expected.len()) as u64);
        println!("\nC firmware, {} ({name}, QEMU {}):", target.core, target.machine);
        for m in &measured {
            println!(
                "  {}: instructions per window {}, whole run {}; flash {} bytes ({} without the test recordings), static RAM {} bytes",
                m.name,
                Spread::of(&m.windows),
                m.total,
                m.sizes.flash,
                m.sizes.flash.saturating_sub(test_data),
                m.sizes.ram
            );
        }
    }
}

/// Inputs that must make the binaries fail: a wrong host prediction (every binary exits 1) and a
/// corrupted model (`classify_api` exits 2; `ltu codegen` rejects it before anything is built).
fn check_failures(root: &Path, target: Target, config: &Config, base: &Path, steps: &mut Steps) {
    let name = target.triple;
    steps.run(&format!("{name}: C firmware: a wrong host prediction exits {}", exit::MISMATCH), || {
        let mut inputs = Inputs::read(&firmware::model_dir(root))?;
        let n_classes = inputs::load_model(&inputs.model)?.n_classes() as u8;
        inputs.expected[0] = (inputs.expected[0] + 1) % n_classes;
        let dir = base.join("wrong-host");
        inputs.write(&dir.join("model"))?;
        cmake_build(root, target, config, &dir.join("model"), &dir.join("build"), &BINARIES)?;
        for binary in BINARIES {
            let run = qemu::run_text(&dir.join("build").join(binary), target.machine, None)?;
            print_log(&run);
            ensure!(run.code == exit::MISMATCH, "{binary}: exit code {}, want {}", run.code, exit::MISMATCH);
            let summary = format!(
                "{} of {} predictions match the host",
                inputs.expected.len() - 1,
                inputs.expected.len()
            );
            ensure!(run.log.contains(&summary), "{binary}: no line says `{summary}`");
        }
        Ok(())
    });
    steps.run(&format!("{name}: C {API}: a corrupted model exits {}", exit::BAD_INPUT), || {
        let mut inputs = Inputs::read(&firmware::model_dir(root))?;
        let mid = inputs.model.len() / 2;
        inputs.model[mid] ^= 0x10;
        let dir = base.join("corrupt-model");
        inputs.write(&dir.join("model"))?;
        cmake_build(root, target, config, &dir.join("model"), &dir.join("build"), &[API])?;
        let run = qemu::run_text(&dir.join("build").join(API), target.machine, None)?;
        print_log(&run);
        ensure!(run.code == exit::BAD_INPUT, "exit code {}, want {}", run.code, exit::BAD_INPUT);
        ensure!(run.log.iter().any(|l| l.starts_with("model rejected: ")), "no line says `model rejected: `");
        Ok(())
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(String::from).collect()
    }

    #[test]
    fn predictions_must_all_be_the_hosts() {
        let ok =
            lines("model: 3 inputs\nrecording 0: class 2 (host: 2)\nrecording 1: class 0 (host: 0)\n2 of 2");
        check_predictions(&ok, &[2, 0]).unwrap();
        // A mismatch, a line for a recording the host predicted differently, a missing line.
        let mismatch = lines("recording 0: class 2 (host: 2)\nrecording 1: class 1, host: 0");
        assert!(check_predictions(&mismatch, &[2, 0]).unwrap_err().to_string().contains("class 1, host: 0"));
        assert!(check_predictions(&ok, &[2, 1]).is_err());
        assert!(check_predictions(&ok[..2], &[2, 0]).unwrap_err().to_string().contains("1 prediction lines"));
        assert!(check_predictions(&ok, &[2]).is_err());
    }

    #[test]
    fn toolchains_of_known_targets_only() {
        let target = |triple| Target { triple, ..firmware::TARGETS[0] };
        assert_eq!(toolchain(target("riscv32imac-unknown-none-elf")).unwrap().0, "riscv32.cmake");
        assert!(toolchain(target("thumbv6m-none-eabi"))
            .unwrap_err()
            .to_string()
            .contains("thumbv7m-none-eabi"));
    }
}

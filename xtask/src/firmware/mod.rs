//! The firmware example (`firmware-example/`): its targets, building it, and everything xtask does
//! with it — running it under QEMU, measuring its cost, the demo that generates its inputs, and the
//! checks of `cargo xtask qemu`.

pub mod adapt;
pub mod c;
pub mod checks;
pub mod cost;
pub mod demo;
pub mod inputs;
pub mod qemu;
pub mod run_elf;

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result};

use crate::cmd;

/// A microcontroller target the firmware runs on under QEMU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Target {
    /// Rust target triple.
    pub triple: &'static str,
    /// The emulated board.
    pub machine: Machine,
    /// The core, for reports.
    pub core: &'static str,
}

/// A QEMU board: the emulator, its `-machine` and what else it needs to start a bare-metal ELF.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Machine {
    /// The QEMU system emulator.
    pub qemu: &'static str,
    /// Its `-machine`.
    pub name: &'static str,
    /// Further options before `-kernel`.
    pub args: &'static [&'static str],
}

/// QEMU's Arm system emulator.
pub const QEMU_ARM: &str = "qemu-system-arm";
/// QEMU's 32-bit RISC-V system emulator.
pub const QEMU_RISCV32: &str = "qemu-system-riscv32";

impl Machine {
    const fn arm(name: &'static str) -> Machine {
        Machine { qemu: QEMU_ARM, name, args: &[] }
    }
}

impl fmt::Display for Machine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

/// Every target `cargo xtask qemu` runs, the default first.
pub const TARGETS: [Target; 4] = [
    Target { triple: "thumbv7m-none-eabi", machine: Machine::arm("mps2-an385"), core: "Cortex-M3" },
    Target { triple: "thumbv6m-none-eabi", machine: Machine::arm("microbit"), core: "Cortex-M0" },
    Target { triple: "thumbv7em-none-eabihf", machine: Machine::arm("mps2-an386"), core: "Cortex-M4F" },
    Target {
        triple: "riscv32imac-unknown-none-elf",
        // `-bios none`: no OpenSBI in front; QEMU starts the ELF at its entry in machine mode.
        machine: Machine { qemu: QEMU_RISCV32, name: "virt", args: &["-bios", "none"] },
        core: "RV32IMAC",
    },
];

/// The target with this triple.
pub fn target(triple: &str) -> Result<Target> {
    TARGETS.iter().copied().find(|t| t.triple == triple).with_context(|| {
        let known: Vec<_> = TARGETS.iter().map(|t| t.triple).collect();
        format!("unknown firmware target `{triple}` (supported: {})", known.join(", "))
    })
}

/// The targets named by `triples`, or every target when there is none (`--target` of the
/// firmware commands).
pub fn targets(triples: &[String]) -> Result<Vec<Target>> {
    if triples.is_empty() {
        return Ok(TARGETS.to_vec());
    }
    triples.iter().map(|t| target(t)).collect()
}

/// The board of the targets with this QEMU `-machine` name (the cargo runner names it).
pub fn machine(name: &str) -> Result<Machine> {
    TARGETS.iter().map(|t| t.machine).find(|m| m.name == name).with_context(|| {
        let known: Vec<_> = TARGETS.iter().map(|t| t.machine.name).collect();
        format!("unknown QEMU machine `{name}` (supported: {})", known.join(", "))
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
    /// Build this example (`firmware-example/examples/`) instead of the application.
    pub example: Option<&'a str>,
    /// Build the bench example's twin that holds no model (`LTU_BENCH_NULL=1`).
    pub null_twin: bool,
    /// Build the bench example over the generated Rust source `model.rs` (`LTU_BENCH_CODEGEN=1`).
    pub codegen: bool,
    /// Build the pipeline example's streaming variant (`LTU_BENCH_STREAM=1`).
    pub stream: bool,
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
    for (var, on) in [
        ("LTU_BENCH_NULL", options.null_twin),
        ("LTU_BENCH_CODEGEN", options.codegen),
        ("LTU_BENCH_STREAM", options.stream),
    ] {
        if on {
            cargo.env(var, "1");
        } else {
            cargo.env_remove(var);
        }
    }
    // One target directory for every build of the firmware: the builds differ in the firmware
    // crate and the runtime's features, never in their dependencies, which compile once.
    let target_dir = fw.join("target");
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_target_is_named() {
        assert_eq!(target("thumbv6m-none-eabi").unwrap().machine.name, "microbit");
        let err = target("x86").unwrap_err().to_string();
        for t in TARGETS {
            assert!(err.contains(t.triple), "{err}");
        }
    }

    #[test]
    fn machines_are_found_by_name() {
        assert_eq!(machine("virt").unwrap().qemu, QEMU_RISCV32);
        assert_eq!(machine("mps2-an385").unwrap().qemu, QEMU_ARM);
        assert!(machine("sifive_e").unwrap_err().to_string().contains("virt"));
    }
}

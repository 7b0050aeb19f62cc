//! `cargo xtask`: the project's automation. `cargo xtask test` is what CI runs; `cargo xtask demo`
//! goes from raw sensor recordings to predictions on a simulated microcontroller.
//!
//! This file only parses the command line and dispatches. Where each command lives:
//!
//! - `firmware/`: the firmware example — building it (`mod.rs`), the QEMU runner (`qemu.rs`), what
//!   an image costs (`cost.rs`), its generated inputs (`inputs.rs`), `demo`
//!   (`demo.rs`), `adapt` (`adapt.rs`), `qemu` (`checks.rs`, and `c.rs` for the C firmware) and the cargo runner `run-elf` (`run_elf.rs`).
//! - `bench/`: `compare` and `bench-device`, each split into running and measuring, then
//!   rendering the report; `python.rs` is the Python side both use.
//! - `test.rs`: `cargo xtask test`, everything CI checks.
//! - Shared helpers: `cmd` (running programs), `steps` (named pass/fail steps), `prereq`
//!   (toolchains and packages), `dataset` (bench-device's `basicmotions-window` features of `data/basicmotions.csv`).

mod bench;
mod cmd;
mod dataset;
mod firmware;
mod prereq;
mod python;
mod steps;
mod test;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::bench::{compare, device};
use crate::firmware::{adapt, checks, demo, run_elf};

#[derive(Parser)]
#[command(about = "ltu project automation", long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Train on raw recordings (ltu train --recordings), predict on the host, then run the firmware under QEMU predicting on-chip from the raw samples
    Demo {
        /// Firmware target to run: thumbv7m-none-eabi, thumbv6m-none-eabi, thumbv7em-none-eabihf or riscv32imac-unknown-none-elf
        #[arg(long, default_value = "thumbv7m-none-eabi")]
        target: String,
    },
    /// Build and run the firmware examples under QEMU (Rust on every target, C on thumbv7m and riscv32imac); exit non-zero unless every on-chip class is the host's and the instruction counts repeat
    Qemu {
        /// Only this target; repeat for several (default: all of thumbv7m-none-eabi, thumbv6m-none-eabi, thumbv7em-none-eabihf, riscv32imac-unknown-none-elf)
        #[arg(long)]
        target: Vec<String>,
    },
    /// The firmware that adapts: a model trained on the host, corrected on the device from labelled windows of a drifted sensor (ltu_runtime::Learner) under QEMU; fails unless the device learns the host's model byte for byte and drifted accuracy recovers to within 5 points of undrifted
    Adapt {
        /// Only this target; repeat for several (default: all of thumbv7m-none-eabi, thumbv6m-none-eabi, thumbv7em-none-eabihf, riscv32imac-unknown-none-elf)
        #[arg(long)]
        target: Vec<String>,
    },
    /// Everything CI checks: host tests, cross builds, clippy, fmt, firmware inputs, QEMU runs
    Test,
    /// The Python package alone (a step of `test`): its wheel built from the working tree, installed in a fresh virtual environment under the target directory, its pytest suite run
    Python,
    /// ltu's learners against scikit-learn CART (and its emlearn size) on the same folds; writes docs/BENCHMARKS.md
    Compare(compare::Args),
    /// Write the synthetic datasets of the scale benchmark (sensor, mixture, additive) as CSV training and test files
    Synth {
        /// Directory to write NAME-train.csv and NAME-test.csv into
        #[arg(long, default_value = "target/scale")]
        out: PathBuf,
    },
    /// ltu and emlearn on an emulated Cortex-M: instructions, flash, stack, accuracy; writes docs/DEVICE.md
    BenchDevice(device::Args),
    /// Cargo runner for firmware-example: run one ELF under QEMU and decode its defmt log
    #[command(hide = true)]
    RunElf {
        /// QEMU machine
        #[arg(long)]
        machine: String,
        /// Also count instructions per measured region
        #[arg(long)]
        count: bool,
        /// The firmware ELF
        elf: PathBuf,
    },
}

fn main() -> ExitCode {
    let root = root();
    let result = match Cli::parse().command {
        Cmd::Demo { target } => demo::run(&root, &target).map(|()| ExitCode::SUCCESS),
        Cmd::Qemu { target } => checks::run(&root, &target),
        Cmd::Adapt { target } => adapt::run(&root, &target),
        Cmd::Test => Ok(test::run(&root)),
        Cmd::Python => prereq::python().and_then(|()| python::test(&root)).map(|()| ExitCode::SUCCESS),
        Cmd::Compare(args) => compare::run(&root, &args).map(|()| ExitCode::SUCCESS),
        Cmd::Synth { out } => synth(&root.join(out)).map(|()| ExitCode::SUCCESS),
        Cmd::BenchDevice(args) => device::run(&root, &args).map(|()| ExitCode::SUCCESS),
        Cmd::RunElf { machine, count, elf } => run_elf::run_elf(&root, &elf, &machine, count)
            .map(|code| ExitCode::from(u8::try_from(code).unwrap_or(1))),
    };
    result.unwrap_or_else(|e| {
        eprintln!("error: {e:#}");
        ExitCode::FAILURE
    })
}

/// `cargo xtask synth`: writes every synthetic shape and says where.
fn synth(dir: &Path) -> anyhow::Result<()> {
    for shape in bench::scale::synth::Shape::ALL {
        let (train, test) = bench::scale::synth::write(dir, shape)?;
        println!("{}: {} and {} ({})", shape.name(), train.display(), test.display(), shape.about());
    }
    Ok(())
}

/// The repository root (the xtask's parent directory).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask is inside the repository").to_path_buf()
}

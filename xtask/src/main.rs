//! `cargo xtask`: the project's automation. `cargo xtask test` is what CI runs; `cargo xtask demo`
//! goes from raw sensor recordings to predictions on a simulated microcontroller.

mod bench_device;
mod cmd;
mod compare;
mod dataset;
mod demo;
mod firmware;
mod prereq;
mod qemu;
mod steps;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{ensure, Result};
use clap::{Parser, Subcommand};

use crate::steps::Steps;

#[derive(Parser)]
#[command(about = "ltu project automation", long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Convert data/basicmotions.csv to i16 sensor counts and window features (target/basicmotions/)
    Features,
    /// Features, training, host predictions, then the firmware under QEMU predicting on-chip
    Demo {
        /// Firmware target to run
        #[arg(long, default_value = "thumbv7m-none-eabi")]
        target: String,
    },
    /// Build and run the firmware under QEMU; check exit codes and deterministic instruction counts
    Qemu {
        /// Only this target (default: thumbv7m-none-eabi, thumbv6m-none-eabi, thumbv7em-none-eabihf)
        #[arg(long)]
        target: Vec<String>,
    },
    /// Everything CI checks: host tests, cross builds, clippy, fmt, firmware inputs, QEMU runs
    Test,
    /// ltu's learners against scikit-learn CART (and its emlearn size) on the same folds; writes docs/BENCHMARKS.md
    Compare(compare::Args),
    /// ltu and emlearn on an emulated Cortex-M: instructions, flash, stack, accuracy; writes docs/DEVICE.md
    BenchDevice(bench_device::Args),
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
    let root = demo::root();
    let result = match Cli::parse().command {
        Cmd::Features => features(&root).map(|()| ExitCode::SUCCESS),
        Cmd::Demo { target } => demo(&root, &target).map(|()| ExitCode::SUCCESS),
        Cmd::Qemu { target } => qemu(&root, &target),
        Cmd::Test => Ok(test(&root)),
        Cmd::Compare(args) => compare::run(&root, &args).map(|()| ExitCode::SUCCESS),
        Cmd::BenchDevice(args) => bench_device::run(&root, &args).map(|()| ExitCode::SUCCESS),
        Cmd::RunElf { machine, count, elf } => {
            qemu::run_elf(&elf, &machine, count).map(|code| ExitCode::from(u8::try_from(code).unwrap_or(1)))
        }
    };
    result.unwrap_or_else(|e| {
        eprintln!("error: {e:#}");
        ExitCode::FAILURE
    })
}

fn features(root: &Path) -> Result<()> {
    let split = dataset::load_split(root)?;
    demo::features(root, &split)?;
    Ok(())
}

fn demo(root: &Path, triple: &str) -> Result<()> {
    let target = firmware::target(triple)?;
    let mut steps = Steps::default();
    let ok = steps.run("prerequisites", || {
        prereq::rust(&[target.triple], false)?;
        prereq::qemu_and_gcc()
    });
    ensure!(ok, "prerequisites missing");
    let ok = steps.run("features, training and host predictions", || {
        let s = dataset::load_split(root)?;
        let inputs = demo::generate(root, &s, demo::OUT_DIR)?;
        demo::summarize(&inputs.model, &s)?;
        let dir = firmware::model_dir(root);
        inputs.write(&dir)?;
        println!(
            "wrote the firmware's inputs to {}: model.ltu, recordings.bin, expected.bin, rows.rs",
            dir.strip_prefix(root)?.display()
        );
        Ok(())
    });
    ensure!(ok, "the pipeline failed before the firmware");
    qemu::check_target(root, target, &mut steps, true);
    ensure!(steps.all_passed(), "the demo failed");
    println!("\nThe on-chip predictions above match the host's; firmware-example/model/ holds the new inputs (commit them).");
    Ok(())
}

fn qemu(root: &Path, triples: &[String]) -> Result<ExitCode> {
    let targets = if triples.is_empty() {
        firmware::TARGETS.to_vec()
    } else {
        triples.iter().map(|t| firmware::target(t)).collect::<Result<_>>()?
    };
    let mut steps = Steps::default();
    let triples: Vec<&str> = targets.iter().map(|t| t.triple).collect();
    if steps.run("prerequisites", || {
        prereq::rust(&triples, false)?;
        prereq::qemu_and_gcc()
    }) {
        qemu::all(root, &targets, &mut steps);
    }
    Ok(steps.finish())
}

fn test(root: &Path) -> ExitCode {
    let mut steps = Steps::default();
    let ready = steps.run("prerequisites", || {
        prereq::rust(&prereq::CROSS_TARGETS, true)?;
        prereq::qemu_and_gcc()
    });
    steps.run("cargo test --workspace --no-fail-fast", || {
        cmd::run(cmd::cargo(root).args(["test", "--workspace", "--no-fail-fast"]))
    });
    for target in prereq::CROSS_TARGETS {
        // Default features, plus defmt, a one-model build (a tree of i16 units) and the build
        // with no model kind at all.
        for (features, what) in [
            (None, ""),
            (Some("defmt"), " with defmt"),
            (Some("-tree,i16"), " with only tree and i16"),
            (Some("-"), " without default features"),
        ] {
            let mut cargo = cmd::cargo(root);
            cargo.args(["build", "--release", "-p", "ltu-runtime", "--target", target]);
            // `-` first: without the default features.
            if let Some(f) = features {
                let (no_default, f) = f.strip_prefix('-').map_or((false, f), |f| (true, f));
                if no_default {
                    cargo.arg("--no-default-features");
                }
                if !f.is_empty() {
                    cargo.args(["--features", f]);
                }
            }
            steps.run(&format!("ltu-runtime builds for {target}{what}"), || cmd::run(&mut cargo));
        }
    }
    for features in ["", "tree", "tree,i16", "list,sparse,i8", "fixed,host"] {
        steps.run(&format!("ltu-runtime with only [{features}] rejects every other kind of model"), || {
            let mut cargo = cmd::cargo(root);
            cargo.args(["test", "-p", "ltu-runtime", "--no-default-features"]);
            if !features.is_empty() {
                cargo.args(["--features", features]);
            }
            cmd::run(cargo.args(["--test", "corrupt", "unsupported"]))
        });
    }
    steps.run("runtime on thumbv7m: no soft-float reachable from evaluation; stack bounds", || {
        cmd::run(std::process::Command::new("bash").arg(root.join("tests/thumbv7m/check.sh")))
    });
    steps.run("cargo clippy --workspace --all-targets -- -D warnings", || {
        cmd::run(cmd::cargo(root).args(["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"]))
    });
    steps.run("cargo fmt --check", || cmd::run(cmd::cargo(root).args(["fmt", "--check"])));
    let fw = firmware::dir(root);
    steps.run("firmware-example: cargo fmt --check", || cmd::run(cmd::cargo(&fw).args(["fmt", "--check"])));
    steps.run("firmware-example: cargo clippy --bins --examples -- -D warnings", || {
        cmd::run(cmd::cargo(&fw).args([
            "clippy",
            "--release",
            "--bins",
            "--examples",
            "--",
            "-D",
            "warnings",
        ]))
    });
    steps.run("firmware inputs are current (retrain and compare)", || {
        let split = dataset::load_split(root)?;
        demo::check_committed(root, &firmware::model_dir(root), &split)
    });
    if ready {
        qemu::all(root, &firmware::TARGETS, &mut steps);
        steps.run(
            "bench-device --quick: iris against emlearn on Cortex-M3; committed model's counts vs reference",
            || cmd::run(cmd::cargo(root).args(["xtask", "bench-device", "--quick"])),
        );
    }
    steps.finish()
}

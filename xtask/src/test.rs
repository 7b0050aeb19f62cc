//! `cargo xtask test`: everything CI checks, each as a named step; every failure is collected and
//! reported together at the end.

use std::path::Path;
use std::process::{Command, ExitCode};

use crate::firmware::{adapt, checks, demo};
use crate::steps::Steps;
use crate::{cmd, firmware, prereq, python};

/// Runs every check and returns the exit code of the whole.
pub fn run(root: &Path) -> ExitCode {
    let mut steps = Steps::default();
    let ready = steps.run("prerequisites", || {
        prereq::rust(&prereq::CROSS_TARGETS, true)?;
        prereq::qemu_and_gcc()?;
        prereq::c_tools()?;
        prereq::python()
    });
    // The tests, then the doc tests, each run whatever the other's outcome.
    steps.run("cargo test --workspace --tests --no-fail-fast; cargo test --workspace --doc", || {
        let tests = cmd::run(cmd::cargo_test(root, "--tests").arg("--no-fail-fast"));
        let docs = cmd::run(&mut cmd::cargo_test(root, "--doc"));
        tests.and(docs)
    });
    // The later steps train with the `ltu` command that step built: nothing of the trainer is
    // compiled again for them.
    match cmd::ltu_tested(root) {
        Ok(ltu) => std::env::set_var(cmd::LTU_BIN, ltu),
        Err(e) => {
            println!("warning: the later steps build ltu in release, as the tests' ltu is missing: {e:#}")
        }
    }
    // Every cross target in one cargo run per feature set: cargo compiles the targets' crates side
    // by side, where one target's chain of dependencies would leave a core idle. Features: `None`
    // the defaults, a leading `-` without the default features.
    let targets = prereq::CROSS_TARGETS.join(", ");
    let cross = |package: &str, features: Option<&str>| {
        let mut cargo = cmd::cargo(root);
        cargo.args(["build", "--release", "-p", package]).envs(firmware::c::CROSS_ENV);
        for target in prereq::CROSS_TARGETS {
            cargo.args(["--target", target]);
        }
        if let Some(f) = features {
            let (no_default, f) = f.strip_prefix('-').map_or((false, f), |f| (true, f));
            if no_default {
                cargo.arg("--no-default-features");
            }
            if !f.is_empty() {
                cargo.args(["--features", f]);
            }
        }
        cargo
    };
    // Default features, plus defmt, a one-model build (a tree of i16 units), the same that learns
    // on the device, and the build with no model kind at all. Builds, not checks: a check shares
    // no dependency with the builds before it (`cargo check` with defmt: 62 s, its build 26 s).
    for (features, what) in [
        (None, ""),
        (Some("defmt"), " with defmt"),
        (Some("-tree,i16"), " with only tree and i16"),
        (Some("-learn,tree,i16"), " learning, with only tree and i16"),
        (Some("-"), " without default features"),
    ] {
        let mut cargo = cross("ltu-runtime", features);
        steps.run(&format!("ltu-runtime builds for {targets}{what}"), || cmd::run(&mut cargo));
    }
    // The C API as a static library for every cross target (all model kinds, and one kind only).
    for (features, what) in [(None, ""), (Some("-tree,i16"), " with only tree and i16")] {
        let mut cargo = cross("ltu-runtime-c", features);
        steps.run(&format!("ltu-runtime-c (libltu_c.a) builds for {targets}{what}"), || cmd::run(&mut cargo));
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
        cmd::run(Command::new("bash").arg(root.join("tests/thumbv7m/check.sh")))
    });
    steps.run("Python package: wheel built, installed in a fresh venv, pytest", || python::test(root));
    steps.run("cargo clippy --workspace --all-targets -- -D warnings", || {
        cmd::run(cmd::cargo(root).args(["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"]))
    });
    steps.run("cargo fmt --check", || cmd::run(cmd::cargo(root).args(["fmt", "--check"])));
    // Intra-doc links are what the API docs rely on: a broken one is an error.
    steps.run("cargo doc --workspace --no-deps with warnings as errors", || {
        cmd::run(
            cmd::cargo(root).args(["doc", "--workspace", "--no-deps"]).env("RUSTDOCFLAGS", "-D warnings"),
        )
    });
    // Short bounded runs of the fuzz targets — the runtime's loader and predictions, the same
    // through the C API, and learning on the device (stable toolchain, libFuzzer with
    // SanitizerCoverage: fuzz/run.sh); longer runs are `fuzz/run.sh SECONDS TARGET`.
    // Each run is one process on one core: the loader's target and then learning's run beside the
    // C API's target (the first to build compiles what the others share; the other waits for it).
    steps.run("fuzz: from_bytes_predict for 30 s, then learn for 20 s, beside c_api for 30 s", || {
        let fuzz = |target: &str, secs: &str| {
            cmd::run_captured(Command::new("bash").arg(root.join("fuzz/run.sh")).args([secs, target]))
        };
        std::thread::scope(|s| {
            let c_api = s.spawn(|| fuzz("c_api", "30"));
            let rust = fuzz("from_bytes_predict", "30").and(fuzz("learn", "20"));
            let c_api =
                c_api.join().unwrap_or_else(|_| Err(anyhow::anyhow!("the c_api fuzz thread panicked")));
            rust.and(c_api)
        })
    });
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
    steps.run(
        "firmware-example: cargo clippy --target riscv32imac-unknown-none-elf --bins --examples -- -D warnings",
        || {
            cmd::run(cmd::cargo(&fw).args([
                "clippy",
                "--release",
                "--target",
                "riscv32imac-unknown-none-elf",
                "--bins",
                "--examples",
                "--",
                "-D",
                "warnings",
            ]))
        },
    );
    steps.run("firmware inputs are current (retrain and compare)", || {
        demo::check_committed(root, &firmware::model_dir(root))
    });
    if ready {
        checks::all(root, &firmware::TARGETS, &mut steps);
        adapt::all(root, &firmware::TARGETS, &mut steps);
        steps.run(
            "bench-device --quick: iris against emlearn on Cortex-M3 and RISC-V; committed model's counts vs reference",
            || cmd::run(cmd::cargo(root).args(["xtask", "bench-device", "--quick"])),
        );
    }
    steps.finish()
}

//! `cargo xtask qemu`: the firmware on every target (Cortex-M and RISC-V), with its exit code, deterministic
//! instruction counts and sizes checked; plus negative runs that must fail.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{ensure, Context, Result};

use crate::firmware::cost::{self, Cost, Report};
use crate::firmware::inputs::{self, Inputs};
use crate::firmware::qemu::{self, print_log};
use crate::firmware::{self, c, BuildOptions, Target};
use crate::prereq;
use crate::steps::Steps;

/// Exit codes of the firmware (`firmware-example/src/qemu.rs`).
pub mod exit {
    /// Every prediction matched the host's.
    pub const OK: i32 = 0;
    /// A prediction differed from the host's.
    pub const MISMATCH: i32 = 1;
    /// The model or data were rejected.
    pub const BAD_INPUT: i32 = 2;
    /// A panic.
    pub const PANIC: i32 = 101;
    /// A HardFault (Cortex-M) or an exception trap (RISC-V).
    pub const HARDFAULT: i32 = 102;
}

/// `cargo xtask qemu`: the requested targets (default: all), after the prerequisites.
///
/// # Errors
/// An unknown target triple.
pub fn run(root: &Path, triples: &[String]) -> Result<ExitCode> {
    let targets = firmware::targets(triples)?;
    let mut steps = Steps::default();
    let triples: Vec<&str> = targets.iter().map(|t| t.triple).collect();
    if steps.run("prerequisites", || {
        prereq::rust(&triples, false)?;
        prereq::qemu_and_gcc()?;
        prereq::c_tools()
    }) {
        all(root, &targets, &mut steps);
    }
    Ok(steps.finish())
}

/// Builds and runs the firmware for `target` twice with the instruction-count plugin, checking
/// the exit code, that the log reports every recording, and that the counts repeat exactly.
/// Records one step per check; returns the measurements if all passed.
pub fn check_target(root: &Path, target: Target, steps: &mut Steps, show_log: bool) -> Option<Report> {
    let name = target.triple;
    let mut elf = None;
    steps.run(&format!("{name}: build firmware"), || {
        // As a firmware that runs one model is built: the runtime with only the kinds this model
        // needs, plus `host` (the firmware logs class names).
        let inputs = Inputs::read(&firmware::model_dir(root))?;
        let model = inputs::load_model(&inputs.model)?;
        let features: Vec<&str> = model.features_needed().chain(["host"]).collect();
        let options = BuildOptions { runtime_features: Some(&features), ..BuildOptions::default() };
        elf = Some(firmware::build(root, target, &options)?);
        Ok(())
    });
    let elf = elf?;
    let inputs = Inputs::read(&firmware::model_dir(root)).ok()?;
    let recordings = inputs.expected.len();

    let mut first = None;
    let mut plugin = PathBuf::new();
    steps.run(&format!("{name}: run on QEMU {} ({}), exit code 0", target.machine, target.core), || {
        plugin = firmware::plugin(root)?;
        let run = qemu::run(&elf, target.machine, Some(&plugin))?;
        if show_log || run.code != exit::OK {
            print_log(&run);
        }
        ensure!(
            run.code == exit::OK,
            "exit code {}, want {} (all predictions match the host)",
            run.code,
            exit::OK
        );
        let agreeing = run.log.iter().filter(|l| l.contains("recording") && l.contains("(host:")).count();
        ensure!(agreeing == recordings, "{agreeing} agreeing predictions in the log, want {recordings}");
        first = Some(run);
        Ok(())
    });
    let first = first?;

    let mut report = None;
    steps.run(&format!("{name}: instruction counts are deterministic"), || {
        let cost = Cost::from_regions(&first.regions, recordings)?;
        let again = qemu::run(&elf, target.machine, Some(&plugin))?;
        ensure!(again.code == first.code, "second run exit code {}, first {}", again.code, first.code);
        ensure!(
            again.regions == first.regions && again.total == first.total,
            "two runs counted differently: {:?} / {:?} vs {:?} / {:?}",
            first.total,
            &first.regions[..first.regions.len().min(6)],
            again.total,
            &again.regions[..again.regions.len().min(6)]
        );
        ensure!(
            cost.features.iter().chain(&cost.classify).all(|&n| n > 0),
            "a measured region counted 0 instructions"
        );
        let elf_bytes = fs::read(&elf).with_context(|| format!("reading {}", elf.display()))?;
        report = Some(Report {
            target,
            cost,
            total: first.total.unwrap_or(0),
            sizes: cost::sizes(&elf_bytes)?,
            model_bytes: inputs.model.len() as u64,
            test_data_bytes: (inputs.recordings.len() + inputs.expected.len()) as u64,
        });
        Ok(())
    });
    let report = report?;
    println!("{report}");
    Some(report)
}

/// Runs the firmware on inputs that must make it fail: a wrong expected prediction (exit 1) and a
/// corrupted model (exit 2). Shows that the exit code means something.
pub fn check_failures(root: &Path, target: Target, steps: &mut Steps) {
    let base = root.join("target/firmware-negative");
    /// What the case checks, the exit code it must give, a log line it must print, the corruption.
    type Case = (&'static str, i32, &'static str, fn(&mut Inputs));
    let cases: [Case; 2] = [
        ("a wrong expected prediction exits 1", exit::MISMATCH, "predictions match the host", |i| {
            let n_classes = inputs::load_model(&i.model).map_or(2, |m| m.n_classes()) as u8;
            i.expected[0] = (i.expected[0] + 1) % n_classes;
        }),
        ("a corrupted model exits 2", exit::BAD_INPUT, "model rejected", |i| {
            let mid = i.model.len() / 2;
            i.model[mid] ^= 0x10;
        }),
    ];
    for (i, (what, want, log_marker, corrupt)) in cases.into_iter().enumerate() {
        steps.run(&format!("{}: {what}", target.triple), || {
            let mut inputs = Inputs::read(&firmware::model_dir(root))?;
            corrupt(&mut inputs);
            let dir = base.join(format!("case{i}"));
            inputs.write(&dir)?;
            let options = BuildOptions { model_dir: Some(&dir), ..BuildOptions::default() };
            let elf = firmware::build(root, target, &options)?;
            let run = qemu::run(&elf, target.machine, None)?;
            print_log(&run);
            ensure!(run.code == want, "exit code {}, want {want}", run.code);
            ensure!(run.log.iter().any(|l| l.contains(log_marker)), "no log line says `{log_marker}`");
            Ok(())
        });
    }
}

/// Runs the `panic` and `hardfault` examples: QEMU must exit with 101 and 102, and the fault
/// handler (HardFault on Cortex-M, riscv-rt's exception handler on RISC-V) must name the faulting pc.
pub fn check_handlers(root: &Path, target: Target, steps: &mut Steps) {
    for (example, want, log_marker) in
        [("panic", exit::PANIC, "panicked"), ("hardfault", exit::HARDFAULT, " at pc=0x")]
    {
        steps.run(&format!("{}: a {example} exits {want}", target.triple), || {
            let options = BuildOptions { example: Some(example), ..BuildOptions::default() };
            let elf = firmware::build(root, target, &options)?;
            let run = qemu::run(&elf, target.machine, None)?;
            print_log(&run);
            ensure!(run.code == want, "exit code {}, want {want}", run.code);
            ensure!(run.log.iter().any(|l| l.contains(log_marker)), "no log line says `{log_marker}`");
            Ok(())
        });
    }
}

/// `cargo xtask qemu`: every requested target, then the failure checks on the first.
pub fn all(root: &Path, targets: &[Target], steps: &mut Steps) -> Vec<Report> {
    let mut reports = Vec::new();
    for &target in targets {
        reports.extend(check_target(root, target, steps, false));
        check_handlers(root, target, steps);
    }
    if let Some(&first) = targets.first() {
        check_failures(root, first, steps);
    }
    // The C firmware (firmware-example/c/) on the cores it has a toolchain file for.
    for &target in targets {
        if c::builds_for(target) {
            c::check(root, target, steps);
        } else {
            println!(
                "note: the C firmware has no toolchain file for {}; only the Rust firmware ran there",
                target.triple
            );
        }
    }
    if !reports.is_empty() {
        println!("\nSummary (`cargo xtask qemu`):");
        for r in &reports {
            println!("{r}");
        }
    }
    reports
}

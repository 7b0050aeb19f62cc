//! Installs what the checks need on a fresh machine: rustup targets and components, QEMU, gcc.

use std::process::Command;

use anyhow::{bail, Result};

use crate::cmd;
use crate::firmware::{QEMU_ARM, QEMU_RISCV32};

/// The cross targets the runtime claims and the firmware runs on.
pub const CROSS_TARGETS: [&str; 4] =
    ["thumbv6m-none-eabi", "thumbv7m-none-eabi", "thumbv7em-none-eabihf", "riscv32imac-unknown-none-elf"];

/// Adds the missing rustup targets (and clippy/rustfmt if `components`).
pub fn rust(targets: &[&str], components: bool) -> Result<()> {
    if !cmd::exists("rustup") {
        bail!("rustup not found: install Rust with rustup (https://rustup.rs), then rerun");
    }
    let installed = cmd::output(Command::new("rustup").args(["target", "list", "--installed"]))?;
    let missing: Vec<&str> =
        targets.iter().copied().filter(|t| !installed.lines().any(|l| l.trim() == *t)).collect();
    if missing.is_empty() {
        println!("rustup targets present: {}", targets.join(" "));
    } else {
        cmd::run(Command::new("rustup").args(["target", "add"]).args(&missing))?;
    }
    if components {
        let have = cmd::output(Command::new("rustup").args(["component", "list", "--installed"]))?;
        let missing: Vec<&str> = ["clippy", "rustfmt"]
            .into_iter()
            .filter(|c| !have.lines().any(|l| l.starts_with(&format!("{c}-"))))
            .collect();
        if !missing.is_empty() {
            cmd::run(Command::new("rustup").args(["component", "add"]).args(&missing))?;
        }
    }
    Ok(())
}

/// Makes sure QEMU for both architectures (`qemu-system-arm`, and `qemu-system-riscv32` from
/// Debian's `qemu-system-misc`) and gcc (for the instruction-count plugin) are installed: apt-get
/// installs them when running as root or with password-less sudo; otherwise this fails and says
/// what to install.
pub fn qemu_and_gcc() -> Result<()> {
    let mut packages = Vec::new();
    for (qemu, package) in [(QEMU_ARM, "qemu-system-arm"), (QEMU_RISCV32, "qemu-system-misc")] {
        if !cmd::exists(qemu) {
            packages.push(package);
        }
    }
    if !cmd::exists("gcc") {
        packages.extend(["gcc", "libc6-dev"]);
    }
    if !packages.is_empty() {
        apt_install(&packages)?;
    }
    for qemu in [QEMU_ARM, QEMU_RISCV32] {
        let version = cmd::output(Command::new(qemu).arg("--version"))?;
        println!("{}", version.lines().next().unwrap_or_default());
    }
    Ok(())
}

/// The C cross compiler for the Cortex-M peers of `cargo xtask bench-device`: arm-none-eabi-gcc
/// with newlib's headers (emlearn's C includes <stdint.h>, <stdbool.h>, <math.h>).
pub fn arm_gcc() -> Result<()> {
    let mut packages = Vec::new();
    if !cmd::exists("arm-none-eabi-gcc") {
        packages.extend(["gcc-arm-none-eabi", "binutils-arm-none-eabi"]);
    }
    if !std::path::Path::new("/usr/lib/arm-none-eabi/newlib").exists() {
        packages.push("libnewlib-arm-none-eabi");
    }
    if packages.is_empty() {
        let version = cmd::output(Command::new("arm-none-eabi-gcc").arg("--version"))?;
        println!("{}", version.lines().next().unwrap_or_default());
        return Ok(());
    }
    apt_install(&packages)
}

/// The C cross compiler for the RISC-V peers of `cargo xtask bench-device`: riscv64-unknown-elf-gcc
/// (its rv32imac/ilp32 multilib) with picolibc's headers (emlearn's C includes <stdint.h>,
/// <stdbool.h>, <math.h>; nothing of picolibc is linked).
pub fn riscv_gcc() -> Result<()> {
    let mut packages = Vec::new();
    if !cmd::exists("riscv64-unknown-elf-gcc") {
        packages.push("gcc-riscv64-unknown-elf");
    }
    if !std::path::Path::new(PICOLIBC_RISCV).exists() {
        packages.push("picolibc-riscv64-unknown-elf");
    }
    if packages.is_empty() {
        let version = cmd::output(Command::new("riscv64-unknown-elf-gcc").arg("--version"))?;
        println!("{}", version.lines().next().unwrap_or_default());
        return Ok(());
    }
    apt_install(&packages)
}

/// Where Debian's picolibc for riscv64-unknown-elf keeps its headers, libraries and
/// `picolibc.specs`.
pub const PICOLIBC_RISCV: &str = "/usr/lib/picolibc/riscv64-unknown-elf";

/// The C side: CMake and the bare-metal C compilers the C firmware builds with
/// (arm-none-eabi-gcc, riscv64-unknown-elf-gcc with its rv32 multilibs), and clang with its
/// sanitizer runtime for the C API's host tests (gcc and clang, AddressSanitizer and UBSan), and
/// g++ (generated headers must also be valid C++).
pub fn c_tools() -> Result<()> {
    let mut packages = Vec::new();
    for (program, needs) in [
        ("cmake", &["cmake", "make"][..]),
        ("arm-none-eabi-gcc", &["gcc-arm-none-eabi", "binutils-arm-none-eabi"]),
        ("riscv64-unknown-elf-gcc", &["gcc-riscv64-unknown-elf"]),
        ("clang", &["clang"]),
        ("g++", &["g++"]),
    ] {
        if !cmd::exists(program) {
            packages.extend(needs);
        }
    }
    // clang's sanitizer runtime is a package of its own on Debian (libclang-rt-14-dev for the
    // clang 14 of Debian 12).
    if packages.contains(&"clang") || !clang_has_asan() {
        packages.push("libclang-rt-14-dev");
    }
    if !packages.is_empty() {
        apt_install(&packages)?;
    }
    for program in ["cmake", "arm-none-eabi-gcc", "riscv64-unknown-elf-gcc", "clang"] {
        let version = cmd::output(Command::new(program).arg("--version"))?;
        println!("{}", version.lines().next().unwrap_or_default());
    }
    Ok(())
}

/// Python 3 with its `venv` module (and the `ensurepip` it needs) for the Python package's step:
/// Debian keeps them in `python3-venv`.
pub fn python() -> Result<()> {
    let venv_works =
        Command::new("python3").args(["-c", "import venv, ensurepip"]).status().is_ok_and(|s| s.success());
    if !venv_works {
        apt_install(&["python3", "python3-venv"])?;
    }
    println!("{}", cmd::output(Command::new("python3").arg("--version"))?.trim());
    Ok(())
}

/// Whether clang's runtime directory has its AddressSanitizer library.
fn clang_has_asan() -> bool {
    cmd::output(Command::new("clang").arg("-print-runtime-dir")).is_ok_and(|dir| {
        std::fs::read_dir(dir.trim()).is_ok_and(|entries| {
            entries.flatten().any(|e| e.file_name().to_string_lossy().starts_with("libclang_rt.asan"))
        })
    })
}

/// `apt-get install`s `packages` as root or with password-less sudo; otherwise fails and says what
/// to install.
fn apt_install(packages: &[&str]) -> Result<()> {
    let sudo: &[&str] = if is_root() {
        &[]
    } else if Command::new("sudo").args(["-n", "true"]).status().is_ok_and(|s| s.success()) {
        &["sudo", "-n"]
    } else {
        bail!(
            "missing {}; install with: sudo apt-get install -y --no-install-recommends {} \
             (or your system's equivalent), then rerun",
            packages.join(", "),
            packages.join(" ")
        );
    };
    let apt = |args: &[&str]| {
        let mut c = Command::new(sudo.first().copied().unwrap_or("apt-get"));
        c.args(sudo.get(1..).unwrap_or_default());
        if !sudo.is_empty() {
            c.arg("apt-get");
        }
        c.args(args).env("DEBIAN_FRONTEND", "noninteractive");
        c
    };
    cmd::run(&mut apt(&["update"]))?;
    cmd::run(apt(&["install", "-y", "--no-install-recommends"]).args(packages))
}

fn is_root() -> bool {
    cmd::output(Command::new("id").arg("-u")).is_ok_and(|uid| uid.trim() == "0")
}

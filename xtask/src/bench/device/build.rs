//! The bench firmware builds: the Rust bench example (runtime, generated Rust, or the twin without a
//! model) and the C harness around emlearn's or ltu's generated C.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context as _, Result};

use crate::cmd;
use crate::firmware::{self, BuildOptions, Target};

/// What the Rust bench firmware runs.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Build {
    /// `model.ltu` through `ltu_runtime::Model`.
    Runtime,
    /// Nothing: the twin for flash.
    Null,
    /// `model.rs` from `ltu::model::codegen`.
    Codegen,
}

/// Builds the bench firmware; through the runtime, with only the cargo features `features` (the
/// model's [`ltu_runtime::Model::features_needed`]), as a firmware that runs one model would.
pub fn build_rust(
    root: &Path,
    target: Target,
    dir: &Path,
    build: Build,
    features: &[&str],
) -> Result<PathBuf> {
    let options = BuildOptions {
        model_dir: Some(dir),
        example: Some("bench"),
        null_twin: build == Build::Null,
        stream: false,
        codegen: build == Build::Codegen,
        runtime_features: (build == Build::Runtime).then_some(features),
    };
    let elf = firmware::build(root, target, &options)?;
    let suffix = if build == Build::Codegen { "-codegen" } else { "" };
    let copy = dir.join(format!("bench-{}{suffix}.elf", target.triple));
    fs::copy(&elf, &copy).with_context(|| format!("copying {} to {}", elf.display(), copy.display()))?;
    Ok(copy)
}

/// The C compiler of a target and its flags: arm-none-eabi-gcc with newlib on the Cortex-M
/// cores; riscv64-unknown-elf-gcc on RISC-V with picolibc's headers (`--specs=picolibc.specs`;
/// `-nostdlib` keeps its library and startup out, as in the C firmware's riscv32.cmake).
fn compiler(target: Target) -> (&'static str, &'static [&'static str]) {
    match target.triple {
        "thumbv6m-none-eabi" => ("arm-none-eabi-gcc", &["-mcpu=cortex-m0", "-mthumb", "-mfloat-abi=soft"]),
        "thumbv7em-none-eabihf" => {
            ("arm-none-eabi-gcc", &["-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16"])
        }
        "riscv32imac-unknown-none-elf" => (
            "riscv64-unknown-elf-gcc",
            &["-march=rv32imac", "-mabi=ilp32", "-mcmodel=medany", "--specs=picolibc.specs"],
        ),
        _ => ("arm-none-eabi-gcc", &["-mcpu=cortex-m3", "-mthumb", "-mfloat-abi=soft"]),
    }
}

/// The memory layout of the C firmware on a target: the Rust firmware example's on the Cortex-M
/// cores, QEMU virt's of the C platform on RISC-V.
fn memory_x(root: &Path, target: Target) -> PathBuf {
    let file = match target.triple {
        "thumbv6m-none-eabi" => "memory/microbit.x",
        "thumbv7em-none-eabihf" => "memory/mps2.x",
        "riscv32imac-unknown-none-elf" => "c/platform/riscv-virt.x",
        _ => "memory/lm3s6965.x",
    };
    firmware::dir(root).join(file)
}

/// Builds the C bench firmware around one model source (`None`: the twin, `null.c`), with the
/// preprocessor `defines` (`BENCH_WINDOWS`: windows of raw samples instead of rows).
pub fn build_c(
    root: &Path,
    target: Target,
    include: &Path,
    rows_dir: &Path,
    model: Option<&Path>,
    defines: &[&str],
    out: &Path,
) -> Result<()> {
    let c = root.join("bench/c");
    // Startup, semihosting and the linker script: the C firmware example's.
    let platform = firmware::dir(root).join("c/platform");
    let build = out.with_extension("d");
    fs::create_dir_all(&build)?;
    fs::copy(memory_x(root, target), build.join("memory.x"))?;
    let model_src = model.map_or_else(|| c.join("null.c"), Path::to_path_buf);
    let (gcc_name, flags) = compiler(target);
    let riscv = target.machine.qemu == firmware::QEMU_RISCV32;
    // The startup code of the core, then the C library: newlib's memcpy and the like on the
    // Cortex-M cores, the platform's own (mem.c) on RISC-V, where nothing of picolibc is linked.
    let (platform_sources, libs): (&[&str], &[&str]) = if riscv {
        (&["riscv.S", "start.c", "semihost.c", "mem.c"], &["-lgcc"])
    } else {
        (&["cortex-m.c", "start.c", "semihost.c"], &["-lc", "-lgcc"])
    };
    let mut gcc = Command::new(gcc_name);
    gcc.args(flags)
        .args(["-Os", "-std=gnu11", "-ffunction-sections", "-fdata-sections", "-fno-common", "-w"])
        .args(defines.iter().map(|d| format!("-D{d}")))
        .arg("-I")
        .arg(include)
        .arg("-I")
        .arg(rows_dir)
        .arg("-I")
        .arg(&platform)
        .args(["-nostartfiles", "-nostdlib", "-Wl,--gc-sections"])
        .arg(format!("-L{}", build.display()))
        .arg("-T")
        .arg(platform.join("link.ld"))
        .args(platform_sources.iter().map(|f| platform.join(f)))
        .arg(c.join("harness.c"))
        .arg(&model_src)
        .args(libs)
        .arg("-o")
        .arg(out);
    cmd::run(&mut gcc)
}

/// C header of the C bench firmware's rows for ltu's generated C: `row_t` is `int32_t`.
pub fn rows_h(rows: &[Vec<i32>]) -> String {
    let n_inputs = rows.first().map_or(0, Vec::len);
    let mut s = String::from(
        "/* Generated by `cargo xtask bench-device`: the raw inputs ltu's model reads. */\n\
         #include <stdint.h>\ntypedef int32_t row_t;\n",
    );
    let _ = writeln!(s, "#define N_ROWS {}u\n#define N_FEATURES {n_inputs}", rows.len());
    s.push_str("static const row_t ROWS[N_ROWS][N_FEATURES] = {\n");
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .map(|v| if *v == i32::MIN { "(-2147483647 - 1)".into() } else { v.to_string() })
            .collect();
        let _ = writeln!(s, "  {{{}}},", cells.join(", "));
    }
    s.push_str("};\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::firmware::TARGETS;

    #[test]
    fn every_target_has_a_c_compiler_and_memory_layout() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        for t in TARGETS {
            let (gcc, flags) = compiler(t);
            let riscv = t.triple.starts_with("riscv32");
            assert_eq!(gcc.starts_with("riscv64"), riscv, "{}", t.triple);
            assert!(flags.iter().any(|f| f.starts_with(if riscv {
                "-march=rv32imac"
            } else {
                "-mcpu=cortex-m"
            })));
            assert!(memory_x(root, t).is_file(), "{}", memory_x(root, t).display());
        }
    }
}

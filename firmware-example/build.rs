//! Puts the memory layout for the target on the linker search path as `memory.x`
//! (cortex-m-rt's `link.x` does `INCLUDE memory.x`). For a real board, add its layout under
//! `memory/` and select it with `MEMORY_X=memory/<board>.x cargo build ...`.
//!
//! Also tells `main.rs` where the generated inputs (model, recordings, host predictions) are:
//! `model/` unless `LTU_MODEL_DIR` names another directory.
use std::{env, fs, path::PathBuf};

fn main() {
    let target = env::var("TARGET").expect("cargo sets TARGET");
    let file = env::var("MEMORY_X").unwrap_or_else(|_| {
        match target.as_str() {
            "thumbv6m-none-eabi" => "memory/microbit.x", // nRF51822: 256 KiB flash, 16 KiB RAM (QEMU microbit)
            "thumbv7em-none-eabihf" => "memory/mps2.x",  // ARM MPS2 (QEMU mps2-an386)
            _ => "memory/lm3s6965.x", // TI LM3S6965: 256 KiB flash, 64 KiB RAM; runs on QEMU mps2-an385
        }
        .to_string()
    });
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    fs::copy(&file, out.join("memory.x")).unwrap_or_else(|e| panic!("copying {file}: {e}"));
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-env-changed=MEMORY_X");

    let model_dir = env::var("LTU_MODEL_DIR").unwrap_or_else(|_| {
        format!("{}/model", env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
    });
    println!("cargo:rustc-env=LTU_MODEL_DIR={model_dir}");
    println!("cargo:rerun-if-env-changed=LTU_MODEL_DIR");
    // The bench example's twin without a model (`cargo xtask bench-device` measures flash as the
    // difference between the two images).
    println!("cargo:rustc-check-cfg=cfg(ltu_bench_null)");
    if env::var_os("LTU_BENCH_NULL").is_some_and(|v| v == "1") {
        println!("cargo:rustc-cfg=ltu_bench_null");
    }
    println!("cargo:rerun-if-env-changed=LTU_BENCH_NULL");
    println!("cargo:rerun-if-changed=memory");
    println!("cargo:rerun-if-changed=build.rs");
}

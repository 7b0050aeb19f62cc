//! The Python package's step of `cargo xtask test`: a fresh virtual environment under the cargo
//! target directory, the wheel built from the working tree (`python/`, maturin), installed there,
//! and its tests run with pytest against the `ltu` command line built from the same tree.

use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::cmd;

/// The packages the step installs from PyPI, pinned so that a run is reproducible.
pub const PINNED: &[&str] =
    &["maturin==1.7.4", "numpy==2.2.6", "scikit-learn==1.6.1", "pandas==2.2.3", "pytest==8.3.5"];

/// Builds, installs and tests the Python package.
///
/// # Errors
/// A failed command: the virtual environment, an install, the build, or a test.
pub fn test(root: &Path) -> Result<()> {
    let target = cmd::target_dir(root);
    let venv = target.join("python-venv");
    if venv.exists() {
        std::fs::remove_dir_all(&venv).with_context(|| format!("removing {}", venv.display()))?;
    }
    cmd::run(Command::new("python3").args(["-m", "venv"]).arg(&venv))?;
    let bin = venv.join("bin");
    // `--no-compile`: byte-compiling every module of scipy, pandas and numpy took as long as the
    // install itself (46 -> 26 s with pip's cache); Python compiles the modules it imports.
    cmd::run(
        Command::new(bin.join("pip"))
            .args(["install", "-q", "--no-compile", "--disable-pip-version-check"])
            .args(PINNED),
    )?;
    // The command line the tests compare with: under `cargo xtask test` the one its test step
    // built, else the release build (`cmd::ltu`). The wheel is built with the `wheel-test` profile
    // (Cargo.toml): a `test`-profile build of a library crate is a test harness, not a loadable
    // module.
    let ltu = cmd::ltu(root)?;
    let wheels = target.join("python-wheels");
    if wheels.exists() {
        std::fs::remove_dir_all(&wheels).with_context(|| format!("removing {}", wheels.display()))?;
    }
    cmd::run(
        Command::new(bin.join("maturin"))
            .args(["build", "--profile", "wheel-test", "--quiet", "-m"])
            .arg(root.join("python/Cargo.toml"))
            .arg("--interpreter")
            .arg(bin.join("python"))
            .arg("-o")
            .arg(&wheels)
            .env("CARGO_TARGET_DIR", &target)
            .env("PATH", path_with(&bin)?),
    )?;
    let wheel = std::fs::read_dir(&wheels)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|e| e == "whl"))
        .with_context(|| format!("maturin wrote no wheel in {}", wheels.display()))?;
    cmd::run(Command::new(bin.join("pip")).args(["install", "-q", "--no-deps"]).arg(&wheel))?;
    let status = Command::new(bin.join("pytest"))
        .args(["-q", "tests"])
        .current_dir(root.join("python"))
        .env(cmd::LTU_BIN, &ltu)
        .env("PATH", path_with(&bin)?)
        .status()
        .context("could not start pytest")?;
    if !status.success() {
        bail!("pytest of the Python package failed ({status})");
    }
    Ok(())
}

/// `PATH` with the virtual environment's `bin` first.
fn path_with(bin: &Path) -> Result<std::ffi::OsString> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    Ok(std::env::join_paths(std::iter::once(bin.to_path_buf()).chain(std::env::split_paths(&path)))?)
}

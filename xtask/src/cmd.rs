//! Running external programs with the command line echoed and failures explained.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};

/// The command as a shell-like string, for messages.
pub fn display(cmd: &Command) -> String {
    let mut s = cmd.get_program().to_string_lossy().into_owned();
    for arg in cmd.get_args() {
        s.push(' ');
        s.push_str(&arg.to_string_lossy());
    }
    s
}

/// Runs a command with inherited stdio; fails unless it exits 0.
pub fn run(cmd: &mut Command) -> Result<()> {
    println!("$ {}", display(cmd));
    let status = cmd.status().with_context(|| format!("could not start `{}`", display(cmd)))?;
    if !status.success() {
        bail!("`{}` failed ({status})", display(cmd));
    }
    Ok(())
}

/// Runs a command and returns its stdout; fails unless it exits 0.
pub fn output(cmd: &mut Command) -> Result<String> {
    let out = cmd
        .stderr(Stdio::inherit())
        .output()
        .with_context(|| format!("could not start `{}`", display(cmd)))?;
    if !out.status.success() {
        bail!("`{}` failed ({})", display(cmd), out.status);
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Whether `program --version` runs.
pub fn exists(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// `cargo`, as the one running this xtask (`$CARGO`) or from `PATH`.
pub fn cargo(dir: &Path) -> Command {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.current_dir(dir);
    cmd
}

/// Builds the `ltu` command (release) and returns its path.
pub fn ltu_release(root: &Path) -> Result<PathBuf> {
    run(cargo(root).args(["build", "--release", "--quiet", "-p", "ltu"]))?;
    // Where cargo put it: CARGO_TARGET_DIR (relative to the root, where cargo ran) or target/.
    let target_dir =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), |d| root.join(d));
    let ltu = target_dir.join("release").join(format!("ltu{}", std::env::consts::EXE_SUFFIX));
    anyhow::ensure!(ltu.is_file(), "cargo built ltu, but {} does not exist", ltu.display());
    Ok(ltu)
}

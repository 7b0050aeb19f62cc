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

/// Runs a command beside others: its output is captured and printed in one piece once it exits,
/// so that two commands' lines do not interleave. Fails unless it exits 0.
pub fn run_captured(cmd: &mut Command) -> Result<()> {
    let out = cmd.output().with_context(|| format!("could not start `{}`", display(cmd)))?;
    {
        use std::io::Write;
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "$ {}", display(cmd))?;
        stdout.write_all(&out.stdout)?;
        stdout.write_all(&out.stderr)?;
    }
    if !out.status.success() {
        bail!("`{}` failed ({})", display(cmd), out.status);
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

/// Where cargo puts what it builds: `$CARGO_TARGET_DIR` (relative to the root, where cargo
/// runs) or `target/`.
pub fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), |d| root.join(d))
}

/// The environment variable naming the `ltu` command the xtasks run instead of building one.
pub const LTU_BIN: &str = "LTU_BIN";

/// The `ltu` command the xtasks train with: `$LTU_BIN` when set (`cargo xtask test` sets it to
/// the one its test step built, [`ltu_tested`]), else the release build ([`ltu_release`]).
pub fn ltu(root: &Path) -> Result<PathBuf> {
    match std::env::var_os(LTU_BIN) {
        Some(path) => {
            let path = PathBuf::from(path);
            anyhow::ensure!(path.is_file(), "${LTU_BIN} is {}, which is not a file", path.display());
            Ok(path)
        }
        None => ltu_release(root),
    }
}

/// Builds the `ltu` command (release) and returns its path.
pub fn ltu_release(root: &Path) -> Result<PathBuf> {
    built_ltu(root, cargo(root).args(["build", "--release", "--quiet", "-p", "ltu"]), "release")
}

/// `cargo test` as `cargo xtask test` runs the workspace's tests, of the targets `which` selects:
/// `--tests` (every target that has tests: libraries, binaries, integration tests) or `--doc`.
/// Without incremental compilation (CI builds from scratch, where its caches are only written,
/// and its many small codegen units make the optimised build slower). Examples are not built: no
/// test runs them, and clippy checks them.
pub fn cargo_test(root: &Path, which: &str) -> Command {
    let mut cargo = cargo(root);
    cargo.args(["test", "--workspace", which]).env("CARGO_INCREMENTAL", "0");
    cargo
}

/// The `ltu` command as [`cargo_test`] `--tests` builds it for the trainer's tests (the `test`
/// profile: optimised, with debug assertions and overflow checks; the features of the whole
/// workspace), so that after `cargo xtask test`'s test step nothing is compiled again. Returns
/// its path.
pub fn ltu_tested(root: &Path) -> Result<PathBuf> {
    built_ltu(root, cargo_test(root, "--tests").args(["--no-run", "--quiet"]), "debug")
}

/// Runs `build` and returns the `ltu` command it put in the target directory's `profile_dir`.
fn built_ltu(root: &Path, build: &mut Command, profile_dir: &str) -> Result<PathBuf> {
    run(build)?;
    let ltu = target_dir(root).join(profile_dir).join(format!("ltu{}", std::env::consts::EXE_SUFFIX));
    anyhow::ensure!(ltu.is_file(), "`{}` left no {}", display(build), ltu.display());
    Ok(ltu)
}

//! Helpers the test modules share: paths, the `ltu` binary, a deterministic generator, the C
//! compilers and their strict flags, and running a generated program on standard input.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A file of the bundled data sets.
pub fn data_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../data").join(name)
}

/// Runs `ltu args` in `dir`; panics with its standard error unless it succeeds.
pub fn ltu(dir: &Path, args: &[&str]) -> Output {
    let out = ltu_status(dir, args);
    assert!(out.status.success(), "ltu {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    out
}

/// Runs `ltu args` in `dir`, whatever its exit status.
pub fn ltu_status(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ltu")).current_dir(dir).args(args).output().expect("run ltu")
}

/// A tiny deterministic generator.
pub fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The strict C flags every generated file must compile under, with the undefined-behaviour
/// sanitizer aborting on the first finding.
pub const STRICT_C: [&str; 8] = [
    "-std=c99",
    "-pedantic",
    "-O1",
    "-Wall",
    "-Wextra",
    "-Werror",
    "-fsanitize=undefined",
    "-fno-sanitize-recover=all",
];

/// The C compilers generated C must compile with: gcc and clang (`cargo xtask test` installs
/// both).
pub fn c_compilers() -> Vec<&'static str> {
    let compilers = vec!["gcc", "clang"];
    for cc in &compilers {
        assert!(
            Command::new(cc).arg("--version").output().is_ok_and(|o| o.status.success()),
            "{cc} is needed to check the generated C (apt-get install gcc clang)"
        );
    }
    compilers
}

/// Runs `cc` in `dir` with the strict flags and `args`; panics with the compiler's message if it
/// fails. `what` names the step in that message.
pub fn cc(cc: &str, dir: &Path, args: &[&str], what: &str) {
    let out = Command::new(cc).current_dir(dir).args(STRICT_C).args(args).output().unwrap();
    assert!(out.status.success(), "{what}: {cc} {args:?} failed:\n{}", String::from_utf8_lossy(&out.stderr));
}

/// Runs `exe` with `input` on standard input; panics unless it succeeds with nothing on standard
/// error. Its standard output.
pub fn run(exe: &Path, input: String) -> String {
    let mut child = Command::new(exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()).unwrap());
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "{} failed: {}",
        exe.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Compiles the Rust program `main` (a file) with overflow checks and warnings as errors into
/// `exe`; panics with the compiler's message if it fails.
pub fn rustc(main: &Path, exe: &Path) {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let out = Command::new(rustc)
        .args(["--edition", "2021", "-C", "overflow-checks=on", "-C", "opt-level=1", "-D", "warnings", "-o"])
        .arg(exe)
        .arg(main)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "generated Rust does not compile:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

//! What the tests that build and run C programs share: paths, running commands, the host
//! `libltu_c.a` and compiling a C program against it with the sanitizers.
// Each test crate uses part of this module.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// A scratch directory under the target directory, emptied.
pub fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `cmd`, panicking with its output unless it succeeds; returns stdout and stderr.
#[track_caller]
pub fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{cmd:?} failed ({}):\n{text}", out.status);
    text
}

/// The environment of every build of the host `libltu_c.a` in the tests: `panic=abort` for every
/// crate, as `CMakeLists.txt` builds it (so no `std` and no unwinding tables), and overflow checks
/// and debug assertions on, so any panic path taken aborts the C program.
pub const LIB_ENV: [(&str, &str); 3] = [
    ("CARGO_PROFILE_RELEASE_PANIC", "abort"),
    ("CARGO_PROFILE_RELEASE_OVERFLOW_CHECKS", "true"),
    ("CARGO_PROFILE_RELEASE_DEBUG_ASSERTIONS", "true"),
];

/// The cargo target directory of the host `libltu_c.a`, shared by every test that builds it (the
/// CMake project's too): its own, as the panic strategy would otherwise rebuild the outer
/// build's crates.
pub fn lib_target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("c-api-cargo")
}

/// The host `libltu_c.a`, built by a nested cargo in [`lib_target_dir`] with [`LIB_ENV`].
pub fn host_staticlib() -> PathBuf {
    let target_dir = lib_target_dir();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    run(Command::new(cargo)
        .current_dir(root())
        .envs(LIB_ENV)
        .args(["build", "-p", "ltu-runtime-c", "--lib", "--release", "--target-dir"])
        .arg(&target_dir));
    target_dir.join("release/libltu_c.a")
}

/// Compiles the C program `source` (under `runtime-c/tests/c/`) with `cc` (`-std=c99 -Wall
/// -Wextra -Werror -pedantic`, AddressSanitizer and UndefinedBehaviorSanitizer), links the host
/// library and returns the executable, in scratch directory `dir`.
pub fn sanitized_program(cc: &str, source: &str, dir: &Path) -> PathBuf {
    if Command::new(cc).arg("--version").output().is_err() {
        panic!("{cc} is not installed (apt-get install {cc})");
    }
    let lib = host_staticlib();
    let exe = dir.join(source.trim_end_matches(".c"));
    run(Command::new(cc)
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-g", "-O1"])
        .args(["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"])
        .arg("-I")
        .arg(root().join("runtime-c/include"))
        .arg(root().join("runtime-c/tests/c").join(source))
        .arg(&lib)
        .arg("-o")
        .arg(&exe));
    exe
}

/// Compiles the C program `source` with `cc` and the sanitizers ([`sanitized_program`]) in scratch
/// directory `name`, runs it on the cases file `cases` writes there, and requires its summary to
/// say that no check failed.
pub fn c_program_passes(cc: &str, source: &str, name: &str, cases: impl FnOnce(&Path) -> PathBuf) {
    let dir = scratch(&format!("{name}-{cc}"));
    let exe = sanitized_program(cc, source, &dir);
    let cases = cases(&dir);
    let out = run(Command::new(&exe).arg(&cases));
    println!("{cc}: {out}");
    assert!(out.contains(", 0 failed"), "{out}");
}

/// The rows of a golden model's `.expected` file: raw inputs and the class.
pub fn golden_rows(model: &Path) -> Vec<(Vec<i32>, usize)> {
    let expected = std::fs::read_to_string(model.with_extension("expected")).unwrap();
    expected
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (x, class) = l.split_once("->").unwrap();
            (x.split_whitespace().map(|v| v.parse().unwrap()).collect(), class.trim().parse().unwrap())
        })
        .collect()
}

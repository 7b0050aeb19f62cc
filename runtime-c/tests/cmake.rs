//! `CMakeLists.txt` works for a C project: `tests/cmake/` takes the runtime with
//! `add_subdirectory`, is configured, built and run on a golden model; then the runtime is
//! installed and the same project finds it with `find_package(ltu)`.

use std::path::Path;
use std::process::Command;

use ltu_runtime::Model;

mod common;
use common::{lib_target_dir, root, run, LIB_ENV};

/// Configures and builds `tests/cmake` in `build` with `defines`, and checks that `classify`
/// predicts as the Rust runtime on the golden tree and reports a corrupted model by name. A
/// library it builds is built as the C API's tests build theirs.
fn build_and_classify(build: &Path, defines: &[String]) {
    let source = root().join("runtime-c/tests/cmake");
    run(Command::new("cmake").arg("-S").arg(&source).arg("-B").arg(build).args(defines));
    run(Command::new("cmake").arg("--build").arg(build).envs(LIB_ENV));
    let model = root().join("tests/golden/tree.ltu");
    let bytes = std::fs::read(&model).unwrap();
    let m = Model::from_bytes(&bytes).unwrap();
    for x in [[5, 1], [-6, 2], [1, 2]] {
        let out = run(Command::new(build.join("classify")).arg(&model).args(x.map(|v| v.to_string())));
        assert_eq!(out.trim(), format!("class {}", m.predict(&x).unwrap()), "{x:?}");
    }
    let corrupt = build.join("corrupt.ltu");
    let mut b = bytes.clone();
    b[20] ^= 1;
    std::fs::write(&corrupt, b).unwrap();
    let out = Command::new(build.join("classify")).arg(&corrupt).args(["0", "0"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("LTU_ERR_CHECKSUM_MISMATCH: "));
}

#[test]
fn add_subdirectory_and_find_package() {
    assert!(
        Command::new("cmake").arg("--version").output().is_ok(),
        "cmake is needed to check the CMake package (cargo xtask test installs it)"
    );
    // The build directory is kept between runs, so cargo only rebuilds what changed.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cmake");
    let _ = std::fs::remove_dir_all(dir.join("prefix"));
    let _ = std::fs::remove_dir_all(dir.join("installed"));
    let build = dir.join("build");
    // In the C API tests' target directory: the library compiles once.
    build_and_classify(&build, &[format!("-DLTU_CARGO_TARGET_DIR={}", lib_target_dir().display())]);
    let prefix = dir.join("prefix");
    run(Command::new("cmake").arg("--install").arg(build.join("ltu")).arg("--prefix").arg(&prefix));
    build_and_classify(
        &dir.join("installed"),
        &["-DLTU_USE_INSTALLED=ON".into(), format!("-DCMAKE_PREFIX_PATH={}", prefix.display())],
    );
}

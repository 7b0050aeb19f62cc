//! On-device learning through the C API against the Rust runtime's `Learner`.
//!
//! `tests/c/learn_test.c`, compiled with gcc and with clang (`-std=c99 -Wall -Wextra -Werror
//! -pedantic`, AddressSanitizer and UndefinedBehaviorSanitizer) and linked with the host
//! `libltu_c.a`, learns from the same labelled sequences as the Rust `Learner` here: every
//! golden model on its rows with a third of the labels drifted to another class, twice over, and
//! the firmware example's pipeline model on its recordings. After every update the outcome and
//! unit must be the Rust learner's; at the end the stats, the learned file's bytes, length and
//! CRC, and the learned model's predictions. The C program also checks every error status of the
//! learner and the store, and saves and restores the learned model through an `ltu_store` over
//! a NOR flash simulated in C (erase sets 0xFF, a byte written twice without an erase or an
//! unaligned access is counted as a violation) on three geometries, checking the slot's bytes.
//! The C example of docs/C.md's "Learning on the device" compiles against the header.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use ltu_runtime::{Learner, Model, Outcome};

mod common;
use common::{c_program_passes, golden_rows, root, run, scratch};

/// `ltu_outcome`'s number and the unit (`LTU_NO_UNIT` when none) of an outcome.
fn c_outcome(o: Outcome) -> (u32, u32) {
    match o {
        Outcome::Correct => (0, u32::MAX),
        Outcome::Corrected { unit } => (1, unit.into()),
        Outcome::Clipped { unit } => (2, unit.into()),
        Outcome::Saturated { unit } => (3, unit.into()),
        Outcome::Constant => (4, u32::MAX),
        Outcome::Unlearnable => (5, u32::MAX),
    }
}

/// Appends the stats and the learned file (length, then its bytes in hex) to `text`.
fn learned(text: &mut String, learner: &Learner<'_, '_>) {
    let s = learner.stats();
    writeln!(
        text,
        "{} {} {} {} {} {}",
        s.updates, s.corrected, s.clipped, s.saturated, s.constant, s.unlearnable
    )
    .unwrap();
    let mut file = Vec::new();
    learner
        .write_file(|p| {
            file.extend_from_slice(p);
            Ok::<(), ()>(())
        })
        .unwrap();
    assert_eq!(file.len(), learner.file_len());
    assert!(Model::from_bytes(&file).is_ok(), "the learned file loads");
    let hex: String = file.iter().map(|b| format!("{b:02x}")).collect();
    writeln!(text, "{} {hex}", file.len()).unwrap();
}

/// The cases file `learn_test.c` reads (its header comment gives the layout).
fn cases(dir: &Path) -> std::path::PathBuf {
    let mut text = String::new();
    let mut golden: Vec<_> = std::fs::read_dir(root().join("tests/golden"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ltu"))
        .collect();
    golden.sort();
    assert!(golden.len() >= 4, "golden models: {golden:?}");
    let mut changed = 0;
    for path in &golden {
        let bytes = std::fs::read(path).unwrap();
        let m = Model::from_bytes(&bytes).unwrap();
        let rows = golden_rows(path);
        // Twice over the rows; every third label drifted to the next class.
        let steps: Vec<(&[i32], usize)> = (0..2 * rows.len())
            .map(|i| {
                let (x, class) = &rows[i % rows.len()];
                let label = if i % 3 == 0 { (class + 1) % m.n_classes() } else { *class };
                (x.as_slice(), label)
            })
            .collect();
        let needed = Learner::ram_needed(&bytes).unwrap();
        let mut ram = vec![0u8; needed];
        let mut learner = Learner::new(&bytes, &mut ram).unwrap();
        writeln!(
            text,
            "learn {} {} {} {needed} {} {}",
            path.display(),
            m.n_inputs(),
            m.n_classes(),
            steps.len(),
            rows.len()
        )
        .unwrap();
        for (x, label) in &steps {
            let o = learner.update(x, *label).unwrap();
            changed += usize::from(o.changed());
            let (outcome, unit) = c_outcome(o);
            let x: Vec<String> = x.iter().map(i32::to_string).collect();
            writeln!(text, "{} {label} {outcome} {unit}", x.join(" ")).unwrap();
        }
        learned(&mut text, &learner);
        for (x, _) in &rows {
            let class = learner.model().predict(x).unwrap();
            let x: Vec<String> = x.iter().map(i32::to_string).collect();
            writeln!(text, "{} {class}", x.join(" ")).unwrap();
        }
    }
    assert!(changed > 10, "the golden sequences change the models only {changed} times");

    // The firmware example's pipeline model: frame-major recordings, channel-major in C; every
    // other label drifted.
    let model_dir = root().join("firmware-example/model");
    let model_path = model_dir.join("model.ltu");
    let bytes = std::fs::read(&model_path).unwrap();
    let m = Model::from_bytes(&bytes).unwrap();
    let channels = m.pipeline().unwrap().n_channels();
    let recordings = std::fs::read(model_dir.join("recordings.bin")).unwrap();
    let expected = std::fs::read(model_dir.join("expected.bin")).unwrap();
    let samples: Vec<i16> = recordings.chunks_exact(2).map(|b| i16::from_le_bytes([b[0], b[1]])).collect();
    let per = samples.len() / expected.len() / channels;
    let windows: Vec<Vec<Vec<i16>>> = samples
        .chunks_exact(per * channels)
        .map(|rec| (0..channels).map(|c| rec.iter().skip(c).step_by(channels).copied().collect()).collect())
        .collect();
    let needed = Learner::ram_needed(&bytes).unwrap();
    let mut ram = vec![0u8; needed];
    let mut learner = Learner::new(&bytes, &mut ram).unwrap();
    writeln!(text, "window {} {channels} {per} {needed} {}", model_path.display(), windows.len()).unwrap();
    for (i, (rows, &want)) in windows.iter().zip(&expected).enumerate() {
        let label = if i % 2 == 0 { usize::from(want) } else { (usize::from(want) + 1) % m.n_classes() };
        let slices: Vec<&[i16]> = rows.iter().map(Vec::as_slice).collect();
        let (outcome, unit) = c_outcome(learner.update_window(&slices, label).unwrap());
        let flat: Vec<String> = rows.concat().iter().map(i16::to_string).collect();
        writeln!(text, "{} {label} {outcome} {unit}", flat.join(" ")).unwrap();
    }
    learned(&mut text, &learner);
    let classes: Vec<String> = windows
        .iter()
        .map(|rows| {
            let slices: Vec<&[i16]> = rows.iter().map(Vec::as_slice).collect();
            learner.model().predict_window(&slices).unwrap().to_string()
        })
        .collect();
    writeln!(text, "{}\nend", classes.join(" ")).unwrap();
    let path = dir.join("learn_cases.txt");
    std::fs::write(&path, text).unwrap();
    path
}

/// Compiles `learn_test.c` with `cc` and the sanitizers, links the host library and runs it.
fn c_learner_agrees(cc: &str) {
    c_program_passes(cc, "learn_test.c", "c-learn", cases);
}

#[test]
fn gcc_learner_agrees_with_the_rust_learner() {
    c_learner_agrees("gcc");
}

#[test]
fn clang_learner_agrees_with_the_rust_learner() {
    c_learner_agrees("clang");
}

/// The C block of docs/C.md's "Learning on the device" compiles against `ltu.h` (gcc, the
/// strict flags), its flash functions declared as a firmware's driver would provide them.
#[test]
fn docs_learning_example_compiles() {
    let docs = std::fs::read_to_string(root().join("docs/C.md")).unwrap();
    let section = &docs[docs.find("## Learning on the device").expect("the section")..];
    let start = section.find("```c\n").expect("a C block") + 5;
    let code = &section[start..start + section[start..].find("```").unwrap()];
    let dir = scratch("c-learn-docs");
    let source = dir.join("example.c");
    std::fs::write(&source, code).unwrap();
    run(Command::new("gcc")
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-fsyntax-only", "-I"])
        .arg(root().join("runtime-c/include"))
        .arg(&source));
}

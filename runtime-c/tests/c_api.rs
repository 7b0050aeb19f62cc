//! The C API against the Rust runtime.
//!
//! - `tests/c/api_test.c`, compiled with gcc and with clang (`-std=c99 -Wall -Wextra -Werror
//!   -pedantic`, AddressSanitizer and UndefinedBehaviorSanitizer) and linked with the host
//!   `libltu_c.a` built as firmware builds it (`panic=abort`, no `std`), predicts every row of
//!   `tests/golden/*.expected` and every recording of the firmware example through every
//!   function, and must agree with the Rust runtime on classes, scores and errors.
//! - The corrupted models are `runtime/tests/corrupt.rs`'s own: that file is compiled into this
//!   test as module `vectors`, with `ltu_runtime` pointing at this crate root, whose `Model`
//!   wraps the runtime's. Every byte string its tests hand to `Model::from_bytes` (one per loader
//!   check, every bit flip, truncation and extension) is also given to `ltu_model_init` in
//!   process, which must return the status of the runtime's answer; and the C program gets them
//!   all in its cases file (collected by running this binary's `vectors::` tests in a child
//!   process), so the same rejections are checked from C.

// `runtime/tests/corrupt.rs` says `use ltu_runtime::...`: here that is this crate root.
extern crate ltu_runtime as real;
extern crate self as ltu_runtime;

use std::fmt::Write as _;
use std::io::Write as _;
use std::mem::MaybeUninit;
use std::path::{Path, PathBuf};
use std::process::Command;

use ltu_c::{ltu_model, ltu_model_init, ltu_model_n_classes, ltu_model_n_inputs, ltu_status};
pub use real::{format, window, Error, InputsRead};

#[path = "../../runtime/tests/corrupt.rs"]
mod vectors;

mod common;
use common::{c_program_passes, golden_rows, root, run};

/// Set in the child process that collects the corrupted vectors: the file they are appended to.
const VECTORS_ENV: &str = "LTU_C_API_VECTORS";

/// The runtime's model, loaded through both APIs.
#[derive(Debug, Clone, Copy)]
pub struct Model<'a>(real::Model<'a>);

impl<'a> Model<'a> {
    /// `real::Model::from_bytes`, after checking that `ltu_model_init` answers the same.
    pub fn from_bytes(bytes: &'a [u8]) -> Result<Model<'a>, Error> {
        let rust = real::Model::from_bytes(bytes);
        let want = rust.map_or_else(ltu_status::from, |_| ltu_status::LTU_OK);
        let mut storage = MaybeUninit::<ltu_model>::zeroed();
        // SAFETY: `storage` is writable and aligned storage for an `ltu_model`; `bytes` is
        // `bytes.len()` readable bytes that outlive every use of `storage` below.
        let got = unsafe { ltu_model_init(storage.as_mut_ptr(), bytes.as_ptr(), bytes.len()) };
        assert_eq!(got, want, "ltu_model_init disagrees with Model::from_bytes on {} bytes", bytes.len());
        if let Ok(m) = &rust {
            // SAFETY: initialised just above, from bytes that are still borrowed.
            let counts =
                unsafe { (ltu_model_n_inputs(storage.as_ptr()), ltu_model_n_classes(storage.as_ptr())) };
            assert_eq!(counts, (m.n_inputs(), m.n_classes()));
        }
        if let Some(path) = std::env::var_os(VECTORS_ENV) {
            let mut line = format!("{} ", bytes.len());
            for b in bytes {
                write!(line, "{b:02x}").unwrap();
            }
            writeln!(line, " {}", want as u32).unwrap();
            let mut f = std::fs::OpenOptions::new().append(true).create(true).open(path).unwrap();
            f.write_all(line.as_bytes()).unwrap();
        }
        rust.map(Model)
    }
}

impl<'a> std::ops::Deref for Model<'a> {
    type Target = real::Model<'a>;
    fn deref(&self) -> &real::Model<'a> {
        &self.0
    }
}

/// The cases file `api_test.c` reads (its header comment gives the layout).
fn cases(dir: &Path) -> PathBuf {
    let mut text = String::new();
    let mut golden: Vec<PathBuf> = std::fs::read_dir(root().join("tests/golden"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ltu"))
        .collect();
    golden.sort();
    assert!(golden.len() >= 4, "golden models: {golden:?}");
    for path in &golden {
        let bytes = std::fs::read(path).unwrap();
        let m = real::Model::from_bytes(&bytes).unwrap();
        let rows: Vec<Vec<i32>> = golden_rows(path).into_iter().map(|(x, _)| x).collect();
        let none = m.predict_with(|_| None::<i32>).map_or_else(ltu_status::from, |_| ltu_status::LTU_OK);
        let p = m.pipeline();
        writeln!(
            text,
            "model {} {} {} {} {} {} {} {}",
            path.display(),
            m.n_inputs(),
            m.n_classes(),
            p.map_or(0, |p| p.n_channels()),
            p.map_or(0, |p| p.window()),
            p.filter(|p| p.window() > 0).map_or(0, |p| p.hop()),
            none as u32,
            rows.len()
        )
        .unwrap();
        let names: Vec<String> = (0..m.n_classes())
            .map(|c| m.names().map_or("", |n| n.class(c)))
            .map(|n| if n.is_empty() { "-".to_string() } else { n.to_string() })
            .collect();
        assert!(names.iter().all(|n| !n.contains(char::is_whitespace)), "{names:?}");
        writeln!(text, "{}", names.join(" ")).unwrap();
        for x in rows {
            let mut scores = vec![0i64; m.n_classes()];
            let class = m.predict_scores(&x, &mut scores).unwrap();
            let x: Vec<String> = x.iter().map(i32::to_string).collect();
            let s: Vec<String> = scores.iter().map(i64::to_string).collect();
            writeln!(text, "{} {class} {}", x.join(" "), s.join(" ")).unwrap();
        }
    }
    // The firmware example: frame-major recordings, transposed to the C API's channel-major.
    let model_dir = root().join("firmware-example/model");
    let model_path = model_dir.join("model.ltu");
    let bytes = std::fs::read(&model_path).unwrap();
    let m = real::Model::from_bytes(&bytes).unwrap();
    let channels = m.pipeline().unwrap().n_channels();
    let recordings = std::fs::read(model_dir.join("recordings.bin")).unwrap();
    let expected = std::fs::read(model_dir.join("expected.bin")).unwrap();
    let samples: Vec<i16> = recordings.chunks_exact(2).map(|b| i16::from_le_bytes([b[0], b[1]])).collect();
    let per = samples.len() / expected.len() / channels;
    writeln!(text, "window {} {channels} {per} {}", model_path.display(), expected.len()).unwrap();
    for (rec, &want) in samples.chunks_exact(per * channels).zip(&expected) {
        let rows: Vec<Vec<i16>> =
            (0..channels).map(|c| rec.iter().skip(c).step_by(channels).copied().collect()).collect();
        let slices: Vec<&[i16]> = rows.iter().map(Vec::as_slice).collect();
        let class = m.predict_window(&slices).unwrap();
        assert_eq!(class, usize::from(want), "the Rust runtime disagrees with expected.bin");
        let flat: Vec<String> = rows.concat().iter().map(i16::to_string).collect();
        writeln!(text, "{} {class}", flat.join(" ")).unwrap();
    }
    // Every vector of runtime/tests/corrupt.rs, from a child running just those tests.
    let vectors = dir.join("vectors.txt");
    run(Command::new(std::env::current_exe().unwrap())
        .env(VECTORS_ENV, &vectors)
        .args(["vectors::", "--test-threads=1"]));
    let vectors = std::fs::read_to_string(vectors).unwrap();
    let n = vectors.lines().count();
    assert!(n > 1000, "only {n} vectors from runtime/tests/corrupt.rs");
    writeln!(text, "corrupt {n}\n{vectors}").unwrap();
    let path = dir.join("cases.txt");
    std::fs::write(&path, text).unwrap();
    path
}

/// Compiles `api_test.c` with `cc` and the sanitizers, links the host library and runs it.
fn c_program_agrees(cc: &str) {
    c_program_passes(cc, "api_test.c", "c-api", cases);
}

#[test]
fn gcc_program_agrees_with_the_rust_runtime() {
    c_program_agrees("gcc");
}

#[test]
fn clang_program_agrees_with_the_rust_runtime() {
    c_program_agrees("clang");
}

/// Every `ltu_runtime::Error` variant (as `runtime/src/error.rs` declares them) has its own
/// status, named after it, whose message is the variant's `Display` text.
#[test]
fn every_runtime_error_has_a_status() {
    let src = include_str!("../../runtime/src/error.rs");
    let body = &src[src.find("pub enum Error {").unwrap()..];
    let body = &body[..body.find("\n}").unwrap()];
    let variants: Vec<&str> = body
        .lines()
        .map(str::trim)
        .filter(|l| !l.starts_with("//") && !l.starts_with("pub enum") && l.ends_with(','))
        .map(|l| l.trim_end_matches(','))
        .collect();
    assert!(variants.len() >= 20, "{variants:?}");
    for (i, v) in variants.iter().enumerate() {
        let mut snake = String::from("LTU_ERR");
        for c in v.chars() {
            if c.is_uppercase() {
                snake.push('_');
            }
            snake.push(c.to_ascii_uppercase());
        }
        let status =
            ltu_status::from_raw(i as u32 + 1).unwrap_or_else(|| panic!("no status {} for {v}", i + 1));
        // SAFETY: the returned pointers are static NUL-terminated strings.
        let (name, message) = unsafe {
            (
                std::ffi::CStr::from_ptr(ltu_c::ltu_status_name(ltu_c::ltu_status_raw(status as u32))),
                std::ffi::CStr::from_ptr(ltu_c::ltu_status_message(ltu_c::ltu_status_raw(status as u32))),
            )
        };
        assert_eq!(name.to_str().unwrap(), snake, "status {} is not {v}'s", i + 1);
        let error =
            errors().into_iter().find(|e| format!("{e:?}") == *v).expect("variant listed in errors()");
        assert_eq!(ltu_status::from(error), status);
        assert_eq!(message.to_str().unwrap(), error.to_string());
    }
}

/// Every runtime error, by value.
fn errors() -> Vec<Error> {
    use Error::*;
    vec![
        HeaderTooShort,
        HeaderBadMagic,
        HeaderUnsupportedVersion,
        ChecksumMismatch,
        BodyDecode,
        BodyTrailingBytes,
        TableLength,
        LimitExceeded,
        InputInvalid,
        FeatureInvalid,
        LiteralInvalid,
        UnitInvalid,
        ClassOutOfRange,
        NodeInvalid,
        LinkNotForward,
        ListEntryInvalid,
        AccumulatorMayOverflow,
        NamesInvalid,
        HostInvalid,
        PipelineInvalid,
        Unsupported,
        PredictInputLength,
        PredictWindow,
        PredictInputUnavailable,
        PredictScoresBuffer,
        EncodeBufferTooSmall,
        LearnLabelOutOfRange,
        LearnRamTooSmall,
    ]
}

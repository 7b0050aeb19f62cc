//! Golden files: hand-built models (one per structure kind) whose encoded bytes are committed in
//! `tests/golden/*.ltu`, with expected predictions in `tests/golden/*.expected`.
//!
//! The bytes are the format: if encoding one of these models changes a byte, files already in
//! the field would be read differently. Such a change needs a format version bump
//! (`ltu_runtime::format::VERSION`), a new entry in `docs/FORMAT.md`'s version history, and then
//! re-blessed golden files: `LTU_BLESS=1 cargo test -p ltu-tests --test golden`.

use std::fmt::Write as _;
use std::path::PathBuf;

use ltu_runtime::{format, Error, Model};
use ltu_tests::{golden_models, Golden};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("golden")
}

fn bless() -> bool {
    std::env::var_os("LTU_BLESS").is_some()
}

/// The `.expected` text: one line per input, `x0 x1 ... -> class`.
fn expected_text(g: &Golden) -> String {
    let mut s = format!("# {}: raw inputs -> class (format version {})\n", g.name, format::VERSION);
    for x in &g.inputs {
        let xs: Vec<String> = x.iter().map(i32::to_string).collect();
        writeln!(s, "{} -> {}", xs.join(" "), g.spec.predict(x)).unwrap();
    }
    s
}

fn parse_expected(text: &str) -> Vec<(Vec<i32>, usize)> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (x, c) = l.split_once("->").expect("`inputs -> class`");
            (x.split_whitespace().map(|v| v.parse().unwrap()).collect(), c.trim().parse().unwrap())
        })
        .collect()
}

fn read(name: &str, ext: &str) -> Vec<u8> {
    let path = dir().join(format!("{name}.{ext}"));
    std::fs::read(&path).unwrap_or_else(|e| {
        panic!("{}: {e}; create it with LTU_BLESS=1 cargo test -p ltu-tests --test golden", path.display())
    })
}

#[test]
fn golden_bytes_are_unchanged() {
    for g in golden_models() {
        let bytes = g.spec.to_bytes().unwrap();
        let text = expected_text(&g);
        if bless() {
            std::fs::create_dir_all(dir()).unwrap();
            std::fs::write(dir().join(format!("{}.ltu", g.name)), &bytes).unwrap();
            std::fs::write(dir().join(format!("{}.expected", g.name)), &text).unwrap();
            continue;
        }
        let stored = read(g.name, "ltu");
        if stored != bytes {
            let at =
                stored.iter().zip(&bytes).position(|(a, b)| a != b).unwrap_or(stored.len().min(bytes.len()));
            panic!(
                "golden model `{}`: the encoding changed (first difference at byte {at}; {} bytes stored, {} \
                 now).\nThe file format is versioned: changing the bytes of an existing model requires bumping \
                 ltu_runtime::format::VERSION (now {}) and adding a version-history entry in docs/FORMAT.md, \
                 then re-blessing with LTU_BLESS=1 cargo test -p ltu-tests --test golden.",
                g.name,
                stored.len(),
                bytes.len(),
                format::VERSION
            );
        }
        let stored_text = String::from_utf8(read(g.name, "expected")).unwrap();
        assert_eq!(stored_text, text, "golden model `{}`: the trainer's predictions changed", g.name);
    }
}

/// The committed files on their own: the runtime loads them and predicts the committed classes
/// (independent of the trainer; the firmware checks the same files).
#[test]
fn golden_files_predict_as_expected() {
    if bless() {
        return;
    }
    for g in golden_models() {
        let bytes = read(g.name, "ltu");
        let model = Model::from_bytes(&bytes).unwrap_or_else(|e| panic!("{}: {e:?}", g.name));
        let expected = parse_expected(&String::from_utf8(read(g.name, "expected")).unwrap());
        assert_eq!(expected.len(), g.inputs.len());
        let mut classes = std::collections::BTreeSet::new();
        for (x, c) in expected {
            assert_eq!(model.predict(&x), Ok(c), "{}: inputs {x:?}", g.name);
            assert_eq!(g.spec.predict(&x), c, "{}: trainer on {x:?}", g.name);
            classes.insert(c);
        }
        // Each golden model is only useful if its inputs reach more than one class.
        assert!(classes.len() >= 2, "{}: expected predictions all {classes:?}", g.name);
    }
}

/// Every single-bit flip of every golden file is rejected, and by the check that guards that
/// byte; every truncation and every appended byte too.
#[test]
fn golden_files_reject_every_bit_flip_truncation_and_extension() {
    if bless() {
        return;
    }
    for g in golden_models() {
        let bytes = read(g.name, "ltu");
        let mut b = bytes.clone();
        for bit in 0..bytes.len() * 8 {
            b[bit / 8] ^= 1 << (bit % 8);
            let expected = match bit / 8 {
                0..4 => Error::HeaderBadMagic,
                4..6 => Error::HeaderUnsupportedVersion,
                _ => Error::ChecksumMismatch,
            };
            assert_eq!(Model::from_bytes(&b).err(), Some(expected), "{}: flip of bit {bit}", g.name);
            b[bit / 8] ^= 1 << (bit % 8);
        }
        for len in 0..bytes.len() {
            assert!(
                Model::from_bytes(&bytes[..len]).is_err(),
                "{}: truncated to {len} bytes accepted",
                g.name
            );
        }
        for extra in [0u8, 1, 0xFF] {
            let mut b = bytes.clone();
            b.push(extra);
            assert!(Model::from_bytes(&b).is_err(), "{}: trailing byte {extra} accepted", g.name);
        }
    }
}

//! The stable-toolchain stand-in for `fuzz/` (cargo-fuzz needs nightly): a bounded, seeded
//! mutation test over valid model bytes.
//!
//! Mutations: bit flips, byte replacements with boundary values, u16/u32 overwrites, insertions,
//! deletions and splices from other models; three times in four the CRC (and sometimes the
//! header) is repaired afterwards so the structural validation behind the checksum is what gets
//! exercised. `Model::from_bytes` must never panic; every accepted model must predict (plain,
//! lazy, with scores) on random inputs without panicking. Run in debug, so an arithmetic
//! overflow anywhere panics and fails the test.
//!
//! `LTU_MUTATIONS` sets the iteration count (default 100 000, about 4 s in debug); the seed is `LTU_SEED` (default
//! 0) and is printed with the iteration on failure.

use std::panic::{catch_unwind, AssertUnwindSafe};

use ltu_runtime::format::{self, crc32, CHECKSUM_LEN, HEADER_LEN, MAGIC, VERSION};
use ltu_runtime::{Error, Model};
use ltu_tests::{golden_models, random_spec, Gen};

fn corpus() -> Vec<Vec<u8>> {
    let mut c: Vec<Vec<u8>> = golden_models().iter().map(|g| g.spec.to_bytes().unwrap()).collect();
    c.extend((1000..1040).map(|seed| random_spec(seed).to_bytes().unwrap()));
    c
}

fn mutate(g: &mut Gen, bytes: &mut Vec<u8>, corpus: &[Vec<u8>]) {
    let interesting = [0u8, 1, 2, 0x7F, 0x80, 0xFE, 0xFF];
    for _ in 0..1 + g.below(4) {
        if bytes.is_empty() {
            bytes.push(0);
        }
        let at = g.below(bytes.len());
        match g.below(8) {
            0 | 1 => bytes[at] ^= 1 << g.below(8),
            2 => bytes[at] = g.pick(&interesting),
            3 => bytes[at] = g.below(256) as u8,
            4 => {
                let v: u32 = g.pick(&[0, 1, u16::MAX as u32, 0x8000, u32::MAX, i32::MAX as u32, 0x8000_0000]);
                let n = g.pick(&[2usize, 4]).min(bytes.len() - at);
                bytes[at..at + n].copy_from_slice(&v.to_le_bytes()[..n]);
            }
            5 => {
                let n = 1 + g.below(4);
                for _ in 0..n {
                    bytes.insert(at, g.pick(&interesting));
                }
            }
            6 => {
                let n = (1 + g.below(8)).min(bytes.len() - at);
                bytes.drain(at..at + n);
            }
            _ => {
                let other = &corpus[g.below(corpus.len())];
                let from = g.below(other.len());
                let n = (1 + g.below(32)).min(other.len() - from).min(bytes.len() - at);
                bytes[at..at + n].copy_from_slice(&other[from..from + n]);
            }
        }
    }
    if g.chance(3, 4) && bytes.len() >= 10 {
        if g.chance(1, 2) {
            bytes[..4].copy_from_slice(&MAGIC);
            bytes[4..6].copy_from_slice(&VERSION.to_le_bytes());
        }
        let n = bytes.len() - CHECKSUM_LEN;
        let crc = crc32(&bytes[..n]);
        bytes[n..].copy_from_slice(&crc.to_le_bytes());
    }
}

fn exercise(model: &Model<'_>, g: &mut Gen) {
    let mut scores = vec![0i64; model.n_classes()];
    for _ in 0..8 {
        let x: Vec<i32> = (0..model.n_inputs()).map(|_| g.any_i32()).collect();
        let c = model.predict(&x).unwrap();
        assert!(c < model.n_classes());
        assert_eq!(model.predict_with(|i| x.get(i).copied()), Ok(c));
        assert_eq!(model.predict_scores(&x, &mut scores), Ok(c));
        let n = g.below(model.n_inputs() + 1);
        match model.predict_with(|i| if i < n { x.get(i).copied() } else { None }) {
            Ok(k) => assert_eq!(k, c),
            Err(e) => assert_eq!(e, Error::PredictInputUnavailable),
        }
    }
    if let Some(names) = model.names() {
        for i in 0..model.n_inputs() + 1 {
            let _ = (names.input(i), names.value(i, 0), names.class(i));
        }
    }
}

/// The runtime decodes the body by hand; postcard (what `format::encode` writes with) must agree
/// on every body that passed the header and checksum: the same `ModelRepr`, or both rejecting.
fn assert_decodes_like_postcard(bytes: &[u8], seed: u64, it: u64) {
    let ours = format::decode(bytes);
    if matches!(
        ours,
        Err(Error::HeaderTooShort
            | Error::HeaderBadMagic
            | Error::HeaderUnsupportedVersion
            | Error::ChecksumMismatch)
    ) {
        return;
    }
    let body = &bytes[HEADER_LEN..bytes.len() - CHECKSUM_LEN];
    let theirs = match postcard::take_from_bytes::<format::ModelRepr<'_>>(body) {
        Ok((repr, [])) => Ok(repr),
        Ok(_) => Err(Error::BodyTrailingBytes),
        Err(_) => Err(Error::BodyDecode),
    };
    // On a 64-bit host postcard reads lengths as u64 varints (up to 10 bytes); the format (and
    // postcard on the 32-bit targets the runtime is for) allows 5.
    let long_varint = body.windows(5).any(|w| w.iter().all(|b| b & 0x80 != 0));
    if !(long_varint && ours == Err(Error::BodyDecode)) {
        assert_eq!(
            ours, theirs,
            "seed {seed} iteration {it}: hand decoder and postcard disagree on {bytes:02x?}"
        );
    }
}

#[test]
fn golden_and_random_bodies_decode_like_postcard() {
    for (i, bytes) in corpus().iter().enumerate() {
        assert!(format::decode(bytes).is_ok());
        assert_decodes_like_postcard(bytes, 0, i as u64);
    }
}

#[test]
fn mutated_models_never_panic() {
    let env = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<u64>().ok());
    let seed = env("LTU_SEED").unwrap_or(0);
    let iterations = env("LTU_MUTATIONS").unwrap_or(100_000);
    let corpus = corpus();
    let mut g = Gen::new(seed);
    let mut outcomes = std::collections::BTreeMap::<String, usize>::new();
    for it in 0..iterations {
        let mut bytes = corpus[g.below(corpus.len())].clone();
        mutate(&mut g, &mut bytes, &corpus);
        assert_decodes_like_postcard(&bytes, seed, it);
        let mut eval = Gen::new(seed ^ it);
        let outcome = catch_unwind(AssertUnwindSafe(|| match Model::from_bytes(&bytes) {
            Ok(model) => {
                exercise(&model, &mut eval);
                "accepted".to_string()
            }
            Err(e) => format!("{e:?}"),
        }));
        match outcome {
            Ok(o) => *outcomes.entry(o).or_default() += 1,
            Err(_) => panic!(
                "panic on mutated model, seed {seed} iteration {it} (re-run: LTU_SEED={seed} \
                 LTU_MUTATIONS={} cargo test -p ltu-tests --test mutate); bytes: {bytes:02x?}",
                it + 1
            ),
        }
    }
    println!("{outcomes:#?}");
    // The run is only worth its time if mutations got past the checksum into the structural
    // checks, and some mutated models were accepted and evaluated.
    if iterations >= 20_000 {
        let structural = outcomes
            .iter()
            .filter(|(k, _)| !k.starts_with("Header") && *k != "ChecksumMismatch" && *k != "accepted")
            .count();
        assert!(structural >= 8, "only {structural} structural error kinds reached: {outcomes:?}");
        assert!(outcomes.get("accepted").copied().unwrap_or(0) >= 200, "too few accepted: {outcomes:?}");
    }
}

//! Loads arbitrary bytes as a model; if the loader accepts them, evaluates the model on inputs
//! taken from the rest of the fuzz data with every evaluation entry point. Nothing may panic.
//!
//! Input layout: `flags: u8`, `len: u16 LE`, then `len` model bytes (fewer if the data is
//! shorter), then the input values as `i32 LE` (cycled; zeros if none). If `flags & 1`, the
//! magic, version and CRC-32 of the model bytes are repaired before loading, so the fuzzer
//! reaches the structural validation instead of stopping at the checksum. `run.sh` seeds the
//! corpus with the golden models in this layout.
#![no_main]

mod input;

use libfuzzer_sys::fuzz_target;
use ltu_runtime::{Error, InputsRead, Model};

fuzz_target!(|data: &[u8]| {
    let Some((_, model_bytes, rest)) = input::split(data) else {
        return;
    };
    let Ok(model) = Model::from_bytes(&model_bytes) else {
        return;
    };
    let values = input::values(rest);
    let x: Vec<i32> =
        (0..model.n_inputs()).map(|i| if values.is_empty() { 0 } else { values[i % values.len()] }).collect();

    let class = model.predict(&x).expect("predict on an accepted model");
    assert!(class < model.n_classes());
    let mut read = InputsRead::<16>::new();
    assert_eq!(model.predict_with(read.track(|i| x.get(i).copied())), Ok(class));
    let mut scores = vec![0i64; model.n_classes()];
    assert_eq!(model.predict_scores(&x, &mut scores), Ok(class));
    assert_eq!(scores[class], *scores.iter().max().unwrap());
    // A source that runs dry half-way must fail cleanly, never panic.
    let half = x.len() / 2;
    match model.predict_with(|i| if i < half { x.get(i).copied() } else { None }) {
        Ok(c) => assert_eq!(c, class),
        Err(e) => assert_eq!(e, Error::PredictInputUnavailable),
    }
    assert_eq!(model.predict(&x[..x.len().saturating_sub(1)]).is_err(), !x.is_empty());
});

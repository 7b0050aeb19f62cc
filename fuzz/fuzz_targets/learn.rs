//! Loads arbitrary bytes as a model; if the loader accepts them, a `Learner` presents labelled
//! inputs taken from the rest of the fuzz data to the error-correction procedure. Nothing may
//! panic or overflow, the learned model must predict without error after every update, and the
//! learned file must load and predict as the learner does.
//!
//! Input layout (that of `from_bytes_predict`): `flags: u8`, `len: u16 LE`, then `len` model
//! bytes (fewer if the data is shorter; if `flags & 1`, magic, version and CRC-32 are repaired),
//! then `i32 LE` values, read in turn as the inputs and the label of each update (cycled).
#![no_main]

mod input;

use libfuzzer_sys::fuzz_target;
use ltu_runtime::{Error, Learner, Model};

/// Updates per fuzz input: enough for weights to reach their range's end and the bound.
const UPDATES: usize = 64;

fuzz_target!(|data: &[u8]| {
    let Some((_, model_bytes, rest)) = input::split(data) else {
        return;
    };
    let Ok(need) = Learner::ram_needed(&model_bytes) else {
        return;
    };
    let mut ram = vec![0u8; need];
    let mut learner = Learner::new(&model_bytes, &mut ram).expect("a model that loads learns");
    let values = input::values(rest);
    let mut next = {
        let mut i = 0;
        move || {
            let v = if values.is_empty() { 0 } else { values[i % values.len()] };
            i += 1;
            v
        }
    };
    let (n_inputs, n_classes) = (learner.model().n_inputs(), learner.model().n_classes());
    for _ in 0..UPDATES {
        let x: Vec<i32> = (0..n_inputs).map(|_| next()).collect();
        let label = next().unsigned_abs() as usize % (n_classes + 1);
        match learner.update(&x, label) {
            Ok(_) => assert!(label < n_classes),
            Err(e) => assert_eq!((e, label), (Error::LearnLabelOutOfRange, n_classes)),
        }
        let class = learner.model().predict(&x).expect("the learned model predicts");
        assert!(class < n_classes);
    }
    let mut file = vec![0u8; learner.file_len()];
    assert_eq!(learner.write_to(&mut file), Ok(file.len()));
    let reloaded = Model::from_bytes(&file).expect("the learned file loads");
    let x: Vec<i32> = (0..n_inputs).map(|_| next()).collect();
    assert_eq!(reloaded.predict(&x), learner.model().predict(&x));
});

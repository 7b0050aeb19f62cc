//! The runtime's learner on random valid models of every shape and weight kind: no update panics,
//! every learned file loads, only weights change, and the learned model in RAM predicts exactly as
//! the learned file does.

use std::sync::atomic::{AtomicUsize, Ordering};

use ltu::model::{ModelSpec, Structure};
use ltu_runtime::{Error, Learner, Model, Outcome};
use ltu_tests::{for_each_seed, random_inputs, random_spec, Gen};

/// Updates presented to each random model.
const UPDATES_PER_MODEL: usize = 40;

fn learned_file(learner: &Learner<'_, '_>) -> Vec<u8> {
    let mut out = Vec::new();
    learner
        .write_file(|p| -> Result<(), ()> {
            out.extend_from_slice(p);
            Ok(())
        })
        .unwrap();
    out
}

fn check_model(spec: &ModelSpec, g: &mut Gen) {
    let bytes = spec.to_bytes().unwrap();
    let base = Model::from_bytes(&bytes).unwrap();
    let weights = base.repr().weights;
    // The model borrows its weight table from `bytes`.
    let at = weights.as_ptr() as usize - bytes.as_ptr() as usize;
    let mut ram = vec![0u8; Learner::ram_needed(&bytes).unwrap()];
    assert_eq!(ram.len(), weights.len());
    let mut learner = Learner::new(&bytes, &mut ram).unwrap();
    assert_eq!(learned_file(&learner), bytes, "a learner without updates writes its base file");
    for _ in 0..UPDATES_PER_MODEL {
        let x = random_inputs(g, spec);
        let label = g.below(spec.n_classes);
        let outcome = learner.update(&x, label).unwrap();
        // A binary unit corrected in full answers right (a machine's corrected row beats the
        // row that beat it, but a third row may still win).
        if let (Outcome::Corrected { unit }, Structure::Linear(_)) = (outcome, &spec.structure) {
            if spec.units[usize::from(unit)].rows.len() == 1 {
                assert_eq!(learner.model().predict(&x).unwrap(), label, "a full correction answers right");
            }
        }
        let file = learned_file(&learner);
        assert_eq!(file.len(), bytes.len());
        assert_eq!(learner.crc().to_le_bytes(), file[file.len() - 4..]);
        assert_eq!(file[..at], bytes[..at], "only the weight table changes");
        assert_eq!(file[at + weights.len()..file.len() - 4], bytes[at + weights.len()..bytes.len() - 4]);
        let reloaded = Model::from_bytes(&file).unwrap_or_else(|e| panic!("learned file rejected: {e:?}"));
        let y = random_inputs(g, spec);
        assert_eq!(reloaded.predict(&y), learner.model().predict(&y));
        assert_eq!(reloaded.predict(&x), learner.model().predict(&x));
    }
    let stats = learner.stats();
    assert_eq!(stats.updates as usize, UPDATES_PER_MODEL);
    CORRECTED.fetch_add(stats.corrected as usize + stats.clipped as usize, Ordering::Relaxed);
}

/// Corrections made over every seed (the test fails if random models never learn anything).
static CORRECTED: AtomicUsize = AtomicUsize::new(0);

#[test]
fn random_models_learn_safely() {
    for_each_seed("random_models_learn_safely", 300, |seed| {
        let spec = random_spec(seed);
        check_model(&spec, &mut Gen::new(seed ^ 0x5eed));
    });
    assert!(CORRECTED.load(Ordering::Relaxed) > 0, "no update corrected anything");
}

#[test]
fn errors_change_nothing() {
    let spec = random_spec(7);
    let bytes = spec.to_bytes().unwrap();
    let need = Learner::ram_needed(&bytes).unwrap();
    if need > 0 {
        let mut short = vec![0u8; need - 1];
        assert_eq!(Learner::new(&bytes, &mut short).err(), Some(Error::LearnRamTooSmall));
    }
    let mut ram = vec![0u8; need + 3];
    let mut learner = Learner::new(&bytes, &mut ram).unwrap();
    let x = random_inputs(&mut Gen::new(1), &spec);
    assert_eq!(learner.update(&x, spec.n_classes), Err(Error::LearnLabelOutOfRange));
    assert_eq!(learner.update(&x[..x.len() - 1], 0), Err(Error::PredictInputLength));
    // An update reads what a prediction reads: it fails where the prediction fails.
    if learner.model().predict_with(|_| None::<i32>).is_err() {
        assert_eq!(learner.update_with(|_| None::<i32>, 0), Err(Error::PredictInputUnavailable));
    }
    if learner.stats().updates == 0 {
        assert_eq!(learned_file(&learner), bytes);
    }
}

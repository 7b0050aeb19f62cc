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
    let mut file = vec![0; learner.file_len()];
    assert_eq!(learner.write_to(&mut file), Ok(file.len()));
    file
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
    // An update reads what a prediction reads: it fails where the prediction fails, whatever
    // the label (a right answer computed from a missing input is no answer).
    if learner.model().predict_with(|_| None::<i32>).is_err() {
        for label in 0..spec.n_classes {
            assert_eq!(learner.update_with(|_| None::<i32>, label), Err(Error::PredictInputUnavailable));
        }
    }
    if learner.stats().updates == 0 {
        assert_eq!(learned_file(&learner), bytes);
    }
}

/// Utgoff's absolute correction, computed by hand: `w = (2, -1)`, bias 0, input `(3, 4)` scores
/// `6 - 4 = 2 > 0` (class 1) but is labelled 0: `n2 = 1 + 9 + 16 = 26`, `k = ⌊2/26⌋ + 1 = 1`, so
/// `w = (2 - 3, -1 - 4)` and bias `0 - 1`; the input then scores `-3 - 20 - 1 = -24`. Labelled 1
/// at `(1, 1)` (score `-1 - 5 - 1 = -7`): `n2 = 3`, `k = ⌊-7/3⌋ - 1 = -4`, so `w = (3, -1)`, bias 3.
#[test]
fn binary_correction_by_hand() {
    use ltu::model::{Feature, InputKind, InputSpec, Unit, WeightKind};
    let numeric = |attr| Feature::Numeric { attr, offset: 0, mul: 1, shift: 0, max_abs: 1000 };
    let input = InputSpec { kind: InputKind::Numeric { scale_exp: 0, offset: 0 }, missing: 0 };
    let spec = ModelSpec {
        pipeline: None,
        n_classes: 2,
        weight_kind: WeightKind::I32,
        inputs: vec![input.clone(), input],
        features: vec![numeric(0), numeric(1)],
        units: vec![Unit { terms: vec![0, 1], rows: vec![vec![2, -1, 0]], classes: vec![0, 1] }],
        structure: Structure::Linear(0),
        names: None,
    };
    let bytes = spec.to_bytes().unwrap();
    let mut ram = [0u8; 12];
    let mut learner = Learner::new(&bytes, &mut ram).unwrap();
    let rows = |l: &Learner<'_, '_>| ModelSpec::from_model(&l.model()).units[0].rows.clone();
    assert_eq!(learner.update(&[3i32, 4], 1), Ok(Outcome::Correct));
    assert_eq!(learner.update(&[3i32, 4], 0), Ok(Outcome::Corrected { unit: 0 }));
    assert_eq!(rows(&learner), vec![vec![-1, -5, -1]]);
    assert_eq!(learner.update(&[1i32, 1], 1), Ok(Outcome::Corrected { unit: 0 }));
    assert_eq!(rows(&learner), vec![vec![3, -1, 3]]);
    assert_eq!(learner.model().predict(&[1i32, 1]), Ok(1));
    let s = learner.stats();
    assert_eq!((s.updates, s.corrected), (3, 2));
}

/// A unit whose accumulator bound is already the limit cannot move: every mistake saturates and
/// the file stays as it was.
#[test]
fn a_unit_at_its_bound_saturates() {
    let golden = ltu_tests::golden_models().into_iter().find(|g| g.name == "binary_i32").unwrap();
    let bytes = golden.spec.to_bytes().unwrap();
    let mut ram = vec![0u8; Learner::ram_needed(&bytes).unwrap()];
    let mut learner = Learner::new(&bytes, &mut ram).unwrap();
    let mut saturated = 0;
    for x in &golden.inputs {
        let wrong = 1 - learner.model().predict(x).unwrap();
        match learner.update(x, wrong).unwrap() {
            Outcome::Saturated { unit: 0 } => saturated += 1,
            other => panic!("{other:?} at the bound"),
        }
    }
    assert!(saturated > 0);
    assert_eq!(learned_file(&learner), bytes);
}

/// Where a prediction needs an input the source does not have, an update fails the same way,
/// whatever its label, and changes nothing.
#[test]
fn missing_inputs_are_errors_for_every_label() {
    let mut failing = 0;
    for seed in 0..200 {
        let spec = random_spec(seed);
        let bytes = spec.to_bytes().unwrap();
        let mut ram = vec![0u8; Learner::ram_needed(&bytes).unwrap()];
        let mut learner = Learner::new(&bytes, &mut ram).unwrap();
        if learner.model().predict_with(|_| None::<i32>).is_ok() {
            continue;
        }
        failing += 1;
        for label in 0..spec.n_classes {
            assert_eq!(learner.update_with(|_| None::<i32>, label), Err(Error::PredictInputUnavailable));
        }
        assert_eq!(learned_file(&learner), bytes);
    }
    assert!(failing > 50, "only {failing} models read an input");
}

/// `write_to` writes what `write_file` streams, and refuses a buffer one byte short.
#[test]
fn write_to_a_buffer() {
    let spec = random_spec(3);
    let bytes = spec.to_bytes().unwrap();
    let mut ram = vec![0u8; Learner::ram_needed(&bytes).unwrap()];
    let mut learner = Learner::new(&bytes, &mut ram).unwrap();
    let mut g = Gen::new(3);
    for _ in 0..20 {
        let x = random_inputs(&mut g, &spec);
        learner.update(&x, g.below(spec.n_classes)).unwrap();
    }
    let mut streamed = Vec::new();
    learner
        .write_file(|p| {
            streamed.extend_from_slice(p);
            Ok::<(), ()>(())
        })
        .unwrap();
    assert_eq!(learned_file(&learner), streamed);
    let mut short = vec![0xAA; learner.file_len() - 1];
    assert_eq!(learner.write_to(&mut short), Err(Error::EncodeBufferTooSmall));
    assert!(short.iter().all(|&b| b == 0xAA));
}

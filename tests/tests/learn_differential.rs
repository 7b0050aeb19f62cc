//! Host and device agree on learning: for random valid models of every structure and weight kind
//! and random sequences of labelled inputs, the trainer's reference `ModelSpec::update` and the
//! runtime's `Learner::update` give the same outcome at every step, and the trainer's model
//! written over the base file (`ModelSpec::write_weights`) is byte for byte the file the
//! learner writes.

use std::collections::BTreeMap;
use std::sync::Mutex;

use ltu::model::{ModelSpec, UpdateError, WeightKind};
use ltu_runtime::{Error, Learner, Model, Outcome};
use ltu_tests::{for_each_seed, golden_models, random_inputs, random_spec_with, Gen, Shape};

/// Updates presented to each random model.
const UPDATES_PER_MODEL: usize = 60;

/// Distinct inputs per model: few, so that a unit meets the same input again after it was
/// corrected, and repeated corrections drive weights to the range's end and the accumulator bound.
const INPUTS_PER_MODEL: usize = 5;

fn learned_file(learner: &Learner<'_, '_>) -> Vec<u8> {
    let mut file = vec![0; learner.file_len()];
    assert_eq!(learner.write_to(&mut file), Ok(file.len()));
    file
}

/// How often each outcome occurred over every model, so the test fails if some never does.
static SEEN: Mutex<BTreeMap<&'static str, usize>> = Mutex::new(BTreeMap::new());

fn name(o: Outcome) -> &'static str {
    match o {
        Outcome::Correct => "correct",
        Outcome::Corrected { .. } => "corrected",
        Outcome::Clipped { .. } => "clipped",
        Outcome::Saturated { .. } => "saturated",
        Outcome::Constant => "constant",
        Outcome::Unlearnable => "unlearnable",
    }
}

/// Feeds the same labelled inputs to the host reference and to the device's learner, comparing
/// outcomes and files after every update.
fn check_model(spec: &ModelSpec, g: &mut Gen) {
    let base = spec.to_bytes().unwrap();
    let loaded = Model::from_bytes(&base).unwrap();
    // The host learns on the model as read from its file, whose units are stored as the file
    // stores them.
    let mut host = ModelSpec::from_model(&loaded);
    let mut ram = vec![0u8; Learner::ram_needed(&base).unwrap()];
    let mut learner = Learner::new(&base, &mut ram).unwrap();
    assert_eq!(host.write_weights(&base).unwrap(), base);
    let pool: Vec<Vec<i32>> = (0..INPUTS_PER_MODEL).map(|_| random_inputs(g, spec)).collect();
    for step in 0..UPDATES_PER_MODEL {
        let x = &pool[g.below(pool.len())];
        let label = g.below(spec.n_classes);
        let want = host.update(x, label).unwrap();
        let got = learner.update(x, label).unwrap();
        assert_eq!(got, want, "update {step}: inputs {x:?}, label {label}\n{host:#?}");
        *SEEN.lock().unwrap().entry(name(want)).or_default() += 1;
        let device = learned_file(&learner);
        let written = host.write_weights(&base).unwrap();
        if written != device {
            let at = (0..device.len()).find(|&i| written.get(i) != device.get(i)).unwrap_or(device.len());
            panic!("update {step} ({want:?}): the files differ first at byte {at}\n{host:#?}");
        }
    }
    // Errors change nothing on either side.
    let x = &pool[0];
    assert_eq!(
        host.update(x, spec.n_classes),
        Err(UpdateError::LabelOutOfRange { label: spec.n_classes, n_classes: spec.n_classes })
    );
    assert_eq!(learner.update(x, spec.n_classes), Err(Error::LearnLabelOutOfRange));
    assert_eq!(host.write_weights(&base).unwrap(), learned_file(&learner));
}

#[test]
fn host_and_device_learn_the_same_bytes() {
    let shapes = [Shape::Tree, Shape::List, Shape::Linear];
    let kinds = [WeightKind::I8, WeightKind::I16, WeightKind::I32, WeightKind::Fixed];
    for_each_seed("host_and_device_learn_the_same_bytes", 240, |seed| {
        let mut g = Gen::new(seed);
        // Every structure with every weight kind, in turn.
        let combo = seed as usize % (shapes.len() * kinds.len());
        let spec = random_spec_with(&mut g, shapes[combo / kinds.len()], kinds[combo % kinds.len()]);
        check_model(&spec, &mut Gen::new(seed ^ 0x1ea7));
    });
    // The golden models too: hand-built, one of them a unit at its accumulator bound.
    for golden in golden_models() {
        let mut g = Gen::new(golden.name.len() as u64);
        check_model(&golden.spec, &mut g);
    }
    let seen = SEEN.lock().unwrap();
    eprintln!("outcomes: {seen:?}");
    for outcome in ["correct", "corrected", "clipped", "saturated", "constant", "unlearnable"] {
        assert!(seen.get(outcome).copied().unwrap_or(0) > 0, "no update was {outcome}: {seen:?}");
    }
}

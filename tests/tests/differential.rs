//! Differential tests: for random valid models of every shape, the runtime loads what the trainer
//! exports and predicts exactly what the trainer's reference evaluator predicts.

use ltu::model::{ModelSpec, Structure, WeightKind};
use ltu_runtime::{InputsRead, Kind, Model};
use ltu_tests::{
    dense_units, for_each_seed, path, random_inputs, random_spec, random_spec_sized, Gen, Shape,
};

/// Inputs tried per model.
const INPUTS_PER_MODEL: usize = 60;

fn kind_of(spec: &ModelSpec) -> Kind {
    match spec.structure {
        Structure::Tree(_) => Kind::Tree,
        Structure::List { .. } => Kind::List,
        Structure::Linear(_) => Kind::Linear,
    }
}

/// Everything the runtime must agree with the trainer on, for one model.
fn check_model(spec: &ModelSpec, g: &mut Gen) {
    let bytes = spec.to_bytes().unwrap_or_else(|e| panic!("to_bytes failed: {e}\n{spec:#?}"));
    assert_eq!(spec.clone().to_bytes().unwrap(), bytes, "encoding is not deterministic");
    let model = Model::from_bytes(&bytes).unwrap_or_else(|e| panic!("runtime rejected: {e:?}\n{spec:#?}"));
    assert_eq!(model.n_inputs(), spec.inputs.len());
    assert_eq!(model.n_classes(), spec.n_classes);
    // The feature table holds only what sparse units read; dense units read the standard features.
    assert!(model.n_features() <= spec.features.len());
    let standard: usize = spec
        .inputs
        .iter()
        .map(|i| match i.kind {
            ltu::model::InputKind::Numeric { .. } => 1,
            ltu::model::InputKind::Categorical { n_values } => usize::from(n_values),
        })
        .sum();
    assert_eq!(model.n_standard_features(), standard);
    for (i, inp) in spec.inputs.iter().enumerate() {
        let host = model.host_input(i).expect("host block written by default");
        assert_eq!(host.missing, inp.missing);
        if let ltu::model::InputKind::Numeric { scale_exp, offset } = inp.kind {
            assert_eq!((host.scale_exp, host.offset), (scale_exp, offset));
        }
    }
    // Stripped, the same predictions follow from a file without the host block.
    let stripped = spec.to_bytes_with(&ltu::model::Host { strip: true, meta: None }).unwrap();
    assert!(stripped.len() < bytes.len());
    let stripped = Model::from_bytes(&stripped).unwrap();
    assert!(stripped.names().is_none() && stripped.host_input(0).is_none());
    assert_eq!(model.n_units(), spec.units.len());
    assert_eq!(model.kind(), kind_of(spec));
    assert_eq!(model.weight_kind(), spec.weight_kind);
    if let Some(names) = &spec.names {
        let got = model.names().expect("names stored");
        for (i, n) in names.inputs.iter().enumerate() {
            assert_eq!(got.input(i), n);
            for (v, n) in names.values[i].iter().enumerate() {
                assert_eq!(got.value(i, v), n);
            }
        }
        for (c, n) in names.classes.iter().enumerate() {
            assert_eq!(got.class(c), n);
        }
    } else {
        assert!(model.names().is_none());
    }

    let mut scores = vec![0i64; spec.n_classes + 2];
    for _ in 0..INPUTS_PER_MODEL {
        let x = random_inputs(g, spec);
        let want = spec.predict(&x);
        let got = model.predict(&x).unwrap();
        assert_eq!(got, want, "runtime {got} != trainer {want} on inputs {x:?}\n{spec:#?}");
        assert_eq!(stripped.predict(&x).unwrap(), want, "the stripped model differs on {x:?}");

        // Scores: the predicted class has the highest score, and uncovered classes are MIN.
        let c = model.predict_scores(&x, &mut scores).unwrap();
        assert_eq!(c, want);
        let s = &scores[..spec.n_classes];
        let best = *s.iter().max().unwrap();
        assert_eq!(s[c], best, "predicted class {c} does not have the top score {s:?} on {x:?}");
        assert_ne!(best, i64::MIN, "the predicted class has no score: {s:?}");

        // Lazy inputs: the same class, reading only inputs the path may need.
        let p = path(spec, &x, &dense_units(&model));
        let mut read = InputsRead::<64>::new();
        let lazy = model.predict_with(read.track(|i| x.get(i).copied())).unwrap();
        assert_eq!(lazy, want, "predict_with differs on {x:?}");
        assert!(!read.overflowed());
        let read: std::collections::BTreeSet<usize> =
            read.as_slice().iter().map(|&i| usize::from(i)).collect();
        assert!(read.is_subset(&p.may_read), "read {read:?}, path may read only {:?} on {x:?}", p.may_read);
        assert!(p.must_read.is_subset(&read), "read {read:?}, but the path splits on {:?}", p.must_read);
        // What was read suffices: hide every other input.
        let hidden = model.predict_with(|i| if read.contains(&i) { x.get(i).copied() } else { None });
        assert_eq!(hidden, Ok(want), "reads {read:?} do not suffice on {x:?}");

        // Narrow input types go through the same path.
        if x.iter().all(|v| i16::try_from(*v).is_ok()) {
            let narrow: Vec<i16> = x.iter().map(|&v| v as i16).collect();
            assert_eq!(model.predict(&narrow).unwrap(), want);
        }
    }
}

#[test]
fn runtime_agrees_with_trainer_on_random_models() {
    for_each_seed("runtime_agrees_with_trainer_on_random_models", 2000, |seed| {
        let spec = random_spec(seed);
        let mut g = Gen::new(seed ^ 0x5eed);
        check_model(&spec, &mut g);
    });
}

/// Models with up to 40 inputs and 40 features: dense units over more numeric inputs than the
/// runtime's numeric cache holds, and sparse machines of more terms than it caches.
#[test]
fn runtime_agrees_with_trainer_on_wide_models() {
    for_each_seed("runtime_agrees_with_trainer_on_wide_models", 300, |seed| {
        let mut g = Gen::new(seed);
        let shape = g.pick(&[Shape::Tree, Shape::List, Shape::Linear]);
        let kind = g.pick(&[WeightKind::I8, WeightKind::I16, WeightKind::I32, WeightKind::Fixed]);
        let standard = g.chance(1, 2);
        let spec = random_spec_sized(&mut g, shape, kind, 40, 40, standard);
        check_model(&spec, &mut Gen::new(seed ^ 0x5eed));
    });
}

#[test]
fn generator_covers_every_shape_kind_and_node() {
    use ltu::model::Feature;
    let mut seen = std::collections::BTreeSet::new();
    for seed in 0..600 {
        let spec = random_spec(seed);
        seen.insert(format!("{:?}", spec.weight_kind));
        seen.insert(format!("{:?}", kind_of(&spec)));
        seen.insert(format!("names {}", spec.names.is_some()));
        for f in &spec.features {
            match f {
                Feature::Numeric { .. } => seen.insert("Numeric".into()),
                Feature::Equals { .. } => seen.insert("Equals".into()),
                Feature::Greater { .. } => seen.insert("Greater".into()),
                Feature::Conjunction(l) => {
                    l.iter().for_each(|l| _ = seen.insert(format!("{:?}", l.op)));
                    true
                }
            };
        }
        for u in &spec.units {
            seen.insert(if u.rows.len() == 1 { "binary".into() } else { "machine".into() });
        }
        if let Structure::Tree(nodes) = &spec.structure {
            for n in nodes {
                let name = format!("{n:?}");
                seen.insert(name[..name.find(['(', ' ']).unwrap()].to_string());
            }
        }
        // Sparse and dense storage: the export picks by size; look at the stored flags.
        let bytes = spec.to_bytes().unwrap();
        let model = Model::from_bytes(&bytes).unwrap();
        for rec in model.repr().units.chunks(16) {
            seen.insert(if rec[0] & 1 != 0 { "sparse".into() } else { "dense".into() });
        }
    }
    for want in [
        "I8",
        "I16",
        "I32",
        "Fixed",
        "Tree",
        "List",
        "Linear",
        "names true",
        "names false",
        "Numeric",
        "Equals",
        "Greater",
        "Eq",
        "Ne",
        "Gt",
        "Le",
        "binary",
        "machine",
        "Class",
        "Unit",
        "Categorical",
        "Threshold",
        "UnitSplit",
        "sparse",
        "dense",
    ] {
        assert!(seen.contains(want), "600 seeds never generated {want}: {seen:?}");
    }
}

/// `rescale` makes any model fit the smaller kinds, and the rescaled model still round-trips.
#[test]
fn rescaled_models_fit_and_agree() {
    for_each_seed("rescaled_models_fit_and_agree", 150, |seed| {
        let mut g = Gen::new(seed);
        let spec = random_spec(seed);
        for kind in [WeightKind::I8, WeightKind::I16, WeightKind::I32] {
            let mut s = spec.clone();
            s.rescale(kind);
            assert!(s.fits(kind), "rescale({kind:?}) does not fit");
            assert_eq!(s.weight_kind, kind);
            check_model(&s, &mut g);
        }
        if let Some(kind) = spec.smallest_integer_kind() {
            assert!(spec.fits(kind));
        }
    });
}

/// `stats` bounds what one evaluation does: nodes visited and multiply-accumulates.
#[test]
fn stats_bound_every_evaluation() {
    for_each_seed("stats_bound_every_evaluation", 300, |seed| {
        let mut g = Gen::new(seed);
        let spec = random_spec(seed);
        let st = spec.stats();
        assert_eq!(st.ltus, spec.units.len());
        for _ in 0..20 {
            let x = random_inputs(&mut g, &spec);
            let p = path(&spec, &x, &vec![true; spec.units.len()]);
            let macs: u64 =
                p.units.iter().map(|&u| (spec.units[u].rows.len() * spec.units[u].terms.len()) as u64).sum();
            assert!(macs <= st.max_macs, "path does {macs} MACs > stats.max_macs {}", st.max_macs);
            if let Structure::Tree(nodes) = &spec.structure {
                assert!(p.nodes.len() <= st.max_depth, "path {:?} deeper than {}", p.nodes, st.max_depth);
                assert_eq!(st.decision_nodes + st.leaves, nodes.len());
            }
        }
    });
}

/// Regression: `fits` checks each term's weight, but dense storage adds up repeated terms, so a
/// model that fits could fail to export (`WeightRange`). Export now stores such a unit sparse.
#[test]
fn repeated_terms_that_fit_export() {
    use ltu::model::{Feature, InputKind, InputSpec, Unit};
    let spec = ModelSpec {
        pipeline: None,
        n_classes: 2,
        weight_kind: WeightKind::I8,
        inputs: vec![InputSpec { kind: InputKind::Numeric { scale_exp: 0, offset: 0 }, missing: 0 }],
        features: vec![Feature::Greater { attr: 0, value: 0 }],
        units: vec![Unit { terms: vec![0, 0], rows: vec![vec![100, 100, -1]], classes: vec![0, 1] }],
        structure: Structure::Linear(0),
        names: None,
    };
    assert!(spec.fits(WeightKind::I8));
    check_model(&spec, &mut Gen::new(0));
}

//! `ModelSpec::to_bytes`: what the writer refuses rather than store wrongly.

use ltu::model::{ExportError, Host};
use ltu::model::{Feature, InputKind, InputSpec, ModelSpec, Names, Structure, Unit, WeightKind};

/// One numeric input, two classes, one binary unit, with names.
fn named(input: &str) -> ModelSpec {
    ModelSpec {
        pipeline: None,
        n_classes: 2,
        weight_kind: WeightKind::I16,
        inputs: vec![InputSpec { kind: InputKind::Numeric { scale_exp: 0, offset: 0 }, missing: 0 }],
        features: vec![Feature::Numeric { attr: 0, offset: 0, mul: 1, shift: 0, max_abs: 100 }],
        units: vec![Unit { terms: vec![0], rows: vec![vec![1, 0]], classes: vec![0, 1] }],
        structure: Structure::Linear(0),
        names: Some(Names {
            inputs: vec![input.into()],
            values: vec![vec![]],
            classes: vec!["no".into(), "yes".into()],
        }),
    }
}

/// Names are stored one per line: a name with a line break would come back as two names, so it
/// is an error (it used to become a space, and two columns could then share one name).
#[test]
fn a_name_with_a_line_break_is_refused_unless_stripped() {
    assert!(named("a b").to_bytes().is_ok());
    match named("a\nb").to_bytes() {
        Err(ExportError::NameLineBreak(name)) => assert_eq!(name, "a\nb"),
        other => panic!("expected NameLineBreak, got {other:?}"),
    }
    assert!(matches!(named("a\rb").to_bytes(), Err(ExportError::NameLineBreak(_))));
    assert!(named("a\nb").to_bytes_with(&Host { strip: true, meta: None }).is_ok());
}

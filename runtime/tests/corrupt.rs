//! One corrupted model per loader check, each asserting the exact [`Error`] variant, plus the
//! evaluation-time errors (postcard's `tests/loopback.rs` habit).
//!
//! Every vector starts from one valid tree model that uses every table, changes one thing and
//! re-encodes it, so the CRC is recomputed and the structural check behind it is what fires.
//! `every_error_variant_has_a_vector` reads `src/error.rs` and fails when a variant is added
//! without a vector here.

use std::collections::BTreeSet;
use std::sync::Mutex;

use ltu_runtime::format::{
    self, crc32, feature_kind, literal_op, node_kind, unit_flags, FeatureRec, HostInputRec, HostRepr,
    InputRec, ListEntryRec, LiteralRec, ModelRepr, NodeRec, PipelineRepr, ScaleRec, StructureRepr, UnitRec,
    WeightKind, WindowFeatureRec, CHECKSUM_LEN, HEADER_LEN,
};
use ltu_runtime::{Error, InputsRead, Model};

/// Variants some vector in this file produced (checked by `every_error_variant_has_a_vector`).
static SEEN: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());

fn seen(e: Error) -> Error {
    SEEN.lock().unwrap().insert(format!("{e:?}"));
    e
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    Tree,
    List,
    Linear,
}

/// Owned tables of a model, encoded with [`format::encode`].
#[derive(Clone)]
struct Builder {
    n_classes: u16,
    weight_kind: WeightKind,
    inputs: Vec<InputRec>,
    scales: Vec<ScaleRec>,
    features: Vec<FeatureRec>,
    literals: Vec<LiteralRec>,
    units: Vec<UnitRec>,
    term_features: Vec<u16>,
    weights: Vec<u8>,
    unit_classes: Vec<u16>,
    nodes: Vec<NodeRec>,
    children: Vec<u16>,
    entries: Vec<ListEntryRec>,
    default_class: u16,
    linear_unit: u16,
    shape: Shape,
    /// Host block: `None` leaves it out.
    host: Option<Vec<HostInputRec>>,
    names: Option<String>,
    meta: Option<String>,
    /// Sensor pipeline: channels, window, hop and one feature per input; `None` leaves it out.
    pipeline: Option<(u16, u16, u16, Vec<WindowFeatureRec>)>,
    /// Host block's channel scales (one per pipeline channel) and pipeline names.
    host_channels: Vec<u8>,
    channel_names: Option<String>,
    /// Raw table overrides (for lengths that are not a whole number of records).
    raw_inputs: Option<Vec<u8>>,
    raw_term_features: Option<Vec<u8>>,
    raw_nodes: Option<Vec<u8>>,
}

fn u16s(v: &[u16]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn recs<const N: usize, R>(v: &[R], f: impl Fn(&R) -> [u8; N]) -> Vec<u8> {
    v.iter().flat_map(f).collect()
}

impl Builder {
    /// A tree over a numeric input `x0` and a categorical input `x1` (3 values), 3 classes:
    ///
    /// ```text
    /// 0: x0 <= 10 ? 1 : 2
    /// 1: x1 == 0 -> 3, 1 -> 4, 2 -> 5, unknown -> 5
    /// 2: unit 0 (binary, dense over the standard features) <= 0 ? 3 : 4
    /// 3: class 0
    /// 4: unit 1 (machine, sparse over f1, f2; rows -> classes 1, 2)
    /// 5: class 1
    /// ```
    /// Standard features: s0 = clamp(x0 - 10, ±100) (the scale of x0), s1..s3 = [x1 == 0], [x1 == 1],
    /// [x1 == 2]. Feature table: f1 = [x1 == 2], f2 = [x0 > 5 and x1 != 0].
    fn tree() -> Builder {
        Builder {
            n_classes: 3,
            weight_kind: WeightKind::I8,
            inputs: vec![InputRec { n_values: 0 }, InputRec { n_values: 3 }],
            scales: vec![ScaleRec { offset: 10, mul: 1, max_abs: 100, shift: 0 }],
            features: vec![
                FeatureRec { kind: feature_kind::EQUALS, shift: 0, attr: 1, value: 2, mul: 0, max_abs: 0 },
                FeatureRec {
                    kind: feature_kind::CONJUNCTION,
                    shift: 0,
                    attr: 2,
                    value: 0,
                    mul: 0,
                    max_abs: 0,
                },
            ],
            literals: vec![
                LiteralRec { attr: 0, op: literal_op::GT, value: 5 },
                LiteralRec { attr: 1, op: literal_op::NE, value: 0 },
            ],
            units: vec![
                UnitRec { flags: 0, n_out: 1, n_terms: 4, term_start: 0, class_start: 0, weight_start: 0 },
                UnitRec {
                    flags: unit_flags::SPARSE,
                    n_out: 2,
                    n_terms: 2,
                    term_start: 0,
                    class_start: 2,
                    weight_start: 5,
                },
            ],
            term_features: vec![0, 1],
            // unit 0: 1*s0 + 0*s1 + 0*s2 + 0*s3 - 20; unit 1: row0 = 3*f1 + 1*f2 + 0,
            // row1 = -3*f1 + 1*f2 + 0.
            weights: [1i8, 0, 0, 0, -20, 3, 1, 0, -3, 1, 0].iter().map(|&w| w as u8).collect(),
            unit_classes: vec![2, 1, 1, 2],
            nodes: vec![
                // x0 <= 10: node 1, else node 3.
                NodeRec { head: 0, link: 3, value: 10 },
                // Categorical input 1: values 0, 1, 2 to nodes 4, 5, 2; unknown values to node 2.
                NodeRec { head: node_kind::CATEGORICAL, link: 1, value: NodeRec::categorical_value(0, 3) },
                NodeRec { head: node_kind::CLASS, link: 0, value: 1 },
                // Unit 0: score <= 0 to node 4, else node 5.
                NodeRec { head: node_kind::UNIT_SPLIT, link: 5, value: 0 },
                NodeRec { head: node_kind::CLASS, link: 0, value: 0 },
                NodeRec { head: node_kind::UNIT, link: 0, value: 1 },
            ],
            children: vec![4, 5, 2],
            entries: vec![ListEntryRec { unit: 0, class: 1 }],
            default_class: 0,
            linear_unit: 1,
            shape: Shape::Tree,
            host: Some(vec![
                HostInputRec { scale_exp: 1, missing: 10, offset: -25 },
                HostInputRec { scale_exp: 0, missing: 2, offset: 0 },
            ]),
            names: Some(["x0", "x1", "a", "b", "c", "zero", "one", "two"].join("\n")),
            meta: None,
            pipeline: None,
            host_channels: Vec::new(),
            channel_names: None,
            raw_inputs: None,
            raw_term_features: None,
            raw_nodes: None,
        }
    }

    fn with(mut self, f: impl FnOnce(&mut Builder)) -> Builder {
        f(&mut self);
        self
    }

    /// Leaves out every unit and what only units read (features, literals, terms, weights,
    /// unit classes): a tree of tests, once its unit nodes are replaced.
    fn clear_units(&mut self) {
        self.units.clear();
        self.weights.clear();
        self.unit_classes.clear();
        self.features.clear();
        self.literals.clear();
        self.term_features.clear();
    }

    fn bytes(&self) -> Vec<u8> {
        let inputs = self.raw_inputs.clone().unwrap_or_else(|| recs(&self.inputs, InputRec::to_bytes));
        let scales = recs(&self.scales, ScaleRec::to_bytes);
        let features = recs(&self.features, FeatureRec::to_bytes);
        let host_inputs = self.host.as_ref().map(|h| recs(h, HostInputRec::to_bytes));
        let host = host_inputs.as_deref().map(|inputs| {
            let repr = HostRepr {
                inputs,
                names: self.names.as_deref(),
                meta: self.meta.as_deref(),
                channels: &self.host_channels,
                channel_names: self.channel_names.as_deref(),
            };
            let mut buf = vec![0; 1 << 16];
            let n = repr.encode(&mut buf).expect("host block");
            buf.truncate(n);
            buf
        });
        let literals = recs(&self.literals, LiteralRec::to_bytes);
        let units = recs(&self.units, UnitRec::to_bytes);
        let term_features = self.raw_term_features.clone().unwrap_or_else(|| u16s(&self.term_features));
        let unit_classes = u16s(&self.unit_classes);
        let nodes = self.raw_nodes.clone().unwrap_or_else(|| recs(&self.nodes, NodeRec::to_bytes));
        let children = u16s(&self.children);
        let entries = recs(&self.entries, ListEntryRec::to_bytes);
        let window_features =
            self.pipeline.as_ref().map_or_else(Vec::new, |p| recs(&p.3, WindowFeatureRec::to_bytes));
        let structure = match self.shape {
            Shape::Tree => StructureRepr::Tree { nodes: &nodes, children: &children },
            Shape::List => StructureRepr::List { entries: &entries, default_class: self.default_class },
            Shape::Linear => StructureRepr::Linear { unit: self.linear_unit },
        };
        let repr = ModelRepr {
            n_classes: self.n_classes,
            weight_kind: self.weight_kind,
            inputs: &inputs,
            scales: &scales,
            features: &features,
            literals: &literals,
            units: &units,
            term_features: &term_features,
            weights: &self.weights,
            unit_classes: &unit_classes,
            structure,
            pipeline: self.pipeline.as_ref().map(|&(n_channels, window, hop, _)| PipelineRepr {
                n_channels,
                window,
                hop,
                features: &window_features,
            }),
            host: host.as_deref(),
        };
        let mut out = vec![0; 1 << 18];
        let len = format::encode(&repr, &mut out).expect("encode");
        out.truncate(len);
        out
    }
}

/// Recomputes the CRC trailer after editing bytes in place.
fn fix_crc(bytes: &mut [u8]) {
    let n = bytes.len() - CHECKSUM_LEN;
    let crc = crc32(&bytes[..n]);
    bytes[n..].copy_from_slice(&crc.to_le_bytes());
}

#[track_caller]
fn rejects(bytes: &[u8], expected: Error) {
    match Model::from_bytes(bytes) {
        Ok(_) => panic!("accepted a model that should fail with {expected:?}"),
        Err(e) => assert_eq!(seen(e), expected),
    }
}

#[track_caller]
fn rejects_model(b: Builder, expected: Error) {
    rejects(&b.bytes(), expected);
}

#[test]
fn base_model_is_valid_and_predicts_as_drawn() {
    let bytes = Builder::tree().bytes();
    let m = Model::from_bytes(&bytes).unwrap();
    assert_eq!((m.n_inputs(), m.n_classes(), m.n_features(), m.n_units()), (2, 3, 2, 2));
    assert_eq!(m.n_standard_features(), 4);
    #[cfg(feature = "host")]
    {
        assert_eq!(m.host_input(0), Some(HostInputRec { scale_exp: 1, missing: 10, offset: -25 }));
        assert_eq!((m.host_input(2), m.meta()), (None, None));
    }
    // Left subtree: categorical split.
    assert_eq!(m.predict(&[10i32, 0]).unwrap(), 0);
    assert_eq!(m.predict(&[10i32, 2]).unwrap(), 1);
    assert_eq!(m.predict(&[i32::MIN, 7]).unwrap(), 1, "unknown category takes the default child");
    assert_eq!(m.predict(&[0i32, -1]).unwrap(), 1, "negative category is unknown");
    // x0 = 1: f2 = -1 (x0 <= 5), f1 = -1 (x1 = 1): row0 = -4, row1 = 2 -> class 2.
    assert_eq!(m.predict(&[0i32, 1]).unwrap(), 2, "x1 = 1 goes to node 4 via the categorical split");
    // Right subtree: unit 0 = x0 - 10 - 20 clamped: x0 = 30 -> 0 -> left (class 0); 31 -> right.
    assert_eq!(m.predict(&[30i32, 0]).unwrap(), 0);
    // x0 = 31, x1 = 2: f1 = 1, f2 = 1: row0 = 4, row1 = -2 -> class 1.
    assert_eq!(m.predict(&[31i32, 2]).unwrap(), 1);
    // x0 = 31, x1 = 1: f1 = -1, f2 = 1: row0 = -2, row1 = 4 -> class 2.
    assert_eq!(m.predict(&[31i32, 1]).unwrap(), 2);
    // x0 = 31, x1 = 0: f1 = -1, f2 = -1: row0 = -4, row1 = 2 -> class 2.
    assert_eq!(m.predict(&[i32::MAX, 0]).unwrap(), 2);
    let mut scores = [0i64; 3];
    assert_eq!(m.predict_scores(&[31i32, 1], &mut scores).unwrap(), 2);
    assert_eq!(scores, [i64::MIN, -2, 4]);
    let mut read = InputsRead::<4>::new();
    assert_eq!(m.predict_with(read.track(|i| [5i32, 1].get(i).copied())).unwrap(), 2);
    assert_eq!(read.as_slice(), &[0, 1]);
}

#[test]
fn header_and_checksum() {
    let good = Builder::tree().bytes();
    rejects(&[], Error::HeaderTooShort);
    rejects(&good[..HEADER_LEN + CHECKSUM_LEN - 1], Error::HeaderTooShort);
    let mut b = good.clone();
    b[0] = b'l';
    rejects(&b, Error::HeaderBadMagic);
    // The version is checked before the checksum, and even with a matching checksum.
    // A version 4 file (12-byte nodes) is refused like any other version.
    assert_eq!(good[4..6], [5, 0], "version 5");
    for version in [1, 4] {
        let mut b = good.clone();
        b[4] = version;
        rejects(&b, Error::HeaderUnsupportedVersion);
        fix_crc(&mut b);
        rejects(&b, Error::HeaderUnsupportedVersion);
    }
    let mut b = good.clone();
    b[HEADER_LEN + 3] ^= 0x10;
    rejects(&b, Error::ChecksumMismatch);
    let mut b = good.clone();
    let n = b.len();
    b[n - 1] ^= 0x80;
    rejects(&b, Error::ChecksumMismatch);
    // A header plus checksum with an empty body: the checksum matches, postcard fails.
    let mut b = good[..HEADER_LEN].to_vec();
    b.extend_from_slice(&crc32(&b).to_le_bytes());
    rejects(&b, Error::BodyDecode);
}

#[test]
fn body_decode_and_trailing_bytes() {
    let good = Builder::tree().bytes();
    // Byte 6 is n_classes (varint 3), byte 7 the WeightKind tag: 4 is not a variant.
    assert_eq!(&good[HEADER_LEN..HEADER_LEN + 2], &[3, 0]);
    let mut b = good.clone();
    b[HEADER_LEN + 1] = 4;
    fix_crc(&mut b);
    rejects(&b, Error::BodyDecode);
    // A varint of n_classes that never ends (u16 takes at most 3 bytes).
    let mut b = good.clone();
    b[HEADER_LEN] = 0x83;
    b[HEADER_LEN + 1] = 0x80;
    b[HEADER_LEN + 2] = 0x80;
    fix_crc(&mut b);
    rejects(&b, Error::BodyDecode);
    // Body cut short by one byte, checksum recomputed.
    let mut b = good[..good.len() - CHECKSUM_LEN - 1].to_vec();
    b.extend_from_slice(&[0; 4]);
    fix_crc(&mut b);
    rejects(&b, Error::BodyDecode);
    // Names that are not UTF-8: the names text is followed by the metadata's `None` tag, the
    // empty channel table and the channel names' `None` tag.
    let mut b = good.clone();
    let last = b.len() - CHECKSUM_LEN - 4;
    assert_eq!(b[last], b'o', "body ends with the names text");
    b[last] = 0xFF;
    fix_crc(&mut b);
    rejects(&b, Error::BodyDecode);
    // Metadata that is not UTF-8.
    let mut b = Builder::tree().with(|b| b.meta = Some("algo=x".into())).bytes();
    let last = b.len() - CHECKSUM_LEN - 3;
    assert_eq!(b[last], b'x', "body ends with the metadata");
    b[last] = 0xC3;
    fix_crc(&mut b);
    rejects(&b, Error::BodyDecode);
    // Option tag 2 for the host block, the pipeline, the names, the metadata and the channel
    // names.
    for (edit, from_end) in [
        (Builder::tree().with(|b| b.host = None), 1),
        (Builder::tree().with(|b| b.host = None), 2),
        (Builder::tree().with(|b| b.names = None), 4),
        (Builder::tree(), 3),
        (Builder::tree(), 1),
    ] {
        let mut b2 = edit.bytes();
        let tag = b2.len() - CHECKSUM_LEN - from_end;
        assert_eq!(b2[tag], 0);
        b2[tag] = 2;
        fix_crc(&mut b2);
        rejects(&b2, Error::BodyDecode);
    }
    // One extra byte between body and checksum.
    let mut b = good[..good.len() - CHECKSUM_LEN].to_vec();
    b.push(0);
    b.extend_from_slice(&[0; 4]);
    fix_crc(&mut b);
    rejects(&b, Error::BodyTrailingBytes);
}

#[test]
fn table_length_and_limits() {
    rejects_model(Builder::tree().with(|b| b.raw_inputs = Some(vec![0; 15])), Error::TableLength);
    rejects_model(
        Builder::tree().with(|b| {
            b.host.as_mut().unwrap().pop();
        }),
        Error::HostInvalid,
    );
    rejects_model(Builder::tree().with(|b| b.raw_nodes = Some(vec![0; 13])), Error::TableLength);
    rejects_model(Builder::tree().with(|b| b.raw_term_features = Some(vec![1, 0, 2])), Error::TableLength);
    rejects_model(Builder::tree().with(|b| b.weight_kind = WeightKind::I16), Error::TableLength);
    rejects_model(
        Builder::tree().with(|b| {
            b.weight_kind = WeightKind::I16;
            b.weights.push(0);
        }),
        Error::UnitInvalid,
    );
    rejects_model(
        Builder::tree().with(|b| {
            b.weight_kind = WeightKind::I32;
            b.weights.truncate(8);
            b.weights.push(0);
        }),
        Error::TableLength,
    );
    // 65536 term entries: one more than any u16 index can reach.
    rejects_model(
        Builder::tree().with(|b| b.raw_term_features = Some(vec![0; 2 << 16])),
        Error::LimitExceeded,
    );
    // 65535 is still fine.
    let ok =
        Builder::tree().with(|b| b.term_features = [0, 1].repeat(65535 / 2).into_iter().chain([0]).collect());
    Model::from_bytes(&ok.bytes()).unwrap();
}

#[test]
fn inputs() {
    // One scale record per numeric input, no more, no less.
    rejects_model(Builder::tree().with(|b| b.inputs[0].n_values = 1), Error::InputInvalid);
    rejects_model(Builder::tree().with(|b| b.inputs[1].n_values = 0), Error::InputInvalid);
    rejects_model(Builder::tree().with(|b| b.scales.push(b.scales[0])), Error::InputInvalid);
    // No scales at all is fine for sparse units, not for a dense one.
    rejects_model(Builder::tree().with(|b| b.scales.clear()), Error::UnitInvalid);
    let sparse_only = Builder::tree().with(|b| {
        b.scales.clear();
        b.shape = Shape::Linear;
        b.linear_unit = 1;
        b.units[0] = b.units[1];
    });
    Model::from_bytes(&sparse_only.bytes()).unwrap();
    let scale = |f: fn(&mut ScaleRec)| Builder::tree().with(|b| f(&mut b.scales[0]));
    rejects_model(scale(|s| s.shift = 33), Error::FeatureInvalid);
    rejects_model(scale(|s| s.max_abs = 0), Error::FeatureInvalid);
    rejects_model(scale(|s| s.max_abs = 32768), Error::FeatureInvalid);
    let mut bytes = Builder::tree().bytes();
    let pad = find(&bytes, &Builder::tree().scales[0].to_bytes()) + 9;
    bytes[pad] = 1;
    fix_crc(&mut bytes);
    rejects(&bytes, Error::FeatureInvalid);
    // Extreme but valid scales load.
    Model::from_bytes(
        &scale(|s| (s.shift, s.mul, s.offset, s.max_abs) = (32, i16::MIN, i32::MIN, 1)).bytes(),
    )
    .unwrap();
    // The host block is for hosts: any scale_exp, missing value and offset loads.
    let host = Builder::tree().with(|b| {
        b.host.as_mut().unwrap()[0] = HostInputRec { scale_exp: -128, missing: i32::MIN, offset: i64::MIN }
    });
    Model::from_bytes(&host.bytes()).unwrap();
}

#[test]
fn features_and_literals() {
    let edit = |k: usize, f: fn(&mut FeatureRec)| Builder::tree().with(|b| f(&mut b.features[k]));
    let numeric =
        FeatureRec { kind: feature_kind::NUMERIC, shift: 0, attr: 0, value: 10, mul: 1, max_abs: 100 };
    let num = |f: fn(&mut FeatureRec)| {
        Builder::tree().with(|b| {
            b.features[0] = numeric;
            f(&mut b.features[0]);
        })
    };
    Model::from_bytes(&num(|_| ()).bytes()).unwrap();
    rejects_model(edit(0, |f| f.kind = 4), Error::FeatureInvalid);
    rejects_model(num(|f| f.shift = 33), Error::FeatureInvalid);
    rejects_model(num(|f| f.max_abs = 0), Error::FeatureInvalid);
    rejects_model(num(|f| f.max_abs = 32768), Error::FeatureInvalid);
    rejects_model(num(|f| f.attr = 2), Error::FeatureInvalid);
    rejects_model(edit(0, |f| f.attr = 2), Error::FeatureInvalid);
    rejects_model(edit(0, |f| f.mul = 1), Error::FeatureInvalid);
    rejects_model(edit(0, |f| f.shift = 1), Error::FeatureInvalid);
    rejects_model(edit(0, |f| f.max_abs = 1), Error::FeatureInvalid);
    Model::from_bytes(&edit(0, |f| f.kind = feature_kind::GREATER).bytes()).unwrap();
    rejects_model(edit(1, |f| f.attr = 0), Error::FeatureInvalid);
    rejects_model(edit(1, |f| f.attr = 3), Error::FeatureInvalid);
    rejects_model(edit(1, |f| f.value = 1), Error::FeatureInvalid);
    rejects_model(edit(1, |f| f.value = -1), Error::FeatureInvalid);
    rejects_model(edit(1, |f| f.mul = 1), Error::FeatureInvalid);
    // Extreme but valid numeric quantizations load.
    Model::from_bytes(&num(|f| (f.shift, f.mul, f.value, f.max_abs) = (32, i16::MIN, i32::MIN, 1)).bytes())
        .unwrap();

    let lit = |f: fn(&mut LiteralRec)| Builder::tree().with(|b| f(&mut b.literals[1]));
    rejects_model(lit(|l| l.op = literal_op::LE + 1), Error::LiteralInvalid);
    rejects_model(lit(|l| l.attr = 2), Error::LiteralInvalid);
    let mut bytes = Builder::tree().bytes();
    let pad = find(&bytes, &LiteralRec { attr: 1, op: literal_op::NE, value: 0 }.to_bytes()) + 3;
    bytes[pad] = 1;
    fix_crc(&mut bytes);
    rejects(&bytes, Error::LiteralInvalid);
}

/// Offset of the first occurrence of `needle` (the tests search for records they planted).
fn find(hay: &[u8], needle: &[u8]) -> usize {
    hay.windows(needle.len()).position(|w| w == needle).expect("record present")
}

#[test]
fn units() {
    let edit = |k: usize, f: fn(&mut UnitRec)| Builder::tree().with(|b| f(&mut b.units[k]));
    rejects_model(edit(0, |u| u.flags = 2), Error::UnitInvalid);
    rejects_model(edit(0, |u| u.n_out = 0), Error::UnitInvalid);
    rejects_model(edit(0, |u| u.n_terms = 3), Error::UnitInvalid);
    rejects_model(edit(0, |u| u.term_start = 1), Error::UnitInvalid);
    rejects_model(edit(0, |u| u.class_start = 3), Error::UnitInvalid);
    rejects_model(edit(0, |u| u.weight_start = 7), Error::UnitInvalid);
    rejects_model(edit(1, |u| u.term_start = 1), Error::UnitInvalid);
    rejects_model(edit(1, |u| u.n_terms = 3), Error::UnitInvalid);
    rejects_model(edit(1, |u| u.n_out = 3), Error::UnitInvalid);
    rejects_model(Builder::tree().with(|b| b.term_features[1] = 2), Error::UnitInvalid);
    // Regression: on 32-bit targets `weight_start + n_out * (n_terms + 1)` wrapped around and
    // passed the range check (then the bound check indexed out of bounds and panicked).
    rejects_model(edit(1, |u| u.weight_start = u32::MAX), Error::UnitInvalid);
    rejects_model(edit(1, |u| u.weight_start = u32::MAX - 5), Error::UnitInvalid);
    for pad in [1, 6, 7] {
        let mut bytes = Builder::tree().bytes();
        let at = find(&bytes, &Builder::tree().units[1].to_bytes()) + pad;
        bytes[at] = 1;
        fix_crc(&mut bytes);
        rejects(&bytes, Error::UnitInvalid);
    }
    rejects_model(
        Builder::tree().with(|b| {
            b.shape = Shape::Linear;
            b.linear_unit = 2;
        }),
        Error::UnitInvalid,
    );
    for u in 0..2 {
        Model::from_bytes(
            &Builder::tree()
                .with(|b| {
                    b.shape = Shape::Linear;
                    b.linear_unit = u;
                })
                .bytes(),
        )
        .unwrap();
    }
}

#[test]
fn classes() {
    rejects_model(Builder::tree().with(|b| b.n_classes = 0), Error::ClassOutOfRange);
    rejects_model(Builder::tree().with(|b| b.n_classes = 2), Error::ClassOutOfRange);
    rejects_model(Builder::tree().with(|b| b.unit_classes[0] = 3), Error::ClassOutOfRange);
    rejects_model(Builder::tree().with(|b| b.nodes[4].value = 3), Error::ClassOutOfRange);
    rejects_model(Builder::tree().with(|b| b.nodes[4].value = -1), Error::ClassOutOfRange);
    let list = Builder::tree().with(|b| b.shape = Shape::List);
    Model::from_bytes(&list.bytes()).unwrap();
    rejects_model(list.clone().with(|b| b.default_class = 3), Error::ClassOutOfRange);
    rejects_model(list.clone().with(|b| b.entries[0].class = 3), Error::ClassOutOfRange);
}

#[test]
fn nodes_and_links() {
    let edit = |k: usize, f: fn(&mut NodeRec)| Builder::tree().with(|b| f(&mut b.nodes[k]));
    rejects_model(Builder::tree().with(|b| b.nodes.clear()), Error::NodeInvalid);
    // Unknown kinds.
    rejects_model(edit(2, |n| n.head = 0x8005), Error::NodeInvalid);
    rejects_model(edit(2, |n| n.head = 0xFFFF), Error::NodeInvalid);
    // A JUMP with a value, or at the root.
    rejects_model(edit(0, |n| *n = NodeRec { head: node_kind::JUMP, link: 1, value: 0 }), Error::NodeInvalid);
    rejects_model(edit(2, |n| *n = NodeRec { head: node_kind::JUMP, link: 4, value: 1 }), Error::NodeInvalid);
    // A leaf with a link; a unit leaf's unit missing or negative.
    rejects_model(edit(2, |n| n.link = 4), Error::NodeInvalid);
    rejects_model(edit(5, |n| n.link = 1), Error::NodeInvalid);
    rejects_model(edit(5, |n| n.value = 2), Error::NodeInvalid);
    rejects_model(edit(5, |n| n.value = -1), Error::NodeInvalid);
    // A categorical split on a numeric or missing input, with a child count other than the
    // input's values, or with entries past the child table.
    rejects_model(edit(1, |n| n.link = 0), Error::NodeInvalid);
    rejects_model(edit(1, |n| n.link = 2), Error::NodeInvalid);
    rejects_model(edit(1, |n| n.value = NodeRec::categorical_value(0, 2)), Error::NodeInvalid);
    rejects_model(edit(1, |n| n.value = NodeRec::categorical_value(1, 3)), Error::NodeInvalid);
    // A threshold on a missing input; a unit split on a machine, a missing or a negative unit.
    rejects_model(edit(0, |n| n.head = 2), Error::NodeInvalid);
    rejects_model(edit(0, |n| n.head = 0x7FFF), Error::NodeInvalid);
    rejects_model(edit(3, |n| n.value = 1), Error::NodeInvalid);
    rejects_model(edit(3, |n| n.value = 2), Error::NodeInvalid);
    rejects_model(edit(3, |n| n.value = -1), Error::NodeInvalid);

    // Links backward, to the node itself, past the table; a split as the last node, whose
    // implicit next node does not exist.
    rejects_model(edit(0, |n| n.link = 0), Error::LinkNotForward);
    rejects_model(edit(3, |n| n.link = 3), Error::LinkNotForward);
    rejects_model(edit(3, |n| n.link = 6), Error::LinkNotForward);
    rejects_model(
        edit(2, |n| *n = NodeRec { head: node_kind::JUMP, link: 2, value: 0 }),
        Error::LinkNotForward,
    );
    rejects_model(
        edit(2, |n| *n = NodeRec { head: node_kind::JUMP, link: 6, value: 0 }),
        Error::LinkNotForward,
    );
    rejects_model(edit(5, |n| *n = NodeRec { head: 0, link: 0, value: 0 }), Error::LinkNotForward);
    rejects_model(
        edit(5, |n| *n = NodeRec { head: node_kind::UNIT_SPLIT, link: 0, value: 0 }),
        Error::LinkNotForward,
    );
    rejects_model(
        Builder::tree().with(|b| {
            b.nodes.truncate(2);
            b.nodes[0].link = 1;
            b.children = vec![1, 1, 1];
        }),
        Error::LinkNotForward,
    );
    rejects_model(Builder::tree().with(|b| b.children[0] = 0), Error::LinkNotForward);
    rejects_model(Builder::tree().with(|b| b.children[2] = 6), Error::LinkNotForward);
}

/// A tree over more inputs than a threshold node can test is rejected; at exactly as many, heads
/// from 0x8000 up are kinds, never inputs (x[32768] would send both leaves past the table).
#[test]
fn trees_test_at_most_32768_inputs_and_kinds_stay_kinds() {
    let tree = |n_inputs: usize| {
        Builder::tree().with(|b| {
            b.inputs = vec![InputRec { n_values: 2 }; n_inputs];
            b.scales.clear();
            b.clear_units();
            b.children.clear();
            (b.host, b.names) = (None, None);
            b.nodes = vec![
                NodeRec { head: 0, link: 2, value: 0 },
                NodeRec { head: node_kind::CLASS, link: 0, value: 1 },
                NodeRec { head: node_kind::CLASS, link: 0, value: 2 },
            ];
        })
    };
    rejects_model(tree(32_769), Error::LimitExceeded);
    let bytes = tree(32_768).bytes();
    let m = Model::from_bytes(&bytes).unwrap();
    let mut x = vec![0i32; 32_768];
    assert_eq!(m.predict(&x).unwrap(), 1);
    assert_eq!(m.predict_with(|i| x.get(i).copied()).unwrap(), 1);
    x[0] = 1;
    assert_eq!(m.predict(&x).unwrap(), 2);
}

#[test]
fn list_entries() {
    let list = Builder::tree().with(|b| b.shape = Shape::List);
    rejects_model(list.clone().with(|b| b.entries[0].unit = 1), Error::ListEntryInvalid);
    rejects_model(list.clone().with(|b| b.entries[0].unit = 2), Error::ListEntryInvalid);
    // An empty list always answers its default class.
    let empty = list.with(|b| (b.entries.clear(), b.default_class = 2).1).bytes();
    assert_eq!(Model::from_bytes(&empty).unwrap().predict(&[0i32, 0]).unwrap(), 2);
}

#[test]
fn accumulator_bound() {
    let i32s = |w: &[i32]| w.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>();
    let linear = |kind: WeightKind, weights: Vec<u8>, max_abs: u16| {
        Builder::tree().with(|b| {
            b.weight_kind = kind;
            b.weights = weights;
            b.scales[0].max_abs = max_abs;
            b.shape = Shape::Linear;
            b.linear_unit = 0;
            b.units.truncate(1);
        })
    };
    // |bias| alone: i32::MIN has no i32 negation.
    rejects_model(linear(WeightKind::I32, i32s(&[0, 0, 0, 0, i32::MIN]), 1), Error::AccumulatorMayOverflow);
    let ok = linear(WeightKind::I32, i32s(&[0, 0, 0, 0, i32::MIN + 1]), 1);
    assert_eq!(Model::from_bytes(&ok.bytes()).unwrap().predict(&[0i32, 0]).unwrap(), 2);
    // Exactly i32::MAX is accepted, one more is not.
    let edge = i32::MAX - 3 - 100 * 1000;
    let ok = linear(WeightKind::I32, i32s(&[1000, 1, 1, 1, edge]), 100);
    Model::from_bytes(&ok.bytes()).unwrap();
    rejects_model(
        linear(WeightKind::I32, i32s(&[1000, 1, 1, 1, edge + 1]), 100),
        Error::AccumulatorMayOverflow,
    );
    rejects_model(linear(WeightKind::I32, i32s(&[i32::MAX, 0, 0, 0, 0]), 2), Error::AccumulatorMayOverflow);
    // I16 weights: three numeric inputs at 32767 with weight 32767 overflow i32 (two do not).
    let i16s =
        |n: usize| -> Vec<u8> { (0..n).map(|_| i16::MAX).chain([0]).flat_map(|w| w.to_le_bytes()).collect() };
    let numeric = |n: usize| {
        move |b: &mut Builder| {
            b.inputs = vec![InputRec { n_values: 0 }; n];
            b.scales = vec![b.scales[0]; n];
            b.host = None;
            b.units[0].n_terms = n as u16;
        }
    };
    Model::from_bytes(&linear(WeightKind::I16, i16s(2), 32767).with(numeric(2)).bytes()).unwrap();
    rejects_model(linear(WeightKind::I16, i16s(3), 32767).with(numeric(3)), Error::AccumulatorMayOverflow);
    // The same weights as I16F16 bits accumulate in i64: accepted.
    let fixed = linear(WeightKind::Fixed, i32s(&[i32::MIN; 5]), 32767);
    let m_bytes = fixed.bytes();
    let m = Model::from_bytes(&m_bytes).unwrap();
    let mut scores = [0i64; 3];
    m.predict_scores(&[i32::MAX, 2], &mut scores).unwrap();
    // s0 = 32767, [x1 == 0] = [x1 == 1] = -1, [x1 == 2] = 1, bias.
    assert_eq!(scores[1], i64::from(i32::MIN) * (32767 - 1 - 1 + 1 + 1));
}

#[test]
#[cfg(feature = "host")]
fn names() {
    rejects_model(Builder::tree().with(|b| b.names = Some("x0\nx1".into())), Error::NamesInvalid);
    rejects_model(Builder::tree().with(|b| b.names.as_mut().unwrap().push('\n')), Error::NamesInvalid);
    let bytes = Builder::tree().bytes();
    let names = Model::from_bytes(&bytes).unwrap().names().unwrap();
    assert_eq!((names.input(1), names.value(1, 2), names.class(2), names.class(3)), ("x1", "c", "two", ""));
    // Empty names, first and last lines, multi-byte text: every line read back as written
    // (`Names` splits by a byte scan, not `str::split`).
    let text = "\nx1\nä\n\nc\nzero\none\nΔ two";
    let bytes = Builder::tree().with(|b| b.names = Some(text.into())).bytes();
    let model = Model::from_bytes(&bytes).unwrap();
    let names = model.names().unwrap();
    let lines: Vec<&str> = text.split('\n').collect();
    let got = [
        names.input(0),
        names.input(1),
        names.value(1, 0),
        names.value(1, 1),
        names.value(1, 2),
        names.class(0),
        names.class(1),
        names.class(2),
    ];
    assert_eq!(got.to_vec(), lines);
    assert_eq!((names.input(2), names.value(0, 0), names.value(1, 3), names.class(3)), ("", "", "", ""));
    // Metadata is any UTF-8 text; a model without a host block has neither names nor metadata.
    let bytes = Builder::tree().with(|b| b.meta = Some("algo=ptree\nseed=0".into())).bytes();
    assert_eq!(Model::from_bytes(&bytes).unwrap().meta(), Some("algo=ptree\nseed=0"));
    let bytes = Builder::tree().with(|b| b.host = None).bytes();
    let m = Model::from_bytes(&bytes).unwrap();
    assert!(m.names().is_none() && m.meta().is_none() && m.host_input(0).is_none());
}

#[test]
fn predict_errors() {
    let bytes = Builder::tree().bytes();
    let m = Model::from_bytes(&bytes).unwrap();
    assert_eq!(m.predict(&[1i32]).map_err(seen), Err(Error::PredictInputLength));
    assert_eq!(m.predict(&[1i32, 2, 3]).map_err(seen), Err(Error::PredictInputLength));
    let mut scores = [0i64; 3];
    assert_eq!(m.predict_scores(&[1i32], &mut scores).map_err(seen), Err(Error::PredictInputLength));
    assert_eq!(m.predict_scores(&[1i32, 2], &mut scores[..2]).map_err(seen), Err(Error::PredictScoresBuffer));
    assert_eq!(m.predict_with(|_| None::<i32>).map_err(seen), Err(Error::PredictInputUnavailable));
    // x0 > 10 goes right and never reads x1 when the unit says class 0... but unit 0 reads every
    // feature, and f1 reads x1: unavailable.
    assert_eq!(
        m.predict_with(|i| (i == 0).then_some(40i32)).map_err(seen),
        Err(Error::PredictInputUnavailable)
    );
    // x0 <= 10 then x1: both needed, both given.
    assert_eq!(m.predict_with(|i| [3i32, 0].get(i).copied()), Ok(0));
}

#[test]
fn encode_errors() {
    let b = Builder::tree();
    let good = b.bytes();
    let inputs: Vec<u8> = b.inputs.iter().flat_map(InputRec::to_bytes).collect();
    let scales: Vec<u8> = b.scales.iter().flat_map(ScaleRec::to_bytes).collect();
    let repr = ModelRepr {
        n_classes: 1,
        weight_kind: WeightKind::I8,
        inputs: &inputs,
        scales: &scales,
        features: &[],
        literals: &[],
        units: &[],
        term_features: &[],
        weights: &[],
        unit_classes: &[],
        structure: StructureRepr::Tree {
            nodes: &NodeRec { head: node_kind::CLASS, link: 0, value: 0 }.to_bytes(),
            children: &[],
        },
        pipeline: None,
        host: None,
    };
    let mut out = vec![0u8; good.len()];
    let n = format::encode(&repr, &mut out).unwrap();
    for short in [0, 9, HEADER_LEN + 3, n - 1] {
        assert_eq!(
            format::encode(&repr, &mut out[..short]).map_err(seen),
            Err(Error::EncodeBufferTooSmall),
            "{short}"
        );
    }
    let m = Model::from_bytes(&out[..n]).unwrap();
    assert_eq!(m.predict(&[i32::MIN, i32::MAX]), Ok(0));
}

/// Every single-bit flip, every truncation and every appended byte of the base model is rejected.
#[test]
fn every_bit_flip_truncation_and_extension_is_rejected() {
    for (name, bytes) in [
        ("tree", Builder::tree().bytes()),
        ("list", Builder::tree().with(|b| (b.shape = Shape::List, b.host = None).1).bytes()),
    ] {
        for bit in 0..bytes.len() * 8 {
            let mut b = bytes.clone();
            b[bit / 8] ^= 1 << (bit % 8);
            let e = Model::from_bytes(&b).expect_err(&format!("{name}: flip of bit {bit} accepted"));
            let expected = match bit / 8 {
                0..4 => Error::HeaderBadMagic,
                4..6 => Error::HeaderUnsupportedVersion,
                _ => Error::ChecksumMismatch,
            };
            assert_eq!(e, expected, "{name}: bit {bit}");
        }
        for len in 0..bytes.len() {
            assert!(Model::from_bytes(&bytes[..len]).is_err(), "{name}: truncation to {len} accepted");
        }
        for extra in 0..=255u8 {
            let mut b = bytes.clone();
            b.push(extra);
            assert!(Model::from_bytes(&b).is_err(), "{name}: trailing byte {extra} accepted");
        }
    }
}

/// A build that leaves out a kind of model (cargo features `tree`, `list`, `sparse`, `i8`, `i16`,
/// `i32`, `fixed`) rejects it before anything else; with the defaults every kind loads. CI runs
/// this test without default features and with a few single features.
impl Builder {
    /// A tree over two window statistics of a 2-channel pipeline: `ch0_mean > 10` decides class
    /// 1, else `ch1_max > 0` class 2, else class 0. Every input numeric, no unit.
    fn pipeline() -> Builder {
        let feature =
            |channel, stat, segments, segment| WindowFeatureRec { channel, stat, segments, segment };
        Builder {
            n_classes: 3,
            inputs: vec![InputRec { n_values: 0 }, InputRec { n_values: 0 }],
            scales: Vec::new(),
            features: Vec::new(),
            literals: Vec::new(),
            units: Vec::new(),
            term_features: Vec::new(),
            weights: Vec::new(),
            unit_classes: Vec::new(),
            nodes: vec![
                // x0 <= 10: node 1, else class 1; x1 <= 0: class 0, else class 2.
                NodeRec { head: 0, link: 4, value: 10 },
                NodeRec { head: 1, link: 3, value: 0 },
                NodeRec { head: node_kind::CLASS, link: 0, value: 0 },
                NodeRec { head: node_kind::CLASS, link: 0, value: 2 },
                NodeRec { head: node_kind::CLASS, link: 0, value: 1 },
            ],
            children: Vec::new(),
            host: Some(vec![HostInputRec { scale_exp: 0, missing: 0, offset: 0 }; 2]),
            names: Some(["ch0_mean", "ch1_max_s1of2", "zero", "one", "two"].join("\n")),
            pipeline: Some((2, 8, 4, vec![feature(0, 0, 1, 0), feature(1, 4, 2, 1)])),
            host_channels: vec![0, 2],
            channel_names: Some(["", "ax", "ay"].join("\n")),
            ..Builder::tree()
        }
    }
}

/// Without the `pipeline` feature a model with a pipeline is refused.
#[test]
#[cfg(not(feature = "pipeline"))]
fn pipeline_unsupported_without_the_feature() {
    rejects_model(Builder::pipeline(), Error::Unsupported);
}

#[test]
#[cfg(feature = "pipeline")]
fn pipeline() {
    let good = Builder::pipeline();
    if !cfg!(feature = "tree") {
        rejects_model(good, Error::Unsupported);
        return;
    }
    let bytes = good.bytes();
    let m = Model::from_bytes(&bytes).expect("valid pipeline model");
    assert_eq!(m.features_needed().collect::<Vec<_>>(), ["tree", "pipeline"]);
    let p = m.pipeline().unwrap();
    assert_eq!((p.n_channels(), p.window(), p.hop()), (2, 8, 4));
    assert_eq!(p.feature(1).unwrap().to_string(), "ch1_max_s1of2");
    assert!(p.feature(2).is_none());
    // ch0 mean 20 > 10: class 1, and ch1 is never read (an empty slice is fine).
    assert_eq!(m.predict_window(&[&[20i16; 8], &[]]), Ok(1));
    // ch0 mean 0; ch1's second half has max 5 > 0: class 2; max 0: class 0.
    assert_eq!(m.predict_window(&[&[0i16; 8], &[9, 9, 9, 9, -1, 5, 0, 0]]), Ok(2));
    assert_eq!(m.predict_window(&[&[0i16; 8], &[9, 9, 9, 9, -1, 0, 0, 0]]), Ok(0));
    // The same as computing the features and predicting.
    let mut out = [0i32; 2];
    let window: [&[i16]; 2] = [&[3, 4, 5, 6, 7, 8, 9, 10], &[-3, -2, -1, 0, 1, 2, 3, 4]];
    let features = [p.feature(0).unwrap(), p.feature(1).unwrap()];
    ltu_runtime::window::compute_into(&features, &window, &mut out).unwrap();
    assert_eq!(m.predict_window(&window), m.predict(&out));
    // Windows that do not fit.
    assert_eq!(m.predict_window(&[&[0i16; 8]]).map_err(seen), Err(Error::PredictWindow));
    assert_eq!(m.predict_window(&[&[], &[1i16]]), Err(Error::PredictWindow));
    assert_eq!(m.predict_window(&[&[0i16; 8], &[0i16; 5000]]), Err(Error::PredictWindow));
    let plain = Builder::tree().bytes();
    assert_eq!(Model::from_bytes(&plain).unwrap().predict_window(&[&[1i16]]), Err(Error::PredictWindow));

    let bad = |f: fn(&mut Builder)| rejects_model(Builder::pipeline().with(f), Error::PipelineInvalid);
    bad(|b| b.pipeline.as_mut().unwrap().0 = 0);
    bad(|b| b.pipeline.as_mut().unwrap().0 = 256);
    bad(|b| b.pipeline.as_mut().unwrap().1 = 4097);
    bad(|b| b.pipeline.as_mut().unwrap().2 = 0);
    bad(|b| b.pipeline.as_mut().unwrap().3.truncate(1));
    bad(|b| b.pipeline.as_mut().unwrap().3[1].channel = 2);
    bad(|b| b.pipeline.as_mut().unwrap().3[1].stat = 200);
    bad(|b| b.pipeline.as_mut().unwrap().3[1].segments = 0);
    bad(|b| b.pipeline.as_mut().unwrap().3[1].segments = 17);
    bad(|b| b.pipeline.as_mut().unwrap().3[1].segment = 2);
    bad(|b| {
        b.inputs[1] = InputRec { n_values: 2 };
        b.names = Some(["ch0_mean", "ch1_max_s1of2", "a", "b", "zero", "one", "two"].join("\n"));
    });
    // The whole recording as one window needs no hop.
    Model::from_bytes(
        &Builder::pipeline()
            .with(|b| (b.pipeline.as_mut().unwrap().1, b.pipeline.as_mut().unwrap().2) = (0, 0))
            .bytes(),
    )
    .unwrap();
    // The host block: one scale per channel, and the recording column plus one name per channel.
    rejects_model(Builder::pipeline().with(|b| b.host_channels.pop().map(drop).unwrap()), Error::HostInvalid);
    rejects_model(Builder::tree().with(|b| b.host_channels = vec![0]), Error::HostInvalid);
    rejects_model(Builder::pipeline().with(|b| b.channel_names = Some("\nax".into())), Error::NamesInvalid);
    rejects_model(Builder::tree().with(|b| b.channel_names = Some("\nax".into())), Error::NamesInvalid);
}

#[test]
fn unsupported() {
    let check = |b: &Builder, enabled: bool| {
        let bytes = b.bytes();
        if enabled {
            assert!(Model::from_bytes(&bytes).is_ok());
        } else {
            rejects(&bytes, Error::Unsupported);
        }
    };
    // `Builder::tree` has i8 weights and a sparse unit.
    let base = cfg!(feature = "i8") && cfg!(feature = "sparse");
    for (shape, enabled) in
        [(Shape::Tree, cfg!(feature = "tree")), (Shape::List, cfg!(feature = "list")), (Shape::Linear, true)]
    {
        check(&Builder::tree().with(|b| b.shape = shape), base && enabled);
    }
    // One dense unit of each weight kind: the kind's feature is all it needs.
    for (kind, enabled) in [
        (WeightKind::I8, cfg!(feature = "i8")),
        (WeightKind::I16, cfg!(feature = "i16")),
        (WeightKind::I32, cfg!(feature = "i32")),
        (WeightKind::Fixed, cfg!(feature = "fixed")),
    ] {
        let dense = Builder::tree().with(|b| {
            b.weight_kind = kind;
            b.weights = [1i8, 0, 0, 0, -20]
                .iter()
                .flat_map(|&w| i32::from(w).to_le_bytes()[..kind.width()].to_vec())
                .collect();
            b.units.truncate(1);
            b.features.clear();
            b.literals.clear();
            b.term_features.clear();
            (b.shape, b.linear_unit) = (Shape::Linear, 0);
        });
        check(&dense, enabled);
        if enabled {
            let bytes = dense.bytes();
            let model = Model::from_bytes(&bytes).unwrap();
            // 1 * (x0 - 10) - 20 > 0 (for Fixed, 1 and -20 are raw I16F16 bits: the same sign).
            assert_eq!(model.predict(&[31i32, 0]).unwrap(), 1);
            assert_eq!(model.predict(&[30i32, 0]).unwrap(), 2);
        }
    }
    // A tree of tests (no unit, so no weight) needs `tree` alone, whatever its weight kind says:
    // nodes 3 and 5 become class leaves.
    for kind in [WeightKind::I8, WeightKind::I16, WeightKind::I32, WeightKind::Fixed] {
        let tests = Builder::tree().with(|b| {
            b.weight_kind = kind;
            b.nodes[3] = NodeRec { head: node_kind::CLASS, link: 0, value: 2 };
            b.nodes[5] = NodeRec { head: node_kind::CLASS, link: 0, value: 2 };
            b.clear_units();
        });
        check(&tests, cfg!(feature = "tree"));
        if cfg!(feature = "tree") {
            let bytes = tests.bytes();
            let model = Model::from_bytes(&bytes).unwrap();
            assert_eq!(model.features_needed().collect::<Vec<_>>(), ["tree"]);
            // x0 <= 10 then x1: 0 -> class 0 (node 3), 1 -> class 2 (node 4), 2 or unknown -> 1.
            assert_eq!(model.predict(&[10i32, 0]).unwrap(), 0);
            assert_eq!(model.predict(&[10i32, 1]).unwrap(), 2);
            assert_eq!(model.predict(&[10i32, 7]).unwrap(), 1);
            assert_eq!(model.predict(&[11i32, 0]).unwrap(), 2);
        }
    }
    // Without `sparse`, a feature table (even unused) is not accepted either.
    let unused_features = Builder::tree().with(|b| {
        b.units.truncate(1);
        (b.shape, b.linear_unit) = (Shape::Linear, 0);
    });
    check(&unused_features, cfg!(feature = "i8") && cfg!(feature = "sparse"));
}

#[test]
fn zzz_every_error_variant_has_a_vector() {
    // Runs after (or alongside) the others; make sure they have all run by calling them here.
    header_and_checksum();
    body_decode_and_trailing_bytes();
    table_length_and_limits();
    inputs();
    features_and_literals();
    units();
    classes();
    nodes_and_links();
    list_entries();
    accumulator_bound();
    #[cfg(feature = "host")]
    names();
    predict_errors();
    encode_errors();
    let src = include_str!("../src/error.rs");
    let body = &src[src.find("pub enum Error {").expect("enum Error")..];
    let body = &body[..body.find("\n}").unwrap()];
    let variants: BTreeSet<String> = body
        .lines()
        .map(str::trim)
        .filter(|l| !l.starts_with("//") && !l.starts_with("pub enum") && l.ends_with(','))
        .map(|l| l.trim_end_matches(',').to_string())
        .collect();
    assert!(variants.len() >= 20, "parsed {variants:?}");
    unsupported();
    let mut seen = SEEN.lock().unwrap().clone();
    if cfg!(all(
        feature = "tree",
        feature = "list",
        feature = "sparse",
        feature = "i8",
        feature = "i16",
        feature = "i32",
        feature = "fixed"
    )) {
        // Only a build that leaves something out produces it (`unsupported` checks that such a
        // build rejects exactly those models; CI runs it so).
        seen.insert("Unsupported".to_string());
    }
    // The learner's errors are about the caller's label and RAM, not the model file: no
    // corrupted file produces them. tests/tests/learn.rs checks each.
    seen.extend(["LearnLabelOutOfRange".to_string(), "LearnRamTooSmall".to_string()]);
    let missing: Vec<_> = variants.difference(&seen).collect();
    assert!(
        missing.is_empty(),
        "Error variants without a corrupted vector in runtime/tests/corrupt.rs: {missing:?}"
    );
}

//! The byte codec between the trainer's model description ([`crate::model`]) and the runtime's file
//! format (`ltu_runtime::format`, specified in `docs/FORMAT.md`): [`ModelSpec::to_bytes`] writes
//! the file the runtime loads and checks that the runtime accepts it, [`ModelSpec::from_model`]
//! reads a loaded model back.

use ltu_runtime::format::{
    self, feature_kind, literal_op, node_kind, unit_flags, FeatureRec, HostInputRec, HostRepr, InputRec,
    ListEntryRec, LiteralRec, ModelRepr, NodeRec, ScaleRec, StructureRepr, UnitRec,
};

use super::ir::*;
use super::quantize::weight_range;

/// Why a [`ModelSpec`] could not be encoded.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ExportError {
    /// A weight does not fit the chosen weight kind.
    #[error("unit {unit}: weight {value} does not fit {kind:?} (rescale the model first)")]
    WeightRange {
        /// Unit index.
        unit: usize,
        /// The offending stored value.
        value: i64,
        /// Target kind.
        kind: WeightKind,
    },
    /// A table would exceed the format's limits.
    #[error("model too large for the format: {0}")]
    TooLarge(&'static str),
    /// A name (input, categorical value or class) has a line break: the host block stores one
    /// name per line.
    #[error("the name {0:?} has a line break: a model file stores one name per line")]
    NameLineBreak(String),
    /// The runtime rejected the encoded model (a bug in the trainer, reported rather than hidden).
    #[error("the runtime rejected the exported model: {0}")]
    Rejected(ltu_runtime::Error),
}

impl ModelSpec {
    /// Encodes the model in the runtime's file format, with a host block (input scales and
    /// missing-value substitutes, and the names if the model has them) and no metadata, and checks
    /// that the runtime accepts it. See [`ModelSpec::to_bytes_with`].
    ///
    /// # Errors
    /// [`ExportError`] if a weight does not fit, a table is too large, or the runtime rejects it.
    pub fn to_bytes(&self) -> Result<Vec<u8>, ExportError> {
        self.to_bytes_with(&Host::default())
    }

    /// Encodes the model with the host block `host` asks for, and checks that the runtime accepts
    /// it.
    ///
    /// A unit whose terms are all standard features (the numeric input's scaled value with the
    /// model's one scale for that input, or `+-1` for a value of a categorical input; see
    /// `ltu_runtime::format::ModelRepr`) is stored dense when that is no larger than listing its
    /// non-zero terms; otherwise sparse, through records of the feature table, dropping zero
    /// weights.
    ///
    /// # Errors
    /// [`ExportError`] if a weight does not fit, a table is too large, or the runtime rejects it.
    pub fn to_bytes_with(&self, host: &Host) -> Result<Vec<u8>, ExportError> {
        let kind = self.weight_kind;
        let (lo, hi) = weight_range(kind);
        let small = |n: usize, what: &'static str| u16::try_from(n).map_err(|_| ExportError::TooLarge(what));

        // Standard features: numeric input `a` reads the first numeric feature of `a` in the
        // model's feature list (its scale); a categorical input one `+-1` feature per value.
        let mut inputs = Vec::new();
        let mut std_start = Vec::with_capacity(self.inputs.len());
        let mut n_standard = 0usize;
        for inp in &self.inputs {
            let n_values = match inp.kind {
                InputKind::Numeric { .. } => 0,
                InputKind::Categorical { n_values } => n_values,
            };
            inputs.extend_from_slice(&InputRec { n_values }.to_bytes());
            std_start.push(n_standard);
            n_standard += usize::from(n_values.max(1));
        }
        let mut scale_of: Vec<Option<&Feature>> = vec![None; self.inputs.len()];
        for f in &self.features {
            if let Feature::Numeric { attr, .. } = f {
                if matches!(self.inputs.get(*attr).map(|i| i.kind), Some(InputKind::Numeric { .. })) {
                    scale_of[*attr].get_or_insert(f);
                }
            }
        }
        let mut scales = Vec::new();
        for (a, inp) in self.inputs.iter().enumerate() {
            if let InputKind::Numeric { .. } = inp.kind {
                let rec = match scale_of[a] {
                    Some(Feature::Numeric { offset, mul, shift, max_abs, .. }) => {
                        ScaleRec { offset: *offset, mul: *mul, max_abs: *max_abs, shift: *shift }
                    }
                    // No unit reads this input's scaled value: any valid scale.
                    _ => ScaleRec { offset: 0, mul: 0, max_abs: 1, shift: 0 },
                };
                scales.extend_from_slice(&rec.to_bytes());
            }
        }
        // The standard feature each model feature is, if it is one.
        let standard: Vec<Option<usize>> = self
            .features
            .iter()
            .map(|f| match f {
                Feature::Numeric { attr, .. } => (scale_of[*attr] == Some(f)).then(|| std_start[*attr]),
                Feature::Equals { attr, value } => match self.inputs.get(*attr)?.kind {
                    InputKind::Categorical { n_values } if (0..i32::from(n_values)).contains(value) => {
                        Some(std_start[*attr] + *value as usize)
                    }
                    _ => None,
                },
                _ => None,
            })
            .collect();

        // The feature table holds the features sparse units read, each once, in order of use.
        let (mut features, mut literals) = (Vec::new(), Vec::new());
        let mut table_index: Vec<Option<u16>> = vec![None; self.features.len()];
        let table = |f: usize,
                     table_index: &mut Vec<Option<u16>>,
                     features: &mut Vec<u8>,
                     literals: &mut Vec<u8>|
         -> Result<u16, ExportError> {
            if let Some(i) = table_index[f] {
                return Ok(i);
            }
            let i = small(features.len() / FeatureRec::SIZE, "features")?;
            features.extend_from_slice(&feature_rec(&self.features[f], literals)?.to_bytes());
            table_index[f] = Some(i);
            Ok(i)
        };

        let (mut units, mut term_features, mut weights, mut unit_classes) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut n_weights = 0usize;
        let mut any_dense = false;
        for (ui, u) in self.units.iter().enumerate() {
            let n_out = u.rows.len();
            // Terms kept in sparse form: those with a non-zero weight in some row.
            let live: Vec<usize> = (0..u.terms.len()).filter(|&j| u.rows.iter().any(|r| r[j] != 0)).collect();
            let new_records = live.iter().filter(|&&j| table_index[u.terms[j]].is_none()).count();
            let sparse_bytes =
                live.len() * 2 + n_out * live.len() * kind.width() + new_records * FeatureRec::SIZE;
            // The first dense unit also brings the scale table.
            let dense_bytes = n_out * n_standard * kind.width() + if any_dense { 0 } else { scales.len() };
            // Dense storage adds up the weights of repeated terms; that sum may not fit `kind`
            // even when every term does (`fits` checks terms), so then store the unit sparse.
            let merged = |row: &Vec<i64>| {
                let mut d = vec![0i64; n_standard + 1];
                for &j in &live {
                    d[standard[u.terms[j]].unwrap_or(0)] += row[j];
                }
                d[n_standard] = row[u.terms.len()];
                d
            };
            let dense = live.iter().all(|&j| standard[u.terms[j]].is_some())
                && dense_bytes <= sparse_bytes
                && u.rows.iter().all(|r| merged(r).iter().all(|w| (lo..=hi).contains(w)));
            let mut stored_rows = Vec::new();
            if dense {
                any_dense = true;
                stored_rows.extend(u.rows.iter().map(merged));
                units.extend_from_slice(
                    &UnitRec {
                        flags: 0,
                        n_out: small(n_out, "unit rows")?,
                        n_terms: small(n_standard, "features")?,
                        term_start: 0,
                        class_start: small(unit_classes.len() / 2, "class table")?,
                        weight_start: n_weights as u32,
                    }
                    .to_bytes(),
                );
            } else {
                let start = term_features.len() / 2;
                for &j in &live {
                    let t = table(u.terms[j], &mut table_index, &mut features, &mut literals)?;
                    term_features.extend_from_slice(&t.to_le_bytes());
                }
                for row in &u.rows {
                    stored_rows
                        .push(live.iter().map(|&j| row[j]).chain([row[u.terms.len()]]).collect::<Vec<_>>());
                }
                units.extend_from_slice(
                    &UnitRec {
                        flags: unit_flags::SPARSE,
                        n_out: small(n_out, "unit rows")?,
                        n_terms: small(live.len(), "unit terms")?,
                        term_start: small(start, "term table")?,
                        class_start: small(unit_classes.len() / 2, "class table")?,
                        weight_start: n_weights as u32,
                    }
                    .to_bytes(),
                );
            }
            for row in stored_rows {
                for w in row {
                    if !(lo..=hi).contains(&w) {
                        return Err(ExportError::WeightRange { unit: ui, value: w, kind });
                    }
                    match kind {
                        WeightKind::I8 => weights.push(w as i8 as u8),
                        WeightKind::I16 => weights.extend_from_slice(&(w as i16).to_le_bytes()),
                        WeightKind::I32 | WeightKind::Fixed => {
                            weights.extend_from_slice(&(w as i32).to_le_bytes())
                        }
                    }
                    n_weights += 1;
                }
            }
            let classes: Vec<usize> = if n_out == 1 { u.classes[..2].to_vec() } else { u.classes.clone() };
            for c in classes {
                unit_classes.extend_from_slice(&small(c, "classes")?.to_le_bytes());
            }
        }
        if n_weights > u32::MAX as usize {
            return Err(ExportError::TooLarge("weights"));
        }
        // The scales serve dense units only.
        if !any_dense {
            scales.clear();
        }

        let (mut nodes, mut children, mut entries) = (Vec::new(), Vec::new(), Vec::new());
        let structure = match &self.structure {
            Structure::Linear(u) => StructureRepr::Linear { unit: small(*u, "units")? },
            Structure::List { entries: list, default } => {
                for &(u, c) in list {
                    entries.extend_from_slice(
                        &ListEntryRec { unit: small(u, "units")?, class: small(c, "classes")? }.to_bytes(),
                    );
                }
                StructureRepr::List { entries: &entries, default_class: small(*default, "classes")? }
            }
            Structure::Tree(tree) => {
                small(tree.len(), "nodes")?;
                for n in tree {
                    let rec = match n {
                        Node::Class(c) => {
                            NodeRec { kind: node_kind::CLASS, a: small(*c, "classes")?, value: 0, b: 0, c: 0 }
                        }
                        Node::Unit(u) => {
                            NodeRec { kind: node_kind::UNIT, a: small(*u, "units")?, value: 0, b: 0, c: 0 }
                        }
                        Node::Categorical { attr, children: kids, default } => {
                            let first = children.len() / 2;
                            for &k in kids {
                                children.extend_from_slice(&small(k, "nodes")?.to_le_bytes());
                            }
                            NodeRec {
                                kind: node_kind::CATEGORICAL,
                                a: small(*attr, "inputs")?,
                                value: i32::from(small(first, "child table")?),
                                b: small(*default, "nodes")?,
                                c: small(kids.len(), "children")?,
                            }
                        }
                        Node::Threshold { attr, threshold, left, right } => NodeRec {
                            kind: node_kind::THRESHOLD,
                            a: small(*attr, "inputs")?,
                            value: *threshold,
                            b: small(*left, "nodes")?,
                            c: small(*right, "nodes")?,
                        },
                        Node::UnitSplit { unit, left, right } => NodeRec {
                            kind: node_kind::UNIT_SPLIT,
                            a: small(*unit, "units")?,
                            value: 0,
                            b: small(*left, "nodes")?,
                            c: small(*right, "nodes")?,
                        },
                    };
                    nodes.extend_from_slice(&rec.to_bytes());
                }
                StructureRepr::Tree { nodes: &nodes, children: &children }
            }
        };

        let names_text = match self.names.as_ref().filter(|_| !host.strip) {
            None => None,
            Some(n) => {
                let mut lines: Vec<&str> = n.inputs.iter().map(String::as_str).collect();
                for v in &n.values {
                    lines.extend(v.iter().map(String::as_str));
                }
                lines.extend(n.classes.iter().map(String::as_str));
                // One name per line: a line break inside a name would make it two names.
                if let Some(bad) = lines.iter().find(|l| l.contains(['\n', '\r'])) {
                    return Err(ExportError::NameLineBreak((*bad).to_string()));
                }
                Some(lines.join("\n"))
            }
        };
        let mut host_inputs = Vec::new();
        for inp in &self.inputs {
            let scale_exp = match inp.kind {
                InputKind::Numeric { scale_exp } => scale_exp,
                InputKind::Categorical { .. } => 0,
            };
            host_inputs.extend_from_slice(&HostInputRec { scale_exp, missing: inp.missing }.to_bytes());
        }
        let host_repr =
            HostRepr { inputs: &host_inputs, names: names_text.as_deref(), meta: host.meta.as_deref() };
        let mut host_bytes = vec![
            0u8;
            16 + host_inputs.len()
                + names_text.as_ref().map_or(0, String::len)
                + host.meta.as_ref().map_or(0, String::len)
        ];
        let n = host_repr.encode(&mut host_bytes).map_err(ExportError::Rejected)?;
        host_bytes.truncate(n);
        let repr = ModelRepr {
            n_classes: small(self.n_classes, "classes")?,
            weight_kind: kind,
            inputs: &inputs,
            scales: &scales,
            features: &features,
            literals: &literals,
            units: &units,
            term_features: &term_features,
            weights: &weights,
            unit_classes: &unit_classes,
            structure,
            host: (!host.strip).then_some(&host_bytes[..]),
        };
        let cap = 64
            + inputs.len()
            + scales.len()
            + features.len()
            + literals.len()
            + units.len()
            + term_features.len()
            + weights.len()
            + unit_classes.len()
            + nodes.len()
            + children.len()
            + entries.len()
            + host_bytes.len();
        let mut out = vec![0u8; cap];
        let len = format::encode(&repr, &mut out).map_err(ExportError::Rejected)?;
        out.truncate(len);
        ltu_runtime::Model::from_bytes(&out).map_err(ExportError::Rejected)?;
        Ok(out)
    }
}

/// What the host block of an encoded model holds (see [`ModelSpec::to_bytes_with`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Host {
    /// Leave the host block out: the file holds only what the evaluator needs. Hosts then know
    /// neither the inputs' decimal scales nor their missing-value substitutes nor any names.
    pub strip: bool,
    /// Metadata text (`key=value` lines) to store.
    pub meta: Option<String>,
}

/// The feature table record of `f`, appending a conjunction's literals to `literals`.
fn feature_rec(f: &Feature, literals: &mut Vec<u8>) -> Result<FeatureRec, ExportError> {
    let small = |n: usize, what: &'static str| u16::try_from(n).map_err(|_| ExportError::TooLarge(what));
    Ok(match f {
        Feature::Numeric { attr, offset, mul, shift, max_abs } => FeatureRec {
            kind: feature_kind::NUMERIC,
            shift: *shift,
            attr: small(*attr, "inputs")?,
            value: *offset,
            mul: *mul,
            max_abs: *max_abs,
        },
        Feature::Equals { attr, value } | Feature::Greater { attr, value } => FeatureRec {
            kind: if matches!(f, Feature::Equals { .. }) {
                feature_kind::EQUALS
            } else {
                feature_kind::GREATER
            },
            shift: 0,
            attr: small(*attr, "inputs")?,
            value: *value,
            mul: 0,
            max_abs: 0,
        },
        Feature::Conjunction(lits) => {
            let first = literals.len() / LiteralRec::SIZE;
            for l in lits {
                let op = match l.op {
                    LiteralOp::Eq => literal_op::EQ,
                    LiteralOp::Ne => literal_op::NE,
                    LiteralOp::Gt => literal_op::GT,
                    LiteralOp::Le => literal_op::LE,
                };
                literals.extend_from_slice(
                    &LiteralRec { attr: small(l.attr, "inputs")?, op, value: l.value }.to_bytes(),
                );
            }
            FeatureRec {
                kind: feature_kind::CONJUNCTION,
                shift: 0,
                attr: small(lits.len(), "literals")?,
                value: i32::from(small(first, "literals")?),
                mul: 0,
                max_abs: 0,
            }
        }
    })
}

impl ModelSpec {
    /// Rebuilds the owned description of a model the runtime accepted (the inverse of
    /// [`ModelSpec::to_bytes`], up to dense/sparse storage choices and dropped zero weights).
    pub fn from_model(model: &ltu_runtime::Model<'_>) -> ModelSpec {
        use ltu_runtime::format::u16_table;
        let repr = model.repr();
        let kind = repr.weight_kind;
        let inputs: Vec<InputSpec> = (0..model.n_inputs())
            .map(|i| {
                let n_values = model.input(i).map_or(0, |r| r.n_values);
                // A stripped model has no host block: scale 0 and missing value 0.
                let host = model.host_input(i).unwrap_or(HostInputRec { scale_exp: 0, missing: 0 });
                InputSpec {
                    kind: if n_values > 0 {
                        InputKind::Categorical { n_values }
                    } else {
                        InputKind::Numeric { scale_exp: host.scale_exp }
                    },
                    missing: host.missing,
                }
            })
            .collect();
        // Standard features first (what dense units read), then the feature table.
        let mut features = Vec::new();
        let mut scales = repr.scales.chunks_exact(ScaleRec::SIZE);
        for (attr, inp) in inputs.iter().enumerate() {
            match inp.kind {
                InputKind::Numeric { .. } => {
                    // No scales (no dense unit): a placeholder nothing reads.
                    let (s, _) = ScaleRec::parse(scales.next().unwrap_or(&[0, 0, 0, 0, 0, 0, 1, 0, 0, 0]));
                    features.push(Feature::Numeric {
                        attr,
                        offset: s.offset,
                        mul: s.mul,
                        shift: s.shift,
                        max_abs: s.max_abs,
                    });
                }
                InputKind::Categorical { n_values } => {
                    features.extend((0..i32::from(n_values)).map(|value| Feature::Equals { attr, value }))
                }
            }
        }
        let n_standard = features.len();
        let literal = |l: usize| {
            let (rec, _) = LiteralRec::parse(&repr.literals[l * LiteralRec::SIZE..]);
            let op = match rec.op {
                literal_op::EQ => LiteralOp::Eq,
                literal_op::NE => LiteralOp::Ne,
                literal_op::GT => LiteralOp::Gt,
                _ => LiteralOp::Le,
            };
            Literal { attr: rec.attr as usize, op, value: rec.value }
        };
        features.extend(repr.features.chunks_exact(FeatureRec::SIZE).map(|b| {
            let rec = FeatureRec::parse(b);
            let attr = rec.attr as usize;
            match rec.kind {
                feature_kind::NUMERIC => Feature::Numeric {
                    attr,
                    offset: rec.value,
                    mul: rec.mul,
                    shift: rec.shift,
                    max_abs: rec.max_abs,
                },
                feature_kind::EQUALS => Feature::Equals { attr, value: rec.value },
                feature_kind::GREATER => Feature::Greater { attr, value: rec.value },
                _ => {
                    let first = rec.value as usize;
                    Feature::Conjunction((first..first + attr).map(literal).collect())
                }
            }
        }));
        let terms_table = u16_table(repr.term_features);
        let classes_table = u16_table(repr.unit_classes);
        let width = kind.width();
        let weight = |e: usize| -> i64 {
            let b = &repr.weights[e * width..];
            match kind {
                WeightKind::I8 => i64::from(b[0] as i8),
                WeightKind::I16 => i64::from(i16::from_le_bytes([b[0], b[1]])),
                WeightKind::I32 | WeightKind::Fixed => {
                    i64::from(i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                }
            }
        };
        let units = repr
            .units
            .chunks_exact(UnitRec::SIZE)
            .map(|b| {
                let (rec, _) = UnitRec::parse(b);
                let n = rec.n_terms as usize;
                let terms: Vec<usize> = if rec.flags & unit_flags::SPARSE != 0 {
                    (0..n).map(|j| n_standard + terms_table(rec.term_start as usize + j) as usize).collect()
                } else {
                    (0..n).collect()
                };
                let rows = (0..rec.n_out as usize)
                    .map(|o| (0..=n).map(|j| weight(rec.weight_start as usize + o * (n + 1) + j)).collect())
                    .collect();
                let classes = (0..rec.n_classes())
                    .map(|k| classes_table(rec.class_start as usize + k) as usize)
                    .collect();
                Unit { terms, rows, classes }
            })
            .collect();
        let structure = match repr.structure {
            StructureRepr::Linear { unit } => Structure::Linear(unit as usize),
            StructureRepr::List { entries, default_class } => Structure::List {
                entries: entries
                    .chunks_exact(ListEntryRec::SIZE)
                    .map(|b| {
                        let e = ListEntryRec::parse(b);
                        (e.unit as usize, e.class as usize)
                    })
                    .collect(),
                default: default_class as usize,
            },
            StructureRepr::Tree { nodes, children } => {
                let child = u16_table(children);
                Structure::Tree(
                    nodes
                        .chunks_exact(NodeRec::SIZE)
                        .map(|b| {
                            let (rec, _) = NodeRec::parse(b);
                            let a = rec.a as usize;
                            match rec.kind {
                                node_kind::CLASS => Node::Class(a),
                                node_kind::UNIT => Node::Unit(a),
                                node_kind::CATEGORICAL => Node::Categorical {
                                    attr: a,
                                    children: (0..rec.c as usize)
                                        .map(|k| child(rec.value as usize + k) as usize)
                                        .collect(),
                                    default: rec.b as usize,
                                },
                                node_kind::THRESHOLD => Node::Threshold {
                                    attr: a,
                                    threshold: rec.value,
                                    left: rec.b as usize,
                                    right: rec.c as usize,
                                },
                                _ => Node::UnitSplit { unit: a, left: rec.b as usize, right: rec.c as usize },
                            }
                        })
                        .collect(),
                )
            }
        };
        let names = model.names().map(|n| Names {
            inputs: (0..model.n_inputs()).map(|i| n.input(i).to_string()).collect(),
            values: (0..model.n_inputs())
                .map(|i| {
                    let k = model.input(i).map_or(0, |r| r.n_values as usize);
                    (0..k).map(|v| n.value(i, v).to_string()).collect()
                })
                .collect(),
            classes: (0..model.n_classes()).map(|c| n.class(c).to_string()).collect(),
        });
        ModelSpec {
            n_classes: model.n_classes(),
            weight_kind: kind,
            inputs,
            features,
            units,
            structure,
            names,
        }
    }
}

//! The byte codec between the trainer's model description ([`crate::model`]) and the runtime's file
//! format (`ltu_runtime::format`, specified in `docs/FORMAT.md`): [`ModelSpec::to_bytes`] writes
//! the file the runtime loads and checks that the runtime accepts it, [`ModelSpec::from_model`]
//! reads a loaded model back.

use ltu_runtime::format::{
    self, feature_kind, literal_op, node_kind, unit_flags, FeatureRec, HostInputRec, HostRepr, InputRec,
    ListEntryRec, LiteralRec, ModelRepr, NodeRec, PipelineRepr, ScaleRec, StructureRepr, UnitRec,
    WindowFeatureRec,
};

use super::ir::*;
use super::pipeline::{Channel, Pipeline};
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
    /// The steps run in a fixed order (inputs, units, structure, host block, header), so the
    /// first error a model has is the one reported.
    ///
    /// # Errors
    /// [`ExportError`] if a weight does not fit, a table is too large, or the runtime rejects it.
    pub fn to_bytes_with(&self, host: &Host) -> Result<Vec<u8>, ExportError> {
        let standard = self.standard_features();
        let units = self.encode_units(&standard)?;
        let structure = self.encode_structure()?;
        let host_bytes = self.encode_host(host)?;
        let pipeline_features = self.encode_pipeline_features();
        let repr = ModelRepr {
            n_classes: small(self.n_classes, "classes")?,
            weight_kind: self.weight_kind,
            inputs: &standard.inputs,
            scales: &units.scales,
            features: &units.features,
            literals: &units.literals,
            units: &units.units,
            term_features: &units.term_features,
            weights: &units.weights,
            unit_classes: &units.unit_classes,
            structure: structure.repr(),
            pipeline: self.pipeline.as_ref().map(|p| PipelineRepr {
                n_channels: p.channels.len() as u16,
                window: p.window,
                hop: p.hop,
                features: &pipeline_features,
            }),
            host: (!host.strip).then_some(&host_bytes[..]),
        };
        let cap = 64
            + standard.inputs.len()
            + units.len()
            + structure.len()
            + pipeline_features.len()
            + host_bytes.len();
        let mut out = vec![0u8; cap];
        let len = format::encode(&repr, &mut out).map_err(ExportError::Rejected)?;
        out.truncate(len);
        ltu_runtime::Model::from_bytes(&out).map_err(ExportError::Rejected)?;
        Ok(out)
    }

    /// The input table and the standard features: what a dense unit reads.
    ///
    /// Numeric input `a` is one standard feature, read with the scale of the first numeric
    /// feature of `a` in the model's feature list; a categorical input is one `+-1` feature per
    /// value.
    fn standard_features(&self) -> StandardFeatures {
        let mut inputs = Vec::new();
        let mut start = Vec::with_capacity(self.inputs.len());
        let mut n = 0usize;
        for inp in &self.inputs {
            let n_values = match inp.kind {
                InputKind::Numeric { .. } => 0,
                InputKind::Categorical { n_values } => n_values,
            };
            inputs.extend_from_slice(&InputRec { n_values }.to_bytes());
            start.push(n);
            n += usize::from(n_values.max(1));
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
        let of_feature = self
            .features
            .iter()
            .map(|f| match f {
                Feature::Numeric { attr, .. } => (scale_of[*attr] == Some(f)).then(|| start[*attr]),
                Feature::Equals { attr, value } => match self.inputs.get(*attr)?.kind {
                    InputKind::Categorical { n_values } if (0..i32::from(n_values)).contains(value) => {
                        Some(start[*attr] + *value as usize)
                    }
                    _ => None,
                },
                _ => None,
            })
            .collect();
        StandardFeatures { inputs, scales, n, of_feature }
    }

    /// The unit, weight and class tables, with the feature and literal tables the sparse units
    /// read; the scale table is kept only if some unit is dense.
    fn encode_units(&self, standard: &StandardFeatures) -> Result<UnitTables, ExportError> {
        let mut t = UnitTables { table_index: vec![None; self.features.len()], ..UnitTables::default() };
        for (ui, u) in self.units.iter().enumerate() {
            let live: Vec<usize> = (0..u.terms.len()).filter(|&j| u.rows.iter().any(|r| r[j] != 0)).collect();
            let stored_rows = if let Some(rows) = self.dense_rows(u, &live, standard, &t) {
                t.any_dense = true;
                t.push_unit(0, small(u.rows.len(), "unit rows")?, small(standard.n, "features")?, 0)?;
                rows
            } else {
                self.sparse_unit(u, &live, &mut t)?
            };
            t.push_weights(ui, self.weight_kind, stored_rows)?;
            let classes = if u.rows.len() == 1 { &u.classes[..2] } else { &u.classes[..] };
            for &c in classes {
                t.unit_classes.extend_from_slice(&small(c, "classes")?.to_le_bytes());
            }
        }
        if t.n_weights > u32::MAX as usize {
            return Err(ExportError::TooLarge("weights"));
        }
        if t.any_dense {
            t.scales = standard.scales.clone();
        }
        Ok(t)
    }

    /// The rows of unit `u` over the standard features (each ending with the bias), if the unit
    /// is best stored dense: every live term is a standard feature, dense storage is no larger
    /// than sparse, and every merged weight fits the weight kind.
    ///
    /// Dense storage adds up the weights of repeated terms; that sum may not fit the weight kind
    /// even when every term does ([`ModelSpec::fits`] checks terms), so such a unit stays sparse.
    fn dense_rows(
        &self,
        u: &Unit,
        live: &[usize],
        standard: &StandardFeatures,
        t: &UnitTables,
    ) -> Option<Vec<Vec<i64>>> {
        let kind = self.weight_kind;
        let (lo, hi) = weight_range(kind);
        let n_out = u.rows.len();
        let n_standard = standard.n;
        let new_records = live.iter().filter(|&&j| t.table_index[u.terms[j]].is_none()).count();
        let sparse_bytes =
            live.len() * 2 + n_out * live.len() * kind.width() + new_records * FeatureRec::SIZE;
        // The first dense unit also brings the scale table.
        let dense_bytes =
            n_out * n_standard * kind.width() + if t.any_dense { 0 } else { standard.scales.len() };
        if !live.iter().all(|&j| standard.of_feature[u.terms[j]].is_some()) || dense_bytes > sparse_bytes {
            return None;
        }
        let merged = |row: &Vec<i64>| {
            let mut d = vec![0i64; n_standard + 1];
            for &j in live {
                d[standard.of_feature[u.terms[j]].unwrap_or(0)] += row[j];
            }
            d[n_standard] = row[u.terms.len()];
            d
        };
        let rows: Vec<Vec<i64>> = u.rows.iter().map(merged).collect();
        rows.iter().all(|r| r.iter().all(|w| (lo..=hi).contains(w))).then_some(rows)
    }

    /// Stores unit `u` sparse: its live terms through the feature table (adding the records it
    /// is the first to read), and returns its rows over those terms (each ending with the bias).
    fn sparse_unit(
        &self,
        u: &Unit,
        live: &[usize],
        t: &mut UnitTables,
    ) -> Result<Vec<Vec<i64>>, ExportError> {
        let start = t.term_features.len() / 2;
        for &j in live {
            let f = u.terms[j];
            let i = match t.table_index[f] {
                Some(i) => i,
                None => {
                    let i = small(t.features.len() / FeatureRec::SIZE, "features")?;
                    t.features
                        .extend_from_slice(&feature_rec(&self.features[f], &mut t.literals)?.to_bytes());
                    t.table_index[f] = Some(i);
                    i
                }
            };
            t.term_features.extend_from_slice(&i.to_le_bytes());
        }
        let rows = u
            .rows
            .iter()
            .map(|row| live.iter().map(|&j| row[j]).chain([row[u.terms.len()]]).collect())
            .collect();
        let n_out = small(u.rows.len(), "unit rows")?;
        t.push_unit(
            unit_flags::SPARSE,
            n_out,
            small(live.len(), "unit terms")?,
            small(start, "term table")?,
        )?;
        Ok(rows)
    }

    /// The structure's tables: the decision list's entries, or the tree's nodes and child table.
    fn encode_structure(&self) -> Result<StructureTables, ExportError> {
        Ok(match &self.structure {
            Structure::Linear(u) => StructureTables::Linear(small(*u, "units")?),
            Structure::List { entries: list, default } => {
                let mut entries = Vec::new();
                for &(u, c) in list {
                    entries.extend_from_slice(
                        &ListEntryRec { unit: small(u, "units")?, class: small(c, "classes")? }.to_bytes(),
                    );
                }
                StructureTables::List { entries, default: small(*default, "classes")? }
            }
            Structure::Tree(tree) => {
                // A tree's node heads below `LEAF_OR_SPLIT` are inputs; the runtime accepts a tree
                // of at most that many inputs, so the walk's one test of a head bounds its read.
                if self.inputs.len() > usize::from(node_kind::LEAF_OR_SPLIT) {
                    return Err(ExportError::TooLarge("inputs of a tree model"));
                }
                let (mut nodes, mut children) = (Vec::new(), Vec::new());
                let (order, at) = tree_layout(tree)?;
                for placed in order {
                    nodes.extend_from_slice(&node_rec(tree, placed, &at, &mut children)?.to_bytes());
                }
                StructureTables::Tree { nodes, children }
            }
        })
    }

    /// The pipeline's window-feature table: one record per input.
    fn encode_pipeline_features(&self) -> Vec<u8> {
        let features = self.pipeline.as_ref().map_or(&[][..], |p| &p.features[..]);
        features
            .iter()
            .flat_map(|f| {
                WindowFeatureRec {
                    channel: f.channel,
                    stat: f.stat.code(),
                    segments: f.segments,
                    segment: f.segment,
                }
                .to_bytes()
            })
            .collect()
    }

    /// The pipeline's part of the host block: each channel's decimal scale, and with the names
    /// the recording column (an empty line for the wide layout) and the channel names.
    fn encode_host_channels(&self) -> Result<(Vec<u8>, Option<String>), ExportError> {
        let Some(p) = &self.pipeline else { return Ok((Vec::new(), None)) };
        let scales = p.channels.iter().map(|c| c.scale_exp as u8).collect();
        let names = self.names.is_some().then(|| {
            std::iter::once(p.recording.as_deref().unwrap_or(""))
                .chain(p.channels.iter().map(|c| c.name.as_str()))
                .collect::<Vec<_>>()
        });
        if let Some(bad) = names.iter().flatten().find(|l| l.contains(['\n', '\r'])) {
            return Err(ExportError::NameLineBreak((*bad).to_string()));
        }
        Ok((scales, names.map(|n| n.join("\n"))))
    }

    /// The host block `host` asks for: each input's decimal scale and missing-value substitute,
    /// the names (one per line) unless stripped, the metadata, and the pipeline's channels.
    fn encode_host(&self, host: &Host) -> Result<Vec<u8>, ExportError> {
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
            let (scale_exp, offset) = match inp.kind {
                InputKind::Numeric { scale_exp, offset } => (scale_exp, offset),
                InputKind::Categorical { .. } => (0, 0),
            };
            host_inputs
                .extend_from_slice(&HostInputRec { scale_exp, missing: inp.missing, offset }.to_bytes());
        }
        let (channels, channel_names) = self.encode_host_channels()?;
        let channel_names = channel_names.filter(|_| !host.strip);
        let host_repr = HostRepr {
            inputs: &host_inputs,
            names: names_text.as_deref(),
            meta: host.meta.as_deref(),
            channels: &channels,
            channel_names: channel_names.as_deref(),
        };
        let mut host_bytes = vec![
            0u8;
            32 + host_inputs.len()
                + names_text.as_ref().map_or(0, String::len)
                + host.meta.as_ref().map_or(0, String::len)
                + channels.len()
                + channel_names.as_ref().map_or(0, String::len)
        ];
        let n = host_repr.encode(&mut host_bytes).map_err(ExportError::Rejected)?;
        host_bytes.truncate(n);
        Ok(host_bytes)
    }
}

/// `n` as a 16-bit table field, or [`ExportError::TooLarge`] naming the table `what`.
fn small(n: usize, what: &'static str) -> Result<u16, ExportError> {
    u16::try_from(n).map_err(|_| ExportError::TooLarge(what))
}

/// The input table and the standard features of a model (see [`ModelSpec::standard_features`]).
struct StandardFeatures {
    /// The input table's bytes.
    inputs: Vec<u8>,
    /// The scale table's bytes: one record per numeric input.
    scales: Vec<u8>,
    /// How many standard features there are.
    n: usize,
    /// The standard feature each model feature is, if it is one.
    of_feature: Vec<Option<usize>>,
}

/// The tables [`ModelSpec::encode_units`] fills.
#[derive(Default)]
struct UnitTables {
    scales: Vec<u8>,
    /// The feature table: the features sparse units read, each once, in order of first use.
    features: Vec<u8>,
    literals: Vec<u8>,
    units: Vec<u8>,
    term_features: Vec<u8>,
    weights: Vec<u8>,
    unit_classes: Vec<u8>,
    /// Each model feature's index in the feature table, once a sparse unit has read it.
    table_index: Vec<Option<u16>>,
    n_weights: usize,
    any_dense: bool,
}

impl UnitTables {
    /// Appends a unit record whose weights start after those stored so far and whose classes
    /// start after the class table's.
    fn push_unit(&mut self, flags: u8, n_out: u16, n_terms: u16, term_start: u16) -> Result<(), ExportError> {
        let rec = UnitRec {
            flags,
            n_out,
            n_terms,
            term_start,
            class_start: small(self.unit_classes.len() / 2, "class table")?,
            weight_start: self.n_weights as u32,
        };
        self.units.extend_from_slice(&rec.to_bytes());
        Ok(())
    }

    /// Appends unit `ui`'s stored rows to the weight table in `kind`'s little-endian width.
    fn push_weights(&mut self, ui: usize, kind: WeightKind, rows: Vec<Vec<i64>>) -> Result<(), ExportError> {
        let (lo, hi) = weight_range(kind);
        for w in rows.into_iter().flatten() {
            if !(lo..=hi).contains(&w) {
                return Err(ExportError::WeightRange { unit: ui, value: w, kind });
            }
            let at = self.weights.len();
            self.weights.resize(at + kind.width(), 0);
            store_weight(kind, w, &mut self.weights[at..]);
            self.n_weights += 1;
        }
        Ok(())
    }

    /// The bytes of all the tables, for sizing the output buffer.
    fn len(&self) -> usize {
        self.scales.len()
            + self.features.len()
            + self.literals.len()
            + self.units.len()
            + self.term_features.len()
            + self.weights.len()
            + self.unit_classes.len()
    }
}

/// The encoded structure, owning the tables its [`StructureRepr`] borrows.
enum StructureTables {
    Linear(u16),
    List { entries: Vec<u8>, default: u16 },
    Tree { nodes: Vec<u8>, children: Vec<u8> },
}

impl StructureTables {
    fn repr(&self) -> StructureRepr<'_> {
        match self {
            StructureTables::Linear(unit) => StructureRepr::Linear { unit: *unit },
            StructureTables::List { entries, default } => {
                StructureRepr::List { entries, default_class: *default }
            }
            StructureTables::Tree { nodes, children } => StructureRepr::Tree { nodes, children },
        }
    }

    fn len(&self) -> usize {
        match self {
            StructureTables::Linear(_) => 0,
            StructureTables::List { entries, .. } => entries.len(),
            StructureTables::Tree { nodes, children } => nodes.len() + children.len(),
        }
    }
}

/// One record of the node table, in file order.
#[derive(Clone, Copy)]
enum Placed {
    /// Node `k` of the [`ModelSpec`]'s tree.
    Node(usize),
    /// A JUMP to where node `k` of the tree is placed.
    Jump(usize),
}

/// The tree's nodes in file order, and where each node reached by a link is placed. A split's
/// implicit child (a threshold's or unit split's left child, a categorical split's default
/// child) is the record right after it: the child itself when it is a leaf (written again for
/// each such parent) or when the split is its last parent placed, else a JUMP to it. Every node
/// is placed after all of its parents (in the order of Kahn's algorithm), so every link points
/// forward; a tree without shared nodes is laid out depth first, left child next, with no JUMP.
/// Unreachable nodes are left out.
///
/// # Errors
/// [`ExportError::Rejected`] with [`ltu_runtime::Error::LinkNotForward`] if a child does not lie
/// after its node in the tree (the format's requirement, which makes every walk end), and
/// [`ExportError::TooLarge`] if the file would hold more nodes than the format's limit.
fn tree_layout(tree: &[Node]) -> Result<(Vec<Placed>, Vec<usize>), ExportError> {
    let implicit = |n: &Node| match n {
        Node::Class(_) | Node::Unit(_) => None,
        Node::Categorical { default, .. } => Some(*default),
        Node::Threshold { left, .. } | Node::UnitSplit { left, .. } => Some(*left),
    };
    let explicit = |n: &Node| match n {
        Node::Class(_) | Node::Unit(_) => Vec::new(),
        Node::Categorical { children, .. } => children.clone(),
        Node::Threshold { right, .. } | Node::UnitSplit { right, .. } => vec![*right],
    };
    for (i, n) in tree.iter().enumerate() {
        if explicit(n).into_iter().chain(implicit(n)).any(|k| k <= i || k >= tree.len()) {
            return Err(ExportError::Rejected(ltu_runtime::Error::LinkNotForward));
        }
    }
    let leaf = |k: usize| matches!(tree[k], Node::Class(_) | Node::Unit(_));
    // The links that need the target placed on its own: every explicit link, and an implicit
    // link to a split (a leaf is written again after each split it is the implicit child of).
    let placed_links = |n: &Node| {
        let mut links = explicit(n);
        links.extend(implicit(n).filter(|&k| !leaf(k)));
        links
    };
    let mut parents = vec![0usize; tree.len()];
    let mut seen = vec![false; tree.len()];
    let mut todo = Vec::new();
    if let Some(s) = seen.first_mut() {
        *s = true;
        todo.push(0);
    }
    while let Some(k) = todo.pop() {
        for c in placed_links(&tree[k]) {
            parents[c] += 1;
            if !seen[c] {
                seen[c] = true;
                todo.push(c);
            }
        }
    }
    let mut order: Vec<Placed> = Vec::new();
    let mut at = vec![0usize; tree.len()];
    let push = |order: &mut Vec<Placed>, p: Placed| {
        if order.len() >= ltu_runtime::format::MAX_COUNT {
            return Err(ExportError::TooLarge("nodes"));
        }
        order.push(p);
        Ok(order.len() - 1)
    };
    // Nodes whose parents are all placed; the next one to place on top.
    let mut ready: Vec<usize> = if tree.is_empty() { Vec::new() } else { vec![0] };
    while let Some(mut k) = ready.pop() {
        loop {
            at[k] = push(&mut order, Placed::Node(k))?;
            // The implicit child, when it is a split (a leaf is written again right here).
            let next = implicit(&tree[k]);
            let mut follows = false;
            for c in placed_links(&tree[k]).into_iter().rev() {
                parents[c] -= 1;
                if parents[c] == 0 {
                    if Some(c) == next && !leaf(c) {
                        follows = true;
                    } else {
                        ready.push(c);
                    }
                }
            }
            match next {
                None => break,
                Some(c) if leaf(c) => {
                    push(&mut order, Placed::Node(c))?;
                    break;
                }
                Some(c) if follows => k = c,
                Some(c) => {
                    push(&mut order, Placed::Jump(c))?;
                    break;
                }
            }
        }
    }
    Ok((order, at))
}

/// The node record of `placed`, with its links to where `at` places their targets, appending a
/// categorical node's children to the child table.
fn node_rec(
    tree: &[Node],
    placed: Placed,
    at: &[usize],
    children: &mut Vec<u8>,
) -> Result<NodeRec, ExportError> {
    let link = |k: usize| small(at[k], "nodes");
    let k = match placed {
        Placed::Jump(k) => return Ok(NodeRec { head: node_kind::JUMP, link: link(k)?, value: 0 }),
        Placed::Node(k) => k,
    };
    Ok(match &tree[k] {
        Node::Class(c) => {
            NodeRec { head: node_kind::CLASS, link: 0, value: i32::from(small(*c, "classes")?) }
        }
        Node::Unit(u) => NodeRec { head: node_kind::UNIT, link: 0, value: i32::from(small(*u, "units")?) },
        Node::Categorical { attr, children: kids, .. } => {
            let first = children.len() / 2;
            for &c in kids {
                children.extend_from_slice(&link(c)?.to_le_bytes());
            }
            NodeRec {
                head: node_kind::CATEGORICAL,
                link: small(*attr, "inputs")?,
                value: NodeRec::categorical_value(
                    small(first, "child table")?,
                    small(kids.len(), "children")?,
                ),
            }
        }
        Node::Threshold { attr, threshold, right, .. } => {
            let head = small(*attr, "inputs")?;
            if head >= node_kind::LEAF_OR_SPLIT {
                return Err(ExportError::TooLarge("inputs a tree tests"));
            }
            NodeRec { head, link: link(*right)?, value: *threshold }
        }
        Node::UnitSplit { unit, right, .. } => NodeRec {
            head: node_kind::UNIT_SPLIT,
            link: link(*right)?,
            value: i32::from(small(*unit, "units")?),
        },
    })
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

/// Stores weight `w` (within [`weight_range`] of `kind`) as the file does: its
/// [`WeightKind::width`] little-endian bytes at the start of `out`.
pub(super) fn store_weight(kind: WeightKind, w: i64, out: &mut [u8]) {
    match kind {
        WeightKind::I8 => out[0] = w as i8 as u8,
        WeightKind::I16 => out[..2].copy_from_slice(&(w as i16).to_le_bytes()),
        WeightKind::I32 | WeightKind::Fixed => out[..4].copy_from_slice(&(w as i32).to_le_bytes()),
    }
}

/// The feature table record of `f`, appending a conjunction's literals to `literals`.
fn feature_rec(f: &Feature, literals: &mut Vec<u8>) -> Result<FeatureRec, ExportError> {
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
        let repr = model.repr();
        let inputs = decode_inputs(model);
        let features = decode_features(repr, &inputs);
        let n_standard = features.len() - repr.features.len() / FeatureRec::SIZE;
        ModelSpec {
            pipeline: decode_pipeline(model),
            n_classes: model.n_classes(),
            weight_kind: repr.weight_kind,
            units: decode_units(repr, n_standard),
            structure: decode_structure(&repr.structure),
            names: decode_names(model),
            inputs,
            features,
        }
    }
}

/// The inputs of `model`, with their decimal scales, offsets and missing-value substitutes from
/// the host block (a stripped model has none: scale 0, offset 0 and missing value 0).
fn decode_inputs(model: &ltu_runtime::Model<'_>) -> Vec<InputSpec> {
    (0..model.n_inputs())
        .map(|i| {
            let n_values = model.input(i).map_or(0, |r| r.n_values);
            let host = model.host_input(i).unwrap_or(HostInputRec { scale_exp: 0, missing: 0, offset: 0 });
            InputSpec {
                kind: if n_values > 0 {
                    InputKind::Categorical { n_values }
                } else {
                    InputKind::Numeric { scale_exp: host.scale_exp, offset: host.offset }
                },
                missing: host.missing,
            }
        })
        .collect()
}

/// The model's features: the standard features first (what dense units read, so dense unit
/// terms are `0..n`), then the feature table (sparse unit terms are offset by the standard ones).
fn decode_features(repr: &ModelRepr<'_>, inputs: &[InputSpec]) -> Vec<Feature> {
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
    features
}

/// The units, with their terms as indices into [`decode_features`]' list.
fn decode_units(repr: &ModelRepr<'_>, n_standard: usize) -> Vec<Unit> {
    use ltu_runtime::format::u16_table;
    let terms_table = u16_table(repr.term_features);
    let classes_table = u16_table(repr.unit_classes);
    let kind = repr.weight_kind;
    let width = kind.width();
    let weight = |e: usize| -> i64 {
        let b = &repr.weights[e * width..];
        match kind {
            WeightKind::I8 => i64::from(b[0] as i8),
            WeightKind::I16 => i64::from(i16::from_le_bytes([b[0], b[1]])),
            WeightKind::I32 | WeightKind::Fixed => i64::from(i32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        }
    };
    repr.units
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
            let classes =
                (0..rec.n_classes()).map(|k| classes_table(rec.class_start as usize + k) as usize).collect();
            Unit { terms, rows, classes }
        })
        .collect()
}

/// The structure: which unit decides, the decision list, or the tree.
fn decode_structure(structure: &StructureRepr<'_>) -> Structure {
    match *structure {
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
            let child = ltu_runtime::format::u16_table(children);
            let recs: Vec<NodeRec> = nodes.chunks_exact(NodeRec::SIZE).map(NodeRec::parse).collect();
            // The tree leaves the JUMP records out (the loader refuses one at the root): a link
            // to one goes where it leads. The writer places a copy of a leaf next to each test
            // that falls to it; read back, every copy is the last record of that leaf (after
            // every test that falls to it, as links point forward), so the tree has each leaf
            // once, as the tree written. Every record kept is renumbered by the records left out
            // before it.
            let leaf = |r: &NodeRec| {
                (r.head == node_kind::CLASS || r.head == node_kind::UNIT).then_some((r.head, r.value))
            };
            let mut last_of = std::collections::HashMap::new();
            for (j, r) in recs.iter().enumerate() {
                if let Some(k) = leaf(r) {
                    last_of.insert(k, j);
                }
            }
            let canon: Vec<usize> =
                recs.iter().enumerate().map(|(j, r)| leaf(r).map_or(j, |k| last_of[&k])).collect();
            let kept = |j: usize| recs[j].head != node_kind::JUMP && canon[j] == j;
            let mut index = Vec::with_capacity(recs.len());
            let mut n_kept = 0;
            for j in 0..recs.len() {
                index.push(n_kept);
                n_kept += usize::from(kept(j));
            }
            // Links of a loaded model point forward, so this ends.
            let target = |mut j: usize| {
                while let Some(r) = recs.get(j).filter(|r| r.head == node_kind::JUMP) {
                    j = r.link as usize;
                }
                canon.get(j).and_then(|&c| index.get(c)).copied().unwrap_or(j)
            };
            Structure::Tree(
                recs.iter()
                    .enumerate()
                    .filter(|&(j, _)| kept(j))
                    .map(|(i, rec)| {
                        let (link, value) = (rec.link as usize, rec.value as u32 as usize);
                        match rec.head {
                            input if input < node_kind::LEAF_OR_SPLIT => Node::Threshold {
                                attr: input as usize,
                                threshold: rec.value,
                                left: target(i + 1),
                                right: target(link),
                            },
                            node_kind::UNIT => Node::Unit(value),
                            node_kind::CATEGORICAL => {
                                let (first, count) = rec.categorical_entries();
                                Node::Categorical {
                                    attr: link,
                                    children: (0..count as usize)
                                        .map(|k| target(child(first as usize + k) as usize))
                                        .collect(),
                                    default: target(i + 1),
                                }
                            }
                            node_kind::UNIT_SPLIT => {
                                Node::UnitSplit { unit: value, left: target(i + 1), right: target(link) }
                            }
                            // CLASS: a loaded model has no other kind.
                            _ => Node::Class(value),
                        }
                    })
                    .collect(),
            )
        }
    }
}

/// The sensor pipeline, with each channel's scale and name from the host block (a stripped model
/// has neither: scale 0 and empty names; a model without names has empty names and no
/// recording column).
fn decode_pipeline(model: &ltu_runtime::Model<'_>) -> Option<Pipeline> {
    let p = model.repr().pipeline?;
    let host = model.host();
    let scales = host.map_or(&[][..], |h| h.channels);
    let names: Vec<&str> =
        host.and_then(|h| h.channel_names).map_or_else(Vec::new, |t| t.split('\n').collect());
    let channels = (0..usize::from(p.n_channels))
        .map(|c| Channel {
            name: names.get(c + 1).map_or_else(String::new, |s| (*s).to_string()),
            scale_exp: scales.get(c).map_or(0, |&s| s as i8),
        })
        .collect();
    let features = p
        .features
        .chunks_exact(WindowFeatureRec::SIZE)
        .filter_map(|r| WindowFeatureRec::from_array(r.try_into().ok()?).feature())
        .collect();
    Some(Pipeline {
        channels,
        window: p.window,
        hop: p.hop,
        features,
        recording: names.first().filter(|s| !s.is_empty()).map(|s| (*s).to_string()),
    })
}

/// The names of the inputs, values and classes, if the host block has them.
fn decode_names(model: &ltu_runtime::Model<'_>) -> Option<Names> {
    model.names().map(|n| Names {
        inputs: (0..model.n_inputs()).map(|i| n.input(i).to_string()).collect(),
        values: (0..model.n_inputs())
            .map(|i| {
                let k = model.input(i).map_or(0, |r| r.n_values as usize);
                (0..k).map(|v| n.value(i, v).to_string()).collect()
            })
            .collect(),
        classes: (0..model.n_classes()).map(|c| n.class(c).to_string()).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ir::tests::tiny_tree;

    fn round_trip(spec: &ModelSpec, host: &Host) -> ModelSpec {
        let bytes = spec.to_bytes_with(host).expect("encodes");
        let model = ltu_runtime::Model::from_bytes(&bytes).expect("the runtime accepts it");
        ModelSpec::from_model(&model)
    }

    #[test]
    fn tree_round_trips_through_the_runtime() {
        // tiny_tree's class-0 leaf (node 4) is a categorical child, the categorical split's
        // default and the unit split's left child: the two implicit children are the records
        // right after their splits, so the file holds the leaf three times. Read back, the
        // copies are one leaf again (the last record of the three), and a tree in that order
        // comes back unchanged.
        let spec = tiny_tree();
        let once = round_trip(&spec, &Host::default());
        let file_order = vec![
            Node::Threshold { attr: 0, threshold: 5, left: 1, right: 2 },
            Node::Unit(0),
            Node::Categorical { attr: 1, children: vec![3, 5, 3], default: 5 },
            Node::UnitSplit { unit: 1, left: 5, right: 4 },
            Node::Class(2),
            Node::Class(0),
        ];
        assert_eq!(once, ModelSpec { structure: Structure::Tree(file_order), ..spec.clone() });
        assert_eq!(round_trip(&once, &Host::default()), once);
    }

    /// The runtime predicts what `spec` predicts on a grid of inputs around its thresholds.
    fn predicts_as_the_reference(spec: &ModelSpec) {
        let bytes = spec.to_bytes().unwrap();
        let model = ltu_runtime::Model::from_bytes(&bytes).unwrap();
        for a in [-100, 0, 4, 5, 6, 8, 9, 10, 15, 30, i32::MIN, i32::MAX] {
            for b in [-1, 0, 1, 2, 3, 7] {
                assert_eq!(model.predict(&[a, b]).unwrap(), spec.predict(&[a, b]), "input {a} {b}");
            }
        }
    }

    #[test]
    fn tree_layout_places_shared_nodes_after_their_parents() {
        let mut spec = tiny_tree();
        // Node 3 is both children of the root (placed once, right after it), nodes 1 and 2 are
        // unreachable (left out), and leaf 4 both children of node 3 (written twice: once as the
        // implicit child, once where the link leads; read back as one leaf).
        spec.structure = Structure::Tree(vec![
            Node::Threshold { attr: 0, threshold: 5, left: 3, right: 3 },
            Node::Unit(0),
            Node::Class(1),
            Node::Threshold { attr: 0, threshold: 9, left: 4, right: 4 },
            Node::Class(2),
        ]);
        let once = round_trip(&spec, &Host::default());
        let expected = vec![
            Node::Threshold { attr: 0, threshold: 5, left: 1, right: 1 },
            Node::Threshold { attr: 0, threshold: 9, left: 2, right: 2 },
            Node::Class(2),
        ];
        assert_eq!(once.structure, Structure::Tree(expected));
        predicts_as_the_reference(&spec);

        // Split 3 is the left (implicit) child of both 1 and 2: it follows 2, the last of its
        // parents placed, and a JUMP after 1 leads to it. Read back, the tree is the same.
        spec.structure = Structure::Tree(vec![
            Node::Threshold { attr: 0, threshold: 5, left: 1, right: 2 },
            Node::Threshold { attr: 1, threshold: 0, left: 3, right: 5 },
            Node::Threshold { attr: 1, threshold: 1, left: 3, right: 6 },
            Node::Threshold { attr: 0, threshold: 0, left: 4, right: 5 },
            Node::Class(0),
            Node::Class(1),
            Node::Class(2),
        ]);
        let bytes = spec.to_bytes().unwrap();
        let model = ltu_runtime::Model::from_bytes(&bytes).unwrap();
        let StructureRepr::Tree { nodes, .. } = model.repr().structure else { panic!("a tree") };
        let heads: Vec<u16> = nodes.chunks_exact(NodeRec::SIZE).map(|b| NodeRec::parse(b).head).collect();
        assert_eq!(
            heads,
            [0, 1, node_kind::JUMP, 1, 0, node_kind::CLASS, node_kind::CLASS, node_kind::CLASS]
        );
        assert_eq!(ModelSpec::from_model(&model), spec);
        predicts_as_the_reference(&spec);

        // A child that does not lie after its node is refused, as the format requires.
        spec.structure = Structure::Tree(vec![
            Node::Threshold { attr: 0, threshold: 5, left: 1, right: 0 },
            Node::Class(0),
        ]);
        assert!(matches!(spec.to_bytes(), Err(ExportError::Rejected(ltu_runtime::Error::LinkNotForward))));
    }

    #[test]
    fn runtime_predicts_what_the_reference_evaluator_does() {
        let spec = tiny_tree();
        let bytes = spec.to_bytes().unwrap();
        let model = ltu_runtime::Model::from_bytes(&bytes).unwrap();
        for x in [[5, 0], [30, 0], [15, 0], [30, 1], [30, 2], [30, 7], [-100, 2]] {
            assert_eq!(model.predict(&x).unwrap(), spec.predict(&x), "input {x:?}");
        }
    }

    #[test]
    fn dense_and_sparse_units_are_chosen_by_size() {
        let bytes = tiny_tree().to_bytes().unwrap();
        let model = ltu_runtime::Model::from_bytes(&bytes).unwrap();
        let flags: Vec<u8> =
            model.repr().units.chunks_exact(UnitRec::SIZE).map(|b| UnitRec::parse(b).0.flags).collect();
        assert_eq!(flags, [0, unit_flags::SPARSE]);
        // One feature record (the conjunction) with its two literals; one scale for `x`.
        assert_eq!(model.repr().features.len(), FeatureRec::SIZE);
        assert_eq!(model.repr().literals.len(), 2 * LiteralRec::SIZE);
        assert_eq!(model.repr().scales.len(), ScaleRec::SIZE);
    }

    #[test]
    fn pipeline_round_trips_with_its_channels() {
        use ltu_runtime::window::{Stat, WindowFeature};
        let pipeline = Pipeline {
            channels: vec![
                Channel { name: "ax".into(), scale_exp: 2 },
                Channel { name: "ay".into(), scale_exp: -1 },
            ],
            window: 16,
            hop: 8,
            features: vec![
                WindowFeature::whole(1, Stat::Energy),
                WindowFeature { channel: 0, stat: Stat::Slope, segments: 4, segment: 3 },
            ],
            recording: Some("take".into()),
        };
        let mut spec = tiny_tree();
        spec.structure = Structure::Tree(vec![
            Node::Threshold { attr: 0, threshold: 5, left: 1, right: 2 },
            Node::Class(0),
            Node::Class(1),
        ]);
        (spec.units, spec.features) = (Vec::new(), Vec::new());
        spec.inputs = vec![InputSpec { kind: InputKind::Numeric { scale_exp: 0, offset: 0 }, missing: 0 }; 2];
        spec.names = Some(Names {
            inputs: vec!["ay_energy".into(), "ax_slope_s3of4".into()],
            values: vec![vec![], vec![]],
            classes: vec!["a".into(), "b".into(), "c".into()],
        });
        spec.pipeline = Some(pipeline.clone());
        let names = spec.names.clone();
        let back = round_trip(&spec, &Host::default());
        assert_eq!((back.pipeline, back.names), (spec.pipeline.clone(), names.clone()));
        // The wide layout has no recording column.
        spec.pipeline.as_mut().unwrap().recording = None;
        assert_eq!(round_trip(&spec, &Host::default()).pipeline, spec.pipeline);
        // Without names the channels keep their scales; stripped, neither names nor scales.
        spec.names = None;
        let back = round_trip(&spec, &Host::default()).pipeline.unwrap();
        assert_eq!(
            back.channels.iter().map(|c| (c.name.as_str(), c.scale_exp)).collect::<Vec<_>>(),
            [("", 2), ("", -1)]
        );
        let back = round_trip(&spec, &Host { strip: true, meta: None }).pipeline.unwrap();
        assert_eq!((back.window, back.hop, back.features), (16, 8, pipeline.features.clone()));
        assert!(back.channels.iter().all(|c| c.scale_exp == 0 && c.name.is_empty()));
        // A channel name with a line break would read back as two names.
        spec.names = names;
        spec.pipeline.as_mut().unwrap().channels[0].name = "a\nb".into();
        assert!(matches!(spec.to_bytes(), Err(ExportError::NameLineBreak(_))));
    }

    #[test]
    fn stripped_model_loses_names_scales_and_substitutes() {
        let mut spec = tiny_tree();
        spec.structure = Structure::List { entries: vec![(1, 1)], default: 2 };
        let back = round_trip(&spec, &Host { strip: true, meta: Some("ignored=1".into()) });
        spec.names = None;
        spec.inputs[0] = InputSpec { kind: InputKind::Numeric { scale_exp: 0, offset: 0 }, missing: 0 };
        assert_eq!(back, spec);
    }

    #[test]
    fn metadata_is_stored_in_the_host_block() {
        let bytes =
            tiny_tree().to_bytes_with(&Host { strip: false, meta: Some("algo=test".into()) }).unwrap();
        let model = ltu_runtime::Model::from_bytes(&bytes).unwrap();
        assert_eq!(model.meta(), Some("algo=test"));
    }

    #[test]
    fn weight_out_of_range_names_the_unit() {
        let mut spec = tiny_tree();
        spec.units[1].rows[0][0] = 300;
        assert_eq!(
            spec.to_bytes(),
            Err(ExportError::WeightRange { unit: 1, value: 300, kind: WeightKind::I8 })
        );
    }

    #[test]
    fn name_with_a_line_break_is_refused_unless_stripped() {
        let mut spec = tiny_tree();
        spec.names.as_mut().unwrap().classes[2] = "c\nd".into();
        assert_eq!(spec.to_bytes(), Err(ExportError::NameLineBreak("c\nd".into())));
        assert!(spec.to_bytes_with(&Host { strip: true, meta: None }).is_ok());
    }

    #[test]
    fn a_tree_over_more_inputs_than_a_node_can_name_is_too_large() {
        let mut spec = tiny_tree();
        spec.structure = Structure::Tree(vec![Node::Class(1)]);
        spec.units.clear();
        spec.features.clear();
        spec.names = None;
        let numeric = InputSpec { kind: InputKind::Numeric { scale_exp: 0, offset: 0 }, missing: 0 };
        spec.inputs = vec![numeric; 32_769];
        assert_eq!(spec.to_bytes(), Err(ExportError::TooLarge("inputs of a tree model")));
        spec.inputs.pop();
        assert!(spec.to_bytes_with(&Host { strip: true, meta: None }).is_ok());
    }

    #[test]
    fn too_many_classes_is_too_large() {
        let mut spec = tiny_tree();
        spec.n_classes = 70_000;
        assert_eq!(spec.to_bytes(), Err(ExportError::TooLarge("classes")));
    }
}

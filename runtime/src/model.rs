//! The validated model and its evaluation.

use crate::error::{Error, Result};
#[cfg(feature = "list")]
use crate::format::ListEntryRec;
#[cfg(feature = "pipeline")]
use crate::format::WindowFeatureRec;
use crate::format::{
    self, feature_kind, literal_op, u16_at, unit_flags, FeatureRec, InputRec, LiteralRec, ModelRepr,
    ScaleRec, StructureRepr, UnitRec, WeightKind, MAX_COUNT, MAX_FEATURE_ABS,
};
#[cfg(feature = "tree")]
use crate::format::{node_kind, NodeRec};
#[cfg(feature = "host")]
use crate::format::{HostChannelRec, HostInputRec, HostRepr};
use crate::input::Input;
#[cfg(feature = "pipeline")]
use crate::window::{Sample, Stream, WindowFeature, MAX_WINDOW_LEN};

/// What kind of structure a model has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Kind {
    /// A tree (perceptron tree, oblique tree, decision tree).
    Tree,
    /// A decision list (neural decision list, halfspace intersection or union).
    List,
    /// One unit (perceptron, sparse perceptron, linear machine).
    Linear,
}

/// The leaf a tree walk ends at ([`Model::leaf`]).
#[cfg(feature = "tree")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Leaf {
    /// A leaf decided by this unit.
    Unit(usize),
    /// A constant leaf of this class.
    Class(usize),
}

/// A model that passed every load-time check, evaluated in place from the bytes it was loaded from.
///
/// Once [`Model::from_bytes`] returned `Ok`, no evaluation method panics, overflows, loops or
/// reads out of bounds, whatever the input values; the only evaluation errors are about the
/// caller's buffers and input sources.
#[derive(Debug, Clone, Copy)]
pub struct Model<'a> {
    repr: ModelRepr<'a>,
    /// Number of inputs (the loader bounds it by 65 535).
    n_inputs: u16,
    /// Every input is numeric and has a scale record: standard feature `j` is input `j`'s.
    all_numeric: bool,
}

fn count(table: &[u8], size: usize) -> Result<usize> {
    if !table.len().is_multiple_of(size) {
        return Err(Error::TableLength);
    }
    let n = table.len() / size;
    if n > MAX_COUNT {
        return Err(Error::LimitExceeded);
    }
    Ok(n)
}

/// Record counts of a model's tables (each at most [`MAX_COUNT`]).
struct Counts {
    classes: usize,
    inputs: usize,
    features: usize,
    #[cfg_attr(not(feature = "sparse"), allow(dead_code))]
    literals: usize,
    units: usize,
    terms: usize,
    unit_classes: usize,
    weights: usize,
}

/// What the input table says about the standard features.
struct Inputs {
    /// Numeric inputs.
    numeric: usize,
    /// Standard features: one per numeric input, one per value of a categorical input.
    standard: usize,
    /// Values of all categorical inputs (each has a name in the host block).
    #[cfg_attr(not(feature = "host"), allow(dead_code))]
    values: usize,
    /// Scale records: one per numeric input, or none when no unit is dense.
    n_scales: usize,
}

/// Rejects a model that needs what this build left out: its structure, its weight kind (unless
/// it has no units), or, without `sparse`, a feature table, literals or terms (a sparse unit is
/// rejected with the units).
fn check_supported(repr: &ModelRepr<'_>, kind: WeightKind) -> Result<()> {
    check(
        structure_enabled(&repr.structure) && (kind_enabled(kind) || (!WEIGHTS && repr.units.is_empty())),
        Error::Unsupported,
    )?;
    check(
        cfg!(feature = "sparse")
            || (repr.features.is_empty() && repr.literals.is_empty() && repr.term_features.is_empty()),
        Error::Unsupported,
    )
}

/// Counts the records of each table, rejecting a table whose length is not a whole number of
/// records; a model needs at least one class.
fn count_tables(repr: &ModelRepr<'_>, kind: WeightKind) -> Result<Counts> {
    let classes = repr.n_classes as usize;
    check(classes >= 1, Error::ClassOutOfRange)?;
    let n = Counts {
        classes,
        inputs: count(repr.inputs, InputRec::SIZE)?,
        features: count(repr.features, FeatureRec::SIZE)?,
        literals: count(repr.literals, LiteralRec::SIZE)?,
        units: count(repr.units, UnitRec::SIZE)?,
        terms: count(repr.term_features, 2)?,
        unit_classes: count(repr.unit_classes, 2)?,
        weights: repr.weights.len() / kind.width(),
    };
    check(repr.weights.len().is_multiple_of(kind.width()), Error::TableLength)?;
    Ok(n)
}

/// Counts the standard features the inputs define, and checks the scale table: one valid scale
/// per numeric input, or none.
fn check_inputs(repr: &ModelRepr<'_>, n_inputs: usize) -> Result<Inputs> {
    let n_scales = count(repr.scales, ScaleRec::SIZE)?;
    let (mut numeric, mut standard, mut values) = (0, 0, 0);
    for i in 0..n_inputs {
        let n = InputRec::from_array(record(repr.inputs, i)).n_values as usize;
        // Saturating: 65 535 inputs of 65 535 values overflow a 32-bit `usize`.
        numeric += usize::from(n == 0);
        standard = usize::saturating_add(standard, n.max(1));
        values = usize::saturating_add(values, n);
    }
    check(n_scales == numeric || n_scales == 0, Error::InputInvalid)?;
    for s in 0..n_scales {
        let (rec, pad) = ScaleRec::from_array(record(repr.scales, s));
        check(
            pad == 0 && rec.shift <= 32 && rec.max_abs >= 1 && rec.max_abs <= MAX_FEATURE_ABS,
            Error::FeatureInvalid,
        )?;
    }
    Ok(Inputs { numeric, standard, values, n_scales })
}

/// Checks the literal table and the feature table: known kinds and operators, inputs in range,
/// scales valid, and each conjunction's literals inside the literal table.
#[cfg(feature = "sparse")]
fn check_feature_table(repr: &ModelRepr<'_>, n: &Counts) -> Result<()> {
    for l in 0..n.literals {
        let (rec, pad) = LiteralRec::from_array(record(repr.literals, l));
        check(pad == 0 && rec.op <= literal_op::LE, Error::LiteralInvalid)?;
        check((rec.attr as usize) < n.inputs, Error::LiteralInvalid)?;
    }
    for f in 0..n.features {
        let rec = FeatureRec::from_array(record(repr.features, f));
        let ok = match rec.kind {
            feature_kind::NUMERIC => {
                (rec.attr as usize) < n.inputs
                    && rec.shift <= 32
                    && rec.max_abs >= 1
                    && rec.max_abs <= MAX_FEATURE_ABS
            }
            feature_kind::EQUALS | feature_kind::GREATER => {
                (rec.attr as usize) < n.inputs && rec.shift == 0 && rec.mul == 0 && rec.max_abs == 0
            }
            feature_kind::CONJUNCTION => {
                let first = rec.value as u32 as usize;
                rec.attr >= 1
                    && rec.value >= 0
                    && first + rec.attr as usize <= n.literals
                    && rec.shift == 0
                    && rec.mul == 0
                    && rec.max_abs == 0
            }
            _ => false,
        };
        check(ok, Error::FeatureInvalid)?;
    }
    Ok(())
}

/// Checks every unit record: flags, its terms (a sparse unit's inside the term table and naming
/// features that exist; a dense unit reads exactly the standard features, which needs the
/// scales), its classes, its weights inside the weight table, and the accumulator bound of each
/// of its rows.
fn check_units(repr: &ModelRepr<'_>, kind: WeightKind, n: &Counts, inputs: &Inputs) -> Result<()> {
    for u in repr.units.chunks_exact(UnitRec::SIZE) {
        let (rec, pad) = UnitRec::from_array(u.try_into().unwrap_or(&[0; UnitRec::SIZE]));
        check(pad == 0 && rec.flags & !unit_flags::SPARSE == 0 && rec.n_out >= 1, Error::UnitInvalid)?;
        let terms = rec.n_terms as usize;
        let sparse = rec.flags & unit_flags::SPARSE != 0;
        check(!sparse || cfg!(feature = "sparse"), Error::Unsupported)?;
        let term_start = rec.term_start as usize;
        if sparse {
            check(term_start + terms <= n.terms, Error::UnitInvalid)?;
            for t in term_start..term_start + terms {
                check((u16_at(repr.term_features, t) as usize) < n.features, Error::UnitInvalid)?;
            }
        } else {
            check(
                terms == inputs.standard && term_start == 0 && inputs.n_scales == inputs.numeric,
                Error::UnitInvalid,
            )?;
        }
        let start = rec.class_start as usize;
        check(start + rec.n_classes() <= n.unit_classes, Error::UnitInvalid)?;
        for c in start..start + rec.n_classes() {
            check((u16_at(repr.unit_classes, c) as usize) < n.classes, Error::ClassOutOfRange)?;
        }
        let first = rec.weight_start as usize;
        // Checked: on 32-bit targets `weight_start` (a u32) plus the rows can overflow `usize`.
        let end = (rec.n_out as usize).checked_mul(terms + 1).and_then(|e| e.checked_add(first));
        check(end.is_some_and(|end| end <= n.weights), Error::UnitInvalid)?;
        check_accumulator_bound(repr, kind, &rec, sparse)?;
    }
    Ok(())
}

/// Checks that no row of unit `rec` (whose weights are inside the weight table) can overflow
/// its accumulator, whatever the inputs: `format::row_bound`, term by term, with each term's
/// largest feature value. A dense row's terms follow the inputs (a numeric input's scale bound
/// once, then `1` per value of a categorical input).
#[inline]
fn check_accumulator_bound(
    repr: &ModelRepr<'_>,
    kind: WeightKind,
    rec: &UnitRec,
    sparse: bool,
) -> Result<()> {
    let feature_abs = |f: usize| -> u64 {
        let rec: &[u8; FeatureRec::SIZE] = record(repr.features, f);
        if rec[0] == feature_kind::NUMERIC {
            u64::from(le16(rec, 10))
        } else {
            1
        }
    };
    let terms = rec.n_terms as usize;
    let term_start = rec.term_start as usize;
    let width = kind.width();
    let limit = kind.accumulator_limit();
    let rows = repr.weights.get(rec.weight_start as usize * width..).unwrap_or(&[]);
    for row in rows.chunks_exact((terms + 1) * width).take(rec.n_out as usize) {
        let mut bound = format::row_bound(i64::from(weight(row, kind, terms)), []);
        let (mut inputs, mut scales) = (repr.inputs.chunks_exact(2), repr.scales.chunks_exact(10));
        let (mut abs, mut left) = (0u64, 0u16);
        for j in 0..terms {
            if sparse {
                abs = feature_abs(u16_at(repr.term_features, term_start + j) as usize);
            } else if left == 0 {
                (abs, left) = match inputs.next().map_or(1, |r| le16(r, 0)) {
                    0 => (scales.next().map_or(0, |s| u64::from(le16(s, 6))), 1),
                    n => (1, n),
                };
            }
            left = left.saturating_sub(1);
            bound = format::term_bound(bound, i64::from(weight(row, kind, j)), abs);
        }
        check(bound <= limit, Error::AccumulatorMayOverflow)?;
    }
    Ok(())
}

/// Checks the structure: the unit a linear model runs, a decision list's entries (binary units,
/// classes in range), or a tree ([`check_tree`]).
fn check_structure(repr: &ModelRepr<'_>, n: &Counts) -> Result<()> {
    match repr.structure {
        #[cfg(feature = "tree")]
        StructureRepr::Tree { nodes, children } => check_tree(repr, nodes, children, n),
        #[cfg(feature = "list")]
        StructureRepr::List { entries, default_class } => {
            let n_entries = count(entries, ListEntryRec::SIZE)?;
            check((default_class as usize) < n.classes, Error::ClassOutOfRange)?;
            for e in 0..n_entries {
                let rec = ListEntryRec::from_array(record(entries, e));
                check(
                    (rec.unit as usize) < n.units && binary_unit(repr, rec.unit as usize),
                    Error::ListEntryInvalid,
                )?;
                check((rec.class as usize) < n.classes, Error::ClassOutOfRange)?;
            }
            Ok(())
        }
        StructureRepr::Linear { unit: u } => check((u as usize) < n.units, Error::UnitInvalid),
        // Rejected by `check_supported` (`structure_enabled`).
        #[allow(unreachable_patterns)]
        _ => Err(Error::Unsupported),
    }
}

/// Whether unit `u` (in range) has one row: the units a list entry or a unit split reads.
#[cfg(any(feature = "tree", feature = "list"))]
fn binary_unit(repr: &ModelRepr<'_>, u: usize) -> bool {
    UnitRec::from_array(record(repr.units, u)).0.n_out == 1
}

/// Checks a tree's nodes: at least one; each of a known kind with its unused link zero, its
/// classes, inputs and units in range (a unit split's unit binary, a categorical node's input
/// categorical with one child per value), and every child, the implicit next node included,
/// a node that exists after it, so that every walk from the root ends.
#[cfg(feature = "tree")]
fn check_tree(repr: &ModelRepr<'_>, nodes: &[u8], children: &[u8], n: &Counts) -> Result<()> {
    let n_nodes = count(nodes, NodeRec::SIZE)?;
    let n_children = count(children, 2)?;
    check(n_nodes >= 1, Error::NodeInvalid)?;
    // Heads below `LEAF_OR_SPLIT` are inputs: with no more inputs than that, the walk's one
    // comparison of a head with the inputs served tells a threshold node from every other kind.
    check(n.inputs <= usize::from(node_kind::LEAF_OR_SPLIT), Error::LimitExceeded)?;
    for i in 0..n_nodes {
        let rec = NodeRec::from_array(record(nodes, i));
        let forward = |c: u16| check(c as usize > i && (c as usize) < n_nodes, Error::LinkNotForward);
        // A split's implicit child is the next node.
        let next = || check(i + 1 < n_nodes, Error::LinkNotForward);
        let index = rec.value as u32 as usize;
        match rec.head {
            input if input < node_kind::LEAF_OR_SPLIT => {
                check((input as usize) < n.inputs, Error::NodeInvalid)?;
                next()?;
                forward(rec.link)?;
            }
            node_kind::CLASS => {
                check(rec.link == 0, Error::NodeInvalid)?;
                check(rec.value >= 0 && index < n.classes, Error::ClassOutOfRange)?;
            }
            node_kind::UNIT => {
                check(rec.link == 0 && rec.value >= 0 && index < n.units, Error::NodeInvalid)?;
            }
            node_kind::CATEGORICAL => {
                check((rec.link as usize) < n.inputs, Error::NodeInvalid)?;
                let inp = InputRec::from_array(record(repr.inputs, rec.link as usize));
                let (first, c) = rec.categorical_entries();
                let (first, c) = (first as usize, c as usize);
                check(inp.n_values >= 1 && inp.n_values as usize == c, Error::NodeInvalid)?;
                check(first + c <= n_children, Error::NodeInvalid)?;
                next()?;
                for k in first..first + c {
                    forward(u16_at(children, k))?;
                }
            }
            node_kind::JUMP => {
                check(i > 0 && rec.value == 0, Error::NodeInvalid)?;
                forward(rec.link)?;
            }
            node_kind::UNIT_SPLIT => {
                check(rec.value >= 0 && index < n.units && binary_unit(repr, index), Error::NodeInvalid)?;
                next()?;
                forward(rec.link)?;
            }
            _ => return Err(Error::NodeInvalid),
        }
    }
    Ok(())
}

/// Checks the optional host block: it decodes, has one record per input, and its names (if
/// any) have one line per input, categorical value and class.
#[cfg(feature = "host")]
fn check_host(repr: &ModelRepr<'_>, n: &Counts, inputs: &Inputs) -> Result<()> {
    if let Some(host) = repr.host {
        let host = HostRepr::decode(host).ok_or(Error::BodyDecode)?;
        check(count(host.inputs, HostInputRec::SIZE)? == n.inputs, Error::HostInvalid)?;
        if let Some(names) = host.names {
            check(lines(names) == inputs.values.saturating_add(n.inputs + n.classes), Error::NamesInvalid)?;
        }
        let n_channels = repr.pipeline.map_or(0, |p| usize::from(p.n_channels));
        check(count(host.channels, HostChannelRec::SIZE)? == n_channels, Error::HostInvalid)?;
        if let Some(names) = host.channel_names {
            check(n_channels > 0 && lines(names) == n_channels + 1, Error::NamesInvalid)?;
        }
    }
    Ok(())
}

/// Lines of a names text (one more than its line breaks).
#[cfg(feature = "host")]
fn lines(text: &str) -> usize {
    text.bytes().filter(|&b| b == b'\n').count() + 1
}

/// Checks the sensor pipeline: 1 to 255 channels, a window the statistics accept and a hop,
/// one valid window feature per input, and every input numeric (a statistic is a number).
#[cfg(feature = "pipeline")]
fn check_pipeline(repr: &ModelRepr<'_>, n: &Counts) -> Result<()> {
    let Some(p) = repr.pipeline else { return Ok(()) };
    let n_channels = usize::from(p.n_channels);
    check(
        (1..=255).contains(&n_channels)
            && usize::from(p.window) <= MAX_WINDOW_LEN
            && (p.window == 0 || p.hop >= 1)
            && p.features.len() == n.inputs.saturating_mul(WindowFeatureRec::SIZE),
        Error::PipelineInvalid,
    )?;
    for (rec, input) in p.features.chunks_exact(WindowFeatureRec::SIZE).zip(repr.inputs.chunks_exact(2)) {
        let rec = WindowFeatureRec::from_array(rec.try_into().unwrap_or(&[0; WindowFeatureRec::SIZE]));
        let valid = rec.feature().is_some_and(|f| f.validate(n_channels).is_ok());
        check(valid && le16(input, 0) == 0, Error::PipelineInvalid)?;
    }
    Ok(())
}

/// What [`Model::unit`] and [`Model::list`] answer when an input a unit read was missing, in
/// place of a class (every class is below 65 536): one register, where a `Result` would be
/// returned through the caller's stack.
const MISSING: usize = usize::MAX;

/// The prediction of a unit evaluator's answer.
#[inline(always)]
fn answer(class: usize) -> Result<usize> {
    check(class != MISSING, Error::PredictInputUnavailable)?;
    Ok(class)
}

fn check(ok: bool, err: Error) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(err)
    }
}

impl<'a> Model<'a> {
    /// Checks and loads a model file without copying it.
    ///
    /// Checks, in order: header and version, the CRC-32, the postcard body (no trailing bytes),
    /// every table length, every index, that tree links only point forward, that every
    /// accumulator is provably free of overflow for any input, and the optional host block (one record per input, names with one line per name).
    ///
    /// ```
    /// # use ltu_runtime::{Model, Error};
    /// assert_eq!(Model::from_bytes(b"not a model").unwrap_err(), Error::HeaderBadMagic);
    /// ```
    ///
    /// # Errors
    /// The first failed check, as the matching [`Error`] variant.
    #[inline(never)] // one copy of the loader, called once; never folded into the caller
    pub fn from_bytes(bytes: &'a [u8]) -> Result<Model<'a>> {
        let repr = format::decode(bytes)?;
        Self::from_repr(repr)
    }

    /// Validates an already decoded body (see [`Model::from_bytes`]).
    ///
    /// # Errors
    /// As [`Model::from_bytes`], minus the header and checksum checks.
    pub fn from_repr(repr: ModelRepr<'a>) -> Result<Model<'a>> {
        // A model without units (a tree of tests) never reads a weight, so it loads whatever its
        // weight kind and whichever kinds this build has: the checks below read its (unused)
        // weight table as the first kind this build has. So in a build with weight kinds `kind`
        // is always one of them, and no check is compiled for the others.
        let kind = match FIRST_KIND {
            Some(k) if repr.units.is_empty() => k,
            _ => repr.weight_kind,
        };
        check_supported(&repr, kind)?;
        let n = count_tables(&repr, kind)?;
        let inputs = check_inputs(&repr, n.inputs)?;
        #[cfg(feature = "sparse")]
        check_feature_table(&repr, &n)?;
        check_units(&repr, kind, &n, &inputs)?;
        check_structure(&repr, &n)?;
        #[cfg(feature = "pipeline")]
        check_pipeline(&repr, &n)?;
        #[cfg(not(feature = "pipeline"))]
        check(repr.pipeline.is_none(), Error::Unsupported)?;
        #[cfg(feature = "host")]
        check_host(&repr, &n, &inputs)?;
        let all_numeric = inputs.n_scales == n.inputs;
        Ok(Model { repr, n_inputs: n.inputs as u16, all_numeric })
    }

    /// Number of raw inputs `predict` expects.
    pub fn n_inputs(&self) -> usize {
        usize::from(self.n_inputs)
    }

    /// Number of classes; predictions are below this.
    pub fn n_classes(&self) -> usize {
        self.repr.n_classes as usize
    }

    /// Number of standard features (one per numeric input, one per value of a categorical input),
    /// which dense units read.
    pub fn n_standard_features(&self) -> usize {
        self.repr.inputs.chunks_exact(InputRec::SIZE).map(|r| usize::from(le16(r, 0).max(1))).sum()
    }

    /// Number of records in the feature table, which sparse units read.
    pub fn n_features(&self) -> usize {
        self.repr.features.len() / FeatureRec::SIZE
    }

    /// Number of linear threshold units (binary LTUs and linear machines).
    pub fn n_units(&self) -> usize {
        self.repr.units.len() / UnitRec::SIZE
    }

    /// The structure's kind.
    pub fn kind(&self) -> Kind {
        match self.repr.structure {
            StructureRepr::Tree { .. } => Kind::Tree,
            StructureRepr::List { .. } => Kind::List,
            StructureRepr::Linear { .. } => Kind::Linear,
        }
    }

    /// How weights are stored.
    pub fn weight_kind(&self) -> WeightKind {
        self.repr.weight_kind
    }

    /// The cargo features of this crate a build needs to load and evaluate this model: its
    /// structure (`tree`, `list`; a single unit needs none), its weight kind (`i8`, `i16`, `i32`,
    /// `fixed`; none for a model without units, such as a tree of tests) and `sparse` if it has a
    /// feature table. Add `host` to read names and metadata.
    ///
    /// A firmware that runs only this model builds the runtime with exactly these
    /// (`default-features = false`), and links nothing else.
    pub fn features_needed(&self) -> impl Iterator<Item = &'static str> {
        let structure = match self.repr.structure {
            StructureRepr::Tree { .. } => Some("tree"),
            StructureRepr::List { .. } => Some("list"),
            StructureRepr::Linear { .. } => None,
        };
        let kind = match self.repr.weight_kind {
            WeightKind::I8 => "i8",
            WeightKind::I16 => "i16",
            WeightKind::I32 => "i32",
            WeightKind::Fixed => "fixed",
        };
        let sparse = !(self.repr.features.is_empty()
            && self.repr.literals.is_empty()
            && self.repr.term_features.is_empty()
            && self.repr.units.chunks_exact(UnitRec::SIZE).all(|u| u[0] & unit_flags::SPARSE == 0));
        let kind = (!self.repr.units.is_empty()).then_some(kind);
        let pipeline = self.repr.pipeline.is_some().then_some("pipeline");
        [structure, sparse.then_some("sparse"), kind, pipeline].into_iter().flatten()
    }

    /// The raw body, for tools that inspect the model's tables.
    pub fn repr(&self) -> &ModelRepr<'a> {
        &self.repr
    }

    /// Descriptor of raw input `i`, if it exists.
    pub fn input(&self, i: usize) -> Option<InputRec> {
        (i < self.n_inputs()).then(|| InputRec::from_array(record(self.repr.inputs, i)))
    }

    #[cfg(feature = "host")]
    /// What hosts need to know about raw input `i` (decimal scale, missing-value substitute), if the
    /// model has a host block and the input exists.
    pub fn host_input(&self, i: usize) -> Option<HostInputRec> {
        let host = self.host()?;
        (i < self.n_inputs()).then(|| HostInputRec::from_array(record(host.inputs, i)))
    }

    #[cfg(feature = "host")]
    /// The optional names (inputs, category values, classes), from the host block.
    pub fn names(&self) -> Option<Names<'a>> {
        self.host()?.names.map(|text| Names { text, model: *self })
    }

    #[cfg(feature = "host")]
    /// The optional metadata text of the host block (`key=value` lines).
    pub fn meta(&self) -> Option<&'a str> {
        self.host()?.meta
    }

    #[cfg(feature = "host")]
    /// The decoded host block (checked when the model was loaded).
    pub fn host(&self) -> Option<HostRepr<'a>> {
        HostRepr::decode(self.repr.host?)
    }

    /// The sensor pipeline that computes the inputs from raw samples, if the model has one.
    #[cfg(feature = "pipeline")]
    pub fn pipeline(&self) -> Option<Pipeline<'a>> {
        self.repr.pipeline.map(|repr| Pipeline { repr })
    }

    /// Predicts the class of one window of raw samples through the model's pipeline: `channels`
    /// holds one slice of samples per channel (oldest first), and only the window statistics the
    /// evaluation path reads are computed.
    ///
    /// ```
    /// # fn demo(model: &ltu_runtime::Model<'_>, accel: &[i16], gyro: &[i16]) -> ltu_runtime::Result<usize> {
    /// model.predict_window(&[accel, gyro])
    /// # }
    /// ```
    ///
    /// # Errors
    /// [`Error::PredictWindow`] if the model has no pipeline, `channels` is not one slice per
    /// channel, or a slice the model reads is empty or longer than
    /// [`MAX_WINDOW_LEN`].
    #[cfg(feature = "pipeline")]
    pub fn predict_window(&self, channels: &[&[Sample]]) -> Result<usize> {
        self.predict_window_with(channels.len(), |c| channels.get(c).copied())
    }

    /// [`predict_window`](Self::predict_window) with the channels given by a function:
    /// `channel(c)` is channel `c`'s samples, asked only for `c < n_channels` and only for the
    /// channels the evaluation path reads. For callers that keep every channel in one buffer (a C
    /// array, channel-major), which would otherwise build an array of up to 255 slices on the
    /// stack.
    ///
    /// # Errors
    /// As [`predict_window`](Self::predict_window), with `n_channels` for `channels.len()`; a
    /// `None` from `channel` is a window that does not fit.
    #[cfg(feature = "pipeline")]
    pub fn predict_window_with<'s>(
        &self,
        n_channels: usize,
        channel: impl Fn(usize) -> Option<&'s [Sample]>,
    ) -> Result<usize> {
        let pipeline = self.pipeline().ok_or(Error::PredictWindow)?;
        if n_channels != pipeline.n_channels() {
            return Err(Error::PredictWindow);
        }
        let mut bad_window = false;
        let prediction = self.predict_with(|i| {
            let f = pipeline.feature(i)?;
            let value = channel(usize::from(f.channel)).and_then(|c| f.compute(c).ok());
            bad_window |= value.is_none();
            value
        });
        if bad_window {
            return Err(Error::PredictWindow);
        }
        prediction
    }

    /// Predicts the class of the current window of a [`Stream`] made for this model's pipeline
    /// ([`Stream::for_pipeline`]): equal to [`predict_window`](Self::predict_window) of the
    /// windows the stream holds, but the summing statistics come from its running sums in O(1),
    /// and only the inputs the evaluation path reads are finished.
    ///
    /// ```
    /// # use ltu_runtime::{window::Stream, Model, Result};
    /// # fn demo(model: &Model<'_>, frames: &[[i16; 2]]) -> Result<Option<usize>> {
    /// let pipeline = model.pipeline().expect("a model with a sensor pipeline");
    /// // 2 channels, windows of 64 samples, up to 16 inputs: checked against the pipeline.
    /// let mut stream = Stream::<2, 64, 16>::for_pipeline(&pipeline).expect("fits the model");
    /// let mut last = None;
    /// for &frame in frames {
    ///     if stream.push_frame(frame) {
    ///         last = Some(model.predict_stream(&stream)?);
    ///     }
    /// }
    /// # Ok(last)
    /// # }
    /// ```
    ///
    /// # Errors
    /// [`Error::PredictWindow`] if the model has no pipeline, the stream does not serve exactly
    /// the pipeline's features in order with its channel count and window length (checked on
    /// every call: one comparison of 4 bytes per input), or its windows are not full yet.
    #[cfg(feature = "pipeline")]
    pub fn predict_stream<const C: usize, const N: usize, const F: usize>(
        &self,
        stream: &Stream<C, N, F>,
    ) -> Result<usize> {
        let pipeline = self.pipeline().ok_or(Error::PredictWindow)?;
        let mut served = stream.features();
        let same_features = served.len() == self.n_inputs()
            && (0..self.n_inputs()).all(|i| pipeline.feature(i) == served.next());
        let fits = pipeline.n_channels() == C && pipeline.window() == N && same_features;
        if !fits || !stream.is_full() {
            return Err(Error::PredictWindow);
        }
        self.predict_with(|i| stream.value(i))
    }

    /// Predicts the class of one example.
    ///
    /// # Errors
    /// [`Error::PredictInputLength`] if `inputs.len() != n_inputs()`.
    pub fn predict<T: Input>(&self, inputs: &[T]) -> Result<usize> {
        check(inputs.len() == self.n_inputs(), Error::PredictInputLength)?;
        self.evaluate(&mut |i| inputs.get(i).map(|v| v.to_raw()), inputs.len(), None)
    }

    /// Predicts, asking `source` for each input only when the evaluation path needs it.
    ///
    /// `source` may be asked for the same input more than once; cache in it if a read is costly.
    /// Once it returned `None` the prediction fails, but a unit that was reading its inputs still
    /// asks for the rest of them before it stops.
    /// Wrap it with [`InputsRead::track`](crate::InputsRead::track) to learn which inputs were read.
    ///
    /// # Errors
    /// [`Error::PredictInputUnavailable`] if `source` returns `None` for a needed input.
    pub fn predict_with<T: Input>(&self, mut source: impl FnMut(usize) -> Option<T>) -> Result<usize> {
        self.evaluate(&mut |i| source(i).map(Input::to_raw), self.n_inputs(), None)
    }

    /// Predicts and writes per-class scores of the unit that decided into `scores[..n_classes()]`.
    ///
    /// For a linear machine every class it covers gets its row's score; for a binary unit the
    /// positive class gets the score `s` and the negative class `-s`; a class the deciding unit does
    /// not cover gets `i64::MIN`. A constant leaf (or a list's default) scores its class 0.
    /// Scores have [`WeightKind::frac_bits`] fractional bits.
    ///
    /// # Errors
    /// [`Error::PredictInputLength`], or [`Error::PredictScoresBuffer`] if `scores` is too short.
    pub fn predict_scores<T: Input>(&self, inputs: &[T], scores: &mut [i64]) -> Result<usize> {
        check(inputs.len() == self.n_inputs(), Error::PredictInputLength)?;
        let n = self.n_classes();
        let scores = scores.get_mut(..n).ok_or(Error::PredictScoresBuffer)?;
        scores.fill(i64::MIN);
        self.evaluate(&mut |i| inputs.get(i).map(|v| v.to_raw()), inputs.len(), Some(scores))
    }

    /// Evaluates the model on the inputs `src` serves, `served` of them ([`Model::n_inputs`]).
    #[cfg_attr(not(feature = "tree"), allow(unused_mut, unused_variables))]
    fn evaluate<S: FnMut(usize) -> Option<i32>>(
        &self,
        src: &mut S,
        served: usize,
        mut scores: Option<&mut [i64]>,
    ) -> Result<usize> {
        match self.repr.structure {
            StructureRepr::Linear { unit } if WEIGHTS => answer(self.unit(src, unit as usize, scores)),
            #[cfg(feature = "list")]
            StructureRepr::List { entries, default_class } => {
                answer(self.list(src, entries, default_class, scores))
            }
            #[cfg(feature = "tree")]
            StructureRepr::Tree { nodes, children } => match self.leaf(src, served, nodes, children)? {
                Leaf::Unit(u) => answer(self.unit(src, u, scores)),
                Leaf::Class(c) => {
                    set_score(&mut scores, c, 0);
                    Ok(c)
                }
            },
            // A structure this build leaves out never loads (`Error::Unsupported`).
            #[allow(unreachable_patterns)]
            _ => Ok(0),
        }
    }

    /// This model with its weight table read from `weights` instead: a learner's model, whose
    /// weights live in RAM. `weights` must have the table's length and keep every row's
    /// accumulator bound (the learner's updates keep both), so every guarantee of the loaded
    /// model holds for it.
    #[cfg(feature = "learn")]
    pub(crate) fn with_weights<'b>(&self, weights: &'b [u8]) -> Model<'b>
    where
        'a: 'b,
    {
        Model {
            repr: ModelRepr { weights, ..self.repr },
            n_inputs: self.n_inputs,
            all_numeric: self.all_numeric,
        }
    }

    /// [`Model::eval`] that starts with the numeric features another evaluation of the same
    /// input computed (`carry`), so they are not computed again.
    #[cfg(feature = "learn")]
    pub(crate) fn eval_carried<'r, S: FnMut(usize) -> Option<i32>>(
        &'r self,
        src: &'r mut S,
        carry: Carry,
    ) -> Eval<'r, 'a, S> {
        let mut ev = self.eval(src);
        (ev.num, ev.cached) = (carry.num, carry.cached);
        ev
    }

    /// Walks a tree from its root to the leaf that decides for the current input, read from
    /// `src`, which serves `served` inputs ([`Model::n_inputs`], which the loader holds to at
    /// most `LEAF_OR_SPLIT` in a tree model; a slice's length, so that the walk's test of a
    /// threshold node's input against it also bounds the slice's read).
    #[cfg(feature = "tree")]
    #[inline(always)]
    pub(crate) fn leaf<S: FnMut(usize) -> Option<i32>>(
        &self,
        src: &mut S,
        served: usize,
        nodes: &[u8],
        children: &[u8],
    ) -> Result<Leaf> {
        let raw = |src: &mut S, i: usize| src(i).ok_or(Error::PredictInputUnavailable);
        // Whole records only: the loader proved the table is a whole number of them, and that
        // every link and every split's next node is one of them, after its node, so the walk
        // visits at most `n_nodes` nodes and `get` below always finds its record.
        let (nodes, _) = nodes.as_chunks::<{ NodeRec::SIZE }>();
        let mut i: usize = 0;
        loop {
            // The threshold nodes, a tree of tests' common step, in a loop of their own that calls
            // nothing but the input source: what it reads of the source stays in registers. A head
            // below `served` is a threshold node's input, and every head from there up a kind
            // (the loader rejected every other head below `LEAF_OR_SPLIT`, and more inputs than
            // that), so the one comparison tells the kind and bounds the input.
            // The left child is the next node; only the right link is read.
            let n = loop {
                // The loader checked every link: the class-0 leaf is never returned.
                let Some(n) = nodes.get(i) else { return Ok(Leaf::Class(0)) };
                let head = usize::from(NodeRec::head(n));
                if head >= served {
                    break n;
                }
                let x = raw(src, head)?;
                i = if x <= NodeRec::value(n) { i + 1 } else { usize::from(NodeRec::link(n)) };
            };
            let rec = NodeRec::from_array(n);
            let head = rec.head;
            let index = rec.value as u32 as usize;
            i = match head {
                node_kind::CATEGORICAL => {
                    let v = raw(src, usize::from(rec.link))?;
                    let (first, c) = rec.categorical_entries();
                    if v >= 0 && v < i32::from(c) {
                        let k = usize::from(first) + v as usize;
                        usize::from(u16::from_le_bytes(*record(children, k)))
                    } else {
                        i + 1
                    }
                }
                node_kind::JUMP => usize::from(rec.link),
                // The loader checked that a split's unit is binary: its score decides.
                node_kind::UNIT_SPLIT if WEIGHTS => {
                    if self.split(src, index)? {
                        usize::from(rec.link)
                    } else {
                        i + 1
                    }
                }
                node_kind::UNIT if WEIGHTS => return Ok(Leaf::Unit(index)),
                // CLASS: the loader rejected every other kind (and, in a build without weight
                // kinds, every unit: a tree of tests has none).
                _ => return Ok(Leaf::Class(index)),
            };
        }
    }

    /// The state of a prediction's units. Built where a unit is evaluated, in that function's
    /// frame, so a tree walk that ends at a class leaf never holds the numeric cache on its stack.
    #[inline(always)]
    pub(crate) fn eval<'r, S: FnMut(usize) -> Option<i32>>(&'r self, src: &'r mut S) -> Eval<'r, 'a, S> {
        Eval { model: self, src, num: heapless::Vec::new(), cached: false, missing: false }
    }

    /// [`Eval::decide`] for unit `u` (a tree's leaf or split, or a linear model).
    #[inline(never)]
    fn unit<S: FnMut(usize) -> Option<i32>>(
        &self,
        src: &mut S,
        u: usize,
        scores: Option<&mut [i64]>,
    ) -> usize {
        let mut ev = self.eval(src);
        let (class, _) = ev.decide(u, scores);
        if ev.missing {
            MISSING
        } else {
            class
        }
    }

    /// Whether binary unit `u` (a tree's unit split) scores above 0: then the walk takes the
    /// split's link.
    #[cfg(feature = "tree")]
    #[inline(never)]
    fn split<S: FnMut(usize) -> Option<i32>>(&self, src: &mut S, u: usize) -> Result<bool> {
        let mut ev = self.eval(src);
        let s = ev.row(ev.unit_bytes(u), 0);
        ev.done(s > 0)
    }

    /// A decision list: the first entry whose unit fires answers. Every entry reads the same
    /// numeric cache.
    #[cfg(feature = "list")]
    #[inline(never)]
    fn list<S: FnMut(usize) -> Option<i32>>(
        &self,
        src: &mut S,
        entries: &[u8],
        default_class: u16,
        mut scores: Option<&mut [i64]>,
    ) -> usize {
        let mut ev = self.eval(src);
        if let Some((_, class, s)) = ev.fired(entries) {
            set_score(&mut scores, class, s);
            return class;
        }
        if ev.missing {
            return MISSING;
        }
        set_score(&mut scores, default_class as usize, 0);
        default_class as usize
    }
}

/// Numeric inputs whose standard features one prediction computes once and keeps (32 bytes of
/// stack): a decision list's entries, a tree's unit splits and its leaf, and the rows of a linear
/// machine all read them from here. A numeric input beyond these is scaled where it is read.
/// A build with sparse units keeps 24 (48 bytes): a sparse machine keeps its term values here,
/// and one whose terms fit computes each once, not once per row (docs/FORMAT.md section 9
/// measures the trade).
const NUM_CACHE: usize = if cfg!(feature = "sparse") { 24 } else { 16 };

/// The numeric cache: `NUM_CACHE` features and a one-byte length.
type Cache = heapless::Vec<i16, NUM_CACHE, u8>;

/// The numeric features one evaluation computed, for another evaluation of the same input
/// ([`Eval::carry`], [`Model::eval_carried`]).
#[cfg(feature = "learn")]
pub(crate) struct Carry {
    num: Cache,
    cached: bool,
}

/// The state of one prediction: the input source and the numeric inputs' standard features.
pub(crate) struct Eval<'r, 'a, S> {
    model: &'r Model<'a>,
    src: &'r mut S,
    /// Standard features of the first `NUM_CACHE` numeric inputs, in input order, once a dense
    /// unit needed them (`cached`). A `heapless::Vec`: nothing is cleared before it is written.
    num: Cache,
    cached: bool,
    /// The source had no value for an input a unit read. The unit goes on with 0 for it (every
    /// bound holds for any input value) and the prediction fails once the unit is done: one test
    /// per unit instead of a `Result` through every read.
    pub(crate) missing: bool,
}

impl<'a, S: FnMut(usize) -> Option<i32>> Eval<'_, 'a, S> {
    /// The first entry of a decision list whose unit fires (scores above 0): its unit, class and
    /// score. `None` if no entry fires or an input was missing (`missing` is then set).
    #[cfg(feature = "list")]
    #[inline(always)]
    pub(crate) fn fired(&mut self, entries: &[u8]) -> Option<(usize, usize, i64)> {
        for e in entries.chunks_exact(ListEntryRec::SIZE) {
            let (unit, class) = (le16(e, 0) as usize, le16(e, 2) as usize);
            // The loader checked that every entry's unit is binary.
            let s = self.row(self.unit_bytes(unit), 0);
            if self.missing {
                return None;
            }
            if s > 0 {
                return Some((unit, class, s));
            }
        }
        None
    }

    /// The numeric features this evaluation holds, if `num` holds them (a sparse machine's
    /// term values are not carried).
    #[cfg(feature = "learn")]
    pub(crate) fn carry(&self) -> Carry {
        if self.cached {
            Carry { num: self.num.clone(), cached: true }
        } else {
            Carry { num: heapless::Vec::new(), cached: false }
        }
    }

    /// Whether unit `rec` is dense and every input numeric and in the numeric cache (at most
    /// `NUM_CACHE` inputs): then [`Eval::cached_numeric_terms`] gives its terms.
    #[cfg(feature = "learn")]
    pub(crate) fn numeric_cached(&self, rec: &UnitRec) -> bool {
        let dense = !cfg!(feature = "sparse") || rec.flags & unit_flags::SPARSE == 0;
        dense && self.model.all_numeric && self.model.n_inputs() <= NUM_CACHE
    }

    /// What [`Eval::terms`] visits, as an iterator, for a unit [`Eval::numeric_cached`] accepts.
    /// An iterator keeps a caller's loop state in registers, where a visitor's captured state
    /// lives in memory.
    #[cfg(feature = "learn")]
    pub(crate) fn cached_numeric_terms(&mut self) -> impl Iterator<Item = (i32, u32)> + '_ {
        self.fill();
        let scales = self.model.repr.scales.chunks_exact(ScaleRec::SIZE);
        self.num.iter().zip(scales).map(|(&f, s)| (i32::from(f), u32::from(le16(s, 6))))
    }

    /// Calls `visit(f, max_abs)` for each term of unit `rec`, in weight order: the term's
    /// feature value for the current input and the largest magnitude the loader allows it
    /// (the `max|f_j|` of the accumulator bound, at most 32 767, so `|f| ≤ max_abs ≤ 32 767`).
    #[cfg(feature = "learn")]
    pub(crate) fn terms(&mut self, rec: &UnitRec, mut visit: impl FnMut(i32, u32)) {
        if cfg!(feature = "sparse") && rec.flags & unit_flags::SPARSE != 0 {
            let at = rec.term_start as usize * 2;
            let terms = self.model.repr.term_features.get(at..at + 2 * rec.n_terms as usize).unwrap_or(&[]);
            for t in terms.chunks_exact(2) {
                let f: &[u8; FeatureRec::SIZE] = record(self.model.repr.features, le16(t, 0) as usize);
                let abs = if f[0] == feature_kind::NUMERIC { u32::from(le16(f, 10)) } else { 1 };
                visit(self.feature(f), abs);
            }
            return;
        }
        self.fill();
        if self.model.all_numeric {
            // Every input numeric: term `j` is input `j` through scale `j`; the first
            // `NUM_CACHE` are in `num` (`fill` put them there).
            let mut scales = self.model.repr.scales.chunks_exact(ScaleRec::SIZE);
            for (&f, s) in self.num.iter().zip(&mut scales) {
                visit(i32::from(f), u32::from(le16(s, 6)));
            }
            for (j, s) in (self.num.len()..).zip(scales) {
                visit(self.numeric(j, j), u32::from(le16(s, 6)));
            }
            return;
        }
        let mut scales = self.model.repr.scales.chunks_exact(ScaleRec::SIZE);
        let mut k = 0;
        for (attr, n) in self.model.repr.inputs.chunks_exact(InputRec::SIZE).enumerate() {
            match le16(n, 0) {
                0 => {
                    let abs = scales.next().map_or(0, |s| u32::from(le16(s, 6)));
                    visit(self.numeric(k, attr), abs);
                    k += 1;
                }
                n => {
                    let x = self.raw(attr);
                    for v in 0..i32::from(n) {
                        visit(if x == v { 1 } else { -1 }, 1);
                    }
                }
            }
        }
    }

    /// Raw input `i`, or 0 with `missing` set when the source has none.
    #[inline(always)]
    fn raw(&mut self, i: usize) -> i32 {
        match (self.src)(i) {
            Some(v) => v,
            None => {
                self.missing = true;
                0
            }
        }
    }

    /// `value`, unless an input was missing.
    #[cfg(any(feature = "tree", feature = "learn"))]
    pub(crate) fn done<T>(&self, value: T) -> Result<T> {
        check(!self.missing, Error::PredictInputUnavailable)?;
        Ok(value)
    }

    /// The record of unit `u`, as its bytes in the model.
    #[inline(always)]
    pub(crate) fn unit_bytes(&self, u: usize) -> &'a [u8; UnitRec::SIZE] {
        record(self.model.repr.units, u)
    }

    #[cfg(feature = "learn")]
    pub(crate) fn unit(&self, u: usize) -> UnitRec {
        UnitRec::from_array(record(self.model.repr.units, u)).0
    }

    pub(crate) fn unit_class(&self, rec: &UnitRec, k: usize) -> usize {
        u16::from_le_bytes(*record(self.model.repr.unit_classes, rec.class_start as usize + k)) as usize
    }

    /// The class unit `u` chooses (binary: score > 0 is positive; machine: argmax, lowest row on
    /// ties) and the score of the chosen row (a binary unit's score `s`, whatever it decides).
    /// With `scores`, writes the per-class scores `predict_scores` documents.
    fn decide(&mut self, u: usize, mut scores: Option<&mut [i64]>) -> (usize, i64) {
        let bytes = self.unit_bytes(u);
        let rec = UnitRec::from_array(bytes).0;
        if rec.n_out == 1 {
            let s = self.row(bytes, 0);
            let (neg, pos) = (self.unit_class(&rec, 0), self.unit_class(&rec, 1));
            set_score(&mut scores, neg, -s);
            set_score(&mut scores, pos, s);
            return (if s > 0 { pos } else { neg }, s);
        }
        // A sparse machine whose terms fit the cache computes each term's feature once.
        let cached =
            cfg!(feature = "sparse") && rec.flags & unit_flags::SPARSE != 0 && self.cache_terms(&rec);
        // Every score lies above `i64::MIN` (the loader's bound keeps `|s|` at most `i64::MAX`),
        // so row 0 always replaces the initial value.
        let mut best = (i64::MIN, 0);
        for o in 0..rec.n_out as usize {
            let s = if cached { self.cached_row_score(bytes, o) } else { self.row(bytes, o) };
            if s > best.0 {
                best = (s, o);
            }
            if let Some(c) = scores.as_deref_mut().and_then(|out| out.get_mut(self.unit_class(&rec, o))) {
                *c = (*c).max(s);
            }
        }
        (self.unit_class(&rec, best.1), best.0)
    }

    /// The model's weight kind; in a build with one weight kind, that kind, known at compile
    /// time: the loader rejects a model with units of any other kind (`Error::Unsupported`),
    /// and a model without units never scores a row.
    #[inline(always)]
    fn kind(&self) -> WeightKind {
        ONLY_KIND.unwrap_or(self.model.repr.weight_kind)
    }

    /// Score of row `o` of a unit: bias plus the dot product of its weights with its terms. The
    /// loader's bound makes every product and partial sum of an integer row fit in `i32`.
    /// One arm per weight width, so each reads its weights without a width test. A kind this
    /// build leaves out never loads; its arm is not compiled in.
    /// The unit record is passed as its bytes in the model, decoded here field by field as the
    /// row needs them: a decoded `UnitRec` would be written to the caller's stack for the call.
    #[inline(never)] // one copy, shared by lists, splits, leaves, machine rows and the learner
    pub(crate) fn row(&mut self, rec: &[u8; UnitRec::SIZE], o: usize) -> i64 {
        match self.kind() {
            WeightKind::I8 if cfg!(feature = "i8") => self.row_w::<1, false>(rec, o),
            WeightKind::I16 if cfg!(feature = "i16") => self.row_w::<2, false>(rec, o),
            WeightKind::I32 if cfg!(feature = "i32") => self.row_w::<4, false>(rec, o),
            WeightKind::Fixed if cfg!(feature = "fixed") => self.row_w::<4, true>(rec, o),
            _ => 0,
        }
    }

    /// [`Eval::row`] for weights of `W` bytes (`I16F16` bits if `FIXED`).
    #[inline(always)]
    fn row_w<const W: usize, const FIXED: bool>(&mut self, rec: &[u8; UnitRec::SIZE], o: usize) -> i64 {
        let rec = UnitRec::from_array(rec).0;
        let terms = rec.n_terms as usize;
        // The loader checked that the unit's rows (terms, then bias) lie inside the weight table.
        let first = rec.weight_start as usize + o * (terms + 1);
        let row = self.model.repr.weights.get(first * W..).unwrap_or(&[]);
        let bias = i64::from(row.get(terms * W..).map_or(0, le_int::<W>));
        if cfg!(feature = "sparse") && rec.flags & unit_flags::SPARSE != 0 {
            let at = rec.term_start as usize * 2;
            let features = self.model.repr.term_features.get(at..at + 2 * terms).unwrap_or(&[]);
            return bias + self.sparse_dot::<W, FIXED>(row, features);
        }
        // The mixed and `I16F16` products are out of line and finish the row (tail calls): the
        // row scorer's own frame, on the stack under every unit, holds only the all-numeric
        // loops' registers.
        if FIXED {
            return self.dense_mixed::<W, i64>(row, bias);
        }
        if !self.model.all_numeric {
            // The loader's bound covers the bias with the terms: every partial sum fits in `i32`.
            return self.dense_mixed::<W, i32>(row, bias as i32);
        }
        bias + i64::from(self.dense_dot::<W>(row))
    }

    /// Puts the feature value of each term of sparse unit `rec` into `num`. Only a machine calls
    /// this: a machine is the last unit of any prediction (a tree's leaf or a linear model), so
    /// no later unit reads the numeric features `num` may have held. Every term has a non-zero
    /// weight in some row (the trainer stores no other), so every term is read anyway.
    #[inline(never)]
    fn cache_terms(&mut self, rec: &UnitRec) -> bool {
        let at = rec.term_start as usize * 2;
        let terms = self.model.repr.term_features.get(at..at + 2 * rec.n_terms as usize).unwrap_or(&[]);
        self.num.clear();
        for t in terms.chunks_exact(2).take(NUM_CACHE) {
            let f = self.feature(record(self.model.repr.features, le16(t, 0) as usize));
            // A feature value lies in -32767..=32767 (the loader bounds every `max_abs`).
            let _ = self.num.push(f as i16);
        }
        // Marks `num` as not holding the numeric features any more.
        self.cached = false;
        true
    }

    /// [`Eval::row`] of a sparse machine's row over the term values [`Eval::cache_terms`]
    /// put into `num`.
    #[inline(never)]
    fn cached_row_score(&mut self, rec: &[u8; UnitRec::SIZE], o: usize) -> i64 {
        match self.kind() {
            WeightKind::I8 if cfg!(feature = "i8") => self.cached_row::<1, false>(rec, o),
            WeightKind::I16 if cfg!(feature = "i16") => self.cached_row::<2, false>(rec, o),
            WeightKind::I32 if cfg!(feature = "i32") => self.cached_row::<4, false>(rec, o),
            WeightKind::Fixed if cfg!(feature = "fixed") => self.cached_row::<4, true>(rec, o),
            _ => 0,
        }
    }

    #[inline(always)]
    fn cached_row<const W: usize, const FIXED: bool>(&mut self, rec: &[u8; UnitRec::SIZE], o: usize) -> i64 {
        let rec = UnitRec::from_array(rec).0;
        let terms = rec.n_terms as usize;
        let first = rec.weight_start as usize + o * (terms + 1);
        let row = self.model.repr.weights.get(first * W..).unwrap_or(&[]);
        let bias = i64::from(le_int::<W>(record::<W>(self.model.repr.weights, first + terms)));
        // The terms beyond the cache, computed for this row.
        let n = self.num.len();
        let tail = if terms > n {
            let at = rec.term_start as usize * 2;
            let features = self.model.repr.term_features.get(at + 2 * n..at + 2 * terms).unwrap_or(&[]);
            self.sparse_dot::<W, FIXED>(row.get(n * W..).unwrap_or(&[]), features)
        } else {
            0
        };
        let pairs = row.chunks_exact(W).zip(self.num.iter());
        if FIXED {
            bias + tail + pairs.map(|(w, &f)| i64::from(le_int::<W>(w)) * i64::from(f)).sum::<i64>()
        } else {
            // The loader's bound makes every partial sum of an integer row fit in `i32`.
            bias + tail + i64::from(pairs.fold(0i32, |acc, (w, &f)| acc + le_int::<W>(w) * i32::from(f)))
        }
    }

    /// Dot product of a sparse row's term weights (width `W`; `I16F16` bits if `FIXED`) with the
    /// features its terms name. A zero weight costs no feature (a sparse machine's rows read few
    /// of their terms). The loader's bound makes an integer row's products and sums fit in `i32`.
    #[inline(always)]
    fn sparse_dot<const W: usize, const FIXED: bool>(&mut self, row: &[u8], terms: &[u8]) -> i64 {
        let mut acc = 0i64;
        for (w, t) in row.chunks_exact(W).zip(terms.chunks_exact(2)) {
            let w = le_int::<W>(w);
            if w != 0 {
                let f = self.feature(record(self.model.repr.features, le16(t, 0) as usize));
                acc += if FIXED { i64::from(w) * i64::from(f) } else { i64::from(w * f) };
            }
        }
        acc
    }

    /// Scales the first `NUM_CACHE` numeric inputs into `num`, once per prediction (a dense unit
    /// reads every input, so nothing is read that the prediction would not read anyway).
    #[inline(always)]
    fn fill(&mut self) {
        if !self.cached {
            self.fill_cache();
        }
    }

    /// [`Eval::fill`]'s work, out of line: one loop over the inputs, for models with categorical
    /// inputs, `I16F16` weights and the learner (an all-numeric model's first dense row fills the
    /// cache as it multiplies, [`Eval::dense_dot`]).
    #[inline(never)]
    fn fill_cache(&mut self) {
        self.cached = true;
        let mut scales = self.model.repr.scales.chunks_exact(ScaleRec::SIZE).take(NUM_CACHE);
        for (attr, n) in self.model.repr.inputs.chunks_exact(InputRec::SIZE).enumerate() {
            if le16(n, 0) == 0 {
                // `take` keeps the cache within its capacity.
                let Some(s) = scales.next() else { break };
                let x = self.raw(attr);
                let _ = self.num.push(scale(x, s.first_chunk().unwrap_or(&[0; ScaleRec::SIZE])) as i16);
            }
        }
    }

    /// Standard feature of numeric input `attr`, the `k`-th numeric input.
    #[inline(always)]
    fn numeric(&mut self, k: usize, attr: usize) -> i32 {
        match self.num.get(k) {
            Some(&v) => i32::from(v),
            None => self.scaled(k, attr),
        }
    }

    /// [`Eval::numeric`] of an input beyond the cache: read and scaled again.
    #[inline(never)]
    fn scaled(&mut self, k: usize, attr: usize) -> i32 {
        scale(self.raw(attr), record(self.model.repr.scales, k))
    }

    /// Dot product of a dense row's term weights (width `W`) with the standard features of a
    /// model whose inputs are all numeric (the common case for sensor data): feature `j` is
    /// input `j`'s.
    #[inline(always)]
    fn dense_dot<const W: usize>(&mut self, row: &[u8]) -> i32 {
        let mut acc = 0i32;
        if !self.cached {
            // The first dense unit of the prediction scales the inputs as it reads them and
            // keeps the first `NUM_CACHE` for the units after it.
            self.cached = true;
            let scales = self.model.repr.scales.chunks_exact(ScaleRec::SIZE);
            for ((j, s), w) in scales.enumerate().zip(row.chunks_exact(W)) {
                let x = self.raw(j);
                let f = scale(x, s.first_chunk().unwrap_or(&[0; ScaleRec::SIZE]));
                // Full after `NUM_CACHE`: later units scale the rest again.
                let _ = self.num.push(f as i16);
                acc += le_int::<W>(w) * f;
            }
            return acc;
        }
        // `num` holds the first `min(n_inputs, NUM_CACHE)` features: the zip stops there.
        for (w, &f) in row.chunks_exact(W).zip(self.num.iter()) {
            acc += le_int::<W>(w) * i32::from(f);
        }
        if self.model.n_inputs() > NUM_CACHE {
            acc += self.dense_tail::<W>(row.get(NUM_CACHE * W..).unwrap_or(&[]));
        }
        acc
    }

    /// `bias` plus the dot product of a dense row's term weights (width `W`) with the standard
    /// features, walking the inputs (numeric or categorical), in the accumulator `T`: `i32` for
    /// integer weights of a model with categorical inputs (the loader's bound keeps every partial
    /// sum in it), `i64` for `I16F16` bits.
    #[inline(never)]
    fn dense_mixed<const W: usize, T: Accumulator>(&mut self, row: &[u8], bias: T) -> i64 {
        let mut acc = bias;
        self.fill();
        let mut w = row.chunks_exact(W).map(|b| T::from(le_int::<W>(b)));
        let mut k = 0;
        for (attr, n) in self.model.repr.inputs.chunks_exact(InputRec::SIZE).enumerate() {
            match le16(n, 0) {
                0 => {
                    acc = acc + w.next().unwrap_or_default() * T::from(self.numeric(k, attr));
                    k += 1;
                }
                // Utgoff's symmetric encoding: +1 for the input's value, -1 for the others.
                n => {
                    let x = self.raw(attr);
                    for v in 0..i32::from(n) {
                        let wj = w.next().unwrap_or_default();
                        acc = if x == v { acc + wj } else { acc - wj };
                    }
                }
            }
        }
        acc.into()
    }

    /// The all-numeric dot product's terms beyond the cache, each scaled where it is read.
    #[inline(never)]
    fn dense_tail<const W: usize>(&mut self, tail: &[u8]) -> i32 {
        let mut acc = 0;
        for (j, w) in (NUM_CACHE..self.model.n_inputs()).zip(tail.chunks_exact(W)) {
            acc += le_int::<W>(w) * self.numeric(j, j);
        }
        acc
    }

    /// Value of the feature of record `rec` for the current input.
    #[inline(always)]
    fn feature(&mut self, rec: &[u8; FeatureRec::SIZE]) -> i32 {
        let (attr, value) = (le16(rec, 2) as usize, le32(rec, 4));
        let sign = |b: bool| if b { 1 } else { -1 };
        match rec[0] {
            feature_kind::NUMERIC => {
                quantize(self.raw(attr), value, le16(rec, 8) as i16, rec[1], le16(rec, 10))
            }
            feature_kind::EQUALS => sign(self.raw(attr) == value),
            feature_kind::GREATER => sign(self.raw(attr) > value),
            // CONJUNCTION: the loader rejected every other kind.
            _ => self.conjunction(value as usize, attr),
        }
    }

    /// `+1` if literals `first..first + n` all hold, else `-1` (stops at the first that fails).
    #[inline(never)]
    fn conjunction(&mut self, first: usize, n: usize) -> i32 {
        let lits = self.model.repr.literals.get(first * LiteralRec::SIZE..(first + n) * LiteralRec::SIZE);
        for lit in lits.unwrap_or(&[]).chunks_exact(LiteralRec::SIZE) {
            let (x, v) = (self.raw(le16(lit, 0) as usize), le32(lit, 4));
            let holds = match lit[2] {
                literal_op::EQ => x == v,
                literal_op::NE => x != v,
                literal_op::GT => x > v,
                _ => x <= v,
            };
            if !holds {
                return -1;
            }
        }
        1
    }
}

/// The accumulator of a dense row's dot product ([`Eval::dense_mixed`]): `i32` or `i64`.
trait Accumulator:
    Copy
    + Default
    + From<i32>
    + Into<i64>
    + core::ops::Add<Output = Self>
    + core::ops::Sub<Output = Self>
    + core::ops::Mul<Output = Self>
{
}

impl Accumulator for i32 {}
impl Accumulator for i64 {}

/// A numeric input's standard feature, with its [`ScaleRec`].
#[inline(always)]
fn scale(x: i32, rec: &[u8; ScaleRec::SIZE]) -> i32 {
    quantize(x, le32(rec, 0), le16(rec, 4) as i16, rec[8], le16(rec, 6))
}

/// `clamp(((x - offset) * mul) >> shift, -max_abs, max_abs)`, exactly as computed in `i64`.
///
/// When `d = x - offset` fits in `i32` (the usual case), `|p| = |d * mul| <= 2^46` is one 32x32->64
/// multiply, and 32-bit operations finish it: `t = p >> 16` fits in `i32`; for `shift >= 16` the
/// result is `t >> (shift - 16)`; for a smaller shift, `p` itself fits in `i32` when `t` fits in
/// `i16` (then the result is `(p as i32) >> shift`), and otherwise `|p >> shift| >= 2^16 > max_abs`
/// saturates to the sign of `t`. Arithmetic shifts round towards minus infinity, so shifting in
/// two steps gives the same result as one. The loader checked `shift <= 32` and `max_abs <= 32767`.
#[inline(always)]
fn quantize(x: i32, offset: i32, mul: i16, shift: u8, max_abs: u16) -> i32 {
    let m = i32::from(max_abs);
    let Some(d) = x.checked_sub(offset) else {
        return quantize_wide(x, offset, mul, shift, m);
    };
    // ARMv6-M (Cortex-M0/M0+/M1; the Arm targets without 32-bit atomics) has no 32x32->64
    // multiply: it takes the 32-bit product whenever that suffices. Elsewhere one `smull` is
    // cheaper than the extra test.
    if cfg!(all(target_arch = "arm", not(target_has_atomic = "32"))) && (-0xFFFF..=0xFFFF).contains(&d) {
        return quantize_narrow(d, mul, shift, m);
    }
    let p = i64::from(d) * i64::from(mul);
    let t = (p >> 16) as i32;
    let shift = u32::from(shift);
    let q = if shift >= 16 {
        t >> ((shift - 16) & 31)
    } else if i32::from(t as i16) == t {
        (p as i32) >> shift
    } else if t < 0 {
        -m
    } else {
        m
    };
    q.clamp(-m, m)
}

/// [`quantize`] for `|d| = |x - offset| <= 0xFFFF`: `|d * mul| <= 0xFFFF * 2^15 < 2^31` is a 32-bit
/// product, and a shift of 32 gives the product's sign, as `p >> 31` does.
#[inline(always)]
fn quantize_narrow(d: i32, mul: i16, shift: u8, m: i32) -> i32 {
    let p = d * i32::from(mul);
    (p >> u32::from(shift).min(31)).clamp(-m, m)
}

/// [`quantize`] when `x - offset` overflows `i32`: in `i64` (`|x - offset| < 2^33`, `|mul| <= 2^15`).
#[inline(never)]
#[cold]
fn quantize_wide(x: i32, offset: i32, mul: i16, shift: u8, m: i32) -> i32 {
    let q = ((i64::from(x) - i64::from(offset)) * i64::from(mul)) >> (shift & 63);
    q.clamp(-i64::from(m), i64::from(m)) as i32
}

/// The first weight kind this build has, if any.
const FIRST_KIND: Option<WeightKind> = if cfg!(feature = "i8") {
    Some(WeightKind::I8)
} else if cfg!(feature = "i16") {
    Some(WeightKind::I16)
} else if cfg!(feature = "i32") {
    Some(WeightKind::I32)
} else if cfg!(feature = "fixed") {
    Some(WeightKind::Fixed)
} else {
    None
};

/// The weight kind of a build with exactly one.
const ONLY_KIND: Option<WeightKind> =
    match (cfg!(feature = "i8"), cfg!(feature = "i16"), cfg!(feature = "i32"), cfg!(feature = "fixed")) {
        (true, false, false, false) => Some(WeightKind::I8),
        (false, true, false, false) => Some(WeightKind::I16),
        (false, false, true, false) => Some(WeightKind::I32),
        (false, false, false, true) => Some(WeightKind::Fixed),
        _ => None,
    };

/// Whether this build has any weight kind, that is, evaluates units at all. Without one only a
/// model without units loads, and the unit evaluator is not compiled in.
const WEIGHTS: bool = cfg!(any(feature = "i8", feature = "i16", feature = "i32", feature = "fixed"));

/// Whether this build evaluates `structure` (cargo features `tree` and `list`; a single unit is
/// always supported).
fn kind_enabled(kind: WeightKind) -> bool {
    match kind {
        WeightKind::I8 => cfg!(feature = "i8"),
        WeightKind::I16 => cfg!(feature = "i16"),
        WeightKind::I32 => cfg!(feature = "i32"),
        WeightKind::Fixed => cfg!(feature = "fixed"),
    }
}

fn structure_enabled(structure: &StructureRepr<'_>) -> bool {
    match structure {
        StructureRepr::Tree { .. } => cfg!(feature = "tree"),
        StructureRepr::List { .. } => cfg!(feature = "list"),
        StructureRepr::Linear { .. } => true,
    }
}

fn set_score(scores: &mut Option<&mut [i64]>, class: usize, s: i64) {
    if let Some(out) = scores.as_deref_mut().and_then(|out| out.get_mut(class)) {
        *out = s;
    }
}

/// Record `i` of a table of `N`-byte records. The loader checked every index the evaluator uses,
/// so the zero record is never returned for a loaded model; it only spares the evaluator a panic
/// path.
#[inline(always)]
fn record<const N: usize>(table: &[u8], i: usize) -> &[u8; N] {
    // Sliced by its end, so that one comparison with the table's length bounds it (`get(i * N..)`
    // then `first_chunk` costs two and a select). Wrapping arithmetic has no panic path; an index
    // so large that `end` wraps only ever gets the zero record or some other record in bounds.
    let end = i.wrapping_mul(N).wrapping_add(N);
    match table.get(end.wrapping_sub(N)..end) {
        Some(r) if end >= N => r.first_chunk::<N>().unwrap_or(&[0; N]),
        _ => &[0; N],
    }
}

/// Little-endian `u16` at byte `at` of `b` (0 if out of range).
#[inline(always)]
fn le16(b: &[u8], at: usize) -> u16 {
    match b.get(at..).and_then(|b| b.first_chunk::<2>()) {
        Some(r) => u16::from_le_bytes(*r),
        None => 0,
    }
}

/// Little-endian `i32` at byte `at` of `b` (0 if out of range).
#[inline(always)]
fn le32(b: &[u8], at: usize) -> i32 {
    match b.get(at..).and_then(|b| b.first_chunk::<4>()) {
        Some(r) => i32::from_le_bytes(*r),
        None => 0,
    }
}

/// The first `W`-byte little-endian signed integer of `b`, as an `i32` (0 if `b` is shorter).
#[inline(always)]
fn le_int<const W: usize>(b: &[u8]) -> i32 {
    match W {
        1 => b.first().map_or(0, |&v| i32::from(v as i8)),
        2 => le16(b, 0) as i16 as i32,
        _ => le32(b, 0),
    }
}

/// Weight `e` of the table as an `i32` (raw bits for `Fixed`).
#[inline]
fn weight(table: &[u8], kind: WeightKind, e: usize) -> i32 {
    match kind {
        WeightKind::I8 if cfg!(feature = "i8") => le_int::<1>(table.get(e..).unwrap_or(&[])),
        WeightKind::I16 if cfg!(feature = "i16") => le_int::<2>(table.get(2 * e..).unwrap_or(&[])),
        WeightKind::I32 | WeightKind::Fixed if cfg!(any(feature = "i32", feature = "fixed")) => {
            le_int::<4>(table.get(4 * e..).unwrap_or(&[]))
        }
        _ => 0,
    }
}

/// A model's sensor pipeline ([`Model::pipeline`]), checked when the model was loaded.
#[cfg(feature = "pipeline")]
#[derive(Debug, Clone, Copy)]
pub struct Pipeline<'a> {
    repr: format::PipelineRepr<'a>,
}

#[cfg(feature = "pipeline")]
impl Pipeline<'_> {
    /// Channels of a frame of samples.
    pub fn n_channels(&self) -> usize {
        usize::from(self.repr.n_channels)
    }

    /// Samples per window; 0 when the whole recording is one window.
    pub fn window(&self) -> usize {
        usize::from(self.repr.window)
    }

    /// Samples from the start of one window to the next.
    pub fn hop(&self) -> usize {
        usize::from(self.repr.hop)
    }

    /// What input `i` is; `None` past the last input.
    pub fn feature(&self, i: usize) -> Option<WindowFeature> {
        let rec = self.repr.features.chunks_exact(WindowFeatureRec::SIZE).nth(i)?;
        WindowFeatureRec::from_array(rec.try_into().ok()?).feature()
    }
}

/// The optional names of a model (in its host block).
#[cfg(feature = "host")]
#[derive(Debug, Clone, Copy)]
pub struct Names<'a> {
    text: &'a str,
    model: Model<'a>,
}

#[cfg(feature = "host")]
impl<'a> Names<'a> {
    fn line(&self, k: usize) -> &'a str {
        // Byte scan instead of `str::split`, which links a panic path into the firmware.
        let bytes = self.text.as_bytes();
        let mut start = 0;
        let mut line = 0;
        for (i, &b) in bytes.iter().enumerate() {
            if b == b'\n' {
                if line == k {
                    return self.text.get(start..i).unwrap_or("");
                }
                line += 1;
                start = i + 1;
            }
        }
        if line == k {
            self.text.get(start..).unwrap_or("")
        } else {
            ""
        }
    }

    /// Name of input `i` (empty if out of range).
    pub fn input(&self, i: usize) -> &'a str {
        if i < self.model.n_inputs() {
            self.line(i)
        } else {
            ""
        }
    }

    /// Name of value `v` of categorical input `i` (empty if out of range).
    pub fn value(&self, i: usize, v: usize) -> &'a str {
        let mut k = self.model.n_inputs();
        for j in 0..i.min(self.model.n_inputs()) {
            k += self.model.input(j).map_or(0, |r| r.n_values as usize);
        }
        match self.model.input(i) {
            Some(r) if v < r.n_values as usize => self.line(k + v),
            _ => "",
        }
    }

    /// Name of class `c` (empty if out of range).
    pub fn class(&self, c: usize) -> &'a str {
        if c >= self.model.n_classes() {
            return "";
        }
        let values: usize =
            (0..self.model.n_inputs()).map(|j| self.model.input(j).map_or(0, |r| r.n_values as usize)).sum();
        self.line(self.model.n_inputs() + values + c)
    }
}

#[cfg(test)]
mod tests {
    use super::{quantize, quantize_narrow};

    /// The 32-bit path (used on cores without a 64-bit multiply) equals the `i64` formula on
    /// every difference it accepts.
    #[test]
    fn quantize_narrow_matches_i64() {
        let ds = [-0xFFFF, -0xFFFE, -32_768, -255, -1, 0, 1, 2, 255, 32_767, 0xFFFE, 0xFFFF];
        for shift in 0..=32u8 {
            for m in [1u16, 127, 32_767] {
                for mul in [i16::MIN, -300, -1, 0, 1, 7, i16::MAX] {
                    for d in ds.into_iter().chain((-0xFFFF..=0xFFFF).step_by(997)) {
                        let want = (i64::from(d) * i64::from(mul)) >> shift;
                        let want = want.clamp(-i64::from(m), i64::from(m)) as i32;
                        assert_eq!(
                            quantize_narrow(d, mul, shift, i32::from(m)),
                            want,
                            "{d} {mul} {shift} {m}"
                        );
                    }
                }
            }
        }
    }

    /// The 32-bit quantization equals the plain `i64` formula on edge and pseudo-random values.
    #[test]
    fn quantize_matches_i64() {
        let xs =
            [i32::MIN, i32::MIN + 1, -65_537, -32_768, -1, 0, 1, 3, 32_767, 65_536, i32::MAX - 1, i32::MAX];
        let muls = [i16::MIN, -300, -1, 0, 1, 2, 7, 300, i16::MAX];
        let maxes = [1u16, 2, 127, 1000, 32_767];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for shift in 0..=32u8 {
            for &m in &maxes {
                for &mul in &muls {
                    for &x in &xs {
                        for &offset in &xs {
                            let want = ((i64::from(x) - i64::from(offset)) * i64::from(mul)) >> shift;
                            let want = want.clamp(-i64::from(m), i64::from(m)) as i32;
                            assert_eq!(
                                quantize(x, offset, mul, shift, m),
                                want,
                                "{x} {offset} {mul} {shift} {m}"
                            );
                        }
                    }
                }
                for _ in 0..2000 {
                    let r = next();
                    let (x, offset, mul) = (r as i32, (r >> 32) as i32 >> (r % 31), (r >> 17) as i16);
                    let want = ((i64::from(x) - i64::from(offset)) * i64::from(mul)) >> shift;
                    let want = want.clamp(-i64::from(m), i64::from(m)) as i32;
                    assert_eq!(quantize(x, offset, mul, shift, m), want, "{x} {offset} {mul} {shift} {m}");
                }
            }
        }
    }
}

//! The model file format: header, postcard body, fixed-width record tables, checksum.
//!
//! The byte-level specification is `docs/FORMAT.md`; this module is its only implementation.
//!
//! ```text
//! offset 0   4 bytes  MAGIC  b"LTUM"
//! offset 4   2 bytes  format VERSION, u16 little-endian
//! offset 6   n bytes  postcard encoding of `ModelRepr`
//! end - 4    4 bytes  CRC-32 (IEEE) of every preceding byte, u32 little-endian
//! ```
//!
//! `ModelRepr` holds a few scalars and borrowed byte tables. Each table is a run of fixed-width
//! little-endian records (`*Rec` types here), so the evaluator reads weights and nodes in place from
//! flash without copying or aligning them. The `Repr` types are the raw, unchecked form:
//! [`Model::from_bytes`](crate::Model::from_bytes) validates them.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// First four bytes of every model file.
pub const MAGIC: [u8; 4] = *b"LTUM";
/// The format version this runtime reads and writes.
pub const VERSION: u16 = 5;
/// Bytes before the postcard body: magic and version.
pub const HEADER_LEN: usize = 6;
/// Bytes after the postcard body: the CRC-32.
pub const CHECKSUM_LEN: usize = 4;

/// Largest number of inputs, scales, features, literals, units, nodes, children, list entries or
/// classes.
pub const MAX_COUNT: usize = u16::MAX as usize;
/// Largest magnitude of a quantized numeric feature.
pub const MAX_FEATURE_ABS: u16 = i16::MAX as u16;

/// How every weight and bias of a model is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum WeightKind {
    /// `i8`; accumulated in `i32`.
    I8,
    /// `i16` little-endian; accumulated in `i32`.
    I16,
    /// `i32` little-endian; accumulated in `i32` (the loader proves the bound).
    I32,
    /// `fixed::types::I16F16` little-endian bits; accumulated as `I48F16` in `i64`.
    Fixed,
}

impl WeightKind {
    /// Bytes per stored weight.
    pub const fn width(self) -> usize {
        match self {
            WeightKind::I8 => 1,
            WeightKind::I16 => 2,
            WeightKind::I32 | WeightKind::Fixed => 4,
        }
    }

    /// Fractional bits of scores computed with this kind (0 for integers, 16 for `Fixed`).
    pub const fn frac_bits(self) -> u32 {
        match self {
            WeightKind::Fixed => 16,
            _ => 0,
        }
    }

    /// Largest absolute accumulator value the loader accepts for this kind.
    pub const fn accumulator_limit(self) -> u64 {
        match self {
            WeightKind::Fixed => i64::MAX as u64,
            _ => i32::MAX as u64,
        }
    }
}

/// The accumulator bound of one weight row: `|bias| + Σ |w_j|·max|f_j|` over its terms, given as
/// `(w_j, max|f_j|)` pairs, saturating at `u64::MAX`. No score of the row can exceed it in
/// magnitude, so a row whose bound is at most [`WeightKind::accumulator_limit`] cannot overflow
/// the accumulator. [`Model::from_bytes`](crate::Model::from_bytes) rejects a row whose bound is
/// over the limit ([`Error::AccumulatorMayOverflow`]); the trainer quantizes with this function,
/// so the two agree on which models are safe.
///
/// ```
/// use ltu_runtime::format::row_bound;
///
/// assert_eq!(row_bound(-3, [(2, 127), (-5, 1)]), 3 + 2 * 127 + 5);
/// assert_eq!(row_bound(0, [(i64::MIN, u64::MAX)]), u64::MAX);
/// ```
pub fn row_bound(bias: i64, terms: impl IntoIterator<Item = (i64, u64)>) -> u64 {
    terms.into_iter().fold(bias.unsigned_abs(), |acc, (w, max_abs)| term_bound(acc, w, max_abs))
}

/// One step of [`row_bound`]: `acc + |w| · max_abs`, saturating. The loader adds up a row's bound
/// with it term by term.
#[inline(always)]
pub const fn term_bound(acc: u64, w: i64, max_abs: u64) -> u64 {
    acc.saturating_add(w.unsigned_abs().saturating_mul(max_abs))
}

/// The model's top-level structure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum StructureRepr<'a> {
    /// A tree of [`NodeRec`]s; node 0 is the root, children only point forward.
    Tree {
        /// [`NodeRec`] table.
        #[serde(borrow)]
        nodes: &'a [u8],
        /// Child node indices of categorical splits, `u16` little-endian.
        #[serde(borrow)]
        children: &'a [u8],
    },
    /// An ordered list of (binary unit, class) entries: the first unit with a positive score
    /// decides; if none does, `default_class`.
    List {
        /// [`ListEntryRec`] table.
        #[serde(borrow)]
        entries: &'a [u8],
        /// Class when no entry fires.
        default_class: u16,
    },
    /// A single unit (binary LTU or linear machine).
    Linear {
        /// Index of the unit.
        unit: u16,
    },
}

/// The raw, unvalidated body of a model file (postcard-encoded after the header).
///
/// A model reads two kinds of features. The **standard features** are implied by [`inputs`]: a
/// numeric input gives one feature, `clamp(((x - offset) * mul) >> shift, -max_abs, max_abs)` with
/// the next [`ScaleRec`] of [`scales`]; a categorical input of `n` values gives `n` features, `+1`
/// if `x` is that value else `-1` (Utgoff's encoding). A *dense* unit reads every standard feature,
/// in input order, and needs no record per feature. A *sparse* unit reads features of the
/// [`features`] table through its [`term_features`].
///
/// [`inputs`]: ModelRepr::inputs
/// [`scales`]: ModelRepr::scales
/// [`features`]: ModelRepr::features
/// [`term_features`]: ModelRepr::term_features
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelRepr<'a> {
    /// Number of classes.
    pub n_classes: u16,
    /// How weights are stored.
    pub weight_kind: WeightKind,
    /// [`InputRec`] table: one record per raw input.
    #[serde(borrow)]
    pub inputs: &'a [u8],
    /// [`ScaleRec`] table: one record per numeric input, in input order; empty when no unit is
    /// dense.
    #[serde(borrow)]
    pub scales: &'a [u8],
    /// [`FeatureRec`] table: the features sparse units read.
    #[serde(borrow)]
    pub features: &'a [u8],
    /// [`LiteralRec`] table used by conjunction features.
    #[serde(borrow)]
    pub literals: &'a [u8],
    /// [`UnitRec`] table.
    #[serde(borrow)]
    pub units: &'a [u8],
    /// Indices into [`features`](ModelRepr::features) of sparse units' terms, `u16` little-endian.
    #[serde(borrow)]
    pub term_features: &'a [u8],
    /// Weights and biases, [`WeightKind::width`] bytes each, little-endian.
    #[serde(borrow)]
    pub weights: &'a [u8],
    /// Class lists of units, `u16` little-endian.
    #[serde(borrow)]
    pub unit_classes: &'a [u8],
    /// What the units are arranged in.
    #[serde(borrow)]
    pub structure: StructureRepr<'a>,
    /// The sensor pipeline that computes the inputs from raw samples; absent for a model whose
    /// inputs are given directly.
    #[serde(borrow)]
    pub pipeline: Option<PipelineRepr<'a>>,
    /// What hosts need besides the evaluator: how to turn decimal values into raw inputs, what
    /// to substitute for a missing value, names, and a description of how the model was made —
    /// the postcard encoding of a [`HostRepr`], length-prefixed so an evaluator can skip it.
    /// Absent in a model stripped for a device.
    #[serde(borrow)]
    pub host: Option<&'a [u8]>,
}

/// How a model's inputs are computed from windows of raw samples: input `i` is the statistic of
/// the [`WindowFeatureRec`] `i` (see [`crate::window::WindowFeature`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PipelineRepr<'a> {
    /// Channels of a frame of samples, 1 to 255.
    pub n_channels: u16,
    /// Samples per window, at most [`crate::window::MAX_WINDOW_LEN`]; 0: the whole recording is
    /// one window.
    pub window: u16,
    /// Samples from the start of one window to the next; at least 1 when `window > 0`.
    pub hop: u16,
    /// [`WindowFeatureRec`] table: one record per input, in input order.
    #[serde(borrow)]
    pub features: &'a [u8],
}

/// The optional host block of a model, decoded: nothing in it changes a prediction. The file holds
/// its postcard encoding as one byte string ([`ModelRepr::host`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostRepr<'a> {
    /// [`HostInputRec`] table: one record per raw input.
    #[serde(borrow)]
    pub inputs: &'a [u8],
    /// Optional names, one per line: inputs, then each categorical input's values, then classes.
    #[serde(borrow)]
    pub names: Option<&'a str>,
    /// Optional metadata: UTF-8 text, one `key=value` per line (algorithm, options, seed, the
    /// version of the tool that trained it, a fingerprint of the training data).
    #[serde(borrow)]
    pub meta: Option<&'a str>,
    /// [`HostChannelRec`] table: one record per channel of the [`PipelineRepr`]; empty without
    /// one.
    #[serde(borrow)]
    pub channels: &'a [u8],
    /// Optional pipeline names, one per line: the recording column of the long layout (an empty
    /// line for the wide layout), then one name per channel.
    #[serde(borrow)]
    pub channel_names: Option<&'a str>,
}

impl<'a> HostRepr<'a> {
    /// Decodes a host block (the bytes of [`ModelRepr::host`]); `None` unless it is exactly one
    /// well-formed `HostRepr` with UTF-8 texts.
    pub fn decode(bytes: &'a [u8]) -> Option<HostRepr<'a>> {
        let mut body = Body(bytes);
        let host = HostRepr {
            inputs: body.bytes()?,
            names: body.text()?,
            meta: body.text()?,
            channels: body.bytes()?,
            channel_names: body.text()?,
        };
        body.0.is_empty().then_some(host)
    }

    /// Writes the host block's bytes into `out`; returns how many.
    ///
    /// # Errors
    /// [`Error::EncodeBufferTooSmall`] if `out` cannot hold them.
    pub fn encode(&self, out: &mut [u8]) -> Result<usize> {
        Ok(postcard::to_slice(self, out).map_err(|_| Error::EncodeBufferTooSmall)?.len())
    }
}

/// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320), as used by zip and PNG.
///
/// Detects every single-bit and every burst error up to 32 bits, so a flipped flash bit or a
/// truncated transfer (the checksum then covers different bytes) is always caught.
///
/// Computed four bits at a time from a 16-entry table (64 bytes of flash instead of the 1 KiB of
/// a byte-wise table), two lookups per byte.
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = Crc32::new();
    crc.update(bytes);
    crc.finish()
}

/// [`crc32`] of bytes given in pieces: `update` with each piece in order, then `finish`. For
/// data that is never in one slice, such as a learned model written from flash and RAM.
#[derive(Debug, Clone, Copy)]
pub struct Crc32(u32);

impl Crc32 {
    const TABLE: [u32; 16] = {
        let mut table = [0u32; 16];
        let mut i = 0;
        while i < 16 {
            let mut c = i as u32;
            let mut k = 0;
            while k < 4 {
                c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
                k += 1;
            }
            table[i] = c;
            i += 1;
        }
        table
    };

    /// The CRC of no bytes yet.
    pub const fn new() -> Self {
        Crc32(!0)
    }

    /// Adds `bytes` after those added so far.
    #[inline]
    pub fn update(&mut self, bytes: &[u8]) {
        let mut crc = self.0;
        for &b in bytes {
            crc ^= u32::from(b);
            crc = Self::TABLE[(crc & 0xF) as usize] ^ (crc >> 4);
            crc = Self::TABLE[(crc & 0xF) as usize] ^ (crc >> 4);
        }
        self.0 = crc;
    }

    /// The CRC-32 of every byte added.
    pub const fn finish(self) -> u32 {
        !self.0
    }
}

impl Default for Crc32 {
    fn default() -> Self {
        Self::new()
    }
}

/// Checks header and checksum and decodes the body, rejecting trailing bytes.
///
/// This does not validate the tables; [`Model::from_bytes`](crate::Model::from_bytes) does.
///
/// # Errors
/// [`Error::HeaderTooShort`], [`Error::HeaderBadMagic`], [`Error::HeaderUnsupportedVersion`],
/// [`Error::ChecksumMismatch`], [`Error::BodyDecode`], [`Error::BodyTrailingBytes`].
pub fn decode(bytes: &[u8]) -> Result<ModelRepr<'_>> {
    if bytes.len() < HEADER_LEN + CHECKSUM_LEN {
        return Err(Error::HeaderTooShort);
    }
    let Some((header, _)) = bytes.split_first_chunk::<HEADER_LEN>() else {
        return Err(Error::HeaderTooShort);
    };
    if header[..4] != MAGIC {
        return Err(Error::HeaderBadMagic);
    }
    if u16::from_le_bytes([header[4], header[5]]) != VERSION {
        return Err(Error::HeaderUnsupportedVersion);
    }
    let Some((covered, tail)) = bytes.split_last_chunk::<CHECKSUM_LEN>() else {
        return Err(Error::HeaderTooShort);
    };
    let stored = u32::from_le_bytes(*tail);
    if crc32(covered) != stored {
        return Err(Error::ChecksumMismatch);
    }
    let mut body = Body(covered.get(HEADER_LEN..).unwrap_or(&[]));
    let repr = body.model().ok_or(Error::BodyDecode)?;
    if !body.0.is_empty() {
        return Err(Error::BodyTrailingBytes);
    }
    Ok(repr)
}

/// A reader of the postcard wire format of [`ModelRepr`], written out by hand: the derived
/// `Deserialize` and postcard's generic deserializer cost about 1 KiB of flash for the few types a
/// model uses. It accepts exactly what `postcard::take_from_bytes::<ModelRepr>` accepts on a
/// 32-bit target (`tests` check it against postcard on every golden file and on mutated bodies).
struct Body<'a>(&'a [u8]);

impl<'a> Body<'a> {
    fn byte(&mut self) -> Option<u8> {
        let (&b, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(b)
    }

    /// Unsigned LEB128 of at most `max` bytes, whose last byte may hold at most `last` (postcard:
    /// `varint_max` and `max_of_last_byte` of the type).
    fn varint(&mut self, max: u32, last: u8) -> Option<u32> {
        let mut out = 0u32;
        for i in 0..max {
            let b = self.byte()?;
            out |= u32::from(b & 0x7F) << (7 * i);
            if b & 0x80 == 0 {
                return (i + 1 < max || b <= last).then_some(out);
            }
        }
        None
    }

    fn u16(&mut self) -> Option<u16> {
        self.varint(3, 0x03).map(|v| v as u16)
    }

    fn u32(&mut self) -> Option<u32> {
        self.varint(5, 0x0F)
    }

    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = self.u32()? as usize;
        let (taken, rest) = self.0.split_at_checked(n)?;
        self.0 = rest;
        Some(taken)
    }

    fn model(&mut self) -> Option<ModelRepr<'a>> {
        let n_classes = self.u16()?;
        let weight_kind = match self.u32()? {
            0 => WeightKind::I8,
            1 => WeightKind::I16,
            2 => WeightKind::I32,
            3 => WeightKind::Fixed,
            _ => return None,
        };
        let (inputs, scales, features, literals, units) =
            (self.bytes()?, self.bytes()?, self.bytes()?, self.bytes()?, self.bytes()?);
        let (term_features, weights, unit_classes) = (self.bytes()?, self.bytes()?, self.bytes()?);
        let structure = match self.u32()? {
            0 => StructureRepr::Tree { nodes: self.bytes()?, children: self.bytes()? },
            1 => StructureRepr::List { entries: self.bytes()?, default_class: self.u16()? },
            2 => StructureRepr::Linear { unit: self.u16()? },
            _ => return None,
        };
        let pipeline = match self.byte()? {
            0 => None,
            1 => Some(PipelineRepr {
                n_channels: self.u16()?,
                window: self.u16()?,
                hop: self.u16()?,
                features: self.bytes()?,
            }),
            _ => return None,
        };
        let host = match self.byte()? {
            0 => None,
            1 => Some(self.bytes()?),
            _ => return None,
        };
        Some(ModelRepr {
            n_classes,
            weight_kind,
            inputs,
            scales,
            features,
            literals,
            units,
            term_features,
            weights,
            unit_classes,
            structure,
            pipeline,
            host,
        })
    }

    /// `Option<&str>`: `00`, or `01` and a UTF-8 string (`Some(None)` is an absent string).
    fn text(&mut self) -> Option<Option<&'a str>> {
        match self.byte()? {
            0 => Some(None),
            1 => Some(Some(core::str::from_utf8(self.bytes()?).ok()?)),
            _ => None,
        }
    }
}

/// Writes a complete model file (header, body, checksum) into `out`; returns the bytes written.
///
/// No validation happens here: load the result with [`Model::from_bytes`](crate::Model::from_bytes)
/// to check it (the trainer always does).
///
/// # Errors
/// [`Error::EncodeBufferTooSmall`] if `out` cannot hold the file.
pub fn encode(repr: &ModelRepr<'_>, out: &mut [u8]) -> Result<usize> {
    if out.len() < HEADER_LEN + CHECKSUM_LEN {
        return Err(Error::EncodeBufferTooSmall);
    }
    out[..4].copy_from_slice(&MAGIC);
    out[4..6].copy_from_slice(&VERSION.to_le_bytes());
    let body_len =
        postcard::to_slice(repr, &mut out[HEADER_LEN..]).map_err(|_| Error::EncodeBufferTooSmall)?.len();
    let end = HEADER_LEN + body_len;
    if out.len() < end + CHECKSUM_LEN {
        return Err(Error::EncodeBufferTooSmall);
    }
    let crc = crc32(&out[..end]);
    out[end..end + CHECKSUM_LEN].copy_from_slice(&crc.to_le_bytes());
    Ok(end + CHECKSUM_LEN)
}

/// Reads the `i`-th little-endian `u16` of a table; 0 past its end (callers check the bound, so
/// the loader and evaluator have no panic path here).
#[inline]
pub(crate) fn u16_at(table: &[u8], i: usize) -> u16 {
    match table.get(2 * i..).and_then(|t| t.first_chunk::<2>()) {
        Some(b) => u16::from_le_bytes(*b),
        None => 0,
    }
}

/// A reader of a `u16` little-endian table, for tools: `u16_table(t)(i)` is entry `i`.
///
/// Panics if `i` is out of range; the model's own accessors never call it unchecked.
pub fn u16_table(table: &[u8]) -> impl Fn(usize) -> u16 + '_ {
    move |i| u16::from_le_bytes([table[2 * i], table[2 * i + 1]])
}

/// One raw input (2 bytes): `n_values`, `0` for a numeric input (a number in raw units) and
/// the number of values of a categorical input (a value index `0..n_values`; anything else is
/// "unknown").
///
/// | bytes | field |
/// |---|---|
/// | 0..2 | `n_values` |
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct InputRec {
    /// `0`: numeric; else categorical with this many values.
    pub n_values: u16,
}

impl InputRec {
    /// Record size in bytes.
    pub const SIZE: usize = 2;

    /// Whether the input is numeric.
    pub const fn is_numeric(&self) -> bool {
        self.n_values == 0
    }

    /// Reads a record; panics if `b` is shorter than [`Self::SIZE`] (a tool helper; the runtime
    /// itself reads records through total accessors).
    pub fn parse(b: &[u8]) -> Self {
        Self::from_array(b[..Self::SIZE].try_into().expect("2 bytes"))
    }

    /// Reads a record.
    #[inline]
    pub fn from_array(b: &[u8; Self::SIZE]) -> Self {
        InputRec { n_values: u16::from_le_bytes(*b) }
    }

    /// The record's bytes.
    pub fn to_bytes(&self) -> [u8; Self::SIZE] {
        self.n_values.to_le_bytes()
    }
}

/// How a numeric input becomes its standard feature (10 bytes, one per numeric input, in input
/// order): `clamp(((x - offset) * mul) >> shift, -max_abs, max_abs)`, computed exactly as in `i64`.
///
/// | bytes | field | type |
/// |---|---|---|
/// | 0..4 | `offset` | i32 |
/// | 4..6 | `mul` | i16 |
/// | 6..8 | `max_abs` | u16, `1..=32767` |
/// | 8 | `shift` | u8, `0..=32` |
/// | 9 | padding | 0 |
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ScaleRec {
    /// Subtracted first.
    pub offset: i32,
    /// Multiplier.
    pub mul: i16,
    /// Clamp bound.
    pub max_abs: u16,
    /// Arithmetic right shift.
    pub shift: u8,
}

impl ScaleRec {
    /// Record size in bytes.
    pub const SIZE: usize = 10;

    /// Reads a record and its padding byte; panics if `b` is too short (a tool helper).
    pub fn parse(b: &[u8]) -> (Self, u8) {
        Self::from_array(b[..Self::SIZE].try_into().expect("10 bytes"))
    }

    /// Reads a record and its padding byte.
    #[inline(always)]
    pub fn from_array(b: &[u8; Self::SIZE]) -> (Self, u8) {
        let rec = ScaleRec {
            offset: i32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            mul: i16::from_le_bytes([b[4], b[5]]),
            max_abs: u16::from_le_bytes([b[6], b[7]]),
            shift: b[8],
        };
        (rec, b[9])
    }

    /// The record's bytes.
    pub fn to_bytes(&self) -> [u8; Self::SIZE] {
        let mut b = [0; Self::SIZE];
        b[0..4].copy_from_slice(&self.offset.to_le_bytes());
        b[4..6].copy_from_slice(&self.mul.to_le_bytes());
        b[6..8].copy_from_slice(&self.max_abs.to_le_bytes());
        b[8] = self.shift;
        b
    }
}

/// What hosts need to know about one raw input (13 bytes, in the host block).
///
/// A decimal value `v` of a numeric input is the raw input `round(v * 10^scale_exp) - offset`:
/// `offset` is in raw units (steps of `10^-scale_exp`), so the value it stands for is
/// `offset * 10^-scale_exp`. The runtime evaluates raw inputs and never reads this record.
///
/// | bytes | field | type |
/// |---|---|---|
/// | 0 | `scale_exp` | i8: decimal exponent of the raw unit |
/// | 1..5 | `missing` | i32: the raw value hosts substitute for a missing value |
/// | 5..13 | `offset` | i64: raw units subtracted after scaling (0 for categorical inputs) |
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct HostInputRec {
    /// Decimal exponent of the raw unit (numeric inputs; 0 for categorical ones).
    pub scale_exp: i8,
    /// Raw value substituted for a missing value.
    pub missing: i32,
    /// Offset subtracted from the scaled value, in raw units (numeric inputs; 0 for categorical
    /// ones).
    pub offset: i64,
}

impl HostInputRec {
    /// Record size in bytes.
    pub const SIZE: usize = 13;

    /// Reads a record.
    #[inline]
    pub fn from_array(b: &[u8; Self::SIZE]) -> Self {
        let mut offset = [0; 8];
        offset.copy_from_slice(&b[5..13]);
        HostInputRec {
            scale_exp: b[0] as i8,
            missing: i32::from_le_bytes([b[1], b[2], b[3], b[4]]),
            offset: i64::from_le_bytes(offset),
        }
    }

    /// The record's bytes.
    pub fn to_bytes(&self) -> [u8; Self::SIZE] {
        let mut b = [0; Self::SIZE];
        b[0] = self.scale_exp as u8;
        b[1..5].copy_from_slice(&self.missing.to_le_bytes());
        b[5..13].copy_from_slice(&self.offset.to_le_bytes());
        b
    }
}

/// One input of a [`PipelineRepr`]: a statistic of one channel over a segment of the window,
/// 4 bytes: channel, [`Stat`](crate::window::Stat) code, segments, segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowFeatureRec {
    /// Channel, below [`PipelineRepr::n_channels`].
    pub channel: u8,
    /// [`Stat::code`](crate::window::Stat::code).
    pub stat: u8,
    /// Equal parts the window is cut into, 1 to [`MAX_SEGMENTS`](crate::window::MAX_SEGMENTS).
    pub segments: u8,
    /// The part the statistic is over, below `segments`.
    pub segment: u8,
}

impl WindowFeatureRec {
    /// Record size in bytes.
    pub const SIZE: usize = 4;

    /// Reads a record.
    #[inline]
    pub const fn from_array(b: &[u8; Self::SIZE]) -> Self {
        WindowFeatureRec { channel: b[0], stat: b[1], segments: b[2], segment: b[3] }
    }

    /// The record's bytes.
    pub const fn to_bytes(&self) -> [u8; Self::SIZE] {
        [self.channel, self.stat, self.segments, self.segment]
    }

    /// The feature it describes, if its statistic is known (its ranges are checked by
    /// [`WindowFeature::validate`](crate::window::WindowFeature::validate)).
    pub fn feature(&self) -> Option<crate::window::WindowFeature> {
        Some(crate::window::WindowFeature {
            channel: self.channel,
            stat: crate::window::Stat::from_code(self.stat)?,
            segments: self.segments,
            segment: self.segment,
        })
    }
}

/// One channel of a [`PipelineRepr`] in the host block, 1 byte: the decimal exponent of its
/// samples (a value `v` is the sample `round(v · 10^scale_exp)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostChannelRec {
    /// Decimal exponent.
    pub scale_exp: i8,
}

impl HostChannelRec {
    /// Record size in bytes.
    pub const SIZE: usize = 1;
}

/// Kind byte of a [`FeatureRec`].
pub mod feature_kind {
    /// `clamp(((x - offset) * mul) >> shift, -max_abs, max_abs)` of a raw input `x`.
    pub const NUMERIC: u8 = 0;
    /// `+1` if input `x == value`, else `-1` (Utgoff's symmetric encoding of attribute = value).
    pub const EQUALS: u8 = 1;
    /// `+1` if input `x > value`, else `-1`.
    pub const GREATER: u8 = 2;
    /// `+1` if every literal holds, else `-1`.
    pub const CONJUNCTION: u8 = 3;
}

/// One feature (12 bytes).
///
/// | bytes | field |
/// |---|---|
/// | 0 | `kind` ([`feature_kind`]) |
/// | 1 | `shift` (numeric, `0..=32`; else 0) |
/// | 2..4 | `attr`: input index; for a conjunction, the number of literals |
/// | 4..8 | `value`: numeric offset, compared value, or a conjunction's first literal index |
/// | 8..10 | `mul` (numeric, i16; else 0) |
/// | 10..12 | `max_abs` (numeric, `1..=32767`; else 0) |
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FeatureRec {
    /// [`feature_kind`].
    pub kind: u8,
    /// Right shift after multiplying (numeric).
    pub shift: u8,
    /// Input index, or number of literals for a conjunction.
    pub attr: u16,
    /// Offset, compared value, or first literal index.
    pub value: i32,
    /// Multiplier (numeric).
    pub mul: i16,
    /// Clamp bound (numeric).
    pub max_abs: u16,
}

impl FeatureRec {
    /// Encoded size.
    pub const SIZE: usize = 12;
    /// Decodes one record.
    ///
    /// # Panics
    /// If `b` is shorter than [`FeatureRec::SIZE`].
    pub fn parse(b: &[u8]) -> Self {
        Self::from_array(b[..Self::SIZE].try_into().expect("12 bytes"))
    }
    /// Decodes one record from exactly its bytes.
    #[inline]
    pub fn from_array(b: &[u8; Self::SIZE]) -> Self {
        FeatureRec {
            kind: b[0],
            shift: b[1],
            attr: u16::from_le_bytes([b[2], b[3]]),
            value: i32::from_le_bytes([b[4], b[5], b[6], b[7]]),
            mul: i16::from_le_bytes([b[8], b[9]]),
            max_abs: u16::from_le_bytes([b[10], b[11]]),
        }
    }
    /// Encodes one record.
    pub fn to_bytes(&self) -> [u8; Self::SIZE] {
        let mut b = [0; Self::SIZE];
        b[0] = self.kind;
        b[1] = self.shift;
        b[2..4].copy_from_slice(&self.attr.to_le_bytes());
        b[4..8].copy_from_slice(&self.value.to_le_bytes());
        b[8..10].copy_from_slice(&self.mul.to_le_bytes());
        b[10..12].copy_from_slice(&self.max_abs.to_le_bytes());
        b
    }
}

/// Operator byte of a [`LiteralRec`].
pub mod literal_op {
    /// `x == value`
    pub const EQ: u8 = 0;
    /// `x != value`
    pub const NE: u8 = 1;
    /// `x > value`
    pub const GT: u8 = 2;
    /// `x <= value`
    pub const LE: u8 = 3;
}

/// One literal of a conjunction (8 bytes): `attr` u16, `op` u8, padding u8 (0), `value` i32.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LiteralRec {
    /// Input index.
    pub attr: u16,
    /// [`literal_op`].
    pub op: u8,
    /// Compared value.
    pub value: i32,
}

impl LiteralRec {
    /// Encoded size.
    pub const SIZE: usize = 8;
    /// Decodes one record; the second value is the padding byte (must be 0).
    ///
    /// # Panics
    /// If `b` is shorter than [`LiteralRec::SIZE`].
    pub fn parse(b: &[u8]) -> (Self, u8) {
        Self::from_array(b[..Self::SIZE].try_into().expect("8 bytes"))
    }
    /// Decodes one record from exactly its bytes; the second value is the padding byte.
    #[inline]
    pub fn from_array(b: &[u8; Self::SIZE]) -> (Self, u8) {
        let value = i32::from_le_bytes([b[4], b[5], b[6], b[7]]);
        (LiteralRec { attr: u16::from_le_bytes([b[0], b[1]]), op: b[2], value }, b[3])
    }
    /// Encodes one record.
    pub fn to_bytes(&self) -> [u8; Self::SIZE] {
        let mut b = [0; Self::SIZE];
        b[0..2].copy_from_slice(&self.attr.to_le_bytes());
        b[2] = self.op;
        b[4..8].copy_from_slice(&self.value.to_le_bytes());
        b
    }
}

/// Flag bits of a [`UnitRec`].
pub mod unit_flags {
    /// Terms are features of the feature table listed in `term_features`; otherwise the unit is
    /// dense over the standard features (see [`ModelRepr`](super::ModelRepr)).
    pub const SPARSE: u8 = 1;
}

/// One linear threshold unit (16 bytes).
///
/// A unit has `n_out` weight rows of `n_terms` weights followed by one bias, stored consecutively
/// from `weight_start`. Row `o` scores `bias_o + sum_j w_oj * feature(term_j)`.
/// `n_out == 1` is a binary LTU whose classes are `[negative, positive]` (positive iff score > 0);
/// `n_out >= 2` is a linear machine: the class of the row with the highest score, ties going to
/// the lowest row.
///
/// | bytes | field |
/// |---|---|
/// | 0 | `flags` ([`unit_flags`]) |
/// | 1 | padding (0) |
/// | 2..4 | `n_out` |
/// | 4..6 | `n_terms` |
/// | 6..8 | padding (0) |
/// | 8..10 | `term_start` into `term_features` (sparse; else 0) |
/// | 10..12 | `class_start` into `unit_classes` (`max(n_out, 2)` entries) |
/// | 12..16 | `weight_start` into `weights`, in weights |
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnitRec {
    /// [`unit_flags`].
    pub flags: u8,
    /// Weight rows.
    pub n_out: u16,
    /// Terms per row.
    pub n_terms: u16,
    /// First feature index entry.
    pub term_start: u16,
    /// First class entry.
    pub class_start: u16,
    /// First weight.
    pub weight_start: u32,
}

impl UnitRec {
    /// Encoded size.
    pub const SIZE: usize = 16;
    /// Decodes one record; the second value is the OR of the padding bytes (must be 0).
    ///
    /// # Panics
    /// If `b` is shorter than [`UnitRec::SIZE`].
    pub fn parse(b: &[u8]) -> (Self, u8) {
        Self::from_array(b[..Self::SIZE].try_into().expect("16 bytes"))
    }
    /// Decodes one record from exactly its bytes; the second value is the OR of the padding bytes.
    #[inline(always)]
    pub fn from_array(b: &[u8; Self::SIZE]) -> (Self, u8) {
        let rec = UnitRec {
            flags: b[0],
            n_out: u16::from_le_bytes([b[2], b[3]]),
            n_terms: u16::from_le_bytes([b[4], b[5]]),
            term_start: u16::from_le_bytes([b[8], b[9]]),
            class_start: u16::from_le_bytes([b[10], b[11]]),
            weight_start: u32::from_le_bytes([b[12], b[13], b[14], b[15]]),
        };
        (rec, b[1] | b[6] | b[7])
    }
    /// Encodes one record.
    pub fn to_bytes(&self) -> [u8; Self::SIZE] {
        let mut b = [0; Self::SIZE];
        b[0] = self.flags;
        b[2..4].copy_from_slice(&self.n_out.to_le_bytes());
        b[4..6].copy_from_slice(&self.n_terms.to_le_bytes());
        b[8..10].copy_from_slice(&self.term_start.to_le_bytes());
        b[10..12].copy_from_slice(&self.class_start.to_le_bytes());
        b[12..16].copy_from_slice(&self.weight_start.to_le_bytes());
        b
    }
    /// Number of class entries the unit uses.
    pub fn n_classes(&self) -> usize {
        (self.n_out as usize).max(2)
    }
}

/// The `head` of a [`NodeRec`]: below [`node_kind::LEAF_OR_SPLIT`] the node is a threshold test
/// on the input `head`; otherwise `head` is one of the other kinds below.
pub mod node_kind {
    /// Heads at or above this value name a kind; a head below it is a threshold node's input.
    pub const LEAF_OR_SPLIT: u16 = 0x8000;
    /// Leaf: class `value`.
    pub const CLASS: u16 = 0x8000;
    /// Leaf: unit `value` decides.
    pub const UNIT: u16 = 0x8001;
    /// Split on categorical input `link`: value `v < count` goes to `children[first + v]`,
    /// anything else (unknown value) to the next node.
    pub const CATEGORICAL: u16 = 0x8002;
    /// Split on binary unit `value`: score `<= 0` goes to the next node, else to `link`.
    pub const UNIT_SPLIT: u16 = 0x8004;
    /// Goes on to node `link`: the implicit child of the split before it, when that child is not
    /// the next node (a node that several splits lead to).
    pub const JUMP: u16 = 0x8003;
}

/// One tree node (8 bytes): `head` u16, `link` u16, `value` i32. The node after a split in the
/// table is its implicit child (a threshold's or a unit split's left child, a categorical split's
/// default child), so a split stores at most one link.
///
/// | head | kind | `link` | `value` |
/// |---|---|---|---|
/// | `0..=0x7FFF` | THRESHOLD on input `head`: `x <= value` goes to the next node | right child | threshold |
/// | `0x8000` | CLASS leaf | 0 | class |
/// | `0x8001` | UNIT leaf | 0 | unit |
/// | `0x8002` | CATEGORICAL | categorical input | first child entry (bits 0..16), child count (bits 16..32) |
/// | `0x8003` | JUMP | the node to go on to | 0 |
/// | `0x8004` | UNIT_SPLIT: score `<= 0` goes to the next node | right child | binary unit |
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodeRec {
    /// A threshold node's input, or a [`node_kind`] at or above [`node_kind::LEAF_OR_SPLIT`].
    pub head: u16,
    /// Right child, or a categorical split's input.
    pub link: u16,
    /// Threshold, class, unit, or a categorical split's first child entry and child count.
    pub value: i32,
}

impl NodeRec {
    /// Encoded size.
    pub const SIZE: usize = 8;
    /// Decodes one record.
    ///
    /// # Panics
    /// If `b` is shorter than [`NodeRec::SIZE`].
    pub fn parse(b: &[u8]) -> Self {
        Self::from_array(b[..Self::SIZE].try_into().expect("8 bytes"))
    }
    /// Decodes one record from exactly its bytes.
    #[inline(always)]
    pub fn from_array(b: &[u8; Self::SIZE]) -> Self {
        NodeRec { head: Self::head(b), link: Self::link(b), value: Self::value(b) }
    }
    /// The `head` of a record (bytes 0..2). Each field is read as one array, so the compiler
    /// loads it with one (unaligned) load where the core has one, not byte by byte.
    #[inline(always)]
    pub fn head(b: &[u8; Self::SIZE]) -> u16 {
        u16::from_le_bytes(*b.first_chunk().unwrap_or(&[0; 2]))
    }
    /// The `link` of a record (bytes 2..4).
    #[inline(always)]
    pub fn link(b: &[u8; Self::SIZE]) -> u16 {
        let (_, rest) = b.split_at(2);
        u16::from_le_bytes(*rest.first_chunk().unwrap_or(&[0; 2]))
    }
    /// The `value` of a record (bytes 4..8).
    #[inline(always)]
    pub fn value(b: &[u8; Self::SIZE]) -> i32 {
        i32::from_le_bytes(*b.last_chunk().unwrap_or(&[0; 4]))
    }
    /// Encodes one record.
    pub fn to_bytes(&self) -> [u8; Self::SIZE] {
        let mut out = [0; Self::SIZE];
        out[0..2].copy_from_slice(&self.head.to_le_bytes());
        out[2..4].copy_from_slice(&self.link.to_le_bytes());
        out[4..8].copy_from_slice(&self.value.to_le_bytes());
        out
    }
    /// A categorical split's `value`: its first child entry and its child count.
    pub fn categorical_value(first: u16, count: u16) -> i32 {
        (u32::from(first) | (u32::from(count) << 16)) as i32
    }
    /// A categorical split's first child entry and child count, from its `value`.
    #[inline(always)]
    pub fn categorical_entries(&self) -> (u16, u16) {
        (self.value as u32 as u16, (self.value as u32 >> 16) as u16)
    }
}

/// One decision-list entry (4 bytes): binary `unit` u16, `class` u16 chosen when its score > 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListEntryRec {
    /// Binary unit.
    pub unit: u16,
    /// Class output when the unit fires.
    pub class: u16,
}

impl ListEntryRec {
    /// Encoded size.
    pub const SIZE: usize = 4;
    /// Decodes one record.
    ///
    /// # Panics
    /// If `b` is shorter than [`ListEntryRec::SIZE`].
    pub fn parse(b: &[u8]) -> Self {
        Self::from_array(b[..Self::SIZE].try_into().expect("4 bytes"))
    }
    /// Decodes one record from exactly its bytes.
    #[inline]
    pub fn from_array(b: &[u8; Self::SIZE]) -> Self {
        ListEntryRec { unit: u16::from_le_bytes([b[0], b[1]]), class: u16::from_le_bytes([b[2], b[3]]) }
    }
    /// Encodes one record.
    pub fn to_bytes(&self) -> [u8; Self::SIZE] {
        let mut b = [0; Self::SIZE];
        b[0..2].copy_from_slice(&self.unit.to_le_bytes());
        b[2..4].copy_from_slice(&self.class.to_le_bytes());
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_check_value() {
        // The standard check value of CRC-32/ISO-HDLC.
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
        let mut pieces = Crc32::new();
        [&b"1234"[..], b"", b"56789"].iter().for_each(|p| pieces.update(p));
        assert_eq!(pieces.finish(), 0xCBF4_3926);
    }

    #[test]
    fn records_round_trip() {
        let f = FeatureRec { kind: 0, shift: 3, attr: 7, value: -5, mul: -300, max_abs: 127 };
        assert_eq!(FeatureRec::parse(&f.to_bytes()), f);
        let u =
            UnitRec { flags: 1, n_out: 3, n_terms: 9, term_start: 4, class_start: 2, weight_start: 70000 };
        assert_eq!(UnitRec::parse(&u.to_bytes()), (u, 0));
        let n = NodeRec { head: 2, link: 4, value: -9 };
        assert_eq!(NodeRec::parse(&n.to_bytes()), n);
        let c =
            NodeRec { head: node_kind::CATEGORICAL, link: 1, value: NodeRec::categorical_value(7, 65535) };
        assert_eq!(NodeRec::parse(&c.to_bytes()).categorical_entries(), (7, 65535));
        let l = LiteralRec { attr: 1, op: 3, value: i32::MIN };
        assert_eq!(LiteralRec::parse(&l.to_bytes()), (l, 0));
        let i = InputRec { n_values: 3 };
        assert_eq!(InputRec::parse(&i.to_bytes()), i);
        let s = ScaleRec { offset: -7, mul: -300, max_abs: 127, shift: 32 };
        assert_eq!(ScaleRec::parse(&s.to_bytes()), (s, 0));
        let h = HostInputRec { scale_exp: -2, missing: i32::MIN, offset: -1_234_567_890_123 };
        assert_eq!(HostInputRec::from_array(&h.to_bytes()), h);
        let e = ListEntryRec { unit: 9, class: 1 };
        assert_eq!(ListEntryRec::parse(&e.to_bytes()), e);
    }
}

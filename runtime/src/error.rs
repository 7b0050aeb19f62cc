//! The runtime's one error type.

/// Everything that can go wrong when loading or evaluating a model.
///
/// Variant names say the phase (`Header`, `Body`, a table name, `Predict`) and the problem. Loading
/// checks are ordered: header first, then checksum, then the postcard body, then every table; the
/// first failing check is reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum Error {
    /// Fewer bytes than the fixed header plus checksum.
    HeaderTooShort,
    /// The first four bytes are not [`MAGIC`](crate::format::MAGIC): this is not an ltu model.
    HeaderBadMagic,
    /// The format version is not one this runtime reads.
    HeaderUnsupportedVersion,
    /// The CRC-32 over the file does not match: the file is corrupted or truncated.
    ChecksumMismatch,
    /// postcard could not decode the body (truncated field, bad varint, bad enum tag, bad UTF-8).
    BodyDecode,
    /// Bytes remain between the end of the postcard body and the checksum.
    BodyTrailingBytes,
    /// A table's length is not a whole number of records.
    TableLength,
    /// A count exceeds the format's limits (inputs, features, units, nodes, classes).
    LimitExceeded,
    /// The scale table does not have exactly one record per numeric input.
    InputInvalid,
    /// A feature or a numeric input's scale has an unknown kind, a bad quantization, or refers to a
    /// missing input or literal.
    FeatureInvalid,
    /// A conjunction literal has an unknown operator, non-zero padding, or a bad input index.
    LiteralInvalid,
    /// A linear threshold unit has bad flags, shape, or a term, weight or class range outside its table.
    UnitInvalid,
    /// A class index is not below the model's number of classes.
    ClassOutOfRange,
    /// A tree node has an unknown kind, bad padding, or refers to a missing input or unit.
    NodeInvalid,
    /// A child link does not point strictly forward to an existing node.
    LinkNotForward,
    /// A decision-list entry refers to a missing or non-binary unit.
    ListEntryInvalid,
    /// Some input could make a unit's accumulator overflow: the model is rejected.
    AccumulatorMayOverflow,
    /// The optional names do not have exactly one line per input, category value and class.
    NamesInvalid,
    /// The host block does not have exactly one record per input (and per pipeline channel).
    HostInvalid,
    /// The sensor pipeline is malformed: a channel count outside 1 to 255, a window longer than
    /// [`MAX_WINDOW_LEN`](crate::window::MAX_WINDOW_LEN), a hop of 0, not one window feature per
    /// input, a categorical input, or a window feature with an unknown statistic, a missing
    /// channel or a bad segment.
    PipelineInvalid,
    /// This build of the runtime leaves out something the model needs: its structure (cargo
    /// features `tree`, `list`), its weight kind (`i8`, `i16`, `i32`, `fixed`) or units over the
    /// feature table (`sparse`). `ltu inspect` lists the features a model needs.
    Unsupported,
    /// `predict` was given a slice whose length is not `n_inputs()`.
    PredictInputLength,
    /// `predict_window` was given a window that does not fit the model's pipeline: no pipeline,
    /// not one sample slice per channel, or a channel's slice empty or longer than
    /// [`MAX_WINDOW_LEN`](crate::window::MAX_WINDOW_LEN).
    PredictWindow,
    /// A lazy input source returned `None` for an input the evaluation needed.
    PredictInputUnavailable,
    /// The output buffer for scores is shorter than `n_classes()`.
    PredictScoresBuffer,
    /// Encoding: the output buffer is too small for the model.
    EncodeBufferTooSmall,
    /// Learning: the label is not below the model's number of classes.
    LearnLabelOutOfRange,
    /// Learning: the RAM given to the learner is shorter than the model's weight table
    /// (`Learner::ram_needed`).
    LearnRamTooSmall,
}

/// `Result` with the runtime's [`Error`].
pub type Result<T> = core::result::Result<T, Error>;

impl core::fmt::Display for Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let s = match self {
            Error::HeaderTooShort => "model is shorter than its header and checksum",
            Error::HeaderBadMagic => "not an ltu model (bad magic bytes)",
            Error::HeaderUnsupportedVersion => "unsupported model format version",
            Error::ChecksumMismatch => "model checksum mismatch (corrupted or truncated)",
            Error::BodyDecode => "model body could not be decoded",
            Error::BodyTrailingBytes => "unexpected bytes after the model body",
            Error::TableLength => "a model table is not a whole number of records",
            Error::LimitExceeded => "model exceeds a format limit",
            Error::InputInvalid => "invalid input descriptor",
            Error::FeatureInvalid => "invalid feature",
            Error::LiteralInvalid => "invalid conjunction literal",
            Error::UnitInvalid => "invalid linear threshold unit",
            Error::ClassOutOfRange => "class index out of range",
            Error::NodeInvalid => "invalid tree node",
            Error::LinkNotForward => "tree link does not point forward",
            Error::ListEntryInvalid => "invalid decision-list entry",
            Error::AccumulatorMayOverflow => "a unit's accumulator could overflow",
            Error::NamesInvalid => "model names do not match the model's shape",
            Error::HostInvalid => "model host block does not have one record per input and channel",
            Error::PipelineInvalid => "invalid sensor pipeline",
            Error::Unsupported => "this runtime build leaves out a kind of model this one needs",
            Error::PredictInputLength => "wrong number of inputs",
            Error::PredictWindow => "the window does not fit the model's pipeline",
            Error::PredictInputUnavailable => "an input needed by the model was unavailable",
            Error::PredictScoresBuffer => "scores buffer shorter than the number of classes",
            Error::EncodeBufferTooSmall => "output buffer too small for the model",
            Error::LearnLabelOutOfRange => "label out of range of the model's classes",
            Error::LearnRamTooSmall => "learner RAM shorter than the model's weight table",
        };
        f.write_str(s)
    }
}

impl core::error::Error for Error {}

//! C API of [`ltu_runtime`]: a static library (`libltu_c.a`) for C firmware that receives models at
//! run time (over the air, from an SD card) and evaluates them in place.
//!
//! The header is `include/ltu.h`, generated from this file by cbindgen (`LTU_BLESS=1 cargo test
//! -p ltu-runtime-c --test header` rewrites it; the test fails while it is stale). `CMakeLists.txt`
//! builds the library for the target a CMake project compiles for and exports `ltu::runtime`.
//!
//! # Trust model
//!
//! Model bytes are untrusted, exactly as in the Rust API: [`ltu_model_init`] runs
//! [`Model::from_bytes`], and once it returned `LTU_OK` no evaluation can panic, overflow, loop or
//! read out of bounds. What C adds are raw pointers. Every function checks each pointer for NULL
//! and for the alignment of its type, and each length against the model before it turns pointer
//! and length into a slice, so a NULL or misaligned pointer is a status code, never undefined
//! behaviour. What a function cannot check is stated in the header as the caller's contract: a
//! pointer that is not NULL points to as many readable (or writable) elements as its length says,
//! and the model bytes stay valid and unchanged while an `ltu_model` initialised from them is
//! used.
//!
//! # No panics
//!
//! A panic must never cross into C. No function here indexes, unwraps or divides: arguments are
//! checked with `get`, comparisons and `checked_mul`, and the runtime's own evaluation has no
//! panic path. `fuzz/fuzz_targets/c_api.rs` drives every function with arbitrary bytes, inputs,
//! buffer lengths and pointers. A firmware build (`panic = "abort"`, as on every bare-metal
//! target) gets the panic handler below, which only links; a build with the unwinding strategy
//! (cargo's host profiles, the Rust tests) links `std`, and Rust aborts rather than unwind out of
//! an `extern "C"` function.
#![no_std]
#![deny(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]
#![allow(non_camel_case_types)]

#[cfg(panic = "unwind")]
extern crate std;

use core::ffi::{c_char, c_void};
use core::mem::{align_of, size_of};

use ltu_runtime::{Error, Model};

#[cfg(feature = "learn")]
mod learn;
#[cfg(feature = "learn")]
pub use learn::*;

/// Bare-metal builds (and host builds with `-C panic=abort`) have no `std` to supply a panic
/// handler. Nothing in this library panics; the handler only satisfies the linker.
#[cfg(panic = "abort")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    #[cfg(not(target_os = "none"))]
    {
        extern "C" {
            fn abort() -> !;
        }
        // SAFETY: the C library's `abort` takes no arguments and does not return.
        unsafe { abort() }
    }
    #[cfg(target_os = "none")]
    loop {
        core::hint::spin_loop();
    }
}

/// A hosted `panic = "abort"` build links the precompiled `core`, which was built for unwinding
/// and whose unwind tables name this personality routine. Nothing unwinds in such a build (a
/// panic aborts), so it is never called; it only resolves the symbol.
#[cfg(all(panic = "abort", not(target_os = "none")))]
#[no_mangle]
extern "C" fn rust_eh_personality() {}

/// What a function returns: `LTU_OK`, or why it failed.
///
/// The numbers are stable. 1 to 63 are the runtime's errors (`ltu_runtime::Error`, in its
/// declaration order: 1 to 26 today); 64 and above are the C API's own. `ltu_status_name` gives
/// the name as a string, `ltu_status_message` a sentence.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ltu_status {
    /// Success.
    LTU_OK = 0,
    /// Fewer bytes than the fixed header plus checksum.
    LTU_ERR_HEADER_TOO_SHORT = 1,
    /// The first four bytes are not the ltu magic: this is not an ltu model.
    LTU_ERR_HEADER_BAD_MAGIC = 2,
    /// The format version is not one this library reads.
    LTU_ERR_HEADER_UNSUPPORTED_VERSION = 3,
    /// The CRC-32 over the file does not match: the file is corrupted or truncated.
    LTU_ERR_CHECKSUM_MISMATCH = 4,
    /// The body could not be decoded (truncated field, bad varint, bad tag, bad UTF-8).
    LTU_ERR_BODY_DECODE = 5,
    /// Bytes remain between the end of the body and the checksum.
    LTU_ERR_BODY_TRAILING_BYTES = 6,
    /// A table's length is not a whole number of records.
    LTU_ERR_TABLE_LENGTH = 7,
    /// A count exceeds the format's limits (inputs, features, units, nodes, classes).
    LTU_ERR_LIMIT_EXCEEDED = 8,
    /// The scale table does not have exactly one record per numeric input.
    LTU_ERR_INPUT_INVALID = 9,
    /// A feature or a numeric input's scale is malformed.
    LTU_ERR_FEATURE_INVALID = 10,
    /// A conjunction literal is malformed.
    LTU_ERR_LITERAL_INVALID = 11,
    /// A linear threshold unit is malformed.
    LTU_ERR_UNIT_INVALID = 12,
    /// A class index is not below the model's number of classes.
    LTU_ERR_CLASS_OUT_OF_RANGE = 13,
    /// A tree node is malformed.
    LTU_ERR_NODE_INVALID = 14,
    /// A tree link does not point strictly forward to an existing node.
    LTU_ERR_LINK_NOT_FORWARD = 15,
    /// A decision-list entry refers to a missing or non-binary unit.
    LTU_ERR_LIST_ENTRY_INVALID = 16,
    /// Some input could make a unit's accumulator overflow: the model is rejected.
    LTU_ERR_ACCUMULATOR_MAY_OVERFLOW = 17,
    /// The optional names do not have one line per input, category value and class.
    LTU_ERR_NAMES_INVALID = 18,
    /// The host block does not have one record per input (and per pipeline channel).
    LTU_ERR_HOST_INVALID = 19,
    /// The sensor pipeline is malformed.
    LTU_ERR_PIPELINE_INVALID = 20,
    /// This build of the library leaves out something the model needs (its cargo features;
    /// `ltu inspect` lists what a model needs).
    LTU_ERR_UNSUPPORTED = 21,
    /// `n_inputs` is not the model's number of inputs.
    LTU_ERR_PREDICT_INPUT_LENGTH = 22,
    /// The window does not fit the model's pipeline: no pipeline, `n_channels` not the
    /// pipeline's, or a channel the model reads empty or longer than 4096 samples.
    LTU_ERR_PREDICT_WINDOW = 23,
    /// The lazy input function did not return `LTU_OK` for an input the evaluation needed.
    LTU_ERR_PREDICT_INPUT_UNAVAILABLE = 24,
    /// `n_scores` is less than the model's number of classes.
    LTU_ERR_PREDICT_SCORES_BUFFER = 25,
    /// Encoding: the output buffer is too small for the model (no function of this API encodes).
    LTU_ERR_ENCODE_BUFFER_TOO_SMALL = 26,
    /// Learning: the label is not below the model's number of classes.
    LTU_ERR_LEARN_LABEL_OUT_OF_RANGE = 27,
    /// Learning: the learner's RAM is shorter than the model's weight table
    /// (`ltu_learner_ram_needed`).
    LTU_ERR_LEARN_RAM_TOO_SMALL = 28,
    /// A required pointer is NULL.
    LTU_ERR_NULL = 64,
    /// A pointer is not aligned for its type.
    LTU_ERR_MISALIGNED = 65,
    /// The `ltu_model` was not initialised by a successful `ltu_model_init` (it is zeroed, or
    /// its initialisation failed).
    LTU_ERR_MODEL_UNINITIALISED = 66,
    /// An output buffer is shorter than what it must hold.
    LTU_ERR_BUFFER_TOO_SMALL = 67,
    /// The `ltu_learner` was not initialised by a successful `ltu_learner_init` (it is zeroed, or
    /// its initialisation failed).
    LTU_ERR_LEARNER_UNINITIALISED = 68,
    /// The `ltu_store` was not initialised by a successful `ltu_store_init`.
    LTU_ERR_STORE_UNINITIALISED = 69,
    /// A callback of the caller returned non-zero (the sink of `ltu_learner_write_file`, or a flash
    /// function of an `ltu_store`); the operation stopped there.
    LTU_ERR_CALLBACK = 70,
    /// Store: the flash's `write_size` or `read_size` does not divide 32, or its `erase_size` is not
    /// a non-zero multiple of 32.
    LTU_ERR_STORE_WORD_SIZE = 71,
    /// Store: `offset` or `slot_size` is not a multiple of the flash's `erase_size`.
    LTU_ERR_STORE_UNALIGNED = 72,
    /// Store: the two slots do not fit in the flash's `capacity` (or end at 4 GiB or beyond).
    LTU_ERR_STORE_OUT_OF_BOUNDS = 73,
    /// Store: a slot cannot hold its header and a smallest model file.
    LTU_ERR_STORE_SLOT_TOO_SMALL = 74,
    /// Store: the learned model file is longer than a slot holds (`slot_size` - 32 bytes).
    LTU_ERR_STORE_TOO_LARGE = 75,
    /// Store: the new slot did not read back valid after the save (the flash did not keep what was
    /// written); the previous model is still the latest.
    LTU_ERR_STORE_VERIFY = 76,
    /// Store: the saved model was learned from another base model than the learner's (its length,
    /// or a byte outside the weight table, differs); the learner is unchanged.
    LTU_ERR_STORE_OTHER_BASE = 77,
    /// A runtime error newer than this list (never returned by a consistent build).
    LTU_ERR_UNKNOWN = 127,
}

/// Every status, for the look-ups from a raw number.
const STATUSES: [ltu_status; 44] = {
    use ltu_status::*;
    [
        LTU_OK,
        LTU_ERR_HEADER_TOO_SHORT,
        LTU_ERR_HEADER_BAD_MAGIC,
        LTU_ERR_HEADER_UNSUPPORTED_VERSION,
        LTU_ERR_CHECKSUM_MISMATCH,
        LTU_ERR_BODY_DECODE,
        LTU_ERR_BODY_TRAILING_BYTES,
        LTU_ERR_TABLE_LENGTH,
        LTU_ERR_LIMIT_EXCEEDED,
        LTU_ERR_INPUT_INVALID,
        LTU_ERR_FEATURE_INVALID,
        LTU_ERR_LITERAL_INVALID,
        LTU_ERR_UNIT_INVALID,
        LTU_ERR_CLASS_OUT_OF_RANGE,
        LTU_ERR_NODE_INVALID,
        LTU_ERR_LINK_NOT_FORWARD,
        LTU_ERR_LIST_ENTRY_INVALID,
        LTU_ERR_ACCUMULATOR_MAY_OVERFLOW,
        LTU_ERR_NAMES_INVALID,
        LTU_ERR_HOST_INVALID,
        LTU_ERR_PIPELINE_INVALID,
        LTU_ERR_UNSUPPORTED,
        LTU_ERR_PREDICT_INPUT_LENGTH,
        LTU_ERR_PREDICT_WINDOW,
        LTU_ERR_PREDICT_INPUT_UNAVAILABLE,
        LTU_ERR_PREDICT_SCORES_BUFFER,
        LTU_ERR_ENCODE_BUFFER_TOO_SMALL,
        LTU_ERR_LEARN_LABEL_OUT_OF_RANGE,
        LTU_ERR_LEARN_RAM_TOO_SMALL,
        LTU_ERR_NULL,
        LTU_ERR_MISALIGNED,
        LTU_ERR_MODEL_UNINITIALISED,
        LTU_ERR_BUFFER_TOO_SMALL,
        LTU_ERR_LEARNER_UNINITIALISED,
        LTU_ERR_STORE_UNINITIALISED,
        LTU_ERR_CALLBACK,
        LTU_ERR_STORE_WORD_SIZE,
        LTU_ERR_STORE_UNALIGNED,
        LTU_ERR_STORE_OUT_OF_BOUNDS,
        LTU_ERR_STORE_SLOT_TOO_SMALL,
        LTU_ERR_STORE_TOO_LARGE,
        LTU_ERR_STORE_VERIFY,
        LTU_ERR_STORE_OTHER_BASE,
        LTU_ERR_UNKNOWN,
    ]
};

impl ltu_status {
    /// The status a raw number names, if any.
    pub fn from_raw(raw: u32) -> Option<ltu_status> {
        STATUSES.iter().copied().find(|&s| s as u32 == raw)
    }

    /// The enumerator's name, NUL-terminated.
    fn name(self) -> &'static str {
        use ltu_status::*;
        match self {
            LTU_OK => "LTU_OK\0",
            LTU_ERR_HEADER_TOO_SHORT => "LTU_ERR_HEADER_TOO_SHORT\0",
            LTU_ERR_HEADER_BAD_MAGIC => "LTU_ERR_HEADER_BAD_MAGIC\0",
            LTU_ERR_HEADER_UNSUPPORTED_VERSION => "LTU_ERR_HEADER_UNSUPPORTED_VERSION\0",
            LTU_ERR_CHECKSUM_MISMATCH => "LTU_ERR_CHECKSUM_MISMATCH\0",
            LTU_ERR_BODY_DECODE => "LTU_ERR_BODY_DECODE\0",
            LTU_ERR_BODY_TRAILING_BYTES => "LTU_ERR_BODY_TRAILING_BYTES\0",
            LTU_ERR_TABLE_LENGTH => "LTU_ERR_TABLE_LENGTH\0",
            LTU_ERR_LIMIT_EXCEEDED => "LTU_ERR_LIMIT_EXCEEDED\0",
            LTU_ERR_INPUT_INVALID => "LTU_ERR_INPUT_INVALID\0",
            LTU_ERR_FEATURE_INVALID => "LTU_ERR_FEATURE_INVALID\0",
            LTU_ERR_LITERAL_INVALID => "LTU_ERR_LITERAL_INVALID\0",
            LTU_ERR_UNIT_INVALID => "LTU_ERR_UNIT_INVALID\0",
            LTU_ERR_CLASS_OUT_OF_RANGE => "LTU_ERR_CLASS_OUT_OF_RANGE\0",
            LTU_ERR_NODE_INVALID => "LTU_ERR_NODE_INVALID\0",
            LTU_ERR_LINK_NOT_FORWARD => "LTU_ERR_LINK_NOT_FORWARD\0",
            LTU_ERR_LIST_ENTRY_INVALID => "LTU_ERR_LIST_ENTRY_INVALID\0",
            LTU_ERR_ACCUMULATOR_MAY_OVERFLOW => "LTU_ERR_ACCUMULATOR_MAY_OVERFLOW\0",
            LTU_ERR_NAMES_INVALID => "LTU_ERR_NAMES_INVALID\0",
            LTU_ERR_HOST_INVALID => "LTU_ERR_HOST_INVALID\0",
            LTU_ERR_PIPELINE_INVALID => "LTU_ERR_PIPELINE_INVALID\0",
            LTU_ERR_UNSUPPORTED => "LTU_ERR_UNSUPPORTED\0",
            LTU_ERR_PREDICT_INPUT_LENGTH => "LTU_ERR_PREDICT_INPUT_LENGTH\0",
            LTU_ERR_PREDICT_WINDOW => "LTU_ERR_PREDICT_WINDOW\0",
            LTU_ERR_PREDICT_INPUT_UNAVAILABLE => "LTU_ERR_PREDICT_INPUT_UNAVAILABLE\0",
            LTU_ERR_PREDICT_SCORES_BUFFER => "LTU_ERR_PREDICT_SCORES_BUFFER\0",
            LTU_ERR_ENCODE_BUFFER_TOO_SMALL => "LTU_ERR_ENCODE_BUFFER_TOO_SMALL\0",
            LTU_ERR_LEARN_LABEL_OUT_OF_RANGE => "LTU_ERR_LEARN_LABEL_OUT_OF_RANGE\0",
            LTU_ERR_LEARN_RAM_TOO_SMALL => "LTU_ERR_LEARN_RAM_TOO_SMALL\0",
            LTU_ERR_NULL => "LTU_ERR_NULL\0",
            LTU_ERR_MISALIGNED => "LTU_ERR_MISALIGNED\0",
            LTU_ERR_MODEL_UNINITIALISED => "LTU_ERR_MODEL_UNINITIALISED\0",
            LTU_ERR_BUFFER_TOO_SMALL => "LTU_ERR_BUFFER_TOO_SMALL\0",
            LTU_ERR_LEARNER_UNINITIALISED => "LTU_ERR_LEARNER_UNINITIALISED\0",
            LTU_ERR_STORE_UNINITIALISED => "LTU_ERR_STORE_UNINITIALISED\0",
            LTU_ERR_CALLBACK => "LTU_ERR_CALLBACK\0",
            LTU_ERR_STORE_WORD_SIZE => "LTU_ERR_STORE_WORD_SIZE\0",
            LTU_ERR_STORE_UNALIGNED => "LTU_ERR_STORE_UNALIGNED\0",
            LTU_ERR_STORE_OUT_OF_BOUNDS => "LTU_ERR_STORE_OUT_OF_BOUNDS\0",
            LTU_ERR_STORE_SLOT_TOO_SMALL => "LTU_ERR_STORE_SLOT_TOO_SMALL\0",
            LTU_ERR_STORE_TOO_LARGE => "LTU_ERR_STORE_TOO_LARGE\0",
            LTU_ERR_STORE_VERIFY => "LTU_ERR_STORE_VERIFY\0",
            LTU_ERR_STORE_OTHER_BASE => "LTU_ERR_STORE_OTHER_BASE\0",
            LTU_ERR_UNKNOWN => "LTU_ERR_UNKNOWN\0",
        }
    }

    /// A sentence saying what went wrong, NUL-terminated. For the runtime's errors it is the
    /// runtime's `Display` text (a test checks that they agree).
    fn message(self) -> &'static str {
        use ltu_status::*;
        match self {
            LTU_OK => "success\0",
            LTU_ERR_HEADER_TOO_SHORT => "model is shorter than its header and checksum\0",
            LTU_ERR_HEADER_BAD_MAGIC => "not an ltu model (bad magic bytes)\0",
            LTU_ERR_HEADER_UNSUPPORTED_VERSION => "unsupported model format version\0",
            LTU_ERR_CHECKSUM_MISMATCH => "model checksum mismatch (corrupted or truncated)\0",
            LTU_ERR_BODY_DECODE => "model body could not be decoded\0",
            LTU_ERR_BODY_TRAILING_BYTES => "unexpected bytes after the model body\0",
            LTU_ERR_TABLE_LENGTH => "a model table is not a whole number of records\0",
            LTU_ERR_LIMIT_EXCEEDED => "model exceeds a format limit\0",
            LTU_ERR_INPUT_INVALID => "invalid input descriptor\0",
            LTU_ERR_FEATURE_INVALID => "invalid feature\0",
            LTU_ERR_LITERAL_INVALID => "invalid conjunction literal\0",
            LTU_ERR_UNIT_INVALID => "invalid linear threshold unit\0",
            LTU_ERR_CLASS_OUT_OF_RANGE => "class index out of range\0",
            LTU_ERR_NODE_INVALID => "invalid tree node\0",
            LTU_ERR_LINK_NOT_FORWARD => "tree link does not point forward\0",
            LTU_ERR_LIST_ENTRY_INVALID => "invalid decision-list entry\0",
            LTU_ERR_ACCUMULATOR_MAY_OVERFLOW => "a unit's accumulator could overflow\0",
            LTU_ERR_NAMES_INVALID => "model names do not match the model's shape\0",
            LTU_ERR_HOST_INVALID => "model host block does not have one record per input and channel\0",
            LTU_ERR_PIPELINE_INVALID => "invalid sensor pipeline\0",
            LTU_ERR_UNSUPPORTED => "this runtime build leaves out a kind of model this one needs\0",
            LTU_ERR_PREDICT_INPUT_LENGTH => "wrong number of inputs\0",
            LTU_ERR_PREDICT_WINDOW => "the window does not fit the model's pipeline\0",
            LTU_ERR_PREDICT_INPUT_UNAVAILABLE => "an input needed by the model was unavailable\0",
            LTU_ERR_PREDICT_SCORES_BUFFER => "scores buffer shorter than the number of classes\0",
            LTU_ERR_ENCODE_BUFFER_TOO_SMALL => "output buffer too small for the model\0",
            LTU_ERR_LEARN_LABEL_OUT_OF_RANGE => "label out of range of the model's classes\0",
            LTU_ERR_LEARN_RAM_TOO_SMALL => "learner RAM shorter than the model's weight table\0",
            LTU_ERR_NULL => "a required pointer is NULL\0",
            LTU_ERR_MISALIGNED => "a pointer is not aligned for its type\0",
            LTU_ERR_MODEL_UNINITIALISED => "the model was not initialised by a successful ltu_model_init\0",
            LTU_ERR_BUFFER_TOO_SMALL => "an output buffer is too small\0",
            LTU_ERR_LEARNER_UNINITIALISED => {
                "the learner was not initialised by a successful ltu_learner_init\0"
            }
            LTU_ERR_STORE_UNINITIALISED => "the store was not initialised by a successful ltu_store_init\0",
            LTU_ERR_CALLBACK => "a callback returned an error\0",
            LTU_ERR_STORE_WORD_SIZE => "flash word or page size the store cannot use\0",
            LTU_ERR_STORE_UNALIGNED => "store offset or slot size is not a whole number of flash pages\0",
            LTU_ERR_STORE_OUT_OF_BOUNDS => "store slots do not fit in the flash\0",
            LTU_ERR_STORE_SLOT_TOO_SMALL => "store slot too small for a header and a model\0",
            LTU_ERR_STORE_TOO_LARGE => "model file longer than a store slot holds\0",
            LTU_ERR_STORE_VERIFY => "saved slot did not read back valid\0",
            LTU_ERR_STORE_OTHER_BASE => "saved model was learned from another base model\0",
            LTU_ERR_UNKNOWN => "unknown error\0",
        }
    }
}

impl From<Error> for ltu_status {
    fn from(e: Error) -> ltu_status {
        use ltu_status::*;
        match e {
            Error::HeaderTooShort => LTU_ERR_HEADER_TOO_SHORT,
            Error::HeaderBadMagic => LTU_ERR_HEADER_BAD_MAGIC,
            Error::HeaderUnsupportedVersion => LTU_ERR_HEADER_UNSUPPORTED_VERSION,
            Error::ChecksumMismatch => LTU_ERR_CHECKSUM_MISMATCH,
            Error::BodyDecode => LTU_ERR_BODY_DECODE,
            Error::BodyTrailingBytes => LTU_ERR_BODY_TRAILING_BYTES,
            Error::TableLength => LTU_ERR_TABLE_LENGTH,
            Error::LimitExceeded => LTU_ERR_LIMIT_EXCEEDED,
            Error::InputInvalid => LTU_ERR_INPUT_INVALID,
            Error::FeatureInvalid => LTU_ERR_FEATURE_INVALID,
            Error::LiteralInvalid => LTU_ERR_LITERAL_INVALID,
            Error::UnitInvalid => LTU_ERR_UNIT_INVALID,
            Error::ClassOutOfRange => LTU_ERR_CLASS_OUT_OF_RANGE,
            Error::NodeInvalid => LTU_ERR_NODE_INVALID,
            Error::LinkNotForward => LTU_ERR_LINK_NOT_FORWARD,
            Error::ListEntryInvalid => LTU_ERR_LIST_ENTRY_INVALID,
            Error::AccumulatorMayOverflow => LTU_ERR_ACCUMULATOR_MAY_OVERFLOW,
            Error::NamesInvalid => LTU_ERR_NAMES_INVALID,
            Error::HostInvalid => LTU_ERR_HOST_INVALID,
            Error::PipelineInvalid => LTU_ERR_PIPELINE_INVALID,
            Error::Unsupported => LTU_ERR_UNSUPPORTED,
            Error::PredictInputLength => LTU_ERR_PREDICT_INPUT_LENGTH,
            Error::PredictWindow => LTU_ERR_PREDICT_WINDOW,
            Error::PredictInputUnavailable => LTU_ERR_PREDICT_INPUT_UNAVAILABLE,
            Error::PredictScoresBuffer => LTU_ERR_PREDICT_SCORES_BUFFER,
            Error::EncodeBufferTooSmall => LTU_ERR_ENCODE_BUFFER_TOO_SMALL,
            Error::LearnLabelOutOfRange => LTU_ERR_LEARN_LABEL_OUT_OF_RANGE,
            Error::LearnRamTooSmall => LTU_ERR_LEARN_RAM_TOO_SMALL,
            // `Error` is non-exhaustive; the header test fails when a variant has no code here.
            _ => LTU_ERR_UNKNOWN,
        }
    }
}

/// A status as the raw number C passes: a C enum may hold any value of its underlying type, and
/// one outside `ltu_status` must not reach a Rust enum. The header spells it `ltu_status` (on
/// every supported ABI an enum argument or result travels in a register, extended to a word, as
/// this `u32` does).
#[repr(transparent)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ltu_status_raw(pub u32);

/// Words of storage in an `ltu_model`: enough for the validated model on every target (checked
/// at compile time).
pub const LTU_MODEL_WORDS: usize = 32;

/// Caller-provided storage for a validated model. It borrows the model bytes, which must stay
/// valid and unchanged while it is used. Initialise it with `ltu_model_init`; a zeroed
/// `ltu_model`, or one whose initialisation failed, is refused by every function with
/// `LTU_ERR_MODEL_UNINITIALISED`. It may be copied; it needs no clean-up.
#[repr(C)]
pub struct ltu_model {
    opaque: [*const c_void; LTU_MODEL_WORDS],
}

/// What `ltu_model_init` writes into an `ltu_model`: the validity word, then the model.
#[repr(C)]
struct Loaded {
    valid: usize,
    model: Model<'static>,
}

/// The validity word of an initialised model ("ltu!" in ASCII); zero otherwise.
const VALID: usize = 0x2175_746c;

const _: () = assert!(size_of::<Loaded>() <= size_of::<ltu_model>(), "LTU_MODEL_WORDS too small");
const _: () = assert!(align_of::<Loaded>() <= align_of::<ltu_model>());

/// Checks that `ptr` is not NULL and is aligned for `T`.
fn check_ptr<T>(ptr: *const T) -> Result<(), ltu_status> {
    if ptr.is_null() {
        Err(ltu_status::LTU_ERR_NULL)
    } else if !ptr.is_aligned() {
        Err(ltu_status::LTU_ERR_MISALIGNED)
    } else {
        Ok(())
    }
}

/// The `len` elements at `ptr`; an empty slice when `len` is 0, whatever `ptr` is. `too_long`
/// is the error for a length no array can have (more than `isize::MAX` bytes).
///
/// # Safety
/// Unless `len` is 0, `ptr` is NULL or points to `len` initialised `T`s that nothing writes for
/// `'a` (the header's contract for every input array).
unsafe fn slice<'a, T>(ptr: *const T, len: usize, too_long: ltu_status) -> Result<&'a [T], ltu_status> {
    if len == 0 {
        return Ok(&[]);
    }
    check_ptr(ptr)?;
    // No array of more than `isize::MAX` bytes exists: such a length breaks the contract.
    if len.checked_mul(size_of::<T>()).is_none_or(|bytes| bytes > isize::MAX as usize) {
        return Err(too_long);
    }
    // SAFETY: `ptr` is non-NULL and aligned (checked), the size fits `isize` (checked), and the
    // caller guarantees `len` readable, unchanging elements there.
    Ok(unsafe { core::slice::from_raw_parts(ptr, len) })
}

/// The `len` elements at `ptr`, writable; as [`slice`].
///
/// # Safety
/// Unless `len` is 0, `ptr` is NULL or points to `len` `T`s that only this call accesses.
unsafe fn slice_mut<'a, T>(ptr: *mut T, len: usize, too_long: ltu_status) -> Result<&'a mut [T], ltu_status> {
    if len == 0 {
        return Ok(&mut []);
    }
    check_ptr(ptr)?;
    if len.checked_mul(size_of::<T>()).is_none_or(|bytes| bytes > isize::MAX as usize) {
        return Err(too_long);
    }
    // SAFETY: as in `slice`, and the caller guarantees nothing else accesses the elements.
    Ok(unsafe { core::slice::from_raw_parts_mut(ptr, len) })
}

/// The validated model in `model`.
///
/// # Safety
/// `model` is NULL or points to an `ltu_model` that is zeroed or was passed to `ltu_model_init`
/// (whose bytes are still valid and unchanged if that succeeded).
unsafe fn loaded<'m>(model: *const ltu_model) -> Result<&'m Model<'static>, ltu_status> {
    check_ptr(model)?;
    // SAFETY: `model` is non-NULL and aligned (checked) and points to an `ltu_model` (caller),
    // whose first word is a plain integer whatever was written there.
    let valid = unsafe { model.cast::<usize>().read() };
    if valid != VALID {
        return Err(ltu_status::LTU_ERR_MODEL_UNINITIALISED);
    }
    // SAFETY: the validity word is only ever written by `ltu_model_init`, together with the
    // `Loaded` it heads (size and alignment asserted above), and the bytes it borrows are valid
    // (caller).
    Ok(unsafe { &(*model.cast::<Loaded>()).model })
}

/// Writes `class` to `out`.
///
/// # Safety
/// `out` is NULL or points to a writable `uint32_t`.
unsafe fn write_class(out: *mut u32, class: usize) -> ltu_status {
    // Classes are below `n_classes`, a `u16`.
    let class = u32::try_from(class).unwrap_or(u32::MAX);
    // SAFETY: checked non-NULL and aligned; writable by the caller's contract.
    unsafe { out.write(class) };
    ltu_status::LTU_OK
}

/// Turns a prediction into a status, writing the class on success.
///
/// # Safety
/// As [`write_class`]; `out` was checked with [`check_ptr`].
unsafe fn finish(prediction: Result<usize, Error>, out: *mut u32) -> ltu_status {
    match prediction {
        // SAFETY: the caller's contract for `out`.
        Ok(class) => unsafe { write_class(out, class) },
        Err(e) => e.into(),
    }
}

/// Collapses a `Result` of statuses.
fn status(r: Result<ltu_status, ltu_status>) -> ltu_status {
    r.unwrap_or_else(|e| e)
}

/// Validates `len` model bytes at `bytes` and stores the model in `*model`.
///
/// Runs every check of the model format once (header, version, CRC-32, body, every table and
/// index, forward tree links, accumulator bounds); after `LTU_OK`, no evaluation can fail except
/// on the caller's arguments. On any error `*model` is left uninitialised
/// (`LTU_ERR_MODEL_UNINITIALISED` from every other function).
///
/// Errors: `LTU_ERR_NULL` if `model` or `bytes` is NULL, `LTU_ERR_MISALIGNED` if `model` is not
/// aligned for `ltu_model`, or the first failed check of the model (codes 1 to 21).
///
/// # Safety
/// `model` is NULL or points to writable storage for an `ltu_model`; `bytes` is NULL or points
/// to `len` readable bytes that stay valid and unchanged as long as `*model` is used.
#[no_mangle]
pub unsafe extern "C" fn ltu_model_init(model: *mut ltu_model, bytes: *const u8, len: usize) -> ltu_status {
    if let Err(e) = check_ptr(model) {
        return e;
    }
    // SAFETY: `model` is non-NULL and aligned (checked) and writable (caller). Cleared first so
    // that every failure below leaves it uninitialised.
    unsafe { model.cast::<usize>().write(0) };
    if bytes.is_null() {
        return ltu_status::LTU_ERR_NULL;
    }
    // SAFETY: the caller guarantees `len` readable bytes at `bytes` that outlive every use of
    // `*model`, the lifetime the model borrows them for.
    let bytes: &'static [u8] = match unsafe { slice(bytes, len, ltu_status::LTU_ERR_LIMIT_EXCEEDED) } {
        Ok(b) => b,
        Err(e) => return e,
    };
    match Model::from_bytes(bytes) {
        Ok(m) => {
            // SAFETY: `model` is non-NULL, aligned and writable, and large and aligned enough for
            // a `Loaded` (asserted at compile time).
            unsafe { model.cast::<Loaded>().write(Loaded { valid: VALID, model: m }) };
            ltu_status::LTU_OK
        }
        Err(e) => e.into(),
    }
}

/// Reads a count from a model; 0 when the model is NULL or uninitialised.
///
/// # Safety
/// As [`loaded`].
unsafe fn count(model: *const ltu_model, f: impl FnOnce(&Model<'static>) -> usize) -> usize {
    // SAFETY: the caller's contract for `model`.
    unsafe { loaded(model) }.map_or(0, f)
}

/// A count of a model's sensor pipeline.
#[derive(Clone, Copy)]
enum PipelineCount {
    Channels,
    Window,
    Hop,
}

/// Reads a count from a model's sensor pipeline; 0 without a pipeline, when the model is NULL or
/// uninitialised, or when the library is built without the `pipeline` feature (no model with a
/// pipeline loads then). The hop is 0 too when the whole recording is one window.
///
/// # Safety
/// As [`loaded`].
unsafe fn pipeline_count(model: *const ltu_model, which: PipelineCount) -> usize {
    #[cfg(feature = "pipeline")]
    // SAFETY: the caller's contract for `model`.
    return unsafe {
        count(model, |m| {
            m.pipeline().map_or(0, |p| match which {
                PipelineCount::Channels => p.n_channels(),
                PipelineCount::Window => p.window(),
                PipelineCount::Hop if p.window() == 0 => 0,
                PipelineCount::Hop => p.hop(),
            })
        })
    };
    #[cfg(not(feature = "pipeline"))]
    return {
        let _ = (model, which);
        0
    };
}

/// Number of raw inputs the model reads (the `n_inputs` `ltu_predict` expects); 0 if `model` is
/// NULL or not initialised.
///
/// # Safety
/// `model` is NULL or points to an `ltu_model` that is zeroed or was passed to `ltu_model_init`.
#[no_mangle]
pub unsafe extern "C" fn ltu_model_n_inputs(model: *const ltu_model) -> usize {
    // SAFETY: the caller's contract for `model`.
    unsafe { count(model, Model::n_inputs) }
}

/// Number of classes (predicted classes are below it; the `n_scores` `ltu_predict_scores`
/// needs); 0 if `model` is NULL or not initialised.
///
/// # Safety
/// As `ltu_model_n_inputs`.
#[no_mangle]
pub unsafe extern "C" fn ltu_model_n_classes(model: *const ltu_model) -> usize {
    // SAFETY: the caller's contract for `model`.
    unsafe { count(model, Model::n_classes) }
}

/// Channels of the model's sensor pipeline (the `n_channels` `ltu_predict_window` expects); 0
/// without a pipeline, or if `model` is NULL or not initialised.
///
/// # Safety
/// As `ltu_model_n_inputs`.
#[no_mangle]
pub unsafe extern "C" fn ltu_model_n_channels(model: *const ltu_model) -> usize {
    // SAFETY: the caller's contract for `model`.
    unsafe { pipeline_count(model, PipelineCount::Channels) }
}

/// Samples per window of the model's sensor pipeline; 0 without a pipeline, when the whole
/// recording is one window, or if `model` is NULL or not initialised.
///
/// # Safety
/// As `ltu_model_n_inputs`.
#[no_mangle]
pub unsafe extern "C" fn ltu_model_window(model: *const ltu_model) -> usize {
    // SAFETY: the caller's contract for `model`.
    unsafe { pipeline_count(model, PipelineCount::Window) }
}

/// Samples from the start of one pipeline window to the next (for a streaming firmware); 0
/// without a pipeline, when the whole recording is one window, or if `model` is NULL or not
/// initialised.
///
/// # Safety
/// As `ltu_model_n_inputs`.
#[no_mangle]
pub unsafe extern "C" fn ltu_model_hop(model: *const ltu_model) -> usize {
    // SAFETY: the caller's contract for `model`.
    unsafe { pipeline_count(model, PipelineCount::Hop) }
}

/// Predicts the class of one example: `inputs` holds `n_inputs` raw values (numeric inputs in
/// the model's raw unit, categorical inputs as value indices; any `int32_t` is valid). Writes the
/// class to `*class_out`.
///
/// Errors: `LTU_ERR_NULL`, `LTU_ERR_MISALIGNED`, `LTU_ERR_MODEL_UNINITIALISED`,
/// `LTU_ERR_PREDICT_INPUT_LENGTH` if `n_inputs` is not `ltu_model_n_inputs(model)`.
///
/// # Safety
/// `model` as in `ltu_model_n_inputs`; `inputs` is NULL or points to `n_inputs` readable
/// `int32_t` (NULL is accepted when `n_inputs` is 0); `class_out` is NULL or points to a
/// writable `uint32_t`.
#[no_mangle]
pub unsafe extern "C" fn ltu_predict(
    model: *const ltu_model,
    inputs: *const i32,
    n_inputs: usize,
    class_out: *mut u32,
) -> ltu_status {
    // SAFETY: the caller's contract for `model`, `inputs` and `class_out`.
    status(unsafe { loaded(model) }.and_then(|m| unsafe { predict_into(m, inputs, n_inputs, class_out) }))
}

/// `ltu_predict` on a validated model (also the learned model of `ltu_learner_predict`).
///
/// # Safety
/// As `ltu_predict` for `inputs` and `class_out`.
unsafe fn predict_into(
    m: &Model<'_>,
    inputs: *const i32,
    n_inputs: usize,
    class_out: *mut u32,
) -> Result<ltu_status, ltu_status> {
    check_ptr(class_out)?;
    if n_inputs != m.n_inputs() {
        return Err(ltu_status::LTU_ERR_PREDICT_INPUT_LENGTH);
    }
    // SAFETY: the caller's contract for `inputs`.
    let x = unsafe { slice(inputs, n_inputs, ltu_status::LTU_ERR_PREDICT_INPUT_LENGTH) }?;
    // SAFETY: `class_out` checked; writable by the caller's contract.
    Ok(unsafe { finish(m.predict(x), class_out) })
}

/// Predicts as `ltu_predict` and writes the per-class scores of the unit that decided to
/// `scores[0 .. ltu_model_n_classes(model)]`.
///
/// For a linear machine every class it covers gets its row's score; for a binary unit the
/// positive class gets the score `s` and the negative class `-s`; a class the deciding unit does
/// not cover gets `INT64_MIN`. A constant leaf (or a list's default) scores its class 0. Scores
/// have the model's fractional bits (16 for fixed-point weights, else 0).
///
/// Errors: as `ltu_predict`, and `LTU_ERR_PREDICT_SCORES_BUFFER` if `n_scores` is less than
/// `ltu_model_n_classes(model)`.
///
/// # Safety
/// As `ltu_predict`; `scores` is NULL or points to `n_scores` writable `int64_t`.
#[no_mangle]
pub unsafe extern "C" fn ltu_predict_scores(
    model: *const ltu_model,
    inputs: *const i32,
    n_inputs: usize,
    scores: *mut i64,
    n_scores: usize,
    class_out: *mut u32,
) -> ltu_status {
    status((|| {
        // SAFETY: the caller's contract for `model`.
        let m = unsafe { loaded(model) }?;
        check_ptr(class_out)?;
        if n_inputs != m.n_inputs() {
            return Err(ltu_status::LTU_ERR_PREDICT_INPUT_LENGTH);
        }
        if n_scores < m.n_classes() {
            return Err(ltu_status::LTU_ERR_PREDICT_SCORES_BUFFER);
        }
        // SAFETY: the caller's contract for `inputs`.
        let x = unsafe { slice(inputs, n_inputs, ltu_status::LTU_ERR_PREDICT_INPUT_LENGTH) }?;
        // SAFETY: `n_classes <= n_scores` writable elements at `scores` (caller's contract).
        let s = unsafe { slice_mut(scores, m.n_classes(), ltu_status::LTU_ERR_PREDICT_SCORES_BUFFER) }?;
        // SAFETY: `class_out` checked; writable by the caller's contract.
        Ok(unsafe { finish(m.predict_scores(x, s), class_out) })
    })())
}

/// Asks for one raw input: writes input `index`'s value to `*value_out` and returns `LTU_OK`, or
/// returns any other status if the value is unavailable (the prediction then fails with
/// `LTU_ERR_PREDICT_INPUT_UNAVAILABLE`). `context` is the pointer given to `ltu_predict_lazy`.
/// It must return normally (no `longjmp`, no C++ exception).
pub type ltu_input_fn =
    Option<unsafe extern "C" fn(context: *mut c_void, index: usize, value_out: *mut i32) -> ltu_status_raw>;

/// Predicts, calling `input` only for the inputs the evaluation path reads (a tree reads those
/// on its path: sensors it does not need stay off). `input` may be asked for the same input more
/// than once; cache in it if a read is costly. Writes the class to `*class_out`.
///
/// Errors: `LTU_ERR_NULL` (`model`, `input` or `class_out`), `LTU_ERR_MISALIGNED`,
/// `LTU_ERR_MODEL_UNINITIALISED`, `LTU_ERR_PREDICT_INPUT_UNAVAILABLE` if `input` failed for an
/// input the evaluation needed.
///
/// # Safety
/// `model` as in `ltu_model_n_inputs`; `input` is NULL or a function of type `ltu_input_fn`;
/// `class_out` as in `ltu_predict`. `context` is passed through untouched.
#[no_mangle]
pub unsafe extern "C" fn ltu_predict_lazy(
    model: *const ltu_model,
    input: ltu_input_fn,
    context: *mut c_void,
    class_out: *mut u32,
) -> ltu_status {
    status((|| {
        // SAFETY: the caller's contract for `model`.
        let m = unsafe { loaded(model) }?;
        let input = input.ok_or(ltu_status::LTU_ERR_NULL)?;
        check_ptr(class_out)?;
        let prediction = m.predict_with(|i| {
            let mut value = 0i32;
            // SAFETY: `input` is an `ltu_input_fn` (caller's contract), given the caller's
            // `context` and a pointer to a local `int32_t`.
            let got = unsafe { input(context, i, &mut value) };
            (got == ltu_status_raw(ltu_status::LTU_OK as u32)).then_some(value)
        });
        // SAFETY: `class_out` checked; writable by the caller's contract.
        Ok(unsafe { finish(prediction, class_out) })
    })())
}

/// Predicts the class of one window of raw samples through the model's sensor pipeline:
/// `samples` holds `n_channels` rows of `n_samples` samples each, channel-major
/// (`samples[c * n_samples + i]` is sample `i` of channel `c`, oldest first). Only the window
/// statistics the evaluation path reads are computed. Writes the class to `*class_out`.
///
/// Errors: `LTU_ERR_NULL`, `LTU_ERR_MISALIGNED`, `LTU_ERR_MODEL_UNINITIALISED`,
/// `LTU_ERR_PREDICT_WINDOW` if the model has no pipeline, `n_channels` is not
/// `ltu_model_n_channels(model)`, or `n_samples` is 0 or more than 4096 and a statistic the
/// evaluation needs reads the window; `LTU_ERR_UNSUPPORTED` if the library was built without the
/// `pipeline` feature.
///
/// # Safety
/// `model` and `class_out` as in `ltu_predict`; `samples` is NULL or points to
/// `n_channels * n_samples` readable `int16_t` (NULL is accepted when that product is 0).
#[no_mangle]
pub unsafe extern "C" fn ltu_predict_window(
    model: *const ltu_model,
    samples: *const i16,
    n_channels: usize,
    n_samples: usize,
    class_out: *mut u32,
) -> ltu_status {
    // SAFETY: the caller's contract for `model`, `samples` and `class_out`.
    status(
        unsafe { loaded(model) }
            .and_then(|m| unsafe { predict_window_into(m, samples, n_channels, n_samples, class_out) }),
    )
}

/// `ltu_predict_window` on a validated model (also the learned model of
/// `ltu_learner_predict_window`).
///
/// # Safety
/// As `ltu_predict_window` for `samples` and `class_out`.
unsafe fn predict_window_into(
    m: &Model<'_>,
    samples: *const i16,
    n_channels: usize,
    n_samples: usize,
    class_out: *mut u32,
) -> Result<ltu_status, ltu_status> {
    check_ptr(class_out)?;
    // SAFETY: the caller's contract for `samples`.
    let window = unsafe { Window::new(samples, n_channels, n_samples) }?;
    #[cfg(feature = "pipeline")]
    // SAFETY: `class_out` checked; writable by the caller's contract.
    return Ok(unsafe { finish(m.predict_window_with(n_channels, |c| window.channel(c)), class_out) });
    #[cfg(not(feature = "pipeline"))]
    return {
        let _ = (m, window, n_channels);
        Err(ltu_status::LTU_ERR_UNSUPPORTED)
    };
}

/// A window of raw samples from C: `n_channels` rows of `n_samples`, channel-major.
struct Window<'a> {
    all: &'a [i16],
    n_samples: usize,
}

impl<'a> Window<'a> {
    /// The `n_channels * n_samples` samples at `samples`. Without the `pipeline` feature, no
    /// model can use a window: `LTU_ERR_UNSUPPORTED`.
    ///
    /// # Safety
    /// `samples` is NULL or points to `n_channels * n_samples` readable `int16_t` that nothing
    /// writes for `'a` (NULL is accepted when that product is 0).
    unsafe fn new(samples: *const i16, n_channels: usize, n_samples: usize) -> Result<Self, ltu_status> {
        if cfg!(not(feature = "pipeline")) {
            return Err(ltu_status::LTU_ERR_UNSUPPORTED);
        }
        let total = n_channels.checked_mul(n_samples).ok_or(ltu_status::LTU_ERR_PREDICT_WINDOW)?;
        // SAFETY: the caller's contract for `samples`.
        let all = unsafe { slice(samples, total, ltu_status::LTU_ERR_PREDICT_WINDOW) }?;
        Ok(Window { all, n_samples })
    }

    /// Channel `c`'s samples; `None` past the last channel.
    #[cfg_attr(not(feature = "pipeline"), allow(dead_code))]
    fn channel(&self, c: usize) -> Option<&'a [i16]> {
        let start = c.checked_mul(self.n_samples)?;
        self.all.get(start..start.checked_add(self.n_samples)?)
    }
}

/// Copies the name of class `class` from the model's optional names, NUL-terminated, into the
/// `len` bytes at `buf` (an empty string when the model has no names, or the library was built
/// without the `host` feature). On an error `buf` is left unchanged.
///
/// Errors: `LTU_ERR_NULL` (`model` or `buf`), `LTU_ERR_MISALIGNED`,
/// `LTU_ERR_MODEL_UNINITIALISED`, `LTU_ERR_CLASS_OUT_OF_RANGE` if `class` is not below
/// `ltu_model_n_classes(model)`, `LTU_ERR_BUFFER_TOO_SMALL` if the name and its NUL do not fit.
///
/// # Safety
/// `model` as in `ltu_model_n_inputs`; `buf` is NULL or points to `len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn ltu_model_class_name(
    model: *const ltu_model,
    class: usize,
    buf: *mut c_char,
    len: usize,
) -> ltu_status {
    status((|| {
        // SAFETY: the caller's contract for `model`.
        let m = unsafe { loaded(model) }?;
        check_ptr(buf)?;
        if class >= m.n_classes() {
            return Err(ltu_status::LTU_ERR_CLASS_OUT_OF_RANGE);
        }
        #[cfg(feature = "host")]
        let name = m.names().map_or("", |n| n.class(class));
        #[cfg(not(feature = "host"))]
        let name = "";
        let too_small = ltu_status::LTU_ERR_BUFFER_TOO_SMALL;
        // SAFETY: `buf` is non-NULL (checked) with `len` writable bytes (caller's contract).
        let out = unsafe { slice_mut(buf.cast::<u8>(), len, too_small) }?;
        let (text, rest) = out.split_at_mut_checked(name.len()).ok_or(too_small)?;
        let nul = rest.first_mut().ok_or(too_small)?;
        for (o, b) in text.iter_mut().zip(name.bytes()) {
            *o = b;
        }
        *nul = 0;
        Ok(ltu_status::LTU_OK)
    })())
}

/// The enumerator's name of `status` ("LTU_ERR_CHECKSUM_MISMATCH"), a static NUL-terminated
/// string; "LTU_ERR_UNKNOWN" for a number that is no `ltu_status`. Never NULL.
#[no_mangle]
pub extern "C" fn ltu_status_name(status: ltu_status_raw) -> *const c_char {
    let s = ltu_status::from_raw(status.0).unwrap_or(ltu_status::LTU_ERR_UNKNOWN);
    s.name().as_ptr().cast()
}

/// A sentence saying what `status` means ("model checksum mismatch (corrupted or truncated)"),
/// a static NUL-terminated string; "unknown error" for a number that is no `ltu_status`. Never
/// NULL.
#[no_mangle]
pub extern "C" fn ltu_status_message(status: ltu_status_raw) -> *const c_char {
    let s = ltu_status::from_raw(status.0).unwrap_or(ltu_status::LTU_ERR_UNKNOWN);
    s.message().as_ptr().cast()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every status's name and message are NUL-terminated with no other NUL, and the runtime's
    /// errors carry the runtime's `Display` text.
    #[test]
    fn names_and_messages() {
        for s in STATUSES {
            for text in [s.name(), s.message()] {
                assert_eq!(text.find('\0'), Some(text.len() - 1), "{s:?}");
            }
            assert_eq!(&s.name()[..s.name().len() - 1], std::format!("{s:?}"));
            assert_eq!(ltu_status::from_raw(s as u32), Some(s));
        }
        assert_eq!(ltu_status::from_raw(1000), None);
    }
}

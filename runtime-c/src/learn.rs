//! On-device learning from C (cargo feature `learn`): [`ltu_learner`] wraps the runtime's
//! [`Learner`] and [`ltu_store`] its power-safe [`Store`] over flash functions the caller gives.
//!
//! # The flash behind an `ltu_store`
//!
//! [`Store`] works over any `embedded_storage` [`NorFlash`], whose word and page sizes are
//! constants of the driver's type. A C driver tells them at run time, so the library's adapter
//! ([`CFlash`]) presents one fixed geometry to the store, 32-byte words and 32-byte pages, and
//! maps it onto the real one:
//!
//! - **writes and reads** are whole, aligned 32-byte words, so every real word size that divides
//!   32 (1, 2, 4, 8, 16, 32 bytes) sees only whole, aligned words of its own;
//! - **erases**: the store erases a prefix of one slot, `[slot start, slot start + k * 32)`; a
//!   slot starts on a real page (checked by `ltu_store_init`), and the adapter rounds the end up
//!   to a real page. The extra bytes erased belong to the slot being rewritten, which the store
//!   has already given up (it never holds the latest valid model), so the power-safety argument
//!   of [`Store`] is unchanged.
//!
//! The price of the fixed geometry: a slot's header area is 32 bytes (a Rust [`Store`] over a
//! flash with 4-byte words uses 16), and a file's last word is padded to 32 bytes.

use core::ffi::{c_int, c_void};
use core::mem::{align_of, size_of};

use embedded_storage::nor_flash::{
    check_erase, check_read, check_write, ErrorType, NorFlash, NorFlashError, NorFlashErrorKind, ReadNorFlash,
};
use ltu_runtime::{Learner, Outcome, Store, StoreError};

use crate::{check_ptr, ltu_status, predict_into, predict_window_into, slice, slice_mut, status, Window};

/// Words of storage in an `ltu_learner`: enough for the learner on every target (checked at
/// compile time).
pub const LTU_LEARNER_WORDS: usize = 48;

/// Caller-provided storage for a model that learns: the model file (which stays in flash,
/// unchanged) with its weight table in RAM the caller provides. Initialise it with
/// `ltu_learner_init`; a zeroed `ltu_learner`, or one whose initialisation failed, is refused
/// with `LTU_ERR_LEARNER_UNINITIALISED`. It needs no clean-up. Do not copy an initialised
/// `ltu_learner` (both copies would write the same RAM): initialise another one instead.
#[repr(C)]
pub struct ltu_learner {
    opaque: [*const c_void; LTU_LEARNER_WORDS],
}

/// What `ltu_learner_init` writes into an `ltu_learner`: the validity word, then the learner.
#[repr(C)]
struct Learning {
    valid: usize,
    learner: Learner<'static, 'static>,
}

/// The validity word of an initialised learner ("lrn!" in ASCII); zero otherwise.
const LEARNING: usize = 0x216e_726c;

const _: () = assert!(size_of::<Learning>() <= size_of::<ltu_learner>(), "LTU_LEARNER_WORDS too small");
const _: () = assert!(align_of::<Learning>() <= align_of::<ltu_learner>());

/// What `ltu_learner_update` did; written to its `outcome_out` as a `uint32_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ltu_outcome {
    /// The model already answered right: nothing changed.
    LTU_OUTCOME_CORRECT = 0,
    /// The deciding unit (`unit_out`) was corrected.
    LTU_OUTCOME_CORRECTED = 1,
    /// The deciding unit (`unit_out`) was corrected by less than the full step (shortened so
    /// that no accumulator can overflow, or a weight clamped to the weight kind's range); the
    /// input may still be misclassified.
    LTU_OUTCOME_CLIPPED = 2,
    /// The deciding unit (`unit_out`) was wrong but its weights are at the accumulator bound:
    /// nothing changed.
    LTU_OUTCOME_SATURATED = 3,
    /// A tree's constant leaf decided: it has no weights to correct.
    LTU_OUTCOME_CONSTANT = 4,
    /// The deciding unit cannot answer the label (a leaf that scores other classes only, or a
    /// decision list without an entry for it): nothing changed.
    LTU_OUTCOME_UNLEARNABLE = 5,
}

/// The `unit_out` of an outcome that names no unit.
pub const LTU_NO_UNIT: u32 = u32::MAX;

/// The C outcome and unit of a runtime outcome.
fn outcome(o: Outcome) -> (ltu_outcome, u32) {
    use ltu_outcome::*;
    match o {
        Outcome::Correct => (LTU_OUTCOME_CORRECT, LTU_NO_UNIT),
        Outcome::Corrected { unit } => (LTU_OUTCOME_CORRECTED, u32::from(unit)),
        Outcome::Clipped { unit } => (LTU_OUTCOME_CLIPPED, u32::from(unit)),
        Outcome::Saturated { unit } => (LTU_OUTCOME_SATURATED, u32::from(unit)),
        Outcome::Constant => (LTU_OUTCOME_CONSTANT, LTU_NO_UNIT),
        Outcome::Unlearnable => (LTU_OUTCOME_UNLEARNABLE, LTU_NO_UNIT),
    }
}

/// Counts of what a learner's updates did since `ltu_learner_init`, saturating at
/// `UINT32_MAX`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ltu_learn_stats {
    /// Updates that ran (errors excluded).
    pub updates: u32,
    /// `LTU_OUTCOME_CORRECTED`.
    pub corrected: u32,
    /// `LTU_OUTCOME_CLIPPED`.
    pub clipped: u32,
    /// `LTU_OUTCOME_SATURATED`.
    pub saturated: u32,
    /// `LTU_OUTCOME_CONSTANT`.
    pub constant: u32,
    /// `LTU_OUTCOME_UNLEARNABLE`.
    pub unlearnable: u32,
}

/// The learner in `learner`.
///
/// # Safety
/// `learner` is NULL or points to an `ltu_learner` that is zeroed or was passed to
/// `ltu_learner_init` (whose model bytes and RAM are still valid if that succeeded), and that
/// nothing writes while the result is used.
unsafe fn learning<'a>(learner: *const ltu_learner) -> Result<&'a Learning, ltu_status> {
    check_ptr(learner)?;
    // SAFETY: `learner` is non-NULL and aligned (checked) and points to an `ltu_learner`
    // (caller), whose first word is a plain integer whatever was written there.
    let valid = unsafe { learner.cast::<usize>().read() };
    if valid != LEARNING {
        return Err(ltu_status::LTU_ERR_LEARNER_UNINITIALISED);
    }
    // SAFETY: the validity word is only ever written by `ltu_learner_init`, together with the
    // `Learning` it heads (size and alignment asserted above); its borrows are valid (caller).
    Ok(unsafe { &*learner.cast::<Learning>() })
}

/// The learner in `learner`, writable.
///
/// # Safety
/// As [`learning`], and nothing else reads or writes `*learner` while the result is used.
unsafe fn learning_mut<'a>(learner: *mut ltu_learner) -> Result<&'a mut Learning, ltu_status> {
    // SAFETY: the caller's contract for `learner`.
    unsafe { learning(learner) }?;
    // SAFETY: checked just above that it holds a `Learning`; exclusive by the caller's contract.
    Ok(unsafe { &mut *learner.cast::<Learning>() })
}

/// Checks an optional out-parameter: NULL, or aligned for `T`.
fn check_optional<T>(ptr: *mut T) -> Result<(), ltu_status> {
    if ptr.is_null() {
        Ok(())
    } else {
        check_ptr(ptr)
    }
}

/// Writes `value` to an optional out-parameter checked with [`check_optional`].
///
/// # Safety
/// `ptr` is NULL or points to a writable `T`.
unsafe fn write_optional<T>(ptr: *mut T, value: T) {
    if !ptr.is_null() {
        // SAFETY: non-NULL and aligned (checked by the caller); writable by its contract.
        unsafe { ptr.write(value) };
    }
}

/// The model file at `bytes`, borrowed for as long as the caller's contract says.
///
/// # Safety
/// `bytes` is NULL or points to `len` readable bytes that stay valid and unchanged while they
/// are used.
unsafe fn model_bytes(bytes: *const u8, len: usize) -> Result<&'static [u8], ltu_status> {
    if bytes.is_null() {
        return Err(ltu_status::LTU_ERR_NULL);
    }
    // SAFETY: the caller's contract for `bytes`.
    unsafe { slice(bytes, len, ltu_status::LTU_ERR_LIMIT_EXCEEDED) }
}

/// Validates the `len` model bytes at `bytes` and writes to `*needed_out` the bytes of RAM
/// `ltu_learner_init` needs for them: the model's weight table (1, 2 or 4 bytes per weight and
/// bias; `ltu inspect` reports it).
///
/// Errors: `LTU_ERR_NULL`, `LTU_ERR_MISALIGNED`, or the first failed check of the model (as
/// `ltu_model_init`).
///
/// # Safety
/// `bytes` is NULL or points to `len` readable bytes; `needed_out` is NULL or points to a
/// writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn ltu_learner_ram_needed(
    bytes: *const u8,
    len: usize,
    needed_out: *mut usize,
) -> ltu_status {
    status((|| {
        check_ptr(needed_out)?;
        // SAFETY: the caller's contract for `bytes` (used only during this call).
        let file = unsafe { model_bytes(bytes, len) }?;
        let needed = Learner::ram_needed(file)?;
        // SAFETY: `needed_out` checked; writable by the caller's contract.
        unsafe { needed_out.write(needed) };
        Ok(ltu_status::LTU_OK)
    })())
}

/// Validates the `len` model bytes at `bytes` (every check of `ltu_model_init`) and copies the
/// model's weight table into the `ram_len` bytes at `ram` (at least `ltu_learner_ram_needed`;
/// any alignment), making `*learner` a model that learns. On any error `*learner` is left
/// uninitialised.
///
/// Errors: `LTU_ERR_NULL` (`learner`, `bytes`, or `ram` when `ram_len` is not 0),
/// `LTU_ERR_MISALIGNED`, a failed check of the model (codes 1 to 21),
/// `LTU_ERR_LEARN_RAM_TOO_SMALL`.
///
/// # Safety
/// `learner` is NULL or points to writable storage for an `ltu_learner`; `bytes` is NULL or
/// points to `len` readable bytes that stay valid and unchanged as long as `*learner` is used;
/// `ram` is NULL or points to `ram_len` writable bytes that nothing but the functions given
/// `learner` reads or writes as long as `*learner` is used.
#[no_mangle]
pub unsafe extern "C" fn ltu_learner_init(
    learner: *mut ltu_learner,
    bytes: *const u8,
    len: usize,
    ram: *mut u8,
    ram_len: usize,
) -> ltu_status {
    if let Err(e) = check_ptr(learner) {
        return e;
    }
    // SAFETY: `learner` is non-NULL and aligned (checked) and writable (caller). Cleared first
    // so that every failure below leaves it uninitialised.
    unsafe { learner.cast::<usize>().write(0) };
    status((|| {
        // SAFETY: the caller's contract for `bytes`: valid as long as `*learner` is used.
        let file = unsafe { model_bytes(bytes, len) }?;
        // SAFETY: the caller's contract for `ram`: only this learner uses it while it is used.
        let ram = unsafe { slice_mut(ram, ram_len, ltu_status::LTU_ERR_LEARN_RAM_TOO_SMALL) }?;
        let l = Learner::new(file, ram)?;
        let learning = Learning { valid: LEARNING, learner: l };
        // SAFETY: `learner` is non-NULL, aligned and writable, and large and aligned enough for
        // a `Learning` (asserted at compile time).
        unsafe { learner.cast::<Learning>().write(learning) };
        Ok(ltu_status::LTU_OK)
    })())
}

/// Writes an update's outcome.
///
/// # Safety
/// `outcome_out` was checked with `check_ptr` and `unit_out` with [`check_optional`]; both
/// writable by the caller's contract.
unsafe fn write_outcome(o: Outcome, outcome_out: *mut u32, unit_out: *mut u32) -> ltu_status {
    let (o, unit) = outcome(o);
    // SAFETY: the caller's contract.
    unsafe {
        outcome_out.write(o as u32);
        write_optional(unit_out, unit);
    }
    ltu_status::LTU_OK
}

/// Presents one labelled example to the learner: `inputs` holds `n_inputs` raw values (as
/// `ltu_predict`), `label` is its true class. If the unit that decides for it answers wrongly,
/// its weights move just far enough that it answers `label` (Utgoff's absolute error
/// correction; docs/ON_DEVICE_LEARNING.md). Writes the `ltu_outcome` to `*outcome_out` and,
/// unless `unit_out` is NULL, the corrected unit's index to `*unit_out` (`LTU_NO_UNIT` for
/// `LTU_OUTCOME_CORRECT`, `_CONSTANT` and `_UNLEARNABLE`).
///
/// Errors (nothing changes then): `LTU_ERR_NULL`, `LTU_ERR_MISALIGNED`,
/// `LTU_ERR_LEARNER_UNINITIALISED`, `LTU_ERR_PREDICT_INPUT_LENGTH`,
/// `LTU_ERR_LEARN_LABEL_OUT_OF_RANGE` if `label` is not below the number of classes.
///
/// # Safety
/// `learner` is NULL or points to an `ltu_learner` that is zeroed or was passed to
/// `ltu_learner_init`, and that no other call uses meanwhile; `inputs` as in `ltu_predict`;
/// `outcome_out` is NULL or points to a writable `uint32_t`; `unit_out` likewise.
#[no_mangle]
pub unsafe extern "C" fn ltu_learner_update(
    learner: *mut ltu_learner,
    inputs: *const i32,
    n_inputs: usize,
    label: u32,
    outcome_out: *mut u32,
    unit_out: *mut u32,
) -> ltu_status {
    status((|| {
        // SAFETY: the caller's contract for `learner`.
        let l = &mut unsafe { learning_mut(learner) }?.learner;
        check_ptr(outcome_out)?;
        check_optional(unit_out)?;
        if n_inputs != l.model().n_inputs() {
            return Err(ltu_status::LTU_ERR_PREDICT_INPUT_LENGTH);
        }
        // SAFETY: the caller's contract for `inputs`.
        let x = unsafe { slice(inputs, n_inputs, ltu_status::LTU_ERR_PREDICT_INPUT_LENGTH) }?;
        let o = l.update(x, label_index(label))?;
        // SAFETY: both checked; writable by the caller's contract.
        Ok(unsafe { write_outcome(o, outcome_out, unit_out) })
    })())
}

/// A label as an index: exact on every target with 32-bit or wider `size_t`; above any class
/// count otherwise.
fn label_index(label: u32) -> usize {
    usize::try_from(label).unwrap_or(usize::MAX)
}

/// `ltu_learner_update` for a model with a sensor pipeline: the inputs are the statistics of one
/// window of raw samples, `samples` holding `n_channels` rows of `n_samples` samples,
/// channel-major (as `ltu_predict_window`). Only the statistics the update reads are computed.
///
/// Errors: as `ltu_learner_update`, with `LTU_ERR_PREDICT_WINDOW` (as `ltu_predict_window`) for
/// `LTU_ERR_PREDICT_INPUT_LENGTH`; `LTU_ERR_UNSUPPORTED` if the library was built without the
/// `pipeline` feature. Nothing changes on an error.
///
/// # Safety
/// `learner`, `outcome_out` and `unit_out` as in `ltu_learner_update`; `samples` as in
/// `ltu_predict_window`.
#[no_mangle]
pub unsafe extern "C" fn ltu_learner_update_window(
    learner: *mut ltu_learner,
    samples: *const i16,
    n_channels: usize,
    n_samples: usize,
    label: u32,
    outcome_out: *mut u32,
    unit_out: *mut u32,
) -> ltu_status {
    status((|| {
        // SAFETY: the caller's contract for `learner`.
        let learning = unsafe { learning_mut(learner) }?;
        check_ptr(outcome_out)?;
        check_optional(unit_out)?;
        // SAFETY: the caller's contract for `samples`.
        let window = unsafe { Window::new(samples, n_channels, n_samples) }?;
        #[cfg(feature = "pipeline")]
        {
            let o =
                learning.learner.update_window_with(n_channels, |c| window.channel(c), label_index(label));
            // SAFETY: both checked; writable by the caller's contract.
            Ok(unsafe { write_outcome(o?, outcome_out, unit_out) })
        }
        #[cfg(not(feature = "pipeline"))]
        {
            let _ = (learning, window, label);
            Err(ltu_status::LTU_ERR_UNSUPPORTED)
        }
    })())
}

/// Predicts with the learned model as `ltu_predict` does with a model.
///
/// Errors: as `ltu_predict`, with `LTU_ERR_LEARNER_UNINITIALISED`.
///
/// # Safety
/// `learner` as in `ltu_learner_update` (read only); `inputs` and `class_out` as in
/// `ltu_predict`.
#[no_mangle]
pub unsafe extern "C" fn ltu_learner_predict(
    learner: *const ltu_learner,
    inputs: *const i32,
    n_inputs: usize,
    class_out: *mut u32,
) -> ltu_status {
    status((|| {
        // SAFETY: the caller's contract for `learner`.
        let m = unsafe { learning(learner) }?.learner.model();
        // SAFETY: the caller's contract for `inputs` and `class_out`.
        unsafe { predict_into(&m, inputs, n_inputs, class_out) }
    })())
}

/// Predicts with the learned model as `ltu_predict_window` does with a model.
///
/// Errors: as `ltu_predict_window`, with `LTU_ERR_LEARNER_UNINITIALISED`.
///
/// # Safety
/// `learner` as in `ltu_learner_predict`; `samples` and `class_out` as in `ltu_predict_window`.
#[no_mangle]
pub unsafe extern "C" fn ltu_learner_predict_window(
    learner: *const ltu_learner,
    samples: *const i16,
    n_channels: usize,
    n_samples: usize,
    class_out: *mut u32,
) -> ltu_status {
    status((|| {
        // SAFETY: the caller's contract for `learner`.
        let m = unsafe { learning(learner) }?.learner.model();
        // SAFETY: the caller's contract for `samples` and `class_out`.
        unsafe { predict_window_into(&m, samples, n_channels, n_samples, class_out) }
    })())
}

/// Writes to `*stats_out` what the updates since `ltu_learner_init` did.
///
/// Errors: `LTU_ERR_NULL`, `LTU_ERR_MISALIGNED`, `LTU_ERR_LEARNER_UNINITIALISED`.
///
/// # Safety
/// `learner` as in `ltu_learner_predict`; `stats_out` is NULL or points to a writable
/// `ltu_learn_stats`.
#[no_mangle]
pub unsafe extern "C" fn ltu_learner_stats(
    learner: *const ltu_learner,
    stats_out: *mut ltu_learn_stats,
) -> ltu_status {
    status((|| {
        // SAFETY: the caller's contract for `learner`.
        let s = unsafe { learning(learner) }?.learner.stats();
        check_ptr(stats_out)?;
        let stats = ltu_learn_stats {
            updates: s.updates,
            corrected: s.corrected,
            clipped: s.clipped,
            saturated: s.saturated,
            constant: s.constant,
            unlearnable: s.unlearnable,
        };
        // SAFETY: `stats_out` checked; writable by the caller's contract.
        unsafe { stats_out.write(stats) };
        Ok(ltu_status::LTU_OK)
    })())
}

/// Length in bytes of the learned model file (the base file's: only weights change); 0 if
/// `learner` is NULL or not initialised.
///
/// # Safety
/// As `ltu_learner_predict` for `learner`.
#[no_mangle]
pub unsafe extern "C" fn ltu_learner_file_len(learner: *const ltu_learner) -> usize {
    // SAFETY: the caller's contract for `learner`.
    unsafe { learning(learner) }.map_or(0, |l| l.learner.file_len())
}

/// Writes to `*crc_out` the CRC-32 of the learned model file (its last four bytes,
/// little-endian).
///
/// Errors: `LTU_ERR_NULL`, `LTU_ERR_MISALIGNED`, `LTU_ERR_LEARNER_UNINITIALISED`.
///
/// # Safety
/// As `ltu_learner_predict` for `learner`; `crc_out` is NULL or points to a writable
/// `uint32_t`.
#[no_mangle]
pub unsafe extern "C" fn ltu_learner_crc(learner: *const ltu_learner, crc_out: *mut u32) -> ltu_status {
    status((|| {
        // SAFETY: the caller's contract for `learner`.
        let crc = unsafe { learning(learner) }?.learner.crc();
        check_ptr(crc_out)?;
        // SAFETY: `crc_out` checked; writable by the caller's contract.
        unsafe { crc_out.write(crc) };
        Ok(ltu_status::LTU_OK)
    })())
}

/// Receives the next `len` bytes of a file (`len` > 0); returns 0 to go on, anything else to
/// stop. `user` is the pointer given with it. It must return normally (no `longjmp`, no C++
/// exception), and must not call a function with the learner it writes.
pub type ltu_sink_fn = Option<unsafe extern "C" fn(user: *mut c_void, data: *const u8, len: usize) -> c_int>;

/// Writes the learned model file to `sink` in pieces, in order (the base file up to the weight
/// table, the learned weights, the rest of the body, the new CRC-32): `ltu_learner_file_len`
/// bytes in all, a model file `ltu_model_init` accepts. The data pointers are valid only during
/// each call.
///
/// Errors: `LTU_ERR_NULL` (`learner` or `sink`), `LTU_ERR_MISALIGNED`,
/// `LTU_ERR_LEARNER_UNINITIALISED`, `LTU_ERR_CALLBACK` if `sink` returned non-zero (nothing
/// more is written after it).
///
/// # Safety
/// As `ltu_learner_predict` for `learner`; `sink` is NULL or a function of type `ltu_sink_fn`.
/// `user` is passed through untouched.
#[no_mangle]
pub unsafe extern "C" fn ltu_learner_write_file(
    learner: *const ltu_learner,
    sink: ltu_sink_fn,
    user: *mut c_void,
) -> ltu_status {
    status((|| {
        // SAFETY: the caller's contract for `learner`.
        let l = &unsafe { learning(learner) }?.learner;
        let sink = sink.ok_or(ltu_status::LTU_ERR_NULL)?;
        l.write_file(|piece| {
            if piece.is_empty() {
                return Ok(());
            }
            // SAFETY: `sink` is an `ltu_sink_fn` (caller's contract), given the caller's `user`
            // and `piece.len()` readable bytes that live through the call.
            match unsafe { sink(user, piece.as_ptr(), piece.len()) } {
                0 => Ok(()),
                _ => Err(ltu_status::LTU_ERR_CALLBACK),
            }
        })?;
        Ok(ltu_status::LTU_OK)
    })())
}

/// Reads `len` bytes of flash at address `addr` into `buf`; returns 0 on success. `addr` and
/// `len` are multiples of the flash's `read_size`.
pub type ltu_flash_read_fn =
    Option<unsafe extern "C" fn(user: *mut c_void, addr: u32, buf: *mut u8, len: usize) -> c_int>;

/// Programs the `len` bytes at `data` into flash at address `addr`; returns 0 on success. `addr`
/// and `len` are multiples of the flash's `write_size`; every byte was erased since it was last
/// written.
pub type ltu_flash_write_fn =
    Option<unsafe extern "C" fn(user: *mut c_void, addr: u32, data: *const u8, len: usize) -> c_int>;

/// Erases the flash pages from address `from` up to `to` (excluded; both multiples of the
/// flash's `erase_size`, `from` < `to`), setting their bytes to 0xFF; returns 0 on success.
pub type ltu_flash_erase_fn = Option<unsafe extern "C" fn(user: *mut c_void, from: u32, to: u32) -> c_int>;

/// A NOR flash, as the firmware's driver exposes it: three functions, the pointer they are
/// given, and the geometry. Callbacks must return normally (no `longjmp`, no C++ exception) and
/// must not call a function with the store or the learner in use.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ltu_flash {
    /// Passed to every callback untouched.
    pub user: *mut c_void,
    /// Reads flash.
    pub read: ltu_flash_read_fn,
    /// Programs flash.
    pub write: ltu_flash_write_fn,
    /// Erases pages.
    pub erase: ltu_flash_erase_fn,
    /// Bytes of flash the callbacks address, from address 0.
    pub capacity: u32,
    /// Bytes of a page, the unit of erasing: a multiple of 32.
    pub erase_size: u32,
    /// Bytes of a word, the unit of programming: 1, 2, 4, 8, 16 or 32.
    pub write_size: u32,
    /// Bytes of the unit of reading: 1, 2, 4, 8, 16 or 32.
    pub read_size: u32,
}

/// The word and page size [`CFlash`] presents to the [`Store`] (the largest word the store
/// supports).
const WORD: usize = 32;

/// A flash of the C caller's, as the [`Store`] sees it (see the module documentation).
struct CFlash {
    user: *mut c_void,
    read: unsafe extern "C" fn(*mut c_void, u32, *mut u8, usize) -> c_int,
    write: unsafe extern "C" fn(*mut c_void, u32, *const u8, usize) -> c_int,
    erase: unsafe extern "C" fn(*mut c_void, u32, u32) -> c_int,
    capacity: u32,
    erase_size: u32,
}

/// Why a [`CFlash`] operation failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FlashError {
    /// The caller's function returned non-zero.
    Callback,
    /// The store asked for an unaligned range (no consistent build does).
    NotAligned,
    /// The store asked for a range beyond the flash (no consistent build does).
    OutOfBounds,
}

impl FlashError {
    fn of(kind: NorFlashErrorKind) -> FlashError {
        match kind {
            NorFlashErrorKind::NotAligned => FlashError::NotAligned,
            _ => FlashError::OutOfBounds,
        }
    }

    /// `Ok` if the caller's function returned 0.
    fn check(returned: c_int) -> Result<(), FlashError> {
        if returned == 0 {
            Ok(())
        } else {
            Err(FlashError::Callback)
        }
    }
}

impl NorFlashError for FlashError {
    fn kind(&self) -> NorFlashErrorKind {
        match self {
            FlashError::Callback => NorFlashErrorKind::Other,
            FlashError::NotAligned => NorFlashErrorKind::NotAligned,
            FlashError::OutOfBounds => NorFlashErrorKind::OutOfBounds,
        }
    }
}

impl ErrorType for CFlash {
    type Error = FlashError;
}

impl ReadNorFlash for CFlash {
    const READ_SIZE: usize = WORD;

    fn read(&mut self, offset: u32, bytes: &mut [u8]) -> Result<(), FlashError> {
        check_read(self, offset, bytes.len()).map_err(FlashError::of)?;
        // SAFETY: `read` is an `ltu_flash_read_fn` (the contract of `ltu_store_init`), given the
        // caller's `user` and `bytes.len()` writable bytes; `offset` and the length are whole
        // 32-byte words, so whole words of any `read_size` dividing 32.
        FlashError::check(unsafe { (self.read)(self.user, offset, bytes.as_mut_ptr(), bytes.len()) })
    }

    fn capacity(&self) -> usize {
        self.capacity as usize
    }
}

impl NorFlash for CFlash {
    const WRITE_SIZE: usize = WORD;
    const ERASE_SIZE: usize = WORD;

    fn erase(&mut self, from: u32, to: u32) -> Result<(), FlashError> {
        check_erase(self, from, to).map_err(FlashError::of)?;
        if from % self.erase_size != 0 {
            return Err(FlashError::NotAligned);
        }
        // The end of the slot's prefix, rounded up to a real page: still inside the slot, as
        // slots are whole real pages.
        let to = to.checked_next_multiple_of(self.erase_size).ok_or(FlashError::OutOfBounds)?;
        if to > self.capacity {
            return Err(FlashError::OutOfBounds);
        }
        if from == to {
            return Ok(());
        }
        // SAFETY: `erase` is an `ltu_flash_erase_fn` (the contract of `ltu_store_init`); `from`
        // and `to` are page boundaries within the capacity.
        FlashError::check(unsafe { (self.erase)(self.user, from, to) })
    }

    fn write(&mut self, offset: u32, bytes: &[u8]) -> Result<(), FlashError> {
        check_write(self, offset, bytes.len()).map_err(FlashError::of)?;
        // SAFETY: `write` is an `ltu_flash_write_fn` (the contract of `ltu_store_init`), given
        // `bytes.len()` readable bytes; whole 32-byte words, so whole words of any `write_size`
        // dividing 32, each written once after its erase (the store's write order).
        FlashError::check(unsafe { (self.write)(self.user, offset, bytes.as_ptr(), bytes.len()) })
    }
}

/// Words of storage in an `ltu_store`: enough for the store on every target (checked at
/// compile time).
pub const LTU_STORE_WORDS: usize = 12;

/// Caller-provided storage for two power-safe flash slots that keep the learned model across
/// resets (docs/ON_DEVICE_LEARNING.md: a save never loses the previous model, whenever the power
/// is cut). Initialise it with `ltu_store_init`; a zeroed `ltu_store` is refused with
/// `LTU_ERR_STORE_UNINITIALISED`. It needs no clean-up.
///
/// A slot is a 32-byte header (magic "LTUS", sequence number, file length, CRC-32, padding)
/// followed by the model file, padded to 32 bytes.
#[repr(C)]
pub struct ltu_store {
    opaque: [*const c_void; LTU_STORE_WORDS],
}

/// What `ltu_store_init` writes into an `ltu_store`: the validity word, then the store.
#[repr(C)]
struct Stored {
    valid: usize,
    store: Store<CFlash>,
}

/// The validity word of an initialised store ("sto!" in ASCII); zero otherwise.
const STORED: usize = 0x216f_7473;

const _: () = assert!(size_of::<Stored>() <= size_of::<ltu_store>(), "LTU_STORE_WORDS too small");
const _: () = assert!(align_of::<Stored>() <= align_of::<ltu_store>());

/// The store in `store`.
///
/// # Safety
/// `store` is NULL or points to an `ltu_store` that is zeroed or was passed to `ltu_store_init`,
/// and that nothing else uses while the result is used.
unsafe fn stored<'a>(store: *mut ltu_store) -> Result<&'a mut Store<CFlash>, ltu_status> {
    check_ptr(store)?;
    // SAFETY: `store` is non-NULL and aligned (checked) and points to an `ltu_store` (caller),
    // whose first word is a plain integer whatever was written there.
    let valid = unsafe { store.cast::<usize>().read() };
    if valid != STORED {
        return Err(ltu_status::LTU_ERR_STORE_UNINITIALISED);
    }
    // SAFETY: the validity word is only ever written by `ltu_store_init`, together with the
    // `Stored` it heads (size and alignment asserted above); exclusive by the caller's contract.
    Ok(unsafe { &mut (*store.cast::<Stored>()).store })
}

impl From<StoreError<FlashError>> for ltu_status {
    fn from(e: StoreError<FlashError>) -> ltu_status {
        use ltu_status::*;
        match e {
            StoreError::Flash(FlashError::Callback) => LTU_ERR_CALLBACK,
            StoreError::Flash(FlashError::NotAligned) | StoreError::LayoutUnaligned => {
                LTU_ERR_STORE_UNALIGNED
            }
            StoreError::Flash(FlashError::OutOfBounds) | StoreError::LayoutOutOfBounds => {
                LTU_ERR_STORE_OUT_OF_BOUNDS
            }
            StoreError::LayoutWordSize => LTU_ERR_STORE_WORD_SIZE,
            StoreError::LayoutSlotTooSmall => LTU_ERR_STORE_SLOT_TOO_SMALL,
            StoreError::TooLarge => LTU_ERR_STORE_TOO_LARGE,
            StoreError::Verify => LTU_ERR_STORE_VERIFY,
            StoreError::RestoreOtherBase => LTU_ERR_STORE_OTHER_BASE,
            StoreError::RestoreModel(e) => e.into(),
            // A learner's file always has its length and CRC (`ImageLength`, `ImageChecksum`),
            // and this API reads no slot directly (`ReadOutOfRange`); `StoreError` is
            // non-exhaustive.
            _ => LTU_ERR_UNKNOWN,
        }
    }
}

/// Makes `*store` two slots of `slot_size` bytes each in `*flash` from address `offset` (slot 0
/// at `offset`, slot 1 at `offset + slot_size`). `*flash` is copied; nothing is read or written
/// yet. A slot holds a model file of up to `slot_size - 32` bytes. On any error `*store` is left
/// uninitialised.
///
/// Errors: `LTU_ERR_NULL` (`store`, `flash` or one of its functions), `LTU_ERR_MISALIGNED`,
/// `LTU_ERR_STORE_WORD_SIZE`, `LTU_ERR_STORE_UNALIGNED` (`offset` or `slot_size` not a multiple
/// of `erase_size`), `LTU_ERR_STORE_OUT_OF_BOUNDS`, `LTU_ERR_STORE_SLOT_TOO_SMALL`.
///
/// # Safety
/// `store` is NULL or points to writable storage for an `ltu_store`; `flash` is NULL or points
/// to a readable `ltu_flash` whose functions are NULL or of their types and, with `user`, stay
/// usable as long as `*store` is used.
#[no_mangle]
pub unsafe extern "C" fn ltu_store_init(
    store: *mut ltu_store,
    flash: *const ltu_flash,
    offset: u32,
    slot_size: u32,
) -> ltu_status {
    if let Err(e) = check_ptr(store) {
        return e;
    }
    // SAFETY: `store` is non-NULL and aligned (checked) and writable (caller). Cleared first so
    // that every failure below leaves it uninitialised.
    unsafe { store.cast::<usize>().write(0) };
    status((|| {
        check_ptr(flash)?;
        // SAFETY: `flash` is non-NULL and aligned (checked) and readable (caller).
        let f = unsafe { flash.read() };
        let (Some(read), Some(write), Some(erase)) = (f.read, f.write, f.erase) else {
            return Err(ltu_status::LTU_ERR_NULL);
        };
        let word = WORD as u32;
        let divides_word = |n: u32| n != 0 && word % n == 0;
        if !divides_word(f.write_size)
            || !divides_word(f.read_size)
            || f.erase_size == 0
            || f.erase_size % word != 0
        {
            return Err(ltu_status::LTU_ERR_STORE_WORD_SIZE);
        }
        if offset % f.erase_size != 0 || slot_size % f.erase_size != 0 {
            return Err(ltu_status::LTU_ERR_STORE_UNALIGNED);
        }
        let c = CFlash { user: f.user, read, write, erase, capacity: f.capacity, erase_size: f.erase_size };
        let s = Store::new(c, offset, slot_size)?;
        // SAFETY: `store` is non-NULL, aligned and writable, and large and aligned enough for a
        // `Stored` (asserted at compile time).
        unsafe { store.cast::<Stored>().write(Stored { valid: STORED, store: s }) };
        Ok(ltu_status::LTU_OK)
    })())
}

/// Saves the learned model of `learner` into the slot that does not hold the latest saved
/// model: erases the pages it needs, writes the file, writes the header last and reads the slot
/// back. A power cut at any instant leaves the previous model or the new one, never none.
/// Unless `seq_out` is NULL, writes the new slot's sequence number (the previous one's plus 1,
/// 1 for the first save) to `*seq_out`. On any error the previous latest slot is untouched and
/// still the latest.
///
/// Errors: `LTU_ERR_NULL`, `LTU_ERR_MISALIGNED`, `LTU_ERR_STORE_UNINITIALISED`,
/// `LTU_ERR_LEARNER_UNINITIALISED`, `LTU_ERR_STORE_TOO_LARGE`, `LTU_ERR_CALLBACK` (a flash
/// function failed), `LTU_ERR_STORE_VERIFY`.
///
/// # Safety
/// `store` is NULL or points to an `ltu_store` that is zeroed or was passed to
/// `ltu_store_init`, and that no other call uses meanwhile; `learner` as in
/// `ltu_learner_predict`; `seq_out` is NULL or points to a writable `uint32_t`.
#[no_mangle]
pub unsafe extern "C" fn ltu_store_save(
    store: *mut ltu_store,
    learner: *const ltu_learner,
    seq_out: *mut u32,
) -> ltu_status {
    status((|| {
        // SAFETY: the caller's contracts for `store` and `learner`.
        let (s, l) = unsafe { (stored(store)?, &learning(learner)?.learner) };
        check_optional(seq_out)?;
        let slot = s.save(l)?;
        // SAFETY: checked; writable by the caller's contract.
        unsafe { write_optional(seq_out, slot.seq) };
        Ok(ltu_status::LTU_OK)
    })())
}

/// Puts the weights of the latest saved model into `learner`, which must have been initialised
/// from the base model that learned them (at boot: the model file in the firmware). Writes 1 to
/// `*found_out` if a saved model was restored, 0 if none was saved (the learner keeps the base
/// model's weights). The restored weights pass the loader's checks again.
///
/// Errors: `LTU_ERR_NULL`, `LTU_ERR_MISALIGNED`, `LTU_ERR_STORE_UNINITIALISED`,
/// `LTU_ERR_LEARNER_UNINITIALISED`, `LTU_ERR_STORE_OTHER_BASE` (learner unchanged),
/// `LTU_ERR_ACCUMULATOR_MAY_OVERFLOW` (the learner has its base model's weights),
/// `LTU_ERR_CALLBACK` (a flash function failed; if it failed while copying weights, the learner
/// has its base model's weights).
///
/// # Safety
/// `store` as in `ltu_store_save`; `learner` as in `ltu_learner_update`; `found_out` is NULL or
/// points to a writable `uint32_t`.
#[no_mangle]
pub unsafe extern "C" fn ltu_store_restore(
    store: *mut ltu_store,
    learner: *mut ltu_learner,
    found_out: *mut u32,
) -> ltu_status {
    status((|| {
        // SAFETY: the caller's contracts for `store` and `learner`.
        let (s, l) = unsafe { (stored(store)?, &mut learning_mut(learner)?.learner) };
        check_ptr(found_out)?;
        let found = s.restore(l)?.is_some();
        // SAFETY: checked; writable by the caller's contract.
        unsafe { found_out.write(u32::from(found)) };
        Ok(ltu_status::LTU_OK)
    })())
}

//! Learning on the device: a loaded model corrects its own unit weights from labelled inputs.
//!
//! [`Learner::new`] copies the model's weight table (its units' weights and biases, nothing else)
//! from the model file — in flash — into RAM the caller provides ([`Learner::ram_needed`] bytes).
//! [`Learner::update`] presents one labelled input to the perceptron tree error-correction
//! procedure of Utgoff (1989, Table II, steps 4–6): the unit that decides for the input (a tree's
//! leaf, a linear model's unit, a decision list's entry) is left alone if it answers right, and
//! otherwise moved by the *absolute* correction, just far enough that it answers right for this
//! input. Everything is integer arithmetic on the stored weights, so the learned model is exactly
//! the model file with other weights: [`Learner::write_file`] writes it, and the trainer's
//! `ltu update` computes the same bytes on a laptop.
//!
//! # The procedure
//!
//! The deciding unit is found as prediction finds it. A tree's constant leaf has nothing to correct
//! ([`Outcome::Constant`]); a tree's unit splits are never corrected (the label does not say which
//! branch was right). In a decision list, an entry that fired for the wrong class is corrected so
//! that it does not fire; when the default class answered wrongly, the first entry for the label
//! is corrected so that it fires.
//!
//! With `f` the unit's feature values, `n2 = 1 + Σ f_j²`:
//! - a binary unit (score `y`) that must answer positive is wrong if `y <= 0` and moves by
//!   `W ← W − k·(f, 1)` with `k = ⌊y / n2⌋ − 1`; one that must answer negative is wrong if `y >= 0`,
//!   with `k = ⌊y / n2⌋ + 1` (a score of exactly 0 is corrected either way, as in the paper);
//! - a linear machine is wrong if some other row scores at least the label's row `t`; with `o` the
//!   strongest other row, `c = ⌊(y_o − y_t) / (2·n2)⌋ + 1`, row `t` gains `c·(f, 1)` and row `o`
//!   loses it.
//!
//! # Guarantees
//!
//! Every guarantee of a loaded model holds after every update. The loader proves for each row that
//! `|bias| + Σ |w_j|·max|f_j|` is within the accumulator's limit; an update shortens its step so
//! that this bound still holds ([`Outcome::Clipped`], or [`Outcome::Saturated`] if no step is
//! left), and clamps each weight to the weight kind's range. So [`Learner::model`] never overflows
//! or panics, and the learned file loads with [`Model::from_bytes`]. An update does not allocate,
//! recurse or loop beyond the model's size; its RAM is the weight table plus the [`Learner`] itself.

mod correct;
mod store;

use crate::format::{Crc32, HEADER_LEN};
use crate::input::Input;
#[cfg(feature = "pipeline")]
use crate::window::Sample;
use crate::{Error, Model, Result};

pub use store::{Image, MemFlash, MemFlashError, Slot, Store, StoreError, SLOT_HEADER_LEN, SLOT_MAGIC};

/// What one [`Learner::update`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Outcome {
    /// The model already answered right: nothing changed.
    Correct,
    /// The deciding unit was corrected.
    Corrected {
        /// Its index in the model's unit table.
        unit: u16,
    },
    /// The deciding unit was corrected by less than the full step: the step was shortened so
    /// that no accumulator can overflow, or some weight was clamped to the weight kind's range.
    /// The input may still be misclassified.
    Clipped {
        /// Its index in the model's unit table.
        unit: u16,
    },
    /// The deciding unit was wrong but its weights are at the accumulator bound: nothing changed.
    Saturated {
        /// Its index in the model's unit table.
        unit: u16,
    },
    /// A tree's constant leaf decided (wrongly or not): it has no weights to correct.
    Constant,
    /// The deciding unit cannot answer the label (a leaf that scores other classes only, or a
    /// decision list without an entry for it): nothing changed.
    Unlearnable,
}

impl Outcome {
    /// Whether the update changed the model's weights.
    pub fn changed(&self) -> bool {
        matches!(self, Outcome::Corrected { .. } | Outcome::Clipped { .. })
    }
}

/// Counts of what a [`Learner`]'s updates did, saturating at `u32::MAX`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct LearnStats {
    /// Updates that ran (errors excluded).
    pub updates: u32,
    /// [`Outcome::Corrected`].
    pub corrected: u32,
    /// [`Outcome::Clipped`].
    pub clipped: u32,
    /// [`Outcome::Saturated`].
    pub saturated: u32,
    /// [`Outcome::Constant`].
    pub constant: u32,
    /// [`Outcome::Unlearnable`].
    pub unlearnable: u32,
}

impl LearnStats {
    fn count(&mut self, outcome: Outcome) {
        self.updates = self.updates.saturating_add(1);
        let n = match outcome {
            Outcome::Correct => return,
            Outcome::Corrected { .. } => &mut self.corrected,
            Outcome::Clipped { .. } => &mut self.clipped,
            Outcome::Saturated { .. } => &mut self.saturated,
            Outcome::Constant => &mut self.constant,
            Outcome::Unlearnable => &mut self.unlearnable,
        };
        *n = n.saturating_add(1);
    }
}

/// A model that learns: the model file (in flash) with its weight table in RAM.
///
/// ```
/// # use ltu_runtime::{learn::{Learner, Outcome}, Model};
/// # fn demo(file: &[u8], x: &[i16], label: usize) -> ltu_runtime::Result<()> {
/// let mut ram = [0u8; 256]; // at least `Learner::ram_needed(file)?` bytes
/// let mut learner = Learner::new(file, &mut ram)?;
/// if learner.model().predict(x)? != label {
///     let outcome = learner.update(x, label)?;
///     assert_ne!(outcome, Outcome::Correct);
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct Learner<'m, 'w> {
    /// The model as loaded (its weights are the file's: the base the learner started from).
    base: Model<'m>,
    file: &'m [u8],
    /// Byte offset of the weight table in `file`.
    weights_at: usize,
    /// The learned weight table, exactly as long as the file's.
    ram: &'w mut [u8],
    stats: LearnStats,
}

impl<'m, 'w> Learner<'m, 'w> {
    /// Bytes of RAM [`Learner::new`] needs for model file `file`: the length of its weight table
    /// (1, 2 or 4 bytes per weight and bias, as `ltu inspect` reports).
    ///
    /// # Errors
    /// As [`Model::from_bytes`].
    pub fn ram_needed(file: &[u8]) -> Result<usize> {
        Ok(Model::from_bytes(file)?.repr().weights.len())
    }

    /// Loads model file `file` and copies its weight table into `ram`.
    ///
    /// # Errors
    /// As [`Model::from_bytes`]; [`Error::LearnRamTooSmall`] if `ram` is shorter than
    /// [`Learner::ram_needed`].
    pub fn new(file: &'m [u8], ram: &'w mut [u8]) -> Result<Self> {
        let base = Model::from_bytes(file)?;
        let weights = base.repr().weights;
        let ram = ram.get_mut(..weights.len()).ok_or(Error::LearnRamTooSmall)?;
        ram.copy_from_slice(weights);
        // The decoder borrows the weight table from `file`: its offset is the distance between
        // the two slices' starts.
        let weights_at = (weights.as_ptr() as usize).wrapping_sub(file.as_ptr() as usize);
        let inside = file.get(weights_at..).and_then(|t| t.get(..weights.len()));
        if !inside.is_some_and(|t| core::ptr::eq(t, weights)) || weights_at < HEADER_LEN {
            return Err(Error::BodyDecode);
        }
        Ok(Learner { base, file, weights_at, ram, stats: LearnStats::default() })
    }

    /// The learned model: the base model with the learned weights. Predict with it as with any
    /// [`Model`].
    pub fn model(&self) -> Model<'_> {
        self.base.with_weights(self.ram)
    }

    /// Presents raw inputs `inputs` with class `label` to the error-correction procedure (see
    /// the [module documentation](self)).
    ///
    /// # Errors
    /// [`Error::PredictInputLength`] if `inputs.len() != n_inputs()`;
    /// [`Error::LearnLabelOutOfRange`] if `label >= n_classes()`. Nothing changes then.
    pub fn update<T: Input>(&mut self, inputs: &[T], label: usize) -> Result<Outcome> {
        if inputs.len() != self.base.n_inputs() {
            return Err(Error::PredictInputLength);
        }
        self.update_with(|i| inputs.get(i).map(|v| v.to_raw()), label)
    }

    /// [`Learner::update`] with the inputs given by a function, asked only for the inputs the
    /// procedure reads (possibly more than once).
    ///
    /// # Errors
    /// [`Error::PredictInputUnavailable`] if `source` returns `None` for an input it needs;
    /// [`Error::LearnLabelOutOfRange`]. Nothing changes then.
    pub fn update_with<T: Input>(
        &mut self,
        mut source: impl FnMut(usize) -> Option<T>,
        label: usize,
    ) -> Result<Outcome> {
        if label >= self.base.n_classes() {
            return Err(Error::LearnLabelOutOfRange);
        }
        let mut src = |i| source(i).map(Input::to_raw);
        let view = self.base.with_weights(self.ram);
        let outcome = match correct::plan(&view, &self.base, &mut src, label)? {
            Err(outcome) => outcome,
            Ok(plan) => {
                let (unit, shortened) = (plan.unit, plan.clipped);
                if correct::apply(&self.base, &mut src, plan, self.ram) || shortened {
                    Outcome::Clipped { unit }
                } else {
                    Outcome::Corrected { unit }
                }
            }
        };
        self.stats.count(outcome);
        Ok(outcome)
    }

    /// [`Learner::update`] for a model with a sensor pipeline: its inputs are the statistics of
    /// the window `channels` (one sample slice per channel, as
    /// [`Model::predict_window`]).
    ///
    /// # Errors
    /// [`Error::PredictWindow`] if the window does not fit the pipeline;
    /// [`Error::LearnLabelOutOfRange`]. Nothing changes then.
    #[cfg(feature = "pipeline")]
    pub fn update_window(&mut self, channels: &[&[Sample]], label: usize) -> Result<Outcome> {
        self.update_window_with(channels.len(), |c| channels.get(c).copied(), label)
    }

    /// [`Learner::update_window`] with the channels given by a function, as
    /// [`Model::predict_window_with`] takes them: `channel(c)` is channel `c`'s samples, asked
    /// only for the channels the update reads.
    ///
    /// # Errors
    /// As [`Learner::update_window`], with `n_channels` for `channels.len()`; a `None` from
    /// `channel` is a window that does not fit.
    #[cfg(feature = "pipeline")]
    pub fn update_window_with<'s>(
        &mut self,
        n_channels: usize,
        channel: impl Fn(usize) -> Option<&'s [Sample]>,
        label: usize,
    ) -> Result<Outcome> {
        let pipeline = self.base.pipeline().ok_or(Error::PredictWindow)?;
        if n_channels != pipeline.n_channels() {
            return Err(Error::PredictWindow);
        }
        let mut bad_window = false;
        let outcome = self.update_with(
            |i| {
                let f = pipeline.feature(i)?;
                let value = channel(usize::from(f.channel)).and_then(|c| f.compute(c).ok());
                bad_window |= value.is_none();
                value
            },
            label,
        );
        if bad_window {
            return Err(Error::PredictWindow);
        }
        outcome
    }

    /// What the updates so far did.
    pub fn stats(&self) -> LearnStats {
        self.stats
    }

    /// Length in bytes of the learned model file: the base file's (only weights change).
    pub fn file_len(&self) -> usize {
        self.file.len()
    }

    /// Writes the learned model file to `sink` in pieces, in order: the base file's bytes up to
    /// the weight table, the learned weights, the rest of the body, and the new CRC-32 (four
    /// bytes, little-endian). The result loads with [`Model::from_bytes`].
    ///
    /// # Errors
    /// The first error `sink` returns; nothing is written after it.
    pub fn write_file<E>(
        &self,
        mut sink: impl FnMut(&[u8]) -> core::result::Result<(), E>,
    ) -> core::result::Result<(), E> {
        let [before, weights, after] = self.pieces();
        for piece in [before, weights, after] {
            sink(piece)?;
        }
        sink(&self.crc().to_le_bytes())
    }

    /// Writes the learned model file into `out` (for a firmware that sends it on from RAM);
    /// returns its length, [`Learner::file_len`].
    ///
    /// # Errors
    /// [`Error::EncodeBufferTooSmall`] if `out` is shorter than the file; nothing is written then.
    pub fn write_to(&self, out: &mut [u8]) -> Result<usize> {
        let out = out.get_mut(..self.file_len()).ok_or(Error::EncodeBufferTooSmall)?;
        let mut at = 0;
        self.write_file(|piece| {
            // The pieces add up to `file_len` bytes: each fits.
            if let Some(dst) = out.get_mut(at..at + piece.len()) {
                dst.copy_from_slice(piece);
            }
            at += piece.len();
            Ok::<(), Error>(())
        })?;
        Ok(at)
    }

    /// CRC-32 of the learned model file: its last four bytes.
    pub fn crc(&self) -> u32 {
        let mut crc = Crc32::new();
        self.pieces().iter().for_each(|p| crc.update(p));
        crc.finish()
    }

    /// The learned file but its CRC: the base before the weights, the RAM weights, the base after.
    fn pieces(&self) -> [&[u8]; 3] {
        let (head, rest) = self.file.split_at(self.weights_at.min(self.file.len()));
        let body_end = rest.len().saturating_sub(4);
        let after = rest.get(self.ram.len()..body_end).unwrap_or(&[]);
        [head, self.ram, after]
    }

    /// The base model file.
    pub(crate) fn base(&self) -> &'m [u8] {
        self.file
    }

    /// Byte range of the weight table in the model file.
    pub(crate) fn weights_range(&self) -> core::ops::Range<usize> {
        self.weights_at..self.weights_at + self.ram.len()
    }

    /// The learned weight table, for restoring weights from storage ([`Learner::revalidate`]
    /// must follow).
    pub(crate) fn weights_mut(&mut self) -> &mut [u8] {
        self.ram
    }

    /// Checks the RAM weights as the loader checks a file's (every row's accumulator bound); on
    /// failure copies the base file's weights back.
    ///
    /// # Errors
    /// The loader's error for the weights ([`Error::AccumulatorMayOverflow`]).
    pub(crate) fn revalidate(&mut self) -> Result<()> {
        let checked = correct::check(&self.model());
        if checked.is_err() {
            self.ram.copy_from_slice(self.base.repr().weights);
        }
        checked
    }
}

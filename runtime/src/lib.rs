//! Evaluate ltu models — perceptron trees, neural decision lists, sparse perceptrons — on a
//! microcontroller, in place from flash, with integer or fixed-point arithmetic.
//!
//! `no_std`, no allocation, no `unsafe`.
//!
//! # Trust model
//!
//! Model bytes are untrusted: they may come from a corrupted flash page, a truncated transfer or a
//! hostile peer. [`Model::from_bytes`] checks them once, completely: magic and format version,
//! a CRC-32 over the whole file (every single-bit flip is rejected), the postcard body with no
//! trailing bytes, every index against its table, tree links that only point forward (so every
//! walk is acyclic and at most as long as the node count), and, for every unit, a worst-case bound
//! on the accumulator over all possible inputs. After it returns `Ok`, evaluating the model on
//! any input values cannot panic, overflow, loop or read out of bounds; the only evaluation
//! errors concern the caller's own arguments ([`Error::PredictInputLength`],
//! [`Error::PredictInputUnavailable`], [`Error::PredictScoresBuffer`]).
//!
//! Inputs are trusted to be whatever the sensor says: any `i32` is fine. A categorical input
//! outside `0..n_values` is an "unknown value": its equality features are all `-1` and a tree
//! split on it takes the node's default branch.
//!
//! # Evaluation
//!
//! Nothing is copied out of the model bytes: [`Model`] keeps borrowed slices, and weights, nodes
//! and features are decoded from little-endian records as they are visited. The integer weight
//! kinds ([`WeightKind::I8`], [`I16`](WeightKind::I16), [`I32`](WeightKind::I32)) accumulate in
//! `i32` and use no floating point; [`WeightKind::Fixed`] uses `fixed`'s `I16F16` weights and an
//! `I48F16` accumulator. Stack use does not depend on model size: evaluation is a loop, not a
//! recursion. Neither loading nor evaluation has a panic path: records are read as fixed arrays
//! through accessors the loader's checks make total.
//!
//! # Cargo features
//!
//! Every kind of model has a feature, all on by default; a firmware that runs one known model
//! turns the defaults off and names what that model needs (`ltu inspect` lists it), so nothing
//! else is linked. A model the build leaves out is rejected by [`Model::from_bytes`] with
//! [`Error::Unsupported`].
//!
//! - `tree`: trees (perceptron, oblique and decision trees); `list`: decision lists. A single
//!   unit (perceptron, sparse perceptron, linear machine) needs neither.
//! - `sparse`: units over the feature table (sparse perceptrons, conjunctions); dense units, which
//!   read every standard feature, need nothing.
//! - `i8`, `i16`, `i32`, `fixed`: the weight kinds. A model without units (a tree of tests, such
//!   as FRINGE's) needs none, and a build with none links no unit evaluator.
//! - `host`: check the optional host block at load and read it ([`Model::names`],
//!   [`Model::meta`], [`Model::host_input`]); without it the block is skipped (the CRC still
//!   covers it).
//! - `pipeline`: models whose inputs are window statistics of raw samples
//!   ([`Model::predict_window`], [`Model::pipeline`]).
//! - `defmt`: `defmt::Format` for the public types.
//!
//! ```toml
//! ltu-runtime = { version = "0.1", default-features = false, features = ["tree", "i16"] }
//! ```
//!
//! # Example
//!
//! ```
//! use ltu_runtime::{Model, Error};
//! use ltu_runtime::format::{self, *};
//!
//! // A binary LTU over one numeric input: class 1 iff 2*x - 10 > 0. The input's standard
//! // feature is x itself (offset 0, multiplier 1, no shift, clamped to +-1000).
//! let inputs = InputRec { n_values: 0 }.to_bytes();
//! let scales = ScaleRec { offset: 0, mul: 1, max_abs: 1000, shift: 0 }.to_bytes();
//! let units = UnitRec { flags: 0, n_out: 1, n_terms: 1, term_start: 0, class_start: 0, weight_start: 0 }.to_bytes();
//! let repr = ModelRepr {
//!     n_classes: 2,
//!     weight_kind: WeightKind::I8,
//!     inputs: &inputs,
//!     scales: &scales,
//!     features: &[],
//!     literals: &[],
//!     units: &units,
//!     term_features: &[],
//!     weights: &[2, (-10i8) as u8],
//!     unit_classes: &[0, 0, 1, 0],
//!     structure: StructureRepr::Linear { unit: 0 },
//!     pipeline: None,
//!     host: None,
//! };
//! let mut buf = [0u8; 128];
//! let len = format::encode(&repr, &mut buf)?;
//! let model = Model::from_bytes(&buf[..len])?;
//! assert_eq!(model.predict(&[7i16])?, 1);
//! assert_eq!(model.predict(&[5i16])?, 0);
//! assert_eq!(model.predict(&[5i16, 1]), Err(Error::PredictInputLength));
//! # Ok::<(), Error>(())
//! ```
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod error;
pub mod format;
mod input;
#[cfg(feature = "learn")]
pub mod learn;
mod model;
pub mod window;

pub use error::{Error, Result};
pub use format::WeightKind;
pub use input::{Input, InputsRead};
#[cfg(feature = "learn")]
pub use learn::{Image, LearnStats, Learner, MemFlash, MemFlashError, Outcome, Slot, Store, StoreError};
#[cfg(feature = "host")]
pub use model::Names;
#[cfg(feature = "pipeline")]
pub use model::Pipeline;
pub use model::{Kind, Model};

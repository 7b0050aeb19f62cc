//! Learn small, interpretable classifiers built from linear threshold units, and export them to
//! the `ltu-runtime` format that microcontrollers evaluate from flash.
//!
//! The pipeline, folder by folder: [`data`] loads CSV/ARFF and [`data::encode`] turns values into
//! the integers a model reads; a learner from [`learners`] (each implements [`learn::Learner`]
//! and has one line in the registry, [`learn::Algo`]) learns a [`model::ModelSpec`];
//! [`learn::train`] keeps it within the device budgets, and [`learn::finish`] reduces it, fits
//! its weights to the runtime's proven accumulator bound ([`model::quantize`]), encodes it
//! ([`model::ModelSpec::to_bytes`]) and checks that the runtime predicts exactly what the
//! reference evaluator does; [`model::codegen`] writes it as Rust or C source.
#![deny(missing_docs)]
#![warn(unreachable_pub)]

pub mod data;
mod error;
pub mod learn;
pub mod learners;
pub mod model;
pub mod names;
pub mod rng;

pub use error::{Error, Result};

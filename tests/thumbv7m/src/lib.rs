//! Monomorphic wrappers around every evaluation entry point, so that `--emit asm` for
//! thumbv7m-none-eabi contains their code. `check.sh` reads that assembly.
#![no_std]
#![forbid(unsafe_code)]

use fixed::types::I16F16;
use ltu_runtime::{InputsRead, Model, Result};

/// Loading and validation.
pub fn load(bytes: &[u8]) -> Result<Model<'_>> {
    Model::from_bytes(bytes)
}

/// `predict` on `i16` inputs (the common sensor case).
pub fn predict_i16(m: &Model<'_>, x: &[i16]) -> Result<usize> {
    m.predict(x)
}

/// `predict` on `i32` inputs.
pub fn predict_i32(m: &Model<'_>, x: &[i32]) -> Result<usize> {
    m.predict(x)
}

/// `predict` on fixed-point inputs.
pub fn predict_fixed(m: &Model<'_>, x: &[I16F16]) -> Result<usize> {
    m.predict(x)
}

/// `predict_scores` on `i16` inputs.
pub fn predict_scores_i16(m: &Model<'_>, x: &[i16], scores: &mut [i64]) -> Result<usize> {
    m.predict_scores(x, scores)
}

/// `predict_with` reading from a slice through an [`InputsRead`] tracker.
pub fn predict_with_tracked(m: &Model<'_>, x: &[i16], read: &mut InputsRead<16>) -> Result<usize> {
    m.predict_with(read.track(|i| x.get(i).copied()))
}

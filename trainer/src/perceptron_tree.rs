//! Perceptron trees (Utgoff 1989) — being written.
use crate::algo::{Context, TrainError, Algo};
use crate::export::ModelSpec;

/// Perceptron tree options.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Params {}

/// Learns a perceptron tree.
pub fn train(_ctx: &Context<'_>, _p: &Params) -> Result<ModelSpec, TrainError> {
    Err(TrainError::NotImplemented(Algo::Ptree))
}

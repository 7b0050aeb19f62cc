//! Neural decision lists (Marchand & Golea 1993) — being written.
use crate::algo::{Context, TrainError, Algo};
use crate::export::ModelSpec;

/// Decision list options.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Params {}

/// Learns a neural decision list.
pub fn train_ndl(_ctx: &Context<'_>, _p: &Params) -> Result<ModelSpec, TrainError> {
    Err(TrainError::NotImplemented(Algo::Ndl))
}

/// Learns a halfspace intersection.
pub fn train_hsi(_ctx: &Context<'_>, _p: &Params) -> Result<ModelSpec, TrainError> {
    Err(TrainError::NotImplemented(Algo::Hsi))
}

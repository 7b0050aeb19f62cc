//! The model: its intermediate representation ([`ModelSpec`], with the reference evaluator and
//! the cost model), weight quantization, lossless tree reduction, the byte codec of the runtime
//! format, code generation, and the reference of on-device learning ([`ModelSpec::update`]).

mod codec;
pub mod codegen;
mod ir;
mod pipeline;
pub mod quantize;
pub(crate) mod reduce;
mod update;

pub use codec::{ExportError, Host};
pub use ir::*;
pub use pipeline::{stat_macs, stat_work, Channel, Extraction, Pipeline};
pub use reduce::{drop_unused_inputs, reduce_tree};
pub use update::{Outcome, UpdateError, WeightsError};

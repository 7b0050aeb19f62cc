//! The `ltu` subcommands: parsed arguments in, a report out that prints for a person
//! (`Display`) or as one JSON object (`serde::Serialize`). The engine is the `ltu` library; this
//! module is the command line's own: flags, files, rendering and `anyhow`.

pub mod args;
pub mod calibrate;
pub mod codegen;
pub mod cv;
pub mod inspect;
pub mod load;
pub mod model;
pub mod output;
pub mod recordings;
pub mod train;
pub mod update;

pub use args::{LearnArgs, PredictArgs, ReadArgs};
pub use codegen::codegen;
pub use cv::cv;
pub use inspect::{inspect, inspect_dot};
pub use model::{eval, predict};
pub use train::train;
pub use update::update;

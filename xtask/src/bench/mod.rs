//! The benchmarks and the reports they write: `compare` (accuracy, model size and training time
//! against scikit-learn on the host, `docs/BENCHMARKS.md`) and `device` (instructions, flash and
//! stack on an emulated Cortex-M against emlearn, `docs/DEVICE.md`). Both hand data to Python
//! scripts through [`python`].

pub mod compare;
pub mod device;
pub mod python;
pub mod scale;

//! Learning: the contract every learner implements ([`Learner`]), the registry of learners
//! ([`Algo`]), the training pipeline with device budgets ([`train`], [`finish`]) and evaluation
//! ([`evaluate`]).

pub mod calibrate;
pub mod evaluate;
mod learner;
pub mod metrics;
mod pipeline;
mod registry;

pub use learner::{fit, Context, Fit, Learner, TrainError};
pub use pipeline::{finish, train, train_choice, BudgetChoice, Candidate, Trained, AUTO_FIT_ROWS};
pub use registry::{Algo, AlgoChoice, Budget, DeviceCost, Options, Report, Shared};

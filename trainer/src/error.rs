//! The crate's error type: every failure of the library, by the step that failed.

use crate::data::split::SplitError;
use crate::data::DataError;
use crate::learn::evaluate::EvalError;
use crate::learn::TrainError;
use crate::model::ExportError;
use crate::names::UnknownName;

/// Any failure of the `ltu` library. Each step has its own error type (loading data, splitting
/// it, training, encoding, evaluating, naming an option value); this one wraps them so that a
/// program calling several steps can use `?` throughout, and still match on the step.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading or typing a data file failed.
    #[error(transparent)]
    Data(#[from] DataError),
    /// Splitting rows into training and test rows failed.
    #[error(transparent)]
    Split(#[from] SplitError),
    /// Training failed.
    #[error(transparent)]
    Train(#[from] TrainError),
    /// Encoding a model in the runtime format failed.
    #[error(transparent)]
    Export(#[from] ExportError),
    /// A held-out evaluation failed.
    #[error(transparent)]
    Eval(#[from] EvalError),
    /// An option value has no such name.
    #[error(transparent)]
    UnknownName(#[from] UnknownName),
}

/// `Result` with the crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::Error;

    #[test]
    fn each_step_converts_and_keeps_its_message() {
        let e: Error = crate::learn::TrainError::InvalidOption("--epochs 0".into()).into();
        assert!(matches!(e, Error::Train(_)));
        assert_eq!(e.to_string(), "invalid option: --epochs 0");
        let e: Error = "nope".parse::<crate::learn::Algo>().unwrap_err().into();
        assert!(matches!(e, Error::UnknownName(_)));
        assert!(e.to_string().starts_with("unknown algorithm `nope`"), "{e}");
    }
}

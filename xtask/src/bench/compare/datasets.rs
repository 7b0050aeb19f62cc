//! The datasets `cargo xtask compare` runs on, and which of them a run selects.

use anyhow::{bail, Result};

/// Where a dataset's rows come from.
pub enum Files {
    /// One file, cross-validated.
    Cv(&'static str),
    /// A fixed split: train on one file, test on the other.
    Split { train: &'static str, test: &'static str },
    /// Sensor recordings with a fixed split: the wide layout (one recording per row), or the
    /// long layout (one frame per row) with the column naming each frame's recording.
    Recordings { train: &'static str, test: &'static str, recording: Option<&'static str> },
}

/// One dataset of the comparison.
pub struct Spec {
    pub name: &'static str,
    pub files: Files,
    /// Numeric-looking columns that are really category codes.
    pub categorical: &'static [&'static str],
}

pub const MONKS_CODES: &[&str] = &["a1", "a2", "a3", "a4", "a5", "a6"];

pub const fn cv(name: &'static str, file: &'static str) -> Spec {
    Spec { name, files: Files::Cv(file), categorical: &[] }
}

pub const fn monks(name: &'static str, train: &'static str, test: &'static str) -> Spec {
    Spec { name, files: Files::Split { train, test }, categorical: MONKS_CODES }
}

/// The class codes of the recordings sets are integers: read them as categories.
pub const CLASS_CODES: &[&str] = &["class"];

pub const fn recordings(
    name: &'static str,
    train: &'static str,
    test: &'static str,
    recording: Option<&'static str>,
) -> Spec {
    Spec { name, files: Files::Recordings { train, test, recording }, categorical: CLASS_CODES }
}

impl Spec {
    /// Whether the dataset is sensor recordings (windows of features), not a table of rows.
    pub fn is_recordings(&self) -> bool {
        matches!(self.files, Files::Recordings { .. })
    }
}

pub const DATASETS: &[Spec] = &[
    cv("iris", "iris.csv"),
    cv("wine", "wine.csv"),
    cv("zoo", "zoo.csv"),
    cv("glass", "glass.csv"),
    cv("house-votes-84", "house-votes-84.csv"),
    cv("balance-scale", "balance-scale.csv"),
    cv("led7digit", "led7digit.csv"),
    cv("breast-cancer-wisconsin", "breast-cancer-wisconsin.csv"),
    cv("wdbc", "wdbc.csv"),
    cv("vehicle", "vehicle.csv"),
    cv("car", "car.csv"),
    cv("segment", "segment.csv"),
    cv("kr-vs-kp", "kr-vs-kp.csv"),
    cv("mushroom", "mushroom.csv"),
    monks("monks-1", "monks-1_train.csv", "monks-1_test.csv"),
    monks("monks-2", "monks-2_train.csv", "monks-2_test.csv"),
    monks("monks-3", "monks-3_train.csv", "monks-3_test.csv"),
    recordings("basicmotions", "basicmotions_train.csv", "basicmotions_test.csv", None),
    recordings("gunpoint", "gunpoint_train.csv", "gunpoint_test.csv", None),
    recordings("italypowerdemand", "italypowerdemand_train.csv", "italypowerdemand_test.csv", None),
    recordings("japanese-vowels", "japanese-vowels_train.csv", "japanese-vowels_test.csv", Some("recording")),
];

/// The tabular datasets of [`DATASETS`] (the goals against CART count these).
pub fn tabular_count() -> usize {
    DATASETS.iter().filter(|s| !s.is_recordings()).count()
}

/// gunpoint is the smallest recordings set: `--quick` runs it so the recordings path is exercised.
pub const QUICK: &[&str] = &["iris", "wine", "house-votes-84", "monks-2", "gunpoint"];

/// The datasets named by `--datasets` (all when none), only the quick ones with `--quick`.
pub fn select(quick: bool, names: &[String]) -> Result<Vec<&'static Spec>> {
    for name in names {
        if !DATASETS.iter().any(|s| s.name == name) {
            let known: Vec<&str> = DATASETS.iter().map(|s| s.name).collect();
            bail!("unknown dataset `{name}` (known: {})", known.join(", "));
        }
    }
    let chosen: Vec<&Spec> = DATASETS
        .iter()
        .filter(|s| names.is_empty() || names.iter().any(|d| d == s.name))
        .filter(|s| !quick || QUICK.contains(&s.name))
        .collect();
    if chosen.is_empty() {
        bail!("no dataset selected (--quick keeps only {})", QUICK.join(", "));
    }
    Ok(chosen)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_exists_and_quick_runs_a_recordings_set() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        for spec in DATASETS {
            let files = match spec.files {
                Files::Cv(file) => vec![file],
                Files::Split { train, test } | Files::Recordings { train, test, .. } => vec![train, test],
            };
            for file in files {
                assert!(root.join("data").join(file).is_file(), "{}: no data/{file}", spec.name);
            }
        }
        let quick = select(true, &[]).unwrap();
        assert!(quick.iter().any(|s| s.is_recordings()), "--quick runs no recordings set");
        assert_eq!(tabular_count() + 4, DATASETS.len());
    }
}

//! The end-to-end pipeline: features, training, host predictions, the firmware's generated inputs.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, ensure, Context, Result};
use ltu_runtime::Model;

use crate::cmd;
use crate::dataset::{self, Recording, Split, N_FEATURES};

/// Where `cargo xtask features` and `demo` write, relative to the repository root.
pub const OUT_DIR: &str = "target/basicmotions";

/// The firmware's generated inputs, as committed under `firmware-example/model/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inputs {
    /// `model.ltu`: the model file.
    pub model: Vec<u8>,
    /// `recordings.bin`: the TEST recordings, frame-major little-endian `i16`.
    pub recordings: Vec<u8>,
    /// `expected.bin`: the host's predicted class index for each TEST recording.
    pub expected: Vec<u8>,
    /// `rows.rs`: the window features of each TEST recording as Rust source, for the bench
    /// example (`cargo run --release --example bench` measures the committed model on them).
    pub rows: Vec<u8>,
}

const FILES: [&str; 4] = ["model.ltu", "recordings.bin", "expected.bin", "rows.rs"];

impl Inputs {
    /// Computes the recordings and the host's predictions for a model file.
    pub fn for_model(model: Vec<u8>, test: &[Recording]) -> Result<Inputs> {
        let expected = host_predictions(&load_model(&model)?, test)?;
        let features = test.iter().map(Recording::features).collect::<Result<Vec<_>>>()?;
        let rows = crate::bench_device::rows_rs(&features).into_bytes();
        Ok(Inputs { model, recordings: dataset::recordings_bin(test), expected, rows })
    }

    fn parts(&self) -> [&[u8]; 4] {
        [&self.model, &self.recordings, &self.expected, &self.rows]
    }

    /// Writes the three files into `dir`.
    pub fn write(&self, dir: &Path) -> Result<()> {
        fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        for (name, bytes) in FILES.iter().zip(self.parts()) {
            dataset::write(&dir.join(name), bytes)?;
        }
        Ok(())
    }

    /// Reads the three files from `dir`.
    pub fn read(dir: &Path) -> Result<Inputs> {
        let read = |name: &str| {
            let path = dir.join(name);
            fs::read(&path).with_context(|| format!("reading {}", path.display()))
        };
        Ok(Inputs {
            model: read(FILES[0])?,
            recordings: read(FILES[1])?,
            expected: read(FILES[2])?,
            rows: read(FILES[3])?,
        })
    }

    /// Names of the files whose bytes differ from `other`'s.
    pub fn differences(&self, other: &Inputs) -> Vec<&'static str> {
        FILES
            .iter()
            .zip(self.parts().into_iter().zip(other.parts()))
            .filter(|(_, (a, b))| a != b)
            .map(|(name, _)| *name)
            .collect()
    }
}

/// Loads and checks a model file for the BasicMotions features.
pub fn load_model(bytes: &[u8]) -> Result<Model<'_>> {
    let model = Model::from_bytes(bytes).map_err(|e| anyhow!("the runtime rejects the model: {e}"))?;
    ensure!(
        model.n_inputs() == N_FEATURES,
        "the model reads {} inputs, the window features are {N_FEATURES}",
        model.n_inputs()
    );
    ensure!(model.n_classes() <= 256, "{} classes do not fit expected.bin's bytes", model.n_classes());
    Ok(model)
}

/// The runtime's prediction for each recording, as on the chip.
pub fn host_predictions(model: &Model, recordings: &[Recording]) -> Result<Vec<u8>> {
    recordings
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let class =
                model.predict(&r.features()?).map_err(|e| anyhow!("predict on test recording {i}: {e}"))?;
            u8::try_from(class).context("class index above 255")
        })
        .collect()
}

/// Trains the model with the `ltu` CLI: the one step that depends on the trainer's interface.
pub fn train(root: &Path, train_csv: &str, model_out: &str) -> Result<()> {
    cmd::run(cmd::cargo(root).args([
        "run",
        "--release",
        "-p",
        "ltu",
        "--",
        "train",
        train_csv,
        "--algo",
        "ptree",
        "-o",
        model_out,
    ]))
}

/// `cargo xtask features`: writes the features of both splits and the raw test recordings.
pub fn features(root: &Path, split: &Split) -> Result<dataset::FeatureFiles> {
    let files = dataset::write_features(split, &root.join(OUT_DIR))?;
    println!(
        "{} TRAIN and {} TEST recordings -> {} features each ({} channels x {:?})",
        split.train.len(),
        split.test.len(),
        N_FEATURES,
        dataset::CHANNELS,
        ltu_runtime::window::FEATURE_NAMES
    );
    for path in [&files.train_csv, &files.test_csv, &files.test_recordings] {
        println!("wrote {}", path.strip_prefix(root).unwrap_or(path).display());
    }
    Ok(files)
}

/// Features, training and host predictions into `out` (relative to `root`); returns the inputs.
pub fn generate(root: &Path, split: &Split, out: &str) -> Result<Inputs> {
    features(root, split)?;
    let model_path = format!("{out}/model.ltu");
    fs::create_dir_all(root.join(out)).with_context(|| format!("creating {out}"))?;
    train(root, &format!("{OUT_DIR}/features-train.csv"), &model_path)?;
    let model = fs::read(root.join(&model_path)).with_context(|| format!("reading {model_path}"))?;
    Inputs::for_model(model, &split.test)
}

/// Prints the model's size and its accuracy on both splits, as the runtime computes it.
pub fn summarize(model_bytes: &[u8], split: &Split) -> Result<()> {
    let model = load_model(model_bytes)?;
    println!(
        "model: {} bytes, {:?}, {} inputs, {} classes, {} units, {:?} weights",
        model_bytes.len(),
        model.kind(),
        model.n_inputs(),
        model.n_classes(),
        model.n_units(),
        model.weight_kind()
    );
    let Some(names) = model.names() else {
        println!("the model carries no class names: accuracy not computed");
        return Ok(());
    };
    for (split_name, recs) in [("TRAIN", &split.train), ("TEST", &split.test)] {
        let predicted = host_predictions(&model, recs)?;
        let right = recs.iter().zip(&predicted).filter(|(r, &p)| names.class(p.into()) == r.class).count();
        println!(
            "accuracy on {split_name}: {right}/{} = {:.1}%",
            recs.len(),
            100.0 * right as f64 / recs.len() as f64
        );
    }
    Ok(())
}

/// Checks that the committed firmware inputs are what the pipeline produces today: retrains into
/// `target/` and compares bytes.
pub fn check_committed(root: &Path, committed_dir: &Path, split: &Split) -> Result<()> {
    let committed = Inputs::read(committed_dir)?;
    let fresh = generate(root, split, &format!("{OUT_DIR}/check"))?;
    let differ = fresh.differences(&committed);
    if !differ.is_empty() {
        bail!(
            "{} in {} differ from what data/basicmotions.csv, the trainer and the runtime give today; \
             run `cargo xtask demo` and commit the files",
            differ.join(", "),
            committed_dir.strip_prefix(root).unwrap_or(committed_dir).display()
        );
    }
    println!("{} are current", FILES.join(", "));
    Ok(())
}

/// The repository root (the xtask's parent directory).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask is inside the repository").to_path_buf()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::firmware;

    /// The committed recordings and host predictions follow from the committed model, the data
    /// and today's runtime (the model itself is checked by `cargo xtask test`, which retrains).
    #[test]
    fn committed_firmware_inputs_follow_from_model_and_data() {
        let root = root();
        let dir = firmware::model_dir(&root);
        let committed = Inputs::read(&dir).unwrap();
        let split = dataset::load_split(&root).unwrap();
        let fresh = Inputs::for_model(committed.model.clone(), &split.test).unwrap();
        assert_eq!(
            fresh.differences(&committed),
            Vec::<&str>::new(),
            "run `cargo xtask demo` and commit {}",
            dir.display()
        );
        assert_eq!(committed.expected.len(), split.test.len());
    }

    #[test]
    fn differences_name_the_files() {
        let a = Inputs { model: vec![1], recordings: vec![2], expected: vec![3], rows: vec![4] };
        let mut b = a.clone();
        assert!(a.differences(&b).is_empty());
        b.expected[0] = 4;
        assert_eq!(a.differences(&b), ["expected.bin"]);
    }
}

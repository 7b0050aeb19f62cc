//! `cargo xtask features` and `cargo xtask demo`: from raw sensor recordings to window features, a
//! trained model, the host's predictions, and the firmware predicting the same on-chip.

use std::fs;
use std::path::Path;

use anyhow::{bail, ensure, Context, Result};

use crate::dataset::{self, Split, N_FEATURES};
use crate::firmware;
use crate::firmware::checks;
use crate::firmware::inputs::{self, host_predictions, load_model, Inputs};
use crate::steps::Steps;
use crate::{cmd, prereq};

/// Where `cargo xtask features` and `demo` write, relative to the repository root.
pub const OUT_DIR: &str = "target/basicmotions";

/// `cargo xtask features`: the features of both splits and the raw test recordings.
///
/// # Errors
/// The recordings do not load or the files cannot be written.
pub fn run_features(root: &Path) -> Result<()> {
    let split = dataset::load_split(root)?;
    features(root, &split)?;
    Ok(())
}

/// `cargo xtask demo`: features, training and host predictions, then the firmware for `triple`
/// under QEMU predicting the same.
///
/// # Errors
/// An unknown target, missing prerequisites, or a failing step.
pub fn run(root: &Path, triple: &str) -> Result<()> {
    let target = firmware::target(triple)?;
    let mut steps = Steps::default();
    let ok = steps.run("prerequisites", || {
        prereq::rust(&[target.triple], false)?;
        prereq::qemu_and_gcc()
    });
    ensure!(ok, "prerequisites missing");
    let ok = steps.run("features, training and host predictions", || {
        let s = dataset::load_split(root)?;
        let inputs = generate(root, &s, OUT_DIR)?;
        summarize(&inputs.model, &s)?;
        let dir = firmware::model_dir(root);
        inputs.write(&dir)?;
        println!(
            "wrote the firmware's inputs to {}: model.ltu, recordings.bin, expected.bin, rows.rs",
            dir.strip_prefix(root)?.display()
        );
        Ok(())
    });
    ensure!(ok, "the pipeline failed before the firmware");
    checks::check_target(root, target, &mut steps, true);
    ensure!(steps.all_passed(), "the demo failed");
    println!("\nThe on-chip predictions above match the host's; firmware-example/model/ holds the new inputs (commit them).");
    Ok(())
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
    println!("{} are current", inputs::FILES.join(", "));
    Ok(())
}

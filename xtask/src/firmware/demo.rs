//! `cargo xtask demo`: from raw sensor recordings to a model with its sensor pipeline (`ltu train
//! --recordings`), the host's predictions on the TEST recordings, and the firmware predicting the
//! same on-chip from the raw samples.

use std::fs;
use std::path::Path;
use std::process::Command;

use anyhow::{bail, ensure, Context, Result};

use crate::firmware;
use crate::firmware::checks;
use crate::firmware::inputs::{self, host_predictions, load_model, test_windows, Inputs};
use crate::steps::Steps;
use crate::{cmd, prereq};

/// Where `cargo xtask demo` trains, relative to the repository root.
pub const OUT_DIR: &str = "target/basicmotions";
/// The recordings the model learns from: the archive's TRAIN split.
pub const TRAIN_CSV: &str = "data/basicmotions_train.csv";
/// The `ltu train` options of the firmware's model, after the data file.
pub const TRAIN_OPTIONS: [&str; 6] =
    ["--recordings", "--algo", "fringe", "--window-features", "mean,spread,energy,min,max", "--quiet"];

/// `cargo xtask demo`: training and host predictions, then the firmware for `triple` under QEMU
/// predicting the same.
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
    let ok = steps.run("training and host predictions", || {
        let inputs = generate(root, OUT_DIR)?;
        summarize(root, &inputs.model)?;
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

/// Trains the model with the `ltu` CLI, as a user would: the one step that depends on the
/// trainer's interface.
pub fn train(root: &Path, model_out: &str) -> Result<()> {
    train_with(root, TRAIN_CSV, &TRAIN_OPTIONS, model_out)
}

/// `ltu train CSV OPTIONS -o MODEL_OUT` (paths relative to `root`) with the `ltu` command built
/// from this tree ([`cmd::ltu`]).
pub fn train_with(root: &Path, csv: &str, options: &[&str], model_out: &str) -> Result<()> {
    let ltu = cmd::ltu(root)?;
    cmd::run(Command::new(ltu).current_dir(root).args(["train", csv]).args(options).args(["-o", model_out]))
}

/// Training and host predictions into `out` (relative to `root`); returns the inputs.
pub fn generate(root: &Path, out: &str) -> Result<Inputs> {
    let model_path = format!("{out}/model.ltu");
    fs::create_dir_all(root.join(out)).with_context(|| format!("creating {out}"))?;
    train(root, &model_path)?;
    let model = fs::read(root.join(&model_path)).with_context(|| format!("reading {model_path}"))?;
    Inputs::for_model(root, model)
}

/// Prints the model's size, what it reads and its accuracy on the TEST recordings, as the
/// runtime computes it from their raw samples.
pub fn summarize(root: &Path, model_bytes: &[u8]) -> Result<()> {
    let model = load_model(model_bytes)?;
    println!(
        "model: {} bytes, {:?}, {} window statistics read, {} classes, {} units, {:?} weights",
        model_bytes.len(),
        model.kind(),
        model.n_inputs(),
        model.n_classes(),
        model.n_units(),
        model.weight_kind()
    );
    let Some(names) = model.names() else {
        println!("the model carries no names: accuracy not computed");
        return Ok(());
    };
    let read: Vec<&str> = (0..model.n_inputs()).map(|i| names.input(i)).collect();
    println!("it reads {}", read.join(", "));
    let windows = test_windows(root, &model)?;
    let predicted = host_predictions(&model, &windows)?;
    let data = ltu::data::load(&root.join(inputs::TEST_CSV), &ltu::data::LoadOptions::default())?;
    let truth: Vec<&str> = data.y.iter().map(|&y| data.schema.classes[y].as_str()).collect();
    ensure!(truth.len() == predicted.len(), "{} labels for {} windows", truth.len(), predicted.len());
    let right = truth.iter().zip(&predicted).filter(|(t, &p)| **t == names.class(usize::from(p))).count();
    println!(
        "accuracy on {}: {right}/{} = {:.1}%",
        inputs::TEST_CSV,
        truth.len(),
        100.0 * right as f64 / truth.len() as f64
    );
    Ok(())
}

/// Checks that the committed firmware inputs are what the pipeline produces today: retrains into
/// `target/` and compares bytes.
pub fn check_committed(root: &Path, committed_dir: &Path) -> Result<()> {
    let committed = Inputs::read(committed_dir)?;
    let fresh = generate(root, &format!("{OUT_DIR}/check"))?;
    let differ = fresh.differences(&committed);
    if !differ.is_empty() {
        bail!(
            "{} in {} differ from what {TRAIN_CSV}, the trainer and the runtime give today; \
             run `cargo xtask demo` and commit the files",
            differ.join(", "),
            committed_dir.strip_prefix(root).unwrap_or(committed_dir).display()
        );
    }
    println!("{} are current", inputs::FILES.join(", "));
    Ok(())
}

//! The Python side of the benchmarks: a venv under `target/` with scikit-learn and emlearn, and a
//! dataset as the scripts under `bench/` read it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context as _, Result};
use ltu::data::{AttrKind, Dataset};
use serde_json::{json, Value};

use crate::cmd;

/// The venv for the peers, created on first use.
const VENV: &str = "target/peers-venv";

/// Makes the venv and installs the peers when missing; returns its python and notes for the
/// report (emlearn failing to install is a note, not an error: its size is then estimated).
pub fn ensure_venv(root: &Path) -> Result<(PathBuf, Vec<String>)> {
    let venv = root.join(VENV);
    let python = venv.join("bin/python");
    if !python.exists() {
        cmd::run(Command::new("python3").args(["-m", "venv"]).arg(&venv))
            .context("creating the peers' venv needs python3 with the venv module")?;
    }
    // `--no-compile`: Python compiles the modules it imports, not all of scipy's (see `crate::python`).
    let pip = |package: &str| {
        cmd::run(Command::new(&python).args(["-m", "pip", "install", "--quiet", "--no-compile", package]))
    };
    if !imports(&python, "sklearn") {
        pip("scikit-learn")?;
    }
    let mut notes = Vec::new();
    if !imports(&python, "emlearn") {
        if let Err(e) = pip("emlearn") {
            notes.push(format!("`pip install emlearn` failed ({e:#}); emlearn sizes are estimates."));
        }
    }
    Ok((python, notes))
}

fn imports(python: &Path, module: &str) -> bool {
    Command::new(python)
        .args(["-c", &format!("import {module}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The data as the peer scripts read it: attribute kinds, and values as numbers with `null` for
/// missing (category values as their indices).
pub fn data_json(data: &Dataset) -> (Vec<Value>, Vec<Vec<Value>>) {
    let attributes = data
        .schema
        .attributes
        .iter()
        .map(|a| match &a.kind {
            AttrKind::Numeric { .. } => json!({"name": a.name, "kind": "numeric", "n_values": 0}),
            AttrKind::Categorical { values } => {
                json!({"name": a.name, "kind": "categorical", "n_values": values.len()})
            }
        })
        .collect();
    let x = (0..data.n_rows())
        .map(|r| data.row(r).iter().map(|&v| if v.is_nan() { Value::Null } else { json!(v) }).collect())
        .collect();
    (attributes, x)
}

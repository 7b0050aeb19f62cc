//! The regression guard of `--quick`: exact Cortex-M3 counts of the committed firmware model,
//! checked against `bench/device-reference.txt`.

use std::fs;
use std::path::Path;

use anyhow::{ensure, Context as _, Result};

use crate::bench::device::figures::measure;
use crate::firmware::inputs::Inputs;
use crate::firmware::{self, qemu, BuildOptions, TARGETS};

/// Recorded instruction counts of the committed firmware model (the regression guard).
pub const REFERENCE: &str = "bench/device-reference.txt";

/// Instruction counts of the committed firmware model on the bench example (Cortex-M3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Guard {
    load: u64,
    predict_total: u64,
    predict_max: u64,
    stack_max: u64,
}

impl Guard {
    /// The line of the reference file.
    pub fn line(&self) -> String {
        format!(
            "{} load={} predict_total={} predict_max={} stack_max={}",
            TARGETS[0].triple, self.load, self.predict_total, self.predict_max, self.stack_max
        )
    }

    fn parse(text: &str) -> Result<Guard> {
        let line = text
            .lines()
            .find(|l| l.starts_with(TARGETS[0].triple))
            .with_context(|| format!("no `{}` line", TARGETS[0].triple))?;
        let field = |key: &str| -> Result<u64> {
            let v = line
                .split_whitespace()
                .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
                .with_context(|| format!("no `{key}=` in `{line}`"))?;
            v.parse().with_context(|| format!("`{key}={v}` is not a count"))
        };
        Ok(Guard {
            load: field("load")?,
            predict_total: field("predict_total")?,
            predict_max: field("predict_max")?,
            stack_max: field("stack_max")?,
        })
    }
}

/// The regression guard: the committed firmware model on its TEST recordings' features
/// (`firmware-example/model/rows.rs`), Cortex-M3. Fails if any count grew past the reference.
pub fn reference_guard(root: &Path, plugin: &Path, update: bool) -> Result<(Guard, Option<Guard>)> {
    let target = TARGETS[0];
    let model_dir = firmware::model_dir(root);
    let inputs = Inputs::read(&model_dir)?;
    let host: Vec<usize> = inputs.expected.iter().map(|&c| usize::from(c)).collect();
    let options = BuildOptions {
        model_dir: Some(&model_dir),
        example: Some("bench"),
        null_twin: false,
        stream: false,
        codegen: false,
        runtime_features: None,
    };
    let elf = firmware::build(root, target, &options)?;
    let run = qemu::run(&elf, target.machine, Some(plugin))?;
    let m = measure(target, &run, &host, true, 0).context("the committed firmware model")?;
    let now = Guard {
        load: m.load.unwrap_or(0),
        predict_total: m.predict.iter().sum(),
        predict_max: m.predict.iter().copied().max().unwrap_or(0),
        stack_max: m.stack.iter().copied().max().unwrap_or(0),
    };
    let path = root.join(REFERENCE);
    if update {
        let text = format!(
            "# Exact Cortex-M3 counts of the committed firmware model (firmware-example/model/) in the bench\n\
             # example: Model::from_bytes, the sum and the largest of its predictions on rows.rs, and the\n\
             # deepest painted stack. `cargo xtask bench-device --quick` (run by `cargo xtask test`) fails\n\
             # when a count grows; rewrite with `cargo xtask bench-device --update-reference`.\n{}\n",
            now.line()
        );
        fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
        println!("wrote {}: {}", path.display(), now.line());
        return Ok((now, None));
    }
    let reference =
        Guard::parse(&fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?)
            .with_context(|| format!("parsing {}", path.display()))?;
    println!("committed firmware model, {}: {}", target.core, now.line());
    println!("reference ({REFERENCE}):  {}", reference.line());
    let grew: Vec<String> = [
        ("load", now.load, reference.load),
        ("predict_total", now.predict_total, reference.predict_total),
        ("predict_max", now.predict_max, reference.predict_max),
        ("stack_max", now.stack_max, reference.stack_max),
    ]
    .iter()
    .filter(|(_, a, b)| a > b)
    .map(|(k, a, b)| format!("{k} {b} -> {a}"))
    .collect();
    ensure!(
        grew.is_empty(),
        "the committed firmware model got more expensive on the {}: {} (if that is intended, run \
         `cargo xtask bench-device --update-reference` and commit {REFERENCE})",
        target.core,
        grew.join(", ")
    );
    if now != reference {
        println!(
            "counts went down: run `cargo xtask bench-device --update-reference` and commit {REFERENCE}"
        );
    }
    Ok((now, Some(reference)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guard_line_round_trips() {
        let g = Guard { load: 1, predict_total: 2, predict_max: 3, stack_max: 4 };
        assert_eq!(Guard::parse(&format!("# comment\n{}\n", g.line())).unwrap(), g);
        assert!(Guard::parse("thumbv7m-none-eabi load=1").is_err());
    }
}

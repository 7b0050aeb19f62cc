//! Runs named steps, keeps going after a failure, and reports every failure together at the end.

use std::process::ExitCode;
use std::time::Instant;

use anyhow::Result;

/// The results of the steps run so far.
#[derive(Default)]
pub struct Steps {
    passed: usize,
    failed: Vec<(String, String)>,
}

impl Steps {
    /// Runs one step, prints its result, and records it. Returns whether it passed.
    pub fn run(&mut self, name: &str, step: impl FnOnce() -> Result<()>) -> bool {
        println!("\n==> {name}");
        let start = Instant::now();
        let result = step();
        let secs = start.elapsed().as_secs_f64();
        match result {
            Ok(()) => {
                println!("PASS {name} ({secs:.1} s)");
                self.passed += 1;
                true
            }
            Err(e) => {
                let why = format!("{e:#}");
                println!("FAIL {name} ({secs:.1} s): {why}");
                self.failed.push((name.to_string(), why));
                false
            }
        }
    }

    /// Whether every step so far passed.
    pub fn all_passed(&self) -> bool {
        self.failed.is_empty()
    }

    /// Prints the failures and the closing `N passed, N failed` line.
    pub fn finish(self) -> ExitCode {
        println!();
        if !self.failed.is_empty() {
            println!("Failures:");
            for (name, why) in &self.failed {
                println!("  {name}: {why}");
            }
        }
        println!("{} passed, {} failed", self.passed, self.failed.len());
        if self.failed.is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        }
    }
}

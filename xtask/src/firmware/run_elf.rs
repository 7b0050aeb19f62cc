//! `cargo xtask run-elf`: the cargo runner of `firmware-example/` (its `.cargo/config.toml`), so
//! `cargo run` there runs the firmware under QEMU and prints its decoded log.

use std::path::Path;

use anyhow::{bail, Result};

use crate::firmware;
use crate::firmware::qemu::{self, print_log};

/// `cargo xtask run-elf`: the cargo runner. Runs one ELF, prints its log, returns its exit code.
pub fn run_elf(root: &Path, elf: &Path, machine: &str, count: bool) -> Result<i32> {
    let plugin = if count { Some(firmware::plugin(root)?) } else { None };
    let run = qemu::run(elf, firmware::machine(machine)?, plugin.as_deref())?;
    print_log(&run);
    if count {
        for (k, n) in run.regions.iter().enumerate() {
            println!("region {k}: {n} instructions");
        }
        println!("total: {} instructions", run.total.unwrap_or(0));
    }
    if run.log.is_empty() && run.code != 0 {
        bail!("QEMU exited with {} and the firmware logged nothing", run.code);
    }
    Ok(run.code)
}

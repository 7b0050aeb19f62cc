//! The QEMU runner: one firmware ELF under `qemu-system-arm` or `qemu-system-riscv32`, its defmt
//! log decoded and, with the plugin, its instructions counted per measured region.

use std::fs;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context, Result};
use defmt_decoder::{DecodeError, Table};

use crate::cmd;
use crate::firmware::Machine;

/// What one QEMU run of the firmware produced.
#[derive(Debug)]
pub struct Run {
    /// QEMU's exit code: the firmware's, passed through semihosting.
    pub code: i32,
    /// The decoded defmt log, one line per frame.
    pub log: Vec<String>,
    /// Instructions in each measured region, in order (with the plugin).
    pub regions: Vec<u64>,
    /// Instructions executed in the whole run (with the plugin).
    pub total: Option<u64>,
    /// QEMU's stderr lines other than the plugin's.
    pub stderr: Vec<String>,
}

/// Runs an ELF on a QEMU board (`machine`), optionally with the instruction-count plugin, and decodes
/// its defmt output. Gives up after `QEMU_TIMEOUT` seconds (default 120).
pub fn run(elf: &Path, machine: Machine, plugin: Option<&Path>) -> Result<Run> {
    let elf_bytes = fs::read(elf).with_context(|| format!("reading {}", elf.display()))?;
    let (mut run, stdout) = run_raw(elf, machine, plugin)?;
    run.log = decode(&elf_bytes, &stdout)?;
    Ok(run)
}

/// Runs an ELF under QEMU like [`run`] for firmware that writes plain text over semihosting
/// (the C bench firmware): one log entry per line of its output.
pub fn run_text(elf: &Path, machine: Machine, plugin: Option<&Path>) -> Result<Run> {
    let (mut run, stdout) = run_raw(elf, machine, plugin)?;
    run.log = String::from_utf8_lossy(&stdout).lines().map(String::from).collect();
    Ok(run)
}

/// Runs an ELF under QEMU; returns the run without its log, and the semihosting output.
fn run_raw(elf: &Path, machine: Machine, plugin: Option<&Path>) -> Result<(Run, Vec<u8>)> {
    let mut qemu = Command::new(machine.qemu);
    // Nothing but semihosting reaches stdout; stdin is not read.
    qemu.args(["-machine", machine.name, "-display", "none", "-serial", "null", "-monitor", "none"])
        .args(machine.args)
        .args(["-semihosting-config", "enable=on,target=native"]);
    if let Some(plugin) = plugin {
        qemu.arg("-plugin").arg(plugin);
    }
    qemu.arg("-kernel").arg(elf);
    qemu.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let what = cmd::display(&qemu);
    let mut child = qemu.spawn().with_context(|| format!("could not start `{what}`"))?;
    let reader = |mut pipe: Box<dyn Read + Send>| {
        thread::spawn(move || {
            let mut buf = Vec::new();
            pipe.read_to_end(&mut buf).map(|_| buf)
        })
    };
    let stdout = reader(Box::new(child.stdout.take().context("no stdout pipe")?));
    let stderr = reader(Box::new(child.stderr.take().context("no stderr pipe")?));
    let timeout =
        Duration::from_secs(std::env::var("QEMU_TIMEOUT").ok().and_then(|s| s.parse().ok()).unwrap_or(120));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if start.elapsed() > timeout {
            child.kill().ok();
            child.wait().ok();
            bail!("`{what}` did not finish within {} s (set QEMU_TIMEOUT to wait longer)", timeout.as_secs());
        }
        thread::sleep(Duration::from_millis(5));
    };
    let stdout = stdout.join().expect("stdout reader panicked")?;
    let stderr = stderr.join().expect("stderr reader panicked")?;
    let code = status.code().with_context(|| format!("`{what}` was killed by a signal"))?;

    let mut run = Run { code, log: Vec::new(), regions: Vec::new(), total: None, stderr: Vec::new() };
    parse_stderr(&mut run, &String::from_utf8_lossy(&stderr))?;
    if plugin.is_some() && run.total.is_none() {
        bail!("the instruction-count plugin printed no total; QEMU said: {}", run.stderr.join(" | "));
    }
    Ok((run, stdout))
}

/// Reads QEMU's stderr into `run`: the plugin's region counts and total, every other line as is.
/// Fails on counts whose markers did not pair up (the plugin's `stray` line): a region that ended
/// at something other than its own stop marker, or one that began twice, counted other work.
fn parse_stderr(run: &mut Run, stderr: &str) -> Result<()> {
    for line in stderr.lines() {
        if let Some(rest) = line.strip_prefix("insncount region=") {
            let (k, n) = rest.split_once(" insns=").with_context(|| format!("bad plugin line `{line}`"))?;
            ensure!(
                k.parse::<usize>().ok() == Some(run.regions.len()),
                "plugin regions out of order at `{line}`"
            );
            run.regions.push(n.parse().with_context(|| format!("bad plugin line `{line}`"))?);
        } else if let Some(n) = line.strip_prefix("insncount stray=") {
            bail!(
                "{n} marker(s) outside a start/stop pair (a start inside a region or a stop outside one): \
                 the regions' counts do not measure what the markers enclose"
            );
        } else if let Some(n) = line.strip_prefix("insncount total=") {
            run.total = Some(n.parse().with_context(|| format!("bad plugin line `{line}`"))?);
        } else {
            run.stderr.push(line.to_string());
        }
    }
    Ok(())
}

/// Decodes the defmt frames the firmware wrote, with the string table from its ELF.
pub fn decode(elf: &[u8], bytes: &[u8]) -> Result<Vec<String>> {
    let table = Table::parse(elf)?.context("the ELF has no .defmt section (not a defmt firmware?)")?;
    let mut decoder = table.new_stream_decoder();
    decoder.received(bytes);
    let mut lines = Vec::new();
    loop {
        match decoder.decode() {
            Ok(frame) => lines.push(frame.display(false).to_string()),
            Err(DecodeError::UnexpectedEof) => break,
            Err(DecodeError::Malformed) => bail!("malformed defmt frame after {} frames", lines.len()),
        }
    }
    Ok(lines)
}

/// Prints a run's decoded log, indented.
pub fn print_log(run: &Run) {
    for line in &run.log {
        println!("  {line}");
    }
    for line in &run.stderr {
        println!("  qemu: {line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn empty() -> Run {
        Run { code: 0, log: Vec::new(), regions: Vec::new(), total: None, stderr: Vec::new() }
    }

    #[test]
    fn plugin_lines_give_regions_and_total() {
        let mut run = empty();
        parse_stderr(
            &mut run,
            "insncount region=0 insns=12\nqemu says hi\ninsncount region=1 insns=3\ninsncount total=99\n",
        )
        .unwrap();
        assert_eq!(run.regions, [12, 3]);
        assert_eq!(run.total, Some(99));
        assert_eq!(run.stderr, ["qemu says hi"]);
    }

    #[test]
    fn stray_markers_and_disorder_are_rejected() {
        let err = parse_stderr(
            &mut empty(),
            "insncount region=0 insns=12\ninsncount stray=40\ninsncount total=99\n",
        )
        .unwrap_err();
        assert!(err.to_string().contains("40 marker(s)"), "{err}");
        assert!(parse_stderr(&mut empty(), "insncount region=1 insns=12\n").is_err());
    }
}

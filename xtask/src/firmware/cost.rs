//! What a firmware image costs: its flash and RAM, the instructions of its measured regions, and the
//! per-target summary `cargo xtask qemu` prints.

use std::fmt;

use anyhow::{ensure, Context, Result};
use object::{Object, ObjectSection, SectionFlags, SectionKind};

use crate::firmware::Target;

/// Memory a firmware image needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sizes {
    /// Bytes stored in flash: code, read-only data, vector table, initial values of `.data`.
    pub flash: u64,
    /// Static RAM: `.data`, `.bss`, `.uninit` (the stack comes on top).
    pub ram: u64,
}

/// Reads flash and static RAM use from the ELF's allocated sections.
pub fn sizes(elf: &[u8]) -> Result<Sizes> {
    const SHF_WRITE: u64 = 1;
    const SHF_ALLOC: u64 = 2;
    let file = object::File::parse(elf).context("parsing the firmware ELF")?;
    let mut sizes = Sizes { flash: 0, ram: 0 };
    for section in file.sections() {
        let SectionFlags::Elf { sh_flags } = section.flags() else { continue };
        // riscv-rt's `.stack` is no data: it spans the RAM left for the stack, which `ram` leaves out.
        if sh_flags & SHF_ALLOC == 0 || section.name() == Ok(".stack") {
            continue;
        }
        if section.kind() != SectionKind::UninitializedData {
            sizes.flash += section.size();
        }
        if sh_flags & SHF_WRITE != 0 {
            sizes.ram += section.size();
        }
    }
    Ok(sizes)
}

/// Instruction counts of the measured regions, which alternate: feature extraction, then
/// classification, once per recording.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cost {
    /// Per recording: computing the window features.
    pub features: Vec<u64>,
    /// Per recording: `Model::predict`.
    pub classify: Vec<u64>,
}

impl Cost {
    /// Splits the plugin's regions; there must be two per recording.
    pub fn from_regions(regions: &[u64], recordings: usize) -> Result<Cost> {
        ensure!(
            regions.len() == 2 * recordings,
            "{} measured regions, want 2 per recording ({recordings} recordings)",
            regions.len()
        );
        Ok(Cost {
            features: regions.iter().step_by(2).copied().collect(),
            classify: regions.iter().skip(1).step_by(2).copied().collect(),
        })
    }
}

/// Minimum, mean (rounded) and maximum.
pub struct Spread(pub u64, pub u64, pub u64);

impl Spread {
    /// Of a non-empty list.
    pub fn of(xs: &[u64]) -> Spread {
        let sum: u64 = xs.iter().sum();
        let n = xs.len().max(1) as u64;
        Spread(
            xs.iter().copied().min().unwrap_or(0),
            (sum + n / 2) / n,
            xs.iter().copied().max().unwrap_or(0),
        )
    }
}

impl fmt::Display for Spread {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == self.2 {
            write!(f, "{}", self.0)
        } else {
            write!(f, "{} (min {}, max {})", self.1, self.0, self.2)
        }
    }
}

/// Measurements of one target, for reports.
pub struct Report {
    /// The target.
    pub target: Target,
    /// Instruction counts.
    pub cost: Cost,
    /// Whole-run instruction count.
    pub total: u64,
    /// Image sizes.
    pub sizes: Sizes,
    /// Bytes of the embedded model file.
    pub model_bytes: u64,
    /// Bytes of embedded test data (recordings and expected predictions).
    pub test_data_bytes: u64,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = &self.target;
        writeln!(f, "{} ({}, QEMU {}):", t.core, t.triple, t.machine)?;
        writeln!(
            f,
            "  instructions per window for the statistics the model reads (6 channels x 100 samples): {}",
            Spread::of(&self.cost.features)
        )?;
        writeln!(f, "  instructions per classification: {}", Spread::of(&self.cost.classify))?;
        writeln!(f, "  instructions for the whole run: {}", self.total)?;
        write!(
            f,
            "  flash {} bytes (model {} bytes, test recordings {} bytes, firmware without test data {} bytes), static RAM {} bytes",
            self.sizes.flash,
            self.model_bytes,
            self.test_data_bytes,
            self.sizes.flash.saturating_sub(self.test_data_bytes),
            self.sizes.ram
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cost_alternates_and_checks_count() {
        let c = Cost::from_regions(&[10, 1, 11, 2], 2).unwrap();
        assert_eq!(c.features, [10, 11]);
        assert_eq!(c.classify, [1, 2]);
        assert!(Cost::from_regions(&[10, 1, 11], 2).is_err());
    }

    #[test]
    fn spread_display() {
        assert_eq!(Spread::of(&[5, 5]).to_string(), "5");
        assert_eq!(Spread::of(&[1, 2, 4]).to_string(), "2 (min 1, max 4)");
    }
}

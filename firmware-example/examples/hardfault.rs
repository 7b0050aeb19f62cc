//! Checks that a fault stops QEMU with exit code 102 (`cargo xtask qemu` runs it on every core): an
//! undefined instruction raises a HardFault on Cortex-M and an illegal-instruction exception on
//! RISC-V, and `qemu.rs`'s handler exits.
#![no_std]
#![no_main]

#[allow(dead_code)] // only the handlers and `exit` are used here
#[path = "../src/qemu.rs"]
mod qemu;

#[qemu::entry]
fn main() -> ! {
    defmt::info!("executing a permanently undefined instruction");
    undefined_instruction()
}

#[cfg(target_arch = "arm")]
fn undefined_instruction() -> ! {
    cortex_m::asm::udf()
}

#[cfg(target_arch = "riscv32")]
fn undefined_instruction() -> ! {
    // SAFETY: `unimp` traps (illegal instruction); the exception handler exits and never returns.
    unsafe { core::arch::asm!("unimp", options(noreturn, nomem, nostack)) }
}

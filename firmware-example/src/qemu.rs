//! What ties this example to QEMU: exit codes over semihosting, panic and fault handlers that
//! exit with a distinct code, the defmt logger, and the markers the instruction-count plugin
//! (`tools/insncount.c`) looks for. On a real board, replace the logger with `defmt-rtt` and the
//! exits with whatever the application should do; the markers are harmless no-ops there.
//!
//! Also what differs between the architectures: the runtime crate that provides the reset code and
//! [`entry`] (cortex-m-rt on Arm, riscv-rt on RISC-V), the fault handler and the markers.

#[cfg(target_arch = "arm")]
use cortex_m as _; // critical-section implementation (single core) that defmt needs
use defmt_semihosting as _; // #[global_logger]: defmt frames go to QEMU's stdout
#[cfg(target_arch = "riscv32")]
use riscv as _; // critical-section implementation (single hart) that defmt needs

/// The attribute that makes `fn main() -> !` the program's entry point after reset.
#[cfg(target_arch = "arm")]
pub use cortex_m_rt::entry;
/// The attribute that makes `fn main() -> !` the program's entry point after reset.
#[cfg(target_arch = "riscv32")]
pub use riscv_rt::entry;

/// Every on-chip prediction equals the host's.
pub const EXIT_OK: i32 = 0;
/// At least one on-chip prediction differs from the host's.
pub const EXIT_MISMATCH: i32 = 1;
/// The embedded model or recordings were rejected.
pub const EXIT_BAD_INPUT: i32 = 2;
/// A panic.
pub const EXIT_PANIC: i32 = 101;
/// A HardFault (Cortex-M) or an exception trap (RISC-V): an illegal instruction or access.
pub const EXIT_HARDFAULT: i32 = 102;

/// Stops QEMU; `code` becomes its exit status.
pub fn exit(code: i32) -> ! {
    semihosting::process::exit(code)
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo) -> ! {
    defmt::error!("panicked: {}", defmt::Display2Format(info));
    exit(EXIT_PANIC)
}

/// Target of `defmt::panic!`, `unwrap!` and friends.
#[defmt::panic_handler]
fn defmt_panic() -> ! {
    exit(EXIT_PANIC)
}

#[cfg(target_arch = "arm")]
#[cortex_m_rt::exception]
unsafe fn HardFault(frame: &cortex_m_rt::ExceptionFrame) -> ! {
    defmt::error!("HardFault at pc={=u32:#010x}", frame.pc());
    exit(EXIT_HARDFAULT)
}

/// riscv-rt's handler of every exception the program does not handle itself (synchronous traps:
/// illegal instruction, access fault, misaligned access, ...).
#[cfg(target_arch = "riscv32")]
#[export_name = "ExceptionHandler"]
extern "C" fn exception_handler(_frame: &riscv_rt::TrapFrame) -> ! {
    defmt::error!(
        "exception trap (mcause {=usize}, mtval {=usize:#010x}) at pc={=usize:#010x}",
        riscv::register::mcause::read().code(),
        riscv::register::mtval::read(),
        riscv::register::mepc::read()
    );
    exit(EXIT_HARDFAULT)
}

/// Marks the start of a measured region: `mov r11, r11`, an architectural no-op.
#[cfg(target_arch = "arm")]
#[inline(always)]
pub fn region_start() {
    // SAFETY: moves a register to itself; touches no memory, stack or flags.
    unsafe { core::arch::asm!("mov r11, r11", options(nostack, preserves_flags)) }
}

/// Marks the end of a measured region: `mov r10, r10`, an architectural no-op.
#[cfg(target_arch = "arm")]
#[inline(always)]
pub fn region_stop() {
    // SAFETY: as above.
    unsafe { core::arch::asm!("mov r10, r10", options(nostack, preserves_flags)) }
}

/// Marks the start of a measured region: `slti x0, x0, 1`, a write to `x0` and so a no-op (one of
/// the HINT encodings the ISA reserves for uses like this).
#[cfg(target_arch = "riscv32")]
#[inline(always)]
pub fn region_start() {
    // SAFETY: writes the zero register, which ignores writes; touches no memory or stack. Like the
    // Arm markers it is not `nomem`, so the compiler keeps memory accesses on their side of it.
    unsafe { core::arch::asm!("slti x0, x0, 1", options(nostack, preserves_flags)) }
}

/// Marks the end of a measured region: `slti x0, x0, 2`, a no-op like the start marker.
#[cfg(target_arch = "riscv32")]
#[inline(always)]
pub fn region_stop() {
    // SAFETY: as above.
    unsafe { core::arch::asm!("slti x0, x0, 2", options(nostack, preserves_flags)) }
}

//! What ties this example to QEMU: exit codes over semihosting, panic and HardFault handlers that
//! exit with a distinct code, the defmt logger, and the markers the instruction-count plugin
//! (`tools/insncount.c`) looks for. On a real board, replace the logger with `defmt-rtt` and the
//! exits with whatever the application should do; the markers are harmless no-ops there.

use cortex_m as _; // critical-section implementation (single core) that defmt needs
use defmt_semihosting as _; // #[global_logger]: defmt frames go to QEMU's stdout

/// Every on-chip prediction equals the host's.
pub const EXIT_OK: i32 = 0;
/// At least one on-chip prediction differs from the host's.
pub const EXIT_MISMATCH: i32 = 1;
/// The embedded model or recordings were rejected.
pub const EXIT_BAD_INPUT: i32 = 2;
/// A panic.
pub const EXIT_PANIC: i32 = 101;
/// A HardFault.
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

#[cortex_m_rt::exception]
unsafe fn HardFault(frame: &cortex_m_rt::ExceptionFrame) -> ! {
    defmt::error!("HardFault at pc={=u32:#010x}", frame.pc());
    exit(EXIT_HARDFAULT)
}

/// Marks the start of a measured region: `mov r11, r11`, an architectural no-op.
#[inline(always)]
pub fn region_start() {
    // SAFETY: moves a register to itself; touches no memory, stack or flags.
    unsafe { core::arch::asm!("mov r11, r11", options(nostack, preserves_flags)) }
}

/// Marks the end of a measured region: `mov r10, r10`, an architectural no-op.
#[inline(always)]
pub fn region_stop() {
    // SAFETY: as above.
    unsafe { core::arch::asm!("mov r10, r10", options(nostack, preserves_flags)) }
}

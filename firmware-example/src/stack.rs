//! Stack painting for the bench examples: fill the RAM below the stack pointer with a pattern,
//! run the code measured, then find the deepest word it overwrote.

/// Bytes painted below the caller's frame.
pub const PAINT_BYTES: usize = 8192;
/// The paint.
const PATTERN: u32 = 0xC5A3_E1D7;

/// The current stack pointer.
#[cfg(target_arch = "arm")]
pub fn sp() -> usize {
    cortex_m::register::msp::read() as usize
}

/// The current stack pointer.
#[cfg(target_arch = "riscv32")]
#[inline(always)]
pub fn sp() -> usize {
    let sp: usize;
    // SAFETY: copies the stack pointer into a register; touches no memory.
    unsafe { core::arch::asm!("mv {}, sp", out(reg) sp, options(nomem, nostack, preserves_flags)) };
    sp
}

/// The lowest address of the stack: riscv-rt's linker script places the stack between the end of
/// the static RAM (`__estack`) and the top of RAM.
#[cfg(target_arch = "riscv32")]
fn stack_limit() -> usize {
    extern "C" {
        static __estack: u8;
    }
    // Only the symbol's address is taken, never its contents.
    core::ptr::addr_of!(__estack) as usize
}

/// Paints `PAINT_BYTES` below this function's own frame; returns the lowest painted address.
#[inline(never)]
pub fn paint() -> usize {
    let top = sp() & !3;
    let floor = top - PAINT_BYTES;
    #[cfg(target_arch = "riscv32")]
    assert!(floor >= stack_limit(), "the stack region is smaller than PAINT_BYTES");
    let mut a = floor;
    while a < top - 16 {
        // SAFETY: RAM below the stack pointer that nothing else uses: no interrupts are enabled,
        // and the memory layout leaves far more than PAINT_BYTES of stack.
        unsafe { core::ptr::write_volatile(a as *mut u32, PATTERN) };
        a += 4;
    }
    floor
}

/// Bytes between `caller_sp` and the deepest overwritten painted word.
#[inline(never)]
pub fn stack_used(floor: usize, caller_sp: usize) -> usize {
    let mut a = floor;
    // SAFETY: reads the painted RAM below the stack pointer (see `paint`).
    while a < caller_sp && unsafe { core::ptr::read_volatile(a as *const u32) } == PATTERN {
        a += 4;
    }
    caller_sp - a
}

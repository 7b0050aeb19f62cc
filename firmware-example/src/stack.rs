//! Stack painting for the bench examples: fill the RAM below the stack pointer with a pattern,
//! run the code measured, then find the deepest word it overwrote.

/// Bytes painted below the caller's frame.
pub const PAINT_BYTES: usize = 8192;
/// The paint.
const PATTERN: u32 = 0xC5A3_E1D7;

/// The current stack pointer.
pub fn sp() -> usize {
    cortex_m::register::msp::read() as usize
}

/// Paints `PAINT_BYTES` below this function's own frame; returns the lowest painted address.
#[inline(never)]
pub fn paint() -> usize {
    let top = sp() & !3;
    let floor = top - PAINT_BYTES;
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

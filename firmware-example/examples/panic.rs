//! Checks that a panic stops QEMU with exit code 101 (`cargo xtask qemu` runs it on every core).
#![no_std]
#![no_main]

#[allow(dead_code)] // only the handlers and `exit` are used here
#[path = "../src/qemu.rs"]
mod qemu;

#[qemu::entry]
fn main() -> ! {
    let seven = core::hint::black_box(7u32);
    assert_eq!(seven, 8, "deliberate panic");
    qemu::exit(qemu::EXIT_OK)
}

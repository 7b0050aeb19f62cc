//! Checks that a HardFault stops QEMU with exit code 102 (`cargo xtask qemu` runs it on every core).
#![no_std]
#![no_main]

#[allow(dead_code)] // only the handlers and `exit` are used here
#[path = "../src/qemu.rs"]
mod qemu;

#[cortex_m_rt::entry]
fn main() -> ! {
    defmt::info!("executing a permanently undefined instruction");
    cortex_m::asm::udf()
}

//! Bench firmware of `cargo xtask bench-device`: one embedded model, a few embedded input rows,
//! exact instruction counts of loading and of every prediction, and the stack each prediction
//! used (painted).
//!
//! Inputs come from the directory named by `LTU_MODEL_DIR` (the xtask writes them): `model.ltu`
//! and `rows.rs`, which defines `Raw` (the integer type of the inputs), `N_INPUTS`, `N_ROWS` and
//! `ROWS: [[Raw; N_INPUTS]; N_ROWS]` — the exact integers the host handed `Model::predict`.
//!
//! Measured regions, in order: `Model::from_bytes` once, then `predict` once per row. Built with
//! `--cfg ltu_bench_codegen` (`LTU_BENCH_CODEGEN=1`), the model is the Rust source `model.rs` that
//! `ltu codegen` generated, nothing is loaded, and only the predictions are measured. After each
//! prediction the firmware logs `p <class> <stack bytes>`. Built with `--cfg ltu_bench_null`
//! (the xtask sets `LTU_BENCH_NULL=1`), the same firmware holds no model and every prediction is
//! 0: the flash of a model is the difference between the two images.
#![no_std]
#![no_main]

#[allow(dead_code)] // only the handlers, the markers and `exit` are used here
#[path = "../src/qemu.rs"]
mod qemu;
#[path = "../src/stack.rs"]
mod stack;

mod rows {
    include!(concat!(env!("LTU_MODEL_DIR"), "/rows.rs"));
}

use core::hint::black_box;
use rows::{Raw, N_INPUTS, N_ROWS, ROWS};
use stack::{paint, sp, stack_used};

#[cfg(not(any(ltu_bench_null, ltu_bench_codegen)))]
mod bench_model {
    use super::*;
    use ltu_runtime::Model;

    static MODEL: &[u8] = include_bytes!(concat!(env!("LTU_MODEL_DIR"), "/model.ltu"));

    /// Loads the model (measured as its own region). The result stays where it was built: the
    /// predictions borrow the model in it, as a firmware would, so no copy of the `Model` (and
    /// no `memcpy`) is measured as the runtime's flash.
    pub fn load() -> ltu_runtime::Result<Model<'static>> {
        qemu::region_start();
        let model = Model::from_bytes(black_box(MODEL));
        // `black_box` on the result keeps the call between the markers (it has no side effect
        // the compiler must order against them).
        black_box(&model);
        qemu::region_stop();
        model
    }

    /// The loaded model, if it loaded and takes the rows' inputs. Failures exit without
    /// formatting the error: its defmt strings would count as the runtime's flash. The xtask
    /// checked the model on the host before embedding it.
    pub fn checked<'m>(loaded: &'m ltu_runtime::Result<Model<'static>>) -> &'m Model<'static> {
        match loaded {
            Ok(model) if model.n_inputs() == N_INPUTS => model,
            _ => qemu::exit(qemu::EXIT_BAD_INPUT),
        }
    }

    /// One prediction; a real call, with nothing folded across the markers.
    #[inline(never)]
    pub fn predict(model: &Model<'static>, row: &[Raw; N_INPUTS]) -> usize {
        match black_box(model).predict(black_box(row)) {
            Ok(class) => class,
            Err(_) => qemu::exit(qemu::EXIT_BAD_INPUT),
        }
    }
}

#[cfg(ltu_bench_codegen)]
mod bench_model {
    use super::*;

    mod generated {
        include!(concat!(env!("LTU_MODEL_DIR"), "/model.rs"));
    }

    /// Nothing to load: the model is code.
    pub fn load() {}

    pub fn checked(loaded: &()) -> &() {
        loaded
    }

    #[inline(never)]
    pub fn predict(_model: &(), row: &[Raw; N_INPUTS]) -> usize {
        generated::predict(black_box(row))
    }
}

#[cfg(ltu_bench_null)]
mod bench_model {
    use super::*;

    pub fn load() {}

    pub fn checked(loaded: &()) -> &() {
        loaded
    }

    #[inline(never)]
    pub fn predict(_model: &(), row: &[Raw; N_INPUTS]) -> usize {
        black_box(row);
        black_box(0)
    }
}

#[qemu::entry]
fn main() -> ! {
    let loaded = bench_model::load();
    let model = bench_model::checked(&loaded);
    for row in ROWS.iter().take(N_ROWS) {
        let floor = paint();
        let caller_sp = sp();
        qemu::region_start();
        let class = bench_model::predict(model, row);
        qemu::region_stop();
        let used = stack_used(floor, caller_sp);
        defmt::println!("p {=usize} {=usize}", class, used);
    }
    defmt::println!("done");
    qemu::exit(qemu::EXIT_OK)
}

//! Sensor pipeline bench firmware of `cargo xtask bench-device`: one embedded model, embedded
//! windows of raw samples, and the exact instructions of everything between raw samples and a
//! class — the window statistics the model reads and its classification.
//!
//! Inputs come from the directory named by `LTU_MODEL_DIR` (the xtask writes them; the firmware's
//! own `model/` has the same files): `model.ltu` and `recordings.bin`, windows of `WINDOW` frames
//! of `CHANNELS` little-endian `i16` samples, back to back, at the model's channel scales.
//!
//! Per window (the default): one measured region per window around one call from raw samples to
//! a class — `Model::predict_window` over the window's channels, or with `--cfg ltu_bench_codegen`
//! (`LTU_BENCH_CODEGEN=1`) the `classify_window` that `ltu codegen --window` generated into
//! `model.rs`. After each window the firmware logs `p <class> <stack bytes>` (stack painted before
//! the call).
//!
//! Streaming (`--cfg ltu_bench_stream`, `LTU_BENCH_STREAM=1`): the first [`STREAM_WINDOWS`]
//! windows played back to back, one measured region per frame around one push — the runtime's
//! `window::Stream::push_frame` (and, when it says a window is ready, the model's inputs from the
//! stream's values and `Model::predict`), or the generated `Stream::push`, which classifies on its
//! own. A window is ready every [`HOP`] frames once `WINDOW` are in. The stack is painted once
//! before the first frame; after the last the firmware logs `p <class> <stack bytes>` for each
//! ready window, with the deepest stack of all pushes.
//!
//! With `--cfg ltu_bench_null` (`LTU_BENCH_NULL=1`) the same firmware holds no model and no
//! pipeline: the flash of the pipeline and its model is the difference between the two images.
#![no_std]
#![no_main]

#[allow(dead_code)] // only the handlers, the markers and `exit` are used here
#[path = "../src/qemu.rs"]
mod qemu;
#[path = "../src/stack.rs"]
mod stack;

use core::hint::black_box;

use stack::{paint, sp, stack_used};

/// Sensor channels per frame.
const CHANNELS: usize = 6;
/// Samples per window.
const WINDOW: usize = 100;
/// Frames from one streamed window to the next (`HOP` in the xtask's `pipeline.rs`).
#[cfg(ltu_bench_stream)]
const HOP: usize = 10;
/// Windows played back to back when streaming (`STREAM_WINDOWS` there).
#[cfg(ltu_bench_stream)]
const STREAM_WINDOWS: usize = 10;

/// The windows, frame-major little-endian `i16`.
static RECORDINGS: &[u8] = include_bytes!(concat!(env!("LTU_MODEL_DIR"), "/recordings.bin"));
const FRAME_BYTES: usize = CHANNELS * 2;
const N_WINDOWS: usize =
    include_bytes!(concat!(env!("LTU_MODEL_DIR"), "/recordings.bin")).len() / (FRAME_BYTES * WINDOW);

/// One window: `[channel][sample]`.
#[cfg(not(ltu_bench_stream))]
type Window = [[i16; WINDOW]; CHANNELS];

/// Sample `c` of frame `f`.
fn sample(f: usize, c: usize) -> i16 {
    let i = (f * CHANNELS + c) * 2;
    match RECORDINGS.get(i..i + 2) {
        Some(&[lo, hi]) => i16::from_le_bytes([lo, hi]),
        _ => qemu::exit(qemu::EXIT_BAD_INPUT),
    }
}

#[cfg(not(any(ltu_bench_null, ltu_bench_codegen)))]
mod bench_model {
    use super::*;
    use ltu_runtime::Model;

    static MODEL: &[u8] = include_bytes!(concat!(env!("LTU_MODEL_DIR"), "/model.ltu"));

    /// Most inputs a streamed model may read.
    #[cfg(ltu_bench_stream)]
    const MAX_INPUTS: usize = 16;

    pub struct Bench {
        model: Model<'static>,
        #[cfg(ltu_bench_stream)]
        stream: ltu_runtime::window::Stream<CHANNELS, WINDOW, MAX_INPUTS>,
    }

    /// Loads the model (not measured) and, streaming, sets up the stream for its inputs. Failures
    /// exit without formatting the error: its defmt strings would count as the runtime's flash.
    pub fn load() -> Bench {
        let Ok(model) = Model::from_bytes(black_box(MODEL)) else { qemu::exit(qemu::EXIT_BAD_INPUT) };
        #[cfg(ltu_bench_stream)]
        {
            use ltu_runtime::window::{Stat, Stream, WindowFeature};
            let Some(pipeline) = model.pipeline() else { qemu::exit(qemu::EXIT_BAD_INPUT) };
            let mut features = [WindowFeature::whole(0, Stat::Mean); MAX_INPUTS];
            let n = model.n_inputs();
            if n > MAX_INPUTS {
                qemu::exit(qemu::EXIT_BAD_INPUT)
            }
            for (i, slot) in features.iter_mut().enumerate().take(n) {
                match pipeline.feature(i) {
                    Some(f) => *slot = f,
                    None => qemu::exit(qemu::EXIT_BAD_INPUT),
                }
            }
            // The model's own window is the whole recording; the stream slides a window of the
            // same length every HOP frames.
            let Ok(stream) = Stream::new(&features[..n], HOP) else { qemu::exit(qemu::EXIT_BAD_INPUT) };
            Bench { model, stream }
        }
        #[cfg(not(ltu_bench_stream))]
        Bench { model }
    }

    /// Raw samples to a class; a real call, with nothing folded across the markers.
    #[cfg(not(ltu_bench_stream))]
    #[inline(never)]
    pub fn classify(bench: &Bench, window: &Window) -> usize {
        let channels: [&[i16]; CHANNELS] = core::array::from_fn(|c| &window[c][..]);
        match black_box(&bench.model).predict_window(&channels) {
            Ok(class) => class,
            Err(_) => qemu::exit(qemu::EXIT_BAD_INPUT),
        }
    }

    /// One frame into the stream; the class when a window is ready.
    #[cfg(ltu_bench_stream)]
    #[inline(never)]
    pub fn push(bench: &mut Bench, frame: [i16; CHANNELS]) -> Option<usize> {
        if !bench.stream.push_frame(frame) {
            return None;
        }
        let mut inputs = [0i32; MAX_INPUTS];
        let n = bench.model.n_inputs().min(MAX_INPUTS);
        for (i, slot) in inputs.iter_mut().enumerate().take(n) {
            match bench.stream.value(i) {
                Some(v) => *slot = v,
                None => qemu::exit(qemu::EXIT_BAD_INPUT),
            }
        }
        match bench.model.predict(&inputs[..n]) {
            Ok(class) => Some(class),
            Err(_) => qemu::exit(qemu::EXIT_BAD_INPUT),
        }
    }
}

#[cfg(ltu_bench_codegen)]
mod bench_model {
    use super::*;

    #[allow(dead_code, clippy::all)]
    mod generated {
        include!(concat!(env!("LTU_MODEL_DIR"), "/model.rs"));
    }

    pub struct Bench {
        #[cfg(ltu_bench_stream)]
        stream: generated::Stream,
    }

    /// Nothing to load: the model and its pipeline are code.
    pub fn load() -> Bench {
        Bench {
            #[cfg(ltu_bench_stream)]
            stream: generated::Stream::new(),
        }
    }

    #[cfg(not(ltu_bench_stream))]
    #[inline(never)]
    pub fn classify(_bench: &Bench, window: &Window) -> usize {
        generated::classify_window(black_box(window))
    }

    #[cfg(ltu_bench_stream)]
    #[inline(never)]
    pub fn push(bench: &mut Bench, frame: [i16; CHANNELS]) -> Option<usize> {
        bench.stream.push(black_box(&frame))
    }
}

#[cfg(ltu_bench_null)]
mod bench_model {
    use super::*;

    pub struct Bench;

    pub fn load() -> Bench {
        Bench
    }

    #[cfg(not(ltu_bench_stream))]
    #[inline(never)]
    pub fn classify(_bench: &Bench, window: &Window) -> usize {
        black_box(window);
        black_box(0)
    }

    #[cfg(ltu_bench_stream)]
    #[inline(never)]
    pub fn push(_bench: &mut Bench, frame: [i16; CHANNELS]) -> Option<usize> {
        black_box(frame);
        black_box(None)
    }
}

#[cfg(not(ltu_bench_stream))]
#[qemu::entry]
fn main() -> ! {
    let bench = bench_model::load();
    for w in 0..N_WINDOWS {
        let window: Window = core::array::from_fn(|c| core::array::from_fn(|t| sample(w * WINDOW + t, c)));
        let floor = paint();
        let caller_sp = sp();
        qemu::region_start();
        let class = bench_model::classify(&bench, &window);
        qemu::region_stop();
        let used = stack_used(floor, caller_sp);
        defmt::println!("p {=usize} {=usize}", class, used);
    }
    defmt::println!("done");
    qemu::exit(qemu::EXIT_OK)
}

#[cfg(ltu_bench_stream)]
#[qemu::entry]
fn main() -> ! {
    const FRAMES: usize = if STREAM_WINDOWS < N_WINDOWS { STREAM_WINDOWS } else { N_WINDOWS } * WINDOW;
    const READY: usize = if FRAMES < WINDOW { 0 } else { (FRAMES - WINDOW) / HOP + 1 };
    let mut bench = bench_model::load();
    let mut classes = [0usize; READY];
    let mut ready = 0;
    let floor = paint();
    let caller_sp = sp();
    for f in 0..FRAMES {
        let frame: [i16; CHANNELS] = core::array::from_fn(|c| sample(f, c));
        qemu::region_start();
        let class = bench_model::push(&mut bench, frame);
        qemu::region_stop();
        if let Some(class) = class {
            if let Some(slot) = classes.get_mut(ready) {
                *slot = class;
            }
            ready += 1;
        }
    }
    let used = stack_used(floor, caller_sp);
    if ready != READY {
        qemu::exit(qemu::EXIT_MISMATCH)
    }
    for class in classes {
        defmt::println!("p {=usize} {=usize}", class, used);
    }
    defmt::println!("done");
    qemu::exit(qemu::EXIT_OK)
}

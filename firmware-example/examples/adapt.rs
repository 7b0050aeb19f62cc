//! A firmware that adapts to a drifted sensor: `cargo xtask adapt` builds and runs it.
//!
//! The model was trained on the host from undrifted recordings. This device's accelerometer reads
//! differently (the xtask's scenario), so the firmware corrects the model in place with
//! `ltu_runtime::Learner` from labelled windows of the drifted sensor, and logs:
//!
//! - accuracy of the base model on held-back undrifted windows and on held-back drifted windows;
//! - each epoch over the update windows (learning stops after the first epoch without a mistake,
//!   or after `MAX_EPOCHS`), with one measured region around each update, after one measured
//!   region around one plain prediction of the same model (the instruction-count plugin counts
//!   them);
//! - accuracy on the held-back drifted windows after learning;
//! - the learned model's length and CRC, the RAM of the learner and the deepest stack of an update
//!   and of a prediction (painted);
//! - the learned model saved with the runtime's power-safe `Store` to a RAM-simulated NOR flash
//!   (`MemFlash`, pages of [`PAGE`] bytes), restored into a fresh learner over the same base model
//!   as after a reset, and compared byte for byte with the learner's model and the stored file.
//!
//! It exits 0 when the learned model's length and CRC are those the host computed for the same
//! updates (`expected.rs`) and the restored model is the learned one, `EXIT_MISMATCH` when not, `EXIT_BAD_INPUT` when the model or the
//! data are rejected. Every log line the xtask reads starts with `adapt`.
//!
//! Inputs come from the directory named by `LTU_MODEL_DIR` (the xtask writes them): `model.ltu`,
//! `update.bin`, `drifted.bin` and `clean.bin` (windows of `WINDOW` frames of `CHANNELS`
//! little-endian `i16` samples, back to back) with one class byte per window in
//! `<set>_labels.bin`, and `expected.rs`.
#![no_std]
#![no_main]

#[allow(dead_code)] // only the handlers, the markers, the exit codes and `exit` are used here
#[path = "../src/qemu.rs"]
mod qemu;
#[path = "../src/stack.rs"]
mod stack;

use ltu_runtime::learn::SLOT_HEADER_LEN;
use ltu_runtime::window::{compute_into, Stat, WindowFeature};
use ltu_runtime::{Learner, MemFlash, Model, Outcome, Slot, Store};

use stack::{paint, sp, stack_used};

include!(concat!(env!("LTU_MODEL_DIR"), "/expected.rs"));

/// Sensor channels per frame.
const CHANNELS: usize = 6;
/// Samples per window.
const WINDOW: usize = 100;
/// Most window statistics the model may read.
const MAX_INPUTS: usize = 64;
/// Bytes of one window.
const WINDOW_BYTES: usize = CHANNELS * WINDOW * 2;

/// Erase page of the simulated flash (an nRF51's, the micro:bit's chip).
const PAGE: usize = 1024;
/// Bytes of one of the store's two slots: its header and the model file, in whole pages.
const SLOT: usize = (SLOT_HEADER_LEN + EXPECTED_LEN).div_ceil(PAGE) * PAGE;
/// The simulated flash: the store's two slots.
type Flash = MemFlash<{ 2 * SLOT }, PAGE, 4>;
/// Bytes compared at a time.
const CHUNK: usize = 64;

/// The base model, read in place from flash.
static MODEL: &[u8] = include_bytes!(concat!(env!("LTU_MODEL_DIR"), "/model.ltu"));

/// Labelled windows.
struct Set {
    /// Frames, `WINDOW` per window.
    frames: &'static [u8],
    /// The class of each window.
    labels: &'static [u8],
}

impl Set {
    /// Windows in the set; exits if frames and labels disagree.
    fn len(&self) -> usize {
        if self.frames.len() != self.labels.len() * WINDOW_BYTES {
            defmt::error!(
                "{=usize} bytes of frames for {=usize} labels",
                self.frames.len(),
                self.labels.len()
            );
            qemu::exit(qemu::EXIT_BAD_INPUT)
        }
        self.labels.len()
    }

    /// Window `w` as channels of samples, and its class.
    fn window(&self, w: usize) -> ([[i16; WINDOW]; CHANNELS], usize) {
        let bytes = &self.frames[w * WINDOW_BYTES..(w + 1) * WINDOW_BYTES];
        let window = core::array::from_fn(|c| {
            core::array::from_fn(|t| {
                let i = (t * CHANNELS + c) * 2;
                i16::from_le_bytes([bytes[i], bytes[i + 1]])
            })
        });
        (window, usize::from(self.labels[w]))
    }
}

/// Drifted windows the device learns from.
static UPDATE: Set = Set {
    frames: include_bytes!(concat!(env!("LTU_MODEL_DIR"), "/update.bin")),
    labels: include_bytes!(concat!(env!("LTU_MODEL_DIR"), "/update_labels.bin")),
};
/// Held-back drifted windows.
static DRIFTED: Set = Set {
    frames: include_bytes!(concat!(env!("LTU_MODEL_DIR"), "/drifted.bin")),
    labels: include_bytes!(concat!(env!("LTU_MODEL_DIR"), "/drifted_labels.bin")),
};
/// Held-back undrifted windows.
static CLEAN: Set = Set {
    frames: include_bytes!(concat!(env!("LTU_MODEL_DIR"), "/clean.bin")),
    labels: include_bytes!(concat!(env!("LTU_MODEL_DIR"), "/clean_labels.bin")),
};

/// The channels of a window as the runtime takes them.
fn channels(window: &[[i16; WINDOW]; CHANNELS]) -> [&[i16]; CHANNELS] {
    core::array::from_fn(|c| &window[c][..])
}

/// Logs and returns how many windows of `set` the model classifies correctly.
fn accuracy(model: &Model<'_>, set: &Set, name: &str) -> usize {
    let mut correct = 0;
    for w in 0..set.len() {
        let (window, label) = set.window(w);
        match model.predict_window(&channels(&window)) {
            Ok(class) => correct += usize::from(class == label),
            Err(e) => {
                defmt::error!("predict on {=str} window {=usize}: {}", name, w, e);
                qemu::exit(qemu::EXIT_BAD_INPUT)
            }
        }
    }
    defmt::info!("adapt accuracy set={=str} correct={=usize} windows={=usize}", name, correct, set.len());
    correct
}

/// The window statistics the model reads, as the pipeline computes them.
struct Statistics {
    features: [WindowFeature; MAX_INPUTS],
    n: usize,
}

impl Statistics {
    fn of(model: &Model<'_>) -> Statistics {
        let Some(pipeline) = model.pipeline() else {
            defmt::error!("the model has no sensor pipeline");
            qemu::exit(qemu::EXIT_BAD_INPUT)
        };
        let n = model.n_inputs();
        if pipeline.n_channels() != CHANNELS || !matches!(pipeline.window(), 0 | WINDOW) || n > MAX_INPUTS {
            defmt::error!("the model's pipeline does not fit the firmware's windows");
            qemu::exit(qemu::EXIT_BAD_INPUT)
        }
        let mut features = [WindowFeature::whole(0, Stat::Mean); MAX_INPUTS];
        for (i, slot) in features.iter_mut().enumerate().take(n) {
            // The loader checked that the pipeline describes every input.
            if let Some(f) = pipeline.feature(i) {
                *slot = f;
            }
        }
        Statistics { features, n }
    }

    /// The model's inputs of one window into `out[..n]`.
    fn compute<'a>(&self, window: &[[i16; WINDOW]; CHANNELS], out: &'a mut [i32; MAX_INPUTS]) -> &'a [i32] {
        let out = &mut out[..self.n];
        if let Err(e) = compute_into(&self.features[..self.n], &channels(window), out) {
            defmt::error!("window statistics: {}", e);
            qemu::exit(qemu::EXIT_BAD_INPUT)
        }
        out
    }
}

/// Whether `learner`'s model file is, byte for byte, the file stored in `slot`.
fn same_as_stored(learner: &Learner<'_, '_>, store: &mut Store<&mut Flash>, slot: &Slot) -> bool {
    if slot.len != learner.file_len() {
        return false;
    }
    let mut at = 0;
    let mut stored = [0u8; CHUNK];
    learner
        .write_file(|mut piece: &[u8]| {
            while !piece.is_empty() {
                let n = piece.len().min(CHUNK);
                store.read(slot, at, &mut stored[..n]).map_err(|_| ())?;
                if stored[..n] != piece[..n] {
                    return Err(());
                }
                at += n;
                piece = &piece[n..];
            }
            Ok(())
        })
        .is_ok()
        && at == slot.len
}

/// Saves the learned model with the store, restores it into a fresh learner over the same base
/// model (as after a reset) and checks that the stored file, the learned model and the restored
/// one are the same bytes. Its own frame, so that the simulated flash is not on the stack while
/// learning.
#[inline(never)]
fn save_and_restore(learner: &Learner<'_, '_>) -> bool {
    let mut flash = Flash::new();
    let mut store = match Store::new(&mut flash, 0, SLOT as u32) {
        Ok(store) => store,
        Err(e) => {
            defmt::error!("Store::new: {}", e);
            qemu::exit(qemu::EXIT_BAD_INPUT)
        }
    };
    let saved = match store.save(learner) {
        Ok(slot) => slot,
        Err(e) => {
            defmt::error!("save: {}", e);
            return false;
        }
    };
    let mut ram = [0u8; LEARN_RAM];
    let Ok(mut restored) = Learner::new(MODEL, &mut ram) else { return false };
    let slot = match store.restore(&mut restored) {
        Ok(Some(slot)) => slot,
        Ok(None) => {
            defmt::error!("restore found no saved model");
            return false;
        }
        Err(e) => {
            defmt::error!("restore: {}", e);
            return false;
        }
    };
    let equal = slot == saved
        && restored.crc() == learner.crc()
        && same_as_stored(learner, &mut store, &slot)
        && same_as_stored(&restored, &mut store, &slot);
    defmt::info!(
        "adapt store equal={=u8} slot={=usize} seq={=u32} bytes={=usize} pages_erased={=usize} words_written={=usize}",
        u8::from(equal),
        slot.index,
        slot.seq,
        slot.len,
        Store::<&mut Flash>::pages_per_save(slot.len),
        Store::<&mut Flash>::words_per_save(slot.len)
    );
    equal
}

#[qemu::entry]
fn main() -> ! {
    let model = match Model::from_bytes(MODEL) {
        Ok(model) => model,
        Err(e) => {
            defmt::error!("model rejected: {}", e);
            qemu::exit(qemu::EXIT_BAD_INPUT)
        }
    };
    defmt::info!(
        "adapt model bytes={=usize} inputs={=usize} classes={=usize}",
        MODEL.len(),
        model.n_inputs(),
        model.n_classes()
    );
    let statistics = Statistics::of(&model);
    accuracy(&model, &CLEAN, "undrifted");
    accuracy(&model, &DRIFTED, "before");

    // One plain prediction of the base model, for comparison with an update: the first region.
    let mut inputs = [0i32; MAX_INPUTS];
    let (first, _) = UPDATE.window(0);
    let x = statistics.compute(&first, &mut inputs);
    let floor = paint();
    let caller_sp = sp();
    qemu::region_start();
    let predicted = model.predict(x);
    qemu::region_stop();
    let predict_stack = stack_used(floor, caller_sp);
    if let Err(e) = predicted {
        defmt::error!("predict: {}", e);
        qemu::exit(qemu::EXIT_BAD_INPUT)
    }

    // The learner's RAM: the model's weight table, sized on the host by `Learner::ram_needed`.
    let mut ram = [0u8; LEARN_RAM];
    let mut learner = match Learner::new(MODEL, &mut ram) {
        Ok(learner) => learner,
        Err(e) => {
            defmt::error!("Learner::new: {}", e);
            qemu::exit(qemu::EXIT_BAD_INPUT)
        }
    };
    let mut update_stack = 0;
    for epoch in 1..=MAX_EPOCHS {
        let mut mistakes = 0;
        for w in 0..UPDATE.len() {
            let (window, label) = UPDATE.window(w);
            let x = statistics.compute(&window, &mut inputs);
            let floor = paint();
            let caller_sp = sp();
            qemu::region_start();
            let outcome = learner.update(x, label);
            qemu::region_stop();
            update_stack = update_stack.max(stack_used(floor, caller_sp));
            match outcome {
                Ok(Outcome::Correct) => {}
                Ok(_) => mistakes += 1,
                Err(e) => {
                    defmt::error!("update with window {=usize}: {}", w, e);
                    qemu::exit(qemu::EXIT_BAD_INPUT)
                }
            }
        }
        defmt::info!(
            "adapt epoch n={=usize} mistakes={=usize} updates={=usize}",
            epoch,
            mistakes,
            UPDATE.len()
        );
        if mistakes == 0 {
            break;
        }
    }
    accuracy(&learner.model(), &DRIFTED, "after");

    let (len, crc) = (learner.file_len(), learner.crc());
    defmt::info!(
        "adapt learned len={=usize} crc={=u32:#010x} host_len={=usize} host_crc={=u32:#010x}",
        len,
        crc,
        EXPECTED_LEN,
        EXPECTED_CRC
    );
    defmt::info!(
        "adapt ram buffer={=usize} learner={=usize} model={=usize}",
        LEARN_RAM,
        core::mem::size_of_val(&learner),
        core::mem::size_of::<Model>()
    );
    defmt::info!("adapt stack update={=usize} predict={=usize}", update_stack, predict_stack);
    let restored = save_and_restore(&learner);
    if (len, crc) != (EXPECTED_LEN, EXPECTED_CRC) {
        defmt::error!("the learned model differs from the host's");
        qemu::exit(qemu::EXIT_MISMATCH)
    }
    if !restored {
        defmt::error!("the model restored from flash differs from the learned one");
        qemu::exit(qemu::EXIT_MISMATCH)
    }
    defmt::info!("the learned model is the host's, byte for byte, and survives a save and a restore");
    qemu::exit(qemu::EXIT_OK)
}

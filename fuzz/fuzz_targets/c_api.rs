//! Drives the C API (`ltu-runtime-c`) through its `extern "C"` functions with arbitrary model
//! bytes, inputs, buffer lengths and samples. Nothing may panic (a panic cannot cross into C), and
//! every answer must match the Rust runtime's.
//!
//! Input layout: as `from_bytes_predict` (`flags: u8`, `len: u16 LE`, `len` model bytes, then
//! `i32 LE` values), where `flags` also picks the argument shapes: bit 1 shortens the inputs by
//! one, bit 2 the scores buffer, bit 3 makes the lazy source run dry half-way, bits 4 and 5 pick
//! the window length (the values' count, 0, 1 or 4097 samples), bit 6 passes one channel too
//! many, and bits 6 and 7 give the class-name buffer 0 to 3 bytes beyond the name. If `flags & 1`, the magic, version and CRC-32 are repaired before loading.
//!
//! A valid model also learns, through `ltu_learner_*` and the runtime's `Learner` side by side:
//! from the inputs and from the window with a label from the first value (sometimes out of
//! range), with RAM one byte short if bit 2 is set; statuses, outcomes, units and the learned
//! files must agree.
#![no_main]

use std::ffi::c_void;
use std::mem::MaybeUninit;

mod input;

use libfuzzer_sys::fuzz_target;
use ltu_c::{
    ltu_learner, ltu_learner_crc, ltu_learner_init, ltu_learner_ram_needed, ltu_learner_update,
    ltu_learner_update_window, ltu_learner_write_file, ltu_model, ltu_model_class_name, ltu_model_init,
    ltu_model_n_channels, ltu_model_n_classes, ltu_model_n_inputs, ltu_predict, ltu_predict_lazy,
    ltu_predict_scores, ltu_predict_window, ltu_status, ltu_status_raw, LTU_NO_UNIT,
};
use ltu_runtime::{Learner, Model, Outcome};

/// `ltu_predict_lazy`'s context: the inputs and how many of them are available.
struct Source<'a> {
    x: &'a [i32],
    available: usize,
}

unsafe extern "C" fn input(context: *mut c_void, index: usize, value_out: *mut i32) -> ltu_status_raw {
    // SAFETY: `context` is the `Source` passed below; `value_out` is the library's local.
    let s = unsafe { &*context.cast::<Source<'_>>() };
    match s.x.get(index) {
        Some(&v) if index < s.available => {
            unsafe { value_out.write(v) };
            ltu_status_raw(0)
        }
        _ => ltu_status_raw(ltu_status::LTU_ERR_PREDICT_INPUT_UNAVAILABLE as u32),
    }
}

fn status<T>(r: Result<T, ltu_runtime::Error>) -> ltu_status {
    r.map_or_else(ltu_status::from, |_| ltu_status::LTU_OK)
}

/// `ltu_learner_write_file`'s sink: appends to the `Vec<u8>` at `user`.
unsafe extern "C" fn collect(user: *mut c_void, data: *const u8, len: usize) -> std::ffi::c_int {
    // SAFETY: `user` is the `Vec` passed below; `data` holds `len` bytes during the call.
    unsafe { (*user.cast::<Vec<u8>>()).extend_from_slice(std::slice::from_raw_parts(data, len)) };
    0
}

/// `ltu_outcome`'s number and the unit of an outcome.
fn c_outcome(o: Outcome) -> (u32, u32) {
    match o {
        Outcome::Correct => (0, LTU_NO_UNIT),
        Outcome::Corrected { unit } => (1, unit.into()),
        Outcome::Clipped { unit } => (2, unit.into()),
        Outcome::Saturated { unit } => (3, unit.into()),
        Outcome::Constant => (4, LTU_NO_UNIT),
        Outcome::Unlearnable => (5, LTU_NO_UNIT),
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((flags, model_bytes, rest)) = input::split(data) else {
        return;
    };
    let rust = Model::from_bytes(&model_bytes);
    let mut storage = MaybeUninit::<ltu_model>::zeroed();
    let m = storage.as_mut_ptr();
    // SAFETY (every call below): `m` is aligned storage for an `ltu_model`, `model_bytes` outlives
    // it, and every pointer passed comes from a live slice of at least the length passed with it.
    let init = unsafe { ltu_model_init(m, model_bytes.as_ptr(), model_bytes.len()) };
    assert_eq!(init, status(rust));
    let values: Vec<i32> =
        rest.chunks_exact(4).map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    let Ok(model) = rust else {
        let mut class = 0u32;
        let r = unsafe { ltu_predict(m, values.as_ptr(), values.len(), &mut class) };
        assert_eq!(r, ltu_status::LTU_ERR_MODEL_UNINITIALISED);
        return;
    };
    let n = model.n_inputs();
    let k = model.n_classes();
    assert_eq!(unsafe { (ltu_model_n_inputs(m), ltu_model_n_classes(m)) }, (n, k));
    let mut x: Vec<i32> =
        (0..n).map(|i| if values.is_empty() { 0 } else { values[i % values.len()] }).collect();
    if flags & 2 != 0 {
        x.pop();
    }

    let mut class = u32::MAX;
    let r = unsafe { ltu_predict(m, x.as_ptr(), x.len(), &mut class) };
    let want = model.predict(&x);
    assert_eq!(r, status(want));
    if let Ok(c) = want {
        assert_eq!(class as usize, c);
    }

    let mut scores = vec![0i64; if flags & 4 != 0 { k - 1 } else { k + 1 }];
    let mut rust_scores = scores.clone();
    let mut class2 = u32::MAX;
    let r =
        unsafe { ltu_predict_scores(m, x.as_ptr(), x.len(), scores.as_mut_ptr(), scores.len(), &mut class2) };
    let want = model.predict_scores(&x, &mut rust_scores);
    assert_eq!(r, status(want));
    if let Ok(c) = want {
        assert_eq!((class2 as usize, &scores[..k]), (c, &rust_scores[..k]));
    }

    let available = if flags & 8 != 0 { x.len() / 2 } else { x.len() };
    let mut source = Source { x: &x, available };
    let mut class3 = u32::MAX;
    let r = unsafe { ltu_predict_lazy(m, Some(input), (&mut source as *mut Source<'_>).cast(), &mut class3) };
    let want = model.predict_with(|i| x.get(i).copied().filter(|_| i < available));
    assert_eq!(r, status(want));
    if let Ok(c) = want {
        assert_eq!(class3 as usize, c);
    }

    // Class names, into a buffer of the name's length plus 0 to 3 bytes (1 or more fit).
    for c in 0..=k {
        let name = model.names().map_or("", |n| n.class(c));
        let mut buf = vec![0x55 as std::ffi::c_char; name.len() + usize::from(flags >> 6)];
        let r = unsafe { ltu_model_class_name(m, c, buf.as_mut_ptr(), buf.len()) };
        if c == k {
            assert_eq!(r, ltu_status::LTU_ERR_CLASS_OUT_OF_RANGE);
        } else if buf.len() > name.len() {
            assert_eq!(r, ltu_status::LTU_OK);
            let got: Vec<u8> = buf[..name.len()].iter().map(|&b| b as u8).collect();
            assert_eq!((got.as_slice(), buf[name.len()]), (name.as_bytes(), 0));
        } else {
            assert_eq!(r, ltu_status::LTU_ERR_BUFFER_TOO_SMALL);
            assert!(buf.iter().all(|&b| b == 0x55));
        }
    }

    // Windows: the values' low halves as samples, `per` per channel.
    let channels = unsafe { ltu_model_n_channels(m) } + usize::from(flags & 64 != 0);
    let per = match (flags >> 4) & 3 {
        0 => values.len() / channels.max(1),
        1 => 0,
        2 => 1,
        _ => 4097,
    };
    let samples: Vec<i16> =
        (0..channels * per).map(|i| values.get(i % values.len().max(1)).map_or(0, |&v| v as i16)).collect();
    let mut class4 = u32::MAX;
    let r = unsafe { ltu_predict_window(m, samples.as_ptr(), channels, per, &mut class4) };
    let rows: Vec<&[i16]> = samples.chunks(per.max(1)).take(channels).collect();
    let rows: Vec<&[i16]> = if per == 0 { vec![&[][..]; channels] } else { rows };
    let want = model.predict_window(&rows);
    assert_eq!(r, status(want));
    if let Ok(c) = want {
        assert_eq!(class4 as usize, c);
    }

    // Learning: the C learner and the Rust one, side by side.
    let mut needed = 0usize;
    let r = unsafe { ltu_learner_ram_needed(model_bytes.as_ptr(), model_bytes.len(), &mut needed) };
    assert_eq!((r, needed), (ltu_status::LTU_OK, Learner::ram_needed(&model_bytes).unwrap()));
    let short = usize::from(flags & 4 != 0 && needed > 0);
    let (mut c_ram, mut rust_ram) = (vec![0u8; needed - short], vec![0u8; needed - short]);
    let mut l = MaybeUninit::<ltu_learner>::zeroed();
    let lp = l.as_mut_ptr();
    let r = unsafe {
        ltu_learner_init(lp, model_bytes.as_ptr(), model_bytes.len(), c_ram.as_mut_ptr(), c_ram.len())
    };
    let rust = Learner::new(&model_bytes, &mut rust_ram);
    assert_eq!(r, status(rust.as_ref().map(|_| ()).map_err(|e| *e)));
    let Ok(mut rust) = rust else { return };
    let label = values.first().map_or(0, |&v| v.unsigned_abs() % (k as u32 + 1));
    let (mut outcome, mut unit) = (u32::MAX, 0u32);
    let r = unsafe { ltu_learner_update(lp, x.as_ptr(), x.len(), label, &mut outcome, &mut unit) };
    let want = rust.update(&x, label as usize);
    assert_eq!(r, status(want));
    if let Ok(o) = want {
        assert_eq!((outcome, unit), c_outcome(o));
    }
    let r = unsafe {
        ltu_learner_update_window(lp, samples.as_ptr(), channels, per, label, &mut outcome, &mut unit)
    };
    let want = rust.update_window(&rows, label as usize);
    assert_eq!(r, status(want));
    if let Ok(o) = want {
        assert_eq!((outcome, unit), c_outcome(o));
    }
    let mut crc = 0u32;
    assert_eq!(unsafe { ltu_learner_crc(lp, &mut crc) }, ltu_status::LTU_OK);
    assert_eq!(crc, rust.crc());
    let mut file = Vec::new();
    let r = unsafe { ltu_learner_write_file(lp, Some(collect), (&mut file as *mut Vec<u8>).cast()) };
    assert_eq!(r, ltu_status::LTU_OK);
    let mut want_file = Vec::new();
    rust.write_file(|p| {
        want_file.extend_from_slice(p);
        Ok::<(), ()>(())
    })
    .unwrap();
    assert_eq!(file, want_file);
});

//! What a model accepts as input, and a record of which inputs an evaluation read.

use fixed::types::extra::{LeEqU16, LeEqU32};
use fixed::{FixedI16, FixedI32};

/// A value that can be fed to a model as one raw input.
///
/// Numeric inputs are integers in the model's raw unit (for example ADC counts, or the decimal
/// scale the trainer recorded per input); categorical inputs are value indices. Fixed-point
/// numbers are passed as their raw bits, so a model meant for `I16F16` inputs was trained on
/// values scaled by 2^16.
pub trait Input: Copy {
    /// The raw integer the model sees.
    fn to_raw(self) -> i32;
}

macro_rules! lossless_input {
    ($($t:ty),*) => {$(
        impl Input for $t {
            #[inline]
            fn to_raw(self) -> i32 {
                i32::from(self)
            }
        }
    )*};
}

lossless_input!(i8, u8, i16, u16, i32);

impl<Frac: LeEqU16> Input for FixedI16<Frac> {
    #[inline]
    fn to_raw(self) -> i32 {
        i32::from(self.to_bits())
    }
}

impl<Frac: LeEqU32> Input for FixedI32<Frac> {
    #[inline]
    fn to_raw(self) -> i32 {
        self.to_bits()
    }
}

/// The distinct inputs an evaluation asked for, in first-read order, up to `N` of them.
///
/// A tree reads only the inputs on its path; on a device this tells which sensors needed
/// powering. Wrap an input source with [`InputsRead::track`]:
///
/// ```
/// # use ltu_runtime::InputsRead;
/// let mut read = InputsRead::<8>::new();
/// let sensors = [10i16, 20, 30];
/// let mut source = read.track(|i| sensors.get(i).copied());
/// assert_eq!(source(2), Some(30));
/// assert_eq!(source(2), Some(30));
/// drop(source);
/// assert_eq!(read.as_slice(), &[2]);
/// ```
#[derive(Debug, Clone, Default)]
pub struct InputsRead<const N: usize> {
    read: heapless::Vec<u16, N>,
    overflowed: bool,
}

impl<const N: usize> InputsRead<N> {
    /// An empty record.
    pub const fn new() -> Self {
        InputsRead { read: heapless::Vec::new(), overflowed: false }
    }

    /// Notes that input `index` was read.
    pub fn record(&mut self, index: usize) {
        let index = index.min(u16::MAX as usize) as u16;
        if !self.read.contains(&index) && self.read.push(index).is_err() {
            self.overflowed = true;
        }
    }

    /// Wraps an input source so that every read is recorded here.
    pub fn track<'s, T, F>(&'s mut self, mut source: F) -> impl FnMut(usize) -> Option<T> + 's
    where
        F: FnMut(usize) -> Option<T> + 's,
    {
        move |i| {
            self.record(i);
            source(i)
        }
    }

    /// The inputs read, in first-read order.
    pub fn as_slice(&self) -> &[u16] {
        &self.read
    }

    /// Whether more than `N` distinct inputs were read (the extra ones are not listed).
    pub fn overflowed(&self) -> bool {
        self.overflowed
    }

    /// Forgets every recorded read.
    pub fn clear(&mut self) {
        self.read.clear();
        self.overflowed = false;
    }
}

//! Two flash slots that keep the last good model file through any power cut: [`Store`], and
//! [`MemFlash`], a simulated flash with power cuts for tests.

use embedded_storage::nor_flash::{
    check_erase, check_read, check_write, ErrorType, NorFlash, NorFlashError, NorFlashErrorKind, ReadNorFlash,
};

use super::Learner;
use crate::format::{Crc32, CHECKSUM_LEN};

/// The first four bytes of a valid slot.
pub const SLOT_MAGIC: [u8; 4] = *b"LTUS";

/// Bytes of a slot header before its padding: magic, sequence number, length, CRC-32.
pub const SLOT_HEADER_LEN: usize = 16;

/// The largest `WRITE_SIZE` and `READ_SIZE` the store supports.
const MAX_WORD: usize = 32;

/// Bytes of the stack buffer every read and write goes through.
const CHUNK: usize = 64;

/// A model file that [`Store::save`] can stream to flash without holding it whole in RAM.
pub trait Image {
    /// Length of the file in bytes.
    fn len(&self) -> usize;

    /// Whether the file has no bytes (such an image is never saved).
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Gives the file's bytes to `sink`, in order, in pieces of any size; stops at `sink`'s first
    /// error and returns it.
    ///
    /// # Errors
    /// The first error of `sink`.
    fn write<E>(&self, sink: impl FnMut(&[u8]) -> Result<(), E>) -> Result<(), E>;
}

/// The learned model file, streamed by [`Learner::write_file`]: `store.save(&learner)`.
impl Image for Learner<'_, '_> {
    fn len(&self) -> usize {
        self.file_len()
    }

    fn write<E>(&self, sink: impl FnMut(&[u8]) -> Result<(), E>) -> Result<(), E> {
        self.write_file(sink)
    }
}

impl Image for [u8] {
    fn len(&self) -> usize {
        <[u8]>::len(self)
    }

    fn write<E>(&self, mut sink: impl FnMut(&[u8]) -> Result<(), E>) -> Result<(), E> {
        sink(self)
    }
}

/// What went wrong in a [`Store`] operation. `E` is the flash driver's error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum StoreError<E> {
    /// The flash driver failed (for a real driver: a bus or programming error; for
    /// [`MemFlash`]: a simulated power cut).
    Flash(E),
    /// The flash's `WRITE_SIZE` or `READ_SIZE` is 0, larger than 32 bytes, or does not divide
    /// its `ERASE_SIZE`.
    LayoutWordSize,
    /// `offset` or `slot_size` is not a multiple of the flash's `ERASE_SIZE`.
    LayoutUnaligned,
    /// The two slots do not fit in the flash, or end at 4 GiB or beyond (flash addresses are `u32`).
    LayoutOutOfBounds,
    /// A slot cannot hold its header and a smallest model file.
    LayoutSlotTooSmall,
    /// The image is longer than a slot's [`capacity`](Store::capacity).
    TooLarge,
    /// The image gave a different number of bytes than its `len()`. Nothing was committed.
    ImageLength,
    /// The image is shorter than a CRC-32 or its last four bytes are not the CRC-32 of the rest:
    /// it is not a model file. Nothing was committed.
    ImageChecksum,
    /// The header was written but the slot does not read back valid (the flash did not keep what
    /// was written). The previous model is still the latest.
    Verify,
    /// A [`Store::read`] outside the slot's file, or a [`Slot`] no [`Store`] of this layout returns.
    ReadOutOfRange,
    /// [`Store::restore`]: the stored model was learned from another base model (its length, or a
    /// byte outside the weight table, differs from the learner's model file). The learner is
    /// unchanged.
    RestoreOtherBase,
    /// [`Store::restore`]: the stored weights fail the loader's checks
    /// ([`Error::AccumulatorMayOverflow`](crate::Error::AccumulatorMayOverflow)); the learner has
    /// its base model's weights.
    RestoreModel(crate::Error),
}

/// A valid slot, as [`Store::latest`] and [`Store::save`] return it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Slot {
    /// 0 or 1.
    pub index: usize,
    /// Sequence number: each save writes the latest's plus one (wrapping).
    pub seq: u32,
    /// Length of the model file in bytes.
    pub len: usize,
}

/// Two power-safe slots for a model file in NOR flash.
///
/// It works over any [`NorFlash`] (every HAL flash driver implementing
/// `embedded-storage` 0.3), so the same code runs on a device and, over [`MemFlash`], in tests.
///
/// # Slot layout
///
/// The store owns `2 * slot_size` bytes of flash from `offset`: slot 0 at `offset`, slot 1 at
/// `offset + slot_size`, both aligned to the flash's `ERASE_SIZE`. A slot is a header followed by a
/// model file:
///
/// | bytes (from the slot's start)  | field                                                       |
/// |--------------------------------|-------------------------------------------------------------|
/// | `0..4`                         | [`SLOT_MAGIC`], `b"LTUS"`                                   |
/// | `4..8`                         | sequence number, `u32` little-endian                        |
/// | `8..12`                        | file length `len`, `u32` little-endian                      |
/// | `12..16`                       | CRC-32 ([`crc32`](crate::format::crc32)) over bytes `4..12` followed by the file |
/// | `16..header_area`              | `0xFF` padding up to a whole number of `WRITE_SIZE` words   |
/// | `header_area..header_area+len` | the model file (which ends with its own CRC-32)             |
///
/// `header_area` is [`SLOT_HEADER_LEN`] rounded up to `WRITE_SIZE` ([`Self::HEADER_AREA`]); the file's
/// last word is padded with `0xFF`.
///
/// A slot is **valid** iff its magic matches, `4 <= len <= capacity`, the header's CRC matches
/// the sequence number, length and file, and the file's own trailing CRC-32 matches the file.
/// [`Self::latest`] returns the valid slot with the newer sequence number (compared with
/// wrapping arithmetic, so the count may wrap past `u32::MAX`), or `None` if neither is valid: the
/// firmware then uses its built-in model.
///
/// # Write order, and why a power cut never loses the last good model
///
/// [`Self::save`] writes the new file into the slot that does *not* hold the latest valid model
/// (the older or an invalid one), with sequence number latest + 1:
///
/// 1. erase the pages the slot's header and the new file need,
/// 2. write the file,
/// 3. check that the streamed file's own CRC matches (else stop: the image is not a model file),
/// 4. write the header, **last**,
/// 5. read the slot back and check it is valid.
///
/// The slot holding the latest valid model is never erased or written, so it stays valid, and
/// the newest valid slot, until the new header is complete. The target slot cannot become valid
/// before both its file and its header are complete: before step 4 its header is erased or torn
/// (magic or CRC fails), or, after a cut during the erase, still the header of the model it held
/// before; that header's CRC covers bytes the erase may have changed, and where they are all
/// intact it carries a sequence number older than the latest's, so it loses. A cut during step 4
/// leaves the header torn (magic or CRC fails) or complete, and then the file written before it
/// is complete too. So a cut at any point leaves either the previous model or the new one, byte
/// for byte; `runtime/tests/store.rs` cuts saves after every single word written and page erased,
/// over several word and page sizes, and checks exactly that. (The header's CRC covers the file,
/// so it would also reject a torn file written after its header; writing the header last means
/// no torn file is ever a candidate at all, whatever the CRC's odds.)
///
/// Nothing is ever written twice without an erase in between, as NOR flash requires.
///
/// # Flash wear per save
///
/// A save of a `len`-byte file erases [`Self::pages_per_save`]`(len)` pages,
/// `ceil((header_area + len) / ERASE_SIZE)`, and programs [`Self::words_per_save`]`(len)` words,
/// `header_area / WRITE_SIZE + ceil(len / WRITE_SIZE)`. As saves alternate between the two slots,
/// each page of a slot is erased once per two saves: with flash rated for 10,000 erase cycles a
/// device can save 20,000 times. Saving every N updates (not after each one) is how a firmware
/// keeps this in budget.
///
/// # RAM and stack
///
/// A [`Store`] holds the flash driver and two `u32`s. Reads go through one 64-byte stack buffer in
/// chunks, writes through another; with the 16 to 32-byte header, [`Self::save`] keeps about
/// 200 bytes of buffers on the stack, and no buffer the size of a model, so its stack use does not
/// depend on the model's size (on x86_64, 663 bytes from the caller down to the flash driver for
/// a 96-byte and for a 4,000-byte file: `stack_use_does_not_depend_on_the_model_size` in
/// `runtime/tests/store.rs`). Checking a slot reads it once; [`Self::latest`] reads both slots, and [`Self::save`] reads both slots before writing
/// and the written slot after.
///
/// # Example
///
/// On a device the flash is the HAL's driver (any [`NorFlash`]: the nRF52's `Nvmc`, an STM32
/// HAL's `Flash`, ...) and the slots are pages the linker script keeps out of the program; here
/// it is a [`MemFlash`]. The base model stays in the program's flash; the learner keeps its
/// weights in RAM and the store keeps the learned model across resets and power cuts.
///
/// ```
/// use ltu_runtime::{Learner, MemFlash, MemFlashError, Model, Store, StoreError};
///
/// const BASE: &[u8] = include_bytes!("../../../tests/golden/list.ltu");
/// let mut flash = MemFlash::<8192, 1024, 4>::new();
/// let mut store = Store::new(&mut flash, 4096, 2048)?;
/// let mut ram = [0u8; 64];
/// let mut learner = Learner::new(BASE, &mut ram).expect("the base model loads");
///
/// // At boot: the model learned before the last reset, if one was saved (else the base model).
/// assert_eq!(store.restore(&mut learner)?, None);
///
/// // Learn from labelled inputs, saving every 4 updates (flash wear: see above).
/// let labelled = [([3, -2], 1), ([-5, 4], 0), ([7, 7], 1), ([0, -9], 0)];
/// for (i, (x, label)) in labelled.iter().cycle().take(8).enumerate() {
///     learner.update(x, *label).expect("inputs of the model's length, a label below its classes");
///     if (i + 1) % 4 == 0 {
///         store.save(&learner)?;
///     }
/// }
///
/// // After a reset: a fresh learner over the same base model gets the saved weights back.
/// let mut ram2 = [0u8; 64];
/// let mut restored = Learner::new(BASE, &mut ram2).expect("the base model loads");
/// let slot = store.restore(&mut restored)?.expect("a model was saved");
/// assert_eq!(restored.crc(), learner.crc());
///
/// // The stored bytes are a model file like any other.
/// let mut file = [0u8; 2048];
/// store.read(&slot, 0, &mut file[..slot.len])?;
/// assert!(Model::from_bytes(&file[..slot.len]).is_ok());
/// # Ok::<(), StoreError<MemFlashError>>(())
/// ```
#[derive(Debug)]
pub struct Store<F> {
    flash: F,
    offset: u32,
    slot_size: u32,
}

impl<F: NorFlash> Store<F> {
    /// Bytes of a slot before its file: [`SLOT_HEADER_LEN`] rounded up to a whole number of words.
    pub const HEADER_AREA: usize = round_up(SLOT_HEADER_LEN, F::WRITE_SIZE);

    /// A store using the `2 * slot_size` bytes of `flash` from `offset`. Nothing is read or
    /// written yet.
    ///
    /// # Errors
    /// [`StoreError::LayoutWordSize`], [`StoreError::LayoutUnaligned`],
    /// [`StoreError::LayoutOutOfBounds`], [`StoreError::LayoutSlotTooSmall`].
    pub fn new(flash: F, offset: u32, slot_size: u32) -> Result<Self, StoreError<F::Error>> {
        let (write, read, erase) = (F::WRITE_SIZE, F::READ_SIZE, F::ERASE_SIZE);
        if !(1..=MAX_WORD).contains(&write)
            || !(1..=MAX_WORD).contains(&read)
            || erase == 0
            || erase % write != 0
            || erase % read != 0
        {
            return Err(StoreError::LayoutWordSize);
        }
        if !(offset as usize).is_multiple_of(erase) || !(slot_size as usize).is_multiple_of(erase) {
            return Err(StoreError::LayoutUnaligned);
        }
        let end = u64::from(offset) + 2 * u64::from(slot_size);
        let capacity = u64::try_from(flash.capacity()).unwrap_or(u64::MAX);
        // Every address up to and including `end` must be a `u32`.
        if end > capacity || end > u64::from(u32::MAX) {
            return Err(StoreError::LayoutOutOfBounds);
        }
        if (slot_size as usize) < Self::HEADER_AREA + CHECKSUM_LEN {
            return Err(StoreError::LayoutSlotTooSmall);
        }
        Ok(Self { flash, offset, slot_size })
    }

    /// The flash driver, back.
    pub fn into_inner(self) -> F {
        self.flash
    }

    /// The longest model file a slot holds.
    pub fn capacity(&self) -> usize {
        self.slot_size as usize - Self::HEADER_AREA
    }

    /// Pages a save of a `len`-byte file erases (see [flash wear](Store#flash-wear-per-save)).
    pub const fn pages_per_save(len: usize) -> usize {
        words(Self::HEADER_AREA + len, F::ERASE_SIZE)
    }

    /// Words of `WRITE_SIZE` bytes a save of a `len`-byte file programs: its header area and its
    /// file.
    pub const fn words_per_save(len: usize) -> usize {
        words(Self::HEADER_AREA, F::WRITE_SIZE) + words(len, F::WRITE_SIZE)
    }

    /// The valid slot with the newest sequence number, or `None` if neither slot is valid (no
    /// model saved yet, or the very first save was cut).
    ///
    /// # Errors
    /// [`StoreError::Flash`] if the flash cannot be read.
    pub fn latest(&mut self) -> Result<Option<Slot>, StoreError<F::Error>> {
        let a = self.check(0)?;
        let b = self.check(1)?;
        Ok(match (a, b) {
            (Some(a), Some(b)) => Some(if newer(b.seq, a.seq) { b } else { a }),
            (a, b) => a.or(b),
        })
    }

    /// Reads `buf.len()` bytes of `slot`'s file from byte `at` into `buf`.
    ///
    /// # Errors
    /// [`StoreError::ReadOutOfRange`] if `at + buf.len()` exceeds `slot.len`;
    /// [`StoreError::Flash`].
    pub fn read(&mut self, slot: &Slot, at: usize, buf: &mut [u8]) -> Result<(), StoreError<F::Error>> {
        let end = at.checked_add(buf.len()).ok_or(StoreError::ReadOutOfRange)?;
        if slot.index > 1 || slot.len > self.capacity() || end > slot.len {
            return Err(StoreError::ReadOutOfRange);
        }
        // `end <= capacity < 2^32`, so the address fits.
        let addr = self.file_addr(slot.index) + at as u32;
        let mut filled = 0;
        self.stream(addr, buf.len(), |chunk| {
            if let Some(dst) = buf.get_mut(filled..filled + chunk.len()) {
                dst.copy_from_slice(chunk);
            }
            filled += chunk.len();
        })
        .map_err(StoreError::Flash)
    }

    /// Saves `image` into the slot that does not hold the latest valid model, in the power-safe
    /// order of the [type docs](Store#write-order-and-why-a-power-cut-never-loses-the-last-good-model),
    /// and returns the new latest slot.
    ///
    /// On any error the previous latest slot is untouched and still the latest.
    ///
    /// # Errors
    /// [`StoreError::TooLarge`], [`StoreError::ImageLength`], [`StoreError::ImageChecksum`],
    /// [`StoreError::Verify`], [`StoreError::Flash`].
    pub fn save<I: Image + ?Sized>(&mut self, image: &I) -> Result<Slot, StoreError<F::Error>> {
        let len = image.len();
        if len > self.capacity() {
            return Err(StoreError::TooLarge);
        }
        if len < CHECKSUM_LEN {
            return Err(StoreError::ImageChecksum);
        }
        let (index, seq) = match self.latest()? {
            Some(latest) => (1 - latest.index, latest.seq.wrapping_add(1)),
            None => (0, 1),
        };
        let base = self.slot_addr(index);
        // `pages_per_save(len) * ERASE_SIZE <= slot_size` as `len <= capacity` and `slot_size` is
        // a whole number of pages.
        let erase_end = base + (Self::pages_per_save(len) * F::ERASE_SIZE) as u32;
        self.flash.erase(base, erase_end).map_err(StoreError::Flash)?;

        let mut digest = Digest::new(seq, len);
        let mut writer = Writer::<F>::new(base + Self::HEADER_AREA as u32);
        image.write(|piece| {
            if piece.len() > len - digest.at {
                return Err(StoreError::ImageLength);
            }
            digest.push(piece);
            writer.push(&mut self.flash, piece).map_err(StoreError::Flash)
        })?;
        writer.flush(&mut self.flash).map_err(StoreError::Flash)?;
        if digest.at != len {
            return Err(StoreError::ImageLength);
        }
        if !digest.file_ok() {
            return Err(StoreError::ImageChecksum);
        }

        let mut header = [0xFF; MAX_WORD];
        header[..4].copy_from_slice(&SLOT_MAGIC);
        header[4..8].copy_from_slice(&seq.to_le_bytes());
        header[8..12].copy_from_slice(&(len as u32).to_le_bytes());
        header[12..16].copy_from_slice(&digest.whole.finish().to_le_bytes());
        self.flash.write(base, &header[..Self::HEADER_AREA]).map_err(StoreError::Flash)?;

        match self.check(index)? {
            Some(slot) if slot.seq == seq && slot.len == len => Ok(slot),
            _ => Err(StoreError::Verify),
        }
    }

    /// Puts the weights of the latest saved model into `learner`, which must have been made
    /// from the base model that learned them, and returns that slot; `Ok(None)` (and the learner
    /// unchanged) if no model was saved.
    ///
    /// The stored file must have the learner's file length and, outside the weight table and the
    /// trailing CRC, the base file's bytes: a check that reads the slot once; then a second read
    /// copies the weights into the learner's RAM and the learner checks them as the loader would.
    /// Saving with [`Store::save`]`(&learner)` and restoring into a fresh
    /// [`Learner::new`](super::Learner::new) of the same base gives the saved model byte for byte.
    ///
    /// # Errors
    /// [`StoreError::RestoreOtherBase`] (learner unchanged); [`StoreError::RestoreModel`] (the
    /// base weights); [`StoreError::Flash`] (on an error while copying, the base weights).
    pub fn restore(&mut self, learner: &mut Learner<'_, '_>) -> Result<Option<Slot>, StoreError<F::Error>> {
        let Some(slot) = self.latest()? else {
            return Ok(None);
        };
        if slot.len != learner.file_len() {
            return Err(StoreError::RestoreOtherBase);
        }
        let base = learner.base();
        let weights = learner.weights_range();
        let body = slot.len - CHECKSUM_LEN;
        let addr = self.file_addr(slot.index);
        let (mut at, mut same) = (0, true);
        self.stream(addr, slot.len, |chunk| {
            for (p, &b) in (at..).zip(chunk) {
                same &= weights.contains(&p) || p >= body || base.get(p) == Some(&b);
            }
            at += chunk.len();
        })
        .map_err(StoreError::Flash)?;
        if !same {
            return Err(StoreError::RestoreOtherBase);
        }
        let ram = learner.weights_mut();
        let mut at = 0;
        let copied = self.stream(addr + weights.start as u32, weights.len(), |chunk| {
            if let Some(dst) = ram.get_mut(at..at + chunk.len()) {
                dst.copy_from_slice(chunk);
            }
            at += chunk.len();
        });
        if let Err(e) = copied {
            for (dst, &b) in ram.iter_mut().zip(base.get(weights).unwrap_or(&[])) {
                *dst = b;
            }
            return Err(StoreError::Flash(e));
        }
        learner.revalidate().map_err(StoreError::RestoreModel)?;
        Ok(Some(slot))
    }

    fn slot_addr(&self, index: usize) -> u32 {
        if index == 0 {
            self.offset
        } else {
            self.offset + self.slot_size
        }
    }

    fn file_addr(&self, index: usize) -> u32 {
        self.slot_addr(index) + Self::HEADER_AREA as u32
    }

    /// The slot `index` if it is valid.
    fn check(&mut self, index: usize) -> Result<Option<Slot>, StoreError<F::Error>> {
        let mut header = [0u8; SLOT_HEADER_LEN];
        let mut filled = 0;
        self.stream(self.slot_addr(index), SLOT_HEADER_LEN, |chunk| {
            if let Some(dst) = header.get_mut(filled..filled + chunk.len()) {
                dst.copy_from_slice(chunk);
            }
            filled += chunk.len();
        })
        .map_err(StoreError::Flash)?;
        let word =
            |at: usize| u32::from_le_bytes([header[at], header[at + 1], header[at + 2], header[at + 3]]);
        let (seq, len, crc) = (word(4), word(8) as usize, word(12));
        if header[..4] != SLOT_MAGIC || len < CHECKSUM_LEN || len > self.capacity() {
            return Ok(None);
        }
        let mut digest = Digest::new(seq, len);
        self.stream(self.file_addr(index), len, |chunk| digest.push(chunk)).map_err(StoreError::Flash)?;
        Ok((digest.whole.finish() == crc && digest.file_ok()).then_some(Slot { index, seq, len }))
    }

    /// Reads the `len` bytes at `addr` in pieces through a stack buffer, reading only whole,
    /// aligned `READ_SIZE` words, and gives them to `f` in order.
    fn stream(&mut self, addr: u32, len: usize, mut f: impl FnMut(&[u8])) -> Result<(), F::Error> {
        let word = F::READ_SIZE as u32;
        let block = (CHUNK - CHUNK % F::READ_SIZE) as u32;
        let mut buf = [0u8; CHUNK];
        let end = addr + len as u32;
        let mut at = addr - addr % word;
        while at < end {
            // Rounding up to a word stays inside the slot: slots are whole pages and a page is
            // whole words (checked by `new`).
            let n = round_up((end - at) as usize, F::READ_SIZE).min(block as usize);
            self.flash.read(at, &mut buf[..n])?;
            let lo = (addr.max(at) - at) as usize;
            let hi = (end.min(at + n as u32) - at) as usize;
            f(&buf[lo..hi]);
            at += n as u32;
        }
        Ok(())
    }
}

/// Whether sequence number `a` is newer than `b`, with wrapping: `a` is newer iff it is less than
/// 2^31 saves ahead of `b`.
fn newer(a: u32, b: u32) -> bool {
    let ahead = a.wrapping_sub(b);
    ahead != 0 && ahead < 1 << 31
}

/// How many `word`-byte words `n` bytes take (0 if `word` is 0, a size `Store::new` rejects).
const fn words(n: usize, word: usize) -> usize {
    if word == 0 {
        0
    } else {
        n.div_ceil(word)
    }
}

/// `n` rounded up to a multiple of `word` (`n` itself if `word` is 0).
const fn round_up(n: usize, word: usize) -> usize {
    if word == 0 {
        n
    } else {
        words(n, word) * word
    }
}

/// The two CRCs of a slot over a file streamed in pieces: the header's (sequence number, length,
/// file) and the file's own (all but its last four bytes, compared with those).
struct Digest {
    whole: Crc32,
    file: Crc32,
    tail: [u8; CHECKSUM_LEN],
    /// Bytes of the file seen so far.
    at: usize,
    len: usize,
}

impl Digest {
    fn new(seq: u32, len: usize) -> Self {
        let mut whole = Crc32::new();
        whole.update(&seq.to_le_bytes());
        whole.update(&(len as u32).to_le_bytes());
        Self { whole, file: Crc32::new(), tail: [0; CHECKSUM_LEN], at: 0, len }
    }

    fn push(&mut self, piece: &[u8]) {
        self.whole.update(piece);
        let body = self.len.saturating_sub(CHECKSUM_LEN);
        let in_body = body.saturating_sub(self.at).min(piece.len());
        let (covered, tail) = piece.split_at(in_body);
        self.file.update(covered);
        for (i, &b) in tail.iter().enumerate() {
            if let Some(t) = self.tail.get_mut(self.at + in_body + i - body) {
                *t = b;
            }
        }
        self.at += piece.len();
    }

    /// Whether all `len` bytes were seen and the last four are the CRC-32 of the others.
    fn file_ok(&self) -> bool {
        self.at == self.len && self.file.finish() == u32::from_le_bytes(self.tail)
    }
}

/// Writes a stream of bytes as whole `WRITE_SIZE` words through a stack buffer.
struct Writer<F> {
    addr: u32,
    buf: [u8; CHUNK],
    fill: usize,
    flash: core::marker::PhantomData<F>,
}

impl<F: NorFlash> Writer<F> {
    /// Bytes written per flash call: the most whole words the buffer holds.
    const BLOCK: usize = CHUNK - CHUNK % F::WRITE_SIZE;

    fn new(addr: u32) -> Self {
        Self { addr, buf: [0xFF; CHUNK], fill: 0, flash: core::marker::PhantomData }
    }

    fn push(&mut self, flash: &mut F, mut piece: &[u8]) -> Result<(), F::Error> {
        while !piece.is_empty() {
            let n = piece.len().min(Self::BLOCK - self.fill);
            let (now, rest) = piece.split_at(n);
            self.buf[self.fill..self.fill + n].copy_from_slice(now);
            self.fill += n;
            piece = rest;
            if self.fill == Self::BLOCK {
                flash.write(self.addr, &self.buf[..Self::BLOCK])?;
                self.addr += Self::BLOCK as u32;
                self.fill = 0;
            }
        }
        Ok(())
    }

    /// Writes the buffered bytes, the last word padded with `0xFF`.
    fn flush(&mut self, flash: &mut F) -> Result<(), F::Error> {
        if self.fill == 0 {
            return Ok(());
        }
        let n = round_up(self.fill, F::WRITE_SIZE);
        self.buf[self.fill..n].fill(0xFF);
        flash.write(self.addr, &self.buf[..n])?;
        self.addr += n as u32;
        self.fill = 0;
        Ok(())
    }
}

/// A NOR flash simulated in RAM, with power cuts on demand: a **test double** for [`Store`] and
/// for firmware tests (under QEMU or on the host).
///
/// `N` bytes, erased in pages of `ERASE` bytes, written in words of `WRITE` bytes, read in words
/// of `READ` bytes (`N` a multiple of `ERASE`, `ERASE` of `WRITE` and `READ`; checked when
/// compiling). It behaves as NOR flash does: an erase sets a page to `0xFF`; a write can only
/// clear bits, so writing over bytes that are not erased ANDs them (and counts in
/// [`overwrites`](Self::overwrites), which a correct user of NOR flash keeps at 0).
///
/// # Power cuts
///
/// Each word written and each page erased is one *primitive operation*.
/// [`cut_after(n)`](Self::cut_after) lets `n` more of them complete and interrupts the next
/// one: a write leaves that word torn (a prefix of its bytes written, the next byte partly
/// programmed, the rest unchanged) and an erase leaves that page torn (a prefix of `0xFF`, the
/// next byte partly erased, the rest unchanged); the prefix length, from none to all of the
/// word or page, and the partial bits come from a deterministic pseudo-random sequence
/// ([`reseed`](Self::reseed)). That operation and every later one, reads included, then fail with
/// [`MemFlashError::PowerLost`] until [`restore_power`](Self::restore_power).
///
/// The contents live inside the value (`N` bytes): give it a home that fits (a `static`, a
/// `Box` in host tests).
#[derive(Debug, Clone)]
pub struct MemFlash<const N: usize, const ERASE: usize, const WRITE: usize, const READ: usize = 1> {
    data: [u8; N],
    ops: usize,
    cut: Option<usize>,
    powered: bool,
    rng: u32,
    overwrites: usize,
}

/// Errors of [`MemFlash`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum MemFlashError {
    /// The power was cut (see [`MemFlash::cut_after`]); restore it with
    /// [`MemFlash::restore_power`].
    PowerLost,
    /// An address or length is not a multiple of the word or page size.
    NotAligned,
    /// An access beyond the flash's `N` bytes.
    OutOfBounds,
}

impl NorFlashError for MemFlashError {
    fn kind(&self) -> NorFlashErrorKind {
        match self {
            Self::PowerLost => NorFlashErrorKind::Other,
            Self::NotAligned => NorFlashErrorKind::NotAligned,
            Self::OutOfBounds => NorFlashErrorKind::OutOfBounds,
        }
    }
}

impl From<NorFlashErrorKind> for MemFlashError {
    fn from(kind: NorFlashErrorKind) -> Self {
        match kind {
            NorFlashErrorKind::NotAligned => Self::NotAligned,
            _ => Self::OutOfBounds,
        }
    }
}

impl<const N: usize, const ERASE: usize, const WRITE: usize, const READ: usize> Default
    for MemFlash<N, ERASE, WRITE, READ>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize, const ERASE: usize, const WRITE: usize, const READ: usize>
    MemFlash<N, ERASE, WRITE, READ>
{
    const SHAPE_OK: () = assert!(
        WRITE > 0
            && READ > 0
            && ERASE > 0
            && ERASE.is_multiple_of(WRITE)
            && ERASE.is_multiple_of(READ)
            && N.is_multiple_of(ERASE),
        "MemFlash: N must be whole pages of ERASE bytes, and ERASE whole words of WRITE and READ bytes"
    );

    /// An erased flash (all `0xFF`) with the power on.
    #[must_use]
    pub const fn new() -> Self {
        let () = Self::SHAPE_OK;
        Self { data: [0xFF; N], ops: 0, cut: None, powered: true, rng: 0x2545_F491, overwrites: 0 }
    }

    /// The contents.
    pub fn as_bytes(&self) -> &[u8; N] {
        &self.data
    }

    /// The contents, to change directly (as a worn cell or a stray write would).
    pub fn as_bytes_mut(&mut self) -> &mut [u8; N] {
        &mut self.data
    }

    /// Lets `n` more primitive operations complete and cuts the power during the next one.
    pub fn cut_after(&mut self, n: usize) {
        self.cut = Some(n);
    }

    /// Turns the power back on (and disarms a pending [`cut_after`](Self::cut_after)); the contents
    /// are as the cut left them.
    pub fn restore_power(&mut self) {
        self.powered = true;
        self.cut = None;
    }

    /// Whether the power is on.
    pub fn is_powered(&self) -> bool {
        self.powered
    }

    /// Primitive operations (words written, pages erased) completed since [`new`](Self::new).
    pub fn ops(&self) -> usize {
        self.ops
    }

    /// Words written whose bytes were not all erased: a NOR flash user error.
    pub fn overwrites(&self) -> usize {
        self.overwrites
    }

    /// Restarts the pseudo-random sequence that decides how a cut operation is torn (any seed;
    /// 0 is replaced by a fixed non-zero one).
    pub fn reseed(&mut self, seed: u32) {
        self.rng = if seed == 0 { 0x2545_F491 } else { seed };
    }

    fn random(&mut self) -> u32 {
        // xorshift32.
        let mut x = self.rng;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.rng = x;
        x
    }

    /// Starts one primitive operation: `Err` if the power is off, `Ok(Some((prefix, noise)))` if
    /// the power is cut during it (`prefix` of `unit` bytes done, `noise` for the next byte),
    /// `Ok(None)` if it completes.
    fn begin(&mut self, unit: usize) -> Result<Option<(usize, u8)>, MemFlashError> {
        if !self.powered {
            return Err(MemFlashError::PowerLost);
        }
        match self.cut {
            Some(0) => {
                self.powered = false;
                self.cut = None;
                let prefix = self.random() as usize % (unit + 1);
                let noise = self.random() as u8;
                Ok(Some((prefix, noise)))
            }
            Some(n) => {
                self.cut = Some(n - 1);
                self.ops += 1;
                Ok(None)
            }
            None => {
                self.ops += 1;
                Ok(None)
            }
        }
    }
}

impl<const N: usize, const ERASE: usize, const WRITE: usize, const READ: usize> ErrorType
    for MemFlash<N, ERASE, WRITE, READ>
{
    type Error = MemFlashError;
}

impl<const N: usize, const ERASE: usize, const WRITE: usize, const READ: usize> ReadNorFlash
    for MemFlash<N, ERASE, WRITE, READ>
{
    const READ_SIZE: usize = READ;

    fn read(&mut self, offset: u32, bytes: &mut [u8]) -> Result<(), Self::Error> {
        if !self.powered {
            return Err(MemFlashError::PowerLost);
        }
        check_read(self, offset, bytes.len())?;
        let at = offset as usize;
        bytes.copy_from_slice(&self.data[at..at + bytes.len()]);
        Ok(())
    }

    fn capacity(&self) -> usize {
        N
    }
}

impl<const N: usize, const ERASE: usize, const WRITE: usize, const READ: usize> NorFlash
    for MemFlash<N, ERASE, WRITE, READ>
{
    const WRITE_SIZE: usize = WRITE;
    const ERASE_SIZE: usize = ERASE;

    fn erase(&mut self, from: u32, to: u32) -> Result<(), Self::Error> {
        if !self.powered {
            return Err(MemFlashError::PowerLost);
        }
        check_erase(self, from, to)?;
        let mut page = from as usize;
        while page < to as usize {
            let torn = self.begin(ERASE)?;
            let bytes = &mut self.data[page..page + ERASE];
            let Some((prefix, noise)) = torn else {
                bytes.fill(0xFF);
                page += ERASE;
                continue;
            };
            bytes[..prefix].fill(0xFF);
            // The byte being erased when the power went: some of its bits made it to 1.
            if let Some(b) = bytes.get_mut(prefix) {
                *b |= noise;
            }
            return Err(MemFlashError::PowerLost);
        }
        Ok(())
    }

    fn write(&mut self, offset: u32, bytes: &[u8]) -> Result<(), Self::Error> {
        if !self.powered {
            return Err(MemFlashError::PowerLost);
        }
        check_write(self, offset, bytes.len())?;
        let mut at = offset as usize;
        for word in bytes.chunks_exact(WRITE) {
            let torn = self.begin(WRITE)?;
            let old = &mut self.data[at..at + WRITE];
            if old.iter().any(|&b| b != 0xFF) {
                self.overwrites += 1;
            }
            let done = torn.map_or(WRITE, |(prefix, _)| prefix);
            for (o, &w) in old.iter_mut().zip(word).take(done) {
                *o &= w;
            }
            if let Some((prefix, noise)) = torn {
                // The byte being programmed when the power went: some of its cleared bits made it.
                if let (Some(o), Some(&w)) = (old.get_mut(prefix), word.get(prefix)) {
                    *o &= w | noise;
                }
                return Err(MemFlashError::PowerLost);
            }
            at += WRITE;
        }
        Ok(())
    }
}

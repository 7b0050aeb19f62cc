//! The learned-model store under power cuts: every save is cut after every single primitive flash
//! operation (each word written, each page erased), the device "reboots" (power back, a new
//! `Store` over the same flash contents), and the latest slot must hold exactly the previous
//! model or exactly the new one: never none, never other bytes.
#![cfg(feature = "learn")]

use embedded_storage::nor_flash::{NorFlash, ReadNorFlash};
use ltu_runtime::format::{crc32, CHECKSUM_LEN};
use ltu_runtime::learn::{
    Image, MemFlash, MemFlashError, Slot, Store, StoreError, SLOT_HEADER_LEN, SLOT_MAGIC,
};
use ltu_runtime::{Learner, Model};

const TREE: &[u8] = include_bytes!("../../tests/golden/tree.ltu");
const LIST: &[u8] = include_bytes!("../../tests/golden/list.ltu");
const MACHINE: &[u8] = include_bytes!("../../tests/golden/machine_fixed.ltu");
const BINARY: &[u8] = include_bytes!("../../tests/golden/binary_i32.ltu");

type Error<F> = StoreError<<F as embedded_storage::nor_flash::ErrorType>::Error>;

/// `file` with byte `at` changed and its trailing CRC-32 recomputed: another valid file of the
/// same length (as a learned model is of its base).
fn variant(file: &[u8], at: usize) -> Vec<u8> {
    let mut v = file.to_vec();
    v[at] ^= 0x5A;
    let body = v.len() - CHECKSUM_LEN;
    let crc = crc32(&v[..body]);
    v[body..].copy_from_slice(&crc.to_le_bytes());
    v
}

/// The whole file of `slot`, read through `Store::read`.
fn read_all<F: NorFlash>(store: &mut Store<F>, slot: &Slot) -> Result<Vec<u8>, Error<F>> {
    let mut buf = vec![0; slot.len];
    store.read(slot, 0, &mut buf)?;
    Ok(buf)
}

/// The file of the latest valid slot, if any.
fn latest_file<F: NorFlash>(store: &mut Store<F>) -> Option<Vec<u8>> {
    let slot = store.latest().expect("reading a powered flash");
    slot.map(|s| read_all(store, &s).expect("reading the latest slot"))
}

/// A flash geometry under test: the simulated flash, where the store starts, the slot size.
struct Rig<const N: usize, const E: usize, const W: usize, const R: usize> {
    offset: u32,
    slot_size: u32,
}

/// Counts of one cut-every-point run.
#[derive(Default, Debug)]
struct Cuts {
    points: usize,
    kept_previous: usize,
    got_new: usize,
    got_none: usize,
}

impl<const N: usize, const E: usize, const W: usize, const R: usize> Rig<N, E, W, R> {
    /// A fresh flash whose bytes outside the store hold a pattern (to check the store never
    /// touches them).
    fn flash(&self) -> Box<MemFlash<N, E, W, R>> {
        let mut flash = Box::new(MemFlash::<N, E, W, R>::new());
        let (lo, hi) = self.bounds();
        for (i, b) in flash.as_bytes_mut().iter_mut().enumerate() {
            if i < lo || i >= hi {
                *b = (i as u8).wrapping_mul(37) | 1;
            }
        }
        flash
    }

    fn bounds(&self) -> (usize, usize) {
        let lo = self.offset as usize;
        (lo, lo + 2 * self.slot_size as usize)
    }

    fn store<'f>(&self, flash: &'f mut MemFlash<N, E, W, R>) -> Store<&'f mut MemFlash<N, E, W, R>> {
        Store::new(flash, self.offset, self.slot_size).expect("valid layout")
    }

    fn outside(&self, flash: &MemFlash<N, E, W, R>) -> Vec<u8> {
        let (lo, hi) = self.bounds();
        let bytes = flash.as_bytes();
        [&bytes[..lo], &bytes[hi..]].concat()
    }

    /// Saves `image` into `flash` uncut and checks it is then the latest.
    fn save(&self, flash: &mut MemFlash<N, E, W, R>, image: &[u8]) -> Slot {
        let mut store = self.store(flash);
        let slot = store.save(image).expect("uncut save");
        assert_eq!(latest_file(&mut store).as_deref(), Some(image));
        slot
    }

    /// Cuts the save of `new` over `before` after every primitive operation, with each seed of
    /// `seeds` for how the cut operation is torn; after each cut, reboots and checks the latest
    /// model is exactly `previous` (`None`: no model) or exactly `new`, then that a following
    /// uncut save works. Returns the counts.
    fn cut_every_point(
        &self,
        before: &MemFlash<N, E, W, R>,
        previous: Option<&[u8]>,
        new: &[u8],
        seeds: &[u32],
    ) -> Cuts {
        type S<const N: usize, const E: usize, const W: usize, const R: usize> = Store<MemFlash<N, E, W, R>>;
        let ops = S::<N, E, W, R>::pages_per_save(new.len()) + S::<N, E, W, R>::words_per_save(new.len());
        let outside = self.outside(before);
        let mut cuts = Cuts::default();
        for &seed in seeds {
            for k in 0.. {
                let mut flash = Box::new(before.clone());
                flash.reseed(seed.wrapping_add(k as u32));
                flash.cut_after(k);
                let start = flash.ops();
                let result = self.store(&mut flash).save(new);
                if let Ok(slot) = result {
                    // Uncut: the save took exactly the operations the wear figures say.
                    assert_eq!(k, ops, "cut points of an uncut save");
                    assert_eq!(flash.ops() - start, ops);
                    assert_eq!(slot.len, new.len());
                    break;
                }
                assert_eq!(result, Err(StoreError::Flash(MemFlashError::PowerLost)), "cut {k}");
                assert!(!flash.is_powered());
                assert!(k < ops, "save still cut after {ops} operations");
                cuts.points += 1;

                flash.restore_power();
                let mut store = self.store(&mut flash);
                match latest_file(&mut store) {
                    Some(f) if f == new => cuts.got_new += 1,
                    Some(f) if Some(f.as_slice()) == previous => cuts.kept_previous += 1,
                    None if previous.is_none() => cuts.got_none += 1,
                    other => panic!(
                        "cut after {k} operations (seed {seed}): latest is {:?}, neither previous nor new",
                        other.map(|f| f.len())
                    ),
                }
                // The device goes on: the next save after the reboot completes.
                let again = variant(new, new.len() / 2);
                store.save(again.as_slice()).expect("save after a cut");
                assert_eq!(latest_file(&mut store), Some(again));
                assert_eq!(flash.overwrites(), 0, "a word written twice without an erase");
                assert_eq!(self.outside(&flash), outside, "bytes outside the store changed");
            }
        }
        cuts
    }

    /// Saves `generations` in turn, cutting each save at every point first.
    fn generations(&self, generations: &[&[u8]], seeds: &[u32]) -> Cuts {
        let mut flash = self.flash();
        let mut previous: Option<&[u8]> = None;
        let mut total = Cuts::default();
        for &image in generations {
            let cuts = self.cut_every_point(&flash, previous, image, seeds);
            total.points += cuts.points;
            total.kept_previous += cuts.kept_previous;
            total.got_new += cuts.got_new;
            total.got_none += cuts.got_none;
            self.save(&mut flash, image);
            previous = Some(image);
        }
        assert_eq!(flash.overwrites(), 0);
        total
    }
}

const SEEDS: [u32; 3] = [1, 0x9E37_79B9, 0xDEAD_BEEF];

fn report(name: &str, cuts: &Cuts) {
    println!(
        "{name}: {} cut points, previous model kept {}, new model {}, none (first save) {}",
        cuts.points, cuts.kept_previous, cuts.got_new, cuts.got_none
    );
    assert!(cuts.points > 0);
}

#[test]
fn every_cut_of_a_save_keeps_the_previous_or_the_new_model() {
    let a = TREE;
    let b = LIST;
    // Write size 1 (every byte is an operation), pages smaller than the file.
    let rig = Rig::<2048, 128, 1, 1> { offset: 256, slot_size: 512 };
    let mut flash = rig.flash();
    rig.save(&mut flash, a);
    let cuts = rig.cut_every_point(&flash, Some(a), b, &SEEDS);
    report("A then B, write 1, erase 128", &cuts);
    assert_eq!(cuts.got_none, 0);
    assert!(cuts.kept_previous > 0 && cuts.got_new > 0);
    // Each seed covers every operation of the save once.
    let ops = Store::<MemFlash<2048, 128, 1, 1>>::pages_per_save(b.len())
        + Store::<MemFlash<2048, 128, 1, 1>>::words_per_save(b.len());
    assert_eq!(cuts.points, ops * SEEDS.len());
}

#[test]
fn every_cut_of_every_generation_with_several_geometries() {
    let tree2 = variant(TREE, 40);
    let list2 = variant(LIST, 30);
    let generations: [&[u8]; 6] = [TREE, LIST, &tree2, MACHINE, &list2, BINARY];
    // Write 1, read 1, erase pages smaller than the files.
    report(
        "6 generations, write 1, erase 64",
        &Rig::<4096, 64, 1, 1> { offset: 0, slot_size: 512 }.generations(&generations, &SEEDS),
    );
    // Write 4, read 4, one page larger than every file.
    report(
        "6 generations, write 4, erase 1024",
        &Rig::<4096, 1024, 4, 4> { offset: 1024, slot_size: 1024 }.generations(&generations, &SEEDS),
    );
    // Write 8, read 2, pages smaller than the files.
    report(
        "6 generations, write 8, erase 64",
        &Rig::<2048, 64, 8, 2> { offset: 128, slot_size: 384 }.generations(&generations, &SEEDS),
    );
    // Write 32 (a header area of one word), read 32.
    report(
        "6 generations, write 32, erase 256",
        &Rig::<2048, 256, 32, 32> { offset: 512, slot_size: 512 }.generations(&generations, &SEEDS),
    );
}

#[test]
fn a_cut_first_save_leaves_no_model_not_an_error() {
    let rig = Rig::<2048, 128, 4, 1> { offset: 0, slot_size: 512 };
    let empty = rig.flash();
    let cuts = rig.cut_every_point(&empty, None, TREE, &SEEDS);
    report("first save, write 4", &cuts);
    assert!(cuts.got_none > 0);
    assert_eq!(cuts.kept_previous, 0);
    // Nothing saved at all: no model, no error.
    assert_eq!(rig.store(&mut rig.flash()).latest(), Ok(None));
}

/// Writes a slot by hand from the layout in the module docs.
fn raw_slot<const N: usize, const E: usize, const W: usize, const R: usize>(
    flash: &mut MemFlash<N, E, W, R>,
    at: usize,
    seq: u32,
    file: &[u8],
) {
    let area = SLOT_HEADER_LEN.div_ceil(W) * W;
    let mut covered = seq.to_le_bytes().to_vec();
    covered.extend_from_slice(&(file.len() as u32).to_le_bytes());
    covered.extend_from_slice(file);
    let bytes = flash.as_bytes_mut();
    bytes[at..at + area].fill(0xFF);
    bytes[at..at + 4].copy_from_slice(&SLOT_MAGIC);
    bytes[at + 4..at + 12].copy_from_slice(&covered[..8]);
    bytes[at + 12..at + 16].copy_from_slice(&crc32(&covered).to_le_bytes());
    bytes[at + area..at + area + file.len()].copy_from_slice(file);
}

#[test]
fn a_save_writes_exactly_the_documented_layout() {
    type F = MemFlash<2048, 256, 8, 1>;
    let mut flash = F::new();
    let mut store = Store::new(&mut flash, 512, 512).unwrap();
    assert_eq!(Store::<F>::HEADER_AREA, 16);
    store.save(TREE).unwrap(); // slot 0, sequence 1
    store.save(LIST).unwrap(); // slot 1, sequence 2
    let mut expected = F::new();
    raw_slot(&mut expected, 512, 1, TREE);
    raw_slot(&mut expected, 1024, 2, LIST);
    assert_eq!(flash.as_bytes(), expected.as_bytes());
}

#[test]
fn sequence_numbers_wrap() {
    type F = MemFlash<1024, 128, 4, 1>;
    let mut flash = F::new();
    raw_slot(&mut flash, 0, u32::MAX - 1, TREE);
    let mut store = Store::new(flash, 0, 512).unwrap();
    assert_eq!(store.latest().unwrap(), Some(Slot { index: 0, seq: u32::MAX - 1, len: TREE.len() }));
    let files = [LIST.to_vec(), variant(TREE, 9), MACHINE.to_vec(), variant(LIST, 20)];
    let seqs = [u32::MAX, 0, 1, 2];
    for (file, seq) in files.iter().zip(seqs) {
        let slot = store.save(file.as_slice()).unwrap();
        assert_eq!(slot.seq, seq);
        assert_eq!(store.latest().unwrap(), Some(slot));
        assert_eq!(latest_file(&mut store).as_ref(), Some(file));
    }
    // The newer of two valid slots across the wrap is the one just past u32::MAX.
    let mut flash = F::new();
    raw_slot(&mut flash, 0, u32::MAX, TREE);
    raw_slot(&mut flash, 512, 0, LIST);
    let mut store = Store::new(flash, 0, 512).unwrap();
    assert_eq!(store.latest().unwrap().map(|s| (s.index, s.seq)), Some((1, 0)));
    // Cut at every point of the save across the wrap (u32::MAX -> 0 and 0 -> 1).
    let rig = Rig::<1024, 128, 4, 1> { offset: 0, slot_size: 512 };
    let mut flash = rig.flash();
    raw_slot(&mut flash, 512, u32::MAX, MACHINE);
    let cuts = rig.cut_every_point(&flash, Some(MACHINE), TREE, &SEEDS);
    report("across the sequence wrap", &cuts);
    assert!(cuts.kept_previous > 0 && cuts.got_new > 0);
}

#[test]
fn a_corrupted_slot_loses_to_the_other() {
    type F = MemFlash<2048, 256, 4, 4>;
    let saved = || {
        let mut store = Store::new(F::new(), 0, 512).unwrap();
        store.save(TREE).unwrap(); // slot 0
        store.save(LIST).unwrap(); // slot 1, the latest
        store.into_inner()
    };
    let latest = |flash: F| latest_file(&mut Store::new(flash, 0, 512).unwrap());
    assert_eq!(latest(saved()).as_deref(), Some(LIST));
    // A flipped bit anywhere in slot 1's header or file: slot 0 is the latest.
    for at in (512..512 + 16).chain([512 + 16, 512 + 16 + 70, 512 + 16 + LIST.len() - 1]) {
        for bit in [0x01, 0x80] {
            let mut flash = saved();
            flash.as_bytes_mut()[at] ^= bit;
            assert_eq!(latest(flash).as_deref(), Some(TREE), "bit {bit:#x} of byte {at} flipped");
        }
    }
    // A length beyond the slot's capacity.
    let mut flash = saved();
    flash.as_bytes_mut()[512 + 8..512 + 12].copy_from_slice(&u32::MAX.to_le_bytes());
    assert_eq!(latest(flash).as_deref(), Some(TREE));
    // Both corrupted: no model.
    let mut flash = saved();
    flash.as_bytes_mut()[3] ^= 1;
    flash.as_bytes_mut()[512 + 100] ^= 1;
    assert_eq!(latest(flash), None);
}

#[test]
fn a_slot_whose_file_checksum_is_bad_is_not_valid() {
    type F = MemFlash<2048, 256, 4, 1>;
    let mut flash = F::new();
    raw_slot(&mut flash, 0, 5, TREE);
    // Slot 1 is newer and its header checks out, but its file's own CRC does not.
    let mut bad = variant(LIST, 10);
    bad[20] ^= 1;
    raw_slot(&mut flash, 512, 6, &bad);
    let mut store = Store::new(flash, 0, 512).unwrap();
    assert_eq!(store.latest().unwrap(), Some(Slot { index: 0, seq: 5, len: TREE.len() }));
    // Saving such an image is refused before its header is written; the latest stays.
    assert_eq!(store.save(bad.as_slice()), Err(StoreError::ImageChecksum));
    assert_eq!(store.save(&[1u8, 2, 3][..]), Err(StoreError::ImageChecksum));
    assert_eq!(latest_file(&mut store).as_deref(), Some(TREE));
    assert_eq!(store.save(LIST).map(|s| s.seq), Ok(6));
}

/// An image whose `len` is not what it writes.
struct Liar<'a> {
    len: usize,
    bytes: &'a [u8],
}

impl Image for Liar<'_> {
    fn len(&self) -> usize {
        self.len
    }

    fn write<E>(&self, mut sink: impl FnMut(&[u8]) -> Result<(), E>) -> Result<(), E> {
        // In uneven pieces, as a streaming writer gives them.
        for piece in self.bytes.chunks(7) {
            sink(piece)?;
        }
        Ok(())
    }
}

#[test]
fn bad_images_are_refused_and_change_nothing_that_counts() {
    type F = MemFlash<2048, 256, 4, 1>;
    let mut store = Store::new(F::new(), 0, 512).unwrap();
    store.save(TREE).unwrap();
    let capacity = store.capacity();
    assert_eq!(capacity, 512 - 16);
    let big = vec![0u8; capacity + 1];
    let ops = {
        let flash = store.into_inner();
        let ops = flash.ops();
        store = Store::new(flash, 0, 512).unwrap();
        ops
    };
    assert_eq!(store.save(big.as_slice()), Err(StoreError::TooLarge));
    let flash = store.into_inner();
    assert_eq!(flash.ops(), ops, "a too large image erases nothing");
    let mut store = Store::new(flash, 0, 512).unwrap();
    assert_eq!(store.save(&Liar { len: LIST.len() - 1, bytes: LIST }), Err(StoreError::ImageLength));
    assert_eq!(store.save(&Liar { len: LIST.len() + 1, bytes: LIST }), Err(StoreError::ImageLength));
    assert_eq!(latest_file(&mut store).as_deref(), Some(TREE));
    // Pieces of any size give the same slot as one piece.
    let slot = store.save(&Liar { len: LIST.len(), bytes: LIST }).unwrap();
    assert_eq!(read_all(&mut store, &slot).unwrap(), LIST);
    // A file of exactly the capacity fits.
    let full = variant(&vec![7u8; capacity], 3);
    let slot = store.save(full.as_slice()).unwrap();
    assert_eq!(read_all(&mut store, &slot).unwrap(), full);
}

#[test]
fn reads_at_any_offset_and_length() {
    type F = MemFlash<2048, 256, 8, 8>;
    let mut store = Store::new(F::new(), 256, 512).unwrap();
    let slot = store.save(MACHINE).unwrap();
    for at in [0, 1, 3, 7, 8, 63, 64, 65, 200] {
        for len in [0, 1, 5, 8, 31, MACHINE.len() - at] {
            let mut buf = vec![0; len];
            store.read(&slot, at, &mut buf).unwrap();
            assert_eq!(buf, &MACHINE[at..at + len], "at {at} len {len}");
        }
    }
    let mut buf = [0; 2];
    assert_eq!(store.read(&slot, MACHINE.len() - 1, &mut buf), Err(StoreError::ReadOutOfRange));
    assert_eq!(store.read(&slot, usize::MAX, &mut buf), Err(StoreError::ReadOutOfRange));
    let forged = Slot { index: 2, ..slot };
    assert_eq!(store.read(&forged, 0, &mut buf), Err(StoreError::ReadOutOfRange));
    // The bytes read back are a model the runtime loads.
    let file = read_all(&mut store, &slot).unwrap();
    assert!(Model::from_bytes(&file).is_ok());
}

/// A flash whose words are wider than the store supports.
type Wide = MemFlash<4096, 1024, 64, 1>;

#[test]
fn layouts_the_store_cannot_use_are_rejected() {
    type F = MemFlash<2048, 256, 4, 1>;
    let new = |offset, slot_size| Store::new(F::new(), offset, slot_size).map(|_| ());
    assert_eq!(new(0, 1024), Ok(()));
    assert_eq!(new(128, 512), Err(StoreError::LayoutUnaligned));
    assert_eq!(new(0, 300), Err(StoreError::LayoutUnaligned));
    assert_eq!(new(256, 1024), Err(StoreError::LayoutOutOfBounds));
    assert_eq!(new(u32::MAX - 255, 256), Err(StoreError::LayoutOutOfBounds));
    assert_eq!(new(0, 0), Err(StoreError::LayoutSlotTooSmall));
    assert_eq!(Store::new(Wide::new(), 0, 1024).map(|_| ()), Err(StoreError::LayoutWordSize));
    // A 4 GiB flash: the slots must end below 2^32 so that every address is a `u32`.
    let huge = |offset, slot_size| Store::new(Huge, offset, slot_size).map(|_| ());
    assert_eq!(huge(0, 1 << 31), Err(StoreError::LayoutOutOfBounds));
    assert_eq!(huge(0, (1 << 31) - 4096), Ok(()));
}

/// A flash of 4 GiB of addresses and no contents, for layout checks only.
struct Huge;

impl embedded_storage::nor_flash::ErrorType for Huge {
    type Error = MemFlashError;
}

impl ReadNorFlash for Huge {
    const READ_SIZE: usize = 1;

    fn read(&mut self, _: u32, _: &mut [u8]) -> Result<(), Self::Error> {
        Err(MemFlashError::OutOfBounds)
    }

    fn capacity(&self) -> usize {
        1 << 32
    }
}

impl NorFlash for Huge {
    const WRITE_SIZE: usize = 4;
    const ERASE_SIZE: usize = 4096;

    fn erase(&mut self, _: u32, _: u32) -> Result<(), Self::Error> {
        Err(MemFlashError::OutOfBounds)
    }

    fn write(&mut self, _: u32, _: &[u8]) -> Result<(), Self::Error> {
        Err(MemFlashError::OutOfBounds)
    }
}

#[test]
fn wear_per_save_follows_the_geometry() {
    // 276-byte file, 16-byte header area.
    assert_eq!(Store::<MemFlash<4096, 64, 1, 1>>::pages_per_save(276), 5);
    assert_eq!(Store::<MemFlash<4096, 64, 1, 1>>::words_per_save(276), 16 + 276);
    assert_eq!(Store::<MemFlash<4096, 1024, 4, 1>>::pages_per_save(276), 1);
    assert_eq!(Store::<MemFlash<4096, 1024, 4, 1>>::words_per_save(276), 4 + 69);
    assert_eq!(Store::<MemFlash<4096, 1024, 32, 1>>::words_per_save(276), 1 + 9);
}

#[test]
fn mem_flash_behaves_as_nor_flash() {
    let mut flash = MemFlash::<256, 64, 4, 1>::new();
    assert!(flash.as_bytes().iter().all(|&b| b == 0xFF));
    flash.write(0, &[0xF0, 0x0F, 0xAA, 0x55]).unwrap();
    assert_eq!(flash.overwrites(), 0);
    // A second write over the same word ANDs, and counts as an overwrite.
    flash.write(0, &[0x3C, 0xFF, 0xFF, 0x00]).unwrap();
    assert_eq!(&flash.as_bytes()[..4], &[0x30, 0x0F, 0xAA, 0x00]);
    assert_eq!(flash.overwrites(), 1);
    assert_eq!(flash.write(2, &[0; 4]), Err(MemFlashError::NotAligned));
    assert_eq!(flash.write(256, &[0; 4]), Err(MemFlashError::OutOfBounds));
    assert_eq!(flash.erase(0, 32), Err(MemFlashError::NotAligned));
    flash.erase(0, 64).unwrap();
    assert!(flash.as_bytes().iter().all(|&b| b == 0xFF));
    assert_eq!(flash.ops(), 3);

    // Cut after one word: the second word is torn, every later operation fails, reads too.
    flash.cut_after(1);
    assert_eq!(flash.write(64, &[0; 12]), Err(MemFlashError::PowerLost));
    assert!(!flash.is_powered());
    assert_eq!(&flash.as_bytes()[64..68], &[0; 4]);
    assert_eq!(&flash.as_bytes()[72..76], &[0xFF; 4], "the words after the torn one are untouched");
    let mut buf = [0; 4];
    assert_eq!(flash.read(0, &mut buf), Err(MemFlashError::PowerLost));
    assert_eq!(flash.erase(0, 64), Err(MemFlashError::PowerLost));
    flash.restore_power();
    flash.read(64, &mut buf).unwrap();

    // Torn words take every prefix length, from none to all, over seeds.
    let mut prefixes = std::collections::BTreeSet::new();
    for seed in 1..200 {
        let mut flash = MemFlash::<256, 64, 4, 1>::new();
        flash.reseed(seed);
        flash.cut_after(0);
        assert_eq!(flash.write(0, &[0; 4]), Err(MemFlashError::PowerLost));
        let written = flash.as_bytes()[..4].iter().take_while(|&&b| b == 0).count();
        prefixes.insert(written);
        // Torn erase: a prefix of 0xFF, the rest as it was (but for the byte being erased).
        let mut flash = MemFlash::<256, 64, 4, 1>::new();
        flash.as_bytes_mut().fill(0);
        flash.reseed(seed);
        flash.cut_after(0);
        assert_eq!(flash.erase(0, 128), Err(MemFlashError::PowerLost));
        let erased = flash.as_bytes()[..64].iter().take_while(|&&b| b == 0xFF).count();
        assert!(flash.as_bytes()[erased + 1..].iter().all(|&b| b == 0));
    }
    assert_eq!(prefixes.len(), 5, "prefix lengths seen: {prefixes:?}");
}

#[test]
fn cuts_during_saves_after_cuts_never_lose_the_latest_model() {
    // Many saves in a row, most of them cut at a pseudo-random operation; after every reboot the
    // latest model is the one that was latest before that save, or the one it was saving.
    type F = MemFlash<2048, 128, 2, 2>;
    let images: Vec<Vec<u8>> =
        (0..8).map(|i| variant([TREE, LIST, MACHINE, BINARY][i % 4], 20 + i)).collect();
    let mut flash = Box::new(F::new());
    let mut latest: Option<Vec<u8>> = None;
    let mut rng = 0x1234_5679u32;
    let (mut cut, mut outcomes) = (0, [0usize; 3]);
    for step in 0..3000 {
        rng ^= rng << 13;
        rng ^= rng >> 17;
        rng ^= rng << 5;
        let image = &images[rng as usize % images.len()];
        let ops = Store::<F>::pages_per_save(image.len()) + Store::<F>::words_per_save(image.len());
        flash.reseed(rng);
        let cut_at = (rng >> 8) as usize % (ops + ops / 4);
        flash.cut_after(cut_at);
        let result = Store::new(&mut *flash, 512, 512).unwrap().save(image.as_slice());
        assert_eq!(result.is_ok(), cut_at >= ops, "step {step}");
        cut += usize::from(result.is_err());
        flash.restore_power();
        let now = latest_file(&mut Store::new(&mut *flash, 512, 512).unwrap());
        let outcome = match &now {
            Some(file) if file == image => 0,
            Some(_) if now == latest => 1,
            None if latest.is_none() => 2,
            _ => panic!("step {step}: the latest model is neither the previous nor the new one"),
        };
        outcomes[outcome] += 1;
        latest = now;
        assert_eq!(flash.overwrites(), 0);
    }
    println!(
        "3000 saves, {cut} cut: new model {}, previous kept {}, none {}",
        outcomes[0], outcomes[1], outcomes[2]
    );
    assert!(cut > 2000 && latest.is_some());
}

/// A flash that records the lowest stack address reached inside its calls (the method of
/// `tests/stack.rs`: only addresses are compared, no memory is read).
struct StackProbe<F> {
    inner: F,
    deepest: usize,
}

impl<F: NorFlash> StackProbe<F> {
    fn mark(&mut self) {
        let local = 0u8;
        self.deepest = self.deepest.min(std::hint::black_box(&local) as *const u8 as usize);
    }
}

impl<F: NorFlash> embedded_storage::nor_flash::ErrorType for StackProbe<F> {
    type Error = F::Error;
}

impl<F: NorFlash> ReadNorFlash for StackProbe<F> {
    const READ_SIZE: usize = F::READ_SIZE;

    fn read(&mut self, offset: u32, bytes: &mut [u8]) -> Result<(), Self::Error> {
        self.mark();
        self.inner.read(offset, bytes)
    }

    fn capacity(&self) -> usize {
        self.inner.capacity()
    }
}

impl<F: NorFlash> NorFlash for StackProbe<F> {
    const WRITE_SIZE: usize = F::WRITE_SIZE;
    const ERASE_SIZE: usize = F::ERASE_SIZE;

    fn erase(&mut self, from: u32, to: u32) -> Result<(), Self::Error> {
        self.mark();
        self.inner.erase(from, to)
    }

    fn write(&mut self, offset: u32, bytes: &[u8]) -> Result<(), Self::Error> {
        self.mark();
        self.inner.write(offset, bytes)
    }
}

#[test]
fn stack_use_does_not_depend_on_the_model_size() {
    // Host (x86_64) figures of this build, from the caller's frame down to the flash driver.
    fn depth(file: &[u8]) -> usize {
        let mut store = Store::new(
            StackProbe { inner: MemFlash::<8192, 1024, 4, 4>::new(), deepest: usize::MAX },
            0,
            4096,
        )
        .unwrap();
        let top = 0u8;
        let top = std::hint::black_box(&top) as *const u8 as usize;
        store.save(file).unwrap();
        store.latest().unwrap().unwrap();
        top - store.into_inner().deepest
    }
    let small = depth(BINARY);
    let large = depth(&variant(&vec![3u8; 4000], 9));
    println!(
        "stack from the caller to the flash driver: {small} B (96-byte file), {large} B (4000-byte file)"
    );
    assert_eq!(small, large);
    assert!(small < 1024, "{small} B of stack");
}

/// The learned model file `learner` writes.
fn learned_file(learner: &Learner<'_, '_>) -> Vec<u8> {
    let mut file = vec![0; learner.file_len()];
    assert_eq!(learner.write_to(&mut file), Ok(file.len()));
    file
}

/// `n` updates of `learner` with pseudo-random inputs in -60..60 and labels.
fn learn(learner: &mut Learner<'_, '_>, rng: &mut u32, n: usize) {
    let model = learner.model();
    let (n_inputs, n_classes) = (model.n_inputs(), model.n_classes());
    for _ in 0..n {
        let mut next = || {
            *rng ^= *rng << 13;
            *rng ^= *rng >> 17;
            *rng ^= *rng << 5;
            *rng
        };
        let x: Vec<i32> = (0..n_inputs).map(|_| (next() % 120) as i32 - 60).collect();
        let label = next() as usize % n_classes;
        learner.update(&x, label).unwrap();
    }
}

/// Byte range of `file`'s weight table (the decoder borrows it from the file).
fn weights_range(file: &[u8]) -> std::ops::Range<usize> {
    let weights = Model::from_bytes(file).unwrap().repr().weights;
    let at = weights.as_ptr() as usize - file.as_ptr() as usize;
    at..at + weights.len()
}

#[test]
fn a_learned_model_saved_and_cut_at_every_point_restores_exactly() {
    type F = MemFlash<2048, 128, 4, 4>;
    // The golden binary LTU's weights are at their bounds already: it cannot learn.
    for base in [MACHINE, LIST, TREE] {
        let mut ram = vec![0u8; Learner::ram_needed(base).unwrap()];
        let mut learner = Learner::new(base, &mut ram).unwrap();
        let mut rng = 0xC0FF_EE11;
        learn(&mut learner, &mut rng, 40);
        let a = learned_file(&learner);
        assert_ne!(a, base, "the updates changed the model");
        let mut flash = Box::new(F::new());
        assert_eq!(Store::new(&mut *flash, 0, 1024).unwrap().save(&learner).unwrap().len, a.len());
        learn(&mut learner, &mut rng, 40);
        let b = learned_file(&learner);
        assert_ne!(a, b, "more updates changed the model again");

        let mut points = 0;
        for k in 0.. {
            let mut cut = flash.clone();
            cut.reseed(k as u32 + 1);
            cut.cut_after(k);
            if Store::new(&mut *cut, 0, 1024).unwrap().save(&learner).is_ok() {
                break;
            }
            points += 1;
            cut.restore_power();
            // Reboot: a fresh learner from the base model in flash, then the saved weights.
            let mut ram = vec![0u8; Learner::ram_needed(base).unwrap()];
            let mut fresh = Learner::new(base, &mut ram).unwrap();
            let slot = Store::new(&mut *cut, 0, 1024).unwrap().restore(&mut fresh).unwrap();
            assert!(slot.is_some(), "cut {k}: no model");
            let restored = learned_file(&fresh);
            assert!(
                restored == a || restored == b,
                "cut {k}: restored neither the previous nor the new model"
            );
            assert!(Model::from_bytes(&restored).is_ok());
        }
        println!("learned model of {} bytes: {points} cut points, each restored exactly", base.len());
        let ops = Store::<F>::pages_per_save(b.len()) + Store::<F>::words_per_save(b.len());
        assert_eq!(points, ops);

        // Uncut: the new model restores, and predicts as the learner that saved it.
        Store::new(&mut *flash, 0, 1024).unwrap().save(&learner).unwrap();
        let mut ram = vec![0u8; Learner::ram_needed(base).unwrap()];
        let mut fresh = Learner::new(base, &mut ram).unwrap();
        Store::new(&mut *flash, 0, 1024).unwrap().restore(&mut fresh).unwrap().unwrap();
        assert_eq!(learned_file(&fresh), b);
        let x = vec![7i32; learner.model().n_inputs()];
        assert_eq!(fresh.model().predict(&x), learner.model().predict(&x));
    }
}

#[test]
fn restore_with_no_model_saved_leaves_the_learner_as_it_is() {
    let mut flash = MemFlash::<2048, 128, 4, 4>::new();
    let mut ram = vec![0u8; Learner::ram_needed(BINARY).unwrap()];
    let mut learner = Learner::new(BINARY, &mut ram).unwrap();
    learn(&mut learner, &mut 77, 20);
    let before = learned_file(&learner);
    assert_eq!(Store::new(&mut flash, 0, 1024).unwrap().restore(&mut learner), Ok(None));
    assert_eq!(learned_file(&learner), before);
}

#[test]
fn restore_refuses_a_model_learned_from_another_base() {
    let mut flash = MemFlash::<2048, 128, 4, 4>::new();
    let mut store = Store::new(&mut flash, 0, 1024).unwrap();
    let mut ram = vec![0u8; Learner::ram_needed(LIST).unwrap()];
    let mut learner = Learner::new(LIST, &mut ram).unwrap();
    learn(&mut learner, &mut 5, 20);
    let before = learned_file(&learner);
    assert_ne!(before, LIST);
    // Another length.
    store.save(MACHINE).unwrap();
    assert_eq!(store.restore(&mut learner), Err(StoreError::RestoreOtherBase));
    // The same length, one byte outside the weight table changed (before it, after it, last).
    let weights = weights_range(LIST);
    for at in [0, weights.start - 1, weights.end, LIST.len() - CHECKSUM_LEN - 1] {
        store.save(variant(LIST, at).as_slice()).unwrap();
        assert_eq!(store.restore(&mut learner), Err(StoreError::RestoreOtherBase), "byte {at}");
        assert_eq!(learned_file(&learner), before, "the learner is unchanged");
    }
    // A model another learner of the same base learned restores.
    let mut other_ram = vec![0u8; Learner::ram_needed(LIST).unwrap()];
    let mut other = Learner::new(LIST, &mut other_ram).unwrap();
    learn(&mut other, &mut 6, 20);
    let other_file = learned_file(&other);
    assert_ne!(other_file, before);
    store.save(&other).unwrap();
    assert!(store.restore(&mut learner).unwrap().is_some());
    assert_eq!(learned_file(&learner), other_file);
}

/// `base` with its weight table filled with `byte` and its CRC recomputed.
fn with_weights(base: &[u8], byte: u8) -> Vec<u8> {
    let mut file = base.to_vec();
    file[weights_range(base)].fill(byte);
    let body = file.len() - CHECKSUM_LEN;
    let crc = crc32(&file[..body]);
    file[body..].copy_from_slice(&crc.to_le_bytes());
    file
}

#[test]
fn restore_refuses_weights_the_loader_would_reject() {
    let mut flash = MemFlash::<2048, 128, 4, 4>::new();
    let mut store = Store::new(&mut flash, 0, 1024).unwrap();
    let mut ram = vec![0u8; Learner::ram_needed(BINARY).unwrap()];
    let mut learner = Learner::new(BINARY, &mut ram).unwrap();
    // Zero weights load: the learner takes them.
    let zero = with_weights(BINARY, 0);
    store.save(zero.as_slice()).unwrap();
    assert!(store.restore(&mut learner).unwrap().is_some());
    assert_eq!(learned_file(&learner), zero);
    // i32 weights of 0x7F7F7F7F may overflow the accumulator: the loader rejects them, and so
    // does restore, which puts the base model's weights back.
    let huge = with_weights(BINARY, 0x7F);
    assert_eq!(Model::from_bytes(&huge).err(), Some(ltu_runtime::Error::AccumulatorMayOverflow));
    store.save(huge.as_slice()).unwrap();
    assert_eq!(
        store.restore(&mut learner),
        Err(StoreError::RestoreModel(ltu_runtime::Error::AccumulatorMayOverflow))
    );
    assert_eq!(learned_file(&learner), BINARY, "the learner is back to its base model");
}

//! The fuzz input layout every target reads: `flags: u8`, `len: u16 LE`, then `len` model bytes
//! (fewer if the data is shorter), then the rest. If `flags & 1`, the magic, version and CRC-32 of
//! the model bytes are repaired, so the fuzzer reaches the structural validation instead of
//! stopping at the checksum. `run.sh` seeds the corpus in this layout.

use ltu_runtime::format::{crc32, CHECKSUM_LEN, MAGIC, VERSION};

/// The flags, the model bytes (repaired if `flags & 1`) and the rest of `data`; `None` if `data`
/// is shorter than the header.
pub fn split(data: &[u8]) -> Option<(u8, Vec<u8>, &[u8])> {
    let (&[flags, l0, l1], data) = data.split_first_chunk::<3>()?;
    let len = usize::from(u16::from_le_bytes([l0, l1])).min(data.len());
    let (model_bytes, rest) = data.split_at(len);
    let mut model_bytes = model_bytes.to_vec();
    if flags & 1 != 0 && model_bytes.len() >= 10 {
        model_bytes[..4].copy_from_slice(&MAGIC);
        model_bytes[4..6].copy_from_slice(&VERSION.to_le_bytes());
        let n = model_bytes.len() - CHECKSUM_LEN;
        let crc = crc32(&model_bytes[..n]);
        model_bytes[n..].copy_from_slice(&crc.to_le_bytes());
    }
    Some((flags, model_bytes, rest))
}

/// `rest` as little-endian `i32` values (a trailing partial value is dropped).
#[allow(dead_code)] // c_api reads its rest differently
pub fn values(rest: &[u8]) -> Vec<i32> {
    rest.chunks_exact(4).map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

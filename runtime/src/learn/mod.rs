//! Learning on the device, and keeping the learned model in flash across power cuts.

mod store;

pub use store::{Image, MemFlash, MemFlashError, Slot, Store, StoreError, HEADER_LEN, SLOT_MAGIC};

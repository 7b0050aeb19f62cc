//! `cargo xtask compare --scale`'s data: synthetic problems of the shapes users' data takes at
//! 10^4–10^5 rows.

pub mod synth;

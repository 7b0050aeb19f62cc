//! The trainer's integration tests, one module per file of this directory, in one test binary:
//! built and linked once, and its tests share the machine's cores (cargo runs test binaries one
//! after another). `cargo test -p ltu --test trainer MODULE::` runs one file's tests.

mod common;

mod budget;
mod cli;
mod codegen;
mod codegen_header;
mod codegen_pipeline;
mod data;
mod data_typing;
mod decision_list;
mod essential_work;
mod export;
mod fringe;
mod oblique;
mod perceptron_tree;
mod recordings;
mod scale;
mod sparse_perceptron;
mod update;

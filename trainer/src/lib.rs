//! Learn small, interpretable classifiers built from linear threshold units, and export them to
//! the `ltu-runtime` format that microcontrollers evaluate from flash.
//!
//! The pipeline: [`data`] loads CSV/ARFF, [`encode`] turns values into the integers a model reads,
//! a learner (one module each, registered in [`algo`], implementing [`learner::Learner`]) learns
//! an [`ir::ModelSpec`], [`quantize`] fits its weights to the runtime's proven accumulator bound,
//! and [`algo::finish`] encodes it ([`export`]) and checks that the runtime predicts exactly what
//! the IR's reference evaluator does.
#![deny(missing_docs)]

pub mod algo;
pub mod codegen;
pub mod data;
pub mod decision_list;
pub mod encode;
pub mod evaluate;
pub mod export;
pub mod fringe;
pub mod ir;
pub mod learner;
pub mod names;
pub mod oblique;
pub mod perceptron_tree;
pub mod quantize;
pub mod reduce;
pub mod rng;
pub mod sparse_perceptron;
pub mod split;
pub mod unit_fit;

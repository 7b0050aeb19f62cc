//! The learners, one module each, and the pieces they share.

pub mod decision_list;
pub mod fringe;
pub mod oblique;
pub mod perceptron_tree;
pub mod sparse_perceptron;
pub(crate) mod tree;
pub mod unit_fit;

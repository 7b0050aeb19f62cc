//! The instance space: raw inputs, the features LTUs read, and the bins of numeric attributes.

use crate::data::encode;
use crate::learn::TrainError;
use crate::model::{Feature, InputKind, InputSpec};

/// The instance space a tree learns over: raw inputs, the features LTUs read, and the bins of
/// numeric attributes.
///
/// An instance is a slice of raw input values (`x[a]`: a category index for a categorical
/// input, `n_values` or any out-of-range value meaning unknown; raw units for a numeric one),
/// exactly what the runtime reads, so the exported model computes the same features.
#[derive(Debug, Clone, PartialEq)]
pub struct FeatureSpace {
    pub(super) inputs: Vec<InputSpec>,
    pub(super) features: Vec<Feature>,
    /// Per input: the raw attribute a feature depends on alone (`None` for conjunctions).
    pub(super) feature_attr: Vec<Option<usize>>,
    /// Per numeric input: sorted, distinct bin edges; bin `b` holds `edges[b-1] < x <= edges[b]`.
    pub(super) edges: Vec<Vec<i32>>,
    /// Per input, for the hot path: `(numeric, first edge in flat_edges, edges or values)`.
    slot_info: Vec<(bool, u32, u32)>,
    flat_edges: Vec<i32>,
}

impl FeatureSpace {
    /// A space of `features` over `inputs`; `edges[a]` are the sorted bin edges of numeric input
    /// `a` (ignored for categorical inputs; empty = never split on it).
    ///
    /// # Errors
    /// [`TrainError::InvalidOption`] if a feature reads a missing input or the edges are not
    /// strictly increasing.
    pub fn new(
        inputs: Vec<InputSpec>,
        features: Vec<Feature>,
        mut edges: Vec<Vec<i32>>,
    ) -> Result<Self, TrainError> {
        edges.resize(inputs.len(), Vec::new());
        for (a, inp) in inputs.iter().enumerate() {
            if matches!(inp.kind, InputKind::Categorical { .. }) {
                edges[a].clear();
            } else if edges[a].windows(2).any(|w| w[0] >= w[1]) {
                return Err(TrainError::InvalidOption(format!(
                    "bin edges of input {a} are not strictly increasing"
                )));
            }
        }
        let mut feature_attr = Vec::with_capacity(features.len());
        for f in &features {
            let attr = match f {
                Feature::Numeric { attr, .. }
                | Feature::Equals { attr, .. }
                | Feature::Greater { attr, .. } => Some(*attr),
                Feature::Conjunction(lits) => {
                    if let Some(l) = lits.iter().find(|l| l.attr >= inputs.len()) {
                        return Err(TrainError::InvalidOption(format!(
                            "feature reads input {} of {}",
                            l.attr,
                            inputs.len()
                        )));
                    }
                    None
                }
            };
            if let Some(a) = attr.filter(|&a| a >= inputs.len()) {
                return Err(TrainError::InvalidOption(format!(
                    "feature reads input {a} of {}",
                    inputs.len()
                )));
            }
            feature_attr.push(attr);
        }
        Ok(FeatureSpace::finish(inputs, features, feature_attr, edges))
    }

    /// Boolean or nominal attributes only, in the paper's symmetric encoding: attribute `a` with
    /// `n_values[a]` values gives one `Equals` feature per value (section 4.1).
    pub fn categorical(n_values: &[u16]) -> Self {
        let inputs: Vec<InputSpec> = n_values
            .iter()
            .map(|&n| InputSpec { kind: InputKind::Categorical { n_values: n }, missing: i32::from(n) })
            .collect();
        let features = encode::standard_features(&inputs, &[], 1);
        let feature_attr = features
            .iter()
            .map(|f| match f {
                Feature::Equals { attr, .. } => Some(*attr),
                _ => None,
            })
            .collect();
        let edges = vec![Vec::new(); inputs.len()];
        FeatureSpace::finish(inputs, features, feature_attr, edges)
    }

    /// The standard space of [`encode::standard_features`] over `rows` (raw training inputs),
    /// numeric features quantized to `±max_abs`, and `bins` quantile bins per numeric input.
    pub fn standard(inputs: &[InputSpec], rows: &[Vec<i32>], max_abs: u16, bins: usize) -> Self {
        let features = encode::standard_features(inputs, rows, max_abs);
        let edges = inputs
            .iter()
            .enumerate()
            .map(|(a, inp)| match inp.kind {
                InputKind::Categorical { .. } => Vec::new(),
                InputKind::Numeric { .. } => quantile_edges(rows.iter().map(|r| r[a]).collect(), bins),
            })
            .collect();
        FeatureSpace::new(inputs.to_vec(), features, edges).expect("standard features are valid")
    }

    pub(super) fn finish(
        inputs: Vec<InputSpec>,
        features: Vec<Feature>,
        feature_attr: Vec<Option<usize>>,
        edges: Vec<Vec<i32>>,
    ) -> Self {
        let mut flat_edges = Vec::new();
        let slot_info = inputs
            .iter()
            .zip(&edges)
            .map(|(inp, e)| {
                let start = flat_edges.len() as u32;
                flat_edges.extend_from_slice(e);
                match inp.kind {
                    InputKind::Categorical { n_values } => (false, start, u32::from(n_values)),
                    InputKind::Numeric { .. } => (true, start, e.len() as u32),
                }
            })
            .collect();
        FeatureSpace { inputs, features, feature_attr, edges, slot_info, flat_edges }
    }

    /// Raw input descriptors.
    pub fn inputs(&self) -> &[InputSpec] {
        &self.inputs
    }

    /// Features the LTUs read.
    pub fn features(&self) -> &[Feature] {
        &self.features
    }

    /// Number of count slots of input `a`: values plus "unknown", or bins.
    pub(super) fn n_slots(&self, a: usize) -> usize {
        match self.inputs[a].kind {
            InputKind::Categorical { n_values } => usize::from(n_values) + 1,
            InputKind::Numeric { .. } => self.edges[a].len() + 1,
        }
    }

    /// Count slot of raw value `v` of input `a`: the value, "unknown" (`n_values`), or the bin
    /// (number of edges below `v`).
    #[inline]
    pub(super) fn slot(&self, a: usize, v: i32) -> usize {
        let (numeric, start, n) = self.slot_info[a];
        if !numeric {
            return if (v as u32) < n { v as usize } else { n as usize };
        }
        self.flat_edges[start as usize..(start + n) as usize].partition_point(|&e| e < v)
    }

    /// Encodes raw inputs `x` once: the value of every feature and the count slot of every
    /// input, so that [`PerceptronTree::update_encoded`] presenting it again (epoch after epoch)
    /// neither bins raw values nor recomputes features.
    ///
    /// [`PerceptronTree::update_encoded`]: super::PerceptronTree::update_encoded
    ///
    /// # Panics
    /// If `x` is shorter than the number of inputs.
    pub fn encode(&self, x: &[i32]) -> Encoded {
        let x = &x[..self.inputs.len()];
        Encoded {
            raw: x.to_vec(),
            features: self.features.iter().map(|f| f.value(x)).collect(),
            // Slots are at most 65535 (`n_values` is a `u16`; at most 1023 edges).
            slots: (0..x.len()).map(|a| self.slot(a, x[a]) as u16).collect(),
        }
    }
}

/// A training instance encoded by [`FeatureSpace::encode`]: its raw inputs (read by decision
/// nodes), its feature values (read by LTUs) and its count slots (the split statistics of
/// section 4.2.2). Presenting it with [`PerceptronTree::update_encoded`] has exactly the effect
/// of presenting the raw inputs with [`PerceptronTree::update`].
///
/// [`PerceptronTree::update_encoded`]: super::PerceptronTree::update_encoded
/// [`PerceptronTree::update`]: super::PerceptronTree::update
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Encoded {
    pub(super) raw: Vec<i32>,
    pub(super) features: Vec<i32>,
    pub(super) slots: Vec<u16>,
}

impl Encoded {
    /// The raw inputs.
    pub fn raw(&self) -> &[i32] {
        &self.raw
    }

    /// The value of every feature of the space, in the space's order.
    pub fn features(&self) -> &[i32] {
        &self.features
    }
}

/// An instance as [`PerceptronTree::update`] receives it, or already encoded.
#[derive(Clone, Copy)]
pub(super) enum Instance<'a> {
    Raw(&'a [i32]),
    Encoded(&'a Encoded),
}

impl<'a> Instance<'a> {
    #[inline]
    pub(super) fn raw(self) -> &'a [i32] {
        match self {
            Instance::Raw(x) => x,
            Instance::Encoded(e) => &e.raw,
        }
    }
}

/// Up to `bins - 1` distinct edges splitting `values` into about equally full bins; an edge `e`
/// sends `x <= e` left. Edges at or above the maximum are dropped (they split nothing).
pub(super) fn quantile_edges(mut values: Vec<i32>, bins: usize) -> Vec<i32> {
    values.sort_unstable();
    let Some(&max) = values.last() else { return Vec::new() };
    let n = values.len();
    let mut edges: Vec<i32> =
        (1..bins).map(|i| values[(i * n / bins).saturating_sub(1)]).filter(|&e| e < max).collect();
    edges.dedup();
    edges
}

//! The `ltu` subcommands as library functions: each takes its parsed arguments and returns a
//! report that prints for a person (`Display`) or as one JSON object (`serde::Serialize`).

use std::fmt::{self, Write as _};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context as _, Result};
use serde::Serialize;

use crate::algo::{self, Algo, Context, Options};
use crate::data::{self, AttrKind, Attribute, Dataset, LoadOptions, Schema};
use crate::encode;
use crate::export::{
    Feature, InputKind, InputSpec, LiteralOp, ModelSpec, Node, Stats, Structure, WeightKind,
};
use crate::{decision_list, perceptron_tree, sparse_perceptron, split};

/// Weight representation as given on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Weights {
    /// 8-bit integers.
    I8,
    /// 16-bit integers.
    I16,
    /// 32-bit integers.
    I32,
    /// I16F16 fixed point.
    Fixed,
}

impl From<Weights> for WeightKind {
    fn from(w: Weights) -> Self {
        match w {
            Weights::I8 => WeightKind::I8,
            Weights::I16 => WeightKind::I16,
            Weights::I32 => WeightKind::I32,
            Weights::Fixed => WeightKind::Fixed,
        }
    }
}

/// How to read a data file.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct DataArgs {
    /// Class column (default: the last column).
    #[arg(long, value_name = "NAME")]
    pub target: Option<String>,
    /// Drop columns (repeatable, or a comma list: `--ignore a,b`).
    #[arg(long, value_name = "NAME", value_delimiter = ',')]
    pub ignore: Vec<String>,
    /// Read columns as numbers (train and cv; repeatable, or a comma list).
    #[arg(long, value_name = "NAME", value_delimiter = ',')]
    pub numeric: Vec<String>,
    /// Read columns as categories even if their values are numbers (train and cv; repeatable,
    /// or a comma list); needed for a class column of numbers.
    #[arg(long, value_name = "NAME", value_delimiter = ',')]
    pub categorical: Vec<String>,
    /// Words that mark a missing value in a numeric column, as a comma list (replaces the
    /// default list; `?` and empty cells are always missing) [default: ?,,NA,N/A,NaN,nan,null,NULL]
    #[arg(long, value_name = "WORDS", value_delimiter = ',', allow_hyphen_values = true)]
    pub missing_values: Option<Vec<String>>,
}

impl DataArgs {
    fn options(&self) -> LoadOptions {
        LoadOptions {
            target: self.target.clone(),
            ignore: self.ignore.clone(),
            numeric: self.numeric.clone(),
            categorical: self.categorical.clone(),
            missing_values: self.missing_values.clone(),
            ..LoadOptions::default()
        }
    }
}

/// Parses a `usize` of at least `MIN`.
fn at_least<const MIN: usize>(s: &str) -> std::result::Result<usize, String> {
    let v: usize = s.parse().map_err(|e| format!("{e}"))?;
    if v < MIN {
        return Err(format!("must be at least {MIN}"));
    }
    Ok(v)
}

/// Parses a `usize` in `MIN..=MAX`.
fn in_range<const MIN: usize, const MAX: usize>(s: &str) -> std::result::Result<usize, String> {
    let v: usize = s.parse().map_err(|e| format!("{e}"))?;
    if !(MIN..=MAX).contains(&v) {
        return Err(format!("must be in {MIN}..={MAX}"));
    }
    Ok(v)
}

/// `0` or at least 2 (folds of an inner cross-validation).
fn zero_or_two_plus(s: &str) -> std::result::Result<usize, String> {
    let v: usize = s.parse().map_err(|e| format!("{e}"))?;
    if v == 1 {
        return Err("must be 0 (off) or at least 2".into());
    }
    Ok(v)
}

/// A fraction in `[0, 0.9)`.
fn prune_fraction(s: &str) -> std::result::Result<f64, String> {
    let v: f64 = s.parse().map_err(|e| format!("{e}"))?;
    if !(0.0..0.9).contains(&v) {
        return Err("must be in [0, 0.9)".into());
    }
    Ok(v)
}

/// `--numeric-max-abs` as the trainers accept it.
fn numeric_max_abs(s: &str) -> std::result::Result<u16, String> {
    in_range::<1, 32767>(s).map(|v| v as u16)
}

/// A value's command-line name.
fn cli_name<E: clap::ValueEnum>(e: E) -> String {
    e.to_possible_value().map_or_else(String::new, |v| v.get_name().to_string())
}

fn ptree_defaults() -> (perceptron_tree::Params, perceptron_tree::Params) {
    (perceptron_tree::Params::default(), perceptron_tree::Params::paper())
}

/// Options shared by `train` and `cv`.
#[derive(Debug, Clone, clap::Args)]
pub struct LearnArgs {
    /// Learning algorithm.
    #[arg(long, value_enum)]
    pub algo: Algo,
    /// Seed for every random choice: same data, options and seed give a byte-identical model.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Weight representation (default: the smallest integer type that holds the model exactly).
    #[arg(long, value_enum)]
    pub weights: Option<Weights>,
    /// Leave class, attribute and value names out of the model file (smaller; `eval` and
    /// `predict` then cannot map data by name).
    #[arg(long)]
    pub no_names: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub data: DataArgs,
    /// Fraction of the training rows held out to prune the model (ptree, ndl, hsi, oblique, fringe).
    #[arg(long, value_name = "FRACTION", value_parser = prune_fraction,
          help = format!(
              "Fraction of the training rows held out to prune the model, in [0, 0.9) (ptree, ndl, hsi, oblique, fringe) [default: {} for ptree, {} for ndl and hsi, {} for oblique, {:.3} for fringe]",
              perceptron_tree::Params::default().prune_fraction,
              decision_list::Params::default().validation,
              crate::oblique::Params::default().prune_fraction,
              crate::fringe::Params::default().prune_fraction
          ))]
    pub prune_fraction: Option<f64>,
    /// Numeric attributes become features quantized to [-N, N] (ptree, ndl, hsi, oblique).
    #[arg(long, value_name = "N", value_parser = numeric_max_abs,
          help = format!(
              "Numeric attributes become features quantized to [-N, N], N in 1..=32767 (ptree, ndl, hsi, oblique) [default: {} for ptree, {} for ndl and hsi, {} for oblique]",
              perceptron_tree::Params::default().numeric_max_abs,
              decision_list::Params::default().feature_max_abs,
              crate::oblique::Params::default().numeric_max_abs
          ))]
    pub numeric_max_abs: Option<u16>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub ptree: PtreeArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub ndl: NdlArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub sparse: SparseArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub oblique: ObliqueArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub fringe: FringeArgs,
}

/// The network at each oblique node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum NodeArg {
    /// ID-LP: a linear perceptron.
    Linear,
    /// ID-MLP: one hidden layer.
    Mlp,
    /// The MLP only where a significance test prefers it.
    Hybrid,
}

/// How an oblique node splits the classes in two.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PartitionArg {
    /// Greedy, from the two classes whose means are furthest apart.
    Selection,
    /// Local search (Guo & Gelfand 1992).
    Exchange,
}

/// Oblique tree options (`--algo oblique`); unset options keep their defaults.
#[derive(Debug, Clone, Default, clap::Args)]
#[command(next_help_heading = "Oblique tree options (--algo oblique)")]
pub struct ObliqueArgs {
    /// Network at each decision node: linear (ID-LP), mlp (one hidden layer, hard-threshold
    /// units on the device) or hybrid (the MLP only where a significance test prefers it)
    /// [default: linear].
    #[arg(long, value_enum)]
    pub node: Option<NodeArg>,
    /// Class partition at nodes with more than two classes [default: exchange].
    #[arg(long, value_enum)]
    pub partition: Option<PartitionArg>,
    /// Most oblique splits on a path from the root.
    #[arg(long, value_name = "N", value_parser = at_least::<1>,
          help = format!("Most oblique splits on a path from the root [default: {}]", crate::oblique::Params::default().max_depth))]
    pub oblique_depth: Option<usize>,
    /// Most oblique splits in the tree.
    #[arg(long, value_name = "N", value_parser = at_least::<1>,
          help = format!("Most oblique splits in the tree [default: {}]", crate::oblique::Params::default().max_nodes))]
    pub oblique_nodes: Option<usize>,
}

impl ObliqueArgs {
    fn params(&self) -> crate::oblique::Params {
        let mut p = crate::oblique::Params::default();
        if let Some(v) = self.node {
            p.node = match v {
                NodeArg::Linear => crate::oblique::NodeModel::Linear,
                NodeArg::Mlp => crate::oblique::NodeModel::Mlp,
                NodeArg::Hybrid => crate::oblique::NodeModel::Hybrid,
            };
        }
        if let Some(v) = self.partition {
            p.partition = match v {
                PartitionArg::Selection => crate::oblique::Partition::Selection,
                PartitionArg::Exchange => crate::oblique::Partition::Exchange,
            };
        }
        if let Some(v) = self.oblique_depth {
            p.max_depth = v;
        }
        if let Some(v) = self.oblique_nodes {
            p.max_nodes = v;
        }
        p
    }
}

/// Which FRINGE leaves define features.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FringeRuleArg {
    /// dnf for two classes, symmetric for more.
    Auto,
    /// Conjunctions at the positive leaves (the paper's method).
    Dnf,
    /// The dual: disjunctions at the negative leaves.
    Cnf,
    /// Every leaf (several classes).
    Symmetric,
}

/// FRINGE options (`--algo fringe`); unset options keep their defaults.
#[derive(Debug, Clone, Default, clap::Args)]
#[command(next_help_heading = "FRINGE options (--algo fringe)")]
pub struct FringeArgs {
    /// Which leaves define the new features [default: auto].
    #[arg(long, value_enum)]
    pub fringe_rule: Option<FringeRuleArg>,
    /// Stop adding features at this many variables, primitive ones included.
    #[arg(long, value_name = "N", value_parser = at_least::<1>,
          help = format!("Stop adding features at this many variables, primitive ones included [default: {}]", crate::fringe::Params::default().max_variables))]
    pub max_variables: Option<usize>,
    /// The paper's random baseline: conjunctions of two random variables instead of the fringe
    /// heuristic.
    #[arg(long)]
    pub random_features: bool,
}

impl FringeArgs {
    fn params(&self) -> crate::fringe::Params {
        use crate::fringe::{FeatureRule, Proposal};
        let mut p = crate::fringe::Params::default();
        if let Some(r) = self.fringe_rule {
            p.rule = match r {
                FringeRuleArg::Auto => FeatureRule::Auto,
                FringeRuleArg::Dnf => FeatureRule::Dnf,
                FringeRuleArg::Cnf => FeatureRule::Cnf,
                FringeRuleArg::Symmetric => FeatureRule::Symmetric,
            };
        }
        if let Some(v) = self.max_variables {
            p.max_variables = v;
        }
        if self.random_features {
            p.proposal = Proposal::Random;
        }
        p
    }
}

/// Perceptron tree options (`--algo ptree`); unset options keep their defaults.
#[derive(Debug, Clone, Default, clap::Args)]
#[command(next_help_heading = "Perceptron tree options (--algo ptree)")]
pub struct PtreeArgs {
    /// Start from the paper's configuration (cyclic order, no pocket, no stopping rules).
    #[arg(long)]
    pub paper: bool,
    /// Maximum passes over the data (training stops once the tree is consistent).
    #[arg(long, value_name = "N", value_parser = at_least::<1>, help = {
        let (d, p) = ptree_defaults();
        format!("Maximum passes over the data, at least 1 (training stops once the tree is consistent) [default: {}; --paper: {}]", d.epochs, p.epochs)
    })]
    pub epochs: Option<usize>,
    /// Presentation order in each epoch.
    #[arg(long, value_enum, help = {
        let (d, p) = ptree_defaults();
        format!("Presentation order in each epoch [default: {}; --paper: {}]", cli_name(d.order), cli_name(p.order))
    })]
    pub order: Option<perceptron_tree::Order>,
    /// When an LTU splits.
    #[arg(long, value_enum, help = format!(
        "When an LTU splits: `progress` (C > log dim W, section 4.2.1) or `corollary1` (exact) [default: {}]",
        cli_name(perceptron_tree::Params::default().split_rule)
    ))]
    pub split_rule: Option<perceptron_tree::SplitRule>,
    /// Logarithm of the progress test.
    #[arg(long, value_enum, help = format!(
        "Logarithm of the progress test [default: {}]",
        cli_name(perceptron_tree::Params::default().log_base)
    ))]
    pub log_base: Option<perceptron_tree::LogBase>,
    /// Keep pocket weights (Gallant): `--pocket true|false`.
    #[arg(long, value_name = "BOOL", help = {
        let (d, p) = ptree_defaults();
        format!("Keep pocket weights (Gallant) [default: {}; --paper: {}]", d.pocket, p.pocket)
    })]
    pub pocket: Option<bool>,
    /// Instances an LTU must see before it may split.
    #[arg(long, value_name = "N", help = {
        let (d, p) = ptree_defaults();
        format!("Instances an LTU must see before it may split [default: {}; --paper: {}]", d.min_split, p.min_split)
    })]
    pub min_split: Option<u64>,
    /// Maximum decision nodes on a path.
    #[arg(long, value_name = "N", help = format!(
        "Maximum decision nodes on a path; the tree then has at most N + 1 levels, the leaf included, \
         which is the depth `inspect` reports [default: {}; --paper: unlimited]",
        perceptron_tree::Params::default().max_depth
    ))]
    pub max_depth: Option<usize>,
    /// Histogram bins per numeric attribute for threshold splits.
    #[arg(long, value_name = "N", value_parser = in_range::<2, 1024>, help = format!(
        "Histogram bins per numeric attribute for threshold splits, 2..=1024 [default: {}]",
        perceptron_tree::Params::default().numeric_bins
    ))]
    pub numeric_bins: Option<usize>,
}

impl PtreeArgs {
    fn params(&self) -> perceptron_tree::Params {
        let mut p =
            if self.paper { perceptron_tree::Params::paper() } else { perceptron_tree::Params::default() };
        macro_rules! set {
            ($($f:ident),*) => {$( if let Some(v) = self.$f { p.$f = v; } )*};
        }
        set!(epochs, order, split_rule, log_base, pocket, min_split, max_depth, numeric_bins);
        p
    }
}

/// Halfspace search of `ndl` and `hsi`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SearchArg {
    /// `Find_large_neg_subset` (section 4.1), the paper's method.
    Flns,
    /// `mult_IncLP` over random orders (`--search-effort` passes, default 20).
    Mult,
    /// Pocket algorithm with ratchet (`--search-effort` thousand iterations, default 20).
    Pocket,
}

/// Decision list options (`--algo ndl` and `--algo hsi`); unset options keep their defaults.
#[derive(Debug, Clone, Default, clap::Args)]
#[command(next_help_heading = "Decision list options (--algo ndl, hsi)")]
pub struct NdlArgs {
    /// How each halfspace is searched for.
    #[arg(long, value_enum, help = "How each halfspace is searched for [default: flns]")]
    pub search: Option<SearchArg>,
    /// Passes of `mult`, or thousands of iterations of `pocket`.
    #[arg(long, value_name = "N", value_parser = at_least::<1>,
          help = "Passes of `--search mult`, or thousands of iterations of `--search pocket` [default: 20]")]
    pub search_effort: Option<usize>,
    /// Cap on the outer passes of Find_large_neg_subset.
    #[arg(long, value_name = "N", value_parser = at_least::<1>,
          help = "Cap on the outer passes of Find_large_neg_subset [default: none]")]
    pub max_passes: Option<usize>,
    /// Largest number of list entries.
    #[arg(long, value_name = "N", value_parser = at_least::<1>, help = "Largest number of list entries [default: none]")]
    pub max_nodes: Option<usize>,
    /// Stop when the best new node covers fewer training rows than this.
    #[arg(long, value_name = "N", help = format!(
        "Stop when the best new node covers fewer training rows than this [default: {}]",
        decision_list::Params::default().min_cover
    ))]
    pub min_cover: Option<usize>,
    /// Re-solve each halfspace for the largest margin.
    #[arg(long, value_name = "BOOL", help = format!(
        "Re-solve each halfspace for the largest margin [default: {}]",
        decision_list::Params::default().max_margin
    ))]
    pub max_margin: Option<bool>,
    /// `hsi`: intersection or union of halfspaces.
    #[arg(
        long,
        value_enum,
        help = "`--algo hsi` only: intersection or union of halfspaces [default: intersection]"
    )]
    pub hsi_shape: Option<HsiShapeArg>,
    /// `hsi`: name of the positive class.
    #[arg(
        long,
        value_name = "CLASS",
        help = "`--algo hsi` only: name of the positive class [default: try both, keep the shorter list]"
    )]
    pub positive: Option<String>,
    /// Give rows with identical inputs their majority class before building.
    #[arg(long, value_name = "BOOL", help = format!(
        "Give rows with identical inputs their majority class before building (`false`: the paper's exact \
         method, which stops at contradictory examples) [default: {}]",
        decision_list::Params::default().relabel_duplicates
    ))]
    pub relabel_duplicates: Option<bool>,
    /// Reuse a class's earlier cover while it is intact.
    #[arg(long, value_name = "BOOL", help = format!(
        "Reuse a class's earlier cover while it is intact instead of searching every class at every step \
         (`false`: the paper's section 5.2) [default: {}]",
        decision_list::Params::default().reuse_covers
    ))]
    pub reuse_covers: Option<bool>,
}

fn sparse_default() -> sparse_perceptron::Params {
    sparse_perceptron::Params::default()
}

/// Sparse perceptron options (`--algo sparse`); unset options keep their defaults.
#[derive(Debug, Clone, Default, clap::Args)]
#[command(next_help_heading = "Sparse perceptron options (--algo sparse)")]
pub struct SparseArgs {
    /// Most literals in one conjunction (k).
    #[arg(long, value_name = "K", value_parser = at_least::<1>, help = format!(
        "Most literals in one conjunction (k), at least 1 [default: {}]",
        sparse_default().max_literals
    ))]
    pub max_literals: Option<usize>,
    /// Most boosting rounds.
    #[arg(long, value_name = "N", value_parser = at_least::<1>,
          help = "Most boosting rounds, at least 1 [default: the number of weights of an ordinary perceptron]")]
    pub rounds: Option<usize>,
    /// Folds of the inner cross-validation that picks the number of rounds (0 = off).
    #[arg(long, value_name = "N", value_parser = zero_or_two_plus, help = format!(
        "Folds of the inner cross-validation that picks the number of rounds: 0 (off) or at least 2 [default: {}]",
        sparse_default().validation_folds
    ))]
    pub validation_folds: Option<usize>,
    /// Prefer single literals over conjunctions.
    #[arg(long, value_name = "BOOL", help = format!(
        "Prefer single literals over conjunctions [default: {}]",
        sparse_default().prefer_simple
    ))]
    pub prefer_simple: Option<bool>,
    /// Also offer `attribute != value` literals.
    #[arg(long, value_name = "BOOL", help = format!(
        "Also offer `attribute != value` literals [default: {}]",
        sparse_default().negated_literals
    ))]
    pub negated_literals: Option<bool>,
    /// Most threshold cut points per numeric attribute.
    #[arg(long, value_name = "N", value_parser = at_least::<1>, help = format!(
        "Most threshold cut points per numeric attribute, at least 1 [default: {}]",
        sparse_default().max_cuts
    ))]
    pub max_cuts: Option<usize>,
    /// Stop boosting once the training data are classified correctly.
    #[arg(long, value_name = "BOOL", help = format!(
        "Stop boosting once the training data are classified correctly [default: {}]",
        sparse_default().stop_when_consistent
    ))]
    pub stop_when_consistent: Option<bool>,
}

impl SparseArgs {
    fn params(&self) -> sparse_perceptron::Params {
        let mut p = sparse_perceptron::Params::default();
        if self.rounds.is_some() {
            p.rounds = self.rounds;
        }
        macro_rules! set {
            ($($f:ident),*) => {$( if let Some(v) = self.$f { p.$f = v; } )*};
        }
        set!(max_literals, validation_folds, prefer_simple, negated_literals, max_cuts, stop_when_consistent);
        p
    }
}

/// Shape of an `hsi` model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum HsiShapeArg {
    /// AND of halfspaces that contain every positive example.
    Intersection,
    /// OR of halfspaces that contain no negative example.
    Union,
}

impl NdlArgs {
    fn params(&self, schema: &Schema) -> Result<decision_list::Params> {
        let mut p = decision_list::Params::default();
        if let Some(search) = self.search {
            let effort = self.search_effort.unwrap_or(20);
            p.search = match search {
                SearchArg::Flns => decision_list::Search::FindLargeNegSubset,
                SearchArg::Mult => decision_list::Search::MultIncLp { passes: effort },
                SearchArg::Pocket => decision_list::Search::Pocket { kilo_iterations: effort },
            };
        }
        if self.max_passes.is_some() {
            p.max_passes = self.max_passes;
        }
        if self.max_nodes.is_some() {
            p.max_nodes = self.max_nodes;
        }
        if let Some(v) = self.min_cover {
            p.min_cover = v;
        }
        if let Some(v) = self.max_margin {
            p.max_margin = v;
        }
        if let Some(v) = self.relabel_duplicates {
            p.relabel_duplicates = v;
        }
        if let Some(v) = self.reuse_covers {
            p.reuse_covers = v;
        }
        if let Some(shape) = self.hsi_shape {
            p.hsi_shape = match shape {
                HsiShapeArg::Intersection => decision_list::HsiShape::Intersection,
                HsiShapeArg::Union => decision_list::HsiShape::Union,
            };
        }
        if let Some(name) = &self.positive {
            let Some(k) = schema.classes.iter().position(|c| c == name) else {
                bail!("--positive {name:?} is not a class; the classes are {:?}", schema.classes);
            };
            p.positive = Some(k);
        }
        Ok(p)
    }
}

impl LearnArgs {
    /// Defaults for `algo`: seed 0, automatic weights, names kept, every option at its default.
    pub fn new(algo: Algo) -> Self {
        LearnArgs {
            algo,
            seed: 0,
            weights: None,
            no_names: false,
            data: DataArgs::default(),
            prune_fraction: None,
            numeric_max_abs: None,
            ptree: PtreeArgs::default(),
            ndl: NdlArgs::default(),
            sparse: SparseArgs::default(),
            oblique: ObliqueArgs::default(),
            fringe: FringeArgs::default(),
        }
    }

    /// Refuses options that the chosen algorithm does not use (they would be silently ignored).
    ///
    /// # Errors
    /// Names the first such option and the algorithms it belongs to.
    pub fn check_applicable(&self) -> Result<()> {
        use Algo::{Fringe, Hsi, Ndl, Oblique, Ptree, Sparse};
        const TREE_LIST: &[Algo] = &[Ptree, Ndl, Hsi, Oblique];
        let (p, n, s) = (&self.ptree, &self.ndl, &self.sparse);
        let given: [(&str, bool, &[Algo]); 25] = [
            ("--prune-fraction", self.prune_fraction.is_some(), &[Ptree, Ndl, Hsi, Oblique, Fringe]),
            ("--numeric-max-abs", self.numeric_max_abs.is_some(), TREE_LIST),
            ("--paper", p.paper, &[Ptree]),
            ("--epochs", p.epochs.is_some(), &[Ptree]),
            ("--order", p.order.is_some(), &[Ptree]),
            ("--split-rule", p.split_rule.is_some(), &[Ptree]),
            ("--log-base", p.log_base.is_some(), &[Ptree]),
            ("--pocket", p.pocket.is_some(), &[Ptree]),
            ("--min-split", p.min_split.is_some(), &[Ptree]),
            ("--max-depth", p.max_depth.is_some(), &[Ptree]),
            ("--numeric-bins", p.numeric_bins.is_some(), &[Ptree]),
            ("--search", n.search.is_some(), &[Ndl, Hsi]),
            ("--search-effort", n.search_effort.is_some(), &[Ndl, Hsi]),
            ("--max-passes", n.max_passes.is_some(), &[Ndl, Hsi]),
            ("--max-nodes", n.max_nodes.is_some(), &[Ndl, Hsi]),
            ("--min-cover", n.min_cover.is_some(), &[Ndl, Hsi]),
            ("--max-margin", n.max_margin.is_some(), &[Ndl, Hsi]),
            ("--hsi-shape", n.hsi_shape.is_some(), &[Hsi]),
            ("--positive", n.positive.is_some(), &[Hsi]),
            ("--relabel-duplicates", n.relabel_duplicates.is_some(), &[Ndl, Hsi]),
            ("--reuse-covers", n.reuse_covers.is_some(), &[Ndl, Hsi]),
            ("--max-literals", s.max_literals.is_some(), &[Sparse]),
            ("--rounds", s.rounds.is_some(), &[Sparse]),
            ("--validation-folds", s.validation_folds.is_some(), &[Sparse]),
            ("--max-cuts", s.max_cuts.is_some(), &[Sparse]),
        ];
        let (o, f) = (&self.oblique, &self.fringe);
        let more: [(&str, bool, &[Algo]); 10] = [
            ("--prefer-simple", s.prefer_simple.is_some(), &[Sparse]),
            ("--negated-literals", s.negated_literals.is_some(), &[Sparse]),
            ("--stop-when-consistent", s.stop_when_consistent.is_some(), &[Sparse]),
            ("--node", o.node.is_some(), &[Oblique]),
            ("--partition", o.partition.is_some(), &[Oblique]),
            ("--oblique-depth", o.oblique_depth.is_some(), &[Oblique]),
            ("--oblique-nodes", o.oblique_nodes.is_some(), &[Oblique]),
            ("--fringe-rule", f.fringe_rule.is_some(), &[Fringe]),
            ("--max-variables", f.max_variables.is_some(), &[Fringe]),
            ("--random-features", f.random_features, &[Fringe]),
        ];
        for (name, set, algos) in given.into_iter().chain(more) {
            if set && !algos.contains(&self.algo) {
                let list: Vec<String> = algos.iter().map(|a| format!("--algo {a}")).collect();
                bail!(
                    "{name} does not apply to --algo {}; it is an option of {}",
                    self.algo,
                    list.join(", ")
                );
            }
        }
        if n.search_effort.is_some() && !matches!(n.search, Some(SearchArg::Mult | SearchArg::Pocket)) {
            bail!("--search-effort applies to --search mult or --search pocket only");
        }
        Ok(())
    }

    /// The algorithms' options for data with this schema.
    ///
    /// # Errors
    /// An option names a class the data does not have.
    pub fn options(&self, schema: &Schema) -> Result<Options> {
        let mut ptree = self.ptree.params();
        let mut ndl = self.ndl.params(schema)?;
        let mut oblique = self.oblique.params();
        let mut fringe = self.fringe.params();
        if let Some(f) = self.prune_fraction {
            ptree.prune_fraction = f;
            ndl.validation = f;
            oblique.prune_fraction = f;
            fringe.prune_fraction = f;
        }
        if let Some(n) = self.numeric_max_abs {
            ptree.numeric_max_abs = n;
            ndl.feature_max_abs = n;
            oblique.numeric_max_abs = n;
        }
        Ok(Options { ptree, ndl, sparse: self.sparse.params(), oblique, fringe })
    }
}

fn load(path: &Path, args: &DataArgs) -> Result<(Dataset, Vec<String>)> {
    Ok(data::load_with_warnings(path, &args.options())?)
}

/// A warning when a model predicts one class for every training row.
fn trivial_model_warning(
    spec: &ModelSpec,
    raw: &[Vec<i32>],
    classes: &[String],
    what: &str,
) -> Option<String> {
    let first = spec.predict(raw.first()?);
    if raw.iter().all(|x| spec.predict(x) == first) {
        Some(format!(
            "{what} predicts `{}` for every one of its {} training rows (a trivial model); the data may \
             not carry the information, or the options may be too restrictive",
            classes.get(first).map_or("?", String::as_str),
            raw.len()
        ))
    } else {
        None
    }
}

/// Writes `bytes` to `path` atomically: a temporary file in the same directory, then a rename,
/// so a failure never leaves a half-written model. `path` must be (or become) a regular file; use
/// [`Output`] to write to what a user names on the command line.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().with_context(|| format!("{}: not a file path", path.display()))?;
    // Keep the permissions of the file being replaced.
    let permissions = std::fs::metadata(path).ok().filter(|m| m.is_file()).map(|m| m.permissions());
    let mut attempt = 0;
    let (tmp, mut file) = loop {
        let tmp = dir.join(format!(".{}.{}.{attempt}.tmp", name.to_string_lossy(), std::process::id()));
        // `create_new` never follows a symlink or reuses a file someone else put there.
        match std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(f) => break (tmp, f),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempt < 100 => attempt += 1,
            Err(e) => return Err(e).with_context(|| format!("{}: cannot write model", path.display())),
        }
    };
    let result = (|| {
        file.write_all(bytes)?;
        if let Some(p) = permissions {
            file.set_permissions(p)?;
        }
        file.sync_all()?;
        drop(file);
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(e).with_context(|| format!("{}: cannot write model", path.display()));
    }
    Ok(())
}

/// Where a command's output file goes, decided before any work is done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output {
    /// `-`: standard output.
    Stdout,
    /// A regular file (existing or not), after following symlinks: written atomically in its
    /// own directory.
    File(PathBuf),
    /// A character or block device or a FIFO (`/dev/null`, `mkfifo`): written through, never
    /// replaced.
    Device(PathBuf),
}

/// Follows `path` through symlinks (also dangling ones, whose target is then created).
fn resolve_symlinks(path: &Path) -> Result<PathBuf> {
    let mut path = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_symlink() => {
                let target = std::fs::read_link(&path)
                    .with_context(|| format!("{}: cannot read the symlink", path.display()))?;
                let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
                path = dir.join(target);
            }
            _ => return Ok(path),
        }
    }
    bail!("{}: too many levels of symbolic links", path.display())
}

#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(_: &std::fs::Metadata, _: &std::fs::Metadata) -> bool {
    false
}

impl Output {
    /// Decides how to write `path`: `-` is standard output; symlinks are followed; a device or
    /// FIFO is written through; anything else that exists and is not a regular file is refused,
    /// and so is any of `inputs` (compared by file identity, so a symlink or a hard link to an
    /// input is caught too).
    ///
    /// # Errors
    /// `path` is a directory, a socket or other non-regular file, or one of `inputs`.
    pub fn resolve(path: &Path, inputs: &[&Path]) -> Result<Output> {
        if path.as_os_str() == "-" {
            return Ok(Output::Stdout);
        }
        let target = resolve_symlinks(path)?;
        let shown = if target == path {
            path.display().to_string()
        } else {
            format!("{} (-> {})", path.display(), target.display())
        };
        let Ok(meta) = std::fs::metadata(&target) else {
            return Ok(Output::File(target));
        };
        for input in inputs.iter().filter(|p| p.as_os_str() != "-") {
            if std::fs::metadata(input).is_ok_and(|m| same_file(&m, &meta)) {
                bail!(
                    "{shown}: is the input file {}; refusing to overwrite it (choose another -o)",
                    input.display()
                );
            }
        }
        let kind = meta.file_type();
        if kind.is_file() {
            return Ok(Output::File(target));
        }
        if kind.is_dir() {
            bail!("{shown}: is a directory; give a file name with -o");
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileTypeExt;
            if kind.is_char_device() || kind.is_block_device() || kind.is_fifo() {
                return Ok(Output::Device(target));
            }
        }
        bail!("{shown}: is not a regular file, a device or a FIFO; refusing to replace it")
    }

    /// Writes `bytes`: atomically for a file, straight through for a device or stdout.
    ///
    /// # Errors
    /// The write fails (nothing is left behind for a file).
    pub fn write(&self, bytes: &[u8]) -> Result<()> {
        match self {
            Output::Stdout => {
                let mut out = std::io::stdout().lock();
                out.write_all(bytes).and_then(|()| out.flush()).context("cannot write the model to stdout")
            }
            Output::File(path) => write_atomic(path, bytes),
            Output::Device(path) => {
                let mut f = std::fs::OpenOptions::new()
                    .write(true)
                    .open(path)
                    .with_context(|| format!("{}: cannot open for writing", path.display()))?;
                f.write_all(bytes)
                    .and_then(|()| f.flush())
                    .with_context(|| format!("{}: cannot write model", path.display()))
            }
        }
    }

    /// How reports name it.
    pub fn describe(&self) -> String {
        match self {
            Output::Stdout => "(stdout)".into(),
            Output::File(p) | Output::Device(p) => p.display().to_string(),
        }
    }
}

/// Result of `ltu train`.
#[derive(Debug, Serialize)]
pub struct TrainReport {
    /// Algorithm.
    pub algo: Algo,
    /// Training data file.
    pub data: String,
    /// Model file written.
    pub model: String,
    /// Training rows.
    pub n: usize,
    /// Accuracy of the exported model on the training data.
    pub train_accuracy: f64,
    /// Model file size.
    pub model_bytes: usize,
    /// Weight representation.
    pub weights: String,
    /// Units whose weights were scaled down to fit the representation.
    pub rescaled_units: usize,
    /// Size figures.
    #[serde(flatten)]
    pub stats: Stats,
    /// Wall-clock training time.
    pub seconds: f64,
    /// Decisions the user may not expect (also printed on standard error).
    pub warnings: Vec<String>,
    /// What the learner did: its own report (pruning, epochs, quantization changes, ...).
    pub learner: serde_json::Value,
}

impl fmt::Display for TrainReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "trained {} on {} ({} rows) in {:.2} s", self.algo, self.data, self.n, self.seconds)?;
        writeln!(f, "training accuracy  {:.2}%", 100.0 * self.train_accuracy)?;
        writeln!(
            f,
            "model              {} ({} bytes, {} weights)",
            self.model, self.model_bytes, self.weights
        )?;
        writeln!(
            f,
            "structure          {} decision nodes, {} leaves, {} LTUs, {} non-zero weights",
            self.stats.decision_nodes, self.stats.leaves, self.stats.ltus, self.stats.weights_nonzero
        )?;
        write!(
            f,
            "worst case         {} multiply-accumulates, depth {} (nodes on the longest path, leaf included)",
            self.stats.max_macs, self.stats.max_depth
        )?;
        if self.rescaled_units > 0 {
            write!(
                f,
                "\nnote: {} units were scaled down to fit {} weights",
                self.rescaled_units, self.weights
            )?;
        }
        Ok(())
    }
}

/// `ltu train`: learn, export, verify, write atomically.
///
/// # Errors
/// Bad data, bad options, an export failure, or a write failure.
pub fn train(
    data_path: &Path,
    out: &Path,
    learn: &LearnArgs,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<TrainReport> {
    let start = Instant::now();
    learn.check_applicable()?;
    let output = Output::resolve(out, &[data_path])?;
    let (data, mut warnings) = load(data_path, &learn.data)?;
    let mut ctx = Context::new(&data, learn.seed, learn.weights.map(Into::into));
    ctx.progress = progress;
    let trained = algo::train(learn.algo, &ctx, &learn.options(&data.schema)?, !learn.no_names)
        .with_context(|| format!("training {} on {}", learn.algo, data_path.display()))?;
    warnings.extend(trivial_model_warning(&trained.spec, &ctx.raw, &data.schema.classes, "the model"));
    output.write(&trained.bytes)?;
    Ok(TrainReport {
        algo: learn.algo,
        data: data.source.clone(),
        model: if output == Output::Stdout { output.describe() } else { out.display().to_string() },
        n: data.n_rows(),
        train_accuracy: trained.train_accuracy,
        model_bytes: trained.bytes.len(),
        weights: format!("{:?}", trained.spec.weight_kind).to_lowercase(),
        rescaled_units: trained.rescaled_units,
        learner: trained.report.clone(),
        stats: trained.spec.stats(),
        seconds: start.elapsed().as_secs_f64(),
        warnings,
    })
}

/// Result of `ltu codegen`.
#[derive(Debug, Serialize)]
pub struct CodegenReport {
    /// Model file.
    pub model: String,
    /// `rust` or `c`.
    pub lang: &'static str,
    /// Where the source went.
    pub output: String,
    /// Bytes of source.
    pub source_bytes: usize,
    /// The generated entry point.
    pub entry_point: &'static str,
}

impl fmt::Display for CodegenReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "wrote {} ({} source, {} bytes) from {}\nentry point: {}",
            self.output, self.lang, self.source_bytes, self.model, self.entry_point
        )
    }
}

/// `ltu codegen`: the model as Rust or C source that predicts exactly what the runtime predicts
/// (see [`crate::codegen`]).
///
/// # Errors
/// Unreadable or invalid model, or an output path that may not be written (see [`Output`]).
pub fn codegen(model_path: &Path, lang: crate::codegen::Lang, output: &Path) -> Result<CodegenReport> {
    let out = Output::resolve(output, &[model_path])?;
    let loaded = LoadedModel::open(model_path)?;
    let about = model_path
        .file_name()
        .map_or_else(|| model_path.display().to_string(), |n| n.to_string_lossy().into_owned());
    let source = crate::codegen::source(&loaded.spec(), &about, lang);
    out.write(source.as_bytes())?;
    let (lang, entry_point) = match lang {
        crate::codegen::Lang::Rust => {
            ("rust", "pub fn predict<T: Copy + Into<i32>>(x: &[T; N_INPUTS]) -> usize")
        }
        crate::codegen::Lang::C => ("c", "int32_t ltu_predict(const int32_t *x)"),
    };
    Ok(CodegenReport {
        model: model_path.display().to_string(),
        lang,
        output: out.describe(),
        source_bytes: source.len(),
        entry_point,
    })
}

/// A model file loaded for `eval`, `predict` and `inspect`.
pub struct LoadedModel {
    /// File path.
    pub path: PathBuf,
    /// File bytes.
    pub bytes: Vec<u8>,
}

impl LoadedModel {
    /// Reads a model file and checks it with the runtime.
    ///
    /// # Errors
    /// The file cannot be read, or the runtime rejects it (the message names the check).
    pub fn open(path: &Path) -> Result<LoadedModel> {
        let bytes = std::fs::read(path).with_context(|| format!("{}: cannot read model", path.display()))?;
        if let Err(e) = ltu_runtime::Model::from_bytes(&bytes) {
            bail!("{}: not a valid ltu model: {e}", path.display());
        }
        Ok(LoadedModel { path: path.to_path_buf(), bytes })
    }

    /// The runtime's view (checked in [`LoadedModel::open`]).
    pub fn model(&self) -> ltu_runtime::Model<'_> {
        ltu_runtime::Model::from_bytes(&self.bytes).expect("checked when opened")
    }

    /// The owned description.
    pub fn spec(&self) -> ModelSpec {
        ModelSpec::from_model(&self.model())
    }

    /// The schema stored in the model's names, used to read data by name.
    ///
    /// # Errors
    /// The model was written with `--no-names`.
    pub fn schema(&self) -> Result<Schema> {
        let spec = self.spec();
        let Some(names) = spec.names else {
            bail!("{}: the model has no names (trained with --no-names), so data cannot be matched to it by name", self.path.display());
        };
        let attributes = spec
            .inputs
            .iter()
            .zip(names.inputs)
            .zip(names.values)
            .map(|((inp, name), values)| Attribute {
                name,
                kind: match inp.kind {
                    InputKind::Numeric { scale_exp } => {
                        AttrKind::Numeric { decimals: scale_exp.max(0) as u8 }
                    }
                    InputKind::Categorical { .. } => AttrKind::Categorical { values },
                },
            })
            .collect();
        Ok(Schema { attributes, classes: names.classes })
    }
}

/// Per-class figures of an evaluation.
#[derive(Debug, Serialize)]
pub struct ClassReport {
    /// Class name.
    pub class: String,
    /// Rows of this class.
    pub support: usize,
    /// Correct / predicted as this class (0 when nothing was predicted as it).
    pub precision: f64,
    /// Correct / rows of this class (0 when it has no rows).
    pub recall: f64,
    /// Harmonic mean of precision and recall (0 when both are 0).
    pub f1: f64,
}

/// Per-class precision, recall and F1 from `confusion[true][predicted]` (which may have more rows
/// than `classes`: rows of classes the model does not know), and their macro averages over the
/// classes that occur in the data or in the predictions.
fn class_figures(confusion: &[Vec<usize>], classes: &[String]) -> (Vec<ClassReport>, [f64; 3]) {
    let per_class: Vec<ClassReport> = classes
        .iter()
        .enumerate()
        .map(|(c, name)| {
            let predicted: usize = confusion.iter().map(|r| r[c]).sum();
            let support: usize = confusion[c].iter().sum();
            let hit = confusion[c][c];
            let precision = if predicted == 0 { 0.0 } else { hit as f64 / predicted as f64 };
            let recall = if support == 0 { 0.0 } else { hit as f64 / support as f64 };
            let f1 =
                if precision + recall == 0.0 { 0.0 } else { 2.0 * precision * recall / (precision + recall) };
            ClassReport { class: name.clone(), support, precision, recall, f1 }
        })
        .collect();
    let counted: Vec<&ClassReport> = per_class
        .iter()
        .enumerate()
        .filter(|(c, r)| r.support > 0 || confusion.iter().any(|row| row[*c] > 0))
        .map(|(_, r)| r)
        .collect();
    let n = counted.len().max(1) as f64;
    let macros = [
        counted.iter().map(|r| r.precision).sum::<f64>() / n,
        counted.iter().map(|r| r.recall).sum::<f64>() / n,
        counted.iter().map(|r| r.f1).sum::<f64>() / n,
    ];
    (per_class, macros)
}

/// Writes a confusion matrix and the per-class table.
fn write_figures(
    f: &mut fmt::Formatter<'_>,
    classes: &[String],
    confusion: &[Vec<usize>],
    per_class: &[ClassReport],
    macros: [f64; 3],
) -> fmt::Result {
    let label = |k: usize| format!("{k} {}", classes.get(k).map_or("(unknown)", String::as_str));
    let w = (0..confusion.len()).map(|k| label(k).len()).max().unwrap_or(0).max(13);
    writeln!(f, "confusion (rows: true class, columns: predicted)")?;
    let mut head = format!("{:<w$}", "");
    for k in 0..classes.len() {
        let _ = write!(head, " {k:>6}");
    }
    writeln!(f, "{head}")?;
    for (k, row) in confusion.iter().enumerate() {
        write!(f, "{:<w$}", label(k))?;
        for c in row {
            write!(f, " {c:>6}")?;
        }
        writeln!(f)?;
    }
    writeln!(f, "{:<w$} {:>9} {:>9} {:>9} {:>7}", "class", "precision", "recall", "F1", "support")?;
    for c in per_class {
        writeln!(f, "{:<w$} {:>9.3} {:>9.3} {:>9.3} {:>7}", c.class, c.precision, c.recall, c.f1, c.support)?;
    }
    write!(f, "{:<w$} {:>9.3} {:>9.3} {:>9.3}", "macro average", macros[0], macros[1], macros[2])
}

/// Result of `ltu eval`.
#[derive(Debug, Serialize)]
pub struct EvalReport {
    /// Model file.
    pub model: String,
    /// Data file.
    pub data: String,
    /// Rows evaluated.
    pub n: usize,
    /// Fraction predicted correctly (rows whose class the model does not know count as wrong).
    pub accuracy: f64,
    /// Model file size.
    pub model_bytes: usize,
    /// Class names, the order of the confusion matrix.
    pub classes: Vec<String>,
    /// `confusion[true][predicted]`; a last row counts rows whose class the model does not know.
    pub confusion: Vec<Vec<usize>>,
    /// Per-class precision, recall and F1.
    pub per_class: Vec<ClassReport>,
    /// Mean precision over the classes that occur in the data or the predictions.
    pub macro_precision: f64,
    /// Mean recall over the same classes.
    pub macro_recall: f64,
    /// Mean F1 over the same classes.
    pub macro_f1: f64,
    /// Cells with a category value the model never saw (evaluated as unknown values).
    pub unseen_values: usize,
    /// Rows whose class the model does not know.
    pub unseen_class_rows: usize,
    /// Decisions the user may not expect (also printed on standard error).
    pub warnings: Vec<String>,
}

impl fmt::Display for EvalReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} on {}: accuracy {:.2}% ({} rows)",
            self.model,
            self.data,
            100.0 * self.accuracy,
            self.n
        )?;
        writeln!(f, "model bytes {}", self.model_bytes)?;
        let macros = [self.macro_precision, self.macro_recall, self.macro_f1];
        write_figures(f, &self.classes, &self.confusion, &self.per_class, macros)?;
        if self.unseen_values > 0 || self.unseen_class_rows > 0 {
            write!(
                f,
                "\nnote: {} cells had category values the model never saw; {} rows had unknown classes",
                self.unseen_values, self.unseen_class_rows
            )?;
        }
        Ok(())
    }
}

/// Warnings about what [`data::load_with_schema`] had to do.
fn align_warnings(source: &str, align: &data::AlignReport) -> Vec<String> {
    let mut warnings = Vec::new();
    let mut by_attr: Vec<(&str, Vec<&data::UnseenValue>)> = Vec::new();
    for u in &align.unseen_values {
        match by_attr.iter_mut().find(|(a, _)| *a == u.attribute) {
            Some((_, list)) => list.push(u),
            None => by_attr.push((&u.attribute, vec![u])),
        }
    }
    for (attr, list) in by_attr {
        let cells: usize = list.iter().map(|u| u.count).sum();
        let mut shown: Vec<String> =
            list.iter().take(5).map(|u| format!("\"{}\" ×{}", u.value, u.count)).collect();
        if list.len() > 5 {
            shown.push(format!("and {} more", list.len() - 5));
        }
        warnings.push(format!(
            "{source}: column `{attr}`: {cells} cells hold values the model never saw in training ({}); \
             they are read as unknown values",
            shown.join(", ")
        ));
    }
    for u in &align.unseen_classes {
        warnings.push(format!(
            "{source}: class `{}` ({} rows) is not a class of the model; those rows count as wrong",
            u.name, u.count
        ));
    }
    if !align.missing_words.is_empty() {
        let list: Vec<String> = align.missing_words.iter().map(|(w, n)| format!("\"{w}\" ×{n}")).collect();
        warnings.push(format!("{source}: {} read as missing values in numeric columns", list.join(", ")));
    }
    warnings
}

/// Raw inputs and labels of a data file read through a model's schema.
fn read_for_model(
    model: &LoadedModel,
    data_path: &Path,
    options: &LoadOptions,
) -> Result<(Dataset, Vec<Vec<i32>>, data::AlignReport)> {
    if let Some(option) = [("--numeric", &options.numeric), ("--categorical", &options.categorical)]
        .iter()
        .find_map(|(name, list)| (!list.is_empty()).then_some(name))
    {
        bail!(
            "{option} applies to train and cv only: the model fixes each column's type (see `ltu inspect --json`)"
        );
    }
    let schema = model.schema()?;
    let (data, report) = data::load_with_schema(data_path, options, &schema)?;
    let inputs: Vec<InputSpec> = model.spec().inputs;
    let raw = encode::raw_rows(&inputs, &data);
    Ok((data, raw, report))
}

/// `ltu eval`: accuracy, confusion matrix, per-class precision, recall and F1, through the runtime.
///
/// # Errors
/// Unreadable model or data, or data that does not match the model's schema.
pub fn eval(model_path: &Path, data_path: &Path, args: &DataArgs) -> Result<EvalReport> {
    let loaded = LoadedModel::open(model_path)?;
    let (data, raw, align) = read_for_model(&loaded, data_path, &args.options())?;
    if align.unlabeled {
        bail!(
            "{}: no class column (every column is an attribute of the model); eval needs labels, \
             predict does not",
            data_path.display()
        );
    }
    let model = loaded.model();
    let k = model.n_classes();
    let mut confusion = vec![vec![0usize; k]; k + 1];
    let mut correct = 0;
    for (x, &y) in raw.iter().zip(&data.y) {
        let p = model.predict(x).with_context(|| format!("{}: evaluating", data_path.display()))?;
        confusion[y.min(k)][p] += 1;
        correct += usize::from(p == y);
    }
    if confusion[k].iter().sum::<usize>() == 0 {
        confusion.pop();
    }
    let classes = loaded.schema()?.classes;
    let (per_class, [macro_precision, macro_recall, macro_f1]) = class_figures(&confusion, &classes);
    Ok(EvalReport {
        model: model_path.display().to_string(),
        data: data.source.clone(),
        n: raw.len(),
        accuracy: correct as f64 / raw.len().max(1) as f64,
        model_bytes: loaded.bytes.len(),
        classes,
        confusion,
        per_class,
        macro_precision,
        macro_recall,
        macro_f1,
        unseen_values: align.unseen_value_cells(),
        unseen_class_rows: align.unseen_class_rows(),
        warnings: align_warnings(&data.source, &align),
    })
}

/// Options of `ltu predict`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct PredictArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub data: DataArgs,
    /// A column copied to the output next to each prediction (an identifier).
    #[arg(long, value_name = "NAME")]
    pub id: Option<String>,
    /// Also print each class's score from the unit that decided (`Model::predict_scores`): raw
    /// weighted sums, not probabilities; empty for a class that unit does not score.
    #[arg(long)]
    pub scores: bool,
}

/// Result of `ltu predict`.
#[derive(Debug, Serialize)]
pub struct PredictReport {
    /// One class name per data row.
    pub predictions: Vec<String>,
    /// The class index `Model::predict` returned for each row (an index into the model's classes).
    pub class_indices: Vec<usize>,
    /// For each row, the exact integers handed to `Model::predict`: what firmware must compute
    /// from its sensor readings to get the same prediction (an integration test's expected input).
    pub inputs: Vec<Vec<i32>>,
    /// The model's class names (the order of `scores`).
    pub classes: Vec<String>,
    /// `--id`: the id column's text for each row.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ids: Option<Vec<String>>,
    /// `--id`: the id column's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id_column: Option<String>,
    /// `--scores`: per row, per class, the deciding unit's score (`null`: not scored by it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scores: Option<Vec<Vec<Option<f64>>>>,
    /// Decisions the user may not expect (also printed on standard error).
    pub warnings: Vec<String>,
}

/// Quotes a CSV field when it needs it (RFC 4180).
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) || s.trim() != s {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

impl fmt::Display for PredictReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.ids.is_none() && self.scores.is_none() {
            for (i, p) in self.predictions.iter().enumerate() {
                if i > 0 {
                    writeln!(f)?;
                }
                f.write_str(p)?;
            }
            return Ok(());
        }
        // CSV with a header: [id,] class [, score:<class>...]
        let mut head = Vec::new();
        if let Some(name) = &self.id_column {
            head.push(csv_field(name));
        }
        head.push("class".to_string());
        if self.scores.is_some() {
            head.extend(self.classes.iter().map(|c| csv_field(&format!("score:{c}"))));
        }
        write!(f, "{}", head.join(","))?;
        for (i, p) in self.predictions.iter().enumerate() {
            let mut row = Vec::new();
            if let Some(ids) = &self.ids {
                row.push(csv_field(&ids[i]));
            }
            row.push(csv_field(p));
            if let Some(scores) = &self.scores {
                row.extend(scores[i].iter().map(|s| s.map_or_else(String::new, |v| v.to_string())));
            }
            write!(f, "\n{}", row.join(","))?;
        }
        Ok(())
    }
}

/// `ltu predict`: one class name per row (with `--id` and `--scores`, a CSV).
///
/// # Errors
/// As [`eval`]. The class column may be absent or empty; it is not read.
pub fn predict(model_path: &Path, data_path: &Path, args: &PredictArgs) -> Result<PredictReport> {
    let loaded = LoadedModel::open(model_path)?;
    let options = LoadOptions { allow_missing_class: true, id: args.id.clone(), ..args.data.options() };
    let (data, raw, align) = read_for_model(&loaded, data_path, &options)?;
    let model = loaded.model();
    let classes = loaded.schema()?.classes;
    let frac = 2f64.powi(model.weight_kind().frac_bits() as i32);
    let mut class_indices = Vec::with_capacity(raw.len());
    let mut scores = args.scores.then(|| Vec::with_capacity(raw.len()));
    let mut buffer = vec![0i64; model.n_classes()];
    for x in &raw {
        let c = if let Some(scores) = &mut scores {
            let c = model.predict_scores(x, &mut buffer);
            scores.push(buffer.iter().map(|&s| (s != i64::MIN).then(|| s as f64 / frac)).collect::<Vec<_>>());
            c
        } else {
            model.predict(x)
        };
        class_indices.push(c.with_context(|| format!("{}: predicting", data.source))?);
    }
    let predictions = class_indices.iter().map(|&c| classes[c].clone()).collect();
    let warnings = align_warnings(&data.source, &align);
    Ok(PredictReport {
        predictions,
        class_indices,
        inputs: raw,
        classes,
        ids: args.id.is_some().then_some(align.ids),
        id_column: args.id.clone(),
        scores,
        warnings,
    })
}

/// Result of `ltu cv`.
#[derive(Debug, Serialize)]
pub struct CvReport {
    /// Algorithm.
    pub algo: Algo,
    /// Data file.
    pub data: String,
    /// Number of folds.
    pub folds: usize,
    /// Seed of the fold assignment and of training.
    pub seed: u64,
    /// Mean held-out accuracy over folds.
    pub accuracy_mean: f64,
    /// Sample standard deviation of the fold accuracies.
    pub accuracy_std: f64,
    /// Mean model file size.
    pub model_bytes_mean: f64,
    /// Held-out accuracy of each fold.
    pub fold_accuracies: Vec<f64>,
    /// Model size of each fold.
    pub fold_model_bytes: Vec<usize>,
    /// Test rows of each fold.
    pub fold_rows: Vec<usize>,
    /// Class names, the order of the confusion matrix.
    pub classes: Vec<String>,
    /// `confusion[true][predicted]` over the held-out predictions of every fold.
    pub confusion: Vec<Vec<usize>>,
    /// Per-class precision, recall and F1 of the pooled held-out predictions.
    pub per_class: Vec<ClassReport>,
    /// Mean precision over the classes.
    pub macro_precision: f64,
    /// Mean recall over the classes.
    pub macro_recall: f64,
    /// Mean F1 over the classes.
    pub macro_f1: f64,
    /// Decisions the user may not expect (also printed on standard error).
    pub warnings: Vec<String>,
}

impl fmt::Display for CvReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}-fold cross-validation of {} on {} (seed {})",
            self.folds, self.algo, self.data, self.seed
        )?;
        for (i, ((acc, bytes), rows)) in
            self.fold_accuracies.iter().zip(&self.fold_model_bytes).zip(&self.fold_rows).enumerate()
        {
            writeln!(f, "fold {:>2}     accuracy {:>6.2}% ({rows} rows), {bytes} bytes", i + 1, 100.0 * acc)?;
        }
        writeln!(f, "accuracy    {:.2}% ± {:.2}", 100.0 * self.accuracy_mean, 100.0 * self.accuracy_std)?;
        writeln!(f, "model bytes {:.1} (mean)", self.model_bytes_mean)?;
        let macros = [self.macro_precision, self.macro_recall, self.macro_f1];
        write_figures(f, &self.classes, &self.confusion, &self.per_class, macros)
    }
}

pub use crate::evaluate::mean_std;

/// What one train/test split gives.
struct Heldout {
    accuracy: f64,
    bytes: usize,
    /// Predicted class of each test row, in `test_rows` order.
    predictions: Vec<usize>,
    /// Set when the model predicts one class for every training row.
    trivial: Option<String>,
}

fn heldout(data: &Dataset, train_rows: &[usize], test_rows: &[usize], learn: &LearnArgs) -> Result<Heldout> {
    let options = learn.options(&data.schema)?;
    let setup = crate::evaluate::Setup {
        algo: learn.algo,
        options: &options,
        seed: learn.seed,
        weight_kind: learn.weights.map(Into::into),
    };
    let h = crate::evaluate::holdout(data, train_rows, test_rows, &setup)?;
    let train_raw = encode::raw_rows(&h.trained.spec.inputs, &data.subset(train_rows));
    Ok(Heldout {
        accuracy: h.accuracy,
        bytes: h.trained.bytes.len(),
        trivial: trivial_model_warning(&h.trained.spec, &train_raw, &data.schema.classes, "its model"),
        predictions: h.predictions,
    })
}

/// `ltu cv`: stratified k-fold cross-validation, folds in parallel on up to `jobs` threads.
///
/// # Errors
/// Bad data or options, or a training failure in any fold (the first is reported).
pub fn cv(data_path: &Path, folds: usize, jobs: usize, learn: &LearnArgs) -> Result<CvReport> {
    learn.check_applicable()?;
    let (data, mut warnings) = load(data_path, &learn.data)?;
    learn.options(&data.schema)?;
    let fold_rows = split::stratified_kfold(&data.y, data.schema.classes.len(), folds, learn.seed)
        .with_context(|| format!("{}: cannot make {folds} folds", data.source))?;
    for (class, &count) in data.schema.classes.iter().zip(&data.class_counts()) {
        if count < folds {
            warnings.push(format!(
                "class `{class}` has {count} rows, fewer than the {folds} folds: {} folds test none of it, \
                 and its figures rest on {count} rows",
                folds - count
            ));
        }
    }
    let n = data.n_rows();
    let results: Vec<Result<Heldout>> = std::thread::scope(|s| {
        let jobs = jobs.max(1);
        let chunks: Vec<Vec<usize>> =
            (0..jobs).map(|j| (j..fold_rows.len()).step_by(jobs).collect()).collect();
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|mine| {
                let (data, fold_rows) = (&data, &fold_rows);
                s.spawn(move || {
                    mine.into_iter()
                        .map(|f| {
                            let train_rows = split::complement(&fold_rows[f], n);
                            (
                                f,
                                heldout(data, &train_rows, &fold_rows[f], learn).with_context(|| {
                                    format!(
                                        "cross-validation fold {} of {folds} ({} training rows)",
                                        f + 1,
                                        train_rows.len()
                                    )
                                }),
                            )
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let mut all: Vec<(usize, Result<Heldout>)> =
            handles.into_iter().flat_map(|h| h.join().expect("fold thread panicked")).collect();
        all.sort_by_key(|(f, _)| *f);
        all.into_iter().map(|(_, r)| r).collect()
    });
    let results = results.into_iter().collect::<Result<Vec<_>>>()?;
    let k = data.n_classes();
    let mut confusion = vec![vec![0usize; k]; k];
    for (h, rows) in results.iter().zip(&fold_rows) {
        for (&p, &r) in h.predictions.iter().zip(rows) {
            if let Some(cell) = confusion.get_mut(data.y[r]).and_then(|row| row.get_mut(p)) {
                *cell += 1;
            }
        }
    }
    let trivial: Vec<String> = results
        .iter()
        .enumerate()
        .filter(|(_, h)| h.trivial.is_some())
        .map(|(f, _)| (f + 1).to_string())
        .collect();
    if let Some(first) = results.iter().find_map(|h| h.trivial.as_ref()) {
        warnings.push(format!("fold(s) {}: {first}", trivial.join(", ")));
    }
    let (per_class, [macro_precision, macro_recall, macro_f1]) =
        class_figures(&confusion, &data.schema.classes);
    let accs: Vec<f64> = results.iter().map(|r| r.accuracy).collect();
    let bytes: Vec<usize> = results.iter().map(|r| r.bytes).collect();
    let (accuracy_mean, accuracy_std) = mean_std(&accs);
    Ok(CvReport {
        algo: learn.algo,
        data: data.source.clone(),
        folds,
        seed: learn.seed,
        accuracy_mean,
        accuracy_std,
        model_bytes_mean: bytes.iter().sum::<usize>() as f64 / bytes.len().max(1) as f64,
        fold_accuracies: accs,
        fold_model_bytes: bytes,
        fold_rows: fold_rows.iter().map(Vec::len).collect(),
        classes: data.schema.classes.clone(),
        confusion,
        per_class,
        macro_precision,
        macro_recall,
        macro_f1,
        warnings,
    })
}

/// Result of `ltu inspect`.
#[derive(Debug, Serialize)]
pub struct InspectReport {
    /// Model file.
    pub model: String,
    /// File size.
    pub model_bytes: usize,
    /// tree, list or linear.
    pub structure: String,
    /// Weight representation.
    pub weights: String,
    /// Raw inputs.
    pub n_inputs: usize,
    /// Features units read.
    pub n_features: usize,
    /// Classes.
    pub n_classes: usize,
    /// Size figures.
    #[serde(flatten)]
    pub stats: Stats,
    /// Bytes of each table of the file, by table name, in file order.
    #[serde(serialize_with = "as_map")]
    pub table_bytes: Vec<(String, usize)>,
    /// Class names (`class k` when the model has no names), by class index.
    pub classes: Vec<String>,
    /// How each raw input is encoded: `index` (its position in `Model::predict`'s slice),
    /// `name`, `kind`; numeric: `scale_exp` (a value `v` is `round(v * 10^scale_exp)` raw
    /// units); categorical: `values` (the code of a value is its position); and `missing_raw`,
    /// the raw value the trainer substitutes for a missing one, with `missing` its meaning.
    pub inputs: Vec<serde_json::Value>,
    /// The units: each row's classes, named terms with their stored weights, and bias.
    pub units: Vec<serde_json::Value>,
    /// The arrangement: tree nodes (by id, children by id), list entries, or the linear unit.
    pub layout: serde_json::Value,
    /// Human-readable rendering of the model.
    #[serde(skip)]
    pub text: String,
}

fn as_map<S: serde::Serializer>(pairs: &[(String, usize)], s: S) -> std::result::Result<S::Ok, S::Error> {
    s.collect_map(pairs.iter().map(|(k, v)| (k, v)))
}

/// The JSON description of a model's inputs, units and layout.
fn describe_model(
    spec: &ModelSpec,
) -> (Vec<String>, Vec<serde_json::Value>, Vec<serde_json::Value>, serde_json::Value) {
    use serde_json::json;
    let n = Namer { spec };
    let classes: Vec<String> = (0..spec.n_classes).map(|c| n.class(c)).collect();
    let inputs = spec
        .inputs
        .iter()
        .enumerate()
        .map(|(i, inp)| match inp.kind {
            InputKind::Numeric { scale_exp } => json!({
                "index": i, "name": n.input(i), "kind": "numeric", "scale_exp": scale_exp,
                "missing_raw": inp.missing, "missing": n.number(i, inp.missing),
            }),
            InputKind::Categorical { n_values } => {
                let values: Vec<String> = (0..i32::from(n_values)).map(|v| n.value(i, v)).collect();
                json!({
                    "index": i, "name": n.input(i), "kind": "categorical", "values": values,
                    "missing_raw": inp.missing,
                    "missing": if (0..i32::from(n_values)).contains(&inp.missing) { n.value(i, inp.missing) } else { "(unknown value)".to_string() },
                })
            }
        })
        .collect();
    let units = spec
        .units
        .iter()
        .enumerate()
        .map(|(u, unit)| {
            let rows: Vec<serde_json::Value> = unit
                .rows
                .iter()
                .map(|row| {
                    let terms: Vec<serde_json::Value> = unit
                        .terms
                        .iter()
                        .zip(row)
                        .map(|(&t, &w)| json!({ "feature": n.feature(t), "weight": w }))
                        .collect();
                    json!({ "terms": terms, "bias": row[unit.terms.len()] })
                })
                .collect();
            let unit_classes: Vec<String> = unit.classes.iter().map(|&c| n.class(c)).collect();
            json!({ "index": u, "kind": if unit.rows.len() == 1 { "binary" } else { "machine" },
                    "classes": unit_classes, "rows": rows })
        })
        .collect();
    let layout = match &spec.structure {
        Structure::Linear(u) => json!({ "linear": { "unit": u } }),
        Structure::List { entries, default } => json!({ "list": {
            "entries": entries.iter().map(|&(u, c)| json!({ "unit": u, "class": n.class(c) })).collect::<Vec<_>>(),
            "default": n.class(*default),
        }}),
        Structure::Tree(nodes) => {
            let nodes: Vec<serde_json::Value> = nodes
                .iter()
                .enumerate()
                .map(|(id, node)| match node {
                    Node::Class(c) => json!({ "id": id, "leaf": n.class(*c) }),
                    Node::Unit(u) => json!({ "id": id, "unit": u }),
                    Node::Categorical { attr, children, default } => json!({
                        "id": id, "split": n.input(*attr),
                        "children": children.iter().enumerate()
                            .map(|(v, &c)| json!({ "value": n.value(*attr, v as i32), "node": c }))
                            .collect::<Vec<_>>(),
                        "unknown": default,
                    }),
                    Node::Threshold { attr, threshold, left, right } => json!({
                        "id": id, "split": n.input(*attr), "threshold": n.number(*attr, *threshold),
                        "threshold_raw": threshold, "le": left, "gt": right,
                    }),
                    Node::UnitSplit { unit, left, right } => json!({
                        "id": id, "split_unit": unit, "le": left, "gt": right,
                    }),
                })
                .collect();
            json!({ "tree": nodes })
        }
    };
    (classes, inputs, units, layout)
}

impl fmt::Display for InspectReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}: {} model, {} bytes, {} weights",
            self.model, self.structure, self.model_bytes, self.weights
        )?;
        writeln!(f, "inputs {}, features {}, classes {}", self.n_inputs, self.n_features, self.n_classes)?;
        writeln!(
            f,
            "{} decision nodes, {} leaves, {} LTUs, {} non-zero weights, worst case {} multiply-accumulates, depth {} (nodes on the longest path, leaf included)",
            self.stats.decision_nodes,
            self.stats.leaves,
            self.stats.ltus,
            self.stats.weights_nonzero,
            self.stats.max_macs,
            self.stats.max_depth
        )?;
        let tables: Vec<String> = self.table_bytes.iter().map(|(n, b)| format!("{n} {b}")).collect();
        writeln!(f, "bytes by table: {}", tables.join(", "))?;
        write!(f, "{}", self.text)
    }
}

/// Names for rendering a model to people.
struct Namer<'a> {
    spec: &'a ModelSpec,
}

impl Namer<'_> {
    fn input(&self, i: usize) -> String {
        self.spec.names.as_ref().and_then(|n| n.inputs.get(i).cloned()).unwrap_or_else(|| format!("x{i}"))
    }
    fn value(&self, i: usize, v: i32) -> String {
        let named =
            usize::try_from(v).ok().and_then(|v| self.spec.names.as_ref()?.values.get(i)?.get(v).cloned());
        named.unwrap_or_else(|| v.to_string())
    }
    /// A raw threshold of input `i` in the data's own units.
    fn number(&self, i: usize, raw: i32) -> String {
        match self.spec.inputs.get(i).map(|s| s.kind) {
            Some(InputKind::Numeric { scale_exp }) if scale_exp > 0 => {
                format!("{}", f64::from(raw) / 10f64.powi(i32::from(scale_exp)))
            }
            Some(InputKind::Numeric { scale_exp }) if scale_exp < 0 => {
                format!("{}", f64::from(raw) * 10f64.powi(-i32::from(scale_exp)))
            }
            _ => raw.to_string(),
        }
    }
    fn class(&self, c: usize) -> String {
        self.spec
            .names
            .as_ref()
            .and_then(|n| n.classes.get(c).cloned())
            .unwrap_or_else(|| format!("class {c}"))
    }
    fn feature(&self, f: usize) -> String {
        match &self.spec.features[f] {
            Feature::Numeric { attr, .. } => self.input(*attr),
            Feature::Equals { attr, value } => format!("{}={}", self.input(*attr), self.value(*attr, *value)),
            Feature::Greater { attr, value } => {
                format!("{}>{}", self.input(*attr), self.number(*attr, *value))
            }
            Feature::Conjunction(lits) => lits
                .iter()
                .map(|l| {
                    let (op, v) = match l.op {
                        LiteralOp::Eq => ("=", self.value(l.attr, l.value)),
                        LiteralOp::Ne => ("!=", self.value(l.attr, l.value)),
                        LiteralOp::Gt => (">", self.number(l.attr, l.value)),
                        LiteralOp::Le => ("<=", self.number(l.attr, l.value)),
                    };
                    format!("{}{op}{v}", self.input(l.attr))
                })
                .collect::<Vec<_>>()
                .join(" & "),
        }
    }
    /// `w1*f1 + w2*f2 ... + b` with zero terms left out.
    fn row(&self, unit: usize, o: usize) -> String {
        let u = &self.spec.units[unit];
        let row = &u.rows[o];
        let mut s = String::new();
        for (j, &t) in u.terms.iter().enumerate() {
            if row[j] != 0 {
                let _ = write!(s, "{:+}·[{}] ", row[j], self.feature(t));
            }
        }
        let _ = write!(s, "{:+}", row[u.terms.len()]);
        s
    }
    fn unit(&self, unit: usize, indent: &str) -> String {
        let u = &self.spec.units[unit];
        if u.rows.len() == 1 {
            format!(
                "{indent}{} if {} > 0 else {}",
                self.class(u.classes[1]),
                self.row(unit, 0),
                self.class(u.classes[0])
            )
        } else {
            (0..u.rows.len())
                .map(|o| format!("{indent}score {}: {}", self.class(u.classes[o]), self.row(unit, o)))
                .collect::<Vec<_>>()
                .join("\n")
        }
    }
}

fn render_text(spec: &ModelSpec) -> String {
    let n = Namer { spec };
    let mut out = String::new();
    match &spec.structure {
        Structure::Linear(u) => out = n.unit(*u, "  "),
        Structure::List { entries, default } => {
            for (i, &(u, c)) in entries.iter().enumerate() {
                let _ = writeln!(
                    out,
                    "  {}if {} > 0 then {}",
                    if i == 0 { "" } else { "else " },
                    n.row(u, 0),
                    n.class(c)
                );
            }
            let _ = write!(out, "  else {}", n.class(*default));
        }
        Structure::Tree(nodes) => {
            // Every line names its node (`#3`), so `same as #3` can be found.
            fn walk(n: &Namer<'_>, nodes: &[Node], i: usize, depth: usize, out: &mut String) {
                let pad = "  ".repeat(depth + 1);
                match &nodes[i] {
                    Node::Class(c) => {
                        let _ = writeln!(out, "{pad}#{i} → {}", n.class(*c));
                    }
                    Node::Unit(u) => {
                        let _ = writeln!(out, "{}", n.unit(*u, &format!("{pad}#{i} → ")));
                    }
                    Node::Categorical { attr, children, default } => {
                        for (v, &c) in children.iter().enumerate() {
                            let _ =
                                writeln!(out, "{pad}#{i} {} = {}:", n.input(*attr), n.value(*attr, v as i32));
                            walk(n, nodes, c, depth + 1, out);
                        }
                        let _ = writeln!(out, "{pad}#{i} {} unknown: same as #{default}", n.input(*attr));
                    }
                    Node::Threshold { attr, threshold, left, right } => {
                        let t = n.number(*attr, *threshold);
                        let _ = writeln!(out, "{pad}#{i} {} <= {t}:", n.input(*attr));
                        walk(n, nodes, *left, depth + 1, out);
                        let _ = writeln!(out, "{pad}#{i} {} > {t}:", n.input(*attr));
                        walk(n, nodes, *right, depth + 1, out);
                    }
                    Node::UnitSplit { unit, left, right } => {
                        let _ = writeln!(out, "{pad}#{i} {} <= 0:", n.row(*unit, 0));
                        walk(n, nodes, *left, depth + 1, out);
                        let _ = writeln!(out, "{pad}#{i} {} > 0:", n.row(*unit, 0));
                        walk(n, nodes, *right, depth + 1, out);
                    }
                }
            }
            walk(&n, nodes, 0, 0, &mut out);
            out.pop();
        }
    }
    out
}

fn dot_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Terms shown per unit row in a Graphviz label; the rest are in the node's tooltip.
const DOT_TERMS: usize = 4;

/// Fill colours of classes in Graphviz renderings (cycled).
const DOT_COLOURS: [&str; 8] =
    ["#a6cee3", "#b2df8a", "#fb9a99", "#fdbf6f", "#cab2d6", "#ffff99", "#8dd3c7", "#d9d9d9"];

impl Namer<'_> {
    /// Row `o` of a unit with only its `k` largest-magnitude terms, each on its own line, then
    /// the bias and how many terms were left out.
    fn row_summary(&self, unit: usize, o: usize, k: usize) -> Vec<String> {
        let u = &self.spec.units[unit];
        let row = &u.rows[o];
        let mut terms: Vec<(usize, i64)> =
            u.terms.iter().zip(row).filter(|(_, &w)| w != 0).map(|(&t, &w)| (t, w)).collect();
        let total = terms.len();
        // Small units are shown whole; a line saying "2 more terms" would save nothing.
        let k = if total <= k + 2 { total } else { k };
        terms.sort_by_key(|&(t, w)| (std::cmp::Reverse(w.unsigned_abs()), t));
        let mut lines: Vec<String> =
            terms.iter().take(k).map(|&(t, w)| format!("{w:+}·[{}]", self.feature(t))).collect();
        if total > k {
            lines.push(format!("… {} more terms", total - k));
        }
        let mut lines: Vec<String> = lines.iter().map(|l| shorten(l)).collect();
        lines.push(format!("{:+}", row[u.terms.len()]));
        lines
    }

    /// A short multi-line label of a unit (see [`DOT_TERMS`]).
    fn unit_summary(&self, unit: usize) -> Vec<String> {
        let u = &self.spec.units[unit];
        if u.rows.len() == 1 {
            let mut lines = vec![format!("{} if", self.class(u.classes[1]))];
            lines.extend(self.row_summary(unit, 0, DOT_TERMS).into_iter().map(|l| format!("  {l}")));
            lines.push(format!("> 0 else {}", self.class(u.classes[0])));
            lines
        } else {
            // One line per class: its largest term, how many more, and the bias.
            let mut lines = vec!["the class of highest score:".to_string()];
            for o in 0..u.rows.len() {
                let row = &u.rows[o];
                let nonzero = u.terms.iter().zip(row).filter(|(_, &w)| w != 0);
                let top = nonzero.clone().max_by_key(|(&t, &w)| (w.unsigned_abs(), std::cmp::Reverse(t)));
                let mut line = format!("{}: ", self.class(u.classes[o]));
                if let Some((&t, &w)) = top {
                    let _ = write!(line, "{w:+}·[{}] ", self.feature(t));
                }
                let more = nonzero.count().saturating_sub(1);
                if more > 0 {
                    let _ = write!(line, "…{more} more ");
                }
                let _ = write!(line, "{:+}", row[u.terms.len()]);
                lines.push(line);
            }
            lines
        }
    }
}

/// Cuts a label line to at most 80 characters.
fn shorten(line: &str) -> String {
    if line.chars().count() <= 80 {
        line.to_string()
    } else {
        format!("{}…", line.chars().take(79).collect::<String>())
    }
}

/// Joins label lines for Graphviz (left-justified).
fn dot_lines(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{}\\l", dot_escape(&shorten(l)))).collect()
}

/// Graphviz rendering of a model: trees and lists as graphs, a linear model as one node. Every
/// node shows its id (`#3`, as in `ltu inspect`); a unit shows its largest terms, the full unit is
/// its tooltip; constant leaves and list outcomes are coloured by class.
pub fn render_dot(spec: &ModelSpec) -> String {
    let n = Namer { spec };
    let mut out = String::from(
        "digraph ltu {\n  graph [nodesep=0.25, ranksep=0.35];\n  node [shape=box, fontname=\"Helvetica\", fontsize=11];\n  edge [fontname=\"Helvetica\", fontsize=10];\n",
    );
    let colour = |c: usize| DOT_COLOURS[c % DOT_COLOURS.len()];
    let tooltip = |u: usize| dot_escape(&n.unit(u, "")).replace('\n', "\\n");
    let unit_node = |out: &mut String, id: &str, title: &str, u: usize| {
        let mut lines = vec![title.to_string()];
        lines.extend(n.unit_summary(u));
        let _ = writeln!(out, "  {id} [label=\"{}\", tooltip=\"{}\"];", dot_lines(&lines), tooltip(u));
    };
    let class_node = |out: &mut String, id: &str, title: &str, c: usize| {
        let label = if title.is_empty() { n.class(c) } else { format!("{title}\n{}", n.class(c)) };
        let _ = writeln!(
            out,
            "  {id} [label=\"{}\", shape=ellipse, style=filled, fillcolor=\"{}\"];",
            dot_escape(&label).replace('\n', "\\n"),
            colour(c)
        );
    };
    match &spec.structure {
        Structure::Linear(u) => unit_node(&mut out, "n0", "linear unit", *u),
        Structure::List { entries, default } => {
            for (i, &(u, c)) in entries.iter().enumerate() {
                let mut lines = vec![format!("#{i}")];
                lines.extend(n.row_summary(u, 0, DOT_TERMS));
                lines.push("> 0 ?".into());
                let _ =
                    writeln!(out, "  n{i} [label=\"{}\", tooltip=\"{}\"];", dot_lines(&lines), tooltip(u));
                class_node(&mut out, &format!("c{i}"), "", c);
                let _ = writeln!(out, "  n{i} -> c{i} [label=\"yes\"];");
                let next = if i + 1 < entries.len() { format!("n{}", i + 1) } else { "d".into() };
                let _ = writeln!(out, "  n{i} -> {next} [label=\"no\"];");
            }
            class_node(&mut out, "d", "default", *default);
        }
        Structure::Tree(nodes) => {
            for (i, node) in nodes.iter().enumerate() {
                let id = format!("n{i}");
                let title = format!("#{i}");
                match node {
                    Node::Class(c) => class_node(&mut out, &id, &title, *c),
                    Node::Unit(u) => unit_node(&mut out, &id, &title, *u),
                    Node::Categorical { attr, .. } => {
                        let label = format!("{title}\n{}", n.input(*attr));
                        let _ = writeln!(
                            out,
                            "  {id} [label=\"{}\", style=rounded];",
                            dot_escape(&label).replace('\n', "\\n")
                        );
                    }
                    Node::Threshold { attr, threshold, .. } => {
                        let label = format!("{title}\n{} <= {}", n.input(*attr), n.number(*attr, *threshold));
                        let _ = writeln!(
                            out,
                            "  {id} [label=\"{}\", style=rounded];",
                            dot_escape(&label).replace('\n', "\\n")
                        );
                    }
                    Node::UnitSplit { unit, .. } => {
                        let mut lines = vec![title.clone()];
                        lines.extend(n.row_summary(*unit, 0, DOT_TERMS));
                        lines.push("<= 0 ?".into());
                        let _ = writeln!(
                            out,
                            "  {id} [label=\"{}\", style=rounded, tooltip=\"{}\"];",
                            dot_lines(&lines),
                            dot_escape(&n.row(*unit, 0))
                        );
                    }
                }
                match node {
                    Node::Categorical { attr, children, default } => {
                        for (v, c) in children.iter().enumerate() {
                            let unknown = if c == default { " (and unknown)" } else { "" };
                            let _ = writeln!(
                                out,
                                "  n{i} -> n{c} [label=\"{}{unknown}\"];",
                                dot_escape(&n.value(*attr, v as i32))
                            );
                        }
                        if !children.contains(default) {
                            let _ = writeln!(out, "  n{i} -> n{default} [label=\"unknown\", style=dashed];");
                        }
                    }
                    Node::Threshold { left, right, .. } | Node::UnitSplit { left, right, .. } => {
                        let _ = writeln!(out, "  n{i} -> n{left} [label=\"yes\"];");
                        let _ = writeln!(out, "  n{i} -> n{right} [label=\"no\"];");
                    }
                    _ => {}
                }
            }
        }
    }
    out.push_str("}\n");
    out
}

/// `ltu inspect`: structure, sizes and worst-case cost.
///
/// # Errors
/// The file cannot be read or is not a valid model.
pub fn inspect(model_path: &Path) -> Result<InspectReport> {
    let loaded = LoadedModel::open(model_path)?;
    let model = loaded.model();
    let spec = loaded.spec();
    let repr = model.repr();
    let mut table_bytes = vec![
        ("inputs".to_string(), repr.inputs.len()),
        ("features".to_string(), repr.features.len()),
        ("literals".to_string(), repr.literals.len()),
        ("units".to_string(), repr.units.len()),
        ("terms".to_string(), repr.term_features.len()),
        ("weights".to_string(), repr.weights.len()),
        ("unit classes".to_string(), repr.unit_classes.len()),
    ];
    match repr.structure {
        ltu_runtime::format::StructureRepr::Tree { nodes, children } => {
            table_bytes.push(("nodes".into(), nodes.len()));
            table_bytes.push(("children".into(), children.len()));
        }
        ltu_runtime::format::StructureRepr::List { entries, .. } => {
            table_bytes.push(("entries".into(), entries.len()))
        }
        ltu_runtime::format::StructureRepr::Linear { .. } => {}
    }
    table_bytes.push(("names".into(), repr.names.map_or(0, str::len)));
    let (classes, inputs, units, layout) = describe_model(&spec);
    Ok(InspectReport {
        model: model_path.display().to_string(),
        model_bytes: loaded.bytes.len(),
        structure: format!("{:?}", model.kind()).to_lowercase(),
        weights: format!("{:?}", model.weight_kind()).to_lowercase(),
        n_inputs: model.n_inputs(),
        n_features: model.n_features(),
        n_classes: model.n_classes(),
        stats: spec.stats(),
        table_bytes,
        classes,
        inputs,
        units,
        layout,
        text: render_text(&spec),
    })
}

/// `ltu inspect --dot`.
///
/// # Errors
/// As [`inspect`].
pub fn inspect_dot(model_path: &Path) -> Result<String> {
    Ok(render_dot(&LoadedModel::open(model_path)?.spec()))
}

//! Command-line arguments: the shared data options, one section per learner (from the registry's
//! learners), and their conversion to the library's `Options`.

use anyhow::{bail, Result};

use ltu::data::{LoadOptions, Schema};
use ltu::learn::{Algo, AlgoChoice, Budget, Options};
use ltu::model::WeightKind;
use ltu::{learners::decision_list, learners::perceptron_tree, learners::sparse_perceptron};

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

/// How to read a data file for a model (`eval`, `predict`, `--calibrate`): the model fixes each
/// column's type.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ReadArgs {
    /// Class column (default: the last column).
    #[arg(long, value_name = "NAME")]
    pub target: Option<String>,
    /// Drop columns (repeatable, or a comma list: `--ignore a,b`).
    #[arg(long, value_name = "NAME", value_delimiter = ',')]
    pub ignore: Vec<String>,
    /// Words that mark a missing value in a numeric column, as a comma list (replaces the
    /// default list; `?` and empty cells are always missing) [default: ?,,NA,N/A,NaN,nan,null,NULL]
    #[arg(long, value_name = "WORDS", value_delimiter = ',', allow_hyphen_values = true)]
    pub missing_values: Option<Vec<String>>,
}

impl ReadArgs {
    pub(crate) fn options(&self) -> LoadOptions {
        LoadOptions {
            target: self.target.clone(),
            ignore: self.ignore.clone(),
            missing_values: self.missing_values.clone(),
            ..LoadOptions::default()
        }
    }
}

/// How to read training data (`train`, `cv`): also which type each column has.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct DataArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub read: ReadArgs,
    /// Read columns as numbers (repeatable, or a comma list).
    #[arg(long, value_name = "NAME", value_delimiter = ',')]
    pub numeric: Vec<String>,
    /// Read columns as categories even if their values are numbers (repeatable, or a comma
    /// list); a class column of numbers is read as categories anyway, with a warning.
    #[arg(long, value_name = "NAME", value_delimiter = ',')]
    pub categorical: Vec<String>,
}

impl DataArgs {
    pub(crate) fn options(&self) -> LoadOptions {
        LoadOptions {
            numeric: self.numeric.clone(),
            categorical: self.categorical.clone(),
            ..self.read.options()
        }
    }
}

/// Raw sensor recordings instead of a table of features (`train`, `cv`).
#[derive(Debug, Clone, Default, clap::Args)]
#[command(next_help_heading = "Sensor recordings")]
pub struct RecordingArgs {
    /// The data file holds raw recordings: one per row with columns `t<i>` or `<channel>_t<i>`,
    /// or one frame per row with --recording; they are cut into windows whose statistics the model
    /// reads, and the model stores that pipeline (eval and predict then read raw recordings).
    #[arg(long)]
    pub recordings: bool,
    /// Long layout: the column naming each frame's recording; the other columns but the class are
    /// channels (implies --recordings).
    #[arg(long, value_name = "COLUMN")]
    pub recording: Option<String>,
    /// Samples per window (default: the whole recording is one window).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=4096))]
    pub window: Option<u16>,
    /// Samples from one window's start to the next (default: the window, no overlap).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub hop: Option<u16>,
    /// Window statistics for every channel, a comma list of `stat` (the whole window) or `stat@k`
    /// (each of k equal segments); statistics: mean, spread, energy, min, max, peak_to_peak,
    /// mean_abs_diff, slope, crossings [default: every statistic, and mean, spread, energy, min, max @4 and @8].
    #[arg(long, value_name = "LIST")]
    pub window_features: Option<String>,
}

impl RecordingArgs {
    /// Whether the data are recordings.
    pub(crate) fn enabled(&self) -> bool {
        self.recordings || self.recording.is_some()
    }

    /// The layout asked for.
    pub(crate) fn layout(&self) -> ltu::data::recordings::Layout {
        match &self.recording {
            Some(recording) => ltu::data::recordings::Layout::Long { recording: recording.clone() },
            None => ltu::data::recordings::Layout::Wide,
        }
    }

    /// Refuses window options without recordings.
    pub(crate) fn check(&self) -> Result<()> {
        if !self.enabled() {
            for (flag, given) in [
                ("--window", self.window.is_some()),
                ("--hop", self.hop.is_some()),
                ("--window-features", self.window_features.is_some()),
            ] {
                if given {
                    bail!("{flag} applies to recordings only: add --recordings (or --recording COLUMN)");
                }
            }
        }
        if self.hop.is_some() && self.window.is_none() {
            bail!("--hop needs --window (without it the whole recording is one window)");
        }
        Ok(())
    }
}

/// Parses a `usize` of at least `MIN`.
pub(crate) fn at_least<const MIN: usize>(s: &str) -> std::result::Result<usize, String> {
    let v: usize = s.parse().map_err(|e| format!("{e}"))?;
    if v < MIN {
        return Err(format!("must be at least {MIN}"));
    }
    Ok(v)
}

/// Parses a `usize` in `MIN..=MAX`.
pub(crate) fn in_range<const MIN: usize, const MAX: usize>(s: &str) -> std::result::Result<usize, String> {
    let v: usize = s.parse().map_err(|e| format!("{e}"))?;
    if !(MIN..=MAX).contains(&v) {
        return Err(format!("must be in {MIN}..={MAX}"));
    }
    Ok(v)
}

/// `0` or at least 2 (folds of an inner cross-validation).
pub(crate) fn zero_or_two_plus(s: &str) -> std::result::Result<usize, String> {
    let v: usize = s.parse().map_err(|e| format!("{e}"))?;
    if v == 1 {
        return Err("must be 0 (off) or at least 2".into());
    }
    Ok(v)
}

/// A fraction in `[0, 0.9)`.
fn prune_z(s: &str) -> std::result::Result<f64, String> {
    let v: f64 = s.parse().map_err(|e| format!("{e}"))?;
    if (0.0..=10.0).contains(&v) {
        Ok(v)
    } else {
        Err(format!("must be in [0, 10], got {v}"))
    }
}

pub(crate) fn prune_fraction(s: &str) -> std::result::Result<f64, String> {
    let v: f64 = s.parse().map_err(|e| format!("{e}"))?;
    if !(0.0..0.9).contains(&v) {
        return Err("must be in [0, 0.9)".into());
    }
    Ok(v)
}

/// `--numeric-max-abs` as the trainers accept it.
pub(crate) fn numeric_max_abs(s: &str) -> std::result::Result<u16, String> {
    in_range::<1, 32767>(s).map(|v| v as u16)
}

/// The values of a library option enum (its `ALL`, `Display` and `FromStr`) as a clap value
/// parser: the names are listed in `--help` (each with its `help`), offered by the shell
/// completions and checked with clap's usual "possible values" error.
#[derive(Clone)]
pub(crate) struct Choice<T: 'static> {
    all: &'static [T],
    help: fn(T) -> &'static str,
}

/// [`Choice`] over `all`, each value described by `help`.
pub(crate) fn choice<T>(all: &'static [T], help: fn(T) -> &'static str) -> Choice<T> {
    Choice { all, help }
}

impl<T> clap::builder::TypedValueParser for Choice<T>
where
    T: Copy + std::fmt::Display + std::str::FromStr + Send + Sync + 'static,
    T::Err: std::fmt::Display,
{
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> std::result::Result<T, clap::Error> {
        let names = clap::builder::PossibleValuesParser::new(self.all.iter().map(|v| v.to_string()));
        let name = names.parse_ref(cmd, arg, value)?;
        name.parse().map_err(|e| clap::Error::raw(clap::error::ErrorKind::InvalidValue, format!("{e}\n")))
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            self.all.iter().map(|&v| clap::builder::PossibleValue::new(v.to_string()).help((self.help)(v))),
        ))
    }
}

/// `--algo` values: the registry's learners and `auto`, with their one-line descriptions.
fn algo_help(a: AlgoChoice) -> &'static str {
    a.about()
}

fn order_help(o: perceptron_tree::Order) -> &'static str {
    match o {
        perceptron_tree::Order::Cyclic => "In file order, over and over (the list is circular, section 4.3)",
        perceptron_tree::Order::Shuffled => "A fresh permutation drawn from the seed in every epoch",
    }
}

fn split_rule_help(r: perceptron_tree::SplitRule) -> &'static str {
    match r {
        perceptron_tree::SplitRule::Progress => {
            "The paper's heuristic: split when `C > log dim(W)`, `C` being the number of consecutive \
             weight-vector adjustments since some weight's historical minimum or maximum changed"
        }
        perceptron_tree::SplitRule::Corollary1 => {
            "The exact but conservative test of Corollary 1: split when the number of weight vectors \
             visited exceeds `∏ (w_i,max − w_i,min + 1)`, bound (1) on the distinct vectors that could \
             have been visited; then some vector was visited twice and the instances at the node are \
             provably not linearly separable. Rarely fires on more than a handful of features"
        }
    }
}

fn log_base_help(b: perceptron_tree::LogBase) -> &'static str {
    match b {
        perceptron_tree::LogBase::E => "Natural logarithm",
        perceptron_tree::LogBase::Two => "Binary logarithm",
        perceptron_tree::LogBase::Ten => "Decimal logarithm",
    }
}

fn split_choice_help(t: perceptron_tree::SplitChoice) -> &'static str {
    match t {
        perceptron_tree::SplitChoice::Entropy => {
            "Lowest expected entropy of the class counts (section 4.2.2)"
        }
        perceptron_tree::SplitChoice::Lookahead => {
            "Each input's best test by entropy, then the one after which short perceptron runs fit the \
             LTU's recent instances best (beyond the paper)"
        }
    }
}

fn categorical_tests_help(t: perceptron_tree::CategoricalTests) -> &'static str {
    match t {
        perceptron_tree::CategoricalTests::Multiway => "One branch per value (section 4.2.2)",
        perceptron_tree::CategoricalTests::Value => {
            "`x = v` against every other value, two branches (as CART splits a one-hot column)"
        }
    }
}

fn leaf_fit_help(f: perceptron_tree::LeafFit) -> &'static str {
    match f {
        perceptron_tree::LeafFit::Perceptron => {
            "The units' weights as the error correction procedure left them (the pocket's with --pocket true)"
        }
        perceptron_tree::LeafFit::Logistic => {
            "Once the tree is grown, refit every unit on the training rows reaching it by L2-regularised \
             logistic regression, rounded to integers (i8 when that changes no decision on those rows, \
             else i16), penalty --leaf-l2; pruning then compares the refitted units"
        }
        perceptron_tree::LeafFit::Auto => {
            "Whichever of the two (logistic with an L2 penalty of 1, 0.1 or 0.01) is most accurate on a \
             seeded, stratified quarter of the training rows held out from a first tree"
        }
    }
}

fn node_help(n: ltu::learners::oblique::NodeModel) -> &'static str {
    match n {
        ltu::learners::oblique::NodeModel::Linear => "ID-LP: a linear perceptron",
        ltu::learners::oblique::NodeModel::Mlp => "ID-MLP: one hidden layer",
        ltu::learners::oblique::NodeModel::Hybrid => "The MLP only where a significance test prefers it",
    }
}

fn partition_help(p: ltu::learners::oblique::Partition) -> &'static str {
    match p {
        ltu::learners::oblique::Partition::Selection => {
            "Greedy, from the two classes whose means are furthest apart"
        }
        ltu::learners::oblique::Partition::Exchange => "Local search (Guo & Gelfand 1992)",
    }
}

pub(crate) fn ptree_defaults() -> (perceptron_tree::Params, perceptron_tree::Params) {
    (perceptron_tree::Params::default(), perceptron_tree::Params::paper())
}

/// Options shared by `train` and `cv`.
#[derive(Debug, Clone, clap::Args)]
pub struct LearnArgs {
    /// Learning algorithm, or `auto`: the most accurate model of any learner within the budgets.
    #[arg(long, value_parser = choice(Algo::CHOICES, algo_help))]
    pub algo: AlgoChoice,
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
    /// Start from the paper's configuration (ptree: cyclic order, no pocket, no stopping rules;
    /// sparse: the boosted votes as weights, --weight-fit boost; fringe: a third of the rows held
    /// out for reduced-error pruning).
    #[arg(long)]
    pub paper: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub data: DataArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub rec: RecordingArgs,
    /// Fraction of the training rows held out to prune the model (ptree, ndl, hsi, oblique, fringe).
    #[arg(long, value_name = "FRACTION", value_parser = prune_fraction,
          help = format!(
              "Fraction of the training rows held out to prune the model, in [0, 0.9) (ptree, ndl, hsi, oblique, fringe); 0 prunes ptree, oblique and fringe on the training rows by C4.5's error estimate instead [default: {} for ptree, {} for ndl and hsi; oblique and fringe: 0 on up to {} rows, else 0.25 (oblique) or 0.333 (fringe); --paper: 0.333 for fringe]",
              perceptron_tree::Params::default().prune_fraction,
              decision_list::Params::default().validation,
              ltu::data::split::HOLD_OUT_PRUNING_ROWS
          ))]
    pub prune_fraction: Option<f64>,
    /// Folds of the inner cross-validation (sparse, ndl, hsi; 0 = off).
    #[arg(long, value_name = "N", value_parser = zero_or_two_plus, help = format!(
        "Folds of the inner cross-validation that picks sparse's number of rounds, or ndl's and hsi's \
         margin norm, editing and (ndl on two classes) shape: 0 (off) or at least 2 [default: {} for \
         sparse, {} for ndl and hsi, on up to {} training rows]",
        sparse_default().validation_folds,
        decision_list::Choose::default().folds,
        decision_list::Choose::default().up_to_rows
    ))]
    pub validation_folds: Option<usize>,
    /// C4.5 error-based pruning on the training rows when --prune-fraction is 0 (ptree, oblique, fringe).
    #[arg(long, value_name = "Z", value_parser = prune_z,
          help = format!(
              "Error-based pruning (C4.5) on the training rows, used when --prune-fraction is 0 (given, it sets oblique's and fringe's --prune-fraction to 0): the width in standard deviations of the error estimate's confidence interval, in [0, 10]; 0 does not prune (ptree, oblique, fringe) [default: {} for ptree, {} for oblique, {} for fringe; --paper: 0]",
              perceptron_tree::Params::default().prune_z,
              ltu::learners::oblique::Params::default().prune_z,
              ltu::learners::fringe::Params::default().prune_z
          ))]
    pub prune_z: Option<f64>,
    /// Numeric attributes become features quantized to [-N, N] (ptree, ndl, hsi, oblique).
    #[arg(long, value_name = "N", value_parser = numeric_max_abs,
          help = format!(
              "Numeric attributes become features quantized to [-N, N], N in 1..=32767 (ptree, ndl, hsi, oblique) [default: {} for ptree, {} for ndl and hsi, {} for oblique]",
              perceptron_tree::Params::default().numeric_max_abs,
              decision_list::Params::default().feature_max_abs,
              ltu::learners::oblique::Params::default().numeric_max_abs
          ))]
    pub numeric_max_abs: Option<u16>,
    /// Device budget, every learner: most bytes of the model a device stores, the file without
    /// its host block (names, input scales, metadata), as --strip writes it. The most accurate
    /// candidate setting within it is chosen on a held-out quarter of the training rows; training
    /// fails if none fits.
    #[arg(long, value_name = "BYTES", value_parser = at_least::<1>)]
    pub max_bytes: Option<usize>,
    /// Device budget, every learner: most multiply-accumulates of one prediction on its worst
    /// path, as the runtime evaluates the file (a unit stored dense multiplies every standard
    /// feature; generated code skips zero weights and does fewer), chosen like --max-bytes.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_macs: Option<u64>,
    /// Device budget, every learner: most Cortex-M3 instructions of one prediction by the cost
    /// model of generated code (the most essential work of any input: every list entry tried,
    /// the most expensive tree path), plus computing the window statistics with --recordings;
    /// chosen like --max-bytes.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_instructions: Option<u64>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub ptree: PtreeArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub ndl: NdlArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub hsi: HsiArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub sparse: SparseArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub oblique: ObliqueArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub fringe: FringeArgs,
    /// Ids of the options given on the command line ([`given_ids`]), which
    /// [`LearnArgs::check_applicable`] checks against the chosen learner.
    #[arg(skip)]
    pub given: Vec<String>,
}

/// A learner's own section of options: they apply to its learners only.
trait LearnerSection: clap::Args {
    /// The learners that read this section.
    const ALGOS: &'static [Algo];
}

impl LearnerSection for PtreeArgs {
    const ALGOS: &'static [Algo] = &[Algo::Ptree];
}
impl LearnerSection for NdlArgs {
    const ALGOS: &'static [Algo] = &[Algo::Ndl, Algo::Hsi];
}
impl LearnerSection for HsiArgs {
    const ALGOS: &'static [Algo] = &[Algo::Hsi];
}
impl LearnerSection for SparseArgs {
    const ALGOS: &'static [Algo] = &[Algo::Sparse];
}
impl LearnerSection for ObliqueArgs {
    const ALGOS: &'static [Algo] = &[Algo::Oblique];
}
impl LearnerSection for FringeArgs {
    const ALGOS: &'static [Algo] = &[Algo::Fringe];
}

/// The long flag of argument `id` of `cmd`, if it has one.
fn long_flag(cmd: &clap::Command, id: &str) -> Option<String> {
    cmd.get_arguments().find(|a| a.get_id() == id).and_then(|a| a.get_long()).map(|l| format!("--{l}"))
}

/// The flag and the learners that the option with argument id `id` applies to, derived from the
/// definitions: an option of a learner's own section ([`LearnerSection`]) applies to its
/// learners; a shared option ([`ltu::learn::Shared`]) to the learners whose registry line lists
/// it. `None` for an option of every learner (or no learner option at all).
pub(crate) fn applies_to(id: &str) -> Option<(String, Vec<Algo>)> {
    fn section<S: LearnerSection>(id: &str) -> Option<(String, Vec<Algo>)> {
        let cmd = S::augment_args(clap::Command::new("section"));
        long_flag(&cmd, id).map(|flag| (flag, S::ALGOS.to_vec()))
    }
    let shared = || {
        let cmd = <LearnArgs as clap::Args>::augment_args(clap::Command::new("learn"));
        let flag = long_flag(&cmd, id)?;
        let option: ltu::learn::Shared = flag.trim_start_matches("--").parse().ok()?;
        Some((flag, Algo::ALL.iter().copied().filter(|a| a.shared().contains(&option)).collect()))
    };
    section::<PtreeArgs>(id)
        .or_else(|| section::<NdlArgs>(id))
        .or_else(|| section::<HsiArgs>(id))
        .or_else(|| section::<SparseArgs>(id))
        .or_else(|| section::<ObliqueArgs>(id))
        .or_else(|| section::<FringeArgs>(id))
        .or_else(shared)
}

/// Ids of the arguments of `matches`' innermost subcommand that the command line set (not
/// defaults).
pub fn given_ids(matches: &clap::ArgMatches) -> Vec<String> {
    match matches.subcommand() {
        Some((_, sub)) => given_ids(sub),
        None => matches
            .ids()
            .filter(|id| {
                matches!(matches.try_get_raw(id.as_str()), Ok(Some(_)))
                    && matches.value_source(id.as_str()) == Some(clap::parser::ValueSource::CommandLine)
            })
            .map(|id| id.as_str().to_string())
            .collect(),
    }
}

/// Oblique tree options (`--algo oblique`); unset options keep their defaults.
#[derive(Debug, Clone, Default, clap::Args)]
#[command(next_help_heading = "Oblique tree options (--algo oblique)")]
pub struct ObliqueArgs {
    /// Network at each decision node: linear (ID-LP), mlp (one hidden layer, hard-threshold
    /// units on the device) or hybrid (the MLP only where a significance test prefers it)
    /// [default: linear].
    #[arg(long, value_parser = choice(ltu::learners::oblique::NodeModel::ALL, node_help))]
    pub node: Option<ltu::learners::oblique::NodeModel>,
    /// Class partition at nodes with more than two classes [default: exchange].
    #[arg(long, value_parser = choice(ltu::learners::oblique::Partition::ALL, partition_help))]
    pub partition: Option<ltu::learners::oblique::Partition>,
    /// Most oblique splits on a path from the root.
    #[arg(long, value_name = "N", value_parser = at_least::<1>,
          help = format!("Most oblique splits on a path from the root [default: {}]", ltu::learners::oblique::Params::default().max_depth))]
    pub oblique_depth: Option<usize>,
    /// Most oblique splits in the tree.
    #[arg(long, value_name = "N", value_parser = at_least::<1>,
          help = format!("Most oblique splits in the tree [default: {} on up to {} rows, else {}]", ltu::learners::oblique::MAX_NODES, ltu::data::split::HOLD_OUT_PRUNING_ROWS, ltu::learners::oblique::LARGE_MAX_NODES))]
    pub oblique_nodes: Option<usize>,
}

impl ObliqueArgs {
    fn params(&self) -> ltu::learners::oblique::Params {
        let mut p = ltu::learners::oblique::Params::default();
        if let Some(v) = self.node {
            p.node = v;
        }
        if let Some(v) = self.partition {
            p.partition = v;
        }
        if let Some(v) = self.oblique_depth {
            p.max_depth = v;
        }
        if let Some(v) = self.oblique_nodes {
            p.max_nodes = Some(v);
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
          help = format!("Stop adding features at this many variables, primitive ones included [default: {}]", ltu::learners::fringe::Params::default().max_variables))]
    pub max_variables: Option<usize>,
    /// The paper's random baseline: conjunctions of two random variables instead of the fringe
    /// heuristic.
    #[arg(long)]
    pub random_features: bool,
}

impl FringeArgs {
    fn params(&self, paper: bool) -> ltu::learners::fringe::Params {
        use ltu::learners::fringe::{FeatureRule, Proposal};
        let mut p = if paper {
            ltu::learners::fringe::Params::paper()
        } else {
            ltu::learners::fringe::Params::default()
        };
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

/// Halfspace intersection options (`--algo hsi`), beyond the decision list's.
#[derive(Debug, Clone, Default, clap::Args)]
#[command(next_help_heading = "Halfspace intersection options (--algo hsi)")]
pub struct HsiArgs {
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
}

/// Perceptron tree options (`--algo ptree`); unset options keep their defaults.
#[derive(Debug, Clone, Default, clap::Args)]
#[command(next_help_heading = "Perceptron tree options (--algo ptree)")]
pub struct PtreeArgs {
    /// Maximum passes over the data (training stops once the tree is consistent).
    #[arg(long, value_name = "N", value_parser = at_least::<1>, help = {
        let (d, p) = ptree_defaults();
        format!("Maximum passes over the data, at least 1 (training stops once the tree is consistent) [default: {}; --paper: {}]", d.epochs, p.epochs)
    })]
    pub epochs: Option<usize>,
    /// Presentation order in each epoch.
    #[arg(long, value_parser = choice(perceptron_tree::Order::ALL, order_help), help = {
        let (d, p) = ptree_defaults();
        format!("Presentation order in each epoch [default: {}; --paper: {}]", d.order, p.order)
    })]
    pub order: Option<perceptron_tree::Order>,
    /// When an LTU splits.
    #[arg(long, value_parser = choice(perceptron_tree::SplitRule::ALL, split_rule_help), help = format!(
        "When an LTU splits: `progress` (C > log dim W, section 4.2.1) or `corollary1` (exact) [default: {}]",
        perceptron_tree::Params::default().split_rule
    ))]
    pub split_rule: Option<perceptron_tree::SplitRule>,
    /// Logarithm of the progress test.
    #[arg(long, value_parser = choice(perceptron_tree::LogBase::ALL, log_base_help), help = format!(
        "Logarithm of the progress test [default: {}]",
        perceptron_tree::Params::default().log_base
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
    /// How the units' weights are finally set.
    #[arg(long, value_parser = choice(perceptron_tree::LeafFit::ALL, leaf_fit_help), help = {
        let (d, p) = ptree_defaults();
        format!("How the units' weights are finally set (beyond the paper) [default: {}; --paper: {}]", d.leaf_fit, p.leaf_fit)
    })]
    pub leaf_fit: Option<perceptron_tree::LeafFit>,
    /// L2 penalty of `--leaf-fit logistic`.
    #[arg(long, value_name = "L2", value_parser = leaf_l2, help = format!(
        "L2 penalty of --leaf-fit logistic, in (0, 1e6]: the mean log loss plus L2/(2n)·|w|² over features \
         scaled to [-1, 1] [default: {}]",
        perceptron_tree::Params::default().leaf_l2
    ))]
    pub leaf_l2: Option<f64>,
    /// Feature selection in the logistic refit.
    #[arg(long, value_name = "BOOL", help = {
        let (d, p) = ptree_defaults();
        format!(
            "With the logistic refit, each unit leaves out the features that do not pay for themselves: the \
             weakest left out and the unit refitted while the log likelihood drops by at most 1 per weight \
             left out (Akaike's criterion; fewer multiply-accumulates and inputs read; beyond the paper) \
             [default: {}; --paper: {}]",
            d.feature_selection, p.feature_selection
        )
    })]
    pub feature_selection: Option<bool>,
    /// Tests on categorical inputs.
    #[arg(long, value_parser = choice(perceptron_tree::CategoricalTests::ALL, categorical_tests_help), help = {
        let (d, p) = ptree_defaults();
        format!("Tests a decision node puts on a categorical input [default: {}; --paper: {}]", d.categorical_tests, p.categorical_tests)
    })]
    pub categorical_tests: Option<perceptron_tree::CategoricalTests>,
    /// How a decision node's test is chosen.
    #[arg(long, value_parser = choice(perceptron_tree::SplitChoice::ALL, split_choice_help), help = {
        let (d, p) = ptree_defaults();
        format!("How a decision node's test is chosen [default: {}; --paper: {}]", d.split_choice, p.split_choice)
    })]
    pub split_choice: Option<perceptron_tree::SplitChoice>,
}

fn leaf_l2(s: &str) -> std::result::Result<f64, String> {
    let v: f64 = s.parse().map_err(|e| format!("{e}"))?;
    if v > 0.0 && v <= 1e6 {
        Ok(v)
    } else {
        Err(format!("must be in (0, 1e6], got {v}"))
    }
}

impl PtreeArgs {
    fn params(&self, paper: bool) -> perceptron_tree::Params {
        let mut p = if paper { perceptron_tree::Params::paper() } else { perceptron_tree::Params::default() };
        macro_rules! set {
            ($($f:ident),*) => {$( if let Some(v) = self.$f { p.$f = v; } )*};
        }
        set!(
            epochs,
            order,
            split_rule,
            log_base,
            pocket,
            min_split,
            max_depth,
            numeric_bins,
            leaf_fit,
            leaf_l2,
            feature_selection,
            categorical_tests,
            split_choice
        );
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
    /// Zero the entries' weights no training decision needs.
    #[arg(long, value_name = "BOOL", help = format!(
        "Zero each entry's weights that change none of its decisions on the training rows it sees, \
         smallest first (fewer multiply-accumulates and inputs read; beyond the paper) [default: {}]",
        decision_list::Params::default().prune_weights
    ))]
    pub prune_weights: Option<bool>,
    /// Norm of the weights the max-margin LP bounds.
    #[arg(
        long,
        value_enum,
        help = "Norm of the weights the max-margin LP bounds: `max` spreads weight over \
         every feature that helps (dense units), `sum` puts it on as few as the separation needs \
         (sparse units: fewer multiply-accumulates) [default: chosen by --validation-folds, else max]"
    )]
    pub margin_norm: Option<NormArg>,
    /// Wilson's editing: neighbours consulted (0 = off).
    #[arg(
        long,
        value_name = "K",
        help = "Leave out every training row whose class disagrees with most of its K \
         nearest training rows before building (Wilson's editing; 0 keeps every row) [default: 0 or 3, \
         chosen by --validation-folds, else 0]"
    )]
    pub edit_neighbours: Option<usize>,
    /// Passes of Find_large_neg_subset without a larger subset before it stops (0: the paper's end).
    #[arg(long, value_name = "N", help = format!(
        "Passes of Find_large_neg_subset without a larger subset before it stops; 0 searches to the \
         paper's end [default: {}]",
        decision_list::Params::default().patience.unwrap_or(0)
    ))]
    pub patience: Option<usize>,
    /// Rows each step's halfspace search samples when more are left (0: all rows, as the paper).
    #[arg(long, value_name = "N", help = format!(
        "Rows each step's halfspace search samples (seeded) when more are left; 0 searches all of \
         them, as the paper. Given, it applies to any number of training rows [default: {} on more \
         than {} training rows, else all of them]",
        decision_list::Params::default().max_search_rows.unwrap_or(0),
        decision_list::Params::default().search_all_up_to
    ))]
    pub max_search_rows: Option<usize>,
}

pub(crate) fn sparse_default() -> sparse_perceptron::Params {
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
    #[arg(long, value_name = "N", value_parser = at_least::<1>, help = format!(
        "Most boosting rounds, at least 1 [default: the number of weights of an ordinary perceptron \
         (one per categorical value and numeric attribute), but at least {} (on more than {} training rows \
         that floor shrinks in proportion); --paper: the number of weights of an ordinary perceptron]",
        sparse_default().min_rounds,
        sparse_perceptron::MIN_ROUNDS_ROWS
    ))]
    pub rounds: Option<usize>,
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
    /// How the unit's weights are set.
    #[arg(long, value_parser = choice(sparse_perceptron::WeightFit::ALL, weight_fit_help), help = format!(
        "How the unit's weights are set (beyond the paper) [default: {}; --paper: {}]",
        sparse_default().weight_fit,
        sparse_perceptron::Params::paper().weight_fit
    ))]
    pub weight_fit: Option<sparse_perceptron::WeightFit>,
    /// Longest boosting `--weight-fit auto` tries for a refit, in round limits.
    #[arg(long, value_name = "N", help = format!(
        "--weight-fit auto also boosts up to N times the round limit without the inner cross-validation \
         and tries refits over the conjunctions of its first 1/2, 1, 2, 4 ... (up to N) limits of rounds; \
         0: only the cross-validated rounds [default: {}; --paper: {}]",
        sparse_default().refit_rounds,
        sparse_perceptron::Params::paper().refit_rounds
    ))]
    pub refit_rounds: Option<usize>,
    /// Most conjunctions `--weight-fit auto` refits over when it tries every one.
    #[arg(long, value_name = "N", help = format!(
        "--weight-fit auto also tries a logistic refit over every conjunction of at most two literals \
         when there are at most N of them (and the fit is small), pruning the smallest weights while \
         that costs no training row; 0: never [default: {}; --paper: {}]",
        sparse_default().all_conjunctions,
        sparse_perceptron::Params::paper().all_conjunctions
    ))]
    pub all_conjunctions: Option<usize>,
}

fn weight_fit_help(f: sparse_perceptron::WeightFit) -> &'static str {
    match f {
        sparse_perceptron::WeightFit::Boost => {
            "The boosted votes -ln(beta), summed per conjunction (the paper's)"
        }
        sparse_perceptron::WeightFit::Logistic => {
            "Keep the conjunctions boosting chose and refit the unit over them on the training rows by \
             L2-regularised logistic regression (penalty 0.1), rounded to integers (i8 when that changes no \
             training decision, else i16, unless --weights)"
        }
        sparse_perceptron::WeightFit::Auto => {
            "Whichever of the two (logistic with an L2 penalty of 1, 0.1 or 0.01) is most accurate on a \
             seeded, stratified quarter of the training rows held out from a first boosting run"
        }
    }
}

impl SparseArgs {
    fn params(&self, paper: bool) -> sparse_perceptron::Params {
        let mut p =
            if paper { sparse_perceptron::Params::paper() } else { sparse_perceptron::Params::default() };
        if self.rounds.is_some() {
            p.rounds = self.rounds;
        }
        macro_rules! set {
            ($($f:ident),*) => {$( if let Some(v) = self.$f { p.$f = v; } )*};
        }
        set!(
            max_literals,
            prefer_simple,
            negated_literals,
            max_cuts,
            stop_when_consistent,
            weight_fit,
            refit_rounds,
            all_conjunctions
        );
        p
    }
}

/// Norm of the max-margin LP (`--margin-norm`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum NormArg {
    /// Max-norm: dense units.
    Max,
    /// 1-norm: sparse units.
    Sum,
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
    fn params(&self, hsi: &HsiArgs, schema: &Schema) -> Result<decision_list::Params> {
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
        if let Some(v) = self.prune_weights {
            p.prune_weights = v;
        }
        if let Some(v) = self.margin_norm {
            p.norm = Some(match v {
                NormArg::Max => decision_list::Norm::Max,
                NormArg::Sum => decision_list::Norm::Sum,
            });
        }
        if self.edit_neighbours.is_some() {
            p.edit_neighbours = self.edit_neighbours;
        }
        if let Some(v) = self.patience {
            p.patience = (v > 0).then_some(v);
        }
        if let Some(v) = self.max_search_rows {
            p.max_search_rows = (v > 0).then_some(v);
            p.search_all_up_to = 0;
        }
        if let Some(shape) = hsi.hsi_shape {
            p.hsi_shape = match shape {
                HsiShapeArg::Intersection => decision_list::HsiShape::Intersection,
                HsiShapeArg::Union => decision_list::HsiShape::Union,
            };
        }
        if let Some(name) = &hsi.positive {
            let Some(k) = schema.classes.iter().position(|c| c == name) else {
                bail!("--positive {name:?} is not a class; the classes are {:?}", schema.classes);
            };
            p.positive = Some(k);
        }
        Ok(p)
    }
}

impl LearnArgs {
    /// Refuses options that the chosen algorithm does not use (they would be silently ignored).
    ///
    /// # Errors
    /// Names the first such option and the algorithms it belongs to.
    pub fn check_applicable(&self) -> Result<()> {
        use Algo::{Oblique, Ptree};
        for id in &self.given {
            let Some((flag, algos)) = applies_to(id) else { continue };
            // With `auto`, a learner's option applies to that learner's candidates.
            if let AlgoChoice::One(algo) = self.algo {
                if algos.contains(&algo) {
                    continue;
                }
                let list: Vec<String> = algos.iter().map(|a| format!("--algo {a}")).collect();
                bail!(
                    "{flag} does not apply to --algo {}; it is an option of {}",
                    self.algo,
                    list.join(", ")
                );
            }
        }
        let (p, n, s, f) = (&self.ptree, &self.ndl, &self.sparse, &self.fringe);
        if s.params(self.paper).weight_fit != sparse_perceptron::WeightFit::Auto {
            if s.refit_rounds.is_some() {
                bail!("--refit-rounds applies to --weight-fit auto only");
            }
            if s.all_conjunctions.is_some() {
                bail!("--all-conjunctions applies to --weight-fit auto only");
            }
        }
        if self.prune_z.is_some() {
            // Given alone, it asks oblique and fringe for error-based pruning (fraction 0).
            let fraction = self.prune_fraction.unwrap_or(match self.algo {
                AlgoChoice::One(Ptree) => p.params(self.paper).prune_fraction,
                AlgoChoice::One(Oblique) => 0.0,
                AlgoChoice::One(_) => f.params(self.paper).prune_fraction.unwrap_or(0.0),
                // Each learner's own default fraction: ptree's and (on few rows) oblique's and
                // fringe's prune on the training rows, where --prune-z applies.
                AlgoChoice::Auto => 0.0,
            });
            if fraction > 0.0 {
                bail!("--prune-z applies when --prune-fraction is 0 (here {fraction:.3}: the held-out rows prune)");
            }
        }
        if p.leaf_l2.is_some() && p.params(self.paper).leaf_fit != perceptron_tree::LeafFit::Logistic {
            bail!(
                "--leaf-l2 applies to --leaf-fit logistic only (auto, the default, chooses among the penalties {:?} \
                 and the perceptron's weights; say --leaf-fit logistic to fix the penalty)",
                perceptron_tree::AUTO_L2
            );
        }
        if p.feature_selection == Some(true)
            && p.params(self.paper).leaf_fit == perceptron_tree::LeafFit::Perceptron
        {
            bail!("--feature-selection applies to the logistic refit (--leaf-fit logistic or auto), not to the perceptron's weights");
        }
        if p.log_base.is_some() && p.params(self.paper).split_rule != perceptron_tree::SplitRule::Progress {
            bail!("--log-base applies to --split-rule progress only (corollary1 does not take a logarithm)");
        }
        if matches!(n.search, Some(SearchArg::Mult | SearchArg::Pocket)) {
            if let Some(option) =
                [("--max-passes", n.max_passes.is_some()), ("--patience", n.patience.is_some())]
                    .iter()
                    .find_map(|(name, given)| given.then_some(name))
            {
                bail!("{option} applies to --search flns only (Find_large_neg_subset's passes)");
            }
        }
        if n.search_effort.is_some() && !matches!(n.search, Some(SearchArg::Mult | SearchArg::Pocket)) {
            bail!("--search-effort applies to --search mult or --search pocket only");
        }
        // The norm is the max-margin LP's; `--search pocket` always runs that LP.
        if n.margin_norm.is_some() && n.max_margin == Some(false) && n.search != Some(SearchArg::Pocket) {
            bail!("--margin-norm applies to the max-margin LP, which --max-margin false turns off");
        }
        Ok(())
    }

    /// The algorithms' options for data with this schema.
    ///
    /// # Errors
    /// An option names a class the data does not have.
    pub fn options(&self, schema: &Schema) -> Result<Options> {
        let mut ptree = self.ptree.params(self.paper);
        let mut ndl = self.ndl.params(&self.hsi, schema)?;
        let mut oblique = self.oblique.params();
        let mut fringe = self.fringe.params(self.paper);
        let mut sparse = self.sparse.params(self.paper);
        if let Some(k) = self.validation_folds {
            sparse.validation_folds = k;
            ndl.choose =
                (k > 0).then(|| decision_list::Choose { folds: k, ..decision_list::Choose::default() });
        }
        if let Some(f) = self.prune_fraction {
            ptree.prune_fraction = f;
            ndl.validation = f;
            oblique.prune_fraction = Some(f);
            fringe.prune_fraction = Some(f);
        }
        if let Some(z) = self.prune_z {
            ptree.prune_z = z;
            oblique.prune_z = z;
            fringe.prune_z = z;
            oblique.prune_fraction = oblique.prune_fraction.or(Some(0.0));
            fringe.prune_fraction = fringe.prune_fraction.or(Some(0.0));
        }
        if let Some(n) = self.numeric_max_abs {
            ptree.numeric_max_abs = n;
            ndl.feature_max_abs = n;
            oblique.numeric_max_abs = n;
        }
        // Oblique trees also honor the budgets while they grow.
        oblique.max_macs = self.max_macs;
        oblique.max_bytes = self.max_bytes;
        let budget = Budget {
            max_bytes: self.max_bytes,
            max_macs: self.max_macs,
            max_instructions: self.max_instructions,
        };
        Ok(Options { ptree, ndl, sparse, oblique, fringe, budget })
    }
}

/// Options of `ltu predict`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct PredictArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub data: ReadArgs,
    /// A column copied to the output next to each prediction (an identifier).
    #[arg(long, value_name = "NAME")]
    pub id: Option<String>,
    /// Also print each class's score from the unit that decided (`Model::predict_scores`): raw
    /// weighted sums, not probabilities; empty for a class that unit does not score.
    #[arg(long)]
    pub scores: bool,
    /// Also print each class's probability: a softmax over the deciding unit's scores with one
    /// temperature (and one logit for the classes that unit does not score), fitted on the
    /// labelled rows of --calibrate by minimizing log loss. Needs --calibrate.
    #[arg(long, requires = "calibrate")]
    pub probabilities: bool,
    /// Labelled rows to calibrate --probabilities on: rows the model was not trained on (a
    /// held-out or test file), read like `eval` reads data. The fit, its log loss (also 5-fold
    /// cross-validated) and that of the class frequencies are reported on standard error (with
    /// --json: as `calibration`).
    #[arg(long, value_name = "FILE", requires = "probabilities")]
    pub calibrate: Option<std::path::PathBuf>,
}

#[cfg(test)]
mod applicability_tests {
    use super::*;

    /// Every shared option names a flag of `ltu train`, so renaming one cannot silently make it
    /// apply to every learner.
    #[test]
    fn every_shared_option_is_a_flag() {
        let cmd = <LearnArgs as clap::Args>::augment_args(clap::Command::new("learn"));
        for shared in ltu::learn::Shared::ALL {
            let flag = cmd.get_arguments().find(|a| a.get_long() == Some(shared.name()));
            let (_, algos) = applies_to(flag.expect("a flag").get_id().as_str()).expect("applies to some");
            assert_eq!(
                algos,
                Algo::ALL.iter().copied().filter(|a| a.shared().contains(shared)).collect::<Vec<_>>()
            );
        }
    }

    /// A section's options apply to its learners; options of every learner apply to all.
    #[test]
    fn sections_and_common_options() {
        assert_eq!(applies_to("epochs"), Some(("--epochs".into(), vec![Algo::Ptree])));
        assert_eq!(applies_to("search"), Some(("--search".into(), vec![Algo::Ndl, Algo::Hsi])));
        assert_eq!(applies_to("positive"), Some(("--positive".into(), vec![Algo::Hsi])));
        assert_eq!(applies_to("max_variables"), Some(("--max-variables".into(), vec![Algo::Fringe])));
        assert_eq!(applies_to("seed"), None);
        assert_eq!(applies_to("max_bytes"), None);
    }
}

//! The registry of learners: one line per learner gives its `--algo` name, its help, its
//! options and its ladder of cheaper settings.

use std::fmt;

use super::learner::{Context, Fit, Learner, TrainError};

/// The registry: one line per learner — the `Algo` variant, the [`Learner`] type, and the field
/// of [`Options`] that holds its parameters. The command line's `--algo` values, their help,
/// dispatch and the benchmarks' list of learners all come from here; a learner that is not
/// registered is not offered anywhere.
macro_rules! registry {
    ($( $(#[$doc:meta])* $variant:ident => $learner:ty, $field:ident, [$($shared:ident),*]; )*) => {
        /// A learning algorithm, by its command-line name (see the registry in `algo.rs`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
        #[serde(rename_all = "lowercase")]
        pub enum Algo {
            $( $(#[$doc])* $variant, )*
        }

        impl Algo {
            /// Every registered learner, in registry order.
            pub const ALL: &'static [Algo] = &[$(Algo::$variant),*];

            /// What `--algo` accepts: every learner, then [`AlgoChoice::Auto`].
            pub const CHOICES: &'static [AlgoChoice] = &[$(AlgoChoice::One(Algo::$variant),)* AlgoChoice::Auto];

            /// The command-line name.
            pub fn name(self) -> &'static str {
                match self { $(Algo::$variant => <$learner as Learner>::NAME,)* }
            }

            /// One line about the learner.
            pub fn about(self) -> &'static str {
                match self { $(Algo::$variant => <$learner as Learner>::ABOUT,)* }
            }

            /// The options shared with other learners that this one reads.
            pub fn shared(self) -> &'static [Shared] {
                match self { $(Algo::$variant => &[$(Shared::$shared),*],)* }
            }

            /// `opts`, then the settings of the learner's [`Learner::ladder`] in `opts`, richest
            /// first.
            pub fn candidates(self, opts: &Options) -> Vec<Options> {
                match self {
                    $(Algo::$variant => std::iter::once(opts.clone())
                        .chain(<$learner as Learner>::ladder(&opts.$field).into_iter().map(|p| {
                            let mut o = opts.clone();
                            o.$field = p;
                            o
                        }))
                        .collect(),)*
                }
            }

            /// Checks this learner's options in `opts` and learns.
            ///
            /// # Errors
            /// As [`Learner::check`] and [`Learner::fit`].
            pub fn fit(self, ctx: &Context<'_>, opts: &Options) -> Result<Fit<Report>, TrainError> {
                match self {
                    $(Algo::$variant => {
                        let Fit { spec, report } = super::learner::fit::<$learner>(ctx, &opts.$field)?;
                        Ok(Fit { spec, report: Report::$variant(report) })
                    })*
                }
            }
        }

        /// What a learner reported, in its own terms ([`Learner::Report`]); serialized as the
        /// learner's report itself.
        #[derive(Debug, Clone, serde::Serialize)]
        #[serde(untagged)]
        pub enum Report {
            $( $(#[$doc])* $variant(<$learner as Learner>::Report), )*
        }
    };
}

registry! {
    /// Perceptron tree (Utgoff 1989).
    Ptree => crate::learners::perceptron_tree::Ptree, ptree, [Paper, PruneFraction, PruneZ, NumericMaxAbs];
    /// Neural decision list (Marchand & Golea 1993).
    Ndl => crate::learners::decision_list::Ndl, ndl, [PruneFraction, NumericMaxAbs, ValidationFolds];
    /// Halfspace intersection by greedy set covering (Marchand & Golea 1993, section 3).
    Hsi => crate::learners::decision_list::Hsi, ndl, [PruneFraction, NumericMaxAbs, ValidationFolds];
    /// Sparse perceptron by boosting (Jackson & Craven 1996).
    Sparse => crate::learners::sparse_perceptron::Sparse, sparse, [Paper, ValidationFolds];
    /// Multivariate (oblique) tree with neural-network splits (Yildiz & Alpaydin).
    Oblique => crate::learners::oblique::Oblique, oblique, [PruneFraction, PruneZ, NumericMaxAbs];
    /// FRINGE: a decision tree that constructs its own conjunction features (Pagallo 1989).
    Fringe => crate::learners::fringe::FringeLearner, fringe, [Paper, PruneFraction, PruneZ];
}

/// An option that several learners read, each in its own parameters but with one meaning: a
/// learner's registry line lists the ones it reads, so a front end knows, for any option, which
/// learners it applies to. Named as on the command line (`--prune-fraction`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shared {
    /// Start from the paper's published configuration.
    Paper,
    /// Fraction of the training rows held out to prune.
    PruneFraction,
    /// Width of C4.5's error estimate for pruning on the training rows.
    PruneZ,
    /// Range of the features a numeric input becomes.
    NumericMaxAbs,
    /// Folds of an inner cross-validation that chooses settings.
    ValidationFolds,
}

crate::names::names!(Shared, "shared option" {
    Paper => "paper",
    PruneFraction => "prune-fraction",
    PruneZ => "prune-z",
    NumericMaxAbs => "numeric-max-abs",
    ValidationFolds => "validation-folds",
});

impl fmt::Display for Algo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Algo {
    type Err = crate::names::UnknownName;

    /// The learner whose [`Algo::name`] is `s`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Algo::ALL.iter().copied().find(|a| a.name() == s).ok_or_else(|| crate::names::UnknownName {
            what: "algorithm",
            given: s.to_string(),
            expected: Algo::ALL.iter().map(|a| a.name()).collect(),
        })
    }
}

/// What to train: one learner, or the most accurate model of any learner within the budgets
/// ([`crate::learn::train_choice`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AlgoChoice {
    /// This learner.
    One(Algo),
    /// Every learner's candidate settings ([`Algo::candidates`] under a budget, else its options
    /// as given) compared on held-out rows; the most accurate within the budgets is trained.
    Auto,
}

impl AlgoChoice {
    /// The command-line name: the learner's, or `auto`.
    pub fn name(self) -> &'static str {
        match self {
            AlgoChoice::One(a) => a.name(),
            AlgoChoice::Auto => "auto",
        }
    }

    /// One line for `--help`.
    pub fn about(self) -> &'static str {
        match self {
            AlgoChoice::One(a) => a.about(),
            AlgoChoice::Auto => {
                "the most accurate model of any learner within the budgets, by validation on held-out training rows"
            }
        }
    }

    /// The learners this choice may train.
    pub fn algos(self) -> Vec<Algo> {
        match self {
            AlgoChoice::One(a) => vec![a],
            AlgoChoice::Auto => Algo::ALL.to_vec(),
        }
    }
}

impl From<Algo> for AlgoChoice {
    fn from(a: Algo) -> Self {
        AlgoChoice::One(a)
    }
}

impl fmt::Display for AlgoChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl serde::Serialize for AlgoChoice {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl std::str::FromStr for AlgoChoice {
    type Err = crate::names::UnknownName;

    /// `auto`, or the learner whose [`Algo::name`] is `s`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "auto" => Ok(AlgoChoice::Auto),
            _ => s.parse::<Algo>().map(AlgoChoice::One).map_err(|mut e| {
                e.expected.push("auto");
                e
            }),
        }
    }
}

/// Options of every algorithm.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Options {
    /// Perceptron tree options.
    pub ptree: crate::learners::perceptron_tree::Params,
    /// Neural decision list / halfspace intersection options.
    pub ndl: crate::learners::decision_list::Params,
    /// Sparse perceptron options.
    pub sparse: crate::learners::sparse_perceptron::Params,
    /// Oblique tree options.
    pub oblique: crate::learners::oblique::Params,
    /// FRINGE options.
    pub fringe: crate::learners::fringe::Params,
    /// Device budgets every learner honors (see [`Budget`]).
    pub budget: Budget,
}

/// Device budgets: a model is never returned over them. Within them [`train`](super::train) picks the most
/// accurate of the learner's candidate settings ([`Algo::candidates`]) on a seeded, stratified
/// quarter of the training rows held out for validation, then retrains it on every row. Every
/// learner's candidates end in a model of one class (the majority), so a budget fails only when
/// even that model does not fit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Budget {
    /// Most bytes of the model file a device stores: without its host block (names, input scales,
    /// metadata), as `ltu train --strip` writes it.
    pub max_bytes: Option<usize>,
    /// Most multiply-accumulates of one prediction on its worst path, plus those of computing
    /// its window statistics for a model with a pipeline.
    pub max_macs: Option<u64>,
    /// Most Cortex-M3 instructions of one prediction by the cost model of generated code:
    /// [`ModelSpec::max_essential_work`](crate::model::ModelSpec::max_essential_work), plus the
    /// instructions of computing its window statistics for a model with a pipeline
    /// ([`Extraction::instructions`](crate::model::Extraction::instructions)).
    pub max_instructions: Option<u64>,
}

/// What a model costs on a device, in the terms of [`Budget`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct DeviceCost {
    /// Bytes a device stores.
    pub bytes: usize,
    /// Worst-case multiply-accumulates of one prediction, window statistics included.
    pub macs: u64,
    /// Worst-case Cortex-M3 instructions of one prediction, window statistics included.
    pub instructions: u64,
}

impl Budget {
    /// Whether any budget is set.
    pub fn is_set(&self) -> bool {
        self.max_bytes.is_some() || self.max_macs.is_some() || self.max_instructions.is_some()
    }

    /// Whether a model of cost `c` is within every set budget.
    pub fn allows(&self, c: &DeviceCost) -> bool {
        self.max_bytes.is_none_or(|b| c.bytes <= b)
            && self.max_macs.is_none_or(|m| c.macs <= m)
            && self.max_instructions.is_none_or(|i| c.instructions <= i)
    }
}

impl fmt::Display for Budget {
    /// The set budgets, as `at most 600 bytes, at most 24 multiply-accumulates`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = [
            self.max_bytes.map(|b| format!("at most {b} bytes")),
            self.max_macs.map(|m| format!("at most {m} multiply-accumulates")),
            self.max_instructions.map(|i| format!("at most {i} instructions")),
        ]
        .into_iter()
        .flatten()
        .collect();
        f.write_str(&parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::Algo;

    #[test]
    fn shared_options_name_their_learners() {
        use super::Shared;
        crate::names::assert_round_trips(Shared::ALL);
        let readers =
            |s: Shared| Algo::ALL.iter().copied().filter(|a| a.shared().contains(&s)).collect::<Vec<_>>();
        assert_eq!(readers(Shared::Paper), [Algo::Ptree, Algo::Sparse, Algo::Fringe]);
        assert_eq!(readers(Shared::PruneZ), [Algo::Ptree, Algo::Oblique, Algo::Fringe]);
        assert_eq!(readers(Shared::ValidationFolds), [Algo::Ndl, Algo::Hsi, Algo::Sparse]);
    }

    #[test]
    fn algo_names_round_trip() {
        crate::names::assert_round_trips(Algo::ALL);
        assert_eq!(Algo::Ptree.to_string(), "ptree");
        for &c in Algo::CHOICES {
            assert_eq!(c.to_string().parse::<super::AlgoChoice>().unwrap(), c);
        }
        assert_eq!(Algo::CHOICES.len(), Algo::ALL.len() + 1);
        let e = "nope".parse::<super::AlgoChoice>().unwrap_err().to_string();
        assert!(e.contains("auto") && e.contains("ptree"), "{e}");
    }
}

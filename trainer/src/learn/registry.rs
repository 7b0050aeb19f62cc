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
/// quarter of the training rows held out for validation, then retrains it on every row.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Budget {
    /// Most bytes of the model file a device stores: without its host block (names, input scales,
    /// metadata), as `ltu train --strip` writes it.
    pub max_bytes: Option<usize>,
    /// Most multiply-accumulates of one prediction on its worst path, plus those of computing
    /// its window statistics for a model with a pipeline.
    pub max_macs: Option<u64>,
}

impl Budget {
    /// Whether any budget is set.
    pub fn is_set(&self) -> bool {
        self.max_bytes.is_some() || self.max_macs.is_some()
    }

    /// Whether a model of `device_bytes` stored bytes and `max_macs` worst-case
    /// multiply-accumulates is within every set budget.
    pub fn allows(&self, device_bytes: usize, max_macs: u64) -> bool {
        self.max_bytes.is_none_or(|b| device_bytes <= b) && self.max_macs.is_none_or(|m| max_macs <= m)
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
    }
}

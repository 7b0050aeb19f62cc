//! Names of option values (`--order cyclic`, `--algo ptree`): one `Display`/`FromStr` pair and a
//! list of every value per option enum, so front ends (the command line, `xtask`) parse and list
//! them without the library knowing about any argument parser.

use std::fmt;

/// A name that is not one of an option's values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownName {
    /// What was named (`order`, `algorithm`).
    pub what: &'static str,
    /// The name given.
    pub given: String,
    /// The accepted names.
    pub expected: Vec<&'static str>,
}

impl fmt::Display for UnknownName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown {} `{}`; expected one of: {}", self.what, self.given, self.expected.join(", "))
    }
}

impl std::error::Error for UnknownName {}

/// Gives a fieldless enum `ALL` (every value, in order), `name()`, `Display` (the name) and
/// `FromStr` (the exact name, else [`UnknownName`]):
/// `names!(Order, "order" { Cyclic => "cyclic", Shuffled => "shuffled" });`.
macro_rules! names {
    ($ty:ident, $what:literal { $($variant:ident => $name:literal),+ $(,)? }) => {
        impl $ty {
            /// Every value, in declaration order.
            pub const ALL: &'static [$ty] = &[$($ty::$variant),+];

            /// The value's name (as `Display` writes it and `FromStr` reads it).
            pub fn name(self) -> &'static str {
                match self {
                    $($ty::$variant => $name,)+
                }
            }
        }

        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl std::str::FromStr for $ty {
            type Err = $crate::names::UnknownName;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                $ty::ALL.iter().copied().find(|v| v.name() == s).ok_or_else(|| $crate::names::UnknownName {
                    what: $what,
                    given: s.to_string(),
                    expected: $ty::ALL.iter().map(|v| v.name()).collect(),
                })
            }
        }
    };
}

pub(crate) use names;

#[cfg(test)]
mod tests {
    use crate::oblique::{NodeModel, Partition, Significance};
    use crate::perceptron_tree::{LogBase, Order, SplitRule};

    fn round_trips<T>(all: &[T])
    where
        T: Copy
            + PartialEq
            + std::fmt::Debug
            + std::fmt::Display
            + std::str::FromStr<Err = super::UnknownName>,
    {
        for &v in all {
            assert_eq!(v.to_string().parse::<T>(), Ok(v));
        }
        let e = "no such value".parse::<T>().unwrap_err();
        let names: Vec<String> = all.iter().map(ToString::to_string).collect();
        assert_eq!(e.expected, names);
        assert!(e.to_string().ends_with(&format!("expected one of: {}", names.join(", "))), "{e}");
    }

    /// Every option enum's names parse back to the same value; others are refused with the list.
    #[test]
    fn names_round_trip() {
        round_trips(Order::ALL);
        round_trips(SplitRule::ALL);
        round_trips(LogBase::ALL);
        round_trips(NodeModel::ALL);
        round_trips(Partition::ALL);
        round_trips(Significance::ALL);
        round_trips(crate::algo::Algo::ALL);
        assert_eq!(Order::ALL, [Order::Cyclic, Order::Shuffled]);
        assert_eq!(SplitRule::Corollary1.to_string(), "corollary1");
        assert_eq!(LogBase::Two.name(), "two");
    }
}

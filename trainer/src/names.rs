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

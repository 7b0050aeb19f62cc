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

/// Asserts that every value of `all` parses back from its name and that another name is refused
/// with the list of accepted names.
#[cfg(test)]
pub(crate) fn assert_round_trips<T>(all: &[T])
where
    T: Copy + PartialEq + std::fmt::Debug + std::fmt::Display + std::str::FromStr<Err = UnknownName>,
{
    for &v in all {
        assert_eq!(v.to_string().parse::<T>(), Ok(v));
    }
    let e = "no such value".parse::<T>().unwrap_err();
    let names: Vec<String> = all.iter().map(ToString::to_string).collect();
    assert_eq!(e.expected, names);
    assert!(e.to_string().ends_with(&format!("expected one of: {}", names.join(", "))), "{e}");
}

#[cfg(test)]
mod tests {
    // The macro writes `pub` items, as for the option enums it serves; this one is private.
    #![allow(unreachable_pub)]

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Colour {
        Red,
        DarkBlue,
    }

    names!(Colour, "colour" { Red => "red", DarkBlue => "dark-blue" });

    #[test]
    fn names_round_trip() {
        super::assert_round_trips(Colour::ALL);
        assert_eq!(Colour::ALL, [Colour::Red, Colour::DarkBlue]);
        assert_eq!(Colour::DarkBlue.to_string(), "dark-blue");
        assert_eq!(Colour::Red.name(), "red");
        let e = "blue".parse::<Colour>().unwrap_err();
        assert_eq!(e.to_string(), "unknown colour `blue`; expected one of: red, dark-blue");
    }
}

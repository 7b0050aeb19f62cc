//! Unit tests of the perceptron tree's pieces.

use super::{LogBase, Order, SplitRule};

#[test]
fn option_names_round_trip() {
    crate::names::assert_round_trips(Order::ALL);
    crate::names::assert_round_trips(SplitRule::ALL);
    crate::names::assert_round_trips(LogBase::ALL);
    assert_eq!(Order::ALL, [Order::Cyclic, Order::Shuffled]);
    assert_eq!(SplitRule::Corollary1.to_string(), "corollary1");
    assert_eq!(LogBase::Two.name(), "two");
}

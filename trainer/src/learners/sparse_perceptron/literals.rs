//! The weak learner's candidate literals: `x = v` (and `x ≠ v`) per categorical value,
//! `x > t` and `x ≤ t` at thinned cut points of a numeric input, and which two literals on one
//! attribute make a conjunction.

use super::Params;
use crate::model::{Feature, InputKind, InputSpec, Literal, LiteralOp};

/// Candidate literals for the weak learner (see the module docs): `x = v` for every value `v` of a
/// categorical input seen in `rows` (and `x ≠ v` with [`Params::negated_literals`]); `x > t` and
/// `x ≤ t` for at most [`Params::max_cuts`] cut points of each numeric input (fewer under
/// [`Params::literal_budget`]).
pub fn candidate_literals(inputs: &[InputSpec], rows: &[Vec<i32>], p: &Params) -> Vec<Literal> {
    let mut literals = Vec::new();
    let mut column: Vec<i32> = Vec::with_capacity(rows.len());
    let numeric = inputs.iter().filter(|i| matches!(i.kind, InputKind::Numeric { .. })).count();
    let max_cuts = if p.literal_budget > 0 && numeric > 0 {
        (p.literal_budget / (2 * numeric)).max(super::MIN_CUTS).min(p.max_cuts)
    } else {
        p.max_cuts
    };
    for (attr, spec) in inputs.iter().enumerate() {
        column.clear();
        column.extend(rows.iter().map(|r| r[attr]));
        column.sort_unstable();
        match spec.kind {
            InputKind::Categorical { n_values } => {
                column.dedup();
                for &value in column.iter().filter(|&&v| (0..i32::from(n_values)).contains(&v)) {
                    literals.push(Literal { attr, op: LiteralOp::Eq, value });
                    if p.negated_literals {
                        literals.push(Literal { attr, op: LiteralOp::Ne, value });
                    }
                }
            }
            InputKind::Numeric { .. } => {
                for t in cut_points(&column, max_cuts) {
                    literals.push(Literal { attr, op: LiteralOp::Gt, value: t });
                    literals.push(Literal { attr, op: LiteralOp::Le, value: t });
                }
            }
        }
    }
    literals
}

/// Cut points of a sorted column: `⌊(a + b) / 2⌋` between consecutive distinct values `a < b`
/// (so `x > t ⇔ x ≥ b` on the data); with more than `max_cuts` of them, the ones whose rank is
/// nearest to the `max_cuts` evenly spaced quantiles.
fn cut_points(sorted: &[i32], max_cuts: usize) -> Vec<i32> {
    // (number of values <= a, cut) for every boundary.
    let mut cuts: Vec<(usize, i32)> = Vec::new();
    for (i, w) in sorted.windows(2).enumerate() {
        if w[0] < w[1] {
            let mid = (i64::from(w[0]) + i64::from(w[1])).div_euclid(2);
            cuts.push((i + 1, mid as i32));
        }
    }
    if cuts.len() <= max_cuts {
        return cuts.into_iter().map(|c| c.1).collect();
    }
    let n = sorted.len() as f64;
    let mut chosen: Vec<i32> = (1..=max_cuts)
        .map(|q| {
            let target = n * q as f64 / (max_cuts + 1) as f64;
            let i = cuts.partition_point(|c| (c.0 as f64) < target);
            // The nearer of the boundaries either side of the quantile.
            let below = i.checked_sub(1).map(|j| (target - cuts[j].0 as f64, cuts[j].1));
            let above = cuts.get(i).map(|c| (c.0 as f64 - target, c.1));
            match (below, above) {
                (Some(b), Some(a)) => {
                    if b.0 <= a.0 {
                        b.1
                    } else {
                        a.1
                    }
                }
                (Some(b), None) => b.1,
                (None, Some(a)) => a.1,
                (None, None) => unreachable!("cuts is not empty"),
            }
        })
        .collect();
    chosen.dedup();
    chosen
}

/// Whether two literals may share a conjunction: always on different attributes; on the same one
/// only when the conjunction is neither empty nor equal to one of them.
pub(super) fn compatible(a: &Literal, b: &Literal) -> bool {
    if a.attr != b.attr {
        return true;
    }
    match (a.op, b.op) {
        (LiteralOp::Ne, LiteralOp::Ne) => a.value != b.value,
        (LiteralOp::Gt, LiteralOp::Le) => a.value < b.value,
        (LiteralOp::Le, LiteralOp::Gt) => b.value < a.value,
        _ => false,
    }
}

/// The feature a conjunction becomes and the sign relating them: a single `x = v` / `x > t`
/// literal is an [`Feature::Equals`] / [`Feature::Greater`] (`x ≠ v`, `x ≤ t` their negation);
/// the empty conjunction is the bias (`None`).
pub(super) fn feature_of(literals: &[Literal]) -> Option<(Feature, f64)> {
    match literals {
        [] => None,
        [l] => Some(match l.op {
            LiteralOp::Eq => (Feature::Equals { attr: l.attr, value: l.value }, 1.0),
            LiteralOp::Ne => (Feature::Equals { attr: l.attr, value: l.value }, -1.0),
            LiteralOp::Gt => (Feature::Greater { attr: l.attr, value: l.value }, 1.0),
            LiteralOp::Le => (Feature::Greater { attr: l.attr, value: l.value }, -1.0),
        }),
        _ => Some((Feature::Conjunction(literals.to_vec()), 1.0)),
    }
}

#[cfg(test)]
mod tests {
    use super::{candidate_literals, compatible, cut_points, Params};
    use crate::model::{InputKind, InputSpec, Literal, LiteralOp};

    fn lit(attr: usize, op: LiteralOp, value: i32) -> Literal {
        Literal { attr, op, value }
    }

    #[test]
    fn candidate_literals_cover_seen_values_and_cut_points() {
        let inputs = [
            InputSpec { kind: InputKind::Categorical { n_values: 3 }, missing: 3 },
            InputSpec { kind: InputKind::Numeric { scale_exp: 0, offset: 0 }, missing: 0 },
        ];
        // Value 1 of the categorical input is never seen and 3 means missing: only `x0 = 0` and
        // `x0 = 2`. The numeric column has one boundary, between 10 and 20.
        let rows = vec![vec![0, 10], vec![2, 20], vec![3, 10]];
        let p = Params { negated_literals: false, ..Params::default() };
        assert_eq!(
            candidate_literals(&inputs, &rows, &p),
            vec![
                lit(0, LiteralOp::Eq, 0),
                lit(0, LiteralOp::Eq, 2),
                lit(1, LiteralOp::Gt, 15),
                lit(1, LiteralOp::Le, 15)
            ]
        );
    }

    #[test]
    fn cut_points_lie_between_distinct_values() {
        assert_eq!(cut_points(&[1, 1, 3, 4, 4, 9], 10), vec![2, 3, 6]);
        assert_eq!(cut_points(&[-3, -2], 10), vec![-3]);
        assert_eq!(cut_points(&[5, 5, 5], 10), Vec::<i32>::new());
        // With a budget of one cut, the boundary nearest the median.
        assert_eq!(cut_points(&[1, 2, 3, 4, 5, 6], 1), vec![3]);
    }

    #[test]
    fn conjunctions_of_one_attribute_must_narrow_both_literals() {
        // Different attributes always combine.
        assert!(compatible(&lit(0, LiteralOp::Eq, 1), &lit(1, LiteralOp::Eq, 1)));
        // `x = 1 ∧ x = 2` is empty, `x = 1 ∧ x ≠ 2` is `x = 1`.
        assert!(!compatible(&lit(0, LiteralOp::Eq, 1), &lit(0, LiteralOp::Eq, 2)));
        assert!(!compatible(&lit(0, LiteralOp::Eq, 1), &lit(0, LiteralOp::Ne, 2)));
        assert!(compatible(&lit(0, LiteralOp::Ne, 1), &lit(0, LiteralOp::Ne, 2)));
        // An interval `3 < x ≤ 7` is a conjunction; `x > 7 ∧ x ≤ 3` is empty.
        assert!(compatible(&lit(0, LiteralOp::Gt, 3), &lit(0, LiteralOp::Le, 7)));
        assert!(compatible(&lit(0, LiteralOp::Le, 7), &lit(0, LiteralOp::Gt, 3)));
        assert!(!compatible(&lit(0, LiteralOp::Gt, 7), &lit(0, LiteralOp::Le, 3)));
    }
}

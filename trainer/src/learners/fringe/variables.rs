//! The Boolean variables a FRINGE tree tests: the primitive tests on raw inputs (`x == v`,
//! `x > t` at class-boundary cuts) and, per variable, its values on the learning rows as a bit
//! set, so that equivalent features are recognised and node counts are popcounts.

use std::collections::{HashMap, HashSet};

use super::{Operand, Variable};
use crate::model::{InputKind, InputSpec, Literal, LiteralOp};

/// Bit set over rows.
pub(super) type Bits = Vec<u64>;

/// Bit `r` of `b`.
pub(super) fn bit(b: &[u64], r: usize) -> bool {
    b[r >> 6] >> (r & 63) & 1 == 1
}

/// The primitive variables of a set of inputs: `x == v` per categorical value (one variable
/// `x == 1` for a two-valued attribute), `x > t` per candidate threshold of a numeric one.
/// Variables constant over `rows` are left out.
fn primitives(
    inputs: &[InputSpec],
    rows: &[Vec<i32>],
    labels: &[usize],
    max_thresholds: usize,
) -> Vec<Literal> {
    let mut out = Vec::new();
    for (attr, inp) in inputs.iter().enumerate() {
        let cands: Vec<Literal> = match inp.kind {
            InputKind::Categorical { n_values } => {
                let values: Vec<i32> =
                    if n_values == 2 { vec![1] } else { (0..i32::from(n_values)).collect() };
                values.into_iter().map(|value| Literal { attr, op: LiteralOp::Eq, value }).collect()
            }
            InputKind::Numeric { .. } => {
                // Distinct values, each with its one class or `None` when its rows disagree.
                let mut pairs: Vec<(i32, usize)> =
                    rows.iter().zip(labels).map(|(r, &y)| (r[attr], y)).collect();
                pairs.sort_unstable();
                let mut vals: Vec<(i32, Option<usize>)> = Vec::new();
                for (v, y) in pairs {
                    match vals.last_mut() {
                        Some((last, class)) if *last == v => {
                            if *class != Some(y) {
                                *class = None;
                            }
                        }
                        _ => vals.push((v, Some(y))),
                    }
                }
                // Boundary cuts (Fayyad & Irani 1992): between two values unless both hold rows
                // of one same class only. The entropy-best cut of any node lies at one, so the
                // others only cost time; beyond `max_thresholds`, evenly spaced ones by rank.
                let cuts: Vec<usize> = (0..vals.len().saturating_sub(1))
                    .filter(|&i| vals[i].1.is_none() || vals[i].1 != vals[i + 1].1)
                    .collect();
                let picks: Vec<usize> = if cuts.len() <= max_thresholds {
                    cuts
                } else {
                    // The middle cut of each of `max_thresholds` equal runs of them (never the
                    // extreme ones, which would split off a single value of noisy data).
                    let n = cuts.len();
                    let mut p: Vec<usize> =
                        (0..max_thresholds).map(|k| cuts[(2 * k + 1) * n / (2 * max_thresholds)]).collect();
                    p.dedup();
                    p
                };
                // `x > t` with `t` halfway to the next learning value (rounded down), as CART
                // places its thresholds: the same split of the learning rows as `x > vals[i]`,
                // but unseen values in the gap go to the nearer side.
                picks
                    .into_iter()
                    .map(|i| {
                        let (lo, hi) = (i64::from(vals[i].0), i64::from(vals[i + 1].0));
                        let value = i32::try_from(lo + (hi - lo) / 2).unwrap_or(vals[i].0);
                        Literal { attr, op: LiteralOp::Gt, value }
                    })
                    .collect()
            }
        };
        for l in cands {
            let n_true = rows.iter().filter(|x| l.holds(x)).count();
            if n_true > 0 && n_true < rows.len() {
                out.push(l);
            }
        }
    }
    out
}

/// A numeric threshold `x > t`'s margin over some rows: the gap between the nearest values on
/// either side of `t`, and `t`'s distance to the nearer of them, both over the attribute's
/// spread; `(0, 0)` for any other variable. The learner prefers, among equally good splits, the
/// widest margin, as CART's midpoints and a maximum-margin classifier do.
pub(super) fn margin<'r>(v: &Variable, rows: impl Iterator<Item = &'r [i32]>, spread: &[f64]) -> (f64, f64) {
    let Variable::Primitive(Literal { attr, op: LiteralOp::Gt, value }) = *v else {
        return (0.0, 0.0);
    };
    let spread = spread[attr];
    if spread <= 0.0 {
        return (0.0, 0.0);
    }
    let t = i64::from(value);
    let (mut below, mut above) = (i64::MIN, i64::MAX);
    for x in rows {
        let x = i64::from(x[attr]);
        if x > t {
            above = above.min(x);
        } else {
            below = below.max(x);
        }
    }
    if below == i64::MIN || above == i64::MAX {
        return (0.0, 0.0);
    }
    ((above - below) as f64 / spread, (t - below).min(above - t) as f64 / spread)
}

/// Per attribute, the standard deviation of its learning values (0 for a categorical one).
pub(super) fn spreads(inputs: &[InputSpec], rows: &[Vec<i32>]) -> Vec<f64> {
    let n = rows.len().max(1) as f64;
    inputs
        .iter()
        .enumerate()
        .map(|(a, inp)| match inp.kind {
            InputKind::Categorical { .. } => 0.0,
            InputKind::Numeric { .. } => {
                let mean = rows.iter().map(|r| f64::from(r[a])).sum::<f64>() / n;
                (rows.iter().map(|r| (f64::from(r[a]) - mean).powi(2)).sum::<f64>() / n).sqrt()
            }
        })
        .collect()
}

/// The variable values of the learning rows, one bit set per variable.
pub(super) struct Values {
    n_rows: usize,
    /// Per variable, the rows where it holds.
    pub(super) bits: Vec<Bits>,
    /// Truth vectors already present (and their complements), to skip equivalent features.
    seen: HashSet<Bits>,
}

impl Values {
    /// No variables yet over `n_rows` learning rows.
    pub(super) fn new(n_rows: usize) -> Values {
        Values { n_rows, bits: Vec::new(), seen: HashSet::new() }
    }

    /// 64-bit words per bit set.
    pub(super) fn words(&self) -> usize {
        self.n_rows.div_ceil(64)
    }

    fn operand(&self, o: Operand) -> Bits {
        let b = &self.bits[o.var];
        if o.positive {
            b.clone()
        } else {
            self.complement(b)
        }
    }

    /// The complement of `b` over the rows.
    fn complement(&self, b: &[u64]) -> Bits {
        let mut c: Bits = b.iter().map(|w| !w).collect();
        let tail = self.n_rows & 63;
        if tail != 0 {
            if let Some(last) = c.last_mut() {
                *last &= (1u64 << tail) - 1;
            }
        }
        c
    }

    /// The rows where `v` holds.
    fn compute(&self, v: &Variable, rows: &[Vec<i32>]) -> Bits {
        match v {
            Variable::Primitive(l) => {
                let mut b = vec![0u64; self.words()];
                for (r, x) in rows.iter().enumerate() {
                    if l.holds(x) {
                        b[r >> 6] |= 1 << (r & 63);
                    }
                }
                b
            }
            Variable::And(a, c) => {
                self.operand(*a).iter().zip(self.operand(*c)).map(|(x, y)| x & y).collect()
            }
            Variable::Or(a, c) => self.operand(*a).iter().zip(self.operand(*c)).map(|(x, y)| x | y).collect(),
        }
    }

    /// Whether `v` is neither constant over the rows nor equal (or complementary) to a variable
    /// already present.
    pub(super) fn is_new(&self, v: &Variable, rows: &[Vec<i32>]) -> bool {
        let b = self.compute(v, rows);
        let ones: u32 = b.iter().map(|w| w.count_ones()).sum();
        ones > 0 && (ones as usize) < self.n_rows && !self.seen.contains(&b)
    }

    /// Adds `v` unless it is constant over the rows or equal (or complementary) to a variable
    /// already present; returns whether it was added.
    pub(super) fn try_add(&mut self, v: &Variable, rows: &[Vec<i32>]) -> bool {
        let b = self.compute(v, rows);
        let ones: u32 = b.iter().map(|w| w.count_ones()).sum();
        if ones == 0 || ones as usize == self.n_rows || self.seen.contains(&b) {
            return false;
        }
        let c = self.complement(&b);
        self.seen.insert(c);
        self.seen.insert(b.clone());
        self.bits.push(b);
        true
    }
}

/// The primitive variables of the learning rows ([`primitives`]) added to `values`: of those
/// that split the rows alike (or complementarily), only the one of widest [`margin`] stays, and
/// constant ones are left out.
pub(super) fn distinct_primitives(
    inputs: &[InputSpec],
    rows: &[Vec<i32>],
    labels: &[usize],
    max_thresholds: usize,
    spread: &[f64],
    values: &mut Values,
) -> Vec<Variable> {
    let variables: Vec<Variable> =
        primitives(inputs, rows, labels, max_thresholds).into_iter().map(Variable::Primitive).collect();
    let mut kept: Vec<(Bits, Variable)> = Vec::new();
    let mut index: HashMap<Bits, usize> = HashMap::new();
    for v in variables {
        let b = values.compute(&v, rows);
        let key = b.clone().min(values.complement(&b));
        match index.get(&key) {
            Some(&k) => {
                let m = |v: &Variable| margin(v, rows.iter().map(Vec::as_slice), spread);
                if m(&v) > m(&kept[k].1) {
                    kept[k].1 = v;
                }
            }
            None => {
                index.insert(key, kept.len());
                kept.push((b, v));
            }
        }
    }
    let mut variables: Vec<Variable> = kept.into_iter().map(|(_, v)| v).collect();
    variables.retain(|v| values.try_add(v, rows));
    variables
}

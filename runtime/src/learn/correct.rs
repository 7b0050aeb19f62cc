//! One step of Utgoff's error correction on a loaded model: find the unit that decides, check
//! whether it decided right, and correct its rows by the absolute error-correction rule, with the
//! step shortened so that the load-time accumulator bound still holds.

#[cfg(feature = "list")]
use crate::format::ListEntryRec;
use crate::format::{StructureRepr, UnitRec, WeightKind};
#[cfg(feature = "tree")]
use crate::model::Leaf;
use crate::model::{Carry, Eval, Model};
use crate::Result;

use super::Outcome;

/// Which way the deciding unit must answer.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Target {
    /// A tree leaf or a linear model: the unit's output must be this class.
    Class(usize),
    /// A decision list's entry that fired for the wrong class: it must not fire.
    #[cfg_attr(not(feature = "list"), allow(dead_code))]
    Negative,
    /// A decision list's entry for the label, when the default answered wrongly: it must fire.
    #[cfg_attr(not(feature = "list"), allow(dead_code))]
    Positive,
}

/// The correction one update applies: unit `unit`, rows and steps (`W_r ← W_r − step·I`).
pub(super) struct Plan {
    pub unit: u16,
    pub rows: [(usize, i64); 2],
    pub n_rows: usize,
    /// The step was shortened to keep the accumulator bound.
    pub clipped: bool,
    /// The numeric features computed so far, for [`apply`].
    pub carry: Carry,
}

/// Decides what one update does: `Err(outcome)` when nothing changes (no mistake, a constant
/// leaf, a label the unit cannot output, or a step the bound leaves no room for), otherwise
/// the plan. `view` is the learned model (weights in RAM), `base` the same model as loaded (its
/// weights are never read here: only features).
pub(super) fn plan<S: FnMut(usize) -> Option<i32>>(
    view: &Model<'_>,
    base: &Model<'_>,
    src: &mut S,
    label: usize,
) -> Result<core::result::Result<Plan, Outcome>> {
    let (unit, target) = match deciding_unit(view, src, label)? {
        Ok(found) => found,
        Err(outcome) => return Ok(Err(outcome)),
    };
    let mut ev = view.eval(src);
    let bytes = ev.unit_bytes(unit);
    let rec = UnitRec::from_array(bytes).0;
    let steps = unit_steps(&mut ev, bytes, target);
    // An input the scores needed was unavailable: an error, whatever the scores say.
    ev.done(())?;
    let (mut rows, n_rows) = match steps {
        Some(Ok(steps)) => steps,
        Some(Err(())) => return Ok(Err(Outcome::Correct)),
        None => return Ok(Err(Outcome::Unlearnable)),
    };
    let carry = ev.carry();
    // `n2 = 1 + Σ f_j²`, `F = 1 + Σ |f_j|·max|f_j|` and each changed row's bound `B_r`.
    let kind = view.weight_kind();
    let mut fe = base.eval_carried(src, carry);
    let weights = view.repr().weights;
    let Sums { n2, f_sum, bound } = match kind {
        WeightKind::I8 => sums::<1, u32, S>(&mut fe, &rec, weights, &rows),
        WeightKind::I16 => sums::<2, u32, S>(&mut fe, &rec, weights, &rows),
        WeightKind::I32 => sums::<4, u32, S>(&mut fe, &rec, weights, &rows),
        WeightKind::Fixed => sums::<4, u64, S>(&mut fe, &rec, weights, &rows),
    };
    fe.done(())?;
    let carry = fe.carry();
    // Utgoff's steps, from the scores `unit_steps` left in `rows`.
    let limit = kind.accumulator_limit();
    // `F ≥ 1` and `n2 ≥ 1`: the checked divisions never fail (they only spare a panic path).
    let room = |b: u64| div_u64(limit.saturating_sub(b), f_sum);
    let n2 = n2 as i64; // at most 1 + 65 535 · 32 767²: fits
    let mut clipped = false;
    if n_rows == 1 {
        let (y, positive) = (rows[0].1, target_positive(&ev_classes(view, &rec), target));
        let q = div_euclid_i64(y, n2);
        let s = if positive { q.saturating_sub(1) } else { q.saturating_add(1) };
        let allowed = room(bound[0]);
        let s = if s.unsigned_abs() > allowed {
            clipped = true;
            // `allowed < |s| <= i64::MAX + 1`, so it fits.
            (allowed as i64) * s.signum()
        } else {
            s
        };
        rows[0].1 = s;
    } else {
        let d = rows[1].1.saturating_sub(rows[0].1);
        let mut c = div_euclid_i64(d, 2 * n2).saturating_add(1);
        let allowed = room(bound[0]).min(room(bound[1]));
        if c.unsigned_abs() > allowed {
            clipped = true;
            c = allowed as i64;
        }
        rows[0].1 = -c;
        rows[1].1 = c;
    }
    if rows[0].1 == 0 {
        return Ok(Err(Outcome::Saturated { unit: unit as u16 }));
    }
    Ok(Ok(Plan { unit: unit as u16, rows, n_rows, clipped, carry }))
}

/// `a / b` (0 for `b == 0`), in one 32-bit division when both fit (an integer model's bounds
/// do): a 64-bit division is a library call on 32-bit cores.
fn div_u64(a: u64, b: u64) -> u64 {
    match (u32::try_from(a), u32::try_from(b)) {
        (Ok(a), Ok(b)) => a.checked_div(b).map_or(0, u64::from),
        _ => a.checked_div(b).unwrap_or(0),
    }
}

/// `⌊a / b⌋` (towards −∞; 0 for `b == 0`), in 32 bits when both fit, as [`div_u64`].
fn div_euclid_i64(a: i64, b: i64) -> i64 {
    match (i32::try_from(a), i32::try_from(b)) {
        (Ok(a), Ok(b)) => a.checked_div_euclid(b).map_or(0, i64::from),
        _ => a.checked_div_euclid(b).unwrap_or(0),
    }
}

/// Applies `plan` to the RAM weight table `ram`: each planned row `r` becomes `W_r − step·I`,
/// every weight clamped to the weight kind's range. Returns whether some weight was clamped.
pub(super) fn apply<S: FnMut(usize) -> Option<i32>>(
    base: &Model<'_>,
    src: &mut S,
    plan: Plan,
    ram: &mut [u8],
) -> bool {
    let kind = base.weight_kind();
    let mut ev = base.eval_carried(src, plan.carry);
    let rec = ev.unit(usize::from(plan.unit));
    let (rows, n) = (&plan.rows, plan.n_rows);
    match kind {
        WeightKind::I8 => apply_w::<1, false, S>(&mut ev, &rec, rows, n, ram),
        WeightKind::I16 => apply_w::<2, false, S>(&mut ev, &rec, rows, n, ram),
        WeightKind::I32 => apply_w::<4, false, S>(&mut ev, &rec, rows, n, ram),
        WeightKind::Fixed => apply_w::<4, true, S>(&mut ev, &rec, rows, n, ram),
    }
}

/// What the step bound needs: `n2 = 1 + Σ f_j²`, `F = 1 + Σ |f_j|·max|f_j|` and each row's
/// accumulator bound `B_r` (the loader's `format::row_bound`).
struct Sums {
    n2: u64,
    f_sum: u64,
    bound: [u64; 2],
}

/// [`Sums`] of the two `rows` of unit `rec`, whose weights have `W` bytes, with bounds added up
/// as `B` ([`Bound`]). Every product here is of factors the loader bounds (`|f| ≤ max|f| ≤
/// 32 767`, `|w| ≤ 2^31`) and every sum has at most 65 536 terms, so nothing overflows and no
/// product needs a 64-bit overflow check.
// Out of line, as `apply_w`: inlined into the update, the two passes' frames add up (1,144 B
// of update stack on the Cortex-M3 against 324 B).
#[inline(never)]
fn sums<const W: usize, B: Bound, S: FnMut(usize) -> Option<i32>>(
    fe: &mut Eval<'_, '_, S>,
    rec: &UnitRec,
    weights: &[u8],
    rows: &[(usize, i64); 2],
) -> Sums {
    // A binary unit's second row is its first again: its bound is computed and ignored, which
    // spares a test per term.
    let rows_w = [row::<W>(weights, rec, rows[0].0), row::<W>(weights, rec, rows[1].0)];
    // The biases, the rows' last weights.
    let [mut b0, mut b1] = rows_w
        .map(|r| B::from_abs(int::<W>(r.get(r.len().saturating_sub(W)..).unwrap_or(&[])).unsigned_abs()));
    let [mut first, mut second] = rows_w.map(|r| r.chunks_exact(W));
    let (mut n2, mut f_sum) = (1u64, 1u64);
    let mut add = |f: i32, abs: u32, w0: i32, w1: i32| {
        let f = f.unsigned_abs();
        n2 += u64::from(f * f);
        f_sum += u64::from(f * abs);
        b0 = b0.add_term(w0, abs);
        b1 = b1.add_term(w1, abs);
    };
    if fe.numeric_cached(rec) {
        for ((f, abs), (w0, w1)) in fe.cached_numeric_terms().zip(first.zip(second)) {
            add(f, abs, int::<W>(w0), int::<W>(w1));
        }
    } else {
        fe.terms(rec, |f, abs| {
            let (w0, w1) = (first.next().map_or(0, int::<W>), second.next().map_or(0, int::<W>));
            add(f, abs, w0, w1);
        });
    }
    Sums { n2, f_sum, bound: [b0.widen(), b1.widen()] }
}

/// A row's accumulator bound as [`sums`] adds it up: in `u32` for the integer kinds, whose
/// accumulator limit is `i32::MAX` — a loaded or learned row's bound is within it, so every
/// product and partial sum fits and the wrapping operations never wrap (they spare a register
/// pair and the overflow checks) — and in `u64` for `Fixed`, whose limit is `i64::MAX`.
trait Bound: Copy {
    fn from_abs(w: u32) -> Self;
    /// `self + |w|·abs`.
    fn add_term(self, w: i32, abs: u32) -> Self;
    fn widen(self) -> u64;
}

impl Bound for u32 {
    fn from_abs(w: u32) -> Self {
        w
    }
    #[inline(always)]
    fn add_term(self, w: i32, abs: u32) -> Self {
        self.wrapping_add(w.unsigned_abs().wrapping_mul(abs))
    }
    fn widen(self) -> u64 {
        u64::from(self)
    }
}

impl Bound for u64 {
    fn from_abs(w: u32) -> Self {
        u64::from(w)
    }
    #[inline(always)]
    fn add_term(self, w: i32, abs: u32) -> Self {
        // At most 2^31 · 32 767 per term and 65 536 terms: no overflow.
        self + u64::from(w.unsigned_abs()) * u64::from(abs)
    }
    fn widen(self) -> u64 {
        self
    }
}

/// [`apply`] for weights of `W` bytes; `FIXED`: `I16F16` bits, whose accumulator limit is
/// `i64::MAX`.
#[inline(never)] // see `sums`
fn apply_w<const W: usize, const FIXED: bool, S: FnMut(usize) -> Option<i32>>(
    ev: &mut Eval<'_, '_, S>,
    rec: &UnitRec,
    rows: &[(usize, i64); 2],
    n: usize,
    ram: &mut [u8],
) -> bool {
    let mut clamped = false;
    let mut step = |c: &mut [u8], f: i32, s: i64| clamped |= step_weight::<W, FIXED>(c, f, s);
    let len = (rec.n_terms as usize + 1) * W;
    let (first, second) = rows_mut::<W>(ram, rec, rows, n, len);
    let (s0, s1) = (rows[0].1, rows[1].1);
    let mut first = first.chunks_exact_mut(W);
    let mut second = second.chunks_exact_mut(W);
    if !ev.numeric_cached(rec) {
        ev.terms(rec, |f, _| {
            if let Some(c) = first.next() {
                step(c, f, s0);
            }
            if let Some(c) = second.next() {
                step(c, f, s1);
            }
        });
    } else if n < 2 {
        // One changed row (a binary unit; `second` is empty).
        ev.cached_numeric_terms().zip(first.by_ref()).for_each(|((f, _), c)| step(c, f, s0));
    } else {
        let terms = ev.cached_numeric_terms().zip(first.by_ref().zip(second.by_ref()));
        terms.for_each(|((f, _), (c0, c1))| {
            step(c0, f, s0);
            step(c1, f, s1);
        });
    }
    // The biases, whose feature is the constant 1.
    if let Some(c) = first.next() {
        step(c, 1, s0);
    }
    if let Some(c) = second.next() {
        step(c, 1, s1);
    }
    clamped
}

/// `w ← w − s·f` for the `W`-byte weight `c`, clamped to the weight kind's range; returns
/// whether it was clamped. The step's bound keeps `|w − s·f|` within the accumulator limit, so
/// the wrapping operations never wrap: they only spare the overflow checks. For an integer kind
/// the limit is `i32::MAX`, so the step, the product and the result all fit in `i32`.
#[inline(always)]
fn step_weight<const W: usize, const FIXED: bool>(c: &mut [u8], f: i32, s: i64) -> bool {
    let (lo, hi): (i32, i32) = match W {
        1 => (i8::MIN.into(), i8::MAX.into()),
        2 => (i16::MIN.into(), i16::MAX.into()),
        _ => (i32::MIN, i32::MAX),
    };
    let w = int::<W>(c);
    let (v, clamped) = if FIXED {
        let v = i64::from(w).wrapping_sub(s.wrapping_mul(i64::from(f)));
        let c = v.clamp(lo.into(), hi.into());
        (c as i32, c != v)
    } else {
        let v = w.wrapping_sub((s as i32).wrapping_mul(f));
        let c = v.clamp(lo, hi);
        (c, c != v)
    };
    c.copy_from_slice(&v.to_le_bytes()[..W]);
    clamped
}

/// The weight bytes of the first `n` of `rows` (one, or two distinct rows, of `len` bytes) as
/// disjoint mutable slices, in the order of `rows` (the second empty for one row).
fn rows_mut<'r, const W: usize>(
    ram: &'r mut [u8],
    rec: &UnitRec,
    rows: &[(usize, i64); 2],
    n: usize,
    len: usize,
) -> (&'r mut [u8], &'r mut [u8]) {
    let at = |r: usize| row_start(rec, r) * W;
    let first = at(rows[0].0);
    if n < 2 {
        return (ram.get_mut(first..first + len).unwrap_or(&mut []), &mut []);
    }
    let second = at(rows[1].0);
    let (lo, hi) = (first.min(second), first.max(second));
    let (left, right) = ram.split_at_mut(hi.min(ram.len()));
    let low = left.get_mut(lo..lo + len).unwrap_or(&mut []);
    let high = right.get_mut(..len).unwrap_or(&mut []);
    if first < second {
        (low, high)
    } else {
        (high, low)
    }
}

/// Row `r` of unit `rec` in a table of `W`-byte weights: its terms' weights, then its bias.
fn row<'t, const W: usize>(table: &'t [u8], rec: &UnitRec, r: usize) -> &'t [u8] {
    let start = row_start(rec, r) * W;
    table.get(start..start + (rec.n_terms as usize + 1) * W).unwrap_or(&[])
}

/// The `W`-byte little-endian signed integer `b` (raw bits for `Fixed`), 0 if `b` is shorter.
fn int<const W: usize>(b: &[u8]) -> i32 {
    match b {
        [v, ..] if W == 1 => i32::from(*v as i8),
        [a, b, ..] if W == 2 => i32::from(i16::from_le_bytes([*a, *b])),
        [a, b, c, d, ..] => i32::from_le_bytes([*a, *b, *c, *d]),
        _ => 0,
    }
}

/// The unit whose answer decides for the current input, and what it should answer, or the
/// outcome when there is no unit to correct.
#[cfg_attr(not(any(feature = "tree", feature = "list")), allow(unused_variables))]
fn deciding_unit<S: FnMut(usize) -> Option<i32>>(
    view: &Model<'_>,
    src: &mut S,
    label: usize,
) -> Result<core::result::Result<(usize, Target), Outcome>> {
    match view.repr().structure {
        StructureRepr::Linear { unit } => Ok(Ok((usize::from(unit), Target::Class(label)))),
        #[cfg(feature = "tree")]
        StructureRepr::Tree { nodes, children } => {
            Ok(match view.leaf(src, view.n_inputs(), nodes, children)? {
                Leaf::Unit(u) => Ok((u, Target::Class(label))),
                Leaf::Class(_) => Err(Outcome::Constant),
            })
        }
        #[cfg(feature = "list")]
        StructureRepr::List { entries, default_class } => {
            let mut ev = view.eval(src);
            let fired = ev.fired(entries);
            ev.done(())?;
            Ok(match fired {
                Some((_, class, _)) if class == label => Err(Outcome::Correct),
                Some((unit, _, _)) => Ok((unit, Target::Negative)),
                None if usize::from(default_class) == label => Err(Outcome::Correct),
                None => entries
                    .chunks_exact(ListEntryRec::SIZE)
                    .filter_map(<[u8]>::first_chunk::<4>)
                    .map(|&[u0, u1, c0, c1]| {
                        (usize::from(u16::from_le_bytes([u0, u1])), u16::from_le_bytes([c0, c1]))
                    })
                    .find(|&(_, class)| usize::from(class) == label)
                    .map_or(Err(Outcome::Unlearnable), |(unit, _)| Ok((unit, Target::Positive))),
            })
        }
        // A structure this build leaves out never loads.
        #[allow(unreachable_patterns)]
        _ => Ok(Err(Outcome::Unlearnable)),
    }
}

/// The classes `[negative, positive]` of binary unit `rec`.
fn ev_classes(view: &Model<'_>, rec: &UnitRec) -> [usize; 2] {
    let classes = view.repr().unit_classes;
    let class = |k: usize| {
        let at = (rec.class_start as usize + k) * 2;
        classes.get(at..at + 2).map_or(0, |b| usize::from(u16::from_le_bytes([b[0], b[1]])))
    };
    [class(0), class(1)]
}

/// Whether a binary unit must answer positive.
fn target_positive(classes: &[usize; 2], target: Target) -> bool {
    match target {
        Target::Class(c) => c == classes[1],
        Target::Negative => false,
        Target::Positive => true,
    }
}

/// Scores the rows the correction concerns: `Some(Ok(([(row, score)...], n)))` on a mistake
/// (binary: the one row; machine: the label's row then the strongest other row),
/// `Some(Err(()))` if the unit already answers right, `None` if it cannot output the label.
#[allow(clippy::type_complexity)]
fn unit_steps<S: FnMut(usize) -> Option<i32>>(
    ev: &mut Eval<'_, '_, S>,
    bytes: &[u8; UnitRec::SIZE],
    target: Target,
) -> Option<core::result::Result<([(usize, i64); 2], usize), ()>> {
    let rec = &UnitRec::from_array(bytes).0;
    // Every row is scored first, as prediction scores it, so an unavailable input is an error
    // even where the unit turns out not to be able to learn the label.
    if rec.n_out == 1 {
        let y = ev.row(bytes, 0);
        let (neg, pos) = (ev.unit_class(rec, 0), ev.unit_class(rec, 1));
        if let Target::Class(c) = target {
            if c != neg && c != pos {
                return None;
            }
        }
        let positive = target_positive(&[neg, pos], target);
        let wrong = if positive { y <= 0 } else { y >= 0 };
        return Some(if wrong { Ok(([(0, y), (0, 0)], 1)) } else { Err(()) });
    }
    let label = match target {
        Target::Class(label) => Some(label),
        _ => None,
    };
    // The label's row (the first of its class) and the strongest other row (the first on ties).
    let (mut mine, mut other): (Option<(usize, i64)>, Option<(usize, i64)>) = (None, None);
    for o in 0..rec.n_out as usize {
        let s = ev.row(bytes, o);
        if mine.is_none() && Some(ev.unit_class(rec, o)) == label {
            mine = Some((o, s));
        } else if other.is_none_or(|(_, best)| s > best) {
            other = Some((o, s));
        }
    }
    let ((t, y_t), (o, y_o)) = (mine?, other?);
    Some(if y_o >= y_t { Ok(([(t, y_t), (o, y_o)], 2)) } else { Err(()) })
}

/// Index in the weight table of the first weight of row `r` of unit `rec`.
fn row_start(rec: &UnitRec, r: usize) -> usize {
    rec.weight_start as usize + r * (rec.n_terms as usize + 1)
}

/// Checks that every row of every unit of `view` keeps its accumulator bound: the loader's
/// check, for weights that came from storage rather than from the learner's own updates.
pub(super) fn check(view: &Model<'_>) -> Result<()> {
    Model::from_repr(*view.repr()).map(|_| ())
}

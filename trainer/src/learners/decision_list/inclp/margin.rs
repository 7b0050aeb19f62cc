//! Fine-tuning an accepted halfspace to the largest margin (beyond the paper), in the max-norm
//! or 1-norm geometry ([`Norm`]) and, for narrow weight kinds, within a box of representable
//! units.

use microlp::{ComparisonOp, OptimizationDirection, Problem, Variable};

use super::{outcome, row_expr, Halfspace, MARGIN, TOLERANCE};

/// Fine-tuning beyond the paper (section 6.3 suggests a maximal-stability hyperplane): the
/// halfspace that covers every point of `covered` and no point of `excluded` with the largest
/// margin `δ` under `|w_j| <= 1`, an LP:
///
/// ```text
///   maximise δ   s.t.   w·x + b >= δ (x covered),   w·x + b <= -δ (x excluded),   -1 <= w_j <= 1
/// ```
///
/// The max-norm bound is the right one for quantization: rounding every weight by at most `ε`
/// moves a score by at most `ε·‖x‖₁`, so the largest `δ / ‖w‖∞` is the halfspace that survives
/// the coarsest weight grid. Rows are generated lazily as in [`IncLp`]. The result is rescaled to
/// margin [`MARGIN`]; `None` if the solver fails or its answer cannot be confirmed (callers keep
/// the IncLP halfspace).
///
/// With [`Norm::Sum`] the LP also bounds `Σ |w_j| <= 1` (see [`Norm`]).
///
/// [`IncLp`]: super::IncLp
pub fn max_margin(
    points: &[Vec<f64>],
    covered: &[usize],
    excluded: &[usize],
    start: &Halfspace,
    norm: Norm,
) -> Option<Halfspace> {
    let d = start.w.len();
    max_margin_boxed(points, covered, excluded, start, &vec![1.0; d], d as f64 + 1.0, norm)
}

/// Which norm of the weights the max-margin LP ([`max_margin`]) bounds: the geometry in which a
/// node's margin is measured, and so which of the separating halfspaces it picks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Norm {
    /// `|w_j| <= 1` (the max-norm): the margin in the `ℓ1` distance, which spreads weight over
    /// every feature that helps a little (dense units, the largest tolerance to rounding).
    #[default]
    Max,
    /// `|w_j| <= 1` and `Σ |w_j| / bound_j <= 1` (the 1-norm, as in the 1-norm support vector
    /// machine): the margin in the `ℓ∞` distance, whose solutions put weight on as few
    /// features as the separation needs (sparse units: fewer multiply-accumulates, and a better
    /// guess where few features matter). Beyond the paper.
    Sum,
}

/// [`max_margin`] under the box `|w_j| <= weight_bound[j]`, `|b| <= bias_bound`. With
/// `weight_bound[j] = M_j` (the feature's integer bound, `x_j = f_j / M_j`) and `bias_bound = 1`
/// the box is exactly the set of units whose stored weights `s·w_j / M_j` and bias `s·b` fit one
/// common range, so the largest margin in it is the one that survives rounding to a weight kind
/// whose range (not the accumulator) limits the scale, as `i8` and `i16` do: the bias is then
/// rounded as coarsely as the weights, which an unbounded bias ignores.
///
/// # Panics
/// If `weight_bound` has not one entry per input.
pub fn max_margin_boxed(
    points: &[Vec<f64>],
    covered: &[usize],
    excluded: &[usize],
    start: &Halfspace,
    weight_bound: &[f64],
    bias_bound: f64,
    norm: Norm,
) -> Option<Halfspace> {
    let d = start.w.len();
    assert_eq!(weight_bound.len(), d, "one bound per weight");
    if covered.is_empty() || excluded.is_empty() {
        return None;
    }
    // No margin exceeds `Σ bounds` on `[-1, 1]^d`; `+ 1` keeps the bound of the original
    // `‖w‖∞ <= 1` LP (`d + 1`), so `max_margin` pivots as it does on that LP.
    let bound = weight_bound.iter().sum::<f64>() + 1.0;
    let mut p = Problem::new(OptimizationDirection::Maximize);
    let mut vars: Vec<Variable> = weight_bound.iter().map(|&m| p.add_var(0.0, (-m, m))).collect();
    vars.push(p.add_var(0.0, (-bias_bound, bias_bound)));
    let delta = p.add_var(1.0, (0.0, bound));
    if norm == Norm::Sum {
        // `|w_j| <= t_j` and `Σ t_j / bound_j <= 1`: the box stays, scaled to one common budget.
        let t: Vec<Variable> = weight_bound.iter().map(|&m| p.add_var(0.0, (0.0, m))).collect();
        for (&tj, &wj) in t.iter().zip(&vars) {
            p.add_constraint([(tj, 1.0), (wj, -1.0)], ComparisonOp::Ge, 0.0);
            p.add_constraint([(tj, 1.0), (wj, 1.0)], ComparisonOp::Ge, 0.0);
        }
        let budget: Vec<(Variable, f64)> =
            t.iter().zip(weight_bound).filter(|(_, &m)| m > 0.0).map(|(&tj, &m)| (tj, 1.0 / m)).collect();
        p.add_constraint(budget, ComparisonOp::Le, 1.0);
    }
    let row = |x: &[f64], cover: bool| {
        let mut e = row_expr(&vars, x);
        e.push((delta, if cover { -1.0 } else { 1.0 }));
        e
    };
    let all: Vec<(usize, bool)> =
        covered.iter().map(|&i| (i, true)).chain(excluded.iter().map(|&i| (i, false))).collect();
    // Seed the LP with the rows closest to the starting hyperplane.
    let mut order: Vec<(f64, usize)> = all
        .iter()
        .enumerate()
        .map(|(k, &(i, c))| {
            let s = start.score(&points[i]);
            (if c { s } else { -s }, k)
        })
        .collect();
    order.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut in_lp = vec![false; all.len()];
    for &(_, k) in order.iter().take(2 * (d + 1)) {
        let (i, c) = all[k];
        in_lp[k] = true;
        if c {
            p.add_constraint(row(&points[i], true), ComparisonOp::Ge, 0.0);
        } else {
            p.add_constraint(row(&points[i], false), ComparisonOp::Le, 0.0);
        }
    }
    let mut sol = outcome(p.solve()).ok()?;
    for _round in 0..10_000 {
        let h =
            Halfspace { w: vars[..d].iter().map(|&v| sol.var_value(v)).collect(), b: sol.var_value(vars[d]) };
        let m = sol.var_value(delta);
        if m <= TOLERANCE {
            return None;
        }
        let mut violated: Vec<(f64, usize)> = Vec::new();
        for (k, &(i, c)) in all.iter().enumerate() {
            let s = h.score(&points[i]);
            let slack = if c { s - m } else { -m - s };
            if slack < -TOLERANCE * m.max(1.0) {
                if in_lp[k] {
                    return None;
                }
                violated.push((slack, k));
            }
        }
        if violated.is_empty() {
            // Confirm the margin on every point, then rescale to MARGIN.
            let scale = MARGIN / m;
            let out = Halfspace { w: h.w.iter().map(|w| w * scale).collect(), b: h.b * scale };
            let ok = all.iter().all(|&(i, c)| {
                let s = out.score(&points[i]);
                if c {
                    s >= MARGIN - 1e3 * TOLERANCE
                } else {
                    s <= -(MARGIN - 1e3 * TOLERANCE)
                }
            });
            return ok.then_some(out);
        }
        violated.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        for &(_, k) in violated.iter().take(d + 1) {
            in_lp[k] = true;
            let (i, c) = all[k];
            let (op, r) = if c { (ComparisonOp::Ge, 0.0) } else { (ComparisonOp::Le, 0.0) };
            sol = outcome(sol.add_constraint(row(&points[i], c), op, r)).ok()?;
        }
    }
    None
}

//! The searches built on [`IncLp`]: `Find_large_neg_subset` and `mult_IncLP` (section 4.1),
//! and Gallant's pocket algorithm with ratchet and rules (section 6.1) for comparison.

use std::time::Instant;

use super::{Cover, Halfspace, IncLp, LpSolver, LpStats};
use crate::rng::Rng;

/// How a search may spend its effort.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Budget {
    /// Outer passes (Find_large_neg_subset iterations, mult_IncLP passes, or pocket iterations
    /// in thousands); `None` = the algorithm's own end.
    pub passes: Option<usize>,
    /// `Find_large_neg_subset` only: stop after this many consecutive passes that found no
    /// larger subset than the best so far (`None`: the paper's end).
    pub patience: Option<usize>,
    /// Wall-clock deadline (benchmarks only: results then depend on the machine).
    pub deadline: Option<Instant>,
}

impl Budget {
    fn out_of(&self, passes: usize) -> bool {
        self.passes.is_some_and(|p| passes >= p) || self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// `Find_large_neg_subset` (section 4.1, steps 1–8): a large subset of `candidates` that a
/// halfspace can cover without covering any point of `exclude`.
///
/// `W` (remaining candidates) is visited in a fresh random order at each pass; each pass grows
/// `L` from `W` (step 4), removes it from `W` (step 5), tries to grow it further with the
/// examples `U` of earlier subsets (step 6), keeps the largest (step 7) and adds `L` to `U`
/// (step 8). Ties keep the first subset found. A pass that covers no candidate of `W` ends the
/// search (every remaining candidate is then individually inseparable, e.g. a duplicate of an
/// excluded point). `budget.passes` caps the number of passes (`None` = until `W` is empty, as
/// in the paper), and `budget.patience` ends the search after that many consecutive passes
/// without a larger subset (beyond the paper: when the target class is not convex, the paper's
/// end costs one pass per small cluster, each an LP trial per remaining candidate).
pub fn find_large_neg_subset(
    points: &[Vec<f64>],
    candidates: &[usize],
    exclude: &[usize],
    budget: Budget,
    rng: &mut Rng,
    stats: &mut LpStats,
) -> Cover {
    find_large_neg_subset_with(points, candidates, exclude, budget, LpSolver::default(), rng, stats)
}

/// [`find_large_neg_subset`] with the given LP solver.
pub fn find_large_neg_subset_with(
    points: &[Vec<f64>],
    candidates: &[usize],
    exclude: &[usize],
    budget: Budget,
    solver: LpSolver,
    rng: &mut Rng,
    stats: &mut LpStats,
) -> Cover {
    let d = points.first().map_or(0, Vec::len);
    let mut best = Cover { covered: Vec::new(), halfspace: Halfspace::nothing(d) };
    let mut w: Vec<usize> = candidates.to_vec();
    let mut u: Vec<usize> = Vec::new();
    let mut in_w = vec![false; points.len()];
    for &i in &w {
        in_w[i] = true;
    }
    let (mut passes, mut since_better) = (0, 0);
    while !w.is_empty() && !budget.out_of(passes) && budget.patience.is_none_or(|k| since_better < k) {
        passes += 1;
        let mut inc = IncLp::with_solver(points, exclude, solver);
        rng.shuffle(&mut w);
        inc.extend(&w);
        if inc.covered().is_empty() {
            stats.add(&inc.stats());
            break;
        }
        for &i in inc.covered() {
            in_w[i] = false;
        }
        w.retain(|&i| in_w[i]);
        let mut order = u.clone();
        rng.shuffle(&mut order);
        inc.extend(&order);
        stats.add(&inc.stats());
        let cover = inc.into_cover();
        let mut in_u = vec![false; points.len()];
        for &i in &u {
            in_u[i] = true;
        }
        for &i in &cover.covered {
            if !in_u[i] {
                u.push(i);
            }
        }
        if cover.covered.len() > best.covered.len() {
            best = cover;
            since_better = 0;
        } else {
            since_better += 1;
        }
    }
    best.covered.sort_unstable();
    best
}

/// `mult_IncLP` (section 4.1): IncLP on all candidates in a fresh random order at each pass,
/// keeping the largest subset. Stops after `budget.passes` passes (default 10) or at the
/// deadline, whichever comes first (at least one pass always runs).
pub fn mult_inc_lp(
    points: &[Vec<f64>],
    candidates: &[usize],
    exclude: &[usize],
    budget: Budget,
    rng: &mut Rng,
    stats: &mut LpStats,
) -> Cover {
    mult_inc_lp_with(points, candidates, exclude, budget, LpSolver::default(), rng, stats)
}

/// [`mult_inc_lp`] with the given LP solver.
pub fn mult_inc_lp_with(
    points: &[Vec<f64>],
    candidates: &[usize],
    exclude: &[usize],
    budget: Budget,
    solver: LpSolver,
    rng: &mut Rng,
    stats: &mut LpStats,
) -> Cover {
    let d = points.first().map_or(0, Vec::len);
    let mut best = Cover { covered: Vec::new(), halfspace: Halfspace::nothing(d) };
    let budget = Budget { passes: Some(budget.passes.unwrap_or(10)), ..budget };
    let mut order = candidates.to_vec();
    let mut passes = 0;
    while passes == 0 || !budget.out_of(passes) {
        passes += 1;
        if order.is_empty() {
            break;
        }
        let mut inc = IncLp::with_solver(points, exclude, solver);
        rng.shuffle(&mut order);
        inc.extend(&order);
        stats.add(&inc.stats());
        if inc.covered().len() > best.covered.len() {
            best = inc.into_cover();
        }
    }
    best.covered.sort_unstable();
    best
}

/// Gallant's pocket algorithm with ratchet, and with rules (section 6.1): every excluded point
/// is a rule the pocketed weights must not violate.
///
/// A perceptron (bias input 1, step 1) visits random examples (candidates target `+1`,
/// excluded `-1`). When its run of consecutive correct answers first exceeds the pocket's run,
/// its weights are checked against the whole set; they replace the pocket only if they break no
/// rule and cover more candidates (the ratchet). Runs `budget.passes` thousand iterations
/// (default 100) or until the deadline. The returned halfspace has no guaranteed margin.
pub fn pocket_ratchet(
    points: &[Vec<f64>],
    candidates: &[usize],
    exclude: &[usize],
    budget: Budget,
    rng: &mut Rng,
) -> Cover {
    let d = points.first().map_or(0, Vec::len);
    let mut best = Cover { covered: Vec::new(), halfspace: Halfspace::nothing(d) };
    let examples: Vec<(usize, f64)> =
        candidates.iter().map(|&i| (i, 1.0)).chain(exclude.iter().map(|&i| (i, -1.0))).collect();
    if examples.is_empty() || candidates.is_empty() {
        return best;
    }
    let max_iters = (budget.passes.unwrap_or(100) as u64).saturating_mul(1000);
    let mut h = Halfspace::nothing(d);
    let (mut run, mut pocket_run, mut checked) = (0u64, 0u64, false);
    let mut it = 0u64;
    while it < max_iters {
        if it % 1024 == 0 && budget.deadline.is_some_and(|t| Instant::now() >= t) {
            break;
        }
        it += 1;
        let (i, y) = examples[rng.below(examples.len())];
        let s = h.score(&points[i]);
        if (s > 0.0) == (y > 0.0) {
            run += 1;
            if run > pocket_run && !checked {
                checked = true;
                if exclude.iter().all(|&e| !h.covers(&points[e])) {
                    let covered: Vec<usize> =
                        candidates.iter().copied().filter(|&c| h.covers(&points[c])).collect();
                    if covered.len() > best.covered.len() {
                        best = Cover { covered, halfspace: h.clone() };
                        pocket_run = run;
                    }
                }
            }
        } else {
            for (w, x) in h.w.iter_mut().zip(&points[i]) {
                *w += y * x;
            }
            h.b += y;
            run = 0;
            checked = false;
        }
    }
    best
}

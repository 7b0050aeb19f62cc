//! Single-unit training: the incremental linear programming algorithm IncLP and the
//! approximation algorithm `Find_large_neg_subset` for the densest-halfspace-covering problem
//! (Marchand & Golea 1993, section 4.1), and for comparison `mult_IncLP` (section 4.1) and
//! Gallant's pocket algorithm with ratchet and rules (section 6.1).
//!
//! Orientation. The paper's IncLP looks for a halfspace that contains every positive example
//! and excludes a large subset of the negatives. Every caller here (section 3 intersections,
//! section 5 lists) needs the complementary question, so this module asks it directly: given a
//! set `exclude` of points that must **not** be covered and a set of candidates, find a
//! halfspace `w·x + b > 0` that covers a large subset `L` of the candidates and no excluded point.
//! (The paper's `H` is the complement of ours: negate `w` and `b`.)
//!
//! # Exactness, margin and tolerance
//!
//! "`L` is separable from `P`" is asked as an exact LP feasibility question. Strict separation
//! of finite sets (`w·x + b > 0` on `L`, `<= 0` on `P`) is equivalent to the existence of a
//! solution with a margin: scale `(w, b)` so the smallest score on `L` is 2 and subtract 1 from
//! `b`. So the LP is
//!
//! ```text
//!   w·x + b >= +MARGIN   for x in L,        w·x + b <= -MARGIN   for x in P,    w, b free
//! ```
//!
//! with [`MARGIN`] `= 1` and a zero objective: feasible iff separable. The simplex runs in
//! floating point, so every solution is checked against **all** rows with the tolerance
//! [`TOLERANCE`] (`1e-6`, on scores of order 1): a halfspace is accepted only if every covered
//! point scores at least `MARGIN - TOLERANCE` and every excluded point at most
//! `-(MARGIN - TOLERANCE)`. Under the trainer's decision rule (covered iff score `> 0`) the
//! accepted halfspace therefore separates with a margin of almost 1, never by rounding luck.
//! If the solver's answer cannot be confirmed (a row that is already in the LP is violated by
//! more than the tolerance) the candidate is rejected and counted in
//! [`LpStats::numerical_rejections`]: the algorithm may miss a separable example, it never
//! claims a separation that does not hold.
//!
//! # Cost
//!
//! Three things keep the LP small and cheap, none changes the answer:
//!
//! * **Skip.** A candidate that the current halfspace already covers with the margin is added
//!   to `L` without an LP (the paper's step 4 is trivially satisfied). Its row is not added.
//! * **Lazy rows (constraint generation).** The LP only holds rows that some solution violated.
//!   After each solve every point of `L ∪ P` is checked; violated rows are added (most violated
//!   first) and the LP re-solved, until the solution satisfies all rows. The relaxation is
//!   infeasible only if the full problem is, and a solution that satisfies every row is a
//!   solution of the full problem, so the answer is exact. In practice the LP holds a few times
//!   `d + 1` rows instead of `|L| + |P|`.
//! * **Warm start.** Rows are added to the solved LP with `microlp::Solution::add_constraint`
//!   (dual simplex from the previous optimal basis). A trial that turns out infeasible works on
//!   a clone, so the last feasible basis survives.
//!
//! Degeneracy: many points lie on the same face (duplicates, binary inputs); microlp's ratio
//! tests use the Harris/EXPAND-style anti-cycling procedure (the paper used Bland's rule). A
//! duplicate of an excluded point is rejected exactly (its two rows contradict), and a duplicate
//! of a covered point is accepted by the skip rule without an LP.

use microlp::{
    ComparisonOp, Error as LpError, OptimizationDirection, Problem, Solution, SolveOutcome, Variable,
};

use super::dense;

mod margin;
mod search;

pub use margin::{max_margin, max_margin_boxed, Norm};
pub use search::{
    find_large_neg_subset, find_large_neg_subset_with, mult_inc_lp, mult_inc_lp_with, pocket_ratchet, Budget,
};

/// Score margin required of the LP solution (the scale of `(w, b)` is free, so this is a
/// normalisation, not an assumption about the data).
pub const MARGIN: f64 = 1.0;

/// Slack allowed when checking an LP solution against a row (scores are of order [`MARGIN`]).
pub const TOLERANCE: f64 = 1e-6;

/// A halfspace `{x : w·x + b > 0}` on float inputs.
#[derive(Debug, Clone, PartialEq)]
pub struct Halfspace {
    /// Weights, one per input.
    pub w: Vec<f64>,
    /// Bias.
    pub b: f64,
}

impl Halfspace {
    /// The halfspace that covers nothing (`w = 0`, `b = -1`).
    pub fn nothing(d: usize) -> Self {
        Halfspace { w: vec![0.0; d], b: -MARGIN }
    }

    /// The constant halfspace that covers everything (`w = 0`, `b = +1`), the last node of every
    /// decision list (section 2).
    pub fn everything(d: usize) -> Self {
        Halfspace { w: vec![0.0; d], b: MARGIN }
    }

    /// `w·x + b`.
    pub fn score(&self, x: &[f64]) -> f64 {
        self.w.iter().zip(x).fold(self.b, |acc, (w, x)| acc + w * x)
    }

    /// Whether `x` lies in the open halfspace (score `> 0`).
    pub fn covers(&self, x: &[f64]) -> bool {
        self.score(x) > 0.0
    }

    /// The complement's closure `{x : -w·x - b > 0}`; with a margin on the training points this
    /// is the paper's halfspace `H` for our covering halfspace.
    pub fn negated(&self) -> Self {
        Halfspace { w: self.w.iter().map(|w| -w).collect(), b: -self.b }
    }
}

/// Counters of the LP work, for reports and benchmarks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct LpStats {
    /// Candidates examined by IncLP (step 3).
    pub tried: u64,
    /// Candidates accepted without an LP because the current halfspace already covers them.
    pub skipped: u64,
    /// Candidates that needed an LP.
    pub lp_trials: u64,
    /// LP trials that proved the candidate inseparable.
    pub rejected: u64,
    /// Rows added to LPs (lazily; compare with `tried`).
    pub rows: u64,
    /// Candidates rejected because a solver answer could not be confirmed.
    pub numerical_rejections: u64,
    /// Max-margin fine-tunings that fell back to the IncLP halfspace.
    pub margin_fallbacks: u64,
    /// Candidate list entries passed over because their quantized unit covered no training
    /// example or an example of another class (the next-ranked class was tried instead).
    pub quantization_rejected: u64,
    /// Multi-class steps that reused a class's cover from an earlier step instead of searching
    /// (`Params::reuse_covers`).
    pub reused_covers: u64,
    /// Term weights of the exported entries zeroed because no training decision needed them
    /// (`Params::prune_weights`).
    pub weights_pruned: u64,
}

impl LpStats {
    /// Adds `other` into `self`.
    pub fn add(&mut self, other: &LpStats) {
        self.tried += other.tried;
        self.skipped += other.skipped;
        self.lp_trials += other.lp_trials;
        self.rejected += other.rejected;
        self.rows += other.rows;
        self.numerical_rejections += other.numerical_rejections;
        self.margin_fallbacks += other.margin_fallbacks;
        self.quantization_rejected += other.quantization_rejected;
        self.reused_covers += other.reused_covers;
        self.weights_pruned += other.weights_pruned;
    }
}

/// A halfspace and the candidates it covers.
#[derive(Debug, Clone, PartialEq)]
pub struct Cover {
    /// Indices (into the point set) of the covered candidates.
    pub covered: Vec<usize>,
    /// A halfspace covering them with margin [`MARGIN`] and excluding every excluded point with
    /// the same margin.
    pub halfspace: Halfspace,
}

fn free_vars(p: &mut Problem, d: usize) -> Vec<Variable> {
    (0..=d).map(|_| p.add_var(0.0, (f64::NEG_INFINITY, f64::INFINITY))).collect()
}

fn row_expr(vars: &[Variable], x: &[f64]) -> Vec<(Variable, f64)> {
    let d = x.len();
    let mut e: Vec<(Variable, f64)> =
        x.iter().zip(vars).filter(|(v, _)| **v != 0.0).map(|(v, &var)| (var, *v)).collect();
    e.push((vars[d], 1.0));
    e
}

fn outcome(r: Result<SolveOutcome, LpError>) -> Result<Solution, LpError> {
    match r? {
        SolveOutcome::Solution(s) => Ok(s),
        SolveOutcome::Interrupted(_) => Err(LpError::InternalError("interrupted".into())),
    }
}

/// IncLP (section 4.1): a growing set `L` of covered candidates and a halfspace consistent with
/// `L` and the excluded set, one exact LP question per candidate.
pub struct IncLp<'a> {
    points: &'a [Vec<f64>],
    exclude: &'a [usize],
    covered: Vec<usize>,
    h: Halfspace,
    /// `(w, b)` of `h`, feasible for every row of the LP.
    v: Vec<f64>,
    /// Per point: its row is in the LP.
    in_lp: Vec<bool>,
    /// Rows of the LP: point and whether it is covered.
    rows: Vec<(usize, bool)>,
    /// The same rows as vectors `±(x, 1)`, `d + 1` values each ([`LpSolver::Dense`]).
    a: Vec<f64>,
    /// Rows of `a` held tight at `v` by the last search (its warm start).
    ws: dense::Working,
    /// Which solver answers the LP questions.
    solver: LpSolver,
    /// [`LpSolver::Simplex`]: the solved LP and its variables.
    lp: Option<Solution>,
    vars: Vec<Variable>,
    stats: LpStats,
}

/// Which solver answers IncLP's LP questions. Both answer the same exact question (is
/// `L ∪ {x}` separable from the excluded set), so they accept the same candidates up to floating
/// point; the halfspace reported along the way is a different feasible point, which the skip
/// rule and the max-margin start depend on.
///
/// The default is `Simplex`, so [`IncLp::new`], [`find_large_neg_subset`] and [`mult_inc_lp`]
/// compute what they always did (the paper's figure 4 and tables); the trainer's default
/// (`decision_list::Params::default`) is `Dense`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LpSolver {
    /// A dense active-set method (`decision_list/dense.rs`): the same questions as
    /// [`LpSolver::Simplex`], an order of magnitude less time per question.
    Dense,
    /// microlp's dual simplex, warm-started by adding rows (the solver the reproduction of the
    /// paper's tables was made with).
    #[default]
    Simplex,
}

impl<'a> IncLp<'a> {
    /// Starts with `L = ∅` and the halfspace that covers nothing (the paper's step 3 starts
    /// from the constant `+1`, its complement).
    ///
    /// # Panics
    /// If `points` is empty or its rows differ in length.
    pub fn new(points: &'a [Vec<f64>], exclude: &'a [usize]) -> Self {
        Self::with_solver(points, exclude, LpSolver::default())
    }

    /// [`IncLp::new`] with the given solver.
    ///
    /// # Panics
    /// If `points` is empty or its rows differ in length.
    pub fn with_solver(points: &'a [Vec<f64>], exclude: &'a [usize], solver: LpSolver) -> Self {
        let d = points[0].len();
        assert!(points.iter().all(|p| p.len() == d), "rows of different lengths");
        let h = Halfspace::nothing(d);
        let v = h.w.iter().copied().chain([h.b]).collect();
        IncLp {
            points,
            exclude,
            covered: Vec::new(),
            h,
            v,
            in_lp: vec![false; points.len()],
            rows: Vec::new(),
            a: Vec::new(),
            ws: dense::Working::new(d + 1),
            solver,
            lp: None,
            vars: Vec::new(),
            stats: LpStats::default(),
        }
    }

    /// The covered candidates so far (`L`).
    pub fn covered(&self) -> &[usize] {
        &self.covered
    }

    /// The current halfspace (`H`).
    pub fn halfspace(&self) -> &Halfspace {
        &self.h
    }

    /// Work counters.
    pub fn stats(&self) -> LpStats {
        self.stats
    }

    /// The result so far.
    pub fn into_cover(self) -> Cover {
        Cover { covered: self.covered, halfspace: self.h }
    }

    fn push_row(&mut self, i: usize, cover: bool) {
        let sign = if cover { 1.0 } else { -1.0 };
        self.a.extend(self.points[i].iter().map(|x| sign * x).chain([sign]));
        self.rows.push((i, cover));
    }

    /// Steps 3–5 for candidate `x`: adds it to `L` if `L ∪ {x}` is separable from the excluded
    /// set; returns whether it was added.
    ///
    /// The LP question is answered by the dense active-set method of `decision_list::dense` from the
    /// current solution: each new row (first `x`, then the most violated row of `L ∪ {x} ∪ P`,
    /// one at a time) is raised to `>= MARGIN` while the LP's rows stay satisfied; if that is
    /// impossible the candidate is rejected.
    pub fn try_add(&mut self, x: usize) -> bool {
        self.stats.tried += 1;
        if self.h.score(&self.points[x]) >= MARGIN - TOLERANCE {
            self.stats.skipped += 1;
            self.covered.push(x);
            return true;
        }
        self.stats.lp_trials += 1;
        match self.solver {
            LpSolver::Dense => self.trial_dense(x),
            LpSolver::Simplex => self.trial_simplex(x),
        }
    }

    /// The LP question of [`IncLp::try_add`] answered by [`super::dense`].
    fn trial_dense(&mut self, x: usize) -> bool {
        let d = self.points[0].len();
        let n = d + 1;
        let base = self.rows.len();
        let mut v = self.v.clone();
        let saved_ws = self.ws.clone();
        let mut added = vec![x];
        let mut target = (x, true);
        let restore = |s: &mut Self| {
            s.rows.truncate(base);
            s.a.truncate(base * n);
            s.ws = saved_ws.clone();
        };
        loop {
            self.stats.rows += 1;
            let sign = if target.1 { 1.0 } else { -1.0 };
            let c: Vec<f64> = self.points[target.0].iter().map(|x| sign * x).chain([sign]).collect();
            match dense::raise(&self.a, n, &c, &mut v, &mut self.ws) {
                dense::Raised::Reached => {}
                dense::Raised::Infeasible => {
                    self.stats.rejected += 1;
                    restore(self);
                    return false;
                }
                dense::Raised::Stuck => {
                    self.stats.numerical_rejections += 1;
                    restore(self);
                    return false;
                }
            }
            self.push_row(target.0, target.1);
            if (c.iter().zip(&v).map(|(a, b)| a * b).sum::<f64>() - MARGIN).abs() <= 1e-9 {
                // The raised row is tight: the next search starts on it.
                self.ws.push(self.rows.len() - 1, &c);
            }
            let h = Halfspace { w: v[..d].to_vec(), b: v[d] };
            // The most violated row (ties: the first), as the old one-row-per-round LP.
            let mut worst: Option<(f64, usize, bool)> = None;
            let mut unconfirmed = false;
            for (&i, cover) in self
                .covered
                .iter()
                .map(|i| (i, true))
                .chain([(&x, true)])
                .chain(self.exclude.iter().map(|i| (i, false)))
            {
                let sc = h.score(&self.points[i]);
                let slack = if cover { sc - MARGIN } else { -MARGIN - sc };
                if slack < -TOLERANCE {
                    if self.in_lp[i] || added.contains(&i) {
                        // A row the LP already holds is violated: the answer cannot be confirmed.
                        worst = None;
                        unconfirmed = true;
                        break;
                    }
                    if worst.is_none_or(|(s, j, _)| slack < s || (slack == s && i < j)) {
                        worst = Some((slack, i, cover));
                    }
                }
            }
            if unconfirmed {
                self.stats.numerical_rejections += 1;
                restore(self);
                return false;
            }
            match worst {
                Some((_, i, cover)) => {
                    added.push(i);
                    target = (i, cover);
                }
                None => {
                    for &i in &added {
                        self.in_lp[i] = true;
                    }
                    self.v = v;
                    self.h = h;
                    self.covered.push(x);
                    if self.rows.len() > 8 * n + 32 {
                        self.shrink();
                    }
                    return true;
                }
            }
        }
    }

    /// Drops the rows that are not tight at the current solution. Rows are only dropped
    /// between trials and every trial re-checks all points, so this never changes an answer;
    /// it keeps each search's ratio tests short.
    fn shrink(&mut self) {
        let n = self.points[0].len() + 1;
        let old_rows = std::mem::take(&mut self.rows);
        let old_a = std::mem::take(&mut self.a);
        for (k, &(i, c)) in old_rows.iter().enumerate() {
            let ak = &old_a[k * n..(k + 1) * n];
            let slack = ak.iter().zip(&self.v).map(|(a, v)| a * v).sum::<f64>() - MARGIN;
            if slack < 1e-7 {
                self.rows.push((i, c));
                self.a.extend_from_slice(ak);
            } else {
                self.in_lp[i] = false;
            }
        }
        self.ws.reseed(&self.a, &self.v);
    }

    /// The LP question of [`IncLp::try_add`] asked to microlp's simplex ([`LpSolver::Simplex`]).
    fn trial_simplex(&mut self, x: usize) -> bool {
        self.stats.lp_trials += 1;
        let d = self.points[0].len();
        let mut added = vec![x];
        let mut sol = match &self.lp {
            None => {
                let mut p = Problem::new(OptimizationDirection::Minimize);
                self.vars = free_vars(&mut p, d);
                p.add_constraint(row_expr(&self.vars, &self.points[x]), ComparisonOp::Ge, MARGIN);
                outcome(p.solve())
            }
            Some(s) => outcome(s.clone().add_constraint(
                row_expr(&self.vars, &self.points[x]),
                ComparisonOp::Ge,
                MARGIN,
            )),
        };
        self.stats.rows += 1;
        loop {
            let s = match sol {
                Ok(s) => s,
                Err(e) => {
                    if matches!(e, LpError::Infeasible) {
                        self.stats.rejected += 1;
                    } else {
                        self.stats.numerical_rejections += 1;
                    }
                    return false;
                }
            };
            let h = Halfspace {
                w: self.vars[..d].iter().map(|&v| s.var_value(v)).collect(),
                b: s.var_value(self.vars[d]),
            };
            // Rows violated by the relaxed solution, most violated first.
            let mut violated: Vec<(f64, usize, bool)> = Vec::new();
            for (&i, cover) in self
                .covered
                .iter()
                .map(|i| (i, true))
                .chain([(&x, true)])
                .chain(self.exclude.iter().map(|i| (i, false)))
            {
                let sc = h.score(&self.points[i]);
                let slack = if cover { sc - MARGIN } else { -MARGIN - sc };
                if slack < -TOLERANCE {
                    if self.in_lp[i] || added.contains(&i) {
                        // A row the LP already holds is violated: the solver's answer cannot
                        // be confirmed.
                        self.stats.numerical_rejections += 1;
                        return false;
                    }
                    violated.push((slack, i, cover));
                }
            }
            if violated.is_empty() {
                for &i in &added {
                    self.in_lp[i] = true;
                    self.rows.push((i, i == x || self.covered.contains(&i)));
                }
                self.lp = Some(s);
                self.h = h;
                self.covered.push(x);
                if self.rows.len() > 8 * (d + 1) + 32 {
                    self.shrink_simplex();
                }
                return true;
            }
            violated.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            violated.truncate(1);
            let mut next = Ok(s);
            for &(_, i, cover) in &violated {
                added.push(i);
                self.stats.rows += 1;
                let (op, rhs) = if cover { (ComparisonOp::Ge, MARGIN) } else { (ComparisonOp::Le, -MARGIN) };
                next = match next {
                    Ok(s) => outcome(s.add_constraint(row_expr(&self.vars, &self.points[i]), op, rhs)),
                    e => e,
                };
            }
            sol = next;
        }
    }

    /// Rebuilds the LP from the rows that are tight at the current solution. Rows are only
    /// dropped between trials and every trial re-checks all points, so this never changes an
    /// answer; it keeps each warm-started solve (which refactorises the basis) small.
    fn shrink_simplex(&mut self) {
        let d = self.points[0].len();
        let tight: Vec<(usize, bool)> = self
            .rows
            .iter()
            .copied()
            .filter(|&(i, c)| {
                let sc = self.h.score(&self.points[i]);
                (if c { sc - MARGIN } else { -MARGIN - sc }) < 1e-7
            })
            .collect();
        let mut p = Problem::new(OptimizationDirection::Minimize);
        let vars = free_vars(&mut p, d);
        for &(i, c) in &tight {
            let (op, rhs) = if c { (ComparisonOp::Ge, MARGIN) } else { (ComparisonOp::Le, -MARGIN) };
            p.add_constraint(row_expr(&vars, &self.points[i]), op, rhs);
        }
        if let Ok(s) = outcome(p.solve()) {
            for &(i, _) in &self.rows {
                self.in_lp[i] = false;
            }
            for &(i, _) in &tight {
                self.in_lp[i] = true;
            }
            self.rows = tight;
            self.vars = vars;
            self.lp = Some(s);
        }
    }

    /// Runs IncLP over `candidates` in the given order (steps 1–6).
    pub fn extend(&mut self, candidates: &[usize]) {
        for &x in candidates {
            self.try_add(x);
        }
    }
}

//! A dense active-set solver for IncLP's feasibility questions.
//!
//! IncLP asks, once per candidate, whether a system of rows `a_i·v >= 1` (`a_i = ±(x_i, 1)`,
//! `v = (w, b)`) stays feasible when one more row is added. The system always has `d + 1` free
//! variables and, with lazy rows, a few times `d + 1` rows, so a general sparse LP solver
//! (refactorising its basis for every added row) spends most of its time on bookkeeping. Here
//! the question is answered from a known feasible point `v` by the primal active-set method
//! (the primal simplex for free variables) applied to
//!
//! ```text
//!   maximise c·v   subject to   a_i·v >= 1 (i in the rows so far)
//! ```
//!
//! with `c` the new row, stopping as soon as `c·v >= 1`. The new row can be added iff the
//! maximum is at least 1, so the answer is the LP's answer: the candidates IncLP accepts do not
//! depend on the solver, only the halfspace it reports along the way does (a different feasible
//! point). Every answer is still checked against all rows by the caller ([`super::IncLp`]).
//!
//! The working set `W` (rows held tight, linearly independent) is kept as an orthonormal basis
//! `Q` of their span and the lower-triangular `L` with `a_W = L Q`, so the projected direction
//! and the multipliers cost `O(|W| (d + 1))`. Entering rows follow the minimum ratio (ties: the
//! lowest row), leaving rows the largest positive multiplier, and after `2 (d + 1)` iterations
//! both switch to the lowest index (Bland's rule), which cannot cycle; an iteration cap turns
//! numerical trouble into a rejection, as the old solver's unconfirmed answers were.

/// Outcome of [`raise`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Raised {
    /// `c·v >= 1` was reached: the row can be added.
    Reached,
    /// The maximum of `c·v` is below 1: the row cannot be added.
    Infeasible,
    /// The iteration cap was hit (numerical trouble).
    Stuck,
}

/// Slack below which a row counts as tight at the start of a search.
const TIGHT: f64 = 1e-9;
/// Relative size below which a projected direction or a Gram–Schmidt residual is zero.
const ZERO: f64 = 1e-10;
/// Multipliers above this let their row leave the working set.
const DUAL_TOL: f64 = 1e-10;

/// The working set: row indices, orthonormal basis of their span (`k × n`, row-major) and the
/// lower-triangular coefficients (`n × n`, row `j` = `a_{W[j]}` on `q_0..=q_j`). It lives
/// between searches (a warm start): the rows it holds must be tight at the caller's point.
#[derive(Debug, Clone)]
pub(super) struct Working {
    n: usize,
    rows: Vec<usize>,
    q: Vec<f64>,
    l: Vec<f64>,
    /// Scratch space for [`Working::push`].
    r: Vec<f64>,
    coef: Vec<f64>,
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

impl Working {
    /// The empty working set for `n` variables.
    pub(super) fn new(n: usize) -> Self {
        Working {
            n,
            rows: Vec::with_capacity(n),
            q: Vec::with_capacity(n * n),
            l: vec![0.0; n * n],
            r: Vec::with_capacity(n),
            coef: Vec::with_capacity(n),
        }
    }

    fn k(&self) -> usize {
        self.rows.len()
    }

    /// Empties the set and fills it with the rows of `a` tight at `v` (as many independent ones
    /// as there are).
    pub(super) fn reseed(&mut self, a: &[f64], v: &[f64]) {
        let n = self.n;
        self.rows.clear();
        self.q.clear();
        for (i, ai) in a.chunks_exact(n).enumerate() {
            if self.k() == n {
                break;
            }
            if dot(ai, v) - 1.0 <= TIGHT {
                self.push(i, ai);
            }
        }
    }

    /// Adds row `i` (vector `a`) if it is independent of the working set; returns whether it was.
    pub(super) fn push(&mut self, i: usize, a: &[f64]) -> bool {
        let (n, k) = (self.n, self.k());
        if k == n {
            return false;
        }
        let mut r = std::mem::take(&mut self.r);
        let mut coef = std::mem::take(&mut self.coef);
        r.clear();
        r.extend_from_slice(a);
        coef.clear();
        coef.resize(k, 0.0);
        // Classical Gram–Schmidt, applied twice (enough for orthogonality to working precision).
        for _ in 0..2 {
            for (l, c) in coef.iter_mut().enumerate() {
                let ql = &self.q[l * n..(l + 1) * n];
                let s = dot(ql, &r);
                *c += s;
                for (rj, qj) in r.iter_mut().zip(ql) {
                    *rj -= s * qj;
                }
            }
        }
        let norm = dot(&r, &r).sqrt();
        let independent = norm > ZERO * dot(a, a).sqrt().max(1.0);
        if independent {
            self.q.extend(r.iter().map(|x| x / norm));
            let row = &mut self.l[k * n..(k + 1) * n];
            row[..k].copy_from_slice(&coef);
            row[k] = norm;
            self.rows.push(i);
        }
        self.r = r;
        self.coef = coef;
        independent
    }

    /// Removes the `j`-th working row: the basis of the rows before it is unchanged, the rows
    /// after it are orthogonalised again.
    fn remove(&mut self, j: usize, a: &[f64]) {
        let n = self.n;
        let later: Vec<usize> = self.rows.split_off(j + 1);
        self.rows.truncate(j);
        self.q.truncate(j * n);
        for i in later {
            let pushed = self.push(i, &a[i * n..(i + 1) * n]);
            debug_assert!(pushed, "a subset of independent rows is independent");
        }
    }

    /// `c` minus its projection on the span of the working rows.
    fn project(&self, c: &[f64]) -> Vec<f64> {
        let n = self.n;
        let mut p = c.to_vec();
        for _ in 0..2 {
            for l in 0..self.k() {
                let ql = &self.q[l * n..(l + 1) * n];
                let s = dot(ql, &p);
                for (pj, qj) in p.iter_mut().zip(ql) {
                    *pj -= s * qj;
                }
            }
        }
        p
    }

    /// Multipliers `λ` with `c = Σ λ_j a_{W[j]}` (for `c` in the span).
    fn multipliers(&self, c: &[f64]) -> Vec<f64> {
        let (n, k) = (self.n, self.k());
        let qc: Vec<f64> = (0..k).map(|l| dot(&self.q[l * n..(l + 1) * n], c)).collect();
        let mut lambda = vec![0.0; k];
        for l in (0..k).rev() {
            let mut s = qc[l];
            for (j, lj) in lambda.iter().enumerate().skip(l + 1) {
                s -= lj * self.l[j * n + l];
            }
            lambda[l] = s / self.l[l * n + l];
        }
        lambda
    }
}

/// Maximises `c·v` over `{v : a_i·v >= 1}` (`a`: `rows × n`, row-major) from the feasible `v`,
/// stopping as soon as `c·v >= 1` (then `v` is feasible and `c·v` is 1 up to rounding). `ws`
/// holds rows tight at `v` and is left holding rows tight at the new `v`.
pub(super) fn raise(a: &[f64], n: usize, c: &[f64], v: &mut [f64], ws: &mut Working) -> Raised {
    let m = a.len() / n;
    let row = |i: usize| &a[i * n..(i + 1) * n];
    let mut in_ws = vec![false; m];
    for &i in &ws.rows {
        in_ws[i] = true;
    }
    let cnorm = dot(c, c).sqrt();
    let bland_after = 2 * n;
    let cap = 50 * n + 500;
    for iter in 0..cap {
        let cv = dot(c, v);
        if cv >= 1.0 {
            return Raised::Reached;
        }
        let bland = iter >= bland_after;
        let p = ws.project(c);
        let pnorm = dot(&p, &p).sqrt();
        if pnorm > ZERO * cnorm.max(1.0) {
            let cp = dot(c, &p);
            if cp <= 0.0 {
                return Raised::Stuck;
            }
            let t_target = (1.0 - cv) / cp;
            let mut best: Option<(f64, usize)> = None;
            for (i, _) in in_ws.iter().enumerate().filter(|(_, w)| !**w) {
                let ai = row(i);
                let ap = dot(ai, &p);
                if ap < -ZERO * pnorm * dot(ai, ai).sqrt() {
                    let t = (dot(ai, v) - 1.0).max(0.0) / -ap;
                    if best.is_none_or(|(bt, _)| t < bt) {
                        best = Some((t, i));
                    }
                }
            }
            match best {
                Some((t, i)) if t < t_target => {
                    for (vj, pj) in v.iter_mut().zip(&p) {
                        *vj += t * pj;
                    }
                    if !ws.push(i, row(i)) {
                        return Raised::Stuck;
                    }
                    in_ws[i] = true;
                }
                _ => {
                    for (vj, pj) in v.iter_mut().zip(&p) {
                        *vj += t_target * pj;
                    }
                    return Raised::Reached;
                }
            }
        } else {
            let lambda = ws.multipliers(c);
            let leave = if bland {
                (0..lambda.len()).filter(|&j| lambda[j] > DUAL_TOL).min_by_key(|&j| ws.rows[j])
            } else {
                (0..lambda.len())
                    .filter(|&j| lambda[j] > DUAL_TOL)
                    .max_by(|&x, &y| lambda[x].total_cmp(&lambda[y]))
            };
            match leave {
                None => return Raised::Infeasible,
                Some(j) => {
                    in_ws[ws.rows[j]] = false;
                    ws.remove(j, a);
                }
            }
        }
    }
    Raised::Stuck
}

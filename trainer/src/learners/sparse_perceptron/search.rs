//! The weak learner (sections 3.2 and 3.3): an exact branch-and-bound search over conjunctions
//! of at most `k` literals for the one most correlated with the reweighted class.

use super::literals::compatible;
use crate::model::{Literal, LiteralOp};

/// How a literal tests its group's bucket index `b` (see [`Space`]).
#[derive(Clone, Copy)]
enum Test {
    /// `b == c` (`x = v`, `c` the value's position).
    Eq(u32),
    /// `b != c`.
    Ne(u32),
    /// `b > c` (`x > t_c`: more than `c` thresholds lie below `x`).
    Gt(u32),
    /// `b <= c`.
    Le(u32),
}

impl Test {
    fn holds(self, b: u32) -> bool {
        match self {
            Test::Eq(c) => b == c,
            Test::Ne(c) => b != c,
            Test::Gt(c) => b > c,
            Test::Le(c) => b <= c,
        }
    }
}

/// A run of consecutive literals on one attribute, all equality tests or all thresholds.
struct Group {
    /// Literals `start..end`.
    start: usize,
    end: usize,
    /// Number of bucket indices.
    n_buckets: usize,
}

/// The training rows seen through the literals: each group of literals on one attribute splits
/// the rows into buckets (the distinct compared values plus "other", or the intervals between
/// the thresholds), so the weight of the rows satisfying every literal of a group is found with
/// one pass over the rows and prefix sums over the buckets.
pub(super) struct Space<'a> {
    literals: &'a [Literal],
    tests: Vec<Test>,
    /// Group of each literal.
    group_of: Vec<usize>,
    groups: Vec<Group>,
    /// Bucket of row `i` in group `q`: `bucket[q * m + i]`.
    bucket: Vec<u32>,
    m: usize,
    /// `+1` / `−1` label of each row.
    f: Vec<f64>,
}

impl<'a> Space<'a> {
    /// The buckets of `rows` (labels: `positive`) under `literals`.
    pub(super) fn new(literals: &'a [Literal], rows: &[&[i32]], positive: &[bool]) -> Self {
        let m = rows.len();
        let threshold = |l: &Literal| matches!(l.op, LiteralOp::Gt | LiteralOp::Le);
        let (mut tests, mut group_of, mut groups, mut bucket) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut start = 0;
        while start < literals.len() {
            let first = &literals[start];
            let end = start
                + literals[start..]
                    .iter()
                    .take_while(|l| l.attr == first.attr && threshold(l) == threshold(first))
                    .count();
            let mut values: Vec<i32> = literals[start..end].iter().map(|l| l.value).collect();
            values.sort_unstable();
            values.dedup();
            let pos = |v: i32| values.binary_search(&v).expect("a group's own value") as u32;
            for l in &literals[start..end] {
                tests.push(match l.op {
                    LiteralOp::Eq => Test::Eq(pos(l.value)),
                    LiteralOp::Ne => Test::Ne(pos(l.value)),
                    LiteralOp::Gt => Test::Gt(pos(l.value)),
                    LiteralOp::Le => Test::Le(pos(l.value)),
                });
                group_of.push(groups.len());
            }
            for x in rows {
                let v = x[first.attr];
                bucket.push(if threshold(first) {
                    values.partition_point(|&t| t < v) as u32
                } else {
                    values.binary_search(&v).unwrap_or(values.len()) as u32
                });
            }
            groups.push(Group { start, end, n_buckets: values.len() + 1 });
            start = end;
        }
        let f = positive.iter().map(|&p| if p { 1.0 } else { -1.0 }).collect();
        Space { literals, tests, group_of, groups, bucket, m, f }
    }

    /// Whether literal `l` holds for row `i`.
    /// Row `i`'s label: `+1` positive, `−1` negative.
    pub(super) fn label(&self, i: usize) -> f64 {
        self.f[i]
    }

    /// Whether literal `l` holds on row `i`.
    pub(super) fn holds(&self, l: usize, i: usize) -> bool {
        self.tests[l].holds(self.bucket[self.group_of[l] * self.m + i])
    }
}

/// Weight of the positive rows, weight of the negative rows, and number of rows.
#[derive(Clone, Copy, Default)]
struct Mass {
    pos: f64,
    neg: f64,
    n: usize,
}

/// Bucket masses `prefix[1..=nb]` turned into prefix sums: `prefix[b]` = Σ buckets `< b`.
fn accumulate(prefix: &mut [Mass]) {
    for b in 1..prefix.len() {
        let (lo, hi) = (prefix[b - 1], &mut prefix[b]);
        hi.pos += lo.pos;
        hi.neg += lo.neg;
        hi.n += lo.n;
    }
}

/// The mass of the rows a literal's `test` accepts, from a group's prefix sums over its `nb`
/// buckets.
fn test_mass(prefix: &[Mass], nb: usize, test: Test) -> Mass {
    let range = |a: usize, b: usize| Mass {
        pos: prefix[b].pos - prefix[a].pos,
        neg: prefix[b].neg - prefix[a].neg,
        n: prefix[b].n - prefix[a].n,
    };
    match test {
        Test::Eq(c) => range(c as usize, c as usize + 1),
        Test::Ne(c) => {
            let (a, b) = (range(0, c as usize), range(c as usize + 1, nb));
            Mass { pos: a.pos + b.pos, neg: a.neg + b.neg, n: a.n + b.n }
        }
        Test::Gt(c) => range(c as usize + 1, nb),
        Test::Le(c) => range(0, c as usize + 1),
    }
}

/// The weak learner's answer.
struct Choice {
    /// Indices into the literal list.
    path: Vec<usize>,
    /// Signed correlation `E_D[f · c]` of the conjunction `c` in its positive sense.
    corr: f64,
    /// `|corr|` times the simplicity factor.
    score: f64,
}

/// The exhaustive weak learner of sections 3.2–3.3, pruned by branch and bound.
pub(super) struct Search<'s, 'a> {
    space: &'s Space<'a>,
    /// `D(x) · f(x)`.
    g: Vec<f64>,
    /// `g` split by sign, `(max(g, 0), max(−g, 0))`, so that accumulating bucket masses takes no
    /// branch on the row's label (which the row order makes unpredictable).
    g_pos: Vec<f64>,
    g_neg: Vec<f64>,
    /// `Σ g`: the correlation of the constant `+1`.
    total: f64,
    k: usize,
    /// Factor of conjunctions of two or more literals.
    factor: f64,
    /// Per depth: the rows the current path covers (depth 0: all rows).
    rows: Vec<Vec<u32>>,
    /// Per depth: bucket masses then their prefix sums, for the largest group.
    prefix: Vec<Vec<Mass>>,
    /// Per depth: the number of rows the current path covers.
    count: Vec<usize>,
    /// `k = 2`: the last level reads pair masses from [`Search::pair_masses`] instead of
    /// filtering rows (the same masses, summed in another order).
    pairs: bool,
    /// Per group `a` (once built for the current boosting round): for every group `q >= a`, the
    /// masses of the rows in a bucket below `ba` of `a` and in bucket `bq` of `q` (cumulative over
    /// `a`'s buckets, `ba` in `0..=n_buckets(a)`), at `offsets[a][q - a] + ba * n_buckets(q) + bq`.
    pair_masses: Vec<Option<Vec<Mass>>>,
    offsets: Vec<Vec<usize>>,
    path: Vec<usize>,
    best: Choice,
    /// The rows the search scores (ascending): every row, or the rows of a resample
    /// ([`Search::best_among`]).
    active: Vec<u32>,
}

impl<'s, 'a> Search<'s, 'a> {
    /// The weak learner's best conjunction under the distribution `d` over the rows: its
    /// literals (indices) and sense (`+1`: `+1` when it holds, `−1`: negated), by the sign of its
    /// correlation with the class.
    pub(super) fn best(&mut self, d: &[f64]) -> (Vec<usize>, i32) {
        if self.active.len() != self.space.m {
            self.active.clear();
            self.active.extend(0..self.space.m as u32);
        }
        self.search(d)
    }

    /// [`Search::best`] over the rows `active` only (ascending indices), under the weights `d`
    /// of those rows (other rows' entries of `d` are not read).
    pub(super) fn best_among(&mut self, d: &[f64], active: &[u32]) -> (Vec<usize>, i32) {
        self.active.clear();
        self.active.extend_from_slice(active);
        self.search(d)
    }

    fn search(&mut self, d: &[f64]) -> (Vec<usize>, i32) {
        for &i in &self.active {
            let i = i as usize;
            self.g[i] = d[i] * self.space.f[i];
        }
        // Adding +0.0 leaves a mass unchanged (masses start at +0.0 and only grow), so these
        // give the same sums, bit for bit, as adding `g` to `pos` or `−g` to `neg` by its sign.
        for &i in &self.active {
            let i = i as usize;
            let v = self.g[i];
            (self.g_pos[i], self.g_neg[i]) = if v > 0.0 { (v, 0.0) } else { (0.0, -v) };
        }
        self.total = self.active.iter().map(|&i| self.g[i as usize]).sum();
        self.run();
        let sign = if self.best.corr >= 0.0 { 1 } else { -1 };
        (self.best.path.clone(), sign)
    }

    /// A search over conjunctions of at most `k` literals of `space`; the correlation of those
    /// of two literals or more is multiplied by `factor`.
    pub(super) fn new(space: &'s Space<'a>, k: usize, factor: f64) -> Self {
        let widest = space.groups.iter().map(|g| g.n_buckets).max().unwrap_or(0);
        let mut rows = vec![Vec::with_capacity(space.m); k.max(1)];
        rows[0].extend(0..space.m as u32);
        let mut count = vec![0; k.max(1)];
        count[0] = space.m;
        let n_groups = space.groups.len();
        let offsets = (0..n_groups)
            .map(|a| {
                let na = space.groups[a].n_buckets;
                let mut offsets = vec![0];
                for q in a..n_groups {
                    offsets.push(offsets[offsets.len() - 1] + (na + 1) * space.groups[q].n_buckets);
                }
                offsets
            })
            .collect();
        Search {
            space,
            g: vec![0.0; space.m],
            g_pos: vec![0.0; space.m],
            g_neg: vec![0.0; space.m],
            total: 0.0,
            k,
            factor,
            rows,
            prefix: vec![vec![Mass::default(); widest + 1]; k],
            count,
            pairs: k == 2,
            pair_masses: vec![None; n_groups],
            offsets,
            path: Vec::with_capacity(k),
            best: Choice { path: Vec::with_capacity(k), corr: 0.0, score: 0.0 },
            active: (0..space.m as u32).collect(),
        }
    }

    fn run(&mut self) {
        // The empty conjunction: the constant +1, covering every row.
        self.best.path.clear();
        self.best.corr = self.total;
        self.best.score = self.total.abs();
        // The weights changed: pair masses are rebuilt on demand.
        self.pair_masses.iter_mut().for_each(|h| *h = None);
        self.rows[0].clone_from(&self.active);
        self.count[0] = self.active.len();
        if self.k > 0 && !self.space.literals.is_empty() {
            self.extend(0, 0);
        }
    }

    /// Tries every compatible literal from `from` on after the current path of `depth` literals,
    /// whose rows are `self.rows[depth]`.
    fn extend(&mut self, depth: usize, from: usize) {
        let space = self.space;
        let parent = std::mem::take(&mut self.rows[depth]);
        let n_parent = self.count[depth];
        let mut prefix = std::mem::take(&mut self.prefix[depth]);
        let order = depth + 1;
        // The second literal of a pair: the first literal's buckets of the pair masses.
        let first = (self.pairs && depth == 1).then(|| self.path[0]);
        if let Some(l0) = first {
            self.build_pair_masses(space.group_of[l0]);
        }
        for q in space.group_of[from]..space.groups.len() {
            let group = &space.groups[q];
            // Bucket masses of the parent's rows, then prefix sums: prefix[b] = Σ buckets < b.
            let nb = group.n_buckets;
            prefix[..=nb].fill(Mass::default());
            match first {
                Some(l0) => {
                    let a = space.group_of[l0];
                    let masses = self.pair_masses[a].as_deref().expect("built above");
                    let block = &masses[self.offsets[a][q - a]..self.offsets[a][q - a + 1]];
                    // The first literal accepts one or two runs of `a`'s buckets: each run's
                    // masses are a difference of two cumulative rows.
                    let na = space.groups[a].n_buckets;
                    let (first_run, second_run) = match space.tests[l0] {
                        Test::Eq(c) => ((c as usize, c as usize + 1), None),
                        Test::Ne(c) => ((0, c as usize), Some((c as usize + 1, na))),
                        Test::Gt(c) => ((c as usize + 1, na), None),
                        Test::Le(c) => ((0, c as usize + 1), None),
                    };
                    for (lo, hi) in [first_run].into_iter().chain(second_run) {
                        let (below, upto) = (&block[lo * nb..(lo + 1) * nb], &block[hi * nb..(hi + 1) * nb]);
                        for ((p, u), b) in prefix[1..=nb].iter_mut().zip(upto).zip(below) {
                            p.pos += u.pos - b.pos;
                            p.neg += u.neg - b.neg;
                            p.n += u.n - b.n;
                        }
                    }
                }
                None => {
                    let buckets = &space.bucket[q * space.m..(q + 1) * space.m];
                    for &i in &parent {
                        let i = i as usize;
                        let b = &mut prefix[buckets[i] as usize + 1];
                        b.pos += self.g_pos[i];
                        b.neg += self.g_neg[i];
                        b.n += 1;
                    }
                }
            }
            accumulate(&mut prefix[..=nb]);
            for l in group.start.max(from)..group.end {
                let lit = &space.literals[l];
                if !self.path.iter().all(|&q| compatible(&space.literals[q], lit)) {
                    continue;
                }
                let mass = test_mass(&prefix, nb, space.tests[l]);
                // Empty: the constant −1; everything: the parent again. Both tried already.
                if mass.n == 0 || mass.n == n_parent {
                    continue;
                }
                let corr = 2.0 * (mass.pos - mass.neg) - self.total;
                let score = if order >= 2 { corr.abs() * self.factor } else { corr.abs() };
                self.path.push(l);
                if score > self.best.score {
                    self.best.score = score;
                    self.best.corr = corr;
                    self.best.path.clear();
                    self.best.path.extend_from_slice(&self.path);
                }
                // An extension covers a subset: its Σ g lies in [−neg, pos].
                let bound = self.factor
                    * (2.0 * mass.pos - self.total).abs().max((2.0 * mass.neg + self.total).abs());
                if order < self.k && bound > self.best.score && l + 1 < space.literals.len() {
                    let child = &mut self.rows[depth + 1];
                    child.clear();
                    if !(self.pairs && depth == 0) {
                        child.extend(parent.iter().copied().filter(|&i| space.holds(l, i as usize)));
                    }
                    self.count[depth + 1] = mass.n;
                    self.extend(depth + 1, l + 1);
                }
                self.path.pop();
            }
        }
        self.rows[depth] = parent;
        self.prefix[depth] = prefix;
    }

    /// Builds the current boosting round's pair masses of group `a` (one pass over the rows per
    /// group `q >= a`, then cumulative sums over `a`'s buckets) unless they exist.
    fn build_pair_masses(&mut self, a: usize) {
        if self.pair_masses[a].is_some() {
            return;
        }
        let space = self.space;
        let m = space.m;
        let mut masses = vec![Mass::default(); *self.offsets[a].last().expect("one offset per group")];
        let first = &space.bucket[a * m..(a + 1) * m];
        for q in a..space.groups.len() {
            let nb = space.groups[q].n_buckets;
            let block = &mut masses[self.offsets[a][q - a]..self.offsets[a][q - a + 1]];
            let second = &space.bucket[q * m..(q + 1) * m];
            // Row `ba + 1` collects bucket `ba`; then each row adds the ones above it.
            for &i in &self.active {
                let i = i as usize;
                let c = &mut block[(first[i] as usize + 1) * nb + second[i] as usize];
                c.pos += self.g_pos[i];
                c.neg += self.g_neg[i];
                c.n += 1;
            }
            for r in nb..block.len() {
                let below = block[r - nb];
                let c = &mut block[r];
                c.pos += below.pos;
                c.neg += below.neg;
                c.n += below.n;
            }
        }
        self.pair_masses[a] = Some(masses);
    }
}

#[cfg(test)]
mod tests {
    use super::{Search, Space};
    use crate::learners::sparse_perceptron::literals::compatible;
    use crate::model::{Literal, LiteralOp};

    /// Deterministic pseudo-random numbers (xorshift64).
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    /// Every conjunction of at most `k` literals in the search's order (each literal followed by
    /// its extensions with later literals), scored as the search scores them: the first with the
    /// largest score, and its signed correlation.
    fn brute_force(
        literals: &[Literal],
        rows: &[Vec<i32>],
        g: &[f64],
        k: usize,
        factor: f64,
    ) -> (Vec<usize>, f64) {
        /// The enumeration's fixed inputs.
        struct Problem<'p> {
            literals: &'p [Literal],
            rows: &'p [Vec<i32>],
            g: &'p [f64],
            k: usize,
            factor: f64,
            total: f64,
        }
        fn visit(
            path: &mut Vec<usize>,
            parent_n: usize,
            ctx: &Problem<'_>,
            best: &mut (Vec<usize>, f64, f64),
        ) {
            let Problem { literals, rows, g, k, factor, total } = *ctx;
            let from = path.last().map_or(0, |&l| l + 1);
            for l in from..literals.len() {
                if !path.iter().all(|&q| compatible(&literals[q], &literals[l])) {
                    continue;
                }
                path.push(l);
                let covered: Vec<usize> =
                    (0..rows.len()).filter(|&i| path.iter().all(|&q| literals[q].holds(&rows[i]))).collect();
                let n = covered.len();
                if n != 0 && n != parent_n {
                    let pos: f64 = covered.iter().map(|&i| g[i].max(0.0)).sum();
                    let neg: f64 = covered.iter().map(|&i| (-g[i]).max(0.0)).sum();
                    let corr = 2.0 * (pos - neg) - total;
                    let score = if path.len() >= 2 { corr.abs() * factor } else { corr.abs() };
                    if score > best.2 {
                        *best = (path.clone(), corr, score);
                    }
                    if path.len() < k {
                        visit(path, n, ctx, best);
                    }
                }
                path.pop();
            }
        }
        let total: f64 = g.iter().sum();
        let mut best = (Vec::new(), total, total.abs());
        let problem = Problem { literals, rows, g, k, factor, total };
        visit(&mut Vec::new(), rows.len(), &problem, &mut best);
        (best.0, best.1)
    }

    /// The pruned search (with the pair masses for `k = 2`) finds exactly the conjunction the unpruned enumeration finds. The weights are
    /// multiples of 1/1024, so every sum is exact whatever its order.
    #[test]
    fn pruned_search_equals_exhaustive_enumeration() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for trial in 0..60 {
            let m = 5 + rng.below(60) as usize;
            let rows: Vec<Vec<i32>> = (0..m)
                .map(|_| vec![rng.below(4) as i32, rng.below(10) as i32, rng.below(3) as i32])
                .collect();
            let positive: Vec<bool> = (0..m).map(|_| rng.below(3) == 0).collect();
            let mut literals = Vec::new();
            for value in 0..4 {
                literals.push(Literal { attr: 0, op: LiteralOp::Eq, value });
                if trial % 2 == 0 {
                    literals.push(Literal { attr: 0, op: LiteralOp::Ne, value });
                }
            }
            for value in [2, 5, 7] {
                literals.push(Literal { attr: 1, op: LiteralOp::Gt, value });
                literals.push(Literal { attr: 1, op: LiteralOp::Le, value });
            }
            for value in 0..3 {
                literals.push(Literal { attr: 2, op: LiteralOp::Eq, value });
            }
            let d: Vec<f64> = (0..m).map(|_| (1 + rng.below(16)) as f64 / 1024.0).collect();
            let g: Vec<f64> = d.iter().zip(&positive).map(|(&w, &p)| if p { w } else { -w }).collect();
            let row_refs: Vec<&[i32]> = rows.iter().map(Vec::as_slice).collect();
            let space = Space::new(&literals, &row_refs, &positive);
            for k in 1..=3 {
                let factor = 1.0 / k as f64;
                let (path, sign) = Search::new(&space, k, factor).best(&d);
                let (want, corr) = brute_force(&literals, &rows, &g, k, factor);
                assert_eq!(path, want, "trial {trial}, k = {k}");
                assert_eq!(sign, if corr >= 0.0 { 1 } else { -1 }, "trial {trial}, k = {k}");
            }
        }
    }
}

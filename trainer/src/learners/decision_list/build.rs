//! The greedy set covering that builds a list (sections 3 and 5): each step searches a halfspace
//! per target class, ranks the covers and keeps the best entry whose quantized unit holds up.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::inclp::{self, Budget, Cover, LpStats};
use super::node::make_node;
use super::tolerant::{self, Cut, Scores, PATIENCE};
use super::{majority, node_covers_int, HsiShape, Node, Params, Sample, Search, Shape, Stop};
use crate::rng::Rng;

/// A tolerant entry covers at least one in this many of the training rows.
const MIN_COVER_DIVISOR: usize = 500;

/// A tolerant entry's threshold sits at its share of other classes on the float score, so the
/// integer unit's rounding moves a few rows across it either way: the quantized entry is kept
/// while its share is within this factor of the tolerance (the held-out rows judge the list):
/// held to the float share exactly, the best-ranked entries fail by a row or two and entries of
/// a few rows further down the ranking are taken instead.
const QUANTIZED_SHARE_SLACK: f64 = 1.1;

/// One run of the single-unit search.
fn search(
    s: &Sample<'_>,
    cands: &[usize],
    excl: &[usize],
    p: &Params,
    rng: &mut Rng,
    stats: &mut LpStats,
) -> Cover {
    let budget = Budget { passes: p.max_passes, patience: p.patience, deadline: None };
    match p.search {
        Search::FindLargeNegSubset => {
            inclp::find_large_neg_subset_with(s.x, cands, excl, budget, p.lp_solver, rng, stats)
        }
        Search::MultIncLp { passes } => inclp::mult_inc_lp_with(
            s.x,
            cands,
            excl,
            Budget { passes: Some(passes.max(1)), ..Budget::default() },
            p.lp_solver,
            rng,
            stats,
        ),
        Search::Pocket { kilo_iterations } => inclp::pocket_ratchet(
            s.x,
            cands,
            excl,
            Budget { passes: Some(kilo_iterations.max(1)), ..Budget::default() },
            rng,
        ),
    }
}

/// Builds a list on `rows` of the sample (greedy covering, sections 3 and 5); `defaults[r]` is
/// the class to use after keeping the first `r` nodes. With `tolerance > 0` the entries are
/// tolerant ([`tolerant`]: each may cover that share of rows of other classes) and the list
/// stops once [`PATIENCE`] entries in a row did not raise the accuracy on the rows `held`
/// (none: no such stop).
#[allow(clippy::too_many_arguments)]
pub(super) fn build(
    s: &Sample<'_>,
    rows: &[usize],
    shape: Shape,
    p: &Params,
    tolerance: f64,
    held: &[usize],
    rng: &mut Rng,
    progress: &(dyn Fn(u64, u64) + Sync),
    limit: &AtomicUsize,
) -> (Vec<Node>, Vec<usize>, Stop, LpStats) {
    let q = s.n_classes.max(1);
    progress(0, rows.len() as u64);
    let mut alive = rows.to_vec();
    let mut nodes: Vec<Node> = Vec::new();
    let mut defaults = vec![majority(s.y, rows.iter().copied(), q)];
    let mut stats = LpStats::default();
    let mut cache: Vec<Option<Cover>> = vec![None; q];
    // Tolerant entries are placed by their own threshold: no max-margin LP (their rows are not
    // separable by construction).
    let tolerant_params = Params { max_margin: false, search: Search::FindLargeNegSubset, ..p.clone() };
    let p = if tolerance > 0.0 { &tolerant_params } else { p };
    // Held-out rows no entry has decided yet, those decided right, and the best list so far.
    let mut open = held.to_vec();
    let mut scores = Scores::default();
    let mut held_right = 0;
    let mut best_held = (open.iter().filter(|&&i| s.y[i] == defaults[0]).count(), 0);
    let stop = loop {
        let mut count = vec![0usize; q];
        for &i in &alive {
            count[s.y[i]] += 1;
        }
        let majority_left = majority(s.y, alive.iter().copied(), q);
        let last = defaults.last_mut().expect("nonempty");
        let targets = match targets(shape, &count, majority_left) {
            Ok(targets) => targets,
            Err(default) => {
                *last = default;
                break Stop::Exhausted;
            }
        };
        *last = match shape {
            Shape::Ndl => majority_left,
            Shape::Hsi { shape: HsiShape::Intersection, positive } => positive,
            Shape::Hsi { shape: HsiShape::Union, positive } => 1 - positive,
        };
        if p.max_nodes.is_some_and(|m| nodes.len() >= m) || nodes.len() >= limit.load(Ordering::SeqCst) {
            break Stop::MaxNodes;
        }
        let reuse =
            p.reuse_covers && (targets.len() >= 3 || (p.reuse_two_class_covers && targets.len() == 2));
        let pool = if tolerance > 0.0 { alive.clone() } else { search_pool(&alive, rows.len(), p, rng) };
        // A tolerant entry must cover a share of the training rows: entries of a row or two
        // are noise the held-out rows cannot judge, and each costs a step over every row left.
        let min_cover =
            if tolerance > 0.0 { p.min_cover.max(rows.len() / MIN_COVER_DIVISOR) } else { p.min_cover };
        let mut step = Step { s, alive: &alive, pool: &pool, p, tolerance, min_cover };
        let ranked = if tolerance > 0.0 {
            let mut covers = tolerant::covers(s, &alive, &targets, Cut::Share(tolerance), &mut scores, rng);
            if covers.iter().all(|(_, c, _)| c.covered.len() < min_cover) {
                // No entry within the share covers enough rows: the rows left are mixed, and
                // the closing entries may cover any share of other classes, as long as they
                // gain (the held-out rows stop them).
                covers = tolerant::covers(s, &alive, &targets, Cut::Gain, &mut scores, rng);
                step.tolerance = 1.0;
            }
            step.rank(covers)
        } else {
            step.ranked_covers(&targets, reuse, &mut cache, rng, &mut stats)
        };
        let Some((_, first, _)) = ranked.first() else { break Stop::Inseparable };
        if first.covered.is_empty() {
            break Stop::Inseparable;
        }
        if first.covered.len() < min_cover {
            break Stop::MinCover;
        }
        let Some((node, next)) = step.accept(ranked, &mut stats) else { break Stop::QuantizationLost };
        alive = next;
        scores.forget(if targets.len() == 2 { &targets } else { std::slice::from_ref(&node.class) });
        open.retain(|&i| {
            let fires = match s.quant {
                Some(qz) => node_covers_int(&node, &qz.features[i], qz.max_abs),
                None => node.halfspace.covers(&s.x[i]),
            };
            held_right += usize::from(fires && s.y[i] == node.class);
            !fires
        });
        nodes.push(node);
        defaults.push(majority_left);
        progress((rows.len() - alive.len()) as u64, rows.len() as u64);
        if tolerance > 0.0 && !held.is_empty() {
            let default = majority(s.y, alive.iter().copied(), q);
            let right = held_right + open.iter().filter(|&&i| s.y[i] == default).count();
            if right > best_held.0 {
                best_held = (right, nodes.len());
            } else if nodes.len() - best_held.1 >= PATIENCE {
                break Stop::HeldOut;
            }
        }
    };
    // The rows left go to the default: the list is done.
    progress(rows.len() as u64, rows.len() as u64);
    (nodes, defaults, stop, stats)
}

/// The classes the next entry may cover, given the class counts of the examples left (section
/// 5.2 step 3: every class left; section 3: only the class the halfspaces cut away), or
/// `Err(default)` when the list is done and the constant node decides.
fn targets(shape: Shape, count: &[usize], majority_left: usize) -> Result<Vec<usize>, usize> {
    match shape {
        Shape::Ndl => {
            let nonempty: Vec<usize> = (0..count.len()).filter(|&c| count[c] > 0).collect();
            if nonempty.len() <= 1 {
                return Err(nonempty.first().copied().unwrap_or(majority_left));
            }
            Ok(nonempty)
        }
        Shape::Hsi { shape, positive } => {
            let negative = 1 - positive;
            let (cut, keep) = match shape {
                HsiShape::Intersection => (negative, positive),
                HsiShape::Union => (positive, negative),
            };
            if count[cut] == 0 || count[keep] == 0 {
                // Section 3 step 2; with no example left to keep, the constant node decides.
                return Err(if count[cut] == 0 { keep } else { cut });
            }
            Ok(vec![cut])
        }
    }
}

/// The examples the halfspaces are searched on. Beyond the paper: on more than
/// [`Params::search_all_up_to`] training rows (`n_rows`), with more rows left than
/// [`Params::max_search_rows`], a seeded sample of them (each node then covers what its unit
/// covers among all the rows left); else every row left.
fn search_pool(alive: &[usize], n_rows: usize, p: &Params, rng: &mut Rng) -> Vec<usize> {
    match p.max_search_rows {
        Some(k) if alive.len() > k && n_rows > p.search_all_up_to => {
            let mut v = alive.to_vec();
            for i in 0..k {
                let j = i + rng.below(v.len() - i);
                v.swap(i, j);
            }
            v.truncate(k);
            v.sort_unstable();
            v
        }
        _ => alive.to_vec(),
    }
}

/// One covering step: the examples left and those the search sees.
struct Step<'a, 's> {
    s: &'a Sample<'s>,
    alive: &'a [usize],
    pool: &'a [usize],
    p: &'a Params,
    /// Share of an entry's rows that may be of other classes (0: the exact method).
    tolerance: f64,
    /// Fewest rows an accepted entry covers.
    min_cover: usize,
}

impl Step<'_, '_> {
    /// Per target class, a cover of its pool examples that excludes every pool example of the
    /// other classes (with the excluded examples), best first (sections 5.1 steps 4–6 / 5.2
    /// steps 3–4): the larger covered fraction, then the larger count, then the lower class.
    /// With `reuse`, a class's cover from an earlier step is taken again while every example it
    /// covered is left.
    fn ranked_covers(
        &self,
        targets: &[usize],
        reuse: bool,
        cache: &mut [Option<Cover>],
        rng: &mut Rng,
        stats: &mut LpStats,
    ) -> Vec<(usize, Cover, Vec<usize>)> {
        let s = self.s;
        let mut is_alive = vec![false; s.x.len()];
        for &i in self.alive {
            is_alive[i] = true;
        }
        let mut ranked: Vec<(usize, Cover, Vec<usize>)> = Vec::new();
        for &t in targets {
            let excl: Vec<usize> = self.pool.iter().copied().filter(|&i| s.y[i] != t).collect();
            // A cover found at an earlier step still excludes every remaining example of other
            // classes (that set only shrinks); reuse it while all it covered is still there.
            let cached = cache[t].take().filter(|c: &Cover| reuse && c.covered.iter().all(|&i| is_alive[i]));
            let cover = match cached {
                Some(c) => {
                    stats.reused_covers += 1;
                    c
                }
                None => {
                    let cands: Vec<usize> = self.pool.iter().copied().filter(|&i| s.y[i] == t).collect();
                    search(s, &cands, &excl, self.p, rng, stats)
                }
            };
            if reuse {
                cache[t] = Some(cover.clone());
            }
            ranked.push((t, cover, excl));
        }
        self.rank(ranked)
    }

    /// `ranked` best first: the larger covered fraction of the class's pool examples, then the
    /// larger count, then the lower class.
    fn rank(&self, mut ranked: Vec<(usize, Cover, Vec<usize>)>) -> Vec<(usize, Cover, Vec<usize>)> {
        let mut pool_count = vec![0usize; self.s.n_classes.max(1)];
        for &i in self.pool {
            pool_count[self.s.y[i]] += 1;
        }
        // Best first: larger covered fraction (cross-multiplied), then larger count, then lower
        // class (the stable sort keeps the class order of `targets`).
        ranked.sort_by(|(ta, ca, _), (tb, cb, _)| {
            let (a, b) = (ca.covered.len() * pool_count[*tb], cb.covered.len() * pool_count[*ta]);
            b.cmp(&a).then(cb.covered.len().cmp(&ca.covered.len()))
        });
        ranked
    }

    /// The entry to keep and the examples it leaves. Beyond the paper: rounding can empty a
    /// node with a tiny margin or make it cover examples of other classes. Takes the
    /// best-ranked node whose quantized unit covers only its own class (at most the tolerated
    /// share of others); if there is none, the best-ranked one that covers anything (`None`: no
    /// node covers anything).
    fn accept(
        &self,
        ranked: Vec<(usize, Cover, Vec<usize>)>,
        stats: &mut LpStats,
    ) -> Option<(Node, Vec<usize>)> {
        let mut fallback = None;
        for (class, cover, excl) in ranked.into_iter().filter(|(_, c, _)| !c.covered.is_empty()) {
            if cover.covered.len() < self.min_cover {
                break;
            }
            let (node, next) = make_node(self.s, self.alive, class, &cover, &excl, self.p, stats);
            if node.info.covered > 0
                && node.info.wrong_class as f64
                    <= self.tolerance * QUANTIZED_SHARE_SLACK * node.info.covered as f64
            {
                return Some((node, next));
            }
            stats.quantization_rejected += 1;
            if node.info.covered > 0 && fallback.is_none() {
                fallback = Some((node, next));
            }
        }
        fallback
    }
}

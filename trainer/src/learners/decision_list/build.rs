//! The greedy set covering that builds a list (sections 3 and 5): each step searches a halfspace
//! per target class, ranks the covers and keeps the best entry whose quantized unit holds up.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::inclp::{self, Budget, Cover, LpStats};
use super::node::make_node;
use super::{majority, HsiShape, Node, Params, Sample, Search, Shape, Stop};
use crate::rng::Rng;

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
/// the class to use after keeping the first `r` nodes.
pub(super) fn build(
    s: &Sample<'_>,
    rows: &[usize],
    shape: Shape,
    p: &Params,
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
        let pool = search_pool(&alive, rows.len(), p, rng);
        let step = Step { s, alive: &alive, pool: &pool, p };
        let ranked = step.ranked_covers(&targets, reuse, &mut cache, rng, &mut stats);
        let Some((_, first, _)) = ranked.first() else { break Stop::Inseparable };
        if first.covered.is_empty() {
            break Stop::Inseparable;
        }
        if first.covered.len() < p.min_cover {
            break Stop::MinCover;
        }
        let Some((node, next)) = step.accept(ranked, &mut stats) else { break Stop::QuantizationLost };
        alive = next;
        nodes.push(node);
        defaults.push(majority_left);
        progress((rows.len() - alive.len()) as u64, rows.len() as u64);
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
        let mut pool_count = vec![0usize; cache.len()];
        for &i in self.pool {
            pool_count[s.y[i]] += 1;
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
    /// best-ranked node whose quantized unit covers only its own class; if there is none, the
    /// best-ranked one that covers anything (`None`: no node covers anything).
    fn accept(
        &self,
        ranked: Vec<(usize, Cover, Vec<usize>)>,
        stats: &mut LpStats,
    ) -> Option<(Node, Vec<usize>)> {
        let mut fallback = None;
        for (class, cover, excl) in ranked.into_iter().filter(|(_, c, _)| !c.covered.is_empty()) {
            if cover.covered.len() < self.p.min_cover {
                break;
            }
            let (node, next) = make_node(self.s, self.alive, class, &cover, &excl, self.p, stats);
            if node.info.covered > 0 && node.info.wrong_class == 0 {
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

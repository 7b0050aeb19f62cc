//! [`Choose`](super::Choose): the inner cross-validation that picks the shape, norm and editing
//! among candidate settings, racing them on large samples.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::learn::{learn_hsi_with, learn_with};
use super::noise::Edits;
use super::{
    node_covers_int, Candidate, Choose, Learned, Norm, Params, Quant, Sample, Search, Shape, Tolerance,
};
use crate::learn::TrainError;

/// Multiply-accumulates of a list on integer features `f`: the non-zero weights of every entry
/// evaluated, up to the first that fires.
fn list_macs(l: &Learned, f: &[i32], max_abs: &[i64]) -> usize {
    let mut macs = 0;
    for n in &l.nodes {
        macs += n.unit.as_ref().map_or(n.halfspace.w.len(), |u| {
            u.rows[0][..u.rows[0].len() - 1].iter().filter(|&&w| w != 0).count()
        });
        if node_covers_int(n, f, max_abs) {
            break;
        }
    }
    macs
}

/// A candidate setting: the shape (`None`: `hsi` with either positive class) and its options.
type Setting = (Option<Shape>, Params);

/// [`Choose`]: the candidate settings, compared by cross-validation on (a sample of) the
/// sample's rows; returns the winner's shape and options (with [`Params::choose`] `None`) and
/// every candidate's figures, the winner first. With more than [`Choose::up_to_rows`] rows, or
/// too few rows to cross-validate, the options as given (each unset choice at its default; an
/// unset tolerance is [`Tolerance::HeldOut`] above [`Choose::up_to_rows`] rows, else exact).
pub(super) fn choose(
    s: &Sample<'_>,
    shape: Option<Shape>,
    p: &Params,
    c: Choose,
    seed: u64,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<(Option<Shape>, Params, Vec<Candidate>), TrainError> {
    let n = s.x.len();
    let given = (
        shape,
        Params {
            norm: Some(p.norm.unwrap_or_default()),
            edit_neighbours: Some(p.edit_neighbours.unwrap_or(0)),
            tolerance: Some(p.tolerance.unwrap_or(if n > c.up_to_rows {
                Tolerance::HeldOut
            } else {
                Tolerance::Exact
            })),
            choose: None,
            ..p.clone()
        },
    );
    let Some(q) = s.quant.filter(|_| n <= c.up_to_rows) else {
        return Ok((given.0, given.1, Vec::new()));
    };
    let mut settings = settings(s, shape, p, c);
    if settings.len() == 1 {
        return Ok((given.0, given.1, Vec::new()));
    }
    // The rows to cross-validate on: all, or a stratified sample.
    let rows: Vec<usize> = if n > c.max_rows {
        crate::data::split::hold_out(s.y, s.n_classes, c.max_rows as f64 / n as f64, seed ^ 0x5e1e_c7ed).1
    } else {
        (0..n).collect()
    };
    let y_rows: Vec<usize> = rows.iter().map(|&i| s.y[i]).collect();
    let Ok(folds) =
        crate::data::split::stratified_kfold(&y_rows, s.n_classes, c.folds.max(2), seed ^ 0xc4_005e)
    else {
        return Ok((given.0, given.1, Vec::new()));
    };
    let mut tally = Tally::new(settings.len());
    let race = rows.len() >= c.race_from_rows;
    // Candidates still in (all, unless racing), and the lists the folds will learn.
    let mut alive: Vec<usize> = (0..settings.len()).collect();
    // After fold `f` (from 0): every candidate goes on through the first `RACE_AFTER` folds.
    let survivors = |f: usize, n: usize| if race && f + 1 >= RACE_AFTER { n.div_ceil(2) } else { n };
    let total = {
        let (mut n, mut t) = (settings.len(), 0);
        for f in 0..folds.len() {
            t += n;
            n = survivors(f, n);
            if race && n == 1 {
                break;
            }
        }
        t as u64
    };
    let done = AtomicUsize::new(0);
    progress(0, total);
    let tick = || progress(done.fetch_add(1, Ordering::SeqCst) as u64 + 1, total);
    for (fold_no, fold) in folds.iter().enumerate() {
        if race && alive.len() == 1 {
            break;
        }
        let test: Vec<usize> = fold.iter().map(|&k| rows[k]).collect();
        let train: Vec<usize> =
            crate::data::split::complement(fold, rows.len()).iter().map(|&k| rows[k]).collect();
        let x: Vec<Vec<f64>> = train.iter().map(|&i| s.x[i].clone()).collect();
        let y: Vec<usize> = train.iter().map(|&i| s.y[i]).collect();
        let f: Vec<Vec<i32>> = train.iter().map(|&i| q.features[i].clone()).collect();
        let sub = Sample { x: &x, y: &y, n_classes: s.n_classes, quant: Some(Quant { features: &f, ..q }) };
        for (k, l) in learn_candidates(&sub, &settings, &alive, seed, &tick) {
            tally.add(k, &l?, &test, s.y, q);
        }
        if race {
            alive.sort_by_key(|&k| tally.rank(k));
            alive.truncate(survivors(fold_no, alive.len()));
            alive.sort_unstable();
        }
    }
    // The most accurate; then the fewest multiply-accumulates; then the first listed (among
    // those left in a race, which were all tested on the same folds).
    let best = alive.iter().copied().min_by_key(|&k| tally.rank(k)).expect("at least two candidates");
    let mut candidates = tally.candidates(&settings);
    let winner = candidates.remove(best);
    candidates.insert(0, winner);
    let (sh, params) = settings.swap_remove(best);
    Ok((sh, params, candidates))
}

/// The settings [`choose`] compares: each shape (the given one, and for two classes `hsi`
/// beside `ndl` with [`Choose::two_class_shapes`]) × each norm (both unless set; with no
/// max-margin LP the norm changes nothing) × editing off and on (unless set), all exact unless
/// a tolerance is set.
fn settings(s: &Sample<'_>, shape: Option<Shape>, p: &Params, c: Choose) -> Vec<Setting> {
    // Without the max-margin LP the norm changes nothing: not a choice.
    let margin = p.max_margin || matches!(p.search, Search::Pocket { .. });
    let norms: Vec<Norm> = match p.norm {
        Some(n) => vec![n],
        None if margin => vec![Norm::Sum, Norm::Max],
        None => vec![Norm::default()],
    };
    let edits: Vec<usize> = p.edit_neighbours.map_or_else(|| vec![0, 3], |k| vec![k]);
    let mut shapes = vec![shape];
    if c.two_class_shapes && shape == Some(Shape::Ndl) && s.n_classes == 2 {
        shapes.push(None);
    }
    let mut settings = Vec::new();
    for &sh in &shapes {
        for &norm in &norms {
            for &k in &edits {
                let params = Params {
                    norm: Some(norm),
                    edit_neighbours: Some(k),
                    tolerance: Some(p.tolerance.unwrap_or(Tolerance::Exact)),
                    choose: None,
                    ..p.clone()
                };
                settings.push((sh, params));
            }
        }
    }
    settings
}

/// The lists of candidates `alive` on one fold's training rows `sub`, learned on the available
/// cores (candidates are independent and seeded) and returned grouped by thread, the calling
/// thread's first; `tick` after each list.
fn learn_candidates(
    sub: &Sample<'_>,
    settings: &[Setting],
    alive: &[usize],
    seed: u64,
    tick: &(dyn Fn() + Sync),
) -> Vec<(usize, Result<Learned, TrainError>)> {
    // The fold's candidates with editing edit the same rows the same way: once per fold.
    let edits = Edits::default();
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get()).min(alive.len());
    let results: Vec<Vec<(usize, Result<Learned, TrainError>)>> = std::thread::scope(|scope| {
        let work = || {
            let mut out = Vec::new();
            loop {
                let Some(&k) = alive.get(next.fetch_add(1, Ordering::SeqCst)) else { break out };
                let (sh, params) = &settings[k];
                let l = match sh {
                    Some(sh) => {
                        learn_with(sub, *sh, params, seed, &|_, _| {}, &AtomicUsize::new(usize::MAX), &edits)
                    }
                    None => learn_hsi_with(sub, params, seed, &|_, _| {}, &edits),
                };
                out.push((k, l));
                tick();
            }
        };
        let handles: Vec<_> = (1..threads).map(|_| scope.spawn(work)).collect();
        let mut all = vec![work()];
        all.extend(handles.into_iter().map(|h| h.join().expect("ndl: a candidate's thread panicked")));
        all
    });
    results.into_iter().flatten().collect()
}

/// Each candidate's held-out figures summed over the folds it was tested on.
struct Tally {
    /// Held-out rows classified correctly.
    correct: Vec<usize>,
    /// Multiply-accumulates spent on the held-out rows.
    macs: Vec<usize>,
    /// Held-out rows.
    held: Vec<usize>,
    /// Folds.
    tested: Vec<usize>,
}

impl Tally {
    fn new(n: usize) -> Tally {
        Tally { correct: vec![0; n], macs: vec![0; n], held: vec![0; n], tested: vec![0; n] }
    }

    /// Counts candidate `k`'s list `l` on the held-out rows `test` (classes `y`).
    fn add(&mut self, k: usize, l: &Learned, test: &[usize], y: &[usize], q: Quant<'_>) {
        for &i in test {
            self.correct[k] += usize::from(l.predict_quantized(&q.features[i], q.max_abs) == y[i]);
            self.macs[k] += list_macs(l, &q.features[i], q.max_abs);
        }
        self.held[k] += test.len();
        self.tested[k] += 1;
    }

    /// Candidate `k`'s place, smallest best: most correct, then fewest multiply-accumulates,
    /// then first listed.
    fn rank(&self, k: usize) -> (std::cmp::Reverse<usize>, usize, usize) {
        (std::cmp::Reverse(self.correct[k]), self.macs[k], k)
    }

    /// Every candidate's figures, in the order of `settings`.
    fn candidates(&self, settings: &[Setting]) -> Vec<Candidate> {
        settings
            .iter()
            .enumerate()
            .map(|(k, (sh, params))| Candidate {
                shape: if *sh == Some(Shape::Ndl) { "ndl" } else { "hsi" },
                norm: params.norm.unwrap_or_default(),
                edit_neighbours: params.edit_neighbours.unwrap_or(0),
                tolerant: params.tolerance.is_some_and(|t| t != Tolerance::Exact),
                accuracy: self.correct[k] as f64 / self.held[k].max(1) as f64,
                macs: self.macs[k] as f64 / self.held[k].max(1) as f64,
                folds: self.tested[k],
            })
            .collect()
    }
}

/// Folds every candidate runs before a race ([`Choose::race_from_rows`]) halves them: one
/// fold's held-out rows alone chose worse settings on kr-vs-kp (ndl 97.72 → 97.56 %).
pub const RACE_AFTER: usize = 2;

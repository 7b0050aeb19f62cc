//! A list from a sample: checks, the validation split, noise handling, the build, validation
//! pruning and the report; and `hsi`'s race between the two positive classes.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use super::build::build;
use super::noise::{edit_by_neighbours, relabel_by_majority, Edits};
use super::tolerant::{HOLDOUT, SHARES};
use super::{node_covers_int, Learned, LpStats, Node, Params, Report, Sample, Shape, Stop, Tolerance};
use crate::learn::TrainError;
use crate::rng::Rng;

/// Learns a list from a sample (the algorithm without any file format).
///
/// With [`Params::validation`] `> 0` a stratified, seeded part of the rows is held out, the list
/// is built on the rest and cut after the prefix with the best held-out accuracy (the shortest
/// on ties). With [`Params::relabel_duplicates`] the list is built on majority-relabelled
/// training rows (validation rows keep their classes).
///
/// # Errors
/// [`TrainError::InvalidOption`] for a validation fraction outside `[0, 1)`, an `Hsi` shape on a
/// sample that is not two-class, or rows of different lengths.
pub fn learn(s: &Sample<'_>, shape: Shape, p: &Params, seed: u64) -> Result<Learned, TrainError> {
    learn_with(s, shape, p, seed, &|_, _| {}, &AtomicUsize::new(usize::MAX), &Edits::default())
}

/// [`learn`], reporting `(training rows covered, training rows)` to `progress` after each entry
/// (and `(rows, rows)` at the end),
/// and abandoning the list (as [`Stop::MaxNodes`]) once it has `limit` entries (read before
/// each step: another thread may lower it).
pub(super) fn learn_with(
    s: &Sample<'_>,
    shape: Shape,
    p: &Params,
    seed: u64,
    progress: &(dyn Fn(u64, u64) + Sync),
    limit: &AtomicUsize,
    edits: &Edits,
) -> Result<Learned, TrainError> {
    let start = Instant::now();
    check(s, shape, p)?;
    let mut rng = Rng::new(seed);
    let shares = shares(p);
    let validation = if !shares.is_empty() && p.validation == 0.0 { HOLDOUT } else { p.validation };
    let (train, val) = validation_split(s, validation, &mut rng);
    let (relabelled, y_build) =
        if p.relabel_duplicates { relabel_by_majority(s, &train) } else { (0, s.y.to_vec()) };
    let built = Sample { y: &y_build, ..*s };
    let (edited, build_rows) = match p.edit_neighbours.unwrap_or(0) {
        0 => (0, train.clone()),
        k => {
            let kept = edits.get(k, p.relabel_duplicates, &train, || edit_by_neighbours(&built, &train, k));
            (train.len() - kept.len(), kept)
        }
    };
    let (mut nodes, defaults, stop, lp) = if shares.is_empty() {
        build(&built, &build_rows, shape, p, 0.0, &[], &mut rng, progress, limit)
    } else {
        // Each share's list, stopped and judged on the held-out rows: the most accurate after
        // pruning (the smaller share on ties).
        let mut best: Option<(usize, _)> = None;
        let mut lp = LpStats::default();
        for (k, &t) in shares.iter().enumerate() {
            let mut r = rng.fork(2 + k as u64);
            let built_list = build(&built, &build_rows, shape, p, t, &val, &mut r, progress, limit);
            lp.add(&built_list.3);
            let right = best_prefix(s, &built_list.0, &built_list.1, &val).1;
            if best.as_ref().is_none_or(|(b, _)| right > *b) {
                best = Some((right, built_list));
            }
        }
        let Some((_, (nodes, defaults, stop, _))) = best else {
            return Err(TrainError::InvalidOption(
                "no share of other classes to try for tolerant entries".into(),
            ));
        };
        (nodes, defaults, stop, lp)
    };
    let mut default = *defaults.last().expect("nonempty");
    let mut pruned = 0;
    let mut validation_accuracy = None;
    if !val.is_empty() {
        let (keep, correct) = best_prefix(s, &nodes, &defaults, &val);
        pruned = nodes.len() - keep;
        nodes.truncate(keep);
        default = defaults[keep];
        validation_accuracy = Some(correct as f64 / val.len() as f64);
    }
    let mut learned = Learned { nodes, default, report: empty_report(lp) };
    let float_ok = train.iter().filter(|&&i| learned.predict_float(&s.x[i]) == s.y[i]).count();
    let (mut q_ok, mut disagree) = (0, 0);
    if let Some(q) = s.quant {
        for &i in &train {
            let a = learned.predict_quantized(&q.features[i], q.max_abs);
            q_ok += usize::from(a == s.y[i]);
            disagree += usize::from(a != learned.predict_float(&s.x[i]));
        }
    }
    let n = train.len().max(1) as f64;
    learned.report = Report {
        nodes: learned.nodes.len(),
        stop,
        node_info: learned.nodes.iter().map(|n| n.info.clone()).collect(),
        pruned,
        validation_rows: val.len(),
        relabelled,
        edited,
        validation_accuracy,
        float_train_accuracy: float_ok as f64 / n,
        quantized_train_accuracy: s.quant.map(|_| q_ok as f64 / n),
        float_quantized_disagreements: disagree,
        changed_by_quantization: learned.nodes.iter().map(|n| n.info.changed_by_quantization).sum(),
        lp,
        positive: match shape {
            Shape::Hsi { positive, .. } => Some(positive),
            Shape::Ndl => None,
        },
        candidates: Vec::new(),
        seconds: start.elapsed().as_secs_f64(),
    };
    Ok(learned)
}

/// Checks the validation fraction, that an `Hsi` shape has two classes and a positive class 0
/// or 1, and that rows, labels and classes match.
fn check(s: &Sample<'_>, shape: Shape, p: &Params) -> Result<(), TrainError> {
    if !(0.0..1.0).contains(&p.validation) {
        return Err(TrainError::InvalidOption(format!(
            "validation fraction {} is not in [0, 1)",
            p.validation
        )));
    }
    if let Shape::Hsi { positive, .. } = shape {
        if s.n_classes != 2 || positive > 1 {
            return Err(TrainError::InvalidOption(format!(
                "hsi needs two classes and a positive class 0 or 1 (got {} classes, positive {positive})",
                s.n_classes
            )));
        }
    }
    let d = s.x.first().map_or(0, Vec::len);
    if s.x.iter().any(|r| r.len() != d) || s.x.len() != s.y.len() || s.y.iter().any(|&c| c >= s.n_classes) {
        return Err(TrainError::InvalidOption("sample rows, labels and classes do not match".into()));
    }
    Ok(())
}

/// The training and held-out rows, each sorted: per class, a seeded shuffle and the first
/// `validation` share held out (none at 0).
fn validation_split(s: &Sample<'_>, validation: f64, rng: &mut Rng) -> (Vec<usize>, Vec<usize>) {
    let all: Vec<usize> = (0..s.x.len()).collect();
    if validation <= 0.0 {
        return (all, Vec::new());
    }
    let mut split_rng = rng.fork(1);
    let (mut train, mut val) = (Vec::new(), Vec::new());
    for c in 0..s.n_classes {
        let mut rows: Vec<usize> = all.iter().copied().filter(|&i| s.y[i] == c).collect();
        split_rng.shuffle(&mut rows);
        let k = (rows.len() as f64 * validation).round() as usize;
        val.extend_from_slice(&rows[..k]);
        train.extend_from_slice(&rows[k..]);
    }
    train.sort_unstable();
    val.sort_unstable();
    (train, val)
}

/// Validation pruning: the number of entries to keep, the one with the most held-out rows `val`
/// right (the shortest on ties; entry `r` and on give way to `defaults[r]`), and that count.
fn best_prefix(s: &Sample<'_>, nodes: &[Node], defaults: &[usize], val: &[usize]) -> (usize, usize) {
    let fires = |i: usize| -> usize {
        nodes
            .iter()
            .position(|n| match s.quant {
                Some(q) => node_covers_int(n, &q.features[i], q.max_abs),
                None => n.halfspace.covers(&s.x[i]),
            })
            .unwrap_or(nodes.len())
    };
    let first: Vec<usize> = val.iter().map(|&i| fires(i)).collect();
    let k = nodes.len();
    let acc = |r: usize| {
        val.iter()
            .zip(&first)
            .filter(|(&i, &j)| if j < r { nodes[j].class == s.y[i] } else { defaults[r] == s.y[i] })
            .count()
    };
    let (mut best_r, mut best) = (k, acc(k));
    for r in (0..k).rev() {
        let a = acc(r);
        if a >= best {
            (best_r, best) = (r, a);
        }
    }
    (best_r, best)
}

/// The shares of other classes an entry may cover to try (none: the exact method).
fn shares(p: &Params) -> Vec<f64> {
    match p.tolerance.unwrap_or_default() {
        Tolerance::Exact => Vec::new(),
        Tolerance::Share(t) if t <= 0.0 => Vec::new(),
        Tolerance::Share(t) => vec![t],
        Tolerance::HeldOut => SHARES.to_vec(),
    }
}

/// Whether a list learned with `p` holds rows out (to prune, or to stop tolerant entries), so
/// that it reports its held-out accuracy.
fn holds_out(p: &Params) -> bool {
    p.validation > 0.0 || !shares(p).is_empty()
}

/// A report with nothing learned yet but the LP work (`learn_with` fills it in).
fn empty_report(lp: LpStats) -> Report {
    Report {
        nodes: 0,
        stop: Stop::Exhausted,
        node_info: Vec::new(),
        pruned: 0,
        validation_rows: 0,
        relabelled: 0,
        edited: 0,
        validation_accuracy: None,
        float_train_accuracy: 0.0,
        quantized_train_accuracy: None,
        float_quantized_disagreements: 0,
        changed_by_quantization: 0,
        lp,
        positive: None,
        candidates: Vec::new(),
        seconds: 0.0,
    }
}

/// Learns an `hsi` shape; with `positive == None` tries both classes as positive and keeps the
/// list with fewer entries, then fewer training errors, then positive class 1; lists that hold
/// rows out (pruned, or of tolerant entries) are built to the end and compared by their held-out
/// accuracy first: on noisy data the shorter list is not the one that generalises.
///
/// Without validation pruning the two lists are built side by side (two threads), and the first
/// to finish, with `k` entries, stops the other at `k + 1`: that one would be longer and lose.
/// The result is the one building both lists completely gives; the cost is the shorter list
/// plus at most `k + 1` entries of the other, instead of the whole longer list, which on a class
/// whose region is not convex can be tens of entries of expensive searches.
///
/// # Errors
/// As [`learn`].
pub fn learn_hsi(s: &Sample<'_>, p: &Params, seed: u64) -> Result<Learned, TrainError> {
    learn_hsi_with(s, p, seed, &|_, _| {}, &Edits::default())
}

pub(super) fn learn_hsi_with(
    s: &Sample<'_>,
    p: &Params,
    seed: u64,
    progress: &(dyn Fn(u64, u64) + Sync),
    edits: &Edits,
) -> Result<Learned, TrainError> {
    let run = |positive, limit: &AtomicUsize| {
        learn_with(s, Shape::Hsi { shape: p.hsi_shape, positive }, p, seed, progress, limit, edits)
    };
    let key = |l: &Learned| {
        (
            l.report.validation_accuracy.map_or(0, |a| -(a * 1e9) as i64),
            l.nodes.len(),
            -(l.report.quantized_train_accuracy.unwrap_or(l.report.float_train_accuracy) * 1e9) as i64,
        )
    };
    let (a, b) = match p.positive {
        Some(c) => return run(c, &AtomicUsize::new(usize::MAX)),
        None if holds_out(p) => {
            // Pruning shortens each list after building, and held-out accuracy decides:
            // compare the finished lists.
            let unlimited = AtomicUsize::new(usize::MAX);
            (run(1, &unlimited)?, run(0, &unlimited)?)
        }
        None => {
            // limits[c]: the most entries the list with positive class c may still build.
            let limits = [AtomicUsize::new(usize::MAX), AtomicUsize::new(usize::MAX)];
            let side = |c: usize| {
                let l = run(c, &limits[c])?;
                if l.nodes.len() < limits[c].load(Ordering::SeqCst) {
                    // Finished on its own: the other may build one entry more, enough to prove
                    // it is longer (an abandoned list has more entries, so it loses below).
                    limits[1 - c].fetch_min(l.nodes.len() + 1, Ordering::SeqCst);
                }
                Ok::<_, TrainError>(l)
            };
            std::thread::scope(|scope| {
                let other = scope.spawn(|| side(0));
                let a = side(1);
                let b = other.join().expect("hsi: a training thread panicked");
                Ok::<_, TrainError>((a?, b?))
            })?
        }
    };
    Ok(if key(&b) < key(&a) { b } else { a })
}

//! The synthetic targets of Marchand & Golea (1993), section 6, seeded: shared by the
//! reproduction example (`reproduce_ndl`), the training-speed example (`train_speed`), the
//! decision-list benchmark and tests, which include this file with `#[path = ...] mod`. Paper
//! data generators are not part of the `ltu` library.
//!
//! Every generator returns rows and classes (`1` = positive).

#![allow(dead_code)] // each includer uses part of it

use ltu::rng::Rng;

/// A random unit vector in `R^n` (normal components, normalised).
pub fn unit_vector(n: usize, rng: &mut Rng) -> Vec<f64> {
    loop {
        let v: Vec<f64> = (0..n).map(|_| rng.normal()).collect();
        let norm = v.iter().map(|a| a * a).sum::<f64>().sqrt();
        if norm > 1e-9 {
            return v.into_iter().map(|a| a / norm).collect();
        }
    }
}

fn uniform(n: usize, rng: &mut Rng) -> Vec<f64> {
    (0..n).map(|_| 2.0 * rng.f64() - 1.0).collect()
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Section 6.1, figure 4: two parallel hyperplanes `0.5` apart, randomly oriented and centred at
/// the origin; the positives lie between them. `m` examples uniform on `[-1, 1]^n`.
pub fn parallel_halfspaces(n: usize, m: usize, rng: &mut Rng) -> (Vec<Vec<f64>>, Vec<usize>) {
    let u = unit_vector(n, rng);
    let x: Vec<Vec<f64>> = (0..m).map(|_| uniform(n, rng)).collect();
    let y = x.iter().map(|p| usize::from(dot(&u, p).abs() < 0.25)).collect();
    (x, y)
}

/// The target of [`orthogonal_intersection`]: two orthonormal normals.
pub fn orthogonal_normals(n: usize, rng: &mut Rng) -> (Vec<f64>, Vec<f64>) {
    let a = unit_vector(n, rng);
    loop {
        let b = unit_vector(n, rng);
        let c = dot(&a, &b);
        let r: Vec<f64> = b.iter().zip(&a).map(|(b, a)| b - c * a).collect();
        let norm = dot(&r, &r).sqrt();
        if norm > 1e-6 {
            return (a, r.into_iter().map(|v| v / norm).collect());
        }
    }
}

/// Section 6.2, table 1: the intersection of two orthogonal halfspaces through the origin
/// (positive measure 1/4); `pos` positive and `neg` negative examples drawn uniformly from their
/// regions of `[-1, 1]^n` (rejection sampling).
pub fn orthogonal_intersection(
    normals: &(Vec<f64>, Vec<f64>),
    pos: usize,
    neg: usize,
    rng: &mut Rng,
) -> (Vec<Vec<f64>>, Vec<usize>) {
    let n = normals.0.len();
    let (mut x, mut y) = (Vec::with_capacity(pos + neg), Vec::with_capacity(pos + neg));
    let (mut p, mut q) = (0, 0);
    while p < pos || q < neg {
        let v = uniform(n, rng);
        let label = dot(&normals.0, &v) > 0.0 && dot(&normals.1, &v) > 0.0;
        if label && p < pos {
            p += 1;
        } else if !label && q < neg {
            q += 1;
        } else {
            continue;
        }
        x.push(v);
        y.push(usize::from(label));
    }
    (x, y)
}

/// Section 6.2, table 2: mirror symmetry on `{-1, +1}^n` (`n` even): positive iff the second
/// half is the mirror image of the first. `pos` symmetric strings (uniform first half) and `neg`
/// uniform non-symmetric strings, shuffled together.
pub fn mirror_symmetry(n: usize, pos: usize, neg: usize, rng: &mut Rng) -> (Vec<Vec<f64>>, Vec<usize>) {
    let bit = |rng: &mut Rng| if rng.below(2) == 0 { -1.0 } else { 1.0 };
    let mut out: Vec<(Vec<f64>, usize)> = Vec::with_capacity(pos + neg);
    for _ in 0..pos {
        let mut v = vec![0.0; n];
        for i in 0..n / 2 {
            v[i] = bit(rng);
            v[n - 1 - i] = v[i];
        }
        out.push((v, 1));
    }
    while out.len() < pos + neg {
        let v: Vec<f64> = (0..n).map(|_| bit(rng)).collect();
        if (0..n / 2).any(|i| v[i] != v[n - 1 - i]) {
            out.push((v, 0));
        }
    }
    rng.shuffle(&mut out);
    out.into_iter().unzip()
}

/// One point of figure 4 (section 6.1): cluster sizes found in equal time.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Figure4Point {
    /// Input dimension.
    pub n: usize,
    /// Mean number of negative examples per training set.
    pub negatives: f64,
    /// Tests run (targets × runs).
    pub tests: usize,
    /// Mean and standard deviation of the cluster found by `Find_large_neg_subset`.
    pub find_large: (f64, f64),
    /// The same for `mult_IncLP` given the same time.
    pub mult_inclp: (f64, f64),
    /// The same for the pocket algorithm with ratchet and rules given the same time.
    pub pocket: (f64, f64),
    /// Mean seconds `Find_large_neg_subset` took (the time given to the others).
    pub seconds: f64,
}

fn mean_sd(v: &[f64]) -> (f64, f64) {
    let n = v.len().max(1) as f64;
    let m = v.iter().sum::<f64>() / n;
    (m, (v.iter().map(|a| (a - m) * (a - m)).sum::<f64>() / n).sqrt())
}

/// Runs the figure 4 comparison at one training-set size: `targets` random pairs of parallel
/// hyperplanes 0.5 apart in `[-1, 1]^n`, `runs` training sets of `m` examples each. For each
/// set, `Find_large_neg_subset` runs first and its wall time is then given to `mult_IncLP` and to
/// the pocket algorithm (so the two baselines' figures depend on the machine's speed).
pub fn figure4_point(n: usize, m: usize, targets: usize, runs: usize, seed: u64) -> Figure4Point {
    use ltu::learners::decision_list::inclp::{
        find_large_neg_subset, mult_inc_lp, pocket_ratchet, Budget, LpStats,
    };
    use std::time::{Duration, Instant};
    let mut rng = Rng::new(seed);
    let (mut fl, mut ml, mut pk, mut negs, mut secs) = (vec![], vec![], vec![], vec![], vec![]);
    for _ in 0..targets {
        let stream = rng.next_u64();
        let mut target_rng = rng.fork(stream);
        let u = unit_vector(n, &mut target_rng);
        for _ in 0..runs {
            let x: Vec<Vec<f64>> = (0..m).map(|_| uniform(n, &mut rng)).collect();
            // The searches get their own stream: the baselines run to a wall-clock deadline and
            // draw a time-dependent amount of randomness, which must not reach the next set.
            let stream = rng.next_u64();
            let mut rng = rng.fork(stream);
            let neg: Vec<usize> = (0..m).filter(|&i| dot(&u, &x[i]).abs() >= 0.25).collect();
            let pos: Vec<usize> = (0..m).filter(|&i| dot(&u, &x[i]).abs() < 0.25).collect();
            let mut stats = LpStats::default();
            let t = Instant::now();
            let c = find_large_neg_subset(&x, &neg, &pos, Budget::default(), &mut rng, &mut stats);
            let spent = t.elapsed().max(Duration::from_micros(100));
            let deadline =
                |t: Instant| Budget { passes: Some(usize::MAX), patience: None, deadline: Some(t + spent) };
            let mc = mult_inc_lp(&x, &neg, &pos, deadline(Instant::now()), &mut rng, &mut stats);
            let pc = pocket_ratchet(&x, &neg, &pos, deadline(Instant::now()), &mut rng);
            fl.push(c.covered.len() as f64);
            ml.push(mc.covered.len() as f64);
            pk.push(pc.covered.len() as f64);
            negs.push(neg.len() as f64);
            secs.push(spent.as_secs_f64());
        }
    }
    Figure4Point {
        n,
        negatives: mean_sd(&negs).0,
        tests: fl.len(),
        find_large: mean_sd(&fl),
        mult_inclp: mean_sd(&ml),
        pocket: mean_sd(&pk),
        seconds: mean_sd(&secs).0,
    }
}

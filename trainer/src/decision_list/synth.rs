//! The paper's synthetic targets (section 6), seeded: used by the reproduction example, the
//! benchmark and the tests. Every generator returns rows and classes (`1` = positive).

use crate::rng::Rng;

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

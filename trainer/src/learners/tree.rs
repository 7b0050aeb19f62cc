//! Pieces the tree learners share: class entropy, the majority class of a count vector and
//! C4.5's pessimistic error estimate.
//!
//! Each function is the single implementation its callers use; the arithmetic is fixed (order of
//! operations, log base, tie rule) because the learned models depend on it bit for bit.

/// The unit of an entropy: which logarithm [`entropy`] takes.
///
/// The two differ by the constant factor `ln 2`, but a learner that compares an entropy with a
/// fixed tolerance, or a sum of entropies with another, can choose differently in each unit
/// through rounding, so every caller keeps the unit it was tuned with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EntropyUnit {
    /// Natural logarithm.
    Nats,
    /// Base-2 logarithm.
    Bits,
}

/// Quinlan's `I`: the entropy of the class distribution given by `counts`, in `unit`.
///
/// Zero counts contribute nothing; all-zero (or no) counts have entropy 0. The terms
/// `−p·log p`, `p = c/n`, are summed in class order.
pub(crate) fn entropy(counts: &[u64], unit: EntropyUnit) -> f64 {
    let n: u64 = counts.iter().sum();
    if n == 0 {
        return 0.0;
    }
    let n = n as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = c as f64 / n;
            match unit {
                EntropyUnit::Nats => -p * p.ln(),
                EntropyUnit::Bits => -p * p.log2(),
            }
        })
        .sum()
}

/// Class counts of `rows`, whose classes are `y[r]`, over `n_classes` classes.
pub(crate) fn class_counts(y: &[usize], rows: impl IntoIterator<Item = usize>, n_classes: usize) -> Vec<u64> {
    let mut counts = vec![0u64; n_classes];
    for r in rows {
        counts[y[r]] += 1;
    }
    counts
}

/// The majority class: the index of the largest count, ties to the lowest index. All-zero
/// counts give 0, as does an empty slice.
pub(crate) fn majority(counts: &[u64]) -> usize {
    let mut best = 0;
    for (i, &c) in counts.iter().enumerate() {
        if c > counts[best] {
            best = i;
        }
    }
    best
}

/// [`majority`] of counts with at least one instance; `fallback` (typically the parent's majority)
/// when every count is zero.
pub(crate) fn majority_or(counts: &[u64], fallback: usize) -> usize {
    if counts.iter().all(|&c| c == 0) {
        fallback
    } else {
        majority(counts)
    }
}

/// C4.5's pessimistic error count for `e` errors among `n` instances: `n` times the upper limit
/// of the one-sided confidence interval of the error rate, `z` standard deviations wide (the
/// Wilson score interval with continuity correction, as in C4.5's `AddErrs`; for `e = 0`,
/// `n·(1 − cf^(1/n))`, `cf` being the normal tail beyond `z`).
///
/// The perceptron tree, oblique tree and FRINGE learners prune with it: a subtree becomes a leaf
/// when the leaf's estimate is not above the sum of its leaves' estimates.
pub fn pessimistic_errors(e: f64, n: f64, z: f64) -> f64 {
    if n <= 0.0 {
        return 0.0;
    }
    if e < 1e-9 {
        return n * (1.0 - normal_tail(z).powf(1.0 / n));
    }
    if e + 0.5 >= n {
        return e + 0.67 * (n - e);
    }
    let f = (e + 0.5) / n;
    let z2 = z * z;
    let r = (f + z2 / (2.0 * n) + z * (f / n - f * f / n + z2 / (4.0 * n * n)).sqrt()) / (1.0 + z2 / n);
    r * n
}

/// `P(Z > z)` for a standard normal `Z` (Abramowitz & Stegun 26.2.17, error < 7.5e-8).
fn normal_tail(z: f64) -> f64 {
    if z < 0.0 {
        return 1.0 - normal_tail(-z);
    }
    let t = 1.0 / (1.0 + 0.231_641_9 * z);
    let poly = t
        * (0.319_381_530
            + t * (-0.356_563_782 + t * (1.781_477_937 + t * (-1.821_255_978 + t * 1.330_274_429))));
    (-z * z / 2.0).exp() / (2.0 * std::f64::consts::PI).sqrt() * poly
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entropy_of_known_counts() {
        // A fair coin is one bit, ln 2 nats; a pure node is zero; empty counts are zero.
        assert_eq!(entropy(&[5, 5], EntropyUnit::Bits), 1.0);
        assert!((entropy(&[5, 5], EntropyUnit::Nats) - std::f64::consts::LN_2).abs() < 1e-15);
        assert_eq!(entropy(&[0, 7, 0], EntropyUnit::Bits), 0.0);
        assert_eq!(entropy(&[0, 0], EntropyUnit::Nats), 0.0);
        assert_eq!(entropy(&[], EntropyUnit::Bits), 0.0);
        // Four equally likely classes are two bits; (1/2, 1/4, 1/4) is 1.5 bits.
        assert_eq!(entropy(&[3, 3, 3, 3], EntropyUnit::Bits), 2.0);
        assert_eq!(entropy(&[2, 1, 1], EntropyUnit::Bits), 1.5);
    }

    #[test]
    fn majority_ties_go_to_the_lowest_class() {
        assert_eq!(majority(&[1, 3, 3, 2]), 1);
        assert_eq!(majority(&[4, 4]), 0);
        assert_eq!(majority(&[0, 0, 0]), 0);
        assert_eq!(majority(&[]), 0);
        assert_eq!(majority(&[0, 0, 1]), 2);
        assert_eq!(majority_or(&[0, 0, 0], 2), 2);
        assert_eq!(majority_or(&[0, 1, 1], 0), 1);
    }

    #[test]
    fn class_counts_over_rows() {
        let y = [0, 2, 2, 1, 2];
        assert_eq!(class_counts(&y, [1, 2, 3], 3), vec![0, 1, 2]);
        assert_eq!(class_counts(&y, [], 3), vec![0, 0, 0]);
    }

    #[test]
    fn pessimistic_error_matches_worked_values() {
        // C4.5's default confidence 25% is z = 0.6745. Quinlan's book (section 4.2) gives
        // U_25%(0, 6) = 0.206, so a leaf of six correct instances counts 1.24 errors, and
        // U_25%(1, 16) = 0.157 (2.5 errors). With one error the interval here uses C4.5's
        // continuity correction, f = (e + 0.5)/n = 0.09375, which gives 0.1547 (2.476 errors).
        let z = 0.6745;
        let zero = pessimistic_errors(0.0, 6.0, z);
        assert!((zero / 6.0 - 0.206).abs() < 1e-3, "{zero}");
        let one = pessimistic_errors(1.0, 16.0, z);
        assert!((one - 2.4757).abs() < 1e-4, "{one}");
        assert!((one / 16.0 - 0.157).abs() < 3e-3, "{one}");
        // Closed forms: the tail term and the saturated case.
        assert_eq!(pessimistic_errors(0.0, 0.0, z), 0.0);
        assert_eq!(pessimistic_errors(3.0, 3.0, z), 3.0);
        assert!((normal_tail(0.0) - 0.5).abs() < 1e-7);
        assert!((normal_tail(0.6745) - 0.25).abs() < 1e-4);
        // More errors, or more confidence, never lower the estimate.
        assert!(pessimistic_errors(2.0, 16.0, z) > one);
        assert!(pessimistic_errors(1.0, 16.0, 1.0) > one);
    }
}

//! The split test (section 4.2.2): which attribute a decision node replacing an LTU tests.

use super::space::FeatureSpace;
use super::{CategoricalTests, Ltu, Test, LOOKAHEAD_EPOCHS};
use crate::learners::tree::{entropy, EntropyUnit};
use crate::model::InputKind;

impl Ltu {
    /// Section 4.2.2: the test with the lowest expected entropy `E` among the eligible inputs
    /// (categorical: one branch per value, unknowns as their own part; numeric: the best bin
    /// boundary). `None` if no test separates the instances seen into two non-empty parts.
    pub(super) fn best_test(&self, space: &FeatureSpace, tests: CategoricalTests) -> Option<Test> {
        let mut best: Option<(f64, Test)> = None;
        self.scan_tests(space, tests, |e, t, _| {
            if best.is_none_or(|(b, _)| e < b - 1e-12) {
                best = Some((e, t));
            }
        });
        best.map(|(_, t)| t)
    }

    /// [`SplitChoice::Lookahead`]: each eligible input's best test by entropy, then the one with
    /// the fewest [`Ltu::lookahead_errors`] (the lower entropy on ties). Below 16 kept instances,
    /// [`Ltu::best_test`].
    pub(super) fn best_test_lookahead(&self, space: &FeatureSpace, tests: CategoricalTests) -> Option<Test> {
        if self.recent.len() < 16 {
            return self.best_test(space, tests);
        }
        // Per input (scan order), its best test by entropy.
        let mut per_input: Vec<(usize, f64, Test)> = Vec::new();
        self.scan_tests(space, tests, |e, t, i| match per_input.last_mut() {
            Some(last) if last.0 == i => {
                if e < last.1 - 1e-12 {
                    *last = (i, e, t);
                }
            }
            _ => per_input.push((i, e, t)),
        });
        let mut best: Option<(usize, f64, Test)> = None;
        for (_, e, t) in per_input {
            let errors = self.lookahead_errors(space, t);
            if best.is_none_or(|(b, be, _)| errors < b || (errors == b && e < be - 1e-12)) {
                best = Some((errors, e, t));
            }
        }
        best.map(|(_, _, t)| t)
    }

    /// Errors of a short perceptron run (linear machine for more than two classes) on each
    /// branch of `test` over the kept instances, summed: how well the LTUs the split would
    /// create could fit. A categorical test's own features leave the branches' units, as in
    /// [`PerceptronTree::split`].
    fn lookahead_errors(&self, space: &FeatureSpace, test: Test) -> usize {
        let attr = match test {
            Test::Categorical { attr } | Test::Value { attr, .. } | Test::Threshold { attr, .. } => attr,
        };
        let Some(ai) = self.attrs.iter().position(|&a| a as usize == attr) else { return usize::MAX };
        let keep: Vec<usize> = (0..self.active.len())
            .filter(|&j| {
                !matches!(test, Test::Categorical { .. })
                    || space.feature_attr[self.active[j] as usize] != Some(attr)
            })
            .collect();
        let branch = |slots: &[u16]| -> usize {
            let s = usize::from(slots[ai]);
            match test {
                Test::Categorical { .. } => s,
                Test::Value { value, .. } => usize::from(s as i32 != value),
                Test::Threshold { threshold, .. } => {
                    usize::from(space.edges[attr].get(s).copied().unwrap_or(i32::MAX) > threshold)
                }
            }
        };
        let mut parts: Vec<Vec<usize>> = Vec::new();
        for (i, (_, slots, _)) in self.recent.iter().enumerate() {
            let b = branch(slots);
            if parts.len() <= b {
                parts.resize(b + 1, Vec::new());
            }
            parts[b].push(i);
        }
        parts.iter().map(|p| self.perceptron_errors(p, &keep)).sum()
    }

    /// Fewest mistakes in one epoch of up to [`LOOKAHEAD_EPOCHS`] perceptron epochs over kept
    /// instances `rows`, on the active features `keep` and a bias.
    fn perceptron_errors(&self, rows: &[usize], keep: &[usize]) -> usize {
        let dim = keep.len() + 1;
        let mut w = vec![0i64; self.n_rows * dim];
        let x = |f: &[i32], j: usize| if j < keep.len() { i64::from(f[keep[j]]) } else { 1 };
        let score = |w: &[i64], f: &[i32]| (0..dim).map(|j| w[j] * x(f, j)).sum::<i64>();
        let mut best = rows.len();
        for _ in 0..LOOKAHEAD_EPOCHS {
            let mut errors = 0;
            for &r in rows {
                let (f, _, y) = &self.recent[r];
                if self.n_rows == 1 {
                    let positive = score(&w, f) > 0;
                    if positive != (*y == 1) {
                        errors += 1;
                        let sign = if *y == 1 { 1 } else { -1 };
                        for (j, wj) in w.iter_mut().enumerate() {
                            *wj += sign * x(f, j);
                        }
                    }
                } else {
                    let mut top = (i64::MIN, 0);
                    for o in 0..self.n_rows {
                        let s = score(&w[o * dim..(o + 1) * dim], f);
                        if s > top.0 {
                            top = (s, o);
                        }
                    }
                    if top.1 != *y {
                        errors += 1;
                        for j in 0..dim {
                            let v = x(f, j);
                            w[*y * dim + j] += v;
                            w[top.1 * dim + j] -= v;
                        }
                    }
                }
            }
            best = best.min(errors);
            if errors == 0 {
                break;
            }
        }
        best
    }

    /// Calls `consider(E, test, input index in attrs)` for every test section 4.2.2 weighs.
    fn scan_tests(
        &self,
        space: &FeatureSpace,
        tests: CategoricalTests,
        mut consider: impl FnMut(f64, Test, usize),
    ) {
        let k = self.class_counts.len();
        let total = self.seen as f64;
        let mut left = vec![0u64; k];
        let mut right = vec![0u64; k];
        let mut slot = vec![0u64; k];
        for (i, &a) in self.attrs.iter().enumerate() {
            let a = a as usize;
            let (start, end) = (self.offsets[i] as usize, self.offsets[i + 1] as usize);
            let counts = &self.counts[start * k..end * k];
            let slot_n = |s: usize| counts[s * k..(s + 1) * k].iter().map(|&c| u64::from(c)).sum::<u64>();
            let nonempty = (0..end - start).filter(|&s| slot_n(s) > 0).count();
            if nonempty < 2 {
                continue;
            }
            let mut consider = |e: f64, t: Test| consider(e, t, i);
            match space.inputs[a].kind {
                InputKind::Categorical { n_values } if tests == CategoricalTests::Value => {
                    let all: Vec<u64> = (0..k)
                        .map(|r| (0..end - start).map(|s| u64::from(counts[s * k + r])).sum())
                        .collect();
                    for v in 0..usize::from(n_values) {
                        for (r, (l, o)) in left.iter_mut().zip(right.iter_mut()).enumerate() {
                            *l = u64::from(counts[v * k + r]);
                            *o = all[r] - *l;
                        }
                        let (nl, nr) = (left.iter().sum::<u64>(), right.iter().sum::<u64>());
                        if nl == 0 || nr == 0 {
                            continue;
                        }
                        let e = (nl as f64 * entropy(&left, EntropyUnit::Nats)
                            + nr as f64 * entropy(&right, EntropyUnit::Nats))
                            / total;
                        consider(e, Test::Value { attr: a, value: v as i32 });
                    }
                }
                InputKind::Categorical { .. } => {
                    let mut e = 0.0;
                    for s in 0..end - start {
                        for (d, &c) in slot.iter_mut().zip(&counts[s * k..(s + 1) * k]) {
                            *d = u64::from(c);
                        }
                        e += slot.iter().sum::<u64>() as f64 / total * entropy(&slot, EntropyUnit::Nats);
                    }
                    consider(e, Test::Categorical { attr: a });
                }
                InputKind::Numeric { .. } => {
                    left.iter_mut().for_each(|c| *c = 0);
                    for (r, c) in right.iter_mut().enumerate() {
                        *c = (0..end - start).map(|s| u64::from(counts[s * k + r])).sum();
                    }
                    for (b, &edge) in space.edges[a].iter().enumerate() {
                        for r in 0..k {
                            let c = u64::from(counts[b * k + r]);
                            left[r] += c;
                            right[r] -= c;
                        }
                        let (nl, nr) = (left.iter().sum::<u64>(), right.iter().sum::<u64>());
                        if nl == 0 || nr == 0 {
                            continue;
                        }
                        let e = (nl as f64 * entropy(&left, EntropyUnit::Nats)
                            + nr as f64 * entropy(&right, EntropyUnit::Nats))
                            / total;
                        consider(e, Test::Threshold { attr: a, threshold: edge });
                    }
                }
            }
        }
    }
}

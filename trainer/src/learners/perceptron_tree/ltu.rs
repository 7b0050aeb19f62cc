//! An LTU node: its weights, the absolute error-correction rule, the pocket and the counts
//! the split test reads.

use super::space::FeatureSpace;
use super::{Decision, LogBase, Ltu, Weight, LOOKAHEAD_ROWS};
use crate::model::Unit;

impl Ltu {
    pub(super) fn new(
        space: &FeatureSpace,
        n_classes: usize,
        log_base: LogBase,
        depth: usize,
        active: Vec<u32>,
        attrs: Vec<u32>,
        w: Vec<Weight>,
    ) -> Self {
        let n_rows = if n_classes > 2 { n_classes } else { 1 };
        debug_assert_eq!(w.len(), n_rows * (active.len() + 1));
        let mut offsets = Vec::with_capacity(attrs.len() + 1);
        let mut total = 0u32;
        for &a in &attrs {
            offsets.push(total);
            total += space.n_slots(a as usize) as u32;
        }
        offsets.push(total);
        Ltu {
            c_limit: log_base.floor_log(active.len() + 1),
            n_rows,
            lo: w.clone(),
            hi: w.clone(),
            pocket: w.clone(),
            w,
            constant: false,
            active,
            c: 0,
            adjustments: 0,
            seen: 0,
            class_counts: vec![0; n_classes],
            attrs,
            offsets,
            counts: vec![0; total as usize * n_classes],
            pocket_run: 0,
            run: 0,
            pocket_current: true,
            depth,
            recent: Vec::new(),
            recent_next: 0,
        }
    }

    /// A trained-out LTU with the weights a decision node replaced (for pruning).
    pub(super) fn frozen(space: &FeatureSpace, n_classes: usize, log_base: LogBase, d: &Decision) -> Self {
        let mut l = Ltu::new(
            space,
            n_classes,
            log_base,
            d.depth,
            d.prior_active.clone(),
            Vec::new(),
            d.prior_w.clone(),
        );
        l.pocket_run = 0;
        if let Some(counts) = &d.prior_counts {
            l.class_counts.clone_from(counts);
        }
        l
    }

    /// Turns the unit into a constant predicting `class` (zero weights, bias only).
    pub(super) fn set_constant(&mut self, class: usize) {
        self.w.iter_mut().for_each(|w| *w = 0);
        let dim = self.active.len() + 1;
        if self.n_rows == 1 {
            self.w[dim - 1] = if class == 1 { 1 } else { -1 };
        } else {
            self.w[class * dim + dim - 1] = 1;
        }
        self.pocket.copy_from_slice(&self.w);
        self.constant = true;
    }

    /// Keeps instance `f` (active features), `label` and its slots for the lookahead.
    pub(super) fn remember(&mut self, f: &[i32], label: usize, slot: impl Fn(usize) -> usize) {
        let slots = self.attrs.iter().map(|&a| slot(a as usize) as u16);
        if self.recent.len() < LOOKAHEAD_ROWS {
            self.recent.push((f.to_vec(), slots.collect(), label));
        } else {
            // Full: overwrite the oldest in place (no allocation per instance).
            let (kept_f, kept_slots, kept_label) = &mut self.recent[self.recent_next];
            kept_f.copy_from_slice(f);
            kept_slots.iter_mut().zip(slots).for_each(|(k, s)| *k = s);
            *kept_label = label;
        }
        self.recent_next = (self.recent_next + 1) % LOOKAHEAD_ROWS;
    }

    /// Updates the split statistics of section 4.2.2.
    /// `slot(a)`: the count slot of the instance's value of input `a`.
    #[inline]
    pub(super) fn count(&mut self, label: usize, slot: impl Fn(usize) -> usize) {
        self.seen += 1;
        self.class_counts[label] += 1;
        let k = self.class_counts.len();
        for (&a, &off) in self.attrs.iter().zip(&self.offsets) {
            let c = &mut self.counts[(off as usize + slot(a as usize)) * k + label];
            *c = c.saturating_add(1);
        }
    }

    #[inline]
    fn row_score(w: &[Weight], f: &[i32]) -> Weight {
        let (bias, terms) = w.split_last().expect("bias");
        terms.iter().zip(f).fold(*bias, |acc, (&w, &v)| acc + w * Weight::from(v))
    }

    pub(super) fn predicting_weights(&self, pocket: bool) -> &[Weight] {
        if pocket && self.pocket_run > 0 {
            &self.pocket
        } else {
            &self.w
        }
    }

    /// The most frequent class of the training instances that reached this leaf (the lowest
    /// class on ties).
    pub(super) fn majority(&self) -> usize {
        crate::learners::tree::majority(&self.class_counts)
    }

    /// `feature(i)`: the instance's value of feature `i` of the space. `compact`: decide as the
    /// exported leaf does under [`Params::compact_leaves`] (see [`Ltu::only_class`] and
    /// [`drop_unseen_classes`]).
    pub(super) fn predict(&self, feature: impl Fn(usize) -> i32, pocket: bool, compact: bool) -> usize {
        if compact {
            if let Some(class) = self.only_class() {
                return class;
            }
        }
        let w = self.predicting_weights(pocket);
        let dim = self.active.len() + 1;
        let value = |j: usize| feature(self.active[j] as usize);
        if self.n_rows == 1 {
            let s = (0..dim - 1).fold(w[dim - 1], |acc, j| acc + w[j] * Weight::from(value(j)));
            return usize::from(s > 0);
        }
        let seen = self.class_counts.iter().filter(|&&n| n > 0).count();
        let masked = compact && seen >= 2 && seen < self.n_rows;
        let mut best: Option<(Weight, usize)> = None;
        for r in 0..self.n_rows {
            if masked && self.class_counts[r] == 0 {
                continue;
            }
            let row = &w[r * dim..(r + 1) * dim];
            let s = (0..dim - 1).fold(row[dim - 1], |acc, j| acc + row[j] * Weight::from(value(j)));
            if best.is_none_or(|(b, _)| s > b) {
                best = Some((s, r));
            }
        }
        best.map_or(0, |b| b.1)
    }

    /// The class of every training instance this LTU saw, if they were all of one class.
    pub(super) fn only_class(&self) -> Option<usize> {
        let mut seen = self.class_counts.iter().enumerate().filter(|(_, &n)| n > 0);
        match (seen.next(), seen.next()) {
            (Some((class, _)), None) => Some(class),
            _ => None,
        }
    }

    /// Steps 4–6 on feature values `f`: `None` if the instance was classified correctly,
    /// otherwise adjusts `W` and returns whether some historical minimum or maximum changed.
    #[inline]
    pub(super) fn correct(&mut self, f: &[i32], label: usize, pocket: bool) -> Option<bool> {
        let dim = f.len() + 1;
        // |I|², θ included; only needed when correcting.
        let norm2 = || 1 + f.iter().map(|&v| Weight::from(v) * Weight::from(v)).sum::<Weight>();
        // (row, multiplier) adjustments: W_row ← W_row − k·I.
        let mut adj = [(0usize, 0 as Weight); 2];
        let n_adj;
        if self.n_rows == 1 {
            let y = Self::row_score(&self.w, f);
            if label == 1 && y > 0 || label == 0 && y < 0 {
                self.on_correct(pocket);
                return None;
            }
            // Step 5 (negative, y ≥ 0) or step 6 (positive, y ≤ 0).
            let q = y.div_euclid(norm2());
            let k = if label == 0 { q + 1 } else { q - 1 };
            adj[0] = (0, k);
            n_adj = 1;
        } else {
            let yi = Self::row_score(&self.w[label * dim..(label + 1) * dim], f);
            let mut worst = (Weight::MIN, label);
            for r in (0..self.n_rows).filter(|&r| r != label) {
                let s = Self::row_score(&self.w[r * dim..(r + 1) * dim], f);
                if s > worst.0 {
                    worst = (s, r);
                }
            }
            // Correct iff the true row wins strictly (no tie to resolve by row order).
            if worst.0 < yi {
                self.on_correct(pocket);
                return None;
            }
            let c = (worst.0 - yi).div_euclid(2 * norm2()) + 1;
            adj = [(label, -c), (worst.1, c)];
            n_adj = 2;
        }
        self.run = 0;
        self.pocket_current = false;
        self.adjustments += 1;
        let mut changed = false;
        for &(r, k) in &adj[..n_adj] {
            let range = r * dim..(r + 1) * dim;
            let rows =
                self.w[range.clone()].iter_mut().zip(&mut self.lo[range.clone()]).zip(&mut self.hi[range]);
            // Features, then the threshold feature θ = 1.
            for (((w, lo), hi), v) in rows.zip(f.iter().map(|&v| Weight::from(v)).chain([1])) {
                *w -= k * v;
                if *w < *lo {
                    *lo = *w;
                    changed = true;
                }
                if *w > *hi {
                    *hi = *w;
                    changed = true;
                }
            }
        }
        Some(changed)
    }

    #[inline]
    fn on_correct(&mut self, pocket: bool) {
        self.run += 1;
        if pocket && self.run > self.pocket_run {
            if !self.pocket_current {
                self.pocket.copy_from_slice(&self.w);
                self.pocket_current = true;
            }
            self.pocket_run = self.run;
        }
    }

    /// Corollary 1: more vectors visited (adjustments + the initial one) than bound (1).
    pub(super) fn revisited(&self) -> bool {
        let visited = u128::from(self.adjustments) + 1;
        let mut bound: u128 = 1;
        for (lo, hi) in self.lo.iter().zip(&self.hi) {
            bound = bound.saturating_mul((hi - lo + 1) as u128);
            if bound >= visited {
                return false;
            }
        }
        visited > bound
    }

    pub(super) fn to_unit(&self, remap: &[usize], n_classes: usize, pocket: bool) -> Unit {
        let w = self.predicting_weights(pocket);
        let dim = self.active.len() + 1;
        Unit {
            terms: self.active.iter().map(|&f| remap[f as usize]).collect(),
            rows: w.chunks(dim).map(<[Weight]>::to_vec).collect(),
            classes: if self.n_rows == 1 { vec![0, 1] } else { (0..n_classes).collect() },
        }
    }
}

//! Utgoff's incremental error-correction procedure (Table II): presenting an instance,
//! correcting the LTU it reaches and replacing an LTU that makes no progress by a decision node.

use super::space::{Encoded, FeatureSpace, Instance};
use super::{
    ltu_n_values, Decision, History, Ltu, NodeState, Order, Params, PerceptronTree, SplitChoice, SplitRule,
    Step, Test, TreeStats,
};
use crate::learners::tree::majority;
use crate::rng::Rng;

impl PerceptronTree {
    /// A tree of a single empty node over `space` for `n_classes` classes (labels
    /// `0..n_classes`), with the split, pocket and stopping options of `p`.
    pub fn new(space: FeatureSpace, n_classes: usize, p: &Params) -> Self {
        let n_classes = n_classes.max(1);
        let active: Vec<u32> = (0..space.features.len() as u32).collect();
        let attrs: Vec<u32> =
            (0..space.inputs.len() as u32).filter(|&a| space.n_slots(a as usize) > 1).collect();
        let rows = if n_classes > 2 { n_classes } else { 1 };
        let init = vec![0; rows * (active.len() + 1)];
        PerceptronTree {
            scratch: vec![0; space.features.len()],
            space,
            n_classes,
            split_rule: p.split_rule,
            categorical_tests: p.categorical_tests,
            split_choice: p.split_choice,
            log_base: p.log_base,
            pocket: p.pocket,
            min_split: p.min_split,
            max_depth: p.max_depth,
            compact_leaves: p.compact_leaves,
            constant_leaves: p.constant_leaves,
            feature_selection: p.feature_selection,
            nodes: vec![NodeState::Empty { depth: 0, active, attrs, init }],
            history: History::default(),
        }
    }

    /// The instance space.
    pub fn space(&self) -> &FeatureSpace {
        &self.space
    }

    /// Number of classes.
    pub fn n_classes(&self) -> usize {
        self.n_classes
    }

    /// Counters of what training did so far.
    pub fn history(&self) -> History {
        self.history
    }

    /// Presents one training instance (raw inputs `x`, class `label`) to the perceptron tree
    /// error correction procedure (Table II). Does not allocate unless the tree grows.
    ///
    /// # Panics
    /// If `x` is shorter than the number of inputs or `label >= n_classes`.
    pub fn update(&mut self, x: &[i32], label: usize) -> Step {
        assert!(
            x.len() >= self.space.inputs.len(),
            "instance has {} inputs, expected {}",
            x.len(),
            self.space.inputs.len()
        );
        self.present(Instance::Raw(x), label)
    }

    /// Presents an instance encoded by this tree's [`FeatureSpace::encode`]: the same step as
    /// [`PerceptronTree::update`] on its raw inputs (the resulting trees are identical), without
    /// binning or feature computation. Batch training ([`PerceptronTree::fit`],
    /// [`PerceptronTree::learn`]) encodes every row once and presents it this way. Does not
    /// allocate unless the tree grows.
    ///
    /// # Panics
    /// If `e` was not encoded for a space with this tree's numbers of inputs and features, or
    /// `label >= n_classes`.
    pub fn update_encoded(&mut self, e: &Encoded, label: usize) -> Step {
        assert!(
            e.raw.len() == self.space.inputs.len() && e.features.len() == self.space.features.len(),
            "instance encoded for another feature space"
        );
        self.present(Instance::Encoded(e), label)
    }

    /// Table II for one instance (inputs checked by the caller).
    pub(super) fn present(&mut self, inst: Instance<'_>, label: usize) -> Step {
        assert!(label < self.n_classes, "label {label} out of range 0..{}", self.n_classes);
        let x = inst.raw();
        self.history.instances += 1;
        let mut step = Step::default();
        // Steps 1–2: traverse decision nodes, growing a missing branch.
        let mut id = 0;
        loop {
            let next = self.nodes.len();
            let grown = match &mut self.nodes[id] {
                NodeState::Decision(d) => {
                    let (b, known) = d.branch(x);
                    if known {
                        d.seen[b] += 1;
                    }
                    match d.children[b] {
                        Some(c) => {
                            id = c;
                            continue;
                        }
                        None => {
                            d.children[b] = Some(next);
                            NodeState::Empty {
                                depth: d.depth + 1,
                                active: d.child_active.clone(),
                                attrs: d.child_attrs.clone(),
                                init: d.child_w.clone(),
                            }
                        }
                    }
                }
                NodeState::Empty { depth, active, attrs, init } => {
                    // Step 3: make it an LTU.
                    let (active, attrs, init) =
                        (std::mem::take(active), std::mem::take(attrs), std::mem::take(init));
                    let ltu =
                        Ltu::new(&self.space, self.n_classes, self.log_base, *depth, active, attrs, init);
                    self.nodes[id] = NodeState::Ltu(ltu);
                    continue;
                }
                NodeState::Ltu(_) => break,
            };
            id = next;
            self.nodes.push(grown);
            step.grew = true;
        }
        let NodeState::Ltu(ltu) = &mut self.nodes[id] else { unreachable!() };
        // Steps 4–6.
        let f = &mut self.scratch[..ltu.active.len()];
        let lookahead = self.split_choice == SplitChoice::Lookahead;
        match inst {
            Instance::Raw(x) => {
                ltu.count(label, |a| self.space.slot(a, x[a]));
                for (s, &j) in f.iter_mut().zip(&ltu.active) {
                    *s = self.space.features[j as usize].value(x);
                }
                if lookahead {
                    ltu.remember(f, label, |a| self.space.slot(a, x[a]));
                }
            }
            Instance::Encoded(e) => {
                ltu.count(label, |a| usize::from(e.slots[a]));
                for (s, &j) in f.iter_mut().zip(&ltu.active) {
                    *s = e.features[j as usize];
                }
                if lookahead {
                    ltu.remember(f, label, |a| usize::from(e.slots[a]));
                }
            }
        }
        let f = &*f;
        let outcome = ltu.correct(f, label, self.pocket);
        step.correct = outcome.is_none();
        let Some(range_changed) = outcome else { return step };
        step.adjusted = true;
        self.history.adjustments += 1;
        // Step 7.
        let no_progress = match self.split_rule {
            SplitRule::Progress => {
                ltu.c = if range_changed { 0 } else { ltu.c + 1 };
                ltu.c > ltu.c_limit
            }
            SplitRule::Corollary1 => ltu.revisited(),
        };
        if no_progress && ltu.depth < self.max_depth && ltu.seen >= self.min_split {
            let test = match self.split_choice {
                SplitChoice::Entropy => ltu.best_test(&self.space, self.categorical_tests),
                SplitChoice::Lookahead => ltu.best_test_lookahead(&self.space, self.categorical_tests),
            };
            if let Some(test) = test {
                self.split(id, test);
                step.split = true;
                let h = &mut self.history;
                if let Some(s) = h.split_at.get_mut(h.splits as usize) {
                    *s = h.instances;
                }
                h.splits += 1;
            } else {
                // No attribute separates anything here: wait for new evidence.
                ltu.c = 0;
            }
        }
        step
    }

    /// Replaces LTU `id` by a decision node with `test` and no branches (step 7).
    pub(super) fn split(&mut self, id: usize, test: Test) {
        let NodeState::Ltu(ltu) = &self.nodes[id] else { unreachable!() };
        let prior_w = if self.pocket && ltu.pocket_run > 0 { ltu.pocket.clone() } else { ltu.w.clone() };
        let (n_branches, fixed) = match test {
            Test::Categorical { attr } => (usize::from(ltu_n_values(&self.space, attr)), Some(attr)),
            Test::Value { .. } | Test::Threshold { .. } => (2, None),
        };
        let keep: Vec<bool> = ltu
            .active
            .iter()
            .map(|&f| fixed.is_none() || self.space.feature_attr[f as usize] != fixed)
            .collect();
        let child_active: Vec<u32> =
            ltu.active.iter().zip(&keep).filter(|(_, &k)| k).map(|(&f, _)| f).collect();
        let child_attrs: Vec<u32> =
            ltu.attrs.iter().copied().filter(|&a| Some(a as usize) != fixed).collect();
        let dim = ltu.active.len() + 1;
        let mut child_w = Vec::with_capacity(ltu.n_rows * (child_active.len() + 1));
        for r in 0..ltu.n_rows {
            let row = &prior_w[r * dim..(r + 1) * dim];
            for (j, &w) in row.iter().enumerate() {
                if j + 1 == dim || keep[j] {
                    child_w.push(if self.pocket { w } else { 0 });
                }
            }
        }
        // Branch populations from the counts the LTU kept.
        let mut seen = vec![0u64; n_branches];
        let k = self.n_classes;
        match test {
            Test::Categorical { attr } => {
                let i = ltu.attrs.iter().position(|&a| a as usize == attr).expect("eligible attribute");
                let base = ltu.offsets[i] as usize;
                for (v, s) in seen.iter_mut().enumerate() {
                    *s = ltu.counts[(base + v) * k..(base + v + 1) * k].iter().map(|&c| u64::from(c)).sum();
                }
            }
            Test::Value { attr, value } => {
                let i = ltu.attrs.iter().position(|&a| a as usize == attr).expect("eligible attribute");
                let base = ltu.offsets[i] as usize;
                for s in 0..self.space.n_slots(attr) {
                    let n: u64 =
                        ltu.counts[(base + s) * k..(base + s + 1) * k].iter().map(|&c| u64::from(c)).sum();
                    seen[usize::from(s as i32 != value)] += n;
                }
            }
            Test::Threshold { attr, threshold } => {
                let i = ltu.attrs.iter().position(|&a| a as usize == attr).expect("eligible attribute");
                let base = ltu.offsets[i] as usize;
                for (b, &e) in self.space.edges[attr].iter().chain([&i32::MAX]).enumerate() {
                    let n: u64 =
                        ltu.counts[(base + b) * k..(base + b + 1) * k].iter().map(|&c| u64::from(c)).sum();
                    seen[usize::from(e > threshold)] += n;
                }
            }
        }
        let decision = Decision {
            test,
            children: vec![None; n_branches],
            seen,
            fallback: majority(&ltu.class_counts),
            prior_active: ltu.active.clone(),
            prior_w,
            prior_counts: None,
            child_active,
            child_attrs,
            child_w,
            depth: ltu.depth,
        };
        self.nodes[id] = NodeState::Decision(decision);
    }

    /// The class the tree assigns to raw inputs `x`.
    ///
    /// # Panics
    /// If `x` is shorter than the number of inputs.
    pub fn predict(&self, x: &[i32]) -> usize {
        self.predict_from(0, Instance::Raw(x))
    }

    /// The class the tree assigns to an instance encoded by this tree's
    /// [`FeatureSpace::encode`] (the same as [`PerceptronTree::predict`] on its raw inputs).
    ///
    /// # Panics
    /// If `e` was encoded for a space with fewer inputs or features.
    pub fn predict_encoded(&self, e: &Encoded) -> usize {
        self.predict_from(0, Instance::Encoded(e))
    }

    pub(super) fn predict_from(&self, mut id: usize, inst: Instance<'_>) -> usize {
        let x = inst.raw();
        loop {
            match &self.nodes[id] {
                NodeState::Empty { .. } => return 0,
                NodeState::Ltu(l) if self.constant_leaves => return l.majority(),
                NodeState::Ltu(l) => {
                    return match inst {
                        Instance::Raw(x) => {
                            l.predict(|i| self.space.features[i].value(x), self.pocket, self.compact_leaves)
                        }
                        Instance::Encoded(e) => {
                            l.predict(|i| e.features[i], self.pocket, self.compact_leaves)
                        }
                    }
                }
                NodeState::Decision(d) => match d.child(x) {
                    Some(c) => id = c,
                    None => return d.fallback,
                },
            }
        }
    }

    /// Whether every `(rows[i], labels[i])` is classified correctly.
    pub fn is_consistent(&self, rows: &[Vec<i32>], labels: &[usize]) -> bool {
        rows.iter().zip(labels).all(|(x, &y)| self.predict(x) == y)
    }

    /// Size figures of the reachable tree.
    pub fn stats(&self) -> TreeStats {
        let mut s = TreeStats::default();
        let mut stack = vec![(0usize, 0usize)];
        while let Some((id, depth)) = stack.pop() {
            s.depth = s.depth.max(depth);
            match &self.nodes[id] {
                NodeState::Empty { .. } => {}
                NodeState::Ltu(l) => {
                    s.ltus += 1;
                    s.weights += l.w.len();
                }
                NodeState::Decision(d) => {
                    s.decision_nodes += 1;
                    for c in &d.children {
                        match c {
                            Some(c) => stack.push((*c, depth + 1)),
                            None => s.missing_branches += 1,
                        }
                    }
                }
            }
        }
        s
    }

    /// Presents `rows` (raw inputs) with `labels` epoch after epoch in `p.order` until the tree
    /// is consistent or `p.epochs` passes are done; reports `(epoch, epochs)` to `progress`.
    /// Returns the number of epochs run.
    ///
    /// Every row is encoded once ([`FeatureSpace::encode`]) and presented with
    /// [`PerceptronTree::update_encoded`]; the tree is the one [`PerceptronTree::update`] on the
    /// raw rows in the same order would give.
    ///
    /// # Panics
    /// If a row is shorter than the number of inputs or a label is out of range.
    pub fn fit(
        &mut self,
        rows: &[Vec<i32>],
        labels: &[usize],
        p: &Params,
        seed: u64,
        progress: &dyn Fn(u64, u64),
    ) -> usize {
        let encoded: Vec<Encoded> = rows.iter().map(|r| self.space.encode(r)).collect();
        self.fit_encoded(&encoded, labels, p, seed, progress)
    }

    /// [`PerceptronTree::fit`] on rows already encoded by this tree's [`FeatureSpace::encode`].
    ///
    /// # Panics
    /// If a row was encoded for another space or a label is out of range.
    pub fn fit_encoded(
        &mut self,
        rows: &[Encoded],
        labels: &[usize],
        p: &Params,
        seed: u64,
        progress: &dyn Fn(u64, u64),
    ) -> usize {
        let mut order: Vec<usize> = (0..rows.len()).collect();
        let mut rng = Rng::new(seed);
        for epoch in 0..p.epochs {
            if rows.iter().zip(labels).all(|(e, &y)| self.predict_encoded(e) == y) {
                return epoch;
            }
            if p.order == Order::Shuffled {
                rng.shuffle(&mut order);
            }
            for &i in &order {
                self.update_encoded(&rows[i], labels[i]);
            }
            progress(epoch as u64 + 1, p.epochs as u64);
        }
        p.epochs
    }
}

//! Utgoff's absolute error correction of a model's unit weights, one labelled row at a time: the
//! reference of the procedure the runtime's learner runs on a device.
//!
//! [`ModelSpec::update`] corrects the unit that decided a row (a tree's leaf unit, a linear model's
//! unit, a decision list's entry) when it was wrong, by the smallest integer step that makes it
//! right (Utgoff 1989, Table II, steps 4–6), shortened so that the model keeps the runtime's
//! load-time accumulator bound ([`ltu_runtime::format::row_bound`]) and clamped to the weight
//! kind's range ([`quantize::weight_range`]); either makes the outcome [`Outcome::Clipped`]. Only unit weights and biases change: the model's
//! file keeps its tables, sizes and weight kind, and always loads with
//! [`ltu_runtime::Model::from_bytes`]. The same model fed the same rows in the same order gives the
//! same file as the device's learner, byte for byte.
//!
//! Decision nodes are never changed: a tree's class leaves and unit splits stay as they are (the
//! label does not say which branch was right), so rows reaching a class leaf are
//! [`Outcome::Constant`].

use ltu_runtime::format::{crc32, row_bound, term_bound, UnitRec, CHECKSUM_LEN, MAX_COUNT};

use crate::model::codec::store_weight;
use crate::model::quantize::weight_range;
use crate::model::{ExportError, ModelSpec, Node, Step, Structure};

/// What one [`ModelSpec::update`] did: the runtime's outcome type, so host and device report
/// alike.
pub use ltu_runtime::Outcome;

/// Why [`ModelSpec::update`] refused a row (the model is then unchanged).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UpdateError {
    /// The label is not a class of the model.
    #[error("label {label} is out of range: the model has {n_classes} classes")]
    LabelOutOfRange {
        /// The label given.
        label: usize,
        /// The model's classes.
        n_classes: usize,
    },
    /// The row does not have one value per input.
    #[error("{got} input values given, the model has {expected} inputs")]
    InputLength {
        /// The model's inputs.
        expected: usize,
        /// Values given.
        got: usize,
    },
    /// The model has more units than a model file can hold, so outcomes cannot name them.
    #[error("the model has {units} units, more than the {MAX_COUNT} a model file holds")]
    TooManyUnits {
        /// The model's units.
        units: usize,
    },
}

/// Why [`ModelSpec::write_weights`] could not write a model's weights into a file.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum WeightsError {
    /// The base file does not load.
    #[error("the base file is not a model the runtime loads: {0}")]
    Base(ltu_runtime::Error),
    /// The model's units are not the base file's (other counts of units, rows or terms).
    #[error("unit {unit}: its rows or terms differ from the base file's (the model was not read from it)")]
    Layout {
        /// The first unit that differs (the unit count if the counts differ).
        unit: usize,
    },
    /// Two units of the base file store their rows in overlapping ranges of the weight table,
    /// so their learned weights would overwrite each other.
    #[error("units {0} and {1} share weights in the base file")]
    SharedWeights(usize, usize),
    /// A weight does not fit the kind, or the runtime rejects the result.
    #[error(transparent)]
    Export(#[from] ExportError),
}

/// What the deciding unit must answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    /// The label's class (a tree leaf's or a linear model's unit).
    Class(usize),
    /// A list entry that must fire.
    Positive,
    /// A list entry that must not fire.
    Negative,
}

impl ModelSpec {
    /// The units an update can correct: a tree's leaf units (not its unit splits), a decision
    /// list's entries, a linear model's unit. None for a tree of tests (every leaf a class).
    pub fn learnable_units(&self) -> usize {
        let mut units: Vec<usize> = match &self.structure {
            Structure::Linear(u) => vec![*u],
            Structure::Tree(nodes) => {
                nodes.iter().filter_map(|n| if let Node::Unit(u) = n { Some(*u) } else { None }).collect()
            }
            Structure::List { entries, .. } => entries.iter().map(|&(u, _)| u).collect(),
        };
        units.sort_unstable();
        units.dedup();
        units.len()
    }

    /// One step of on-device learning: predicts raw inputs `x` and, if the deciding unit (a
    /// tree's leaf unit, a linear model's unit, a decision list's entry) was wrong about `label`,
    /// corrects it in place by Utgoff's absolute error correction, with the step shortened to
    /// keep the runtime's accumulator bound and the weights clamped to the weight kind's range.
    /// Tree decisions and constant leaves never change; [`Outcome`] says what happened.
    ///
    /// # Errors
    /// `label` is not a class of the model, `x` does not have one value per input, or the model
    /// has more units than a file holds; the model is then unchanged.
    pub fn update(&mut self, x: &[i32], label: usize) -> Result<Outcome, UpdateError> {
        if label >= self.n_classes {
            return Err(UpdateError::LabelOutOfRange { label, n_classes: self.n_classes });
        }
        if x.len() != self.inputs.len() {
            return Err(UpdateError::InputLength { expected: self.inputs.len(), got: x.len() });
        }
        if self.units.len() > MAX_COUNT {
            return Err(UpdateError::TooManyUnits { units: self.units.len() });
        }
        let f = self.feature_values(x);
        let positive = |u: usize| self.units[u].row_score(0, &f) > 0;
        let (unit, target) = match &self.structure {
            Structure::Linear(u) => (*u, Target::Class(label)),
            Structure::Tree(nodes) => {
                let mut i = 0;
                loop {
                    i = match nodes[i].step(x, positive) {
                        Step::Next(next) => next,
                        Step::Class(_) => return Ok(Outcome::Constant),
                        Step::Unit(u) => break (u, Target::Class(label)),
                    }
                }
            }
            Structure::List { entries, default } => match entries.iter().find(|&&(u, _)| positive(u)) {
                Some(&(_, c)) if c == label => return Ok(Outcome::Correct),
                Some(&(u, _)) => (u, Target::Negative),
                None if *default == label => return Ok(Outcome::Correct),
                None => match entries.iter().find(|&&(_, c)| c == label) {
                    Some(&(u, _)) => (u, Target::Positive),
                    None => return Ok(Outcome::Unlearnable),
                },
            },
        };
        Ok(self.correct(unit, target, &f))
    }

    /// The model file `base` with this model's unit weights in place of its own: the same bytes
    /// but for the weight table and the checksum. For a model read from `base`
    /// ([`ModelSpec::from_model`]) and then [updated](ModelSpec::update), that is the file the
    /// device's learner writes after the same updates. [`ModelSpec::to_bytes`] would encode the
    /// model afresh instead, and may store a unit differently (it drops zero weights of sparse
    /// units and chooses dense or sparse storage by size).
    ///
    /// # Errors
    /// [`WeightsError`]: `base` does not load, its units differ from the model's or share
    /// weights, a weight does not fit the weight kind, or the runtime rejects the result.
    pub fn write_weights(&self, base: &[u8]) -> Result<Vec<u8>, WeightsError> {
        let model = ltu_runtime::Model::from_bytes(base).map_err(WeightsError::Base)?;
        let repr = model.repr();
        let records = repr.units.chunks_exact(UnitRec::SIZE);
        if records.len() != self.units.len() {
            return Err(WeightsError::Layout { unit: records.len().min(self.units.len()) });
        }
        let kind = repr.weight_kind;
        let width = kind.width();
        // The weight table is a slice of `base` (the body is decoded in place).
        let table = (repr.weights.as_ptr() as usize).wrapping_sub(base.as_ptr() as usize);
        let mut out = base.to_vec();
        let mut ranges = Vec::with_capacity(self.units.len());
        for (ui, (unit, rec)) in self.units.iter().zip(records).enumerate() {
            let (rec, _) = UnitRec::parse(rec);
            if usize::from(rec.n_out) != unit.rows.len() || usize::from(rec.n_terms) != unit.terms.len() {
                return Err(WeightsError::Layout { unit: ui });
            }
            let start = rec.weight_start as usize * width;
            let len = unit.rows.len() * (unit.terms.len() + 1) * width;
            ranges.push((start, start + len, ui));
            let (lo, hi) = weight_range(kind);
            let stored = table + start;
            for (i, &w) in unit.rows.iter().flatten().enumerate() {
                if !(lo..=hi).contains(&w) {
                    return Err(ExportError::WeightRange { unit: ui, value: w, kind }.into());
                }
                // In the table: the loader checked every unit's rows against its length.
                store_weight(kind, w, &mut out[stored + i * width..]);
            }
        }
        ranges.sort_unstable();
        if let Some(w) = ranges.windows(2).find(|w| w[1].0 < w[0].1) {
            return Err(WeightsError::SharedWeights(w[0].2.min(w[1].2), w[0].2.max(w[1].2)));
        }
        let body = out.len() - CHECKSUM_LEN;
        let crc = crc32(&out[..body]);
        out[body..].copy_from_slice(&crc.to_le_bytes());
        ltu_runtime::Model::from_bytes(&out).map_err(ExportError::Rejected)?;
        Ok(out)
    }

    /// Corrects unit `u` towards `target` for feature values `f` (indexed by feature).
    fn correct(&mut self, u: usize, target: Target, f: &[i32]) -> Outcome {
        let kind = self.weight_kind;
        let abs = self.term_bounds(&self.units[u]);
        let unit = &mut self.units[u];
        let fv: Vec<i64> = unit.terms.iter().map(|&t| i64::from(f[t])).collect();
        // `n2 = 1 + Σ f_j²`: the squared length of the feature vector with the bias's constant 1.
        let n2 = 1 + fv.iter().map(|v| i128::from(*v) * i128::from(*v)).sum::<i128>();
        // What a step of 1 adds to a row's bound at most: `1 + Σ |f_j|·abs_j`.
        let per_step = fv.iter().zip(&abs).fold(1u64, |acc, (&v, &m)| term_bound(acc, v, m.unsigned_abs()));
        let limit = kind.accumulator_limit();
        let allowed = |row: &[i64]| -> u64 {
            let n = abs.len();
            let bound = row_bound(row[n], row[..n].iter().zip(&abs).map(|(&w, &m)| (w, m.unsigned_abs())));
            limit.saturating_sub(bound) / per_step
        };
        let unit_id = u16::try_from(u).expect("checked against MAX_COUNT");
        // Steps: the signed change of each row (`w ← w − s·f`, `bias ← bias − s`).
        let (steps, clipped): (Vec<(usize, i128)>, bool) = if unit.rows.len() == 1 {
            let positive = match target {
                Target::Positive => true,
                Target::Negative => false,
                Target::Class(label) if unit.classes[1] == label => true,
                Target::Class(label) if unit.classes[0] == label => false,
                Target::Class(_) => return Outcome::Unlearnable,
            };
            let y = i128::from(unit.row_score(0, f));
            let s = match positive {
                true if y <= 0 => y.div_euclid(n2) - 1,
                false if y >= 0 => y.div_euclid(n2) + 1,
                _ => return Outcome::Correct,
            };
            let room = u128::from(allowed(&unit.rows[0]));
            let magnitude = s.unsigned_abs().min(room);
            // `magnitude <= room <= u64::MAX` fits an i128.
            (vec![(0, s.signum() * magnitude as i128)], magnitude < s.unsigned_abs())
        } else {
            // A list entry is a binary unit (the loader checks it); a machine there cannot learn.
            let Target::Class(label) = target else { return Outcome::Unlearnable };
            let Some(t) = unit.classes.iter().position(|&c| c == label) else {
                return Outcome::Unlearnable;
            };
            let scores: Vec<i128> = (0..unit.rows.len()).map(|r| i128::from(unit.row_score(r, f))).collect();
            let mut o = usize::from(t == 0);
            for r in 0..scores.len() {
                if r != t && scores[r] > scores[o] {
                    o = r;
                }
            }
            if scores[o] < scores[t] {
                return Outcome::Correct;
            }
            let c = (scores[o] - scores[t]).div_euclid(2 * n2) + 1;
            let room = u128::from(allowed(&unit.rows[t]).min(allowed(&unit.rows[o])));
            let magnitude = c.unsigned_abs().min(room);
            (vec![(t, -(magnitude as i128)), (o, magnitude as i128)], magnitude < c.unsigned_abs())
        };
        if steps.iter().all(|&(_, s)| s == 0) {
            return Outcome::Saturated { unit: unit_id };
        }
        let (lo, hi) = weight_range(kind);
        let (lo, hi) = (i128::from(lo), i128::from(hi));
        let n = fv.len();
        let mut clamped = false;
        let mut set = |w: &mut i64, new: i128| {
            // Within the accumulator limit (an i64) before clamping: the step bound proves it.
            let kept = new.clamp(lo, hi);
            clamped |= kept != new;
            *w = kept as i64;
        };
        for (r, s) in steps {
            let row = &mut unit.rows[r];
            for (w, &v) in row[..n].iter_mut().zip(&fv) {
                set(w, i128::from(*w) - s * i128::from(v));
            }
            let bias = i128::from(row[n]) - s;
            set(&mut row[n], bias);
        }
        if clipped || clamped {
            Outcome::Clipped { unit: unit_id }
        } else {
            Outcome::Corrected { unit: unit_id }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ir::tests::tiny_tree;
    use crate::model::{Feature, InputKind, InputSpec, Node, Unit, WeightKind};

    /// One numeric input read as its value (clamped to ±100), and whatever units and structure
    /// the test gives.
    fn one_input(units: Vec<Unit>, structure: Structure, kind: WeightKind) -> ModelSpec {
        ModelSpec {
            n_classes: 3,
            weight_kind: kind,
            inputs: vec![InputSpec { kind: InputKind::Numeric { scale_exp: 0, offset: 0 }, missing: 0 }],
            features: vec![Feature::Numeric { attr: 0, offset: 0, mul: 1, shift: 0, max_abs: 100 }],
            units,
            structure,
            names: None,
            pipeline: None,
        }
    }

    fn loads(m: &ModelSpec) {
        let bytes = m.to_bytes().expect("encodes");
        ltu_runtime::Model::from_bytes(&bytes).expect("the runtime loads the updated model");
    }

    #[test]
    fn binary_unit_positive_target() {
        // y = 2·f − 5 at f = 2: −1 ≤ 0 and the label is the positive class. n2 = 1 + 4 = 5,
        // s = floor(−1/5) − 1 = −2: w = 2 + 2·2 = 6, bias = −5 + 2 = −3, y = 9.
        let unit = Unit { terms: vec![0], rows: vec![vec![2, -5]], classes: vec![0, 1] };
        let mut m = one_input(vec![unit], Structure::Linear(0), WeightKind::I16);
        assert_eq!(m.predict(&[2]), 0);
        assert_eq!(m.update(&[2], 1), Ok(Outcome::Corrected { unit: 0 }));
        assert_eq!(m.units[0].rows[0], vec![6, -3]);
        assert_eq!(m.predict(&[2]), 1);
        assert_eq!(m.update(&[2], 1), Ok(Outcome::Correct));
        loads(&m);
    }

    #[test]
    fn binary_unit_negative_target_and_zero_score() {
        // y = 3·f + 1 at f = 4: 13 ≥ 0, the label is the negative class. n2 = 17,
        // s = floor(13/17) + 1 = 1: w = 3 − 4 = −1, bias = 0, y = −4.
        let unit = Unit { terms: vec![0], rows: vec![vec![3, 1]], classes: vec![0, 1] };
        let mut m = one_input(vec![unit], Structure::Linear(0), WeightKind::I8);
        assert_eq!(m.update(&[4], 0), Ok(Outcome::Corrected { unit: 0 }));
        assert_eq!(m.units[0].rows[0], vec![-1, 0]);
        // At f = 0 the score is exactly 0: wrong for both targets. Negative: s = 0 + 1, the bias
        // goes to −1.
        assert_eq!(m.units[0].row_score(0, &[0]), 0);
        assert_eq!(m.update(&[0], 0), Ok(Outcome::Corrected { unit: 0 }));
        assert_eq!(m.units[0].rows[0], vec![-1, -1]);
        // Positive at y = 0 (after putting the bias back): s = 0 − 1, the bias goes to 1.
        m.units[0].rows[0][1] = 0;
        assert_eq!(m.update(&[0], 1), Ok(Outcome::Corrected { unit: 0 }));
        assert_eq!(m.units[0].rows[0], vec![-1, 1]);
        // A label the binary unit cannot output.
        assert_eq!(m.update(&[0], 2), Ok(Outcome::Unlearnable));
        assert_eq!(m.update(&[0], 3), Err(UpdateError::LabelOutOfRange { label: 3, n_classes: 3 }));
        assert_eq!(m.update(&[0, 0], 1), Err(UpdateError::InputLength { expected: 1, got: 2 }));
        loads(&m);
    }

    #[test]
    fn machine_ties_are_mistakes() {
        // Rows score 2f, 2f, 0 at f = 3: 6, 6, 0. Label 1 (row 1) ties row 0, which wins the
        // tie: a mistake. n2 = 10, c = floor(0/20) + 1 = 1: row 1 += (3, 1), row 0 −= (3, 1).
        let unit =
            Unit { terms: vec![0], rows: vec![vec![2, 0], vec![2, 0], vec![0, 0]], classes: vec![0, 1, 2] };
        let mut m = one_input(vec![unit], Structure::Linear(0), WeightKind::I16);
        assert_eq!(m.predict(&[3]), 0);
        assert_eq!(m.update(&[3], 1), Ok(Outcome::Corrected { unit: 0 }));
        assert_eq!(m.units[0].rows, vec![vec![-1, -1], vec![5, 1], vec![0, 0]]);
        assert_eq!(m.predict(&[3]), 1);
        // Label 2 at f = 3: scores −4, 16, 0; o = row 1. c = floor(16/20) + 1 = 1.
        assert_eq!(m.update(&[3], 2), Ok(Outcome::Corrected { unit: 0 }));
        assert_eq!(m.units[0].rows, vec![vec![-1, -1], vec![2, 0], vec![3, 1]]);
        // A large gap takes a large step: label 0 at f = 10: scores −11, 20, 31; o = row 2,
        // n2 = 101, c = floor(42/202) + 1 = 1.
        assert_eq!(m.update(&[10], 0), Ok(Outcome::Corrected { unit: 0 }));
        assert_eq!(m.units[0].rows, vec![vec![9, 0], vec![2, 0], vec![-7, 0]]);
        loads(&m);
    }

    #[test]
    fn machine_missing_class_is_unlearnable() {
        let unit = Unit { terms: vec![0], rows: vec![vec![1, 0], vec![-1, 0]], classes: vec![0, 1] };
        let mut m = one_input(vec![unit], Structure::Linear(0), WeightKind::I8);
        let before = m.clone();
        assert_eq!(m.update(&[3], 2), Ok(Outcome::Unlearnable));
        assert_eq!(m, before);
    }

    /// A list: unit 0 fires (class 1) when f > 10, unit 1 (class 2) when f < −10, else class 0.
    fn list() -> ModelSpec {
        one_input(
            vec![
                Unit { terms: vec![0], rows: vec![vec![1, -10]], classes: vec![0, 1] },
                Unit { terms: vec![0], rows: vec![vec![-1, -10]], classes: vec![0, 1] },
            ],
            Structure::List { entries: vec![(0, 1), (1, 2)], default: 0 },
            WeightKind::I8,
        )
    }

    #[test]
    fn list_wrong_entry_is_pushed_down() {
        let mut m = list();
        assert_eq!(m.update(&[20], 1), Ok(Outcome::Correct));
        // Entry 0 fired (y = 10) but the label is 0: negative. n2 = 401, s = 0 + 1:
        // w = 1 − 20 = −19, bias = −11.
        assert_eq!(m.update(&[20], 0), Ok(Outcome::Corrected { unit: 0 }));
        assert_eq!(m.units[0].rows[0], vec![-19, -11]);
        assert_eq!(m.predict(&[20]), 0);
        loads(&m);
    }

    #[test]
    fn list_default_wrong_corrects_the_first_entry_of_the_label() {
        let mut m = list();
        assert_eq!(m.update(&[0], 0), Ok(Outcome::Correct));
        // Nothing fires at f = 5 (default 0); label 2: entry 1 must fire. y = −15, n2 = 26,
        // s = floor(−15/26) − 1 = −2: w = −1 + 10 = 9, bias = −8, y = 37.
        assert_eq!(m.update(&[5], 2), Ok(Outcome::Corrected { unit: 1 }));
        assert_eq!(m.units[1].rows[0], vec![9, -8]);
        assert_eq!(m.predict(&[5]), 2);
        // No entry of class 0: a row whose label is 0 reaching entry 0 is corrected negative, but
        // a list whose default is not 0 and has no entry 0 cannot learn it.
        m.structure = Structure::List { entries: vec![(0, 1), (1, 2)], default: 1 };
        assert_eq!(m.update(&[-50], 0), Ok(Outcome::Unlearnable));
        loads(&m);
    }

    #[test]
    fn tree_class_leaves_are_constant_and_splits_stay() {
        let mut m = tiny_tree();
        let before = m.clone();
        // Green goes to the class leaf 4.
        assert_eq!(m.update(&[30, 1], 2), Ok(Outcome::Constant));
        // Through the unit split to class leaf 5: the split unit is not corrected.
        assert_eq!(m.update(&[30, 0], 0), Ok(Outcome::Constant));
        assert_eq!(m, before);
        // x <= 5 reaches the machine (scores 2, 6, −3 at x = 5, red): label 2 corrects it.
        assert_eq!(m.update(&[5, 0], 2), Ok(Outcome::Corrected { unit: 0 }));
        assert_ne!(m.units[0], before.units[0]);
        assert_eq!(m.units[1], before.units[1]);
        loads(&m);
    }

    /// A binary I16 unit over `terms` copies of the numeric feature (max_abs 100), with
    /// weights `row` (bias last).
    fn wide(row: Vec<i64>) -> ModelSpec {
        let terms = row.len() - 1;
        let mut m = one_input(
            vec![Unit { terms: (0..terms).collect(), rows: vec![row], classes: vec![0, 1] }],
            Structure::Linear(0),
            WeightKind::I16,
        );
        m.features = vec![Feature::Numeric { attr: 0, offset: 0, mul: 1, shift: 0, max_abs: 100 }; terms];
        m
    }

    #[test]
    fn step_is_shortened_at_the_accumulator_bound() {
        // 600 weights of 32767 over max_abs 100: bound 1,966,020,000, room to i32::MAX
        // 181,463,647.
        let mut m = wide([vec![32767; 600], vec![0]].concat());
        assert!(m.fits(WeightKind::I16));
        // f = −1 everywhere: y = −19,660,200 with a positive label; n2 = 601,
        // s = floor(y/601) − 1 = −32,713 − 1. One step adds up to F = 1 + 600·1·100 = 60,001 to
        // the bound: 181,463,647 / 60,001 = 3,024 steps are allowed.
        assert_eq!(m.update(&[-1], 1), Ok(Outcome::Clipped { unit: 0 }));
        let row = &m.units[0].rows[0];
        assert!(row[..600].iter().all(|&w| w == 32767 - 3024), "{row:?}");
        assert_eq!(row[600], 3024);
        assert!(m.fits(WeightKind::I16));
        loads(&m);
    }

    #[test]
    fn no_room_at_all_saturates() {
        // 700 terms whose weights fill the bound to i32::MAX − 1 (bias 47 takes the rest).
        let mut room = i64::from(i32::MAX) - 1;
        let mut row = Vec::new();
        for _ in 0..700 {
            let w = (room / 100).min(32767);
            room -= w * 100;
            row.push(w);
        }
        row.push(room);
        let mut m = wide(row);
        assert!(m.fits(WeightKind::I16));
        let bound = row_bound(m.units[0].rows[0][700], m.units[0].rows[0][..700].iter().map(|&w| (w, 100)));
        assert_eq!(bound, i32::MAX as u64 - 1);
        // The score at f = −100 is very negative; the positive label wants a step, but one step
        // adds up to 1 + 700·100·100 to the bound.
        let before = m.clone();
        assert_eq!(m.update(&[-100], 1), Ok(Outcome::Saturated { unit: 0 }));
        assert_eq!(m, before);
        loads(&m);
    }

    #[test]
    fn new_weights_are_clamped_to_the_kind_and_the_update_is_clipped() {
        // I8, f = 100 (max_abs 100): y = 100·100 − 0 > 0, negative label. n2 = 10001,
        // s = floor(10000/10001) + 1 = 1: w = 100 − 100 = 0, fine. With w = −120 and a positive
        // label: y = −12000, s = floor(−12000/10001) − 1 = −3, w = −120 + 300 = 180 → 127.
        let unit = Unit { terms: vec![0], rows: vec![vec![-120, 0]], classes: vec![0, 1] };
        let mut m = one_input(vec![unit], Structure::Linear(0), WeightKind::I8);
        assert_eq!(m.update(&[100], 1), Ok(Outcome::Clipped { unit: 0 }));
        assert_eq!(m.units[0].rows[0], vec![127, 3]);
        loads(&m);
    }

    #[test]
    fn fixed_weights_are_corrected_as_their_bits() {
        let unit = Unit { terms: vec![0], rows: vec![vec![1 << 16, -(5 << 16)]], classes: vec![0, 1] };
        let mut m = one_input(vec![unit], Structure::Linear(0), WeightKind::Fixed);
        // y = 2·65536 − 5·65536 = −196608; n2 = 5; s = floor(−196608/5) − 1 = −39323:
        // w = 65536 + 78646, bias = −327680 + 39323.
        assert_eq!(m.update(&[2], 1), Ok(Outcome::Corrected { unit: 0 }));
        assert_eq!(m.units[0].rows[0], vec![65536 + 78646, -327680 + 39323]);
        assert_eq!(m.predict(&[2]), 1);
        loads(&m);
    }

    #[test]
    fn written_weights_keep_the_base_file_but_for_the_weights() {
        let base = tiny_tree().to_bytes().unwrap();
        let mut m = ModelSpec::from_model(&ltu_runtime::Model::from_bytes(&base).unwrap());
        assert_eq!(m.write_weights(&base).unwrap(), base, "no update: the same file");
        // The machine's correction at x = 5, red, label 2 (scores 2, 6, −3): n2 = 1 + 1 + 1 + 1 +
        // f_x², every weight changes but the layout does not.
        assert_eq!(m.update(&[5, 0], 2), Ok(Outcome::Corrected { unit: 0 }));
        let written = m.write_weights(&base).unwrap();
        assert_eq!(written.len(), base.len());
        let back = ModelSpec::from_model(&ltu_runtime::Model::from_bytes(&written).unwrap());
        assert_eq!(back, m);
        // Only the weight table and the checksum differ.
        let differ: Vec<usize> = (0..base.len()).filter(|&i| base[i] != written[i]).collect();
        assert!(differ.iter().any(|&i| i >= base.len() - CHECKSUM_LEN));
        let weights = m.units[0].rows.iter().flatten().count() + m.units[1].rows.iter().flatten().count();
        assert!(differ.len() <= weights + CHECKSUM_LEN, "{differ:?}");
    }

    #[test]
    fn a_sparse_weight_that_becomes_zero_stays_stored() {
        // The tiny tree's sparse unit over a conjunction c, as the one entry of a list.
        let mut spec = tiny_tree();
        spec.structure = Structure::List { entries: vec![(1, 2)], default: 0 };
        spec.units[1].rows[0] = vec![2, 0];
        let base = spec.to_bytes().unwrap();
        let mut m = ModelSpec::from_model(&ltu_runtime::Model::from_bytes(&base).unwrap());
        // At x = 30, red, c = 1 and y = 2·1 + 0 > 0: the entry fires with class 2 but the label
        // is 0. n2 = 2, s = floor(2/2) + 1 = 2: w = 2 − 2 = 0, bias = −2.
        assert_eq!(m.update(&[30, 0], 0), Ok(Outcome::Corrected { unit: 1 }));
        assert_eq!(m.units[1].rows[0], vec![0, -2]);
        let written = m.write_weights(&base).unwrap();
        assert_eq!(written.len(), base.len(), "the zero weight keeps its place");
        assert_ne!(m.to_bytes().unwrap().len(), base.len(), "encoding afresh drops it");
        let mut other = m.clone();
        other.units.pop();
        assert_eq!(other.write_weights(&base), Err(WeightsError::Layout { unit: 1 }));
    }

    /// Models from the test builders: the tiny tree as a tree, a list of its binary unit and a
    /// linear machine, in every weight kind (rescaled to fit).
    fn builders() -> Vec<ModelSpec> {
        let mut out = Vec::new();
        for kind in [WeightKind::I8, WeightKind::I16, WeightKind::I32, WeightKind::Fixed] {
            let tree = tiny_tree();
            let mut list = tiny_tree();
            list.structure = Structure::List { entries: vec![(1, 2), (1, 1)], default: 0 };
            let mut linear = tiny_tree();
            linear.structure = Structure::Linear(0);
            let mut leaf = tiny_tree();
            // A leaf binary unit too: node 3's split becomes a leaf.
            if let Structure::Tree(nodes) = &mut leaf.structure {
                nodes[3] = Node::Unit(1);
            }
            for mut m in [tree, list, linear, leaf] {
                m.weight_kind = kind;
                out.push(m);
            }
        }
        out
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        #[test]
        fn updated_models_always_load(
            which in 0usize..16,
            rows in proptest::collection::vec((-400i32..400, -1i32..4, 0usize..3), 1..60),
        ) {
            let base = builders().swap_remove(which).to_bytes().expect("encodes");
            let mut m = ModelSpec::from_model(&ltu_runtime::Model::from_bytes(&base).expect("loads"));
            for (x, color, label) in rows {
                let before = m.clone();
                let outcome = m.update(&[x, color], label).expect("valid row");
                proptest::prop_assert_eq!(outcome.changed(), m != before);
                proptest::prop_assert!(m.fits(m.weight_kind));
                // Encoded afresh and written over the base file, the model loads.
                let bytes = m.to_bytes().expect("encodes");
                let loaded = ltu_runtime::Model::from_bytes(&bytes);
                proptest::prop_assert!(loaded.is_ok(), "{:?} after {:?}", loaded.err(), outcome);
                let written = m.write_weights(&base).expect("writes over the base file");
                let back = ModelSpec::from_model(&ltu_runtime::Model::from_bytes(&written).expect("loads"));
                proptest::prop_assert_eq!(&back, &m);
            }
        }
    }
}

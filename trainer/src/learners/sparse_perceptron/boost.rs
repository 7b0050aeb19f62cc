//! AdaBoost with the weak learner of [`super::search`] (Figure 1), and the inner
//! cross-validation that chooses each booster's number of rounds.

use super::literals::candidate_literals;
use super::search::{Search, Space};
use super::{round_limit, Booster, Params, Stop, WeakHypothesis, VALIDATION_ROWS};
use crate::data::split;
use crate::learn::TrainError;
use crate::model::{InputKind, InputSpec, Literal};

/// Held-out rows whose errors a run records after every round.
struct Validation<'v> {
    rows: &'v [&'v [i32]],
    positive: &'v [bool],
}

/// Result of one AdaBoost run.
struct Run {
    hypotheses: Vec<WeakHypothesis>,
    stop: Stop,
    /// Validation errors after rounds `1..=hypotheses.len()`.
    validation_errors: Vec<usize>,
}

/// AdaBoost (Figure 1) with the weak learner of section 3.3, for at most `max_rounds` rounds.
fn boost(
    literals: &[Literal],
    rows: &[&[i32]],
    positive: &[bool],
    p: &Params,
    max_rounds: usize,
    validation: Option<&Validation<'_>>,
    seed: u64,
) -> Run {
    let m = rows.len();
    let space = Space::new(literals, rows, positive);
    let k = p.max_literals;
    let factor = if p.prefer_simple && k > 1 { 1.0 / k as f64 } else { 1.0 };
    let mut d = vec![1.0 / m as f64; m];
    let mut score = vec![0.0; m];
    let mut vscore = vec![0.0; validation.map_or(0, |v| v.rows.len())];
    let mut run = Run { hypotheses: Vec::new(), stop: Stop::Rounds, validation_errors: Vec::new() };
    let mut search = Search::new(&space, k, factor);
    let mut sample = (p.search_rows > 0 && m > p.search_rows).then(|| Resample::new(m, seed));
    for _ in 0..max_rounds {
        // h(x) = sign if covered else −sign; ε its weighted error on every row.
        let error_of = |chosen: &[usize], sign: i32| -> f64 {
            let h = |i: usize| if chosen.iter().all(|&l| space.holds(l, i)) { sign } else { -sign };
            (0..m).filter(|&i| f64::from(h(i)) != space.label(i)).map(|i| d[i]).sum()
        };
        let (mut chosen, mut sign) = match &mut sample {
            Some(s) => {
                s.draw(&d, p.search_rows);
                search.best_among(&s.weight, &s.active)
            }
            None => search.best(&d),
        };
        let mut error = error_of(&chosen, sign);
        if error >= 0.5 && sample.is_some() {
            // The resample's best is no better than chance on every row: boosting stops only when
            // no conjunction is, so this round searches every row.
            (chosen, sign) = search.best(&d);
            error = error_of(&chosen, sign);
        }
        let h = |i: usize| if chosen.iter().all(|&l| space.holds(l, i)) { sign } else { -sign };
        if error >= 0.5 {
            run.stop = Stop::NoWeakHypothesis;
            break;
        }
        let mut lits: Vec<Literal> = chosen.iter().map(|&l| literals[l]).collect();
        lits.sort();
        if error == 0.0 {
            // β = 0: this conjunction alone is consistent with the training rows.
            let hyp = WeakHypothesis { literals: lits, sign, alpha: 1.0, error };
            if let Some(v) = validation {
                let errors = v.rows.iter().zip(v.positive).filter(|(x, &y)| (hyp.value(x) > 0) != y).count();
                run.validation_errors.push(errors);
            }
            run.hypotheses = vec![hyp];
            run.stop = Stop::Consistent;
            break;
        }
        let beta = error / (1.0 - error);
        let alpha = -beta.ln();
        let mut total = 0.0;
        let mut wrong = 0;
        for i in 0..m {
            let hi = f64::from(h(i));
            if hi == space.label(i) {
                d[i] *= beta;
            }
            total += d[i];
            score[i] += alpha * hi;
            wrong += usize::from((score[i] > 0.0) != positive[i]);
        }
        for di in &mut d {
            *di /= total;
        }
        let hyp = WeakHypothesis { literals: lits, sign, alpha, error };
        if let Some(v) = validation {
            let mut errors = 0;
            for ((s, x), &y) in vscore.iter_mut().zip(v.rows).zip(v.positive) {
                *s += alpha * f64::from(hyp.value(x));
                errors += usize::from((*s > 0.0) != y);
            }
            run.validation_errors.push(errors);
        }
        run.hypotheses.push(hyp);
        if wrong == 0 && p.stop_when_consistent {
            run.stop = Stop::Consistent;
            break;
        }
    }
    run
}

/// A weighted resample of the rows for the weak learner (boosting by resampling, Freund &
/// Schapire 1996): `n` systematic draws from the distribution `D`, at the positions
/// `(j + u) / n` of its cumulative sum for one seeded offset `u ∈ [0, 1)` per round. A row drawn
/// `c` times weighs `c / n`; the rows drawn are `active`.
pub(super) struct Resample {
    pub(super) weight: Vec<f64>,
    pub(super) active: Vec<u32>,
    state: u64,
}

impl Resample {
    pub(super) fn new(m: usize, seed: u64) -> Self {
        Resample { weight: vec![0.0; m], active: Vec::new(), state: seed | 1 }
    }

    /// Draws `n` rows from `d` (which sums to 1).
    pub(super) fn draw(&mut self, d: &[f64], n: usize) {
        // xorshift64: the offset of this round's draw.
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        let u = (self.state >> 11) as f64 / (1u64 << 53) as f64;
        for &i in &self.active {
            self.weight[i as usize] = 0.0;
        }
        self.active.clear();
        let (mut cum, mut j) = (0.0, 0);
        for (i, &di) in d.iter().enumerate() {
            cum += di;
            let mut c = 0;
            while j < n && (j as f64 + u) / (n as f64) < cum {
                c += 1;
                j += 1;
            }
            if c > 0 {
                self.weight[i] = c as f64 / n as f64;
                self.active.push(i as u32);
            }
        }
    }
}

/// The number of rounds with the fewest validation errors summed over the folds (the smallest
/// such number); a run that stopped early keeps its last hypothesis for later rounds.
fn best_rounds(runs: &[Run], max_rounds: usize) -> usize {
    let mut best = (usize::MAX, max_rounds);
    for t in 1..=max_rounds {
        let errors: usize =
            runs.iter().filter_map(|r| r.validation_errors.get(t - 1).or(r.validation_errors.last())).sum();
        if errors < best.0 {
            best = (errors, t);
        }
    }
    best.1
}

/// Number of weights of an ordinary perceptron over `inputs`: one per categorical value, one per
/// numeric input (the round limit of section 3.3).
pub fn ordinary_perceptron_weights(inputs: &[InputSpec]) -> usize {
    inputs
        .iter()
        .map(|i| match i.kind {
            InputKind::Categorical { n_values } => usize::from(n_values),
            InputKind::Numeric { .. } => 1,
        })
        .sum()
}

/// Boosters for rows `rows` with labels `labels`: per booster, the number of rounds by
/// cross-validation ([`Params::validation_folds`]), then AdaBoost on all of `rows`. `tick` is
/// called after every AdaBoost run.
pub(super) fn boost_all(
    inputs: &[InputSpec],
    rows: &[&[i32]],
    labels: &[usize],
    n_classes: usize,
    p: &Params,
    seed: u64,
    tick: &mut dyn FnMut(),
) -> Result<Vec<Booster>, TrainError> {
    let m = rows.len();
    let max_rounds = round_limit(inputs, p, rows.len());
    let owned: Vec<Vec<i32>> = rows.iter().map(|r| r.to_vec()).collect();
    let literals = candidate_literals(inputs, &owned, p);
    let classes: Vec<usize> = if n_classes == 2 { vec![1] } else { (0..n_classes).collect() };
    // The rows the inner cross-validation uses: all of them, or on more than
    // `VALIDATION_ROWS` a seeded stratified sample of that many (the rounds are a setting the
    // sample estimates; the boosting that follows uses every row).
    let cv_rows: Vec<usize> = if m > VALIDATION_ROWS {
        let rest = 1.0 - VALIDATION_ROWS as f64 / m as f64;
        split::hold_out(labels, n_classes, rest, seed.rotate_left(29)).0
    } else {
        (0..m).collect()
    };
    let cv_labels: Vec<usize> = cv_rows.iter().map(|&i| labels[i]).collect();
    let folds: Vec<Vec<usize>> = validation_folds(&cv_labels, n_classes, p, seed)?
        .into_iter()
        .map(|fold| fold.into_iter().map(|k| cv_rows[k]).collect())
        .collect();
    let mut boosters = Vec::new();
    for &class in &classes {
        let positive: Vec<bool> = labels.iter().map(|&y| y == class).collect();
        let rounds_allowed = if folds.is_empty() {
            max_rounds
        } else {
            let mut runs = Vec::new();
            for fold in &folds {
                let mut in_fold = vec![false; m];
                fold.iter().for_each(|&i| in_fold[i] = true);
                let train: Vec<usize> = cv_rows.iter().copied().filter(|&i| !in_fold[i]).collect();
                let train_rows: Vec<&[i32]> = train.iter().map(|&i| rows[i]).collect();
                let train_pos: Vec<bool> = train.iter().map(|&i| positive[i]).collect();
                let valid_rows: Vec<&[i32]> = fold.iter().map(|&i| rows[i]).collect();
                let valid_pos: Vec<bool> = fold.iter().map(|&i| positive[i]).collect();
                let v = Validation { rows: &valid_rows, positive: &valid_pos };
                let fold_seed = seed ^ (class as u64) << 32 ^ runs.len() as u64;
                runs.push(boost(&literals, &train_rows, &train_pos, p, max_rounds, Some(&v), fold_seed));
                tick();
            }
            best_rounds(&runs, max_rounds)
        };
        let run =
            boost(&literals, rows, &positive, p, rounds_allowed, None, seed ^ (class as u64) << 32 ^ 0xff);
        tick();
        boosters.push(Booster { class, hypotheses: run.hypotheses, rounds_allowed, stop: run.stop });
    }
    Ok(boosters)
}

/// The inner cross-validation's folds (none when disabled or too few rows).
pub(super) fn validation_folds(
    labels: &[usize],
    n_classes: usize,
    p: &Params,
    seed: u64,
) -> Result<Vec<Vec<usize>>, TrainError> {
    if p.validation_folds >= 2 && labels.len() >= 2 * p.validation_folds {
        split::stratified_kfold(labels, n_classes, p.validation_folds, seed)
            .map_err(|e| TrainError::InvalidOption(format!("sparse: validation folds: {e}")))
    } else {
        Ok(Vec::new())
    }
}

#[cfg(test)]
mod tests {
    use super::Resample;

    /// The resample draws exactly `n` times, a row about `n · D(x)` times (systematic sampling:
    /// within one of it), only rows of positive weight, and the same rows for the same seed.
    #[test]
    fn resample_draws_in_proportion_to_the_weights() {
        let m = 5000;
        let raw: Vec<f64> = (0..m).map(|i| if i % 7 == 0 { 0.0 } else { (i % 13 + 1) as f64 }).collect();
        let total: f64 = raw.iter().sum();
        let d: Vec<f64> = raw.iter().map(|w| w / total).collect();
        let n = 1000;
        let mut a = Resample::new(m, 42);
        a.draw(&d, n);
        let drawn: f64 = a.active.iter().map(|&i| a.weight[i as usize]).sum();
        assert!((drawn - 1.0).abs() < 1e-9, "{drawn}");
        for &i in &a.active {
            let i = i as usize;
            assert!(d[i] > 0.0);
            assert!((a.weight[i] * n as f64 - d[i] * n as f64).abs() <= 1.0 + 1e-9);
        }
        assert!(a.active.windows(2).all(|w| w[0] < w[1]));
        let mut b = Resample::new(m, 42);
        b.draw(&d, n);
        assert_eq!(a.active, b.active);
        // A second round draws with another offset; stale weights are cleared.
        a.draw(&d, n);
        let nonzero = a.weight.iter().filter(|&&w| w > 0.0).count();
        assert_eq!(nonzero, a.active.len());
    }
}

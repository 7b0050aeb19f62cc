//! [`WeightFit::Auto`](super::WeightFit::Auto): the choice, on a held-out quarter of the
//! training rows, between the boosted votes and the logistic refits.

use super::boost::boost_all;
use super::refit::{all_conjunctions, booster_features, class_support, pruned_refit, refit};
use super::{round_limit, Booster, Params, SparsePerceptron, Stop};
use super::{ALL_CONJUNCTIONS_WORK, AUTO_CHOICE_ROWS, AUTO_L2, AUTO_ROUNDS, LOGISTIC_L2};
use crate::data::split;
use crate::learn::TrainError;
use crate::model::InputSpec;

/// What [`WeightFit::Auto`] chose.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum WeightChoice {
    /// The boosted votes of `rounds` rounds without the inner cross-validation (`None`: rounds
    /// by the inner cross-validation).
    Votes { rounds: Option<usize> },
    /// A logistic refit with this L2 penalty over the conjunctions of boosting for `rounds`
    /// rounds without the inner cross-validation (`None`: rounds by the inner cross-validation).
    Refit { l2: f64, rounds: Option<usize> },
    /// A logistic refit with this L2 penalty over every conjunction of at most two literals
    /// ([`all_conjunctions`]), pruned as long as that costs no training row ([`pruned_refit`]).
    Pruned { l2: f64 },
}

/// The first `t` weak hypotheses of each booster (all of a booster that stopped sooner).
pub(super) fn prefix(boosters: &[Booster], t: usize) -> Vec<Booster> {
    (boosters.iter())
        .map(|b| Booster {
            hypotheses: b.hypotheses.iter().take(t).cloned().collect(),
            rounds_allowed: t,
            stop: if b.hypotheses.len() > t { Stop::Rounds } else { b.stop },
            class: b.class,
        })
        .collect()
}

/// Whether [`choose_weight_fit`] takes the large-data path on `m` training rows: more than
/// [`AUTO_CHOICE_ROWS`] rows and [`Params::refit_rounds`] set. The candidates are then the
/// votes and refits of the prefixes of one long boosting run on the choice's sample (its
/// held-out rows choose the rounds in place of the inner cross-validation), and the chosen
/// prefix's conjunctions are kept for the model, refitted on every row: boosting on more rows
/// would cost as much again and find conjunctions of the same strength.
pub(super) fn large_data(m: usize, p: &Params) -> bool {
    m > AUTO_CHOICE_ROWS && p.refit_rounds > 0
}

/// The L2 penalties [`choose_weight_fit`] refits each prefix with: [`AUTO_L2`], or on the
/// large-data path only the strongest, since a penalty of `l2 / (2n)` on thousands of rows
/// hardly moves the weights and each refit there is the costliest step of a training.
pub(super) fn penalties(large: bool) -> &'static [f64] {
    if large {
        &AUTO_L2[..1]
    } else {
        &AUTO_L2
    }
}

/// The prefix lengths [`choose_weight_fit`] refits for a round limit `limit`, fewest first.
pub(super) fn prefix_lengths(limit: usize, p: &Params) -> Vec<usize> {
    (AUTO_ROUNDS.iter())
        .map(|&f| (f * limit as f64).ceil().max(1.0) as usize)
        .filter(|&t| t <= p.refit_rounds * limit)
        .collect()
}

/// [`WeightFit::Auto`]'s choice for the training rows (see [`WeightFit::Auto`]), and on the
/// large-data path ([`large_data`]) the long boosting run whose prefix it chose. With fewer
/// than 20 rows nothing is held out: a refit with [`LOGISTIC_L2`], rounds by cross-validation.
/// `tick` is called after every boosting run and, on the large-data path, every refit.
pub(super) fn choose_weight_fit(
    inputs: &[InputSpec],
    rows: &[&[i32]],
    labels: &[usize],
    n_classes: usize,
    p: &Params,
    seed: u64,
    tick: &mut dyn FnMut(),
) -> Result<(WeightChoice, Option<Vec<Booster>>), TrainError> {
    let large = large_data(rows.len(), p);
    let limit = round_limit(inputs, p, rows.len());
    // On many rows the choice (a setting, not the model: that is fitted on every row afterwards)
    // is made on a stratified sample of `AUTO_CHOICE_ROWS`, which keeps `auto` within a few
    // times the boosting's own cost.
    let (sample_rows, sample_labels): (Vec<&[i32]>, Vec<usize>);
    let (rows, labels) = if rows.len() > AUTO_CHOICE_ROWS {
        let rest = 1.0 - AUTO_CHOICE_ROWS as f64 / rows.len() as f64;
        let (keep, _) = split::hold_out(labels, n_classes, rest, seed.rotate_left(17));
        sample_rows = keep.iter().map(|&i| rows[i]).collect();
        sample_labels = keep.iter().map(|&i| labels[i]).collect();
        (sample_rows.as_slice(), sample_labels.as_slice())
    } else {
        (rows, labels)
    };
    let (fit_idx, val_idx) = split::hold_out(labels, n_classes, 0.25, seed);
    if rows.len() < 20 || val_idx.is_empty() {
        return Ok((WeightChoice::Refit { l2: LOGISTIC_L2, rounds: None }, None));
    }
    let refit_seed = seed.rotate_left(41);
    let fit_rows: Vec<&[i32]> = fit_idx.iter().map(|&i| rows[i]).collect();
    let fit_labels: Vec<usize> = fit_idx.iter().map(|&i| labels[i]).collect();
    let correct = |predict: &dyn Fn(&[i32]) -> usize| {
        val_idx.iter().filter(|&&i| predict(rows[i]) == labels[i]).count()
    };
    // Candidates in order of size (rounds), with their held-out correct counts.
    let mut candidates: Vec<(usize, WeightChoice)> = Vec::new();
    let mut consider = |c: usize, choice: WeightChoice| candidates.push((c, choice));
    // The paper's boosting (rounds by cross-validation): refitted, then its votes.
    if !large {
        let boosters = boost_all(inputs, &fit_rows, &fit_labels, n_classes, p, seed, tick)?;
        let features = booster_features(&boosters);
        let support = class_support(&boosters, &features);
        for l2 in AUTO_L2 {
            let unit =
                refit(features.clone(), Some(&support), &fit_rows, &fit_labels, n_classes, l2, refit_seed);
            consider(correct(&|x| unit.predict(x)), WeightChoice::Refit { l2, rounds: None });
        }
        consider(correct(&SparsePerceptron::vote(&boosters)), WeightChoice::Votes { rounds: None });
    }
    // Longer boosting, refitted on the conjunctions of its first rounds.
    let mut kept_long = None;
    if p.refit_rounds > 0 {
        let long_p = Params { validation_folds: 0, rounds: Some(p.refit_rounds * limit), ..p.clone() };
        let long = boost_all(inputs, &fit_rows, &fit_labels, n_classes, &long_p, seed, tick)?;
        let longest = long.iter().map(|b| b.hypotheses.len()).max().unwrap_or(0);
        // The best held-out count of the previous prefix length.
        let mut previous: Option<usize> = None;
        for t in prefix_lengths(limit, p) {
            let first = prefix(&long, t);
            let features = booster_features(&first);
            let support = class_support(&first, &features);
            let mut step_best = 0;
            for &l2 in penalties(large) {
                let unit = refit(
                    features.clone(),
                    Some(&support),
                    &fit_rows,
                    &fit_labels,
                    n_classes,
                    l2,
                    refit_seed,
                );
                let c = correct(&|x| unit.predict(x));
                step_best = step_best.max(c);
                consider(c, WeightChoice::Refit { l2, rounds: Some(t) });
                if large {
                    tick();
                }
            }
            if large {
                let c = correct(&SparsePerceptron::vote(&first));
                step_best = step_best.max(c);
                consider(c, WeightChoice::Votes { rounds: Some(t) });
            }
            if t >= longest {
                break; // every booster stopped before t rounds: longer prefixes are the same
            }
            // Early stop: a prefix length no better on the held-out rows than the one before
            // it (half as long) ends the ladder; the longer ones cost the most to refit.
            if previous.is_some_and(|b| step_best <= b) {
                break;
            }
            previous = Some(step_best);
        }
        kept_long = large.then_some(long);
    }
    // Every conjunction, pruned step by step: after the others (they win ties), smallest first.
    let unit_rows = if n_classes == 2 { 1 } else { n_classes };
    let all = (p.all_conjunctions > 0)
        .then(|| all_conjunctions(inputs, &fit_rows, p, p.all_conjunctions))
        .flatten()
        .filter(|f| fit_rows.len() * f.len() * unit_rows <= ALL_CONJUNCTIONS_WORK);
    if let Some(features) = all {
        let mut pruned: Vec<(usize, usize, WeightChoice)> = (AUTO_L2.iter())
            .map(|&l2| {
                let unit = pruned_refit(features.clone(), &fit_rows, &fit_labels, n_classes, l2, refit_seed);
                (unit.features.len(), correct(&|x| unit.predict(x)), WeightChoice::Pruned { l2 })
            })
            .collect();
        pruned.sort_by_key(|c| c.0);
        for (_, c, choice) in pruned {
            consider(c, choice);
        }
    }
    // The one-standard-error rule (Breiman et al. 1984): the first (smallest) candidate whose
    // held-out accuracy is within one standard error of the best one's.
    let n = val_idx.len() as f64;
    let best = candidates.iter().map(|c| c.0).max().expect("at least one candidate") as f64;
    let se = (best * (n - best) / n).sqrt();
    let chosen = candidates.iter().find(|c| c.0 as f64 >= best - se).expect("the best qualifies");
    Ok((chosen.1, kept_long))
}

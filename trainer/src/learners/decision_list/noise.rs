//! Beyond the paper, for noisy data: majority relabelling of identical inputs and Wilson's
//! editing of rows among rows of another class.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use super::{majority, Sample};

/// Majority vote within groups of `rows` with identical inputs: returns the number of rows whose
/// class changed and the labels (rows outside `rows` keep theirs). Ties go to the lowest class.
pub(super) fn relabel_by_majority(s: &Sample<'_>, rows: &[usize]) -> (usize, Vec<usize>) {
    let key = |i: usize| -> Vec<u64> {
        // `+ 0.0` maps -0.0 to 0.0, so equal values share a key.
        s.x[i].iter().map(|v| (v + 0.0).to_bits()).collect()
    };
    let mut groups: HashMap<Vec<u64>, Vec<usize>> = HashMap::new();
    for &i in rows {
        groups.entry(key(i)).or_default().push(i);
    }
    let mut y = s.y.to_vec();
    let mut changed = 0;
    for members in groups.values().filter(|m| m.len() > 1) {
        let class = majority(s.y, members.iter().copied(), s.n_classes);
        for &i in members {
            changed += usize::from(y[i] != class);
            y[i] = class;
        }
    }
    (changed, y)
}

/// The rows Wilson's editing keeps, remembered for the lists learned on one sample (the
/// candidates of one inner fold, or `hsi`'s two lists): `learn_with` edits the same training
/// rows with the same labels for each of them, and the editing costs the square of the rows.
#[derive(Default)]
pub(super) struct Edits(Mutex<Vec<(EditKey, Vec<usize>)>>);

/// What an editing depends on besides the sample: neighbours, relabelling, training rows.
type EditKey = (usize, bool, Vec<usize>);

impl Edits {
    /// The kept rows for `k` neighbours, relabelling `relabel`, training rows `train`: remembered,
    /// else `edit()` (computed under the lock: whoever waits needs the same answer).
    pub(super) fn get(
        &self,
        k: usize,
        relabel: bool,
        train: &[usize],
        edit: impl FnOnce() -> Vec<usize>,
    ) -> Vec<usize> {
        let mut memo = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((_, kept)) =
            memo.iter().find(|((mk, mr, mt), _)| *mk == k && *mr == relabel && mt == train)
        {
            return kept.clone();
        }
        let kept = edit();
        memo.push(((k, relabel, train.to_vec()), kept.clone()));
        kept
    }
}

/// Wilson's editing rule (1972): the rows of `rows` whose class agrees with at least half of
/// their `k` nearest other rows of `rows` (Euclidean distance in the sample's `[-1, 1]^d`; ties
/// in distance broken by row index), in order. Beyond the paper: a row among rows of another
/// class is most likely noise, and the exact covering would otherwise spend an entry on it.
pub(super) fn edit_by_neighbours(s: &Sample<'_>, rows: &[usize], k: usize) -> Vec<usize> {
    let k = k.min(rows.len().saturating_sub(1));
    if k == 0 {
        return rows.to_vec();
    }
    let mut near: Vec<(f64, usize)> = Vec::with_capacity(rows.len());
    rows.iter()
        .copied()
        .filter(|&i| {
            near.clear();
            near.extend(
                rows.iter()
                    .filter(|&&j| j != i)
                    .map(|&j| (s.x[i].iter().zip(&s.x[j]).map(|(a, b)| (a - b) * (a - b)).sum::<f64>(), j)),
            );
            let cmp = |a: &(f64, usize), b: &(f64, usize)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
            near.select_nth_unstable_by(k - 1, cmp);
            let agree = near[..k].iter().filter(|&&(_, j)| s.y[j] == s.y[i]).count();
            2 * agree >= k
        })
        .collect()
}

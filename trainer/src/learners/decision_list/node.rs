//! One list entry: the cover's halfspace fine-tuned to the largest margin, quantized as soon as
//! it is found, and the examples its exported unit covers.

use super::inclp::{self, Cover, Halfspace, LpStats};
use super::{Node, NodeInfo, Params, Sample, Search};
use crate::model::quantize::{self, Grid};
use crate::model::{Unit, WeightKind};

/// A node's integer unit: the halfspace over `x_j = f_j / max_abs_j` as weights per unit of the
/// integer feature, `W_j = round(s·w_j / max_abs_j)`, `B = round(s·b)`, rounded by the shared
/// quantizer ([`quantize::quantize`]) with the largest scale `s` for which every stored value
/// fits `kind` and the runtime's accumulator bound holds (for `Fixed`, whose stored values are
/// `I16F16` bits, the decision is invariant under a positive scale, so the unit uses the whole
/// range). The unit has every sample column as a term and one row; it covers `f` iff
/// [`Unit::row_score`]`(0, f) > 0`, the IR's (and the runtime's) own score.
fn quantized_unit(h: &Halfspace, max_abs: &[i64], kind: WeightKind, class: usize) -> Unit {
    let row: Vec<f64> = h.w.iter().zip(max_abs).map(|(w, &m)| w / m as f64).chain([h.b]).collect();
    let q = quantize::quantize(&[row], max_abs, Grid::new(kind));
    Unit { terms: (0..max_abs.len()).collect(), rows: q.rows, classes: vec![0, class] }
}

/// Zeroes, smallest contribution (`|w_j| · max_abs_j`) first, every term weight of binary `unit`
/// whose removal changes no decision `score > 0` on `rows` of `features`; returns how many. The
/// bias stays. Zeroing a weight only lowers the accumulator bound, so the unit still fits.
pub fn prune_weights(unit: &mut Unit, features: &[Vec<i32>], max_abs: &[i64], rows: &[usize]) -> usize {
    let mut scores: Vec<i64> = rows.iter().map(|&i| unit.row_score(0, &features[i])).collect();
    let fires: Vec<bool> = scores.iter().map(|&s| s > 0).collect();
    let row = &mut unit.rows[0];
    let mut order: Vec<usize> = (0..unit.terms.len()).filter(|&j| row[j] != 0).collect();
    order.sort_by_key(|&j| (row[j].unsigned_abs().saturating_mul(max_abs[unit.terms[j]].unsigned_abs()), j));
    let mut pruned = 0;
    for j in order {
        let (w, t) = (row[j], unit.terms[j]);
        let keeps = rows
            .iter()
            .zip(&scores)
            .zip(&fires)
            .all(|((&i, &s), &f)| (s - w * i64::from(features[i][t]) > 0) == f);
        if keeps {
            for (&i, s) in rows.iter().zip(scores.iter_mut()) {
                *s -= w * i64::from(features[i][t]);
            }
            row[j] = 0;
            pruned += 1;
        }
    }
    pruned
}

/// The list entry for `cover` (max-margin fine-tuning and quantization in the loop) and the
/// examples of `alive` its exported unit leaves for later entries.
pub(super) fn make_node(
    s: &Sample<'_>,
    alive: &[usize],
    class: usize,
    cover: &Cover,
    excl: &[usize],
    p: &Params,
    stats: &mut LpStats,
) -> (Node, Vec<usize>) {
    let mut h = cover.halfspace.clone();
    let norm = p.norm.unwrap_or_default();
    if p.max_margin || matches!(p.search, Search::Pocket { .. }) {
        // i8/i16: the stored range limits the scale, so the margin is taken in the box of
        // representable units (bias as coarse as the weights); otherwise `‖w‖∞ <= 1`.
        let tuned = match s.quant {
            Some(q) if matches!(q.kind, WeightKind::I8 | WeightKind::I16) => {
                let bounds: Vec<f64> = q.max_abs.iter().map(|&m| m as f64).collect();
                inclp::max_margin_boxed(s.x, &cover.covered, excl, &h, &bounds, 1.0, norm)
            }
            _ => inclp::max_margin(s.x, &cover.covered, excl, &h, norm),
        };
        match tuned {
            Some(m) => h = m,
            None => stats.margin_fallbacks += 1,
        }
    }
    let unit = s.quant.map(|qz| {
        let mut u = quantized_unit(&h, qz.max_abs, qz.kind, class);
        if p.prune_weights {
            stats.weights_pruned += prune_weights(&mut u, qz.features, qz.max_abs, alive) as u64;
        }
        u
    });
    let mut node = Node {
        halfspace: h,
        unit,
        class,
        info: NodeInfo { class, covered: 0, float_covered: 0, changed_by_quantization: 0, wrong_class: 0 },
    };
    let mut next = Vec::with_capacity(alive.len());
    for &i in alive {
        let fl = node.halfspace.covers(&s.x[i]);
        let ex = match (&node.unit, s.quant) {
            (Some(u), Some(qz)) => u.row_score(0, &qz.features[i]) > 0,
            _ => fl,
        };
        node.info.float_covered += usize::from(fl);
        node.info.changed_by_quantization += usize::from(fl != ex);
        if ex {
            node.info.covered += 1;
            node.info.wrong_class += usize::from(s.y[i] != class);
        } else {
            next.push(i);
        }
    }
    (node, next)
}

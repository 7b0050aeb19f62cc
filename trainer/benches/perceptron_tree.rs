//! Update throughput of the perceptron tree error correction procedure (Utgoff 1989, Table II):
//! instances per second presented to a trained tree, on 20 categorical attributes (60 symmetric
//! features) and on 100 numeric features. `…/encoded`: rows encoded once beforehand and presented
//! with [`PerceptronTree::update_encoded`], as batch training does every epoch (encoding not
//! timed); `…/raw`: [`PerceptronTree::update`] on raw inputs (binning and features included).
//!
//! `cargo bench -p ltu --bench perceptron_tree`

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ltu::data::encode;
use ltu::learners::perceptron_tree::{Encoded, FeatureSpace, Params, PerceptronTree};
use ltu::model::{InputKind, InputSpec};
use ltu::rng::Rng;

const N: usize = 4096;

/// `N` instances of 20 three-valued attributes; class: a noisy-free parity-like rule that a
/// single LTU cannot represent (so the tree splits and the LTUs keep correcting).
fn categorical_problem() -> (Vec<InputSpec>, Vec<Vec<i32>>, Vec<usize>) {
    let mut rng = Rng::new(1);
    let inputs = vec![InputSpec { kind: InputKind::Categorical { n_values: 3 }, missing: 3 }; 20];
    let rows: Vec<Vec<i32>> = (0..N).map(|_| (0..20).map(|_| rng.below(3) as i32).collect()).collect();
    let labels = rows
        .iter()
        .map(|r| usize::from((r[0] == 1) ^ (r[1] + r[2] + r[3] + r[4] > 4) ^ (r[5] == 2 && r[6] == 0)))
        .collect();
    (inputs, rows, labels)
}

/// `N` instances of 100 numeric inputs in `[-1000, 1000]`; class: the sign of a fixed random
/// hyperplane, flipped inside a slab (not linearly separable).
fn numeric_problem() -> (Vec<InputSpec>, Vec<Vec<i32>>, Vec<usize>) {
    let mut rng = Rng::new(2);
    let inputs = vec![InputSpec { kind: InputKind::Numeric { scale_exp: 0, offset: 0 }, missing: 0 }; 100];
    let w: Vec<i64> = (0..100).map(|_| rng.below(21) as i64 - 10).collect();
    let rows: Vec<Vec<i32>> =
        (0..N).map(|_| (0..100).map(|_| rng.below(2001) as i32 - 1000).collect()).collect();
    let labels = rows
        .iter()
        .map(|r| {
            let s: i64 = r.iter().zip(&w).map(|(&x, &w)| i64::from(x) * w).sum();
            usize::from((s > 0) ^ (r[0] > 500))
        })
        .collect();
    (inputs, rows, labels)
}

fn bench_updates(
    c: &mut Criterion,
    name: &str,
    (inputs, rows, labels): (Vec<InputSpec>, Vec<Vec<i32>>, Vec<usize>),
) {
    // Depth 6, as measured before the noise defaults, so that figures stay comparable.
    let p = Params { max_depth: 6, ..Params::default() };
    let space = FeatureSpace::standard(&inputs, &rows, p.numeric_max_abs, p.numeric_bins);
    assert!(encode::standard_features(&inputs, &rows, p.numeric_max_abs).len() == space.features().len());
    // Batch training encodes every row once, outside the epochs (`PerceptronTree::fit`).
    let encoded: Vec<Encoded> = rows.iter().map(|r| space.encode(r)).collect();
    let mut tree = PerceptronTree::new(space, 2, &p);
    // Warm up: grow the tree to its stopping rules first, so the benchmark measures steady state.
    for _ in 0..5 {
        for (e, &y) in encoded.iter().zip(&labels) {
            tree.update_encoded(e, y);
        }
    }
    eprintln!("{name}: {:?}", tree.stats());
    let mut group = c.benchmark_group("perceptron_tree_update");
    group.throughput(Throughput::Elements(N as u64));
    // What every epoch of `fit` does: present the encoded rows.
    let mut t = tree.clone();
    group.bench_function(format!("{name}/encoded"), |b| {
        b.iter(|| {
            for (e, &y) in encoded.iter().zip(&labels) {
                black_box(t.update_encoded(black_box(e), y));
            }
        })
    });
    // Streaming: raw inputs, binned and encoded inside every update.
    group.bench_function(format!("{name}/raw"), |b| {
        b.iter(|| {
            for (x, &y) in rows.iter().zip(&labels) {
                black_box(tree.update(black_box(x), y));
            }
        })
    });
    group.finish();
}

fn updates(c: &mut Criterion) {
    bench_updates(c, "20_categorical_attrs_60_features", categorical_problem());
    bench_updates(c, "100_numeric_features", numeric_problem());
}

criterion_group!(benches, updates);
criterion_main!(benches);

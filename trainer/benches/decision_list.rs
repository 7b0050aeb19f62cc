//! Decision-list benchmarks (plain harness: `cargo bench -p ltu --bench decision_list`).
//!
//! 1. Figure 4 of Marchand & Golea (1993, section 6.1): the largest cluster of negative
//!    examples separable from the positives of two parallel halfspaces 0.5 apart in
//!    `[-1, 1]^16`, found by `Find_large_neg_subset`, and by `mult_IncLP` and the pocket
//!    algorithm with ratchet given the same time. (The paper's optimum is half the negatives.)
//! 2. Training times of the section 3 greedy method at the table 1 settings.
//!
//! `LTU_BENCH_QUICK=1` runs a smaller version.

use std::time::Instant;

use ltu::learners::decision_list::{self as dl, HsiShape, Params, Sample, Shape};
use ltu::rng::Rng;

// Paper data generators, shared with the reproduction example (not part of the library).
#[path = "../examples/paper/ndl.rs"]
mod synth;

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` does not: run tiny then.
    let quick = std::env::var_os("LTU_BENCH_QUICK").is_some() || !std::env::args().any(|a| a == "--bench");
    let (targets, runs, sizes): (usize, usize, &[usize]) =
        if quick { (1, 1, &[150]) } else { (3, 2, &[150, 300, 600]) };
    println!("figure 4: n = 16, {targets} targets x {runs} training sets per point");
    println!("| m | negatives | Find_large_neg_subset | mult_IncLP | pocket + ratchet | time (ms) |");
    println!("|---|---|---|---|---|---|");
    for &m in sizes {
        let p = synth::figure4_point(16, m, targets, runs, 4 + m as u64);
        println!(
            "| {m} | {:.0} | {:.1} ± {:.1} | {:.1} ± {:.1} | {:.1} ± {:.1} | {:.1} |",
            p.negatives,
            p.find_large.0,
            p.find_large.1,
            p.mult_inclp.0,
            p.mult_inclp.1,
            p.pocket.0,
            p.pocket.1,
            p.seconds * 1e3
        );
    }
    let settings: &[(usize, usize)] = if quick { &[(10, 600)] } else { &[(10, 3000), (20, 4000)] };
    for &(n, m) in settings {
        let mut rng = Rng::new(n as u64);
        let normals = synth::orthogonal_normals(n, &mut rng);
        let (x, y) = synth::orthogonal_intersection(&normals, m / 2, m / 2, &mut rng);
        let s = Sample { x: &x, y: &y, n_classes: 2, quant: None };
        let t = Instant::now();
        let l = dl::learn(
            &s,
            Shape::Hsi { shape: HsiShape::Intersection, positive: 1 },
            &Params::unbounded_search(),
            1,
        )
        .expect("valid sample");
        println!(
            "table 1 setting n = {n}, m = {m}: k = {} in {:.2} s ({} LP trials, {} skipped)",
            l.nodes.len() + 1,
            t.elapsed().as_secs_f64(),
            l.report.lp.lp_trials,
            l.report.lp.skipped
        );
    }
}

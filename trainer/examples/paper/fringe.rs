//! The synthetic Boolean targets of Pagallo (1989), section 6, seeded: shared by the reproduction
//! example (`reproduce_fringe`) and the FRINGE tests, which include this file with
//! `#[path = ...] mod`. Paper data generators are not part of the `ltu` library.
//!
//! Every problem has `n_attrs` Boolean attributes drawn independently and uniformly; the ones
//! the target does not read are the paper's "additional irrelevant attributes". Rows are raw
//! inputs `0`/`1` of two-valued categorical inputs ([`boolean_inputs`]), classes `1` = positive.
//!
//! The paper's Table 1 (attributes, terms and term lengths of each target) did not survive in
//! our copy of the text, so the sizes here are ours, chosen from what the text says: dnf1–dnf4
//! are small random DNF in the manner of Pagallo & Haussler (1988), dnf2 and dnf3 have one or two
//! terms much longer than the others, and formula (1) must give 1980 learning examples for dnf4
//! at e = 10% ([`sample_size`]: 33 literals over 64 attributes).
//!
//! The random DNF generator ([`random_dnf`]): for each requested term length `l`, draw `l`
//! distinct attributes uniformly from all `n_attrs`, negate each with probability 1/2, and redraw
//! the term if it would make the formula redundant (it contains or is contained in an earlier
//! term, or it and an earlier term differ in the sign of one literal only, so the two would
//! merge into a shorter term). Each named target is generated once from a fixed seed, so
//! `dnf4` is one function, as in the paper, and only the samples change between runs.

#![allow(dead_code)] // each includer uses part of it

use ltu::model::{InputKind, InputSpec};
use ltu::rng::Rng;

/// A Boolean target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A DNF: terms of `(attribute, positive)` literals.
    Dnf(Vec<Vec<(usize, bool)>>),
    /// The multiplexor: `address` address bits (attributes `0..address`) select one of the next
    /// `2^address` data bits (mult11: 3 + 8).
    Multiplexor {
        /// Address bits.
        address: usize,
    },
    /// Parity of attributes `0..n`.
    Parity(usize),
    /// Majority of attributes `0..n` (`n` odd): true when more than half are true.
    Majority(usize),
}

fn binomial(n: usize, k: usize) -> usize {
    (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
}

impl Target {
    /// The target's value on `x`.
    pub fn eval(&self, x: &[bool]) -> bool {
        match self {
            Target::Dnf(terms) => terms.iter().any(|t| t.iter().all(|&(a, pos)| x[a] == pos)),
            Target::Multiplexor { address } => {
                let sel = (0..*address).fold(0, |acc, i| acc << 1 | usize::from(x[i]));
                x[address + sel]
            }
            Target::Parity(n) => x[..*n].iter().filter(|&&b| b).count() % 2 == 1,
            Target::Majority(n) => 2 * x[..*n].iter().filter(|&&b| b).count() > *n,
        }
    }

    /// Terms of the smallest DNF.
    pub fn terms(&self) -> usize {
        match self {
            Target::Dnf(t) => t.len(),
            Target::Multiplexor { address } => 1 << address,
            Target::Parity(n) => 1 << (n - 1),
            Target::Majority(n) => binomial(*n, n / 2 + 1),
        }
    }

    /// Literals of the smallest DNF (the paper's `K`).
    pub fn literals(&self) -> usize {
        match self {
            Target::Dnf(t) => t.iter().map(Vec::len).sum(),
            Target::Multiplexor { address } => (1 << address) * (address + 1),
            Target::Parity(n) => (1 << (n - 1)) * n,
            Target::Majority(n) => binomial(*n, n / 2 + 1) * (n / 2 + 1),
        }
    }

    /// Mean and standard deviation of the term lengths of the smallest DNF.
    pub fn term_length(&self) -> (f64, f64) {
        let lens: Vec<f64> = match self {
            Target::Dnf(t) => t.iter().map(|t| t.len() as f64).collect(),
            _ => vec![self.literals() as f64 / self.terms() as f64],
        };
        let m = lens.iter().sum::<f64>() / lens.len() as f64;
        let v = lens.iter().map(|l| (l - m) * (l - m)).sum::<f64>() / lens.len() as f64;
        (m, v.sqrt())
    }
}

/// A named problem: a target over `n_attrs` attributes.
#[derive(Debug, Clone)]
pub struct Problem {
    /// The paper's name.
    pub name: &'static str,
    /// Attributes, relevant and irrelevant.
    pub n_attrs: usize,
    /// The target concept.
    pub target: Target,
}

/// A random irredundant DNF over `n_attrs` attributes with the given term lengths (see the
/// module docs).
///
/// # Panics
/// If a length exceeds `n_attrs` or no irredundant term is found in 10 000 draws.
pub fn random_dnf(n_attrs: usize, lengths: &[usize], rng: &mut Rng) -> Vec<Vec<(usize, bool)>> {
    let mut terms: Vec<Vec<(usize, bool)>> = Vec::new();
    for &l in lengths {
        assert!(l <= n_attrs, "term length {l} > {n_attrs} attributes");
        let mut tries = 0;
        loop {
            tries += 1;
            assert!(tries < 10_000, "no irredundant term of length {l}");
            let mut attrs: Vec<usize> = (0..n_attrs).collect();
            rng.shuffle(&mut attrs);
            let mut t: Vec<(usize, bool)> = attrs[..l].iter().map(|&a| (a, rng.below(2) == 1)).collect();
            t.sort_unstable();
            let subset = |a: &[(usize, bool)], b: &[(usize, bool)]| a.iter().all(|l| b.contains(l));
            let merges = |a: &[(usize, bool)], b: &[(usize, bool)]| {
                a.len() == b.len()
                    && a.iter().zip(b).all(|(x, y)| x.0 == y.0)
                    && a.iter().zip(b).filter(|(x, y)| x.1 != y.1).count() == 1
            };
            if terms.iter().all(|u| !subset(u, &t) && !subset(&t, u) && !merges(u, &t)) {
                terms.push(t);
                break;
            }
        }
    }
    terms
}

/// The paper's test functions (section 6) with our sizes (see the module docs).
pub fn problems() -> Vec<Problem> {
    let dnf = |name, n_attrs, lengths: &[usize], seed| Problem {
        name,
        n_attrs,
        target: Target::Dnf(random_dnf(n_attrs, lengths, &mut Rng::new(seed))),
    };
    vec![
        dnf("dnf1", 80, &[4, 4, 5, 5, 5, 5, 6, 6, 6], 1),
        dnf("dnf2", 40, &[3, 3, 4, 4, 4, 4, 8, 9], 2),
        dnf("dnf3", 32, &[3, 3, 4, 4, 4, 8], 3),
        dnf("dnf4", 64, &[3, 3, 3, 3, 3, 3, 3, 4, 4, 4], 4),
        Problem { name: "mult11", n_attrs: 32, target: Target::Multiplexor { address: 3 } },
        Problem { name: "par4", n_attrs: 16, target: Target::Parity(4) },
        Problem { name: "par5", n_attrs: 32, target: Target::Parity(5) },
        Problem { name: "maj11", n_attrs: 32, target: Target::Majority(11) },
    ]
}

/// Formula (1) as we reconstruct it: `m = ⌈K · log2(N) / e⌉` learning examples for a target of
/// `K` literals over `N` attributes and error `e` (`error_percent` / 100) — the bits needed to
/// write the target down (each literal names one of `N` attributes) times the inverse of the
/// error. dnf4 (K = 33, N = 64, e = 10%) gives 33 · 6 / 0.1 = 1980.
pub fn sample_size(k: usize, n: usize, error_percent: u32) -> usize {
    let bits = k as f64 * (n as f64).log2();
    // Integer percent keeps exact cases exact (198 · 100 / 10 = 1980, no rounding up to 1981).
    (bits * 100.0 / f64::from(error_percent)).ceil() as usize
}

/// `n` two-valued categorical inputs (raw `0`/`1`).
pub fn boolean_inputs(n: usize) -> Vec<InputSpec> {
    vec![InputSpec { kind: InputKind::Categorical { n_values: 2 }, missing: 2 }; n]
}

/// `m` uniform examples of `problem`. With probability `class_noise` a label is flipped; with
/// probability `attribute_noise` each attribute value is flipped, independently, after the
/// label was computed from the true values.
pub fn sample(
    problem: &Problem,
    m: usize,
    class_noise: f64,
    attribute_noise: f64,
    rng: &mut Rng,
) -> (Vec<Vec<i32>>, Vec<usize>) {
    let (mut rows, mut labels) = (Vec::with_capacity(m), Vec::with_capacity(m));
    for _ in 0..m {
        let x: Vec<bool> = (0..problem.n_attrs).map(|_| rng.below(2) == 1).collect();
        let mut y = problem.target.eval(&x);
        if class_noise > 0.0 && rng.f64() < class_noise {
            y = !y;
        }
        let row = x
            .iter()
            .map(|&b| {
                let flip = attribute_noise > 0.0 && rng.f64() < attribute_noise;
                i32::from(b != flip)
            })
            .collect();
        rows.push(row);
        labels.push(usize::from(y));
    }
    (rows, labels)
}

//! A small deterministic pseudo-random number generator that ltu owns.
//!
//! Training must give the same model for the same seed on every platform and
//! across dependency upgrades, so the generator is written out here instead of
//! taken from a crate whose streams may change between versions:
//!
//! - the generator is xoshiro256** (Blackman & Vigna, 2018), whose 256-bit
//!   state is seeded from a `u64` through SplitMix64 as its authors recommend;
//! - every derived value ([`Rng::below`], [`Rng::f64`], [`Rng::normal`],
//!   [`Rng::shuffle`]) is computed with integer arithmetic or the IEEE-754
//!   basic operations (`+ - * /` and `sqrt`), which are correctly rounded and
//!   therefore bit-identical everywhere. In particular [`Rng::normal`] does not
//!   call the platform's `ln`, whose last bit may differ between C libraries.
//!
//! The streams are part of ltu's reproducibility promise: changing any of them
//! changes trained models, so the unit tests pin known values.
//!
//! ```
//! use ltu::rng::Rng;
//!
//! let mut rng = Rng::new(42);
//! let mut order: Vec<usize> = (0..5).collect();
//! rng.shuffle(&mut order);
//! assert_eq!(Rng::new(42).next_u64(), Rng::new(42).next_u64());
//! assert!(rng.below(10) < 10);
//! ```

/// SplitMix64 increment (the golden ratio in 64-bit fixed point).
const GOLDEN_GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// The SplitMix64 output function (a bijection on `u64`).
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Fills a xoshiro256** state from a SplitMix64 generator started at `state`.
///
/// Four consecutive SplitMix64 outputs are never all zero (the output
/// function is a bijection and the four counters differ), so the result is a
/// valid xoshiro state.
fn seed_state(mut state: u64) -> [u64; 4] {
    let mut s = [0u64; 4];
    for word in &mut s {
        state = state.wrapping_add(GOLDEN_GAMMA);
        *word = mix64(state);
    }
    s
}

/// Deterministic pseudo-random number generator (xoshiro256** seeded by
/// SplitMix64).
///
/// Not cryptographically secure. Cloning a generator clones its position in
/// the stream: the clone and the original then produce the same values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// Creates a generator from a 64-bit seed. Every seed, including 0, gives
    /// a different, valid stream.
    pub fn new(seed: u64) -> Rng {
        Rng { s: seed_state(seed) }
    }

    /// Returns the next 64 random bits (the xoshiro256** output).
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Returns a uniformly distributed integer in `0..n`, without modulo bias
    /// (Lemire's multiply-and-reject method).
    ///
    /// # Panics
    ///
    /// Panics if `n == 0`, since the range `0..0` is empty.
    pub fn below(&mut self, n: usize) -> usize {
        assert!(n > 0, "Rng::below(0): the range 0..0 is empty");
        let n = n as u64;
        let mut m = u128::from(self.next_u64()) * u128::from(n);
        if (m as u64) < n {
            // 2^64 mod n: outputs whose low half falls below it are rejected
            // so that every result has the same number of preimages.
            let threshold = n.wrapping_neg() % n;
            while (m as u64) < threshold {
                m = u128::from(self.next_u64()) * u128::from(n);
            }
        }
        // The high half is < n, which came from a usize.
        (m >> 64) as usize
    }

    /// Returns a uniformly distributed `f64` in `[0, 1)`: a multiple of
    /// 2^-53 built from the top 53 bits of [`Rng::next_u64`].
    pub fn f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Returns a standard normal variate (mean 0, variance 1), by Marsaglia's
    /// polar method with a portable logarithm, so the value is bit-identical
    /// on every platform. Each call consumes an even number (usually two) of
    /// [`Rng::next_u64`] outputs; the second variate of each pair is
    /// discarded to keep the generator state small.
    pub fn normal(&mut self) -> f64 {
        loop {
            let u = 2.0 * self.f64() - 1.0;
            let v = 2.0 * self.f64() - 1.0;
            let s = u * u + v * v;
            if s > 0.0 && s < 1.0 {
                return u * (-2.0 * portable_ln(s) / s).sqrt();
            }
        }
    }

    /// Shuffles `items` in place with the Fisher–Yates algorithm; every
    /// permutation is equally likely.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }

    /// Derives an independent generator for sub-stream `stream` without
    /// advancing `self`.
    ///
    /// The same state and stream number always give the same child, and
    /// different stream numbers give unrelated sequences, so work split over
    /// folds or threads (`rng.fork(fold)`) is reproducible whatever order it
    /// runs in.
    pub fn fork(&self, stream: u64) -> Rng {
        let [a, b, c, d] = self.s;
        let key = a ^ b.rotate_left(16) ^ c.rotate_left(32) ^ d.rotate_left(48);
        Rng { s: seed_state(key ^ mix64(stream.wrapping_add(GOLDEN_GAMMA))) }
    }
}

/// Natural logarithm of a positive, finite `x` using only IEEE-754 basic
/// operations, so that its result does not depend on the platform's libm.
///
/// `x = m * 2^e` with `m` in `[sqrt(1/2), sqrt(2))`, then
/// `ln m = 2 atanh(z)` with `z = (m - 1) / (m + 1)`, `|z| < 0.1716`, summed to
/// 13 odd powers (truncation error below 1e-18). Accurate to a few ulp.
fn portable_ln(x: f64) -> f64 {
    debug_assert!(x > 0.0 && x.is_finite());
    let mut x = x;
    let mut e: i64 = 0;
    if x < f64::MIN_POSITIVE {
        // Subnormal: scale into the normal range first (exact).
        x *= (1u64 << 54) as f64;
        e -= 54;
    }
    let bits = x.to_bits();
    e += ((bits >> 52) & 0x7ff) as i64 - 1023;
    let mut m = f64::from_bits((bits & ((1u64 << 52) - 1)) | (1023u64 << 52));
    if m > std::f64::consts::SQRT_2 {
        m *= 0.5;
        e += 1;
    }
    let z = (m - 1.0) / (m + 1.0);
    let z2 = z * z;
    let mut series = 0.0;
    for k in (1..=12u32).rev() {
        series = (series + 1.0 / f64::from(2 * k + 1)) * z2;
    }
    let ln_m = 2.0 * z * (1.0 + series);
    e as f64 * std::f64::consts::LN_2 + ln_m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_matches_reference() {
        // Reference outputs of Vigna's splitmix64.c started at 0.
        let mut state = 0u64;
        let mut next = || {
            state = state.wrapping_add(GOLDEN_GAMMA);
            mix64(state)
        };
        assert_eq!(next(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(next(), 0x6e78_9e6a_a1b9_65f4);
        assert_eq!(next(), 0x06c4_5d18_8009_454f);
    }

    #[test]
    fn xoshiro_matches_reference_from_state() {
        // Vigna's xoshiro256starstar.c from state {1, 2, 3, 4}.
        let mut rng = Rng { s: [1, 2, 3, 4] };
        let got: Vec<u64> = (0..4).map(|_| rng.next_u64()).collect();
        assert_eq!(got, [11520, 0, 1_509_978_240, 1_215_971_899_390_074_240]);
    }

    #[test]
    fn seeded_streams_match_reference() {
        // The C reference, seeded with four splitmix64 outputs.
        let mut rng = Rng::new(0);
        let got: Vec<u64> = (0..4).map(|_| rng.next_u64()).collect();
        assert_eq!(
            got,
            [0x99ec_5f36_cb75_f2b4, 0xbf6e_1f78_4956_452a, 0x1a5f_849d_4933_e6e0, 0x6aa5_94f1_262d_2d2c]
        );
        let mut rng = Rng::new(42);
        let got: Vec<u64> = (0..4).map(|_| rng.next_u64()).collect();
        assert_eq!(
            got,
            [0x1578_0b2e_0c2e_c716, 0x6104_d986_6d11_3a7e, 0xae17_5332_39e4_99a1, 0xecb8_ad47_03b3_60a1]
        );
    }

    #[test]
    fn derived_values_are_pinned() {
        // Pinned so that an accidental change of any derived stream (and so
        // of every trained model) shows up here.
        let mut rng = Rng::new(7);
        let below: Vec<usize> = (0..8).map(|_| rng.below(10)).collect();
        assert_eq!(below, PINNED_BELOW);
        let f = rng.f64();
        assert_eq!(f.to_bits(), PINNED_F64_BITS, "{f}");
        let n = rng.normal();
        assert_eq!(n.to_bits(), PINNED_NORMAL_BITS, "{n}");
        let mut v: Vec<u8> = (0..8).collect();
        rng.shuffle(&mut v);
        assert_eq!(v, PINNED_SHUFFLE);
    }

    // Computed by an independent C implementation of the same algorithms on
    // top of Vigna's reference code (the normal value with glibc's `log`,
    // which happens to agree bit for bit with `portable_ln` here).
    const PINNED_BELOW: [usize; 8] = [7, 2, 8, 9, 9, 8, 0, 1];
    const PINNED_F64_BITS: u64 = 0x3fd9_d653_e5b2_b220; // 0.40370652610252655
    const PINNED_NORMAL_BITS: u64 = 0xbff2_edf6_8e75_53e9; // -1.1830964627054021
    const PINNED_SHUFFLE: [u8; 8] = [1, 3, 0, 4, 2, 7, 6, 5];

    #[test]
    fn below_is_in_range_and_covers_it() {
        let mut rng = Rng::new(1);
        let mut seen = [0usize; 7];
        for _ in 0..7000 {
            seen[rng.below(7)] += 1;
        }
        for (value, &count) in seen.iter().enumerate() {
            assert!((800..1200).contains(&count), "value {value}: {count}");
        }
        assert_eq!(rng.below(1), 0);
        // A range that is not a power of two near 2^64 exercises rejection.
        let big = usize::MAX / 3 * 2;
        for _ in 0..100 {
            assert!(rng.below(big) < big);
        }
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn below_rejects_exactly_the_biased_outputs() {
        // n = 2^63 + 1: 2^64 mod n = 2^63 - 1, so about half of all outputs
        // must be rejected. Replay the raw stream and check that `below`
        // returns the high half of the first accepted product, every time.
        let n: u64 = (1 << 63) + 1;
        let threshold = n.wrapping_neg() % n;
        assert_eq!(threshold, (1 << 63) - 1);
        let mut rng = Rng::new(5);
        let mut raw = rng.clone();
        let mut rejected = 0;
        for _ in 0..200 {
            let expected = loop {
                let m = u128::from(raw.next_u64()) * u128::from(n);
                if (m as u64) >= threshold {
                    break (m >> 64) as usize;
                }
                rejected += 1;
            };
            assert_eq!(rng.below(n as usize), expected);
            assert_eq!(rng, raw, "below consumed a different number of outputs");
        }
        assert!(rejected > 50, "rejection path barely exercised: {rejected}");
    }

    #[test]
    #[should_panic(expected = "Rng::below(0)")]
    fn below_zero_panics() {
        Rng::new(0).below(0);
    }

    #[test]
    fn f64_is_in_unit_interval_with_mean_one_half() {
        let mut rng = Rng::new(3);
        let n = 100_000;
        let mut sum = 0.0;
        for _ in 0..n {
            let x = rng.f64();
            assert!((0.0..1.0).contains(&x));
            sum += x;
        }
        let mean = sum / n as f64;
        assert!((mean - 0.5).abs() < 0.005, "{mean}");
    }

    #[test]
    fn normal_has_unit_moments() {
        let mut rng = Rng::new(11);
        let n = 200_000;
        let xs: Vec<f64> = (0..n).map(|_| rng.normal()).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n as f64;
        assert!(mean.abs() < 0.01, "mean {mean}");
        assert!((var - 1.0).abs() < 0.02, "variance {var}");
        let within_one = xs.iter().filter(|x| x.abs() < 1.0).count() as f64 / n as f64;
        assert!((within_one - 0.6827).abs() < 0.01, "{within_one}");
    }

    #[test]
    fn portable_ln_agrees_with_std() {
        let mut rng = Rng::new(9);
        for i in 0..10_000 {
            let x = match i {
                0 => 1.0,
                1 => f64::MIN_POSITIVE / 1024.0,
                2 => f64::MAX,
                3 => 2.0,
                _ => rng.f64().max(1e-300) * 10f64.powi((i % 40) - 20),
            };
            let (got, want) = (portable_ln(x), x.ln());
            let tol = 4.0 * f64::EPSILON * want.abs().max(1.0);
            assert!((got - want).abs() <= tol, "ln({x}) = {got}, std {want}");
        }
        assert_eq!(portable_ln(1.0), 0.0);
    }

    #[test]
    fn shuffle_is_a_permutation_and_uniform() {
        let mut rng = Rng::new(13);
        let mut firsts = [0usize; 4];
        for _ in 0..4000 {
            let mut v = [0, 1, 2, 3];
            rng.shuffle(&mut v);
            let mut sorted = v;
            sorted.sort_unstable();
            assert_eq!(sorted, [0, 1, 2, 3]);
            firsts[v[0]] += 1;
        }
        for &count in &firsts {
            assert!((850..1150).contains(&count), "{firsts:?}");
        }
        let mut empty: [u8; 0] = [];
        rng.shuffle(&mut empty);
    }

    #[test]
    fn same_seed_same_stream_different_seed_different_stream() {
        let a: Vec<u64> = {
            let mut r = Rng::new(99);
            (0..16).map(|_| r.next_u64()).collect()
        };
        let b: Vec<u64> = {
            let mut r = Rng::new(99);
            (0..16).map(|_| r.next_u64()).collect()
        };
        let c: Vec<u64> = {
            let mut r = Rng::new(100);
            (0..16).map(|_| r.next_u64()).collect()
        };
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn fork_is_deterministic_does_not_advance_and_separates_streams() {
        let parent = Rng::new(21);
        let before = parent.clone();
        let mut f0 = parent.fork(0);
        let mut f0_again = parent.fork(0);
        let mut f1 = parent.fork(1);
        assert_eq!(parent, before);
        let x0: Vec<u64> = (0..8).map(|_| f0.next_u64()).collect();
        let x0b: Vec<u64> = (0..8).map(|_| f0_again.next_u64()).collect();
        let x1: Vec<u64> = (0..8).map(|_| f1.next_u64()).collect();
        let mut p = parent.clone();
        let xp: Vec<u64> = (0..8).map(|_| p.next_u64()).collect();
        assert_eq!(x0, x0b);
        assert_ne!(x0, x1);
        assert_ne!(x0, xp);
        assert_ne!(x1, xp);
        // Forking from a different parent position gives a different child.
        let mut advanced = parent.clone();
        advanced.next_u64();
        assert_ne!(advanced.fork(0), parent.fork(0));
    }
}

//! One seeded generator for what needs reproducible randomness outside the
//! settler's playouts (self-play games of [`crate::selfplay`] for corpora,
//! benchmarks and property tests, 大解放 self-play, random test positions):
//! the same seed gives the same games on every machine and in every
//! version, which the tests and `verdict synth` rely on.
//!
//! The playouts keep their own xorshift64* (`settle::playout`): it is in
//! the hot path and seeded from the position.

/// SplitMix64: small, fast, and good enough for a playing policy.
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

/// SplitMix64's step: the increment between states.
pub(crate) const GOLDEN: u64 = 0x9e37_79b9_7f4a_7c15;

/// SplitMix64's output function: a bijective mixer whose outputs on
/// consecutive inputs pass BigCrush. `const`, so that the board's Zobrist
/// table is built from it at compile time.
pub(crate) const fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(GOLDEN);
        mix(self.0)
    }

    /// Uniform in `0..n` (`n > 0`), by multiplying, not by a remainder.
    pub fn below(&mut self, n: usize) -> usize {
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference outputs of SplitMix64 from seed 0 (Vigna's
    /// splitmix64.c): corpora generated before and after stay the same.
    #[test]
    fn the_reference_sequence() {
        let mut r = SplitMix64(0);
        assert_eq!(r.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(r.next_u64(), 0x6e78_9e6a_a1b9_65f4);
        assert_eq!(r.next_u64(), 0x06c4_5d18_8009_454f);
    }
}

//! Identifiers nobody can guess: lease and worker ids, the names of staging
//! folders.
//!
//! A lease id is the only thing that lets a worker heartbeat or complete a
//! shard, so it must not be predictable from the ids seen before it. Std's
//! `RandomState` is keyed from the operating system's random source once per
//! thread; hashing a counter with it gives values that cannot be told from
//! random without those keys. No dependency is needed for that.

use std::hash::{BuildHasher, RandomState};
use std::sync::atomic::{AtomicU64, Ordering};

/// A random, non-zero 64-bit value.
pub fn random_u64() -> u64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let keyed = RandomState::new();
    keyed.hash_one((n, std::process::id())).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_do_not_follow_each_other() {
        let ids: Vec<u64> = (0..1000).map(|_| random_u64()).collect();
        let distinct: std::collections::HashSet<u64> = ids.iter().copied().collect();
        assert_eq!(distinct.len(), ids.len());
        // Consecutive ids differ in about half their bits, not by one.
        let close = ids
            .windows(2)
            .filter(|w| w[0].abs_diff(w[1]) < 1 << 32)
            .count();
        assert!(close < 5, "{close} pairs of consecutive ids are close");
    }
}

//! Time as the coordinator's state sees it: lease deadlines, workers last
//! seen (monotonic), and when jobs were made and ended (wall clock, for
//! retention and the manifest). A [`Clock`] so that tests can move time on
//! instead of sleeping.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// A source of time.
pub trait Clock: Send + Sync + std::fmt::Debug {
    /// Monotonic time: lease deadlines, workers last seen.
    fn now(&self) -> Instant;

    /// Seconds since the Unix epoch: when jobs were made and ended.
    fn unix(&self) -> i64;
}

/// The machine's clocks.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Instant {
        Instant::now()
    }

    fn unix(&self) -> i64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64)
    }
}

/// A clock that stands still until a test moves it on; both its times move
/// together.
#[cfg(test)]
#[derive(Debug)]
pub struct FakeClock {
    start: Instant,
    start_unix: i64,
    elapsed: std::sync::Mutex<Duration>,
}

#[cfg(test)]
impl FakeClock {
    /// A clock at the real time now, standing still.
    pub fn new() -> FakeClock {
        FakeClock {
            start: Instant::now(),
            start_unix: SystemClock.unix(),
            elapsed: std::sync::Mutex::new(Duration::ZERO),
        }
    }

    /// Moves time on by `d`.
    pub fn advance(&self, d: Duration) {
        *self.elapsed.lock().unwrap() += d;
    }

    fn elapsed(&self) -> Duration {
        *self.elapsed.lock().unwrap()
    }
}

#[cfg(test)]
impl Clock for FakeClock {
    fn now(&self) -> Instant {
        self.start + self.elapsed()
    }

    fn unix(&self) -> i64 {
        self.start_unix + self.elapsed().as_secs() as i64
    }
}

/// How long ago `then` was, never negative.
pub fn since(clock: &dyn Clock, then: Instant) -> Duration {
    clock.now().saturating_duration_since(then)
}

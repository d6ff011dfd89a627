//! Counters kept by the proxy, and the summary printed on shutdown.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;
use toolsift::sse::Outcome;

/// Live counters of a running proxy (see [`Proxy::stats`](crate::proxy::Proxy::stats)).
#[derive(Debug, Default)]
pub struct Stats {
    requests: AtomicU64,
    streams: AtomicU64,
    upstream_errors: AtomicU64,
    failures: AtomicU64,
    disconnects: AtomicU64,
    calls: AtomicU64,
    incomplete_calls: AtomicU64,
    max_queued: AtomicUsize,
    upstream_bytes: AtomicU64,
    repairs: Mutex<BTreeMap<&'static str, u64>>,
}

/// A copy of the counters at one moment.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StatsSnapshot {
    /// Requests received.
    pub requests: u64,
    /// Streaming chat completions served.
    pub streams: u64,
    /// Upstream answers with an error status, passed through.
    pub upstream_errors: u64,
    /// Requests that failed in the proxy (bad request, upstream unreachable or unreadable).
    pub failures: u64,
    /// Streams whose upstream ended without `[DONE]` (or sent an error).
    pub disconnects: u64,
    /// Calls released.
    pub calls: u64,
    /// Calls not released.
    pub incomplete_calls: u64,
    /// The most chunks ever waiting in one response's channel (never above
    /// [`ProxyOptions::channel_capacity`](crate::proxy::ProxyOptions::channel_capacity)).
    pub max_queued: usize,
    /// Bytes of streaming bodies read from the upstream.
    pub upstream_bytes: u64,
    /// How many calls each repair was applied to, by repair name.
    pub repairs: BTreeMap<&'static str, u64>,
}

impl Stats {
    pub(crate) fn request(&self) {
        self.requests.fetch_add(1, Relaxed);
    }

    pub(crate) fn stream(&self) {
        self.streams.fetch_add(1, Relaxed);
    }

    pub(crate) fn upstream_error(&self) {
        self.upstream_errors.fetch_add(1, Relaxed);
    }

    pub(crate) fn failure(&self) {
        self.failures.fetch_add(1, Relaxed);
    }

    pub(crate) fn disconnect(&self) {
        self.disconnects.fetch_add(1, Relaxed);
    }

    pub(crate) fn queued(&self, queued: usize) {
        self.max_queued.fetch_max(queued, Relaxed);
    }

    pub(crate) fn upstream_read(&self, bytes: usize) {
        self.upstream_bytes.fetch_add(bytes as u64, Relaxed);
    }

    pub(crate) fn outcome(&self, outcome: &Outcome) {
        self.calls
            .fetch_add(outcome.released_calls() as u64, Relaxed);
        self.incomplete_calls
            .fetch_add(outcome.incomplete_calls() as u64, Relaxed);
        let mut repairs = self.repairs.lock().unwrap_or_else(|e| e.into_inner());
        for name in outcome.repairs().names() {
            *repairs.entry(name).or_default() += 1;
        }
    }

    /// Copy the counters.
    pub fn snapshot(&self) -> StatsSnapshot {
        StatsSnapshot {
            requests: self.requests.load(Relaxed),
            streams: self.streams.load(Relaxed),
            upstream_errors: self.upstream_errors.load(Relaxed),
            failures: self.failures.load(Relaxed),
            disconnects: self.disconnects.load(Relaxed),
            calls: self.calls.load(Relaxed),
            incomplete_calls: self.incomplete_calls.load(Relaxed),
            max_queued: self.max_queued.load(Relaxed),
            upstream_bytes: self.upstream_bytes.load(Relaxed),
            repairs: self
                .repairs
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone(),
        }
    }
}

impl fmt::Display for StatsSnapshot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "requests={} streams={} upstream_errors={} failures={} disconnects={} calls={} incomplete_calls={}",
            self.requests,
            self.streams,
            self.upstream_errors,
            self.failures,
            self.disconnects,
            self.calls,
            self.incomplete_calls
        )?;
        if !self.repairs.is_empty() {
            f.write_str(" repairs=")?;
            for (i, (name, count)) in self.repairs.iter().enumerate() {
                let sep = if i == 0 { "" } else { "," };
                write!(f, "{sep}{name}:{count}")?;
            }
        }
        Ok(())
    }
}

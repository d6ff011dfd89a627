//! Counters kept by the proxy: the summary printed on shutdown, and what `GET /metrics`
//! reports (rendered by [`prometheus`](crate::proxy::prometheus)).

use std::collections::BTreeMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::Duration;
use toolsift::sse::Outcome;

/// The upper bounds of the latency histogram's buckets, in seconds.
pub const LATENCY_BUCKETS: [f64; 14] = [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0,
];

/// Live counters of a running proxy (see [`Proxy::metrics`](crate::proxy::Proxy::metrics)).
#[derive(Debug, Default)]
pub struct Metrics {
    requests: AtomicU64,
    streams: AtomicU64,
    upstream_errors: AtomicU64,
    failures: AtomicU64,
    disconnects: AtomicU64,
    calls: AtomicU64,
    incomplete_calls: AtomicU64,
    upstream_calls: AtomicU64,
    markup_stripped: AtomicU64,
    calls_in_reasoning: AtomicU64,
    tool_choice_unmet: AtomicU64,
    max_queued: AtomicUsize,
    upstream_bytes: AtomicU64,
    maps: Mutex<Maps>,
}

#[derive(Clone, Debug, Default)]
struct Maps {
    repairs: BTreeMap<&'static str, u64>,
    routes: BTreeMap<String, u64>,
    not_released: BTreeMap<String, u64>,
    dialects: BTreeMap<String, u64>,
    upstream_failures: BTreeMap<&'static str, u64>,
    latency: Vec<u64>,
    latency_sum: f64,
    latency_count: u64,
}

/// A copy of the counters at one moment.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MetricsSnapshot {
    /// Requests received.
    pub requests: u64,
    /// Streaming responses served.
    pub streams: u64,
    /// Upstream answers with an error status, passed through.
    pub upstream_errors: u64,
    /// Requests that failed in the proxy (bad request, upstream unreachable, timed out or
    /// unreadable).
    pub failures: u64,
    /// Streams whose upstream ended without `[DONE]` (or sent an error, or went quiet).
    pub disconnects: u64,
    /// Calls released.
    pub calls: u64,
    /// Calls not released.
    pub incomplete_calls: u64,
    /// Tool calls the upstream sent already parsed (`tool_calls`), checked by the proxy.
    pub upstream_calls: u64,
    /// Markers stripped from what clients received (stray closers, end-of-turn tokens).
    pub markup_stripped: u64,
    /// Call openers the model wrote inside reasoning, left there (not executed).
    pub calls_in_reasoning: u64,
    /// Responses that released no call although the request's `tool_choice` required
    /// one (`toolsift.tool_choice_unmet`).
    pub tool_choice_unmet: u64,
    /// The most chunks ever waiting in one response's channel (never above
    /// [`ProxyOptions::channel_capacity`](crate::proxy::ProxyOptions::channel_capacity)).
    pub max_queued: usize,
    /// Bytes of streaming bodies read from the upstream.
    pub upstream_bytes: u64,
    /// How many calls each repair was applied to, by repair name.
    pub repairs: BTreeMap<&'static str, u64>,
    /// Requests by route (`chat_completions`, `messages`, `responses`, `completions`,
    /// `models`, `passthrough`, `health`, `metrics`, `not_found`).
    pub routes: BTreeMap<String, u64>,
    /// Calls not released, by reason (`truncated`, `invalid`, ...).
    pub not_released: BTreeMap<String, u64>,
    /// Parsed responses (choices) by the dialect in force.
    pub dialects: BTreeMap<String, u64>,
    /// Upstream requests that failed, by kind (`unreachable`, `timeout`, `broken`,
    /// `unreadable`).
    pub upstream_failures: BTreeMap<&'static str, u64>,
    /// Request durations: the count in each [`LATENCY_BUCKETS`] bucket (not cumulative),
    /// then those above the last bound.
    pub latency: Vec<u64>,
    /// The sum of all request durations, in seconds.
    pub latency_sum: f64,
}

impl Metrics {
    fn maps(&self) -> std::sync::MutexGuard<'_, Maps> {
        self.maps.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn request(&self, route: &str) {
        self.requests.fetch_add(1, Relaxed);
        *self.maps().routes.entry(route.to_owned()).or_default() += 1;
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

    /// An upstream request that failed, by kind (also a failure or a disconnect, counted
    /// by the caller).
    pub(crate) fn upstream_failure(&self, kind: &'static str) {
        *self.maps().upstream_failures.entry(kind).or_default() += 1;
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

    pub(crate) fn upstream_calls(&self, calls: usize) {
        self.upstream_calls.fetch_add(calls as u64, Relaxed);
    }

    pub(crate) fn anomalies(&self, anomalies: crate::proxy::transform::Anomalies) {
        self.markup_stripped
            .fetch_add(anomalies.markup_stripped, Relaxed);
        self.calls_in_reasoning
            .fetch_add(anomalies.calls_in_reasoning, Relaxed);
    }

    pub(crate) fn latency(&self, elapsed: Duration) {
        let seconds = elapsed.as_secs_f64();
        let bucket = LATENCY_BUCKETS
            .iter()
            .position(|&bound| seconds <= bound)
            .unwrap_or(LATENCY_BUCKETS.len());
        let mut maps = self.maps();
        if maps.latency.is_empty() {
            maps.latency = vec![0; LATENCY_BUCKETS.len() + 1];
        }
        maps.latency[bucket] += 1;
        maps.latency_sum += seconds;
        maps.latency_count += 1;
    }

    /// Count one choice's outcome, parsed with `dialect`.
    pub(crate) fn outcome(&self, outcome: &Outcome, dialect: Option<&str>) {
        self.calls
            .fetch_add(outcome.released_calls() as u64, Relaxed);
        self.incomplete_calls
            .fetch_add(outcome.incomplete_calls() as u64, Relaxed);
        if outcome.tool_choice_unmet().is_some() {
            self.tool_choice_unmet.fetch_add(1, Relaxed);
        }
        let extension = outcome.extension();
        let mut maps = self.maps();
        // Per call: the extension lists each repaired call's repairs.
        for names in extension["repairs"].as_object().into_iter().flatten() {
            for name in names.1.as_array().into_iter().flatten() {
                if let Some(repair) = name.as_str().and_then(toolsift::Repair::from_name) {
                    *maps.repairs.entry(repair.name()).or_default() += 1;
                }
            }
        }
        for call in extension["incomplete_calls"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let reason = call["reason"].as_str().unwrap_or("unknown").to_owned();
            *maps.not_released.entry(reason).or_default() += 1;
        }
        if let Some(dialect) = dialect {
            // `auto:hermes` counts as the dialect it locked onto.
            let in_force = dialect.rsplit(':').next().unwrap_or(dialect);
            *maps.dialects.entry(in_force.to_owned()).or_default() += 1;
        }
    }

    /// Copy the counters.
    pub fn snapshot(&self) -> MetricsSnapshot {
        let maps = self.maps().clone();
        MetricsSnapshot {
            requests: self.requests.load(Relaxed),
            streams: self.streams.load(Relaxed),
            upstream_errors: self.upstream_errors.load(Relaxed),
            failures: self.failures.load(Relaxed),
            disconnects: self.disconnects.load(Relaxed),
            calls: self.calls.load(Relaxed),
            tool_choice_unmet: self.tool_choice_unmet.load(Relaxed),
            incomplete_calls: self.incomplete_calls.load(Relaxed),
            upstream_calls: self.upstream_calls.load(Relaxed),
            markup_stripped: self.markup_stripped.load(Relaxed),
            calls_in_reasoning: self.calls_in_reasoning.load(Relaxed),
            max_queued: self.max_queued.load(Relaxed),
            upstream_bytes: self.upstream_bytes.load(Relaxed),
            repairs: maps.repairs,
            routes: maps.routes,
            not_released: maps.not_released,
            dialects: maps.dialects,
            upstream_failures: maps.upstream_failures,
            latency: if maps.latency.is_empty() {
                vec![0; LATENCY_BUCKETS.len() + 1]
            } else {
                maps.latency
            },
            latency_sum: maps.latency_sum,
        }
    }
}

impl fmt::Display for MetricsSnapshot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "requests={} streams={} upstream_errors={} failures={} disconnects={} calls={} incomplete_calls={} upstream_calls={}",
            self.requests,
            self.streams,
            self.upstream_errors,
            self.failures,
            self.disconnects,
            self.calls,
            self.incomplete_calls,
            self.upstream_calls,
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

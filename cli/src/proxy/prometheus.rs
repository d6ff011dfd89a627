//! `GET /metrics`: the counters in the Prometheus text exposition format (0.0.4).

use crate::proxy::metrics::{MetricsSnapshot, LATENCY_BUCKETS};
use std::fmt::Write;

/// The content type of the exposition format.
pub(crate) const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

fn escape(label: &str) -> String {
    label
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

fn counter(out: &mut String, name: &str, help: &str, value: u64) {
    let _ = writeln!(
        out,
        "# HELP {name} {help}\n# TYPE {name} counter\n{name} {value}"
    );
}

fn labelled<'a, K: AsRef<str> + 'a>(
    out: &mut String,
    name: &str,
    help: &str,
    label: &str,
    values: impl Iterator<Item = (&'a K, &'a u64)>,
) {
    let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} counter");
    for (key, value) in values {
        let _ = writeln!(
            out,
            "{name}{{{label}=\"{}\"}} {value}",
            escape(key.as_ref())
        );
    }
}

/// Render `metrics`.
pub(crate) fn render(metrics: &MetricsSnapshot) -> String {
    let mut out = String::new();
    counter(
        &mut out,
        "toolsift_requests_total",
        "Requests received.",
        metrics.requests,
    );
    labelled(
        &mut out,
        "toolsift_route_requests_total",
        "Requests received, by route.",
        "route",
        metrics.routes.iter(),
    );
    counter(
        &mut out,
        "toolsift_streams_total",
        "Streaming responses served.",
        metrics.streams,
    );
    counter(
        &mut out,
        "toolsift_calls_released_total",
        "Tool calls released to clients.",
        metrics.calls,
    );
    counter(
        &mut out,
        "toolsift_calls_not_released_total",
        "Tool calls not released.",
        metrics.incomplete_calls,
    );
    labelled(
        &mut out,
        "toolsift_calls_not_released_by_reason_total",
        "Tool calls not released, by reason.",
        "reason",
        metrics.not_released.iter(),
    );
    labelled(
        &mut out,
        "toolsift_calls_repaired_total",
        "Tool calls a repair was applied to, by repair name.",
        "repair",
        metrics.repairs.iter(),
    );
    counter(
        &mut out,
        "toolsift_markup_stripped_total",
        "Markers stripped from content (stray closers, end-of-turn tokens).",
        metrics.markup_stripped,
    );
    counter(
        &mut out,
        "toolsift_tool_choice_unmet_total",
        "Responses that released no call although tool_choice required one.",
        metrics.tool_choice_unmet,
    );
    counter(
        &mut out,
        "toolsift_calls_in_reasoning_total",
        "Tool-call openers written inside reasoning, left there (not executed).",
        metrics.calls_in_reasoning,
    );
    counter(
        &mut out,
        "toolsift_upstream_calls_total",
        "Tool calls the upstream sent already parsed, checked by the proxy.",
        metrics.upstream_calls,
    );
    labelled(
        &mut out,
        "toolsift_responses_by_dialect_total",
        "Parsed responses (choices), by the dialect in force.",
        "dialect",
        metrics.dialects.iter(),
    );
    counter(
        &mut out,
        "toolsift_upstream_error_status_total",
        "Upstream answers with an error status, passed through.",
        metrics.upstream_errors,
    );
    labelled(
        &mut out,
        "toolsift_upstream_errors_total",
        "Upstream requests that failed, by kind.",
        "kind",
        metrics.upstream_failures.iter(),
    );
    counter(
        &mut out,
        "toolsift_failures_total",
        "Requests that failed in the proxy.",
        metrics.failures,
    );
    counter(
        &mut out,
        "toolsift_disconnects_total",
        "Streams whose upstream ended without finishing.",
        metrics.disconnects,
    );
    let name = "toolsift_request_duration_seconds";
    let _ = writeln!(
        out,
        "# HELP {name} Time from a request's arrival to the end of its response.\n# TYPE {name} histogram"
    );
    let mut cumulative = 0;
    for (bound, count) in LATENCY_BUCKETS.iter().zip(&metrics.latency) {
        cumulative += count;
        let _ = writeln!(out, "{name}_bucket{{le=\"{bound}\"}} {cumulative}");
    }
    let total: u64 = metrics.latency.iter().sum();
    let _ = writeln!(out, "{name}_bucket{{le=\"+Inf\"}} {total}");
    let _ = writeln!(out, "{name}_sum {}", metrics.latency_sum);
    let _ = writeln!(out, "{name}_count {total}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_escaped_and_the_histogram_is_cumulative() {
        let mut metrics = MetricsSnapshot::default();
        metrics.not_released.insert("a\"b".into(), 2);
        metrics.latency = vec![0; LATENCY_BUCKETS.len() + 1];
        metrics.latency[0] = 1;
        metrics.latency[3] = 2;
        metrics.latency[LATENCY_BUCKETS.len()] = 1;
        let text = render(&metrics);
        assert!(text.contains("toolsift_calls_not_released_by_reason_total{reason=\"a\\\"b\"} 2"));
        assert!(text.contains("toolsift_request_duration_seconds_bucket{le=\"0.005\"} 1\n"));
        assert!(text.contains("toolsift_request_duration_seconds_bucket{le=\"0.05\"} 3\n"));
        assert!(text.contains("toolsift_request_duration_seconds_bucket{le=\"300\"} 3\n"));
        assert!(text.contains("toolsift_request_duration_seconds_bucket{le=\"+Inf\"} 4\n"));
        assert!(text.contains("toolsift_request_duration_seconds_count 4\n"));
    }
}

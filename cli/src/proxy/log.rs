//! The per-request log line (text or one JSON object), and the counters it feeds.

use crate::proxy::State;
use hyper::Method;
use serde_json::{json, Value};
use std::time::{Instant, SystemTime, UNIX_EPOCH};
use toolsift::sse::Outcome;

/// The format of the per-request log line.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum LogFormat {
    /// `toolsift proxy: POST /v1/chat/completions status=200 model=... finish=... ...`
    #[default]
    Text,
    /// One JSON object per line, with the same fields (structured logs).
    Json,
}

/// What the per-request log line says.
pub(crate) struct RequestLog {
    pub(crate) method: Method,
    pub(crate) path: String,
    pub(crate) route: &'static str,
    pub(crate) model: String,
    pub(crate) stream: bool,
    pub(crate) start: Instant,
    /// The transform's dialect, once known.
    pub(crate) dialect: Option<String>,
    /// Tool calls the upstream sent already parsed.
    pub(crate) upstream_calls: usize,
    /// What the transforms kept from the client.
    pub(crate) anomalies: crate::proxy::transform::Anomalies,
    /// Why the request failed, if it did.
    pub(crate) error: Option<String>,
}

impl RequestLog {
    pub(crate) fn new(method: Method, path: String, route: &'static str) -> RequestLog {
        RequestLog {
            method,
            path,
            route,
            model: String::new(),
            stream: false,
            start: Instant::now(),
            dialect: None,
            upstream_calls: 0,
            anomalies: Default::default(),
            error: None,
        }
    }

    /// Count the request's outcomes (one per choice) and write the line.
    pub(crate) fn finish(&self, state: &State, status: u16, outcomes: &[&Outcome]) {
        for outcome in outcomes {
            state.metrics.outcome(outcome, self.dialect.as_deref());
        }
        state.metrics.upstream_calls(self.upstream_calls);
        state.metrics.anomalies(self.anomalies);
        let elapsed = self.start.elapsed();
        state.metrics.latency(elapsed);
        if !state.options.log {
            return;
        }
        let calls: usize = outcomes.iter().map(|o| o.released_calls()).sum();
        let incomplete: usize = outcomes.iter().map(|o| o.incomplete_calls()).sum();
        let mut repairs: Vec<&str> = outcomes.iter().flat_map(|o| o.repairs().names()).collect();
        repairs.sort_unstable();
        repairs.dedup();
        let finish = outcomes.first().map(|o| o.finish_reason());
        match state.options.log_format {
            super::LogFormat::Json => {
                let now = SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .unwrap_or_default()
                    .as_secs_f64();
                let mut line = json!({
                    "ts": now,
                    "method": self.method.as_str(),
                    "path": self.path,
                    "route": self.route,
                    "status": status,
                    "duration_ms": elapsed.as_secs_f64() * 1000.0,
                });
                if !self.model.is_empty() {
                    line["model"] = Value::from(self.model.as_str());
                    line["stream"] = Value::from(self.stream);
                }
                if let Some(dialect) = &self.dialect {
                    line["dialect"] = Value::from(dialect.as_str());
                }
                if let Some(finish) = finish {
                    line["finish"] = Value::from(finish);
                    line["choices"] = Value::from(outcomes.len());
                    line["calls"] = Value::from(calls);
                    line["incomplete"] = Value::from(incomplete);
                    line["upstream_calls"] = Value::from(self.upstream_calls);
                    line["repairs"] = Value::from(repairs);
                }
                if let Some(error) = &self.error {
                    line["error"] = Value::from(error.as_str());
                }
                eprintln!("{line}");
            }
            super::LogFormat::Text => {
                let mut line = format!(
                    "toolsift proxy: {} {} status={status}",
                    self.method, self.path
                );
                if !self.model.is_empty() {
                    line += &format!(" model={} stream={}", self.model, self.stream);
                }
                if let Some(dialect) = &self.dialect {
                    line += &format!(" dialect={dialect}");
                }
                if let Some(finish) = finish {
                    line += &format!(
                        " finish={finish} calls={calls} incomplete={incomplete} repairs={}",
                        if repairs.is_empty() {
                            "-".to_owned()
                        } else {
                            repairs.join(",")
                        },
                    );
                    if self.upstream_calls > 0 {
                        line += &format!(" upstream_calls={}", self.upstream_calls);
                    }
                }
                if let Some(error) = &self.error {
                    line += &format!(" error={error:?}");
                }
                line += &format!(" duration={}ms", elapsed.as_millis());
                eprintln!("{line}");
            }
        }
    }
}

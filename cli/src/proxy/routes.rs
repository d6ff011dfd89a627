//! Routing: each request to its surface, the proxy's own endpoints, or the upstream
//! unchanged; and the error answers every route shares.

use crate::proxy::body::{full, BoxError, ProxyBody};
use crate::proxy::log::RequestLog;
use crate::proxy::surface::Surface;
use crate::proxy::upstream::Failure;
use crate::proxy::{exchange, prometheus, State};
use bytes::Bytes;
use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming;
use hyper::header::{HeaderValue, CONTENT_TYPE};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::json;
use std::sync::Arc;

/// An error answer in the surface's own shape: OpenAI's `{"error": {...}}`, or
/// Anthropic's `{"type": "error", "error": {...}}`.
pub(crate) fn error_response(
    surface: Option<Surface>,
    status: StatusCode,
    kind: &str,
    message: &str,
) -> Response<ProxyBody> {
    let body = match surface {
        Some(Surface::Messages) => {
            json!({"type": "error", "error": {"type": kind, "message": message}})
        }
        _ => json!({"error": {"message": message, "type": kind, "code": status.as_u16()}}),
    };
    json_response(status, body.to_string())
}

/// The error answer for a failed upstream request: 504 on a timeout, else 502.
pub(crate) fn upstream_failure(
    state: &State,
    surface: Option<Surface>,
    failure: &Failure,
) -> Response<ProxyBody> {
    state.metrics.failure();
    let (status, kind) = match failure {
        Failure::Timeout(_) => (StatusCode::GATEWAY_TIMEOUT, "timeout"),
        Failure::Unreachable(_) => (StatusCode::BAD_GATEWAY, "unreachable"),
    };
    state.metrics.upstream_failure(kind);
    error_response(surface, status, "upstream_error", failure.message())
}

pub(crate) fn json_response(status: StatusCode, body: impl Into<Bytes>) -> Response<ProxyBody> {
    let mut response = Response::new(full(body));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// Pass an upstream response through: status, headers (less hop-by-hop ones), body as
/// it streams.
pub(crate) fn passthrough(response: Response<Incoming>) -> Response<ProxyBody> {
    let (parts, body) = response.into_parts();
    let mut out = Response::new(body.map_err(BoxError::from).boxed());
    *out.status_mut() = parts.status;
    for (name, value) in &parts.headers {
        if !matches!(
            name.as_str(),
            "connection" | "keep-alive" | "transfer-encoding" | "content-length" | "upgrade"
        ) {
            out.headers_mut().append(name, value.clone());
        }
    }
    out
}

/// Read a request body up to the configured limit; `Err` is the 413 answer.
pub(crate) async fn read_body(
    state: &State,
    surface: Option<Surface>,
    body: Incoming,
) -> Result<Bytes, Response<ProxyBody>> {
    let limit = state.options.max_body_bytes;
    match Limited::new(body, limit).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(err) => {
            state.metrics.failure();
            let too_large = err
                .downcast_ref::<http_body_util::LengthLimitError>()
                .is_some();
            let (status, kind, message) = if too_large {
                (
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "request_too_large",
                    format!("request body over the limit of {limit} bytes"),
                )
            } else {
                (
                    StatusCode::BAD_REQUEST,
                    "invalid_request_error",
                    format!("request body: {err}"),
                )
            };
            Err(error_response(surface, status, kind, &message))
        }
    }
}

pub(crate) async fn handle(state: Arc<State>, req: Request<Incoming>) -> Response<ProxyBody> {
    let path = req.uri().path().to_owned();
    let surface = match (req.method(), path.as_str()) {
        (&Method::POST, "/v1/chat/completions") => Some(Surface::Chat),
        (&Method::POST, "/v1/messages") => Some(Surface::Messages),
        (&Method::POST, "/v1/responses") => Some(Surface::Responses),
        (&Method::POST, "/v1/completions") => Some(Surface::Completions),
        _ => None,
    };
    if let Some(surface) = surface {
        state.metrics.request(surface.name());
        let log = RequestLog::new(req.method().clone(), path, surface.name());
        return exchange::exchange(state, req, surface, log).await;
    }
    let route = match (req.method(), path.as_str()) {
        (&Method::GET, "/health") => "health",
        (&Method::GET, "/metrics") => "metrics",
        (&Method::GET, "/v1/models") => "models",
        _ => "passthrough",
    };
    state.metrics.request(route);
    let mut log = RequestLog::new(req.method().clone(), path, route);
    let response = match route {
        "health" => json_response(StatusCode::OK, r#"{"status":"ok"}"#),
        "metrics" => {
            let mut response = Response::new(full(prometheus::render(&state.metrics.snapshot())));
            response.headers_mut().insert(
                CONTENT_TYPE,
                HeaderValue::from_static(prometheus::CONTENT_TYPE),
            );
            response
        }
        _ => forward(&state, req, &mut log).await,
    };
    log.finish(&state, response.status().as_u16(), &[]);
    response
}

/// Any other route: to the upstream as it is, the answer back as it is.
async fn forward(
    state: &State,
    req: Request<Incoming>,
    log: &mut RequestLog,
) -> Response<ProxyBody> {
    let (parts, body) = req.into_parts();
    let body = match read_body(state, None, body).await {
        Ok(body) => body,
        Err(response) => return response,
    };
    let path = parts
        .uri
        .path_and_query()
        .map_or(parts.uri.path(), |p| p.as_str());
    let url = state.upstream.url_for(path);
    match state
        .upstream
        .send_to(parts.method, url, &parts.headers, body)
        .await
    {
        Ok(response) => {
            if !response.status().is_success() {
                state.metrics.upstream_error();
            }
            passthrough(response)
        }
        Err(failure) => {
            log.error = Some(failure.message().to_owned());
            upstream_failure(state, None, &failure)
        }
    }
}

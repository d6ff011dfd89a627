//! One request on a parsed surface: read and check it, translate it to what the upstream
//! speaks, send it, and answer through the stream pump or the whole-response builder.

use crate::proxy::body::{ChannelBody, ProxyBody};
use crate::proxy::choice::Choice;
use crate::proxy::complete::read_upstream_body;
use crate::proxy::log::RequestLog;
use crate::proxy::routes::{
    error_response, json_response, passthrough, read_body, upstream_failure,
};
use crate::proxy::surface::{ChatEncoder, StreamEncoder, Surface};
use crate::proxy::transform::MakeTransform;
use crate::proxy::upstream::translated_headers;
use crate::proxy::{anthropic, complete, completions, responses, stream, State};
use bytes::Bytes;
use hyper::body::Incoming;
use hyper::header::{HeaderValue, CACHE_CONTROL, CONTENT_TYPE};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The choices of one response, each with its own transform, made on first sight.
pub(crate) struct Choices {
    make: MakeTransform,
    request: Value,
    list: BTreeMap<u32, Choice>,
}

impl Choices {
    pub(crate) fn new(make: MakeTransform, request: Value) -> Choices {
        Choices {
            make,
            request,
            list: BTreeMap::new(),
        }
    }

    pub(crate) fn get(&mut self, index: u32) -> &mut Choice {
        let (make, request) = (&self.make, &self.request);
        self.list
            .entry(index)
            .or_insert_with(|| Choice::new(make(request)))
    }

    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = (u32, &mut Choice)> {
        self.list.iter_mut().map(|(i, c)| (*i, c))
    }

    pub(crate) fn indices(&self) -> Vec<u32> {
        self.list.keys().copied().collect()
    }

    /// The dialect for the log (the first choice's), and the upstream calls of all.
    pub(crate) fn describe(&self, log: &mut RequestLog) {
        log.dialect = self.list.values().next().and_then(Choice::dialect);
        log.upstream_calls = self.list.values().map(Choice::upstream_calls).sum();
        for choice in self.list.values() {
            log.anomalies += choice.anomalies();
        }
    }
}

pub(crate) async fn exchange(
    state: Arc<State>,
    req: Request<Incoming>,
    surface: Surface,
    mut log: RequestLog,
) -> Response<ProxyBody> {
    let (parts, body) = req.into_parts();
    let bytes = match read_body(&state, Some(surface), body).await {
        Ok(bytes) => bytes,
        Err(response) => {
            log.finish(&state, response.status().as_u16(), &[]);
            return response;
        }
    };
    let bad = |log: &mut RequestLog, message: String| {
        state.metrics.failure();
        log.error = Some(message.clone());
        log.finish(&state, 400, &[]);
        error_response(
            Some(surface),
            StatusCode::BAD_REQUEST,
            "invalid_request_error",
            &message,
        )
    };
    let request: Value = match serde_json::from_slice(&bytes) {
        Ok(value @ Value::Object(_)) => value,
        Ok(_) => return bad(&mut log, "request body is not a json object".into()),
        Err(err) => return bad(&mut log, format!("request body is not json: {err}")),
    };
    // What goes upstream: the chat and completions bodies untouched, the others
    // translated into a chat completion.
    // A Response echoes its request's tools and choices.
    let echo = match surface {
        Surface::Responses => responses::echo(&request),
        _ => Value::Null,
    };
    let (chat, upstream_body, headers) = match surface {
        Surface::Chat | Surface::Completions => (request, bytes, parts.headers),
        Surface::Messages | Surface::Responses => {
            let translated = match surface {
                Surface::Messages => anthropic::to_chat(&request),
                _ => responses::to_chat(&request),
            };
            match translated {
                Ok(chat) => {
                    let body = Bytes::from(chat.to_string());
                    (chat, body, translated_headers(&parts.headers))
                }
                Err(message) => return bad(&mut log, message),
            }
        }
    };
    log.model = chat["model"].as_str().unwrap_or("-").to_owned();
    log.stream = chat["stream"].as_bool().unwrap_or(false);
    let parse = surface != Surface::Completions || chat.get("tools").is_some_and(|t| !t.is_null());
    let path = if surface == Surface::Completions {
        "/completions"
    } else {
        "/chat/completions"
    };
    let upstream = match state
        .upstream
        .send(Method::POST, path, &headers, upstream_body)
        .await
    {
        Ok(response) => response,
        Err(failure) => {
            let response = upstream_failure(&state, Some(surface), &failure);
            log.error = Some(failure.message().to_owned());
            log.finish(&state, response.status().as_u16(), &[]);
            return response;
        }
    };
    if !upstream.status().is_success() {
        state.metrics.upstream_error();
        let status = upstream.status();
        log.finish(&state, status.as_u16(), &[]);
        if surface == Surface::Messages {
            // Anthropic clients read errors in their own shape.
            let body = read_upstream_body(&state, upstream.into_body())
                .await
                .unwrap_or_default();
            let error = anthropic::error_from_upstream(status.as_u16(), &body);
            return json_response(status, error.to_string());
        }
        return passthrough(upstream);
    }
    if !parse {
        // Legacy completions without tools: nothing to parse.
        log.finish(&state, upstream.status().as_u16(), &[]);
        return passthrough(upstream);
    }
    let choices = Choices::new(state.make_transform.clone(), chat);
    if log.stream {
        state.metrics.stream();
        let encoder: Box<dyn StreamEncoder> = match surface {
            Surface::Chat => Box::new(ChatEncoder::new(state.options.call_mode)),
            Surface::Messages => Box::new(anthropic::AnthropicEncoder::new()),
            Surface::Responses => Box::new(responses::ResponsesEncoder::new(echo)),
            Surface::Completions => Box::new(completions::CompletionsEncoder::new()),
        };
        let (tx, body) = ChannelBody::channel(state.options.channel_capacity);
        tokio::spawn(stream::pump(
            state.clone(),
            upstream,
            choices,
            encoder,
            tx,
            log,
        ));
        let mut response = Response::new(body);
        let headers = response.headers_mut();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
        headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
        return response;
    }
    complete::complete(state, upstream, choices, surface, &echo, log).await
}

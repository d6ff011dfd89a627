//! `toolsift replay-upstream` (not in the usage text: a test and demo tool): an
//! OpenAI-compatible server that answers each chat completion with the recorded raw model
//! output named by the request's `model`.

use super::proxy_cmd::{runtime, shutdown_signal};
use super::replay_upstream::{serve_replays, Replay};
use super::{Failure, Outcome};
use clap::Args;
use serde_json::json;
use std::collections::BTreeMap;

/// Options of `toolsift replay-upstream`: answers POST /v1/chat/completions for model M
/// with the text of DIR/M.txt, as SSE chunks or as one response. A model whose name ends
/// in -cut is cut off after its text: streaming, the connection breaks without a finish
/// reason or `[DONE]`; not streaming, the finish reason is length.
#[derive(Args, Debug)]
pub(crate) struct ReplayUpstreamArgs {
    /// Where to serve, e.g. 127.0.0.1:8080 (port 0: any free port).
    #[arg(long, value_name = "ADDR")]
    listen: String,
    /// The directory of recorded outputs (M.txt for model M).
    #[arg(long, value_name = "DIR")]
    dir: String,
    /// The most bytes of text in one SSE chunk.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..))]
    piece_bytes: u32,
}

pub(crate) fn run(args: ReplayUpstreamArgs) -> Outcome {
    let ReplayUpstreamArgs {
        listen,
        dir,
        piece_bytes,
    } = args;
    let piece_bytes = piece_bytes as usize;
    let mut outputs = BTreeMap::new();
    for entry in std::fs::read_dir(&dir).map_err(|e| format!("{dir}: {e}"))? {
        let path = entry.map_err(|e| format!("{dir}: {e}"))?.path();
        let (Some(stem), Some("txt")) = (
            path.file_stem().and_then(|s| s.to_str()),
            path.extension().and_then(|s| s.to_str()),
        ) else {
            continue;
        };
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        outputs.insert(stem.to_owned(), text);
    }
    if outputs.is_empty() {
        return Err(format!("{dir}: no .txt outputs to replay").into());
    }
    let models: Vec<String> = outputs.keys().cloned().collect();
    let pick = move |request: &serde_json::Value| {
        let model = request["model"].as_str().unwrap_or("");
        let Some(text) = outputs.get(model) else {
            let error = json!({"error": {"message": format!("no recorded output for model {model:?}"), "type": "invalid_request_error"}});
            return Err((404, error.to_string()));
        };
        let mut replay = Replay::new(text.clone());
        replay.model = model.to_owned();
        replay.piece_bytes = piece_bytes;
        if model.ends_with("-cut") {
            replay.cut_after = Some(text.len());
            replay.finish_reason = "length".into();
        }
        Ok(replay)
    };
    runtime()?
        .block_on(async move {
            let listener = tokio::net::TcpListener::bind(&listen)
                .await
                .map_err(|e| format!("--listen {listen}: {e}"))?;
            let addr = listener.local_addr().map_err(|e| e.to_string())?;
            eprintln!("toolsift replay-upstream: listening on http://{addr}/v1, models {models:?}");
            serve_replays(listener, models, pick, shutdown_signal()).await;
            Ok(0)
        })
        .map_err(Failure::Usage)
}

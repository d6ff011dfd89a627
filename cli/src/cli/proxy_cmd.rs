//! `toolsift proxy`: the repairing proxy in front of a model server.

use super::proxy_args::ProxyArgs;
use super::{Failure, Outcome};
use toolsift::sse::CallMode;
use toolsift_cli::proxy::{DialectChoice, ParserTransforms, Proxy, Settings};

/// Resolves on Ctrl-C, or SIGTERM where there are signals.
pub(crate) async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// A multi-threaded runtime for the servers.
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("runtime: {e}"))
}

pub(crate) fn run(args: ProxyArgs) -> Outcome {
    let Settings {
        listen,
        proxy,
        parser,
    } = args.options()?;
    let dialect = match &parser.dialect {
        DialectChoice::Fixed(d) => d.name().to_owned(),
        DialectChoice::ByModel(_) => "by model name".to_owned(),
    };
    let mode = match proxy.call_mode {
        CallMode::Streamed => "streamed",
        CallMode::Buffered => "held until released",
    };
    let upstream = proxy.upstream.clone();
    if let Some(warning) = upstream_warning(&upstream) {
        eprintln!("toolsift proxy: warning: {warning}");
    }
    let maker = ParserTransforms::new(parser).into_maker();
    let proxy = Proxy::new(proxy, maker).map_err(|e| e.to_string())?;
    runtime()?.block_on(async move {
        let listener = tokio::net::TcpListener::bind(&listen)
            .await
            .map_err(|e| format!("--listen {listen}: {e}"))?;
        let addr = listener.local_addr().map_err(|e| e.to_string())?;
        eprintln!(
            "toolsift proxy: listening on http://{addr}/v1, upstream {upstream}, dialect {dialect}, calls {mode}"
        );
        proxy.serve(listener, shutdown_signal()).await;
        Ok(0)
    })
    .map_err(Failure::Usage)
}

/// A warning for an upstream base URL that is likely wrong: one whose path does not end
/// in a version segment (`/v1`) gets every request at `/chat/completions`, which
/// OpenAI-compatible servers answer with 404.
pub(crate) fn upstream_warning(upstream: &str) -> Option<String> {
    let rest = upstream
        .split_once("://")
        .map_or(upstream, |(_, rest)| rest);
    let path = rest.find('/').map_or("", |at| &rest[at..]);
    let last = path.trim_end_matches('/').rsplit('/').next().unwrap_or("");
    let versioned = last.len() > 1
        && last.starts_with('v')
        && last[1..].chars().next().is_some_and(|c| c.is_ascii_digit());
    (!versioned).then(|| {
        format!(
            "--upstream {upstream} has no /v1: requests will go to {}/chat/completions; \
             OpenAI-compatible servers usually serve {}/v1",
            upstream.trim_end_matches('/'),
            upstream.trim_end_matches('/')
        )
    })
}

#[cfg(test)]
mod tests {
    use super::upstream_warning;

    #[test]
    fn an_upstream_without_a_version_is_warned_about() {
        let warning = upstream_warning("http://host:8080").unwrap();
        assert!(
            warning.contains("http://host:8080/chat/completions"),
            "{warning}"
        );
        assert!(warning.contains("http://host:8080/v1"), "{warning}");
        assert!(upstream_warning("http://host:8080/").is_some());
        assert!(upstream_warning("https://api.example.com/api").is_some());
        for ok in [
            "http://127.0.0.1:8080/v1",
            "http://host/v1/",
            "https://generativelanguage.googleapis.com/v1beta/openai/v1",
            "https://openrouter.ai/api/v1",
            "http://host/v2",
        ] {
            assert_eq!(upstream_warning(ok), None, "{ok}");
        }
    }
}

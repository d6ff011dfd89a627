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

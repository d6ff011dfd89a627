//! `toolsift proxy`: the repairing OpenAI-compatible proxy in front of a model server.

use toolsift::sse::CallMode;
use toolsift::{Dialect, Invalid, UnknownTool};
use toolsift_cli::proxy::{
    DialectChoice, ModelDialects, ParserOptions, ParserTransforms, Proxy, ProxyOptions,
};

pub(crate) const USAGE: &str = "usage: toolsift proxy --listen ADDR --upstream URL [OPTIONS]
  --listen ADDR            where to serve, e.g. 127.0.0.1:8081 (port 0: any free port)
  --upstream URL           the upstream's OpenAI base URL, e.g. http://127.0.0.1:8080/v1
  --dialect NAME|auto|model
                           the dialect: a fixed one, auto (default), or chosen by the
                           request's model name
  --model-dialect PATTERN=NAME
                           with --dialect model: models whose name contains PATTERN use
                           dialect NAME (repeatable; tried before the built-in rules)
  --unknown-tool reject|forward
                           calls to undeclared tools (default reject)
  --invalid release|hold   calls that break their schema after repair (default release)
  --hold-calls             send each call whole once it is released, instead of streaming
                           its name and argument deltas as they are parsed";

/// Parsed command-line options.
struct Args {
    listen: String,
    proxy: ProxyOptions,
    parser: ParserOptions,
}

fn value<'a>(it: &mut impl Iterator<Item = &'a String>, flag: &str) -> Result<&'a str, String> {
    it.next()
        .map(String::as_str)
        .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))
}

fn parse(args: &[String]) -> Result<Args, String> {
    let (mut listen, mut upstream) = (None, None);
    let mut dialect = "auto".to_owned();
    let mut rules = Vec::new();
    let mut parser = ParserOptions::default();
    let mut call_mode = CallMode::Streamed;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--listen" => listen = Some(value(&mut it, arg)?.to_owned()),
            "--upstream" => upstream = Some(value(&mut it, arg)?.to_owned()),
            "--dialect" => dialect = value(&mut it, arg)?.to_owned(),
            "--model-dialect" => rules.push(ModelDialects::parse_rule(value(&mut it, arg)?)?),
            "--unknown-tool" => {
                parser.unknown_tool = match value(&mut it, arg)? {
                    "reject" => UnknownTool::Reject,
                    "forward" => UnknownTool::Forward,
                    other => {
                        return Err(format!(
                            "--unknown-tool: expected reject or forward, got {other:?}"
                        ))
                    }
                }
            }
            "--invalid" => {
                parser.invalid = match value(&mut it, arg)? {
                    "release" => Invalid::Release,
                    "hold" => Invalid::HoldBack,
                    other => {
                        return Err(format!(
                            "--invalid: expected release or hold, got {other:?}"
                        ))
                    }
                }
            }
            "--hold-calls" => call_mode = CallMode::Buffered,
            other => return Err(format!("unknown option {other:?}\n{USAGE}")),
        }
    }
    parser.dialect = if dialect == "model" {
        let mut table = ModelDialects::default();
        for (pattern, d) in rules.iter().rev() {
            table.prepend(pattern, *d);
        }
        DialectChoice::ByModel(table)
    } else {
        if !rules.is_empty() {
            return Err("--model-dialect needs --dialect model".into());
        }
        DialectChoice::Fixed(
            Dialect::from_name(&dialect)
                .ok_or_else(|| format!("--dialect: unknown dialect {dialect:?}"))?,
        )
    };
    let listen = listen.ok_or_else(|| format!("--listen is required\n{USAGE}"))?;
    let upstream = upstream.ok_or_else(|| format!("--upstream is required\n{USAGE}"))?;
    Ok(Args {
        listen,
        proxy: ProxyOptions {
            upstream,
            call_mode,
            ..ProxyOptions::default()
        },
        parser,
    })
}

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

pub(crate) fn run(args: &[String]) -> Result<i32, String> {
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{USAGE}");
        return Ok(0);
    }
    let args = parse(args)?;
    let dialect = match &args.parser.dialect {
        DialectChoice::Fixed(d) => d.name().to_owned(),
        DialectChoice::ByModel(_) => "by model name".to_owned(),
    };
    let mode = match args.proxy.call_mode {
        CallMode::Streamed => "streamed",
        CallMode::Buffered => "held until released",
    };
    let upstream = args.proxy.upstream.clone();
    let maker = ParserTransforms::new(args.parser).into_maker();
    let proxy = Proxy::new(args.proxy, maker).map_err(|e| e.to_string())?;
    runtime()?.block_on(async move {
        let listener = tokio::net::TcpListener::bind(&args.listen)
            .await
            .map_err(|e| format!("--listen {}: {e}", args.listen))?;
        let addr = listener.local_addr().map_err(|e| e.to_string())?;
        eprintln!(
            "toolsift proxy: listening on http://{addr}/v1, upstream {upstream}, dialect {dialect}, calls {mode}"
        );
        proxy.serve(listener, shutdown_signal()).await;
        Ok(0)
    })
}

//! `toolsift proxy`: the repairing OpenAI-compatible proxy in front of a model server.

use toolsift::sse::CallMode;
use toolsift_cli::proxy::{
    ConfigFile, DialectChoice, ModelDialects, ModelRule, ParserTransforms, Proxy, Settings,
};

pub(crate) const USAGE: &str = "usage: toolsift proxy --listen ADDR --upstream URL [OPTIONS]
  --config FILE            read settings from a TOML file (flags given here win); see
                           docs/proxy.md for its keys and per-model rules
  --listen ADDR            where to serve, e.g. 127.0.0.1:8081 (port 0: any free port)
  --upstream URL           the upstream's OpenAI base URL, e.g. http://127.0.0.1:8080/v1
                           or https://gpu-box:8443/v1
  --upstream-ca FILE       PEM certificates to trust for an https upstream
  --connect-timeout SECS   the bound on connecting to the upstream (default 10)
  --idle-timeout SECS      the longest the upstream may stay silent (default 300)
  --max-body-bytes N       the bound on a request body and a whole upstream response
                           (default 33554432)
  --dialect NAME|auto|model
                           the dialect: a fixed one, auto (default), or chosen by the
                           request's model name
  --model-dialect PATTERN=NAME
                           models whose name contains PATTERN use dialect NAME
                           (repeatable; implies --dialect model)
  --reasoning-open         the chat template opens a reasoning block (<think>) in the
                           prompt: output starts inside it
  --model-reasoning-open PATTERN
                           the same, only for models whose name contains PATTERN
                           (repeatable)
  --unknown-tool reject|forward
                           calls to undeclared tools (default reject)
  --invalid release|hold   calls that break their schema after repair (default release)
  --hold-calls             send each chat completion call whole once it is released,
                           instead of streaming its name and argument deltas
  --log text|json|off      the per-request log line on stderr (default text)";

fn value<'a>(it: &mut impl Iterator<Item = &'a String>, flag: &str) -> Result<&'a str, String> {
    it.next()
        .map(String::as_str)
        .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))
}

fn number<T: std::str::FromStr>(text: &str, flag: &str) -> Result<T, String> {
    text.parse()
        .map_err(|_| format!("{flag}: expected a number, got {text:?}"))
}

/// The flags as a settings record, and the config file they name.
fn parse(args: &[String]) -> Result<(ConfigFile, Option<String>), String> {
    let mut flags = ConfigFile::default();
    let mut config = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let flag = arg.as_str();
        match flag {
            "--config" => config = Some(value(&mut it, flag)?.to_owned()),
            "--listen" => flags.listen = Some(value(&mut it, flag)?.to_owned()),
            "--upstream" => flags.upstream = Some(value(&mut it, flag)?.to_owned()),
            "--upstream-ca" => flags.upstream_ca = Some(value(&mut it, flag)?.into()),
            "--connect-timeout" => {
                flags.connect_timeout = Some(number(value(&mut it, flag)?, flag)?)
            }
            "--idle-timeout" => flags.idle_timeout = Some(number(value(&mut it, flag)?, flag)?),
            "--max-body-bytes" => flags.max_body_bytes = Some(number(value(&mut it, flag)?, flag)?),
            "--dialect" => flags.dialect = Some(value(&mut it, flag)?.to_owned()),
            "--model-dialect" => {
                let (pattern, dialect) = ModelDialects::parse_rule(value(&mut it, flag)?)?;
                flags.models.push(ModelRule {
                    pattern,
                    dialect: Some(dialect.name().to_owned()),
                    reasoning_open: None,
                });
            }
            "--reasoning-open" => flags.reasoning_open = Some(true),
            "--model-reasoning-open" => flags.models.push(ModelRule {
                pattern: value(&mut it, flag)?.to_owned(),
                dialect: None,
                reasoning_open: Some(true),
            }),
            "--unknown-tool" => flags.unknown_tool = Some(value(&mut it, flag)?.to_owned()),
            "--invalid" => flags.invalid = Some(value(&mut it, flag)?.to_owned()),
            "--hold-calls" => flags.hold_calls = Some(true),
            "--log" => flags.log = Some(value(&mut it, flag)?.to_owned()),
            other => return Err(format!("unknown option {other:?}\n{USAGE}")),
        }
    }
    Ok((flags, config))
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
    let (flags, config) = parse(args)?;
    let mut settings = match config {
        Some(path) => ConfigFile::load(std::path::Path::new(&path))?,
        None => ConfigFile::default(),
    };
    settings.overlay(flags);
    let Settings {
        listen,
        proxy: options,
        parser,
    } = settings.settle().map_err(|e| format!("{e}\n{USAGE}"))?;
    let dialect = match &parser.dialect {
        DialectChoice::Fixed(d) => d.name().to_owned(),
        DialectChoice::ByModel(_) => "by model name".to_owned(),
    };
    let mode = match options.call_mode {
        CallMode::Streamed => "streamed",
        CallMode::Buffered => "held until released",
    };
    let upstream = options.upstream.clone();
    let maker = ParserTransforms::new(parser).into_maker();
    let proxy = Proxy::new(options, maker).map_err(|e| e.to_string())?;
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
}

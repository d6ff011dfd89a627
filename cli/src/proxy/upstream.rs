//! The client side: requests to the upstream OpenAI-compatible server, over `http://` or
//! `https://` (rustls), with a connect timeout and a bound on the wait for the answer.

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{HeaderMap, HeaderName, HeaderValue, CONTENT_TYPE};
use hyper::{Method, Request, Response, Uri};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::{connect::HttpConnector, Client};
use hyper_util::rt::TokioExecutor;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::CertificateDer;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use toolsift::{Category, Error};

/// Why an upstream request failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Failure {
    /// The upstream could not be reached (connection refused, TLS, DNS, ...).
    Unreachable(String),
    /// The upstream did not answer (or went quiet) within the idle timeout.
    Timeout(String),
}

impl Failure {
    pub(crate) fn message(&self) -> &str {
        match self {
            Failure::Unreachable(m) | Failure::Timeout(m) => m,
        }
    }
}

/// An upstream base URL (`http://127.0.0.1:8080/v1`) and a pooled HTTP/1 client.
#[derive(Clone, Debug)]
pub(crate) struct Upstream {
    base: String,
    /// `scheme://authority`, for paths outside the base (`/tokenize`, ...).
    origin: String,
    client: Client<HttpsConnector<HttpConnector>, Full<Bytes>>,
    idle_timeout: Duration,
}

/// Request headers never forwarded: hop-by-hop ones, and those the client sets itself.
const DROPPED: [&str; 10] = [
    "host",
    "connection",
    "keep-alive",
    "proxy-connection",
    "transfer-encoding",
    "upgrade",
    "te",
    "trailer",
    "content-length",
    "accept-encoding",
];

fn tls_config(ca_file: Option<&Path>) -> Result<rustls::ClientConfig, Error> {
    let mut roots = rustls::RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    if let Some(path) = ca_file {
        let certs = CertificateDer::pem_file_iter(path)
            .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
            .map_err(|e| Error::new(Category::Io, format!("{}: {e}", path.display())))?;
        if certs.is_empty() {
            return Err(Error::new(
                Category::Syntax,
                format!("{}: no certificate in the file", path.display()),
            ));
        }
        for cert in certs {
            roots
                .add(cert)
                .map_err(|e| Error::new(Category::Syntax, format!("{}: {e}", path.display())))?;
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    Ok(rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| Error::new(Category::Io, format!("tls: {e}")))?
        .with_root_certificates(roots)
        .with_no_client_auth())
}

impl Upstream {
    /// A client for `base`; `ca_file` adds PEM certificates to the trusted roots (for an
    /// upstream with a private or self-signed certificate).
    pub(crate) fn new(
        base: &str,
        ca_file: Option<&Path>,
        connect_timeout: Duration,
        idle_timeout: Duration,
    ) -> Result<Upstream, Error> {
        let base = base.trim_end_matches('/').to_owned();
        let uri: Uri = base
            .parse()
            .map_err(|e| Error::new(Category::Syntax, format!("upstream url {base:?}: {e}")))?;
        let (Some(scheme @ ("http" | "https")), Some(authority)) =
            (uri.scheme_str(), uri.authority())
        else {
            return Err(Error::new(
                Category::Syntax,
                format!("upstream url {base:?}: expected http(s)://host:port/path"),
            ));
        };
        let origin = format!("{scheme}://{authority}");
        let mut http = HttpConnector::new();
        http.enforce_http(false);
        http.set_connect_timeout(Some(connect_timeout));
        http.set_nodelay(true);
        let connector = hyper_rustls::HttpsConnectorBuilder::new()
            .with_tls_config(tls_config(ca_file)?)
            .https_or_http()
            .enable_http1()
            .wrap_connector(http);
        let client = Client::builder(TokioExecutor::new()).build(connector);
        Ok(Upstream {
            base,
            origin,
            client,
            idle_timeout,
        })
    }

    /// The longest wait for the upstream's next bytes.
    pub(crate) fn idle_timeout(&self) -> Duration {
        self.idle_timeout
    }

    /// The upstream URL for a path the proxy received: `/v1/...` maps under the base,
    /// anything else under the origin.
    pub(crate) fn url_for(&self, path_and_query: &str) -> String {
        match path_and_query.strip_prefix("/v1") {
            Some(rest) if rest.is_empty() || rest.starts_with(['/', '?']) => {
                format!("{}{rest}", self.base)
            }
            _ => format!("{}{path_and_query}", self.origin),
        }
    }

    /// Send `method {base}{path}` with `body` and the client's headers (less hop-by-hop
    /// ones), waiting at most the idle timeout for the answer's head.
    pub(crate) async fn send(
        &self,
        method: Method,
        path: &str,
        headers: &HeaderMap,
        body: Bytes,
    ) -> Result<Response<Incoming>, Failure> {
        self.send_to(method, format!("{}{path}", self.base), headers, body)
            .await
    }

    /// As [`send`](Self::send), to a whole URL.
    pub(crate) async fn send_to(
        &self,
        method: Method,
        url: String,
        headers: &HeaderMap,
        body: Bytes,
    ) -> Result<Response<Incoming>, Failure> {
        let mut request = Request::builder().method(method).uri(&url);
        for (name, value) in headers {
            if !DROPPED.contains(&name.as_str()) {
                request = request.header(name, value);
            }
        }
        if !body.is_empty() && !headers.contains_key(CONTENT_TYPE) {
            request = request.header(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        }
        let request = request
            .body(Full::new(body))
            .map_err(|e| Failure::Unreachable(format!("upstream request: {e}")))?;
        match tokio::time::timeout(self.idle_timeout, self.client.request(request)).await {
            Ok(Ok(response)) => Ok(response),
            Ok(Err(e)) => Err(Failure::Unreachable(format!(
                "upstream unreachable: {}",
                error_chain(&e)
            ))),
            Err(_) => Err(Failure::Timeout(format!(
                "upstream did not answer within {} s",
                self.idle_timeout.as_secs_f64()
            ))),
        }
    }
}

/// An error and its sources, `: `-separated (hyper's own message is terse).
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut out = error.to_string();
    let mut source = error.source();
    while let Some(e) = source {
        out += &format!(": {e}");
        source = e.source();
    }
    out
}

/// Headers for a request the proxy writes itself (a translated surface): the client's
/// credentials only, and the JSON content type.
pub(crate) fn translated_headers(client: &HeaderMap) -> HeaderMap {
    let mut headers = HeaderMap::new();
    for name in [
        "authorization",
        "x-api-key",
        "openai-organization",
        "openai-project",
    ] {
        if let Some(value) = client.get(name) {
            headers.insert(HeaderName::from_static(name), value.clone());
        }
    }
    if let (false, Some(key)) = (
        headers.contains_key("authorization"),
        client.get("x-api-key").and_then(|k| k.to_str().ok()),
    ) {
        if let Ok(value) = HeaderValue::from_str(&format!("Bearer {key}")) {
            headers.insert("authorization", value);
        }
    }
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_map_under_the_base_or_the_origin() {
        let upstream = Upstream::new(
            "https://example.test:8443/v1/",
            None,
            Duration::from_secs(1),
            Duration::from_secs(1),
        )
        .unwrap();
        assert_eq!(
            upstream.url_for("/v1/embeddings"),
            "https://example.test:8443/v1/embeddings"
        );
        assert_eq!(
            upstream.url_for("/v1/models?x=1"),
            "https://example.test:8443/v1/models?x=1"
        );
        assert_eq!(
            upstream.url_for("/tokenize"),
            "https://example.test:8443/tokenize"
        );
        assert_eq!(upstream.url_for("/v1x"), "https://example.test:8443/v1x");
        assert!(Upstream::new("ftp://x/v1", None, Duration::ZERO, Duration::ZERO).is_err());
        assert!(Upstream::new(
            "http://x/v1",
            Some(Path::new("/no/such/ca.pem")),
            Duration::ZERO,
            Duration::ZERO
        )
        .is_err());
    }
}

//! The client side: requests to the upstream OpenAI-compatible server.

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{HeaderMap, HeaderValue, ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use hyper::{Method, Request, Response, Uri};
use hyper_util::client::legacy::{connect::HttpConnector, Client};
use hyper_util::rt::TokioExecutor;
use toolsift::{Category, Error};

/// An upstream base URL (`http://127.0.0.1:8080/v1`) and a pooled HTTP/1 client.
#[derive(Clone, Debug)]
pub(crate) struct Upstream {
    base: String,
    client: Client<HttpConnector, Full<Bytes>>,
}

impl Upstream {
    pub(crate) fn new(base: &str) -> Result<Upstream, Error> {
        let base = base.trim_end_matches('/').to_owned();
        let uri: Uri = base
            .parse()
            .map_err(|e| Error::new(Category::Syntax, format!("upstream url {base:?}: {e}")))?;
        if uri.scheme_str() != Some("http") || uri.host().is_none() {
            return Err(Error::new(
                Category::Syntax,
                format!("upstream url {base:?}: expected http://host:port/path"),
            ));
        }
        let client = Client::builder(TokioExecutor::new()).build_http();
        Ok(Upstream { base, client })
    }

    /// Send `method {base}{path}` with `body`, forwarding the client's auth and accept
    /// headers.
    pub(crate) async fn send(
        &self,
        method: Method,
        path: &str,
        headers: &HeaderMap,
        body: Bytes,
    ) -> Result<Response<Incoming>, Error> {
        let mut request = Request::builder()
            .method(method)
            .uri(format!("{}{}", self.base, path));
        for name in [AUTHORIZATION, ACCEPT] {
            if let Some(value) = headers.get(&name) {
                request = request.header(name, value);
            }
        }
        if !body.is_empty() {
            let json = HeaderValue::from_static("application/json");
            request = request.header(CONTENT_TYPE, headers.get(CONTENT_TYPE).unwrap_or(&json));
        }
        let request = request
            .body(Full::new(body))
            .map_err(|e| Error::new(Category::Io, format!("upstream request: {e}")))?;
        self.client
            .request(request)
            .await
            .map_err(|e| Error::new(Category::Io, format!("upstream unreachable: {e}")))
    }
}

//! Response bodies: a boxed body type and a bounded channel body.

use bytes::Bytes;
use http_body_util::{combinators::BoxBody, BodyExt, Full};
use hyper::body::{Body, Frame, SizeHint};
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::sync::mpsc;

/// The error type of proxy bodies.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The body of every response the proxy sends.
pub type ProxyBody = BoxBody<Bytes, BoxError>;

/// A whole body.
pub(crate) fn full(bytes: impl Into<Bytes>) -> ProxyBody {
    Full::new(bytes.into())
        .map_err(|never| match never {})
        .boxed()
}

/// A body fed through a bounded channel: when the client reads slowly the channel fills
/// and the sender waits, so nothing upstream of it buffers without bound.
pub(crate) struct ChannelBody {
    rx: mpsc::Receiver<Result<Bytes, BoxError>>,
}

impl ChannelBody {
    /// A sender with room for `capacity` pieces, and the body it feeds.
    pub(crate) fn channel(capacity: usize) -> (mpsc::Sender<Result<Bytes, BoxError>>, ProxyBody) {
        let (tx, rx) = mpsc::channel(capacity.max(1));
        (tx, ChannelBody { rx }.boxed())
    }
}

impl Body for ChannelBody {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        self.rx
            .poll_recv(cx)
            .map(|piece| piece.map(|r| r.map(Frame::data)))
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::default()
    }
}

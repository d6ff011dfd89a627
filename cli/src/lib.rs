//! The `toolsift` command-line tool's library part: an OpenAI-compatible proxy that
//! repairs tool calls on their way from an upstream server to the client, built on the
//! [`toolsift`] parser and its SSE codec. The `toolsift` binary of this package runs it
//! (`toolsift proxy`); embed it with [`proxy::Proxy`].
#![deny(unsafe_code)]
#![deny(missing_docs)]

pub mod proxy;

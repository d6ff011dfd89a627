//! Streaming JSON repair: the transducer, its look-ahead, and the standalone API.

pub(crate) mod api;
mod bulk;
pub(crate) mod cost;
pub(crate) mod duplicates;
pub(crate) mod lookahead;
pub(crate) mod readings;
pub(crate) mod repairer;
pub(crate) mod strict;
mod validator;

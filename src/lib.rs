#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(unsafe_code)]
#![deny(missing_docs)]

mod ascii;
mod call;
mod calls;
mod config;
mod conform;
pub mod dialect;
mod error;
mod event;
mod feed;
mod grammar;
mod json;
mod ordered;
mod parser;
mod queue;
pub mod render;
mod repairs;
mod scan;
pub mod schema;
#[cfg(feature = "codec")]
pub mod sse;
mod stats;
mod word;

pub use config::{Config, InReasoning, Invalid, Limits, ParallelCalls, ToolChoice, UnknownTool};
pub use dialect::Dialect;
pub use error::{Category, Error};
pub use event::{CallIndex, Event, NotReleasedReason, OwnedEvent, StopReason};
pub use feed::Feed;
pub use json::api::{repair, Repaired};
pub use parser::Parser;
pub use repairs::{Repair, Repairs};
pub use schema::Tools;
pub use stats::Stats;

#[cfg(doctest)]
#[doc = include_str!("../docs/integration.md")]
struct IntegrationGuideExamples;

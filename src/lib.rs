//! # crawlaudit
//!
//! Tells site owners which crawlers disobeyed their robots rules. The
//! library is a set of small stages; the `crawlaudit` binary is a thin
//! command line over them.
//!
//! The modules, each using only those above it:
//!
//! - `memory`: freed memory handed back to the system between stages.
//! - [`time`]: nanosecond instants and durations, units, RFC 3339 printing.
//! - [`text`]: shared text, one copy per distinct string.
//! - [`host`]: hosts as the audit names them, and the check of a named host.
//! - [`bounded_read`]: whole files the user names, read with a bound.
//! - `contain`: Parquet files others wrote, checked before polars decodes
//!   them, and polars' panics on corrupt bytes turned into errors.
//! - [`robots`]: the robots.txt evaluator (RFC 9309, as Google's reference).
//! - [`indexing`]: `X-Robots-Tag` lines and robots `<meta>` tags per crawler.
//! - [`bots`]: the crawler catalogue, identification, IP range verification.
//! - [`logs`]: access logs in every common format, read in parallel.
//! - [`snapshot`]: site snapshots: robots.txt and page versions over time.
//! - [`shard`]: the stable host hash behind `--shard K/N`.
//! - [`replay`]: crawler requests judged against the robots.txt they cached.
//! - [`report`]: the tables as CSV, Parquet, NDJSON, JSON and HTML (polars).
//! - [`audit`]: the whole audit as one call: read, collect, judge.
//! - [`distributed`]: the audit as tasks that share nothing (one per log
//!   file, one per shard, one to assemble), for Apache Spark.
//! - `cli`: the `crawlaudit` command line (hidden: the binary and the
//!   Python package parse the same flags with it).
//!
//! The types and functions most callers need are re-exported here.
//!
//! ```
//! use crawlaudit::{Robots, path_params_query};
//!
//! let robots = Robots::parse(b"User-agent: Googlebot\nDisallow: /search\n");
//! let path = path_params_query(b"https://example.com/search?q=rust");
//! let verdict = robots.check(&["Googlebot"], &path);
//! assert!(!verdict.allowed());
//! assert_eq!(verdict.rule().unwrap().line(), 2);
//! ```

pub mod audit;
pub mod bots;
pub mod bounded_read;
#[doc(hidden)]
pub mod cli;
pub(crate) mod contain;
pub mod distributed;
pub mod host;
pub mod indexing;
pub mod logs;
mod memory;
pub mod replay;
pub mod report;
pub mod robots;
pub mod shard;
pub mod snapshot;
pub mod text;
pub mod time;

#[cfg(test)]
mod test_dirs;

// The command line (`cli`) names the library `crawlaudit::...`, as any
// caller does.
extern crate self as crawlaudit;

pub use audit::{AuditConfig, AuditRun};
pub use bots::{Catalogue, Crawler, Identifier, IpRanges};
pub use host::{check_host, normalize_host};
pub use indexing::PageRules;
pub use logs::{FileReport, Format, Input, ReadOptions, Request, Sink, read_input};
pub use replay::{Collector, Context, Finding, Outcome, Settings, Violation, Violations};
pub use report::{OutputFormats, Report, RunInfo, read_state, write_state};
pub use robots::{Robots, Verdict, path_params_query};
pub use shard::Shard;
pub use snapshot::{Policy, Snapshot};
pub use time::{Nanos, format_time};

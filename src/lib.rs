//! # crawlaudit
//!
//! Tells site owners which crawlers disobeyed their robots rules. The
//! library is a set of small stages; the `crawlaudit` binary is a thin
//! command line over them.
//!
//! - [`robots`]: the robots.txt evaluator (RFC 9309, agreeing with Google's
//!   reference matcher): parse once, then decide many paths, each
//!   [`robots::Verdict`] naming its deciding rule and line.
//! - [`bots`]: the crawler catalogue, identification of User-Agents, the
//!   engines crawlers feed, and verification against published IP ranges.
//! - [`logs`]: access logs in every common format (combined, common,
//!   vhost_combined, nginx `log_format`, JSON, W3C), plain or gzip, read in
//!   parallel with every line accounted for.
//! - [`snapshot`]: site snapshots (directories and WARC files): robots.txt
//!   versions over time with RFC 9309's status handling, and page versions
//!   with their indexing rules.
//! - [`replay`]: every crawler request judged against the robots.txt
//!   versions it may have cached, crawl-delays and indexing rules, with
//!   findings (spoofed agents, crawlers that never read robots.txt, ...).
//! - [`report`]: the only module that uses polars: violations, crawlers
//!   and findings tables as CSV, Parquet and NDJSON, and `summary.json`,
//!   written atomically.
//! - [`shard`]: the stable host hash that splits an audit into shards
//!   (`--shard K/N`) whose reports `merge` adds up.
//! - [`bounded_read`]: whole files the user names, read with a bound.
//! - [`host`]: hosts as the audit names them (normalized), and the check
//!   of a host that `--site` or a snapshot folder names.
//! - [`indexing`]: `X-Robots-Tag` header lines and robots `<meta>` tags, and
//!   the effective indexing rules for one crawler, with their provenance.
//!
//! ```
//! use crawlaudit::robots::{Robots, path_params_query};
//!
//! let robots = Robots::parse(b"User-agent: Googlebot\nDisallow: /search\n");
//! let path = path_params_query(b"https://example.com/search?q=rust");
//! let verdict = robots.check(&["Googlebot"], &path);
//! assert!(!verdict.allowed());
//! assert_eq!(verdict.rule().unwrap().line(), 2);
//! ```

pub mod bots;
pub mod bounded_read;
pub mod host;
pub mod indexing;
pub mod logs;
pub mod replay;
pub mod report;
pub mod robots;
pub mod shard;
pub mod snapshot;
pub mod time;

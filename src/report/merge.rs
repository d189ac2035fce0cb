//! `merge`: shard reports (written by `audit --shard K/N`) read back and
//! added up into the report one run over every host would have written.
//!
//! Hosts are disjoint between shards, so violations and findings are the
//! union (re-sorted as a run sorts them), the crawlers table's request
//! aggregates add up (requests, robots.txt fetches and hosts are sums,
//! first and last seen the extremes), and so do the request counts. The
//! inputs and settings are every shard's (they must agree).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use polars::prelude::*;
use serde_json::Value;

use super::{Parts, Report, ReportError};
use crate::replay::{Counts, FINDING_KINDS, Finding, VIOLATION_KINDS, Violation, sort_rows};

/// Why shard reports cannot be merged.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MergeError {
    /// A shard report's file is missing, unreadable or not as `audit`
    /// writes it.
    #[error("{}: {message}", path.display())]
    Shard {
        /// The file or directory.
        path: PathBuf,
        /// What is wrong, and what to do.
        message: String,
    },
    /// The shards do not make up one audit.
    #[error("{0}")]
    Set(String),
    /// Building the merged report failed.
    #[error(transparent)]
    Report(#[from] ReportError),
}

/// One shard report, read back.
struct ShardReport {
    dir: PathBuf,
    summary: Value,
    index: u64,
    count: u64,
}

fn shard_error(path: &Path, message: impl Into<String>) -> MergeError {
    MergeError::Shard {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

fn read_shard(dir: &Path) -> Result<ShardReport, MergeError> {
    let path = dir.join("summary.json");
    let text = std::fs::read(&path).map_err(|e| {
        shard_error(
            &path,
            format!(
                "cannot read: {e} (merge takes report directories written by audit --shard K/N)"
            ),
        )
    })?;
    let summary: Value = serde_json::from_slice(&text)
        .map_err(|e| shard_error(&path, format!("not a report summary: {e}")))?;
    let shard = &summary["shard"];
    let (Some(index), Some(count)) = (shard["index"].as_u64(), shard["count"].as_u64()) else {
        return Err(shard_error(
            &path,
            "not a shard report: write it with audit --shard K/N",
        ));
    };
    Ok(ShardReport {
        dir: dir.to_path_buf(),
        summary,
        index,
        count,
    })
}

/// A shard's `NAME.parquet` table and its path (for later errors).
fn read_parquet(dir: &Path, name: &str) -> Result<(DataFrame, PathBuf), MergeError> {
    let path = dir.join(format!("{name}.parquet"));
    let file = std::fs::File::open(&path).map_err(|e| {
        shard_error(
            &path,
            format!("cannot read: {e} (merge reads the Parquet tables: keep parquet in --output-formats)"),
        )
    })?;
    let df = ParquetReader::new(file)
        .finish()
        .map_err(|e| shard_error(&path, format!("not a report table: {e}")))?;
    Ok((df, path))
}

/// A `&'static str` of `kinds` equal to `text`.
fn known_kind(kinds: &[&'static str], text: &str, path: &Path) -> Result<&'static str, MergeError> {
    kinds
        .iter()
        .find(|k| **k == text)
        .copied()
        .ok_or_else(|| shard_error(path, format!("unknown kind {text:?}")))
}

fn violations_of(df: &DataFrame, path: &Path) -> Result<Vec<Violation>, MergeError> {
    let bad = |e: PolarsError| shard_error(path, format!("not a violations table: {e}"));
    let time = df
        .column("time")
        .map_err(bad)?
        .cast(&DataType::Int64)
        .map_err(bad)?;
    let time = time.i64().map_err(bad)?;
    let text = |name: &str| -> Result<StringChunked, MergeError> {
        Ok(df.column(name).map_err(bad)?.str().map_err(bad)?.clone())
    };
    let (host, crawler, client_ip, kind) = (
        text("host")?,
        text("crawler")?,
        text("client_ip")?,
        text("kind")?,
    );
    let (method, url, rule, version, detail) = (
        text("method")?,
        text("url")?,
        text("rule")?,
        text("robots_version")?,
        text("detail")?,
    );
    let verified = df.column("verified").map_err(bad)?.bool().map_err(bad)?;
    let status = df.column("status").map_err(bad)?.i32().map_err(bad)?;
    let line = df.column("rule_line").map_err(bad)?.i64().map_err(bad)?;
    let s = |c: &StringChunked, i: usize| c.get(i).unwrap_or_default().to_string();
    (0..df.height())
        .map(|i| {
            Ok(Violation {
                time: time.get(i).unwrap_or_default(),
                host: s(&host, i),
                crawler: s(&crawler, i),
                verified: verified.get(i),
                client_ip: s(&client_ip, i),
                kind: known_kind(&VIOLATION_KINDS, kind.get(i).unwrap_or_default(), path)?,
                method: s(&method, i),
                url: s(&url, i),
                status: u16::try_from(status.get(i).unwrap_or_default()).unwrap_or_default(),
                rule: s(&rule, i),
                rule_line: line.get(i).and_then(|l| u32::try_from(l).ok()),
                robots_version: version.get(i).map(str::to_string),
                detail: s(&detail, i),
            })
        })
        .collect()
}

fn findings_of(df: &DataFrame, path: &Path) -> Result<Vec<Finding>, MergeError> {
    let bad = |e: PolarsError| shard_error(path, format!("not a findings table: {e}"));
    let text = |name: &str| -> Result<StringChunked, MergeError> {
        Ok(df.column(name).map_err(bad)?.str().map_err(bad)?.clone())
    };
    let (kind, host, crawler, url, detail) = (
        text("kind")?,
        text("host")?,
        text("crawler")?,
        text("url")?,
        text("detail")?,
    );
    let count = df.column("count").map_err(bad)?.u64().map_err(bad)?;
    let s = |c: &StringChunked, i: usize| c.get(i).unwrap_or_default().to_string();
    (0..df.height())
        .map(|i| {
            Ok(Finding {
                kind: known_kind(&FINDING_KINDS, kind.get(i).unwrap_or_default(), path)?,
                host: s(&host, i),
                crawler: s(&crawler, i),
                url: s(&url, i),
                count: count.get(i).unwrap_or_default(),
                detail: s(&detail, i),
            })
        })
        .collect()
}

/// The crawlers table's request aggregates (its columns but the
/// violations), times as nanoseconds: what `partials_frame` gives a run.
fn partials_of(df: &DataFrame, path: &Path) -> Result<DataFrame, MergeError> {
    df.clone()
        .lazy()
        .select([
            col("crawler"),
            col("operator"),
            col("verified"),
            col("requests"),
            col("robots_txt_fetches"),
            col("hosts"),
            col("first_seen").cast(DataType::Int64),
            col("last_seen").cast(DataType::Int64),
        ])
        .collect()
        .map_err(|e| shard_error(path, format!("not a crawlers table: {e}")))
}

impl Report {
    /// Merges the shard reports in `dirs` (each written by `audit --shard
    /// K/N`, all of one N, every K once) into the report of one run.
    ///
    /// # Errors
    /// A directory that is not a shard report (or lacks its Parquet
    /// tables), shards missing or repeated, or shards of different inputs
    /// or settings.
    pub fn merge(dirs: &[PathBuf]) -> Result<Report, MergeError> {
        let mut shards = dirs
            .iter()
            .map(|d| read_shard(d))
            .collect::<Result<Vec<_>, _>>()?;
        shards.sort_by_key(|s| s.index);
        let Some(first) = shards.first() else {
            return Err(MergeError::Set("no shard reports given".into()));
        };
        let n = first.count;
        let indices: Vec<u64> = shards.iter().map(|s| s.index).collect();
        let expected: Vec<u64> = (0..n).collect();
        if shards.iter().any(|s| s.count != n) || indices != expected {
            let given: Vec<String> = shards
                .iter()
                .map(|s| format!("{}/{} ({})", s.index, s.count, s.dir.display()))
                .collect();
            return Err(MergeError::Set(format!(
                "the shards do not make up one audit: each of 0/{n} to {}/{n} is needed once; given {}",
                n.saturating_sub(1),
                given.join(", ")
            )));
        }
        for s in &shards[1..] {
            for key in ["inputs", "settings", "tool"] {
                if s.summary[key] != first.summary[key] {
                    return Err(MergeError::Set(format!(
                        "{} and {} differ in {key}: shards must audit the same logs with the same settings",
                        first.dir.join("summary.json").display(),
                        s.dir.join("summary.json").display()
                    )));
                }
            }
        }
        let mut violations = Vec::new();
        let mut findings = Vec::new();
        let mut partials: Option<DataFrame> = None;
        let mut counts = Counts::default();
        let mut categories: BTreeMap<String, String> = BTreeMap::new();
        let mut seconds = 0.0f64;
        for s in &shards {
            let (df, path) = read_parquet(&s.dir, "violations")?;
            violations.extend(violations_of(&df, &path)?);
            let (df, path) = read_parquet(&s.dir, "findings")?;
            findings.extend(findings_of(&df, &path)?);
            let (df, path) = read_parquet(&s.dir, "crawlers")?;
            let part = partials_of(&df, &path)?;
            partials = Some(match partials {
                None => part,
                Some(all) => all.vstack(&part).map_err(ReportError::from)?,
            });
            let summary_path = s.dir.join("summary.json");
            let shard_counts: Counts = serde_json::from_value(s.summary["requests"].clone())
                .map_err(|e| shard_error(&summary_path, format!("bad request counts: {e}")))?;
            counts.add(&shard_counts);
            if let Some(map) = s.summary["shard"]["categories"].as_object() {
                for (crawler, category) in map {
                    categories
                        .entry(crawler.clone())
                        .or_insert_with(|| category.as_str().unwrap_or_default().to_string());
                }
            }
            seconds = seconds.max(s.summary["run"]["seconds"].as_f64().unwrap_or(0.0));
        }
        // As a run sorts them (stably: rows equal in the sort keys are of
        // one host, so of one shard, and keep that shard's order).
        sort_rows(&mut violations, &mut findings);
        let settings: BTreeMap<String, Value> =
            serde_json::from_value(first.summary["settings"].clone()).unwrap_or_default();
        let partials = partials.expect("at least one shard");
        Ok(Report::assemble(Parts {
            violations: &violations,
            findings: &findings,
            partials: partials.lazy(),
            categories: &categories,
            counts: &counts,
            inputs: first.summary["inputs"].clone(),
            settings: &settings,
            seconds,
            shard: None,
        })?)
    }
}

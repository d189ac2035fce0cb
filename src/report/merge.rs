//! `merge`: shard reports (written by `audit --shard K/N`) read back and
//! added up into the report one run over every host would have written.
//!
//! Hosts are disjoint between shards, so violations and findings are the
//! union (re-sorted as a run sorts them), the crawlers table's request
//! aggregates add up (requests, robots.txt fetches and hosts are sums,
//! first and last seen the extremes), and so do the request counts. The
//! inputs and settings are every shard's (they must agree).

use std::collections::BTreeMap;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use polars::prelude::*;
use serde_json::Value;

use super::tables::{daily_of, findings_of, partials_of, violations_of};
use super::{Daily, Parts, Report, ReportError};
use crate::contain::{contain, read_parquet};
use crate::logs::FileReport;
use crate::replay::{Counts, Violations, sort_rows};

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
    /// `summary.json` as written, to compare shards by.
    summary: Value,
    /// What merge uses of it, typed and checked.
    typed: ShardSummary,
}

/// The parts of a shard's `summary.json` that merge uses; reading them
/// typed refuses a tampered file (a string where a count goes, HTML in a
/// number) instead of carrying it into the merged report.
#[derive(serde::Deserialize)]
struct ShardSummary {
    shard: ShardInfo,
    inputs: ShardInputs,
    requests: Counts,
    settings: BTreeMap<String, Value>,
    run: ShardRun,
    #[serde(default)]
    warnings: Vec<String>,
}

#[derive(serde::Deserialize)]
struct ShardInfo {
    index: u64,
    count: u64,
    #[serde(default)]
    categories: BTreeMap<String, String>,
    #[serde(default)]
    rule_groups: Vec<super::RuleGroup>,
}

#[derive(serde::Deserialize)]
struct ShardInputs {
    files: Vec<FileReport>,
    snapshots: Vec<String>,
    #[serde(default)]
    ip_ranges: Vec<super::RangeFile>,
}

#[derive(serde::Deserialize)]
struct ShardRun {
    seconds: f64,
}

pub(super) fn shard_error(path: &Path, message: impl Into<String>) -> MergeError {
    MergeError::Shard {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

/// The largest `summary.json` merge reads: a shard's is a few kilobytes
/// per input file.
const MAX_SUMMARY: u64 = 64 << 20;

fn read_shard(dir: &Path) -> Result<ShardReport, MergeError> {
    let path = dir.join("summary.json");
    let cannot = |e: &dyn std::fmt::Display| {
        shard_error(
            &path,
            format!(
                "cannot read: {e} (merge takes report directories written by audit --shard K/N)"
            ),
        )
    };
    let file = std::fs::File::open(&path).map_err(|e| cannot(&e))?;
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return Err(cannot(&"not a regular file"));
    }
    let mut text = Vec::new();
    file.take(MAX_SUMMARY + 1)
        .read_to_end(&mut text)
        .map_err(|e| cannot(&e))?;
    if text.len() as u64 > MAX_SUMMARY {
        return Err(shard_error(
            &path,
            "not a report summary: larger than 64 MiB",
        ));
    }
    let summary: Value = serde_json::from_slice(&text)
        .map_err(|e| shard_error(&path, format!("not a report summary: {e}")))?;
    if !summary["shard"].is_object() {
        return Err(shard_error(
            &path,
            "not a shard report: write it with audit --shard K/N",
        ));
    }
    let typed: ShardSummary = serde_json::from_value(summary.clone())
        .map_err(|e| shard_error(&path, format!("not a shard report summary: {e}")))?;
    if typed.shard.count == 0 || typed.shard.index >= typed.shard.count {
        return Err(shard_error(
            &path,
            format!(
                "not a shard report summary: shard {}/{} does not exist",
                typed.shard.index, typed.shard.count
            ),
        ));
    }
    Ok(ShardReport {
        dir: dir.to_path_buf(),
        summary,
        typed,
    })
}

/// A shard's `NAME.parquet` table, turned into rows by `rows`, and the
/// path; a fault of the Parquet reader on corrupt bytes is an error
/// naming the file.
fn read_table<T>(
    dir: &Path,
    name: &str,
    rows: impl FnOnce(&DataFrame, &Path) -> Result<T, MergeError>,
) -> Result<T, MergeError> {
    let path = dir.join(format!("{name}.parquet"));
    let file = std::fs::File::open(&path).map_err(|e| {
        shard_error(
            &path,
            format!("cannot read: {e} (merge reads the Parquet tables: keep parquet in --output-formats)"),
        )
    })?;
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return Err(shard_error(&path, "cannot read: not a regular file"));
    }
    let df =
        read_parquet(file).map_err(|e| shard_error(&path, format!("not a report table: {e}")))?;
    rows(&df, &path)
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
        shards.sort_by_key(|s| s.typed.shard.index);
        let Some(first) = shards.first() else {
            return Err(MergeError::Set("no shard reports given".into()));
        };
        let n = first.typed.shard.count;
        // Every index of 0..n once (compared, never allocated: n comes
        // from a file).
        let complete = shards.len() as u64 == n
            && shards
                .iter()
                .enumerate()
                .all(|(i, s)| s.typed.shard.count == n && s.typed.shard.index == i as u64);
        if !complete {
            let given: Vec<String> = shards
                .iter()
                .map(|s| {
                    format!(
                        "{}/{} ({})",
                        s.typed.shard.index,
                        s.typed.shard.count,
                        s.dir.display()
                    )
                })
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
        let mut violations = Violations::default();
        let mut findings = Vec::new();
        let mut partials: Option<DataFrame> = None;
        let mut daily: Option<DataFrame> = None;
        let mut counts = Counts::default();
        let mut categories: BTreeMap<String, String> = BTreeMap::new();
        let mut operators: BTreeMap<String, String> = BTreeMap::new();
        let mut seconds = 0.0f64;
        for s in &shards {
            let (rows, named) = read_table(&s.dir, "violations", violations_of)?;
            violations.extend(rows);
            for (crawler, (category, operator)) in named {
                categories.entry(crawler.clone()).or_insert(category);
                if let Some(o) = operator {
                    operators.entry(crawler).or_insert(o);
                }
            }
            findings.extend(read_table(&s.dir, "findings", findings_of)?);
            let part = read_table(&s.dir, "daily", daily_of)?;
            daily = Some(match daily {
                None => part,
                Some(all) => all.vstack(&part).map_err(ReportError::from)?,
            });
            let part = read_table(&s.dir, "crawlers", partials_of)?;
            partials = Some(match partials {
                None => part,
                Some(all) => all.vstack(&part).map_err(ReportError::from)?,
            });
            counts = counts.checked_add(&s.typed.requests).ok_or_else(|| {
                shard_error(
                    &s.dir.join("summary.json"),
                    "request counts too large to add up",
                )
            })?;
            for (crawler, category) in &s.typed.shard.categories {
                categories
                    .entry(crawler.clone())
                    .or_insert_with(|| category.clone());
            }
            seconds = seconds.max(s.typed.run.seconds);
        }
        crate::replay::merge_unknown_hosts(&mut findings);
        // As a run sorts them (stably: rows equal in the sort keys are of
        // one host, so of one shard, and keep that shard's order).
        sort_rows(&mut violations, &mut findings);
        // The shards' run warnings, each once (the range files' are the
        // report's own, made again from the merged window).
        let mut warnings: Vec<String> = Vec::new();
        for s in &shards {
            for w in &s.typed.warnings {
                if !w.starts_with(super::RANGE_WARNING) && !warnings.contains(w) {
                    warnings.push(w.clone());
                }
            }
        }
        let rule_groups: BTreeMap<(String, String, u32), String> = shards
            .iter()
            .flat_map(|s| &s.typed.shard.rule_groups)
            .map(|g| ((g.host.clone(), g.version.clone(), g.line), g.group.clone()))
            .collect();
        let first = &first.typed;
        let inputs = super::Inputs::of(&first.inputs.files, &first.inputs.snapshots)
            .with_ip_ranges(first.inputs.ip_ranges.clone());
        let partials = partials.expect("at least one shard");
        let daily = daily
            .expect("at least one shard")
            .sort(
                ["day", "host", "crawler", "kind"],
                SortMultipleOptions::default().with_maintain_order(true),
            )
            .map_err(ReportError::from)?;
        contain(|| {
            Report::assemble(Parts {
                violations,
                findings: &findings,
                partials: partials.lazy(),
                daily: Daily::Frame(daily),
                operators: &operators,
                categories: &categories,
                counts: &counts,
                inputs,
                settings: &first.settings,
                warnings: &warnings,
                seconds,
                shard: None,
            })
        })
        .map_err(|panic| {
            MergeError::Set(format!(
                "the shard reports cannot be added up ({panic}): were they changed after audit wrote them?"
            ))
        })?
        .map_err(MergeError::from)
        .map(|mut report| {
            // The groups each shard named for its page's rules.
            report.name_rule_groups(|host, version, line| {
                rule_groups
                    .get(&(host.to_string(), version.to_string(), line))
                    .cloned()
            });
            report
        })
    }
}

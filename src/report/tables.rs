//! The report's three tables (SPEC section 9): each one's columns, the
//! frames the report builds of the replay's rows (`findings`, the
//! per-crawler activity and its aggregates, `crawlers`), the RFC 3339 text
//! of their times for CSV and NDJSON, and the readers `merge` checks a
//! shard's tables with. The violations table's own writers are in
//! `violations` (it is written from the compact table, never one frame).

use std::path::Path;

use polars::prelude::*;

use super::merge::{MergeError, shard_error};
use crate::replay::{CrawlerActivity, Finding, FindingKind, Violation, ViolationKind, Violations};
use crate::time::{ALWAYS, format_time};

/// Column names of `violations.csv`, in order.
pub const VIOLATION_COLUMNS: [&str; 13] = [
    "time",
    "host",
    "crawler",
    "verified",
    "client_ip",
    "kind",
    "method",
    "url",
    "status",
    "rule",
    "rule_line",
    "robots_version",
    "detail",
];

/// Column names of `crawlers.csv`, in order.
pub const CRAWLER_COLUMNS: [&str; 13] = [
    "crawler",
    "operator",
    "verified",
    "requests",
    "robots_txt_fetches",
    "disallow",
    "crawl_delay",
    "noindex",
    "unavailable_after",
    "violation_rate",
    "hosts",
    "first_seen",
    "last_seen",
];

/// Column names of `findings.csv`, in order.
pub const FINDING_COLUMNS: [&str; 6] = ["kind", "host", "crawler", "url", "count", "detail"];

/// One row of the crawlers table, typed: what a summary shows of a crawler.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CrawlerRow {
    /// The crawler identity.
    pub crawler: String,
    /// Its requests.
    pub requests: u64,
    /// Its violations per kind, in [`ViolationKind::ALL`] order.
    pub violations: [u64; 4],
}

impl CrawlerRow {
    /// All its violations.
    pub fn total(&self) -> u64 {
        self.violations.iter().sum()
    }
}

pub(super) fn crawler_rows(df: &DataFrame) -> PolarsResult<Vec<CrawlerRow>> {
    let names = df.column("crawler")?.str()?;
    let requests = df.column("requests")?.u64()?;
    let kinds = ViolationKind::ALL
        .iter()
        .map(|k| df.column(k.column())?.u64().cloned())
        .collect::<PolarsResult<Vec<_>>>()?;
    Ok((0..df.height())
        .map(|i| CrawlerRow {
            crawler: names.get(i).unwrap_or_default().to_string(),
            requests: requests.get(i).unwrap_or(0),
            violations: std::array::from_fn(|k| kinds[k].get(i).unwrap_or(0)),
        })
        .collect())
}

pub(super) fn utc(nanos: Vec<i64>, name: &str) -> PolarsResult<Column> {
    Column::new(name.into(), nanos).cast(&DataType::Datetime(
        TimeUnit::Nanoseconds,
        Some(TimeZone::UTC),
    ))
}

pub(super) fn findings_frame(rows: &[Finding]) -> PolarsResult<DataFrame> {
    DataFrame::new_infer_height(vec![
        Column::new(
            "kind".into(),
            rows.iter().map(|f| f.kind.as_str()).collect::<Vec<_>>(),
        ),
        Column::new(
            "host".into(),
            rows.iter().map(|f| f.host.as_str()).collect::<Vec<_>>(),
        ),
        Column::new(
            "crawler".into(),
            rows.iter().map(|f| f.crawler.as_str()).collect::<Vec<_>>(),
        ),
        Column::new(
            "url".into(),
            rows.iter().map(|f| f.url.as_str()).collect::<Vec<_>>(),
        ),
        Column::new(
            "count".into(),
            rows.iter().map(|f| f.count).collect::<Vec<_>>(),
        ),
        Column::new(
            "detail".into(),
            rows.iter().map(|f| f.detail.as_str()).collect::<Vec<_>>(),
        ),
    ])
}

pub(super) fn activity_frame(rows: &[CrawlerActivity]) -> PolarsResult<DataFrame> {
    let text = |f: fn(&CrawlerActivity) -> &str| rows.iter().map(f).collect::<Vec<&str>>();
    let count = |f: fn(&CrawlerActivity) -> u64| rows.iter().map(f).collect::<Vec<u64>>();
    let time = |f: fn(&CrawlerActivity) -> i64| rows.iter().map(f).collect::<Vec<i64>>();
    DataFrame::new_infer_height(vec![
        Column::new("host".into(), text(|r| &r.host)),
        Column::new("crawler".into(), text(|r| &r.crawler)),
        Column::new(
            "operator".into(),
            rows.iter()
                .map(|r| r.operator.as_deref())
                .collect::<Vec<_>>(),
        ),
        Column::new(
            "verified".into(),
            rows.iter().map(|r| r.verified).collect::<Vec<_>>(),
        ),
        Column::new("requests".into(), count(|r| r.requests)),
        Column::new("robots_txt_fetches".into(), count(|r| r.robots_txt_fetches)),
        Column::new("first_seen".into(), time(|r| r.first_seen)),
        Column::new("last_seen".into(), time(|r| r.last_seen)),
    ])
}

/// Per-crawler aggregates of the activity rows (one per crawler and
/// host): everything of the crawlers table but the violations
/// (`crawler, operator, verified, requests, robots_txt_fetches, hosts,
/// first_seen, last_seen`, times as nanoseconds). Shard reports' partials
/// add up ([`crawlers_frame`]).
pub(super) fn partials_frame(activity: &DataFrame) -> LazyFrame {
    activity.clone().lazy().group_by([col("crawler")]).agg([
        col("operator").first().alias("operator"),
        col("verified").max().alias("verified"),
        col("requests").sum().alias("requests"),
        col("robots_txt_fetches").sum().alias("robots_txt_fetches"),
        col("host").n_unique().cast(DataType::UInt64).alias("hosts"),
        col("first_seen").min().alias("first_seen"),
        col("last_seen").max().alias("last_seen"),
    ])
}

/// The per-crawler table, aggregated by polars: partials (one per crawler,
/// or one per crawler and shard, whose hosts are disjoint) added up, and
/// violations by kind counted; sorted by violations (most first), then name.
pub(super) fn crawlers_frame(
    partials: LazyFrame,
    violations: &Violations,
) -> PolarsResult<DataFrame> {
    let per_request = partials.group_by([col("crawler")]).agg([
        col("operator").first().alias("operator"),
        col("verified").max().alias("verified"),
        col("requests").sum().alias("requests"),
        col("robots_txt_fetches").sum().alias("robots_txt_fetches"),
        col("hosts").sum().alias("hosts"),
        col("first_seen").min().alias("first_seen"),
        col("last_seen").max().alias("last_seen"),
    ]);
    // Violations by crawler and kind, and the crawler's requests that
    // broke a rule, counted in one pass over the rows.
    // Per crawler: rows by kind, then its violating requests.
    let mut by_crawler: foldhash::HashMap<&str, ([u64; 4], u64)> = foldhash::HashMap::default();
    let mut requests = RequestsOfRows::default();
    for v in violations.iter() {
        let counts = by_crawler.entry(v.crawler()).or_default();
        counts.0[v.kind().index()] += 1;
        counts.1 += u64::from(requests.is_new_request(&v));
    }
    let mut per_violation = vec![Column::new(
        "crawler".into(),
        by_crawler.keys().copied().collect::<Vec<&str>>(),
    )];
    for kind in ViolationKind::ALL {
        per_violation.push(Column::new(
            kind.column().into(),
            by_crawler
                .values()
                .map(|c| c.0[kind.index()])
                .collect::<Vec<u64>>(),
        ));
    }
    per_violation.push(Column::new(
        "violating_requests".into(),
        by_crawler.values().map(|c| c.1).collect::<Vec<u64>>(),
    ));
    let per_violation = DataFrame::new(by_crawler.len(), per_violation)?.lazy();
    let total = ViolationKind::ALL
        .iter()
        .fold(lit(0u64), |acc, k| acc + col(k.column()));
    let df = per_request
        .left_join(per_violation, col("crawler"), col("crawler"))
        .with_columns(
            ViolationKind::ALL
                .iter()
                .map(|k| col(k.column()).fill_null(lit(0u64)))
                .collect::<Vec<_>>(),
        )
        .with_column(total.clone().alias("violations"))
        .with_column(
            // Each violating request is one of the crawler's requests.
            (col("violating_requests")
                .fill_null(lit(0u64))
                .cast(DataType::Float64)
                / col("requests").cast(DataType::Float64))
            .alias("violation_rate"),
        )
        .sort(
            ["violations", "crawler"],
            SortMultipleOptions::default().with_order_descending_multi([true, false]),
        )
        .collect()?;
    let mut df = df.select(CRAWLER_COLUMNS)?;
    let first: Vec<i64> = df
        .column("first_seen")?
        .i64()?
        .into_no_null_iter()
        .collect();
    let last: Vec<i64> = df.column("last_seen")?.i64()?.into_no_null_iter().collect();
    df.with_column(utc(first, "first_seen")?)?;
    df.with_column(utc(last, "last_seen")?)?;
    Ok(df)
}

/// Tells the crawler requests behind violation rows apart, for
/// `violation_rate` (violating requests / requests). A request that broke
/// Disallow and Crawl-delay at once has two rows with one time, host,
/// crawler, URL, address, method and status: they are one request. Rows
/// come sorted by time, host, crawler, URL and kind, so a request's rows
/// are neighbours. `noindex` and `unavailable-after` rows are evidence
/// from search referrals, not requests of the crawler, and are not
/// counted. (Two identical requests in one second that broke different
/// rules count as one: the rate errs low, never above 1.)
#[derive(Default)]
struct RequestsOfRows<'a> {
    /// The run's (time, host, crawler, URL).
    run: Option<(i64, &'a str, &'a str, &'a str)>,
    /// Rows of the run not yet paired with a row of the other kind:
    /// (is a disallow row, address, method, status).
    unpaired: Vec<(bool, &'a str, &'a str, u16)>,
}

impl<'a> RequestsOfRows<'a> {
    /// Is row `v` a request not counted yet?
    fn is_new_request(&mut self, v: &crate::replay::ViolationRef<'a>) -> bool {
        let disallow = match v.kind() {
            ViolationKind::Disallow => true,
            ViolationKind::CrawlDelay => false,
            ViolationKind::Noindex | ViolationKind::UnavailableAfter => return false,
        };
        let run = (v.time(), v.host(), v.crawler(), v.url());
        if self.run != Some(run) {
            self.run = Some(run);
            self.unpaired.clear();
        }
        let me = (v.client_ip(), v.method(), v.status());
        match self
            .unpaired
            .iter()
            .position(|&(d, ip, m, st)| d != disallow && (ip, m, st) == me)
        {
            Some(i) => {
                self.unpaired.swap_remove(i);
                false
            }
            None => {
                self.unpaired.push((disallow, me.0, me.1, me.2));
                true
            }
        }
    }
}

/// The kind a shard's row names, read by `parse`; an unknown one is the
/// shard's error.
fn known_kind<K>(parse: fn(&str) -> Option<K>, name: &str, path: &Path) -> Result<K, MergeError> {
    parse(name).ok_or_else(|| shard_error(path, format!("unknown kind {name:?}")))
}

pub(super) fn violations_of(df: &DataFrame, path: &Path) -> Result<Vec<Violation>, MergeError> {
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
    // The repeated cells, shared.
    let mut texts = crate::text::Interner::default();
    let mut t = |text: Option<&str>| texts.get(text.unwrap_or_default());
    let row_error = |i: usize, what: &str| {
        shard_error(
            path,
            format!("not a violations table: row {}: {what}", i + 1),
        )
    };
    (0..df.height())
        .map(|i| {
            Ok(Violation {
                // "Always" is no request's time.
                time: time
                    .get(i)
                    .filter(|t| *t != ALWAYS)
                    .ok_or_else(|| row_error(i, "no time"))?,
                host: t(host.get(i)),
                crawler: t(crawler.get(i)),
                verified: verified.get(i),
                client_ip: t(client_ip.get(i)),
                kind: known_kind(
                    ViolationKind::from_name,
                    kind.get(i).unwrap_or_default(),
                    path,
                )?,
                method: t(method.get(i)),
                url: s(&url, i),
                status: status
                    .get(i)
                    .and_then(|v| u16::try_from(v).ok())
                    .ok_or_else(|| row_error(i, "a status that is not one"))?,
                rule: t(rule.get(i)),
                rule_line: line
                    .get(i)
                    .map(|l| u32::try_from(l).map_err(|_| row_error(i, "a rule line out of range")))
                    .transpose()?,
                robots_version: version.get(i).map(|v| t(Some(v))),
                detail: t(detail.get(i)),
            })
        })
        .collect()
}

pub(super) fn findings_of(df: &DataFrame, path: &Path) -> Result<Vec<Finding>, MergeError> {
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
                kind: known_kind(
                    FindingKind::from_name,
                    kind.get(i).unwrap_or_default(),
                    path,
                )?,
                host: s(&host, i),
                crawler: s(&crawler, i),
                url: s(&url, i),
                count: count.get(i).ok_or_else(|| {
                    shard_error(
                        path,
                        format!("not a findings table: row {}: no count", i + 1),
                    )
                })?,
                detail: s(&detail, i),
            })
        })
        .collect()
}

/// The crawlers table's request aggregates (its columns but the
/// violations), times as nanoseconds: what `partials_frame` gives a run.
pub(super) fn partials_of(df: &DataFrame, path: &Path) -> Result<DataFrame, MergeError> {
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

/// A copy of `df` whose datetime columns are RFC 3339 strings
/// (`2026-11-01T03:00:00Z`), as the CSV files show times. Each run of equal
/// times (the violations are sorted by time) is formatted once.
pub(super) fn rfc3339_times(df: &DataFrame) -> PolarsResult<DataFrame> {
    let mut out = df.clone();
    for name in df.get_column_names_owned() {
        let column = df.column(&name)?;
        if matches!(column.dtype(), DataType::Datetime(..)) {
            let nanos = column.cast(&DataType::Int64)?;
            let mut text = StringChunkedBuilder::new(name.clone(), nanos.len());
            let mut last: Option<(i64, String)> = None;
            for v in nanos.i64()?.iter() {
                match v {
                    Some(t) => {
                        if last.as_ref().is_none_or(|(l, _)| *l != t) {
                            last = Some((t, format_time(t)));
                        }
                        text.append_value(last.as_ref().map_or("", |(_, s)| s.as_str()));
                    }
                    None => text.append_null(),
                }
            }
            out.with_column(text.finish().into_column())?;
        }
    }
    Ok(out)
}

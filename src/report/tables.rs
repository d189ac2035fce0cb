//! The report's four tables (SPEC section 9): each one's columns, the
//! frames the report builds of the replay's rows (`findings`, the
//! per-crawler activity and its aggregates, `crawlers`, `daily`), the RFC 3339 text
//! of their times for CSV and NDJSON, and the readers `merge` checks a
//! shard's tables with. The violations table's own writers are in
//! `violations` (it is written from the compact table, never one frame).

use std::path::Path;

use polars::prelude::*;

use super::merge::{MergeError, shard_error};
use crate::replay::{CrawlerActivity, Finding, FindingKind, Violation, ViolationKind, Violations};
use crate::time::ALWAYS;

/// Column names of `violations.csv`, in order.
pub const VIOLATION_COLUMNS: [&str; 16] = [
    "time",
    "host",
    "crawler",
    "category",
    "operator",
    "user_agent",
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
pub const CRAWLER_COLUMNS: [&str; 14] = [
    "crawler",
    "category",
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

/// The crawlers table's counts (`Int64`).
pub const CRAWLER_COUNTS: [&str; 7] = [
    "requests",
    "robots_txt_fetches",
    "disallow",
    "crawl_delay",
    "noindex",
    "unavailable_after",
    "hosts",
];

/// Column names of `findings.csv`, in order.
pub const FINDING_COLUMNS: [&str; 7] = [
    "kind",
    "host",
    "crawler",
    "user_agent",
    "url",
    "count",
    "detail",
];

/// Column names of `daily.csv`, in order.
pub const DAILY_COLUMNS: [&str; 6] = ["day", "host", "crawler", "kind", "requests", "violations"];

/// A crawler identity's category and operator, as the tables name them.
pub type Who = std::collections::BTreeMap<String, (String, Option<String>)>;

/// One row of the crawlers table, typed: what a summary shows of a crawler.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CrawlerRow {
    /// The crawler identity.
    pub crawler: String,
    /// Its requests.
    pub requests: u64,
    /// Verified against published ranges (`None`: no ranges to tell).
    pub verified: Option<bool>,
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
    let requests = df.column("requests")?.i64()?;
    let verified = df.column("verified")?.bool()?;
    let kinds = ViolationKind::ALL
        .iter()
        .map(|k| df.column(k.column())?.i64().cloned())
        .collect::<PolarsResult<Vec<_>>>()?;
    let count = |v: Option<i64>| v.and_then(|v| u64::try_from(v).ok()).unwrap_or(0);
    Ok((0..df.height())
        .map(|i| CrawlerRow {
            crawler: names.get(i).unwrap_or_default().to_string(),
            requests: count(requests.get(i)),
            verified: verified.get(i),
            violations: std::array::from_fn(|k| count(kinds[k].get(i))),
        })
        .collect())
}

/// A time as the tables hold it: UTC microseconds (the unit DuckDB,
/// Spark and pandas read without a cast), rounded down.
pub(crate) fn micros(nanos: i64) -> i64 {
    nanos.div_euclid(1000)
}

/// A time the tables hold ([`micros`]) as nanoseconds again.
pub(crate) fn nanos_of_micros(micros: i64) -> i64 {
    micros.saturating_mul(1000)
}

/// The type of the tables' times: UTC datetimes in microseconds.
fn time_type() -> DataType {
    DataType::Datetime(TimeUnit::Microseconds, Some(TimeZone::UTC))
}

/// A column of times (UTC nanoseconds) as the tables hold them.
pub(super) fn utc(nanos: Vec<i64>, name: &str) -> PolarsResult<Column> {
    Column::new(
        name.into(),
        nanos.into_iter().map(micros).collect::<Vec<i64>>(),
    )
    .cast(&time_type())
}

/// A time (UTC nanoseconds) as the tables' text shows it: RFC 3339 at
/// their precision, microseconds.
pub(crate) fn time_text(nanos: i64) -> String {
    micros_text(micros(nanos))
}

/// Counts as the tables hold them: `Int64` (what dashboards, Spark and
/// pandas take without a cast), saturating at its largest.
fn int64(counts: impl Iterator<Item = u64>) -> Vec<i64> {
    counts
        .map(|c| i64::try_from(c).unwrap_or(i64::MAX))
        .collect()
}

pub(super) fn findings_frame(rows: &[Finding]) -> PolarsResult<DataFrame> {
    DataFrame::new_infer_height(vec![
        Column::new(
            "kind".into(),
            rows.iter().map(|f| f.kind.as_str()).collect::<Vec<_>>(),
        ),
        Column::new(
            "host".into(),
            rows.iter().map(|f| &*f.host).collect::<Vec<_>>(),
        ),
        Column::new(
            "crawler".into(),
            rows.iter().map(|f| &*f.crawler).collect::<Vec<_>>(),
        ),
        Column::new(
            "user_agent".into(),
            rows.iter()
                .map(|f| (!f.user_agent.is_empty()).then_some(&*f.user_agent))
                .collect::<Vec<_>>(),
        ),
        Column::new(
            "url".into(),
            rows.iter().map(|f| f.url.as_str()).collect::<Vec<_>>(),
        ),
        Column::new("count".into(), int64(rows.iter().map(|f| f.count))),
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
/// the violations' counts per crawler (`by_crawler`,
/// [`violations_by_crawler`]) joined; sorted by violations (most first),
/// then name.
pub(super) fn crawlers_frame(
    partials: LazyFrame,
    by_crawler: &CrawlerCounts<'_>,
    who: &Who,
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
    // Per crawler: its violations by kind, then its requests that broke
    // a rule.
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
    let category = Column::new(
        "category".into(),
        df.column("crawler")?
            .str()?
            .iter()
            .map(|c| {
                c.and_then(|c| who.get(c))
                    .map(|(category, _)| category.as_str())
            })
            .collect::<Vec<_>>(),
    );
    let mut df = df;
    df.with_column(category)?;
    for name in CRAWLER_COUNTS {
        let counts = df.column(name)?.cast(&DataType::Int64)?;
        df.with_column(counts)?;
    }
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

/// Per crawler identity, its violations by kind (in [`ViolationKind::ALL`]'s
/// order) and its requests that broke a rule.
pub(super) type CrawlerCounts<'a> = foldhash::HashMap<&'a str, ([u64; 4], u64)>;

/// Per crawler, its violations by kind and its requests that broke a
/// rule ([`RequestsOfRows`]), counted in parallel over parts of the table
/// in its order. A part begins where a request's rows do (a row of
/// another time, host, crawler or URL than the row before it), so that
/// each request's rows are counted in one part, as in one pass.
pub(super) fn violations_by_crawler(violations: &Violations) -> CrawlerCounts<'_> {
    use rayon::prelude::*;
    let n = violations.len();
    let parts = (rayon::current_num_threads() * 4).clamp(1, n.max(1));
    let key = |i: usize| {
        let v = violations.get(i).expect("a row of the table");
        (v.time(), v.host(), v.crawler(), v.url())
    };
    let mut cuts: Vec<usize> = (0..parts)
        .map(|k| {
            let mut cut = k * n / parts;
            while cut > 0 && cut < n && key(cut) == key(cut - 1) {
                cut += 1;
            }
            cut
        })
        .collect();
    cuts.push(n);
    cuts.dedup();
    cuts.par_windows(2)
        .map(|w| counted(violations.range(w[0]..w[1])))
        .reduce(CrawlerCounts::default, |mut all, part| {
            for (crawler, (kinds, requests)) in part {
                let counts = all.entry(crawler).or_default();
                for (sum, k) in counts.0.iter_mut().zip(kinds) {
                    *sum += k;
                }
                counts.1 += requests;
            }
            all
        })
}

/// Per crawler, the violations of `rows` (in the table's order, each
/// request's rows together) by kind, and the requests that broke a rule.
fn counted<'a>(rows: impl Iterator<Item = crate::replay::ViolationRef<'a>>) -> CrawlerCounts<'a> {
    let mut by_crawler = CrawlerCounts::default();
    let mut requests = RequestsOfRows::default();
    for v in rows {
        let counts = by_crawler.entry(v.crawler()).or_default();
        counts.0[v.kind().index()] += 1;
        counts.1 += u64::from(requests.is_new_request(&v));
    }
    by_crawler
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

/// A shard's violations, and the category and operator its table gives
/// each crawler.
pub(super) fn violations_of(
    df: &DataFrame,
    path: &Path,
) -> Result<(Vec<Violation>, Who), MergeError> {
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
    let agent = text("user_agent")?;
    let crawler_names = text("crawler")?;
    let (category, operator) = (text("category")?, text("operator")?);
    let mut who = Who::new();
    for i in 0..df.height() {
        if let (Some(c), Some(k)) = (crawler_names.get(i), category.get(i)) {
            if !who.contains_key(c) {
                who.insert(
                    c.to_string(),
                    (k.to_string(), operator.get(i).map(str::to_string)),
                );
            }
        }
    }
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
                    .map(nanos_of_micros)
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
                user_agent: agent.get(i).map(|a| t(Some(a))),
            })
        })
        .collect::<Result<Vec<_>, MergeError>>()
        .map(|rows| (rows, who))
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
    let agent = text("user_agent")?;
    let count = df.column("count").map_err(bad)?.i64().map_err(bad)?;
    let s = |c: &StringChunked, i: usize| c.get(i).unwrap_or_default().to_string();
    // The repeated cells shared, as `violations_of` shares its rows'.
    let mut texts = crate::text::Interner::default();
    let mut shared = |c: &StringChunked, i: usize| texts.get(c.get(i).unwrap_or_default());
    (0..df.height())
        .map(|i| {
            Ok(Finding {
                kind: known_kind(
                    FindingKind::from_name,
                    kind.get(i).unwrap_or_default(),
                    path,
                )?,
                host: shared(&host, i),
                crawler: shared(&crawler, i),
                url: s(&url, i),
                user_agent: shared(&agent, i),
                count: count
                    .get(i)
                    .and_then(|c| u64::try_from(c).ok())
                    .ok_or_else(|| {
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

/// The `daily` table ([`DAILY_COLUMNS`]): per UTC day, host and crawler
/// identity that made requests or has violations that day, one row per
/// violation kind (all four, in name order, so that one kind's rows are a
/// complete series): the identity's requests to the host that day (the
/// same on the four rows) and its violations of that kind. Sorted by day,
/// host, crawler, kind. `noindex` and `unavailable-after` rows count on
/// the day of the referral that is their evidence.
pub(super) fn daily_frame(
    activity: &[CrawlerActivity],
    violations: &Violations,
) -> PolarsResult<DataFrame> {
    use rayon::prelude::*;
    let day = crate::time::DAY;
    // Hashed, then sorted once (a tree of string keys would compare
    // strings at every step for every row). The activities (on one
    // thread: each adds a group per day of its own, and merging parts of
    // them cost more than adding them up) beside the violations, added up
    // in parallel in parts merged by sums: the order they are added in
    // does not matter.
    type Groups<'a> = foldhash::HashMap<(i64, &'a str, &'a str), (u64, [u64; 4])>;
    fn merge<'a>(a: Groups<'a>, b: Groups<'a>) -> Groups<'a> {
        let (mut a, b) = if a.len() >= b.len() { (a, b) } else { (b, a) };
        for (key, (requests, kinds)) in b {
            let group = a.entry(key).or_default();
            group.0 += requests;
            for (sum, n) in group.1.iter_mut().zip(kinds) {
                *sum += n;
            }
        }
        a
    }
    let (asked, violated) = rayon::join(
        || {
            let mut groups = Groups::with_capacity_and_hasher(
                activity.iter().map(|a| a.days.len()).sum(),
                Default::default(),
            );
            for a in activity {
                for &(days, n) in &a.days {
                    groups.entry((days, &*a.host, &*a.crawler)).or_default().0 += n;
                }
            }
            groups
        },
        || {
            violations
                .par_blocks_unordered()
                .fold(Groups::default, |mut groups, rows| {
                    for v in rows {
                        groups
                            .entry((v.time().div_euclid(day), v.host(), v.crawler()))
                            .or_default()
                            .1[v.kind().index()] += 1;
                    }
                    groups
                })
                .reduce(Groups::default, merge)
        },
    );
    let mut groups: Vec<_> = merge(asked, violated).into_iter().collect();
    // The keys are distinct: an unstable sort gives the one order.
    groups.par_sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let mut kinds: Vec<ViolationKind> = ViolationKind::ALL.to_vec();
    kinds.sort_by_key(|k| k.as_str());
    let n = groups.len() * kinds.len();
    let (mut days, mut hosts, mut crawlers, mut kind_names, mut requests, mut counts) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    for ((days_since, host, crawler), (asked, by_kind)) in &groups {
        for k in &kinds {
            // Midnight in microseconds (which hold any day a log names).
            days.push(days_since.saturating_mul(MICROS_PER_DAY));
            hosts.push(*host);
            crawlers.push(*crawler);
            kind_names.push(k.as_str());
            requests.push(*asked);
            counts.push(by_kind[k.index()]);
        }
    }
    // The two columns of names (most of the table's bytes) are built side
    // by side.
    let (hosts, crawlers) = rayon::join(
        || Column::new("host".into(), hosts),
        || Column::new("crawler".into(), crawlers),
    );
    DataFrame::new(
        n,
        vec![
            Column::new("day".into(), days).cast(&time_type())?,
            hosts,
            crawlers,
            Column::new("kind".into(), kind_names),
            Column::new("requests".into(), int64(requests.into_iter())),
            Column::new("violations".into(), int64(counts.into_iter())),
        ],
    )
}

/// Microseconds in a day.
const MICROS_PER_DAY: i64 = 86_400_000_000;

/// A shard's `daily` table, checked: `merge` stacks the shards' (their
/// hosts are disjoint, so no row of one shard's adds to another's).
pub(super) fn daily_of(df: &DataFrame, path: &Path) -> Result<DataFrame, MergeError> {
    let df = df
        .select(DAILY_COLUMNS)
        .map_err(|e| shard_error(path, format!("not a daily table: {e}")))?;
    let want = [
        time_type(),
        DataType::String,
        DataType::String,
        DataType::String,
        DataType::Int64,
        DataType::Int64,
    ];
    for (column, dtype) in df.columns().iter().zip(want) {
        if column.dtype() != &dtype {
            return Err(shard_error(
                path,
                format!(
                    "not a daily table: column {} is {}, not {dtype}",
                    column.name(),
                    column.dtype()
                ),
            ));
        }
    }
    Ok(df)
}

/// The crawlers table's request aggregates (its columns but the
/// violations), times as nanoseconds (the table's microseconds, which
/// is all a run's report keeps of them): what `partials_frame` gives a run.
pub(super) fn partials_of(df: &DataFrame, path: &Path) -> Result<DataFrame, MergeError> {
    df.clone()
        .lazy()
        .select([
            col("crawler"),
            col("operator"),
            col("verified"),
            col("requests").cast(DataType::UInt64),
            col("robots_txt_fetches").cast(DataType::UInt64),
            col("hosts").cast(DataType::UInt64),
            col("first_seen").cast(DataType::Int64) * lit(1000i64),
            col("last_seen").cast(DataType::Int64) * lit(1000i64),
        ])
        .collect()
        .map_err(|e| shard_error(path, format!("not a crawlers table: {e}")))
}

/// Microseconds as RFC 3339 text, as [`format_time`](crate::time::format_time) writes nanoseconds
/// (a day's midnight before 1677-09-22 is past what nanoseconds hold).
fn micros_text(t: i64) -> String {
    jiff::Timestamp::from_microsecond(t).map_or_else(|_| t.to_string(), |ts| ts.to_string())
}

/// A copy of `df` whose datetime columns are RFC 3339 strings
/// (`2026-11-01T03:00:00Z`), as the CSV files show times. Each run of equal
/// times (the violations are sorted by time) is formatted once.
pub(super) fn rfc3339_times(df: &DataFrame) -> PolarsResult<DataFrame> {
    let mut out = df.clone();
    for name in df.get_column_names_owned() {
        let column = df.column(&name)?;
        if matches!(column.dtype(), DataType::Datetime(..)) {
            // The tables' times are microseconds.
            let micros = column.cast(&DataType::Int64)?;
            let mut text = StringChunkedBuilder::new(name.clone(), micros.len());
            let mut last: Option<(i64, String)> = None;
            for v in micros.i64()?.iter() {
                match v {
                    Some(t) => {
                        if last.as_ref().is_none_or(|(l, _)| *l != t) {
                            last = Some((t, micros_text(t)));
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Counted in parts, the table gives what one pass in its order gives,
    /// with many requests whose rows (Disallow and Crawl-delay of one
    /// request, and noindex evidence beside them) lie across the parts'
    /// first guesses.
    #[test]
    fn counted_in_parts_as_in_one_pass() {
        // Request `r` broke Disallow, two in three also Crawl-delay (a
        // second row of the request), one in seven has noindex evidence.
        let mut rows = Vec::new();
        for r in 0..2_000u32 {
            let row = |kind| Violation {
                time: i64::from(r / 3) * 1_000_000_000,
                host: "h.example".into(),
                crawler: ["A", "B"][(r % 2) as usize].into(),
                verified: None,
                client_ip: format!("192.0.2.{}", r % 4).into(),
                kind,
                method: "GET".into(),
                url: format!("/{}", r % 5),
                status: 200,
                rule: "Disallow: /".into(),
                rule_line: None,
                robots_version: None,
                detail: "".into(),
                user_agent: None,
            };
            rows.push(row(ViolationKind::Disallow));
            if r % 3 != 0 {
                rows.push(row(ViolationKind::CrawlDelay));
            }
            if r % 7 == 0 {
                rows.push(row(ViolationKind::Noindex));
            }
        }
        let mut table: Violations = rows.into_iter().collect();
        table.sort();
        let one_pass = counted(table.iter());
        let parts = violations_by_crawler(&table);
        assert_eq!(parts, one_pass);
        // Requests with two rows were met (else the test shows nothing).
        let rows: u64 = one_pass.values().map(|c| c.0[0] + c.0[1]).sum();
        assert!(one_pass.values().map(|c| c.1).sum::<u64>() < rows);
    }
}

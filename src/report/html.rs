//! `report.html`: the page template (`page.html`: inline CSS and script,
//! no network) with the report's evidence as one JSON object, which the
//! page's script renders: a sentence per violating crawler, the evidence
//! per crawler and rule with example requests, findings grouped, the
//! crawlers, a sample of the violations, charts per day and per crawler,
//! and the input's accounting. Every list is capped here (the page says
//! how many more the data files hold), so the page stays small however
//! large the report: at most a few hundred kilobytes.

use std::collections::{BTreeMap, BTreeSet};

use foldhash::{HashMap, HashMapExt, HashSet};
use polars::prelude::*;
use rayon::prelude::*;
use serde_json::{Value, json};

use super::tables::{Who, nanos_of_micros};
use super::{OutputFormats, ReportError, Summary};
use crate::replay::{Finding, ViolationKind, ViolationRef, Violations};
use crate::time::DAY;

/// The page, with `/*CRAWLAUDIT_DATA*/null` where the data goes.
const TEMPLATE: &str = include_str!("page.html");

/// Where the template takes the data.
const MARKER: &str = "/*CRAWLAUDIT_DATA*/null";

/// The most crawlers given a sentence.
pub const MAX_STORIES: usize = 40;
/// The most rows of the crawlers table the page holds.
pub const MAX_CRAWLERS: usize = 300;
/// The most evidence groups (crawler, kind, host, rule, line, version).
pub const MAX_EVIDENCE: usize = 150;
/// Example requests per evidence or finding group.
pub const EXAMPLES: usize = 3;
/// The most violation rows of the page's sample table.
pub const MAX_SAMPLE: usize = 300;
/// The most finding groups (kind, crawler).
pub const MAX_FINDING_GROUPS: usize = 100;
/// The most days the chart has: longer spans are counted in buckets of
/// several days.
pub const MAX_DAYS: i64 = 180;
/// Crawlers the charts name; the others are added up as `others`.
pub const CHART_CRAWLERS: usize = 10;
/// The most input files listed.
pub const MAX_FILES: usize = 100;
/// The most characters of a URL, User-Agent, rule or detail the page
/// shows (the data files hold them whole).
pub const MAX_TEXT: usize = 120;
/// Share of a crawler's violations the sentence's peak covers.
const PEAK_SHARE: f64 = 0.8;

/// `text`, cut to [`MAX_TEXT`] characters (`…` marks the cut).
pub(super) fn clip(text: &str) -> String {
    match text.char_indices().nth(MAX_TEXT) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// An optional text, clipped.
fn clip_opt(text: Option<&str>) -> Option<String> {
    text.map(clip)
}

/// A time as the tables show it (microseconds), RFC 3339.
fn time(t: i64) -> String {
    super::tables::time_text(t)
}

/// The UTC day of a time, as days since 1970.
fn day_number(t: i64) -> i64 {
    t.div_euclid(DAY)
}

/// A day number (days since 1970-01-01) as `YYYY-MM-DD`.
fn day_text(day: i64) -> String {
    jiff::civil::date(1970, 1, 1)
        .checked_add(jiff::Span::new().days(day))
        .map_or_else(|_| day.to_string(), |d| d.to_string())
}

/// One group of violations: one crawler, kind, host, rule, line and
/// version.
#[derive(Default)]
struct Group<'a> {
    count: u64,
    first: i64,
    last: i64,
    /// The first rows (table positions), distinct URLs first.
    rows: Vec<ViolationRef<'a>>,
}

/// Findings of one kind and crawler: what they cover, how many rows, on
/// which hosts, and the first rows.
type FindingGroup<'a> = (u64, u64, BTreeSet<&'a str>, Vec<&'a Finding>);

/// A group of violations: crawler, kind, host, rule, line, version.
type Key<'a> = (
    &'a str,
    ViolationKind,
    &'a str,
    &'a str,
    Option<u32>,
    Option<&'a str>,
);

/// The group of a violation.
fn key_of<'a>(r: &ViolationRef<'a>) -> Key<'a> {
    (
        r.crawler(),
        r.kind(),
        r.host(),
        r.rule(),
        r.rule_line(),
        r.robots_version(),
    )
}

/// What the page shows of one violation.
fn violation_json(v: &ViolationRef<'_>, who: &Who) -> Value {
    json!({
        "time": time(v.time()),
        "host": v.host(),
        "crawler": v.crawler(),
        "category": who.get(v.crawler()).map(|(c, _)| c.as_str()),
        "verified": v.verified(),
        "kind": v.kind().as_str(),
        "client_ip": v.client_ip(),
        "method": v.method(),
        "url": clip(v.url()),
        "status": v.status(),
        "rule": clip(v.rule()),
        "line": v.rule_line(),
        "version": v.robots_version(),
        "user_agent": clip_opt(v.user_agent()),
        "detail": clip(v.detail()),
    })
}

/// The shortest run of days holding [`PEAK_SHARE`] of `days`' counts:
/// (first day, last day, share), when it spans at most half the days from
/// the first to the last (violations spread evenly have no peak).
fn peak(days: &BTreeMap<i64, u64>) -> Option<(i64, i64, f64)> {
    let total: u64 = days.values().sum();
    let list: Vec<(i64, u64)> = days.iter().map(|(&d, &n)| (d, n)).collect();
    let (first, last) = (list.first()?.0, list.last()?.0);
    if first == last || total == 0 {
        return None;
    }
    let need = (total as f64 * PEAK_SHARE).ceil() as u64;
    let mut best: Option<(i64, i64, u64)> = None;
    let (mut from, mut sum) = (0usize, 0u64);
    for to in 0..list.len() {
        sum += list[to].1;
        while sum - list[from].1 >= need && from < to {
            sum -= list[from].1;
            from += 1;
        }
        if sum >= need {
            let span = list[to].0 - list[from].0;
            if best.is_none_or(|(a, b, _)| span < b - a) {
                best = Some((list[from].0, list[to].0, sum));
            }
        }
    }
    let (a, b, sum) = best?;
    // A peak only when it is one: at most half the days of the span.
    ((b - a + 1) * 2 <= last - first + 1).then(|| (a, b, sum as f64 / total as f64))
}

/// Reads a cell of the crawlers table as JSON.
fn cell(df: &DataFrame, column: &str, row: usize) -> PolarsResult<Value> {
    Ok(match df.column(column)?.get(row)? {
        AnyValue::Null => Value::Null,
        AnyValue::String(s) => json!(s),
        AnyValue::StringOwned(s) => json!(s.as_str()),
        AnyValue::Boolean(b) => json!(b),
        AnyValue::Float64(f) => json!(f),
        AnyValue::Int64(n) => json!(n),
        AnyValue::Datetime(t, _, _) => json!(time(nanos_of_micros(t))),
        v => json!(v.to_string()),
    })
}

/// What the page is made of: the report's tables but the daily one (the
/// page draws its chart from the violations), its summary, and the
/// findings' rows.
pub(super) struct PageParts<'a> {
    pub(super) summary: &'a Summary,
    pub(super) who: &'a Who,
    pub(super) violations: &'a Violations,
    pub(super) crawlers: &'a DataFrame,
    pub(super) findings: &'a [Finding],
}

/// A crawler's rules over all hosts: (kind, rule, line, version).
type RuleKey<'a> = (&'a str, &'a str, Option<u32>, Option<&'a str>);

/// A crawler's violations over all hosts, for its story.
struct CrawlerRules<'a> {
    /// Violations by kind ([`ViolationKind::index`]).
    kinds: [u64; 4],
    first: i64,
    last: i64,
    /// Hosts with violations.
    hosts: usize,
    /// Per rule, its violations and its hosts: how many, and one of them.
    rules: HashMap<RuleKey<'a>, (u64, (usize, &'a str))>,
}

/// The rules of one crawler, from its groups (`of_one`, all of one
/// crawler). A group is one host's of a rule, so a rule's groups are as
/// many as its hosts.
fn crawler_rules_of<'a>(of_one: &[(Key<'a>, Group<'a>)]) -> CrawlerRules<'a> {
    let mut c = CrawlerRules {
        kinds: [0; 4],
        first: i64::MAX,
        last: i64::MIN,
        hosts: of_one
            .iter()
            .map(|(k, _)| k.2)
            .collect::<HashSet<_>>()
            .len(),
        rules: HashMap::new(),
    };
    for (k, g) in of_one {
        let r = c
            .rules
            .entry((k.1.as_str(), k.3, k.4, k.5))
            .or_insert((0, (0, k.2)));
        r.0 += g.count;
        r.1.0 += 1;
        c.kinds[k.1.index()] += g.count;
        c.first = c.first.min(g.first);
        c.last = c.last.max(g.last);
    }
    c
}

/// A group's key with its hash, computed once: a tally's shard and its
/// map's buckets are both chosen by it ([`Carried`]).
#[derive(Clone, Copy)]
struct Hashed<'a> {
    hash: u64,
    key: Key<'a>,
}

impl std::hash::Hash for Hashed<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

impl PartialEq for Hashed<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.hash == other.hash && self.key == other.key
    }
}

impl Eq for Hashed<'_> {}

/// The hasher of maps of [`Hashed`] keys: their hash as they carry it.
#[derive(Default)]
struct Carried(u64);

impl std::hash::Hasher for Carried {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Not called for a `Hashed` key (it writes one u64); kept a hash.
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// Builds [`Carried`] hashers.
type ByHash = std::hash::BuildHasherDefault<Carried>;

/// Violations per (crawler, day number, kind index).
type ByDay<'a> = HashMap<(&'a str, i64, u8), u64>;

/// Groups the violations fall in, each with its count, first and last,
/// and each crawler's violations per day and kind: one pass over the
/// table's blocks in parallel, each worker adding into tallies of its own
/// (taken from a pool: as many as ran at once, not one per piece of
/// work), split by key into shards that are then merged in parallel.
fn tally<'a>(v: &'a Violations) -> (Vec<(Key<'a>, Group<'a>)>, ByDay<'a>) {
    use std::hash::BuildHasher;
    /// Shards of a tally's groups.
    const SHARDS: usize = 64;
    type Shard<'a> = std::collections::HashMap<Hashed<'a>, Group<'a>, ByHash>;
    type Tally<'a> = (Vec<Shard<'a>>, ByDay<'a>);
    // Seeded per run, as the standard maps are: hosts come from the log.
    let hasher = foldhash::fast::RandomState::default();
    let pool: std::sync::Mutex<Vec<Tally<'a>>> = std::sync::Mutex::new(Vec::new());
    let take = || {
        pool.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .pop()
    };
    v.par_blocks_unordered().for_each(|rows| {
        let (mut shards, mut by_day) = take().unwrap_or_else(|| {
            (
                (0..SHARDS).map(|_| Shard::default()).collect(),
                HashMap::new(),
            )
        });
        for r in rows {
            let key = key_of(&r);
            let hash = hasher.hash_one(key);
            // Bits the map uses neither for its buckets (the low ones) nor
            // for its tags (the top seven).
            let shard = (hash >> 32) as usize % SHARDS;
            let g = shards[shard]
                .entry(Hashed { hash, key })
                .or_insert_with(|| Group {
                    first: r.time(),
                    last: r.time(),
                    ..Group::default()
                });
            g.count += 1;
            g.first = g.first.min(r.time());
            g.last = g.last.max(r.time());
            *by_day
                .entry((r.crawler(), day_number(r.time()), r.kind().index() as u8))
                .or_default() += 1;
        }
        pool.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push((shards, by_day));
    });
    let tallies = pool
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut by_day = ByDay::new();
    let mut columns: Vec<Vec<Shard<'a>>> = (0..SHARDS).map(|_| Vec::new()).collect();
    for (shards, days) in tallies {
        for (k, n) in days {
            *by_day.entry(k).or_default() += n;
        }
        for (column, shard) in columns.iter_mut().zip(shards) {
            column.push(shard);
        }
    }
    let groups = columns
        .into_par_iter()
        .flat_map_iter(|mut maps| {
            // The largest map takes the others' groups.
            let largest = (0..maps.len()).max_by_key(|&i| maps[i].len());
            let mut merged = largest.map(|i| maps.swap_remove(i)).unwrap_or_default();
            for map in maps {
                for (k, g) in map {
                    match merged.entry(k) {
                        std::collections::hash_map::Entry::Occupied(mut e) => {
                            let e = e.get_mut();
                            e.count += g.count;
                            e.first = e.first.min(g.first);
                            e.last = e.last.max(g.last);
                        }
                        std::collections::hash_map::Entry::Vacant(e) => {
                            e.insert(g);
                        }
                    }
                }
            }
            merged.into_iter().map(|(k, g)| (k.key, g))
        })
        .collect();
    (groups, by_day)
}

/// The page's data (without the list of files, which the formats
/// written decide: [`page`]).
///
/// # Errors
/// A column of the crawlers table missing (which would be a bug).
pub(super) fn data(parts: &PageParts<'_>, left_out: &[&str]) -> Result<Value, ReportError> {
    let s = parts.summary;
    let who = parts.who;
    let v = parts.violations;
    let findings = parts.findings;

    // One pass over the violations (in memory order, its blocks in
    // parallel): each group's count, first and last; each crawler's
    // violations per day and kind. Sums, minima and maxima: the order the
    // parts are added in does not matter.
    let (mut groups, by_day) = tally(v);
    // Per crawler: violations by day, hosts, by kind, first and last.
    let mut crawler_days: HashMap<&str, BTreeMap<i64, u64>> = HashMap::new();
    for ((crawler, day, _), n) in &by_day {
        *crawler_days
            .entry(crawler)
            .or_default()
            .entry(*day)
            .or_default() += n;
    }
    // Per crawler (in parallel: a CDN's crawlers have groups on thousands
    // of hosts), its violations by kind, first and last, and its rules
    // over all hosts.
    groups.par_sort_unstable_by(|a, b| a.0.0.cmp(b.0.0));
    let crawler_rules: HashMap<&str, CrawlerRules<'_>> = groups
        .par_chunk_by(|a, b| a.0.0 == b.0.0)
        .map(|of_one| (of_one[0].0.0, crawler_rules_of(of_one)))
        .collect();
    // Most violations first, then by key: a total order (the keys are
    // distinct), so only the groups the page may show (the evidence's and
    // the sample's) are put in order, after them the rest in any order.
    let most_first = |a: &(Key<'_>, Group<'_>), b: &(Key<'_>, Group<'_>)| {
        b.1.count.cmp(&a.1.count).then_with(|| {
            (a.0.0, a.0.1.as_str(), a.0.2, a.0.3, a.0.4, a.0.5).cmp(&(
                b.0.0,
                b.0.1.as_str(),
                b.0.2,
                b.0.3,
                b.0.4,
                b.0.5,
            ))
        })
    };
    let shown = MAX_EVIDENCE.max(MAX_SAMPLE).min(groups.len());
    if shown < groups.len() {
        groups.select_nth_unstable_by(shown, most_first);
    }
    groups[..shown].sort_unstable_by(most_first);
    // The rows of the shown groups, in a second pass, in the table's
    // (time) order.
    let wanted: HashMap<Key<'_>, usize> = groups
        .iter()
        .take(shown)
        .enumerate()
        .map(|(i, (k, _))| (*k, i))
        .collect();
    if !wanted.is_empty() {
        // Each group's first rows in the table's order (time, then URL
        // within a group), kept while the rows come in any order: per
        // block in parallel, then the blocks' in memory order, so that
        // rows of one time and URL are kept as a pass in memory order
        // keeps them (the sorts are stable).
        const KEEP: usize = EXAMPLES * 4;
        fn first(a: &ViolationRef<'_>, b: &ViolationRef<'_>) -> std::cmp::Ordering {
            (a.time(), a.url()).cmp(&(b.time(), b.url()))
        }
        fn add<'a>(kept: &mut Vec<ViolationRef<'a>>, r: ViolationRef<'a>) {
            kept.push(r);
            if kept.len() >= KEEP * 4 {
                kept.sort_by(first);
                kept.truncate(KEEP);
            }
        }
        let per_block: Vec<Vec<Vec<ViolationRef<'_>>>> = v
            .par_blocks_unordered()
            .map(|rows| {
                let mut kept: Vec<Vec<ViolationRef<'_>>> = vec![Vec::new(); shown];
                for r in rows {
                    if let Some(&i) = wanted.get(&key_of(&r)) {
                        add(&mut kept[i], r);
                    }
                }
                for rows in &mut kept {
                    rows.sort_by(first);
                    rows.truncate(KEEP);
                }
                kept
            })
            .collect();
        // Each group's rows of every block, in the blocks' order, merged
        // per group in parallel (one thread merging the 300 groups' rows
        // of every block was about 15 ms of the 1 GiB benchmark's page,
        // on one core).
        let mut by_group: Vec<Vec<Vec<ViolationRef<'_>>>> = vec![Vec::new(); shown];
        for block in per_block {
            for (i, rows) in block.into_iter().enumerate() {
                if !rows.is_empty() {
                    by_group[i].push(rows);
                }
            }
        }
        groups[..shown]
            .par_iter_mut()
            .zip(by_group)
            .for_each(|((_, g), blocks)| {
                g.rows.extend(blocks.into_iter().flatten());
                g.rows.sort_by(first);
                g.rows.truncate(KEEP);
            });
    }
    let examples = |g: &Group<'_>| -> Vec<Value> {
        // Distinct URLs first, in time order, then the rest.
        let mut seen = BTreeSet::new();
        let (mut pick, mut rest) = (Vec::new(), Vec::new());
        for r in &g.rows {
            if seen.insert(r.url()) {
                pick.push(r);
            } else {
                rest.push(r);
            }
        }
        pick.extend(rest);
        pick.into_iter()
            .take(EXAMPLES)
            .map(|r| {
                json!({
                    "time": time(r.time()),
                    "client_ip": r.client_ip(),
                    "method": r.method(),
                    "url": clip(r.url()),
                    "status": r.status(),
                    "user_agent": clip_opt(r.user_agent()),
                    "detail": clip(r.detail()),
                })
            })
            .collect()
    };
    let category = |c: &str| who.get(c).map(|(k, _)| k.clone());
    let operator = |c: &str| who.get(c).and_then(|(_, o)| o.clone());
    let evidence: Vec<Value> = groups
        .iter()
        .take(MAX_EVIDENCE)
        .map(|(k, g)| {
            json!({
                "crawler": k.0,
                "category": category(k.0),
                "verified": g.rows.first().and_then(|r| r.verified()),
                "kind": k.1.as_str(),
                "host": k.2,
                "rule": clip(k.3),
                "line": k.4,
                "version": k.5,
                // Named by [`Report::name_rule_groups`].
                "group": Value::Null,
                "count": g.count,
                "first": time(g.first),
                "last": time(g.last),
                "examples": examples(g),
            })
        })
        .collect();
    let shown_violations: u64 = groups.iter().take(MAX_EVIDENCE).map(|g| g.1.count).sum();

    // The sample: round robin over the groups (most first), so that every
    // shown group has rows and the large ones more.
    let mut sample: Vec<Value> = Vec::new();
    let mut depth = 0;
    while sample.len() < MAX_SAMPLE {
        let mut any = false;
        for (_, g) in &groups[..shown] {
            if let Some(r) = g.rows.get(depth) {
                any = true;
                sample.push(violation_json(r, who));
                if sample.len() == MAX_SAMPLE {
                    break;
                }
            }
        }
        if !any {
            break;
        }
        depth += 1;
    }

    // Crawlers: the table's rows, most violations first.
    let c = parts.crawlers;
    let mut crawlers = Vec::new();
    for i in 0..c.height().min(MAX_CRAWLERS) {
        let mut row = serde_json::Map::new();
        for name in super::CRAWLER_COLUMNS {
            row.insert(name.to_string(), cell(c, name, i)?);
        }
        let kinds: i64 = ["disallow", "crawl_delay", "noindex", "unavailable_after"]
            .iter()
            .filter_map(|k| row.get(*k).and_then(Value::as_i64))
            .sum();
        row.insert("violations".into(), json!(kinds));
        let left = row
            .get("category")
            .and_then(Value::as_str)
            .is_some_and(|k| left_out.contains(&k));
        row.insert("left_out".into(), json!(left));
        crawlers.push(Value::Object(row));
    }
    let requests_of: HashMap<String, Value> = crawlers
        .iter()
        .filter_map(|r| Some((r["crawler"].as_str()?.to_string(), r["requests"].clone())))
        .collect();
    let verified_of: HashMap<String, Value> = crawlers
        .iter()
        .filter_map(|r| Some((r["crawler"].as_str()?.to_string(), r["verified"].clone())))
        .collect();

    // Stories: one per violating crawler, most violations first.
    let mut ranked: Vec<(&str, u64)> = crawler_rules
        .iter()
        .map(|(c, r)| (*c, r.kinds.iter().sum()))
        .collect();
    ranked.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let stories: Vec<Value> = ranked
        .iter()
        .take(MAX_STORIES)
        .map(|&(crawler, total)| {
            // Its violations by kind, first and last, and its most violated
            // rule over all hosts.
            let of = &crawler_rules[crawler];
            let (kinds, first, last) = (of.kinds, of.first, of.last);
            let rules = &of.rules;
            let top = rules
                .iter()
                .max_by(|a, b| a.1.0.cmp(&b.1.0).then(b.0.cmp(a.0)));
            let by_kind: serde_json::Map<String, Value> = ViolationKind::ALL
                .iter()
                .filter(|k| kinds[k.index()] > 0)
                .map(|k| (k.as_str().to_string(), json!(kinds[k.index()])))
                .collect();
            json!({
                "crawler": crawler,
                "category": category(crawler),
                "operator": operator(crawler),
                "verified": verified_of.get(crawler).cloned().unwrap_or(Value::Null),
                "total": total,
                "requests": requests_of.get(crawler).cloned().unwrap_or(Value::Null),
                "first": time(first),
                "last": time(last),
                "hosts": of.hosts,
                "kinds": by_kind,
                "rule": top.map(|((kind, rule, line, version), (count, hosts))| json!({
                    "kind": kind,
                    "rule": clip(rule),
                    "line": line,
                    "version": version,
                    // The host when one, else how many.
                    "host": (hosts.0 == 1).then_some(hosts.1),
                    "hosts": hosts.0,
                    "count": count,
                })),
                "rules": rules.len(),
                "peak": crawler_days.get(crawler).and_then(peak).map(|(a, b, share)| json!({
                    "from": day_text(a),
                    "to": day_text(b),
                    "share": (share * 1000.0).round() / 1000.0,
                })),
            })
        })
        .collect();

    // Findings, grouped by kind and crawler, most covered first.
    let mut finding_groups: BTreeMap<(&str, &str), FindingGroup<'_>> = BTreeMap::new();
    for f in findings {
        let g = finding_groups
            .entry((f.kind.as_str(), &*f.crawler))
            .or_default();
        g.0 = g.0.saturating_add(f.count);
        g.1 += 1;
        g.2.insert(&*f.host);
        if g.3.len() < EXAMPLES {
            g.3.push(f);
        }
    }
    let mut finding_groups: Vec<_> = finding_groups.into_iter().collect();
    finding_groups.sort_by(|a, b| b.1.0.cmp(&a.1.0).then(a.0.cmp(&b.0)));
    let finding_rows: Vec<Value> = finding_groups
        .iter()
        .take(MAX_FINDING_GROUPS)
        .map(|((kind, crawler), (count, rows, hosts, examples))| {
            json!({
                "kind": kind,
                "crawler": crawler,
                "category": category(crawler),
                "count": count,
                "rows": rows,
                "hosts": hosts.len(),
                "examples": examples.iter().map(|f| json!({
                    "host": f.host,
                    "url": clip(&f.url),
                    "user_agent": (!f.user_agent.is_empty()).then(|| clip(&f.user_agent)),
                    "count": f.count,
                    "detail": clip(&f.detail),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();

    // The charts: per day (or bucket of days), crawler and kind.
    let chart_crawlers: Vec<&str> = ranked.iter().take(CHART_CRAWLERS).map(|c| c.0).collect();
    let others = ranked.len() > CHART_CRAWLERS;
    let (first_day, last_day) = (
        by_day.keys().map(|k| k.1).min(),
        by_day.keys().map(|k| k.1).max(),
    );
    let daily = match (first_day, last_day) {
        (Some(a), Some(b)) => {
            let bucket = ((b - a) / MAX_DAYS + 1).max(1);
            let n = (b - a) / bucket + 1;
            let index: HashMap<&str, usize> = chart_crawlers
                .iter()
                .enumerate()
                .map(|(i, c)| (*c, i))
                .collect();
            let mut cells: BTreeMap<(i64, usize, usize), u64> = BTreeMap::new();
            for ((crawler, day, kind), count) in &by_day {
                let d = (day - a) / bucket;
                let c = index.get(crawler).copied().unwrap_or(chart_crawlers.len());
                *cells.entry((d, c, usize::from(*kind))).or_default() += count;
            }
            let mut names: Vec<&str> = chart_crawlers.clone();
            if others {
                names.push("others");
            }
            json!({
                "days": (0..n).map(|i| day_text(a + i * bucket)).collect::<Vec<_>>(),
                "bucket_days": bucket,
                "crawlers": names,
                "cells": cells.iter().map(|((d, c, k), n)| json!([d, c, k, n])).collect::<Vec<_>>(),
            })
        }
        _ => json!({"days": [], "bucket_days": 1, "crawlers": [], "cells": []}),
    };

    let inputs: Vec<Value> = s
        .inputs
        .files
        .iter()
        .take(MAX_FILES)
        .map(|f| {
            json!({
                "path": f.path,
                "format": f.format,
                "lines": f.lines,
                "parsed": f.parsed,
                "bad": f.bad,
                "samples": f.samples.iter().map(|b| json!({
                    "line": b.line, "reason": b.reason, "text": clip(&b.text),
                })).collect::<Vec<_>>(),
                "fault": f.fault,
            })
        })
        .collect();

    let t = &s.violations;
    Ok(json!({
        "tool": s.tool.version,
        "window": s.window.as_ref().map(|w| json!({"first": w.first, "last": w.last})),
        "warnings": s.warnings,
        "not_counted": s.not_counted,
        "totals": {
            "requests": s.requests.requests,
            "crawler": s.requests.crawler,
            "human": s.requests.human,
            "self": s.requests.self_traffic,
            "unjudged": s.requests.unjudged,
            "violations": t.total(),
            "disallow": t.disallow,
            "crawl-delay": t.crawl_delay,
            "noindex": t.noindex,
            "unavailable-after": t.unavailable_after,
            "bad_lines": s.inputs.bad_lines,
            "lines": s.inputs.lines,
            "findings": s.findings,
        },
        "kinds": ViolationKind::ALL.iter().map(|k| k.as_str()).collect::<Vec<_>>(),
        "stories": stories,
        "stories_more": ranked.len().saturating_sub(MAX_STORIES),
        "crawlers": {"rows": crawlers, "more": c.height().saturating_sub(MAX_CRAWLERS)},
        "evidence": {
            "rows": evidence,
            "more": groups.len().saturating_sub(MAX_EVIDENCE),
            "more_violations": (v.len() as u64).saturating_sub(shown_violations),
        },
        "violations": {"rows": sample, "total": v.len()},
        "findings": {
            "rows": finding_rows,
            "more": finding_groups.len().saturating_sub(MAX_FINDING_GROUPS),
            "total_rows": findings.len(),
        },
        "daily": daily,
        "inputs": {"rows": inputs, "more": s.inputs.files.len().saturating_sub(MAX_FILES)},
    }))
}

/// The page: the template with `data` and the files `formats` writes.
pub(super) fn page(data: &Value, formats: OutputFormats) -> String {
    let mut data = data.clone();
    let files: Vec<String> = formats
        .files()
        .into_iter()
        .filter(|f| f != "report.html")
        .collect();
    data["files"] = json!(files);
    // `<` escaped: no `</script>` (nor `<!--`) can end the data early.
    let text = serde_json::to_string(&data)
        .expect("the page's data is JSON")
        .replace('<', "\\u003c");
    TEMPLATE.replacen(MARKER, &text, 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_template_takes_the_data_once() {
        assert_eq!(TEMPLATE.matches(MARKER).count(), 1);
        let page = page(
            &json!({"x": "</script><script>alert(1)</script>"}),
            OutputFormats::default(),
        );
        assert!(!page.contains(MARKER));
        assert!(!page.contains("</script><script>alert(1)"));
        assert!(page.contains("\\u003c/script>"));
        assert!(page.contains(r#""files":["violations.csv""#));
        assert!(!page.contains(r#""report.html""#));
    }

    /// The tallies of a table of many blocks, added up by workers and
    /// merged by shard, are the counts of one pass in order; a crawler's
    /// rules count each rule's hosts and name the one host of a rule of
    /// one.
    #[test]
    fn tallies_of_many_blocks_are_one_pass_in_order() {
        use crate::replay::Violation;
        let kinds = [ViolationKind::Disallow, ViolationKind::CrawlDelay];
        let rows: Vec<Violation> = (0..20_000usize)
            .map(|i| Violation {
                time: 1_790_000_000_000_000_000 + (i as i64 * 7919 % 20_000) * 3_600_000_000_000,
                host: format!("h{}.example", i % 37).into(),
                crawler: ["AhrefsBot", "GPTBot", "Googlebot"][i % 3].into(),
                verified: None,
                client_ip: "192.0.2.1".into(),
                kind: kinds[i / 3 % 2],
                method: "GET".into(),
                url: format!("/p/{i}"),
                status: 200,
                rule: format!("Disallow: /{}", i % 5).into(),
                rule_line: Some((i % 5) as u32 + 1),
                robots_version: (i % 11 != 0).then(|| "robots.txt".into()),
                detail: "".into(),
                user_agent: None,
            })
            .collect();
        let mut table = Violations::default();
        for part in rows.chunks(97) {
            table.append(part.iter().cloned().collect());
        }
        let (groups, by_day) = tally(&table);
        let mut expected: HashMap<Key<'_>, (u64, i64, i64)> = HashMap::new();
        let mut days: BTreeMap<(&str, i64, u8), u64> = BTreeMap::new();
        for r in table.iter() {
            let e = expected
                .entry(key_of(&r))
                .or_insert((0, i64::MAX, i64::MIN));
            e.0 += 1;
            e.1 = e.1.min(r.time());
            e.2 = e.2.max(r.time());
            *days
                .entry((r.crawler(), day_number(r.time()), r.kind().index() as u8))
                .or_default() += 1;
        }
        let got: HashMap<Key<'_>, (u64, i64, i64)> = groups
            .iter()
            .map(|(k, g)| (*k, (g.count, g.first, g.last)))
            .collect();
        assert_eq!(got.len(), groups.len(), "each group once");
        assert_eq!(got, expected);
        assert_eq!(by_day.into_iter().collect::<BTreeMap<_, _>>(), days);
        let googlebot: Vec<(Key<'_>, Group<'_>)> = groups
            .into_iter()
            .filter(|(k, _)| k.0 == "Googlebot")
            .collect();
        let rules = crawler_rules_of(&googlebot);
        assert_eq!(rules.hosts, 37);
        assert_eq!(
            rules.kinds.iter().sum::<u64>(),
            rows.iter().filter(|r| &*r.crawler == "Googlebot").count() as u64
        );
        for ((kind, rule, line, version), (count, (hosts, host))) in &rules.rules {
            let of_rule = || {
                rows.iter().filter(|r| {
                    &*r.crawler == "Googlebot"
                        && r.kind.as_str() == *kind
                        && &*r.rule == *rule
                        && r.rule_line == *line
                        && r.robots_version.as_deref() == *version
                })
            };
            let names: BTreeSet<&str> = of_rule().map(|r| &*r.host).collect();
            assert_eq!((*count, *hosts), (of_rule().count() as u64, names.len()));
            assert!(names.contains(host));
        }
    }

    #[test]
    fn the_peak_is_the_shortest_run_of_days_with_most_violations() {
        let days: BTreeMap<i64, u64> = [(10, 1), (11, 50), (12, 45), (13, 2), (20, 2)].into();
        let (a, b, share) = peak(&days).unwrap();
        assert_eq!((a, b), (11, 12));
        assert!((share - 0.95).abs() < 1e-9, "{share}");
        // Spread evenly: no peak.
        let even: BTreeMap<i64, u64> = [(1, 5), (2, 5), (3, 5)].into();
        assert_eq!(peak(&even), None);
        let month: BTreeMap<i64, u64> = (1..=30).map(|d| (d, 10)).collect();
        assert_eq!(peak(&month), None, "24 of 30 days is no peak");
        // One day: no peak to name.
        assert_eq!(peak(&[(4, 9)].into()), None);
    }
}

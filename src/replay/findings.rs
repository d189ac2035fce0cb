//! Findings (SPEC section 9's `findings` table): reported, not violations.
//! Per crawler identity and host, `spoofed-agent` and `no-robots-fetch`;
//! per robots.txt version, `robots-noindex-line`; per host the snapshot
//! does not describe, `unknown-host`; per host, fetcher and rule,
//! `user-triggered-fetch`. (`noindex-unseen` is in `noindex`.)

use std::collections::HashMap;
use std::sync::Arc;

use crate::bots::Crawler;
use crate::time::format_time;

use super::judge::Identity;
use super::{Context, Finding, FindingKind, MAX_UNKNOWN_HOSTS, OTHER_HOSTS, UnknownHosts};

/// `1 request`, `N requests`.
fn count_of(n: u64) -> String {
    if n == 1 {
        "1 request".to_string()
    } else {
        format!("{n} requests")
    }
}

/// The findings of a host's crawler identities (`seen`, in name order):
/// `spoofed-agent` when a request of the identity came from outside the
/// crawler's published ranges (current at its time), `no-robots-fetch` when it never fetched
/// /robots.txt in the window (nor in the previous night's state).
pub(super) fn of_identities(host: &Arc<str>, seen: &[Identity]) -> Vec<Finding> {
    let mut findings = Vec::new();
    for s in seen {
        let identity = s.name();
        let (crawler, requests) = (s.activity().crawler(), s.activity().requests());
        // Any request from outside ranges current at its time (the
        // identity's others may be outside ranges too old or too new to
        // tell, `verified` null).
        if s.activity().verified() == Some(false) {
            findings.push(Finding {
                kind: FindingKind::SpoofedAgent,
                user_agent: s.activity().shared_agent(),
                host: host.clone(),
                crawler: identity.clone(),
                url: String::new(),
                count: requests,
                detail: format!(
                    "{} to be {} from outside its published ranges ({}), e.g. from {}",
                    match requests {
                        1 => "1 request claims".to_string(),
                        n => format!("{n} requests claim"),
                    },
                    crawler.name(),
                    crawler.ip_range_files().join(", "),
                    s.activity().sample_ip()
                ),
            });
        }
        if s.activity().robots_fetches() == 0 && s.last_robots().is_none() {
            findings.push(Finding {
                kind: FindingKind::NoRobotsFetch,
                user_agent: s.activity().shared_agent(),
                host: host.clone(),
                crawler: identity.clone(),
                url: String::new(),
                count: requests,
                detail: format!("{}, no /robots.txt fetch in the window", count_of(requests)),
            });
        }
    }
    findings
}

/// The `robots-noindex-line` findings: one per robots.txt version (of the
/// hosts this run audits) with `Noindex:` lines, the first three shown.
pub(super) fn robots_noindex_lines(ctx: &Context) -> Vec<Finding> {
    let mut findings = Vec::new();
    let snap = ctx.snapshot();
    for (host, timeline) in snap.hosts() {
        if ctx.settings.shard.is_some_and(|s| !s.owns(Some(host))) {
            continue;
        }
        for version in timeline.robots_versions() {
            if let crate::snapshot::RobotsAnswer::Rules(robots) = version.answer() {
                let lines = robots.noindex_lines();
                if !lines.is_empty() {
                    let shown: Vec<String> = lines
                        .iter()
                        .take(3)
                        .map(|l| format!("line {}: Noindex: {}", l.line, l.value))
                        .collect();
                    findings.push(Finding {
                        kind: FindingKind::RobotsNoindexLine,
                        user_agent: crate::text::empty(),
                        host: host.into(),
                        crawler: crate::text::empty(),
                        url: "/robots.txt".into(),
                        count: lines.len() as u64,
                        detail: format!(
                            "{} (in {}); no major crawler obeys Noindex in robots.txt since 2019",
                            shown.join("; "),
                            version.name()
                        ),
                    });
                }
            }
        }
    }
    findings
}

/// What the `detail` of the `unknown-host` row of the hosts past
/// [`MAX_UNKNOWN_HOSTS`] says after its count.
const OTHER_HOSTS_DETAIL: &str = " requests for other hosts the snapshot does not describe";

/// The `unknown-host` findings: a row per named host, and one for the
/// others.
pub(super) fn unknown_hosts(unknown_hosts: UnknownHosts) -> Vec<Finding> {
    let mut rows: Vec<Finding> = unknown_hosts
        .named
        .into_iter()
        .map(|(host, n)| Finding {
            kind: FindingKind::UnknownHost,
            user_agent: crate::text::empty(),
            host,
            crawler: crate::text::empty(),
            url: String::new(),
            count: n,
            detail: format!("{} for a host the snapshot does not describe", count_of(n)),
        })
        .collect();
    if unknown_hosts.other > 0 {
        let n = unknown_hosts.other;
        rows.push(Finding {
            kind: FindingKind::UnknownHost,
            user_agent: crate::text::empty(),
            host: OTHER_HOSTS.into(),
            crawler: crate::text::empty(),
            url: String::new(),
            count: n,
            detail: format!(
                "{n}{OTHER_HOSTS_DETAIL} (the first {MAX_UNKNOWN_HOSTS} in byte order are named)"
            ),
        });
    }
    rows
}

/// The `unknown-host` findings of shard reports added up as one run
/// would have written them: each shard named its own first hosts, so the
/// first of all are among them with whole counts (`merge`).
pub(crate) fn merge_unknown_hosts(findings: &mut Vec<Finding>) {
    let mut all = UnknownHosts::default();
    findings.retain(|f| {
        if f.kind != FindingKind::UnknownHost {
            return true;
        }
        let other = &*f.host == OTHER_HOSTS
            && f.detail
                .starts_with(&format!("{}{OTHER_HOSTS_DETAIL}", f.count));
        if other {
            all.other = all.other.saturating_add(f.count);
        } else {
            all.add(&f.host, f.count);
        }
        false
    });
    findings.extend(unknown_hosts(all));
}

/// What a `user-triggered-fetch` row is about: host, crawler identity,
/// the rule as written, its line, and the robots.txt version.
type FetchKey = (Arc<str>, Arc<str>, Arc<str>, Option<u32>, Arc<str>);

/// A `user-triggered-fetch` row being counted.
#[derive(Debug)]
struct FetchRow {
    crawler: Arc<Crawler>,
    count: u64,
    /// The first request (time, URL) and the last one's time.
    first: (i64, Box<str>),
    /// The first request's User-Agent.
    agent: Box<str>,
    last: i64,
}

/// The requests to disallowed paths of fetchers whose operators document
/// that they act for a person and do not follow robots.txt (SPEC section
/// 8): counted per host, fetcher and rule, never violations. The rows are
/// bounded by what the site has (hosts, its rules) times the catalogue's
/// user-triggered fetchers (impersonators are judged as crawlers).
#[derive(Debug, Default)]
pub(crate) struct UserTriggered {
    rows: HashMap<FetchKey, FetchRow>,
}

impl UserTriggered {
    /// Counts one request of `crawler` (its identity) to `url` at `time`,
    /// which `rule` (line `line` of robots.txt version `version`) disallows.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn add(
        &mut self,
        host: &Arc<str>,
        identity: &Arc<str>,
        crawler: &Arc<Crawler>,
        rule: &Arc<str>,
        line: Option<u32>,
        version: &Arc<str>,
        time: i64,
        url: &str,
        user_agent: &str,
    ) {
        let key = (
            host.clone(),
            identity.clone(),
            rule.clone(),
            line,
            version.clone(),
        );
        let row = self.rows.entry(key).or_insert_with(|| FetchRow {
            crawler: crawler.clone(),
            count: 0,
            first: (time, url.into()),
            agent: user_agent.into(),
            last: time,
        });
        row.count += 1;
        if (time, url) < (row.first.0, &*row.first.1) {
            row.first = (time, url.into());
            row.agent = user_agent.into();
        }
        row.last = row.last.max(time);
    }

    /// Adds another's counts.
    pub(crate) fn merge(&mut self, other: UserTriggered) {
        for (key, o) in other.rows {
            match self.rows.get_mut(&key) {
                Some(row) => {
                    row.count += o.count;
                    if (o.first.0, &*o.first.1) < (row.first.0, &*row.first.1) {
                        row.first = o.first;
                        row.agent = o.agent;
                    }
                    row.last = row.last.max(o.last);
                }
                None => {
                    self.rows.insert(key, o);
                }
            }
        }
    }

    /// Writes the rows (`super::wire`).
    pub(crate) fn write(&self, w: &mut super::wire::Writer<'_>) {
        w.usize(self.rows.len());
        // In key order: the same chunk is the same bytes.
        let mut rows: Vec<_> = self.rows.iter().collect();
        rows.sort_unstable_by(|a, b| a.0.cmp(b.0));
        for ((host, identity, rule, line, version), row) in rows {
            w.text(host);
            w.text(identity);
            w.text(rule);
            w.opt_u32(*line);
            w.text(version);
            w.crawler(&row.crawler);
            w.u64(row.count);
            w.i64(row.first.0);
            w.bytes(row.first.1.as_bytes());
            w.bytes(row.agent.as_bytes());
            w.i64(row.last);
        }
    }

    /// Reads what [`UserTriggered::write`] wrote.
    pub(crate) fn read(
        r: &mut super::wire::Reader<'_, '_>,
    ) -> Result<UserTriggered, super::wire::WireError> {
        // A row is at least 25 bytes: five key cells and the crawler, the
        // count, the URL and User-Agent lengths (a byte each at least) and
        // two times.
        let n = r.count(25)?;
        let mut rows = HashMap::default();
        for _ in 0..n {
            let key = (r.text()?, r.text()?, r.text()?, r.opt_u32()?, r.text()?);
            let row = FetchRow {
                crawler: r.crawler()?,
                count: r.u64()?,
                first: (r.i64()?, r.string()?.into()),
                agent: r.string()?.into(),
                last: r.i64()?,
            };
            rows.insert(key, row);
        }
        Ok(UserTriggered { rows })
    }

    /// The `user-triggered-fetch` rows: the first URL in the `url` column,
    /// the rule, the count, the period and the operator's page in `detail`.
    pub(crate) fn into_findings(self) -> Vec<Finding> {
        self.rows
            .into_iter()
            .map(|((host, identity, rule, line, version), row)| {
                let at = match line {
                    Some(l) => format!("line {l} of {version}"),
                    None => version.to_string(),
                };
                let period = if row.first.0 == row.last {
                    format!("at {}", format_time(row.first.0))
                } else {
                    format!(
                        "from {} to {}",
                        format_time(row.first.0),
                        format_time(row.last)
                    )
                };
                Finding {
                    kind: FindingKind::UserTriggeredFetch,
                    host,
                    crawler: identity,
                    url: row.first.1.into(),
                    user_agent: row.agent.into(),
                    count: row.count,
                    detail: format!(
                        "{} to paths that {rule} ({at}) disallows, {period}; {} fetches for a person and its operator documents that it does not follow robots.txt ({})",
                        count_of(row.count),
                        row.crawler.name(),
                        row.crawler.policy_source().unwrap_or("no source cited")
                    ),
                }
            })
            .collect()
    }
}

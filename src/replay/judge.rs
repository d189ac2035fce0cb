//! Judging, per host and in time order.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

use foldhash::{HashMap, HashMapExt};
use rayon::prelude::*;

use super::activity::{DelayedRows, Step};
use super::state::{Fetch, LastRequest, State, prune};
use super::{
    Activity, Collector, Context, Counts, CrawlerActivity, EngineFetch, Finding, FindingKind,
    MAX_UNKNOWN_HOSTS, OTHER_HOSTS, Outcome, Referral, UnknownHosts, Violation, ViolationKind,
    Violations,
};
use crate::bots::Crawler;
use crate::robots::target_path;
use crate::snapshot::Policy;
use crate::text::Interner;
use crate::time::{format_seconds, format_time, seconds_to_nanos_f64};

/// The path-and-query a request or referral is judged on.
pub(crate) fn path_of(target: &str) -> Cow<'_, str> {
    match target_path(target.as_bytes()) {
        Cow::Borrowed(path) => String::from_utf8_lossy(path),
        Cow::Owned(path) => Cow::Owned(String::from_utf8_lossy(&path).into_owned()),
    }
}

/// The URL without `utm_*` tracking parameters (assistant clicks carry
/// them; the crawler fetched the page without).
pub(crate) fn without_tracking(url: &str) -> Option<String> {
    let (path, query) = url.split_once('?')?;
    if !query.split('&').any(|p| p.starts_with("utm_")) {
        // Nothing to strip (the common case: no copy).
        return None;
    }
    let kept: Vec<&str> = query
        .split('&')
        .filter(|p| !p.starts_with("utm_"))
        .collect();
    let stripped = if kept.is_empty() {
        path.to_string()
    } else {
        format!("{path}?{}", kept.join("&"))
    };
    (stripped != url).then_some(stripped)
}

pub(crate) fn is_robots_txt(path: &str) -> bool {
    path.split('?').next() == Some("/robots.txt")
}

/// The crawl delay `crawler` must keep under `policy` (seconds), with the
/// rule and line that ask for it.
fn delay(policy: &Policy<'_>, crawler: &Crawler) -> Option<(f64, String, u32)> {
    let tokens: Vec<&str> = crawler.tokens().iter().map(String::as_str).collect();
    policy
        .group_for(&tokens, crawler.obeys_global())?
        .crawl_delay()
        .map(|d| (d.seconds(), d.rule(), d.line()))
}

#[derive(Default)]
struct HostResult {
    host: String,
    violations: Violations,
    findings: Vec<Finding>,
    activity: Vec<CrawlerActivity>,
    /// The state to carry over: last requests and fetches.
    last: BTreeMap<String, LastRequest>,
    fetches: BTreeMap<(String, String), Vec<Fetch>>,
}

/// A crawler identity on one host: its name, its requests, and its last
/// robots.txt fetch (this run's, or carried over).
struct Identity {
    name: Arc<str>,
    activity: Activity,
    last_robots: Option<i64>,
}

/// How many crawler names a `noindex-unseen` row lists before `and N more`.
pub(crate) const UNSEEN_NAMES: usize = 5;

/// What decides which pages are `noindex-unseen` for a crawler identity:
/// identities with one key see the same rules, so they are judged once.
#[derive(Hash, PartialEq, Eq)]
struct UnseenKey {
    /// The robots.txt policy at the identity's last request ([`Policy::key`]).
    policy: (usize, usize),
    /// The group its tokens select ([`crate::robots::Group::key`]); none for
    /// the complete disallow of a 5xx answer.
    group: (usize, usize, usize),
    /// Its meta names that some page of the host addresses, sorted: the
    /// others match no rule.
    names: Vec<String>,
    /// How many page versions' starts are at or before its last request:
    /// which version of every page is in force.
    epoch: usize,
}

/// The `noindex-unseen` findings of a host: a URL with `noindex` for a
/// crawler that robots.txt forbids that crawler to fetch (as of its last
/// request), so that it can never see the `noindex`. One row per URL and
/// (directive, rule), naming the crawlers (the first [`UNSEEN_NAMES`],
/// sorted) and counting them: the rows are bounded by the site's pages,
/// whatever User-Agents a log invents, and crawlers that see the same
/// rules are judged once.
fn noindex_unseen(ctx: &Context, host: &str, seen: &[Identity]) -> Vec<Finding> {
    let snap = ctx.snapshot();
    let Some(timeline) = snap.host(host) else {
        return Vec::new();
    };
    if timeline.pages().is_empty() {
        return Vec::new();
    }
    // The meta names the host's pages address, and the starts of their
    // versions.
    let mut scopes: std::collections::BTreeSet<&str> = std::collections::BTreeSet::new();
    let mut starts: Vec<i64> = Vec::new();
    for version in timeline.pages().values().flatten() {
        starts.push(version.from());
        scopes.extend(version.rules().sources().iter().filter_map(|s| s.scope()));
    }
    starts.sort_unstable();
    starts.dedup();
    // Identities by what decides for them; each key's first identity
    // stands for all (names in order: `seen` is sorted).
    let mut keys: HashMap<UnseenKey, usize> = HashMap::new();
    let mut judged: Vec<(Policy<'_>, &Crawler, i64, Vec<&str>)> = Vec::new();
    for seen in seen {
        let (identity, crawler) = (&seen.name, seen.activity.crawler());
        let last_time = seen.activity.last().0;
        if seen.activity.first_verified() == Some(false) {
            continue;
        }
        let Some(policy) = snap.policy_at(host, last_time) else {
            continue;
        };
        let group = match &policy {
            Policy::Rules { robots, .. } => {
                let tokens: Vec<&str> = crawler.tokens().iter().map(String::as_str).collect();
                robots.group_for(&tokens, crawler.obeys_global()).key()
            }
            Policy::DisallowAll { .. } => (0, 0, 0),
            Policy::AllowAll { .. } => continue,
        };
        let mut names: Vec<String> = crawler
            .meta_names()
            .iter()
            .map(|n| n.trim().to_ascii_lowercase())
            .filter(|n| scopes.contains(n.as_str()))
            .collect();
        names.sort_unstable();
        names.dedup();
        let (tag, version) = policy.key();
        let key = UnseenKey {
            policy: (tag, version as usize),
            group,
            names,
            epoch: starts.partition_point(|&f| f <= last_time),
        };
        let next = judged.len();
        let k = *keys.entry(key).or_insert(next);
        if k == next {
            judged.push((policy, &**crawler, last_time, Vec::new()));
        }
        judged[k].3.push(identity.as_ref());
    }
    // (URL, detail) to the keys it holds for.
    let mut rows: BTreeMap<(&str, String), Vec<usize>> = BTreeMap::new();
    for (k, (policy, crawler, last_time, _)) in judged.iter().enumerate() {
        let names: Vec<&str> = crawler.meta_names().iter().map(String::as_str).collect();
        let tokens: Vec<&str> = crawler.tokens().iter().map(String::as_str).collect();
        let group = match policy {
            Policy::Rules { robots, .. } => Some(robots.group_for(&tokens, crawler.obeys_global())),
            _ => None,
        };
        for (url, versions) in timeline.pages() {
            let i = versions.partition_point(|v| v.from() <= *last_time);
            let Some(page) = i.checked_sub(1).map(|i| &versions[i]) else {
                continue;
            };
            let eff = page.rules().effective(&names);
            let Some(noindex) = eff.get("noindex") else {
                continue;
            };
            let blocked_by = match &group {
                Some(group) => {
                    let verdict = group.check(url.as_bytes());
                    if verdict.allowed() {
                        continue;
                    }
                    verdict.rule().map(|r| r.to_string()).unwrap_or_default()
                }
                None => "robots.txt 5xx".to_string(),
            };
            let detail = format!(
                "{noindex} cannot be seen: robots.txt forbids fetching the page ({blocked_by})"
            );
            rows.entry((url.as_str(), detail)).or_default().push(k);
        }
    }
    rows.into_iter()
        .map(|((url, detail), ks)| {
            let count: usize = ks.iter().map(|&k| judged[k].3.len()).sum();
            let mut first: Vec<&str> = ks
                .iter()
                .flat_map(|&k| judged[k].3.iter().take(UNSEEN_NAMES).copied())
                .collect();
            first.sort_unstable();
            first.truncate(UNSEEN_NAMES);
            let mut crawler = first.join(", ");
            if count > first.len() {
                crawler.push_str(&format!(" and {} more", count - first.len()));
            }
            Finding {
                kind: FindingKind::NoindexUnseen,
                host: host.to_string(),
                crawler,
                url: url.to_string(),
                count: count as u64,
                detail,
            }
        })
        .collect()
}

/// Steps one task of [`crawl_delay`] walks.
pub(super) const STEPS_PER_TASK: usize = 1 << 14;

/// The crawl-delay violations of one identity on a host: each request
/// that must keep a delay, against the request before it (the previous
/// night's last, for the first). Each request needs only the one before
/// it, so the steps are walked in parallel runs, and the runs' violations
/// joined in order.
fn crawl_delay(
    ctx: &Context,
    delayed_rows: &[DelayedRows],
    host: &str,
    identity: &Arc<str>,
    steps: &[Step],
    prior: Option<&LastRequest>,
    violations: &mut Violations,
) {
    let snap = ctx.snapshot();
    let host_cell: Arc<str> = host.into();
    // The policy in force changes only at these points: between two, the
    // rule, line and version a violation names are looked up once.
    let points = snap.policy_change_points(host);
    let runs: Vec<Violations> = steps
        .par_chunks(STEPS_PER_TASK)
        .enumerate()
        .map(|(run, run_steps)| {
            let mut last = match run {
                0 => prior.map(|l| (l.time, l.resolution)),
                _ => {
                    let before = &steps[run * STEPS_PER_TASK - 1];
                    Some((before.time(), before.resolution()))
                }
            };
            // The violations' repeated cells, shared.
            let mut texts = Interner::default();
            // Per crawler (by address) and interval between change points:
            // the rule, its line and the version.
            type Named = (Arc<str>, Option<u32>, Option<Arc<str>>);
            let mut named: HashMap<(usize, usize), Named> = HashMap::new();
            let mut found = Violations::default();
            for step in run_steps {
                let t = step.time();
                if let (Some(delayed), Some((prev, prev_res))) = (step.delayed(delayed_rows), last)
                {
                    // In i128: two requests centuries apart (a log dated
                    // 1700 and 2026) overflow an i64 difference.
                    let gap = (i128::from(t) - i128::from(prev)) as f64;
                    let resolution = i128::from(step.resolution().max(prev_res)) as f64;
                    if gap + resolution < seconds_to_nanos_f64(delayed.seconds()) {
                        let interval = points.partition_point(|&p| p <= t);
                        let (rule, line, version) = named
                            .entry((Arc::as_ptr(delayed.crawler()) as usize, interval))
                            .or_insert_with(|| {
                                let now = snap.policy_at(host, t);
                                let (rule, line) = now
                                    .as_ref()
                                    .and_then(|p| delay(p, delayed.crawler()))
                                    .map_or((String::new(), None), |(_, rule, line)| {
                                        (rule, Some(line))
                                    });
                                (
                                    texts.get(&rule),
                                    line,
                                    now.map(|p| texts.get(p.version().name())),
                                )
                            })
                            .clone();
                        found.push(Violation {
                            time: t,
                            host: host_cell.clone(),
                            crawler: identity.clone(),
                            verified: delayed.verified(),
                            client_ip: delayed.client().clone(),
                            kind: ViolationKind::CrawlDelay,
                            method: delayed.method().clone(),
                            url: delayed.url().to_string(),
                            status: delayed.status(),
                            rule,
                            rule_line: line,
                            robots_version: version,
                            detail: texts.get(&format!(
                                "gap {} < {}",
                                format_seconds(gap),
                                format_seconds(seconds_to_nanos_f64(delayed.seconds()))
                            )),
                        });
                    }
                }
                last = Some((t, step.resolution()));
            }
            found
        })
        .collect();
    for run in runs {
        violations.append(run);
    }
}

/// What the chunks kept of one host.
#[derive(Default)]
struct HostData {
    /// Per crawler identity, its requests.
    identities: HashMap<Arc<str>, Activity>,
    fetches: Vec<EngineFetch>,
    referrals: Vec<Referral>,
    /// With `--state`, the last referred request's time.
    referred_until: Option<i64>,
}

fn judge_host(ctx: &Context, delayed: &[DelayedRows], host: &str, data: HostData) -> HostResult {
    let HostData {
        identities,
        fetches: mut engine_fetches,
        mut referrals,
        referred_until,
    } = data;
    let snap = ctx.snapshot();
    let settings = ctx.settings();
    let judged_host = snap.is_judged(host);
    // Stable sorts: requests of one time keep their file order.
    engine_fetches.sort_by_key(|f| f.fetch.time);
    referrals.sort_by_key(|r| r.time);
    let mut out = HostResult {
        host: host.to_string(),
        ..HostResult::default()
    };
    let (prior_last, prior_fetches) = ctx.state().map(|s| s.host(host)).unwrap_or_default();
    // Engine crawlers' 2xx fetches: crawler name → URL → fetches.
    let mut fetches: HashMap<String, HashMap<String, Vec<Fetch>>> = HashMap::new();
    for ((crawler, url), list) in prior_fetches {
        fetches.entry(crawler).or_default().insert(url, list);
    }
    for f in engine_fetches {
        let by_url = match fetches.get_mut(f.crawler.name()) {
            Some(m) => m,
            None => fetches.entry(f.crawler.name().to_string()).or_default(),
        };
        by_url.entry(f.path).or_default().push(f.fetch);
    }
    // Per identity (several crawlers can share one: a heuristic crawler
    // per User-Agent string, all named `python-requests`): crawl-delay
    // gaps, in time order, where a delay may apply, and what the report
    // and the next night need.
    let mut seen: Vec<Identity> = Vec::with_capacity(identities.len());
    let mut now = referred_until;
    // The violations' repeated cells, shared.
    let mut texts = Interner::default();
    for (name, mut activity) in identities {
        // Carried over from the previous run, when it came before.
        let prior = prior_last
            .get(&*name)
            .filter(|l| l.time <= activity.first());
        now = now.max(Some(activity.last().0));
        if let Some(steps) = activity.take_steps() {
            crawl_delay(
                ctx,
                delayed,
                host,
                &name,
                &steps,
                prior,
                &mut out.violations,
            );
        }
        let last_robots = activity
            .last_robots()
            .or_else(|| prior.and_then(|l| l.robots_fetch));
        seen.push(Identity {
            name,
            activity,
            last_robots,
        });
    }

    // noindex and unavailable-after: an engine showed a page after its
    // crawler saw the rule.
    for referral in &referrals {
        let Some(engine) = ctx.catalogue().engine(&referral.engine) else {
            continue;
        };
        let index = engine.index();
        let deadline = referral.time.saturating_sub(settings.index_grace);
        let url = path_of(&referral.target).into_owned();
        for crawler in ctx
            .catalogue()
            .crawlers()
            .iter()
            .filter(|c| c.engine() == Some(index))
        {
            let by_url = fetches.get(crawler.name());
            let lookup = |u: &str| by_url.and_then(|m| m.get(u));
            let (page_url, list) = match lookup(&url) {
                Some(l) => (url.clone(), l),
                None => match without_tracking(&url).and_then(|u| lookup(&u).map(|l| (u, l))) {
                    Some(found) => found,
                    None => continue,
                },
            };
            let Some(fetch) = list
                .iter()
                .filter(|f| f.time <= deadline)
                .max_by_key(|f| f.time)
            else {
                continue;
            };
            let versions = snap.page_versions_during(host, &page_url, fetch.time, referral.time);
            if versions.is_empty() {
                continue;
            }
            let names: Vec<&str> = crawler.meta_names().iter().map(String::as_str).collect();
            let effective: Vec<_> = versions
                .iter()
                .map(|v| v.rules().effective(&names))
                .collect();
            let shown = effective.last().expect("versions is not empty");
            let (kind, rule) = if effective.iter().all(|e| e.noindex()) {
                (
                    ViolationKind::Noindex,
                    shown
                        .get("noindex")
                        .map(|r| r.to_string())
                        .unwrap_or_default(),
                )
            } else if effective.iter().all(|e| {
                e.unavailable_after()
                    .is_some_and(|u| i64::try_from(u.as_nanosecond()).is_ok_and(|u| u < deadline))
            }) {
                (
                    ViolationKind::UnavailableAfter,
                    shown
                        .get("unavailable_after")
                        .map(|r| r.to_string())
                        .unwrap_or_default(),
                )
            } else {
                continue;
            };
            out.violations.push(Violation {
                time: referral.time,
                host: texts.get(host),
                crawler: texts.get(crawler.name()),
                verified: fetch.verified,
                client_ip: texts.get(&fetch.client),
                kind,
                method: texts.get(&fetch.method),
                url: page_url.clone(),
                status: fetch.status,
                rule: texts.get(&rule),
                rule_line: None,
                robots_version: None,
                detail: format!(
                    "referrer {}; crawler fetched {}",
                    referral.via,
                    format_time(fetch.time)
                )
                .into(),
            });
        }
    }

    // Findings of this host, crawler by crawler in name order.
    seen.sort_by(|a, b| a.name.cmp(&b.name));
    for s in &seen {
        let identity = s.name.to_string();
        let (crawler, requests) = (s.activity.crawler(), s.activity.requests());
        if s.activity.first_verified() == Some(false) {
            out.findings.push(Finding {
                kind: FindingKind::SpoofedAgent,
                host: host.to_string(),
                crawler: identity.clone(),
                url: String::new(),
                count: requests,
                detail: format!(
                    "{} requests claim to be {} from outside its published ranges ({}), e.g. from {}",
                    requests,
                    crawler.name(),
                    crawler.ip_range_files().join(", "),
                    s.activity.sample_ip()
                ),
            });
        }
        if s.activity.robots_fetches() == 0 && s.last_robots.is_none() {
            out.findings.push(Finding {
                kind: FindingKind::NoRobotsFetch,
                host: host.to_string(),
                crawler: identity.clone(),
                url: String::new(),
                count: requests,
                detail: format!("{requests} requests, no /robots.txt fetch in the window"),
            });
        }
    }
    if judged_host {
        out.findings.extend(noindex_unseen(ctx, host, &seen));
    }

    // The report's per-crawler rows.
    out.activity = seen
        .iter()
        .map(|s| CrawlerActivity {
            host: host.to_string(),
            crawler: s.name.to_string(),
            operator: s.activity.crawler().operator().map(str::to_string),
            category: s.activity.crawler().category().as_str(),
            verified: s.activity.verified(),
            requests: s.activity.requests(),
            robots_txt_fetches: s.activity.robots_fetches(),
            first_seen: s.activity.first(),
            last_seen: s.activity.last().0,
        })
        .collect();
    // What the next run needs, when it is asked for (`--state`).
    if ctx.state().is_none() {
        return out;
    }
    out.last = prior_last;
    for s in &seen {
        let (time, resolution) = s.activity.last();
        out.last.insert(
            s.name.to_string(),
            LastRequest {
                time,
                resolution,
                robots_fetch: s.last_robots,
            },
        );
    }
    let now = now.unwrap_or(i64::MIN);
    for (crawler, by_url) in fetches {
        for (url, mut list) in by_url {
            prune(&mut list, now, settings.index_grace);
            out.fetches.insert((crawler.clone(), url), list);
        }
    }
    out
}

/// What the `detail` of the `unknown-host` row of the hosts past
/// [`MAX_UNKNOWN_HOSTS`] says after its count.
const OTHER_HOSTS_DETAIL: &str = " requests for other hosts the snapshot does not describe";

/// The `unknown-host` findings: a row per named host, and one for the
/// others.
fn unknown_host_findings(unknown_hosts: UnknownHosts) -> Vec<Finding> {
    let mut rows: Vec<Finding> = unknown_hosts
        .named
        .into_iter()
        .map(|(host, n)| Finding {
            kind: FindingKind::UnknownHost,
            host: host.to_string(),
            crawler: String::new(),
            url: String::new(),
            count: n,
            detail: format!("{n} requests for a host the snapshot does not describe"),
        })
        .collect();
    if unknown_hosts.other > 0 {
        let n = unknown_hosts.other;
        rows.push(Finding {
            kind: FindingKind::UnknownHost,
            host: OTHER_HOSTS.to_string(),
            crawler: String::new(),
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
        let other = f.host == OTHER_HOSTS
            && f.detail
                .starts_with(&format!("{}{OTHER_HOSTS_DETAIL}", f.count));
        if other {
            all.other = all.other.saturating_add(f.count);
        } else {
            all.add(&Arc::from(f.host.as_str()), f.count);
        }
        false
    });
    findings.extend(unknown_host_findings(all));
}

/// Judges everything the collectors kept (in file order) and returns the
/// violations, findings, per-request rows and counts, sorted as the report
/// writes them.
pub fn replay(ctx: &Context, collectors: Vec<Collector<'_>>) -> Outcome {
    let mut counts = Counts::default();
    // Hosts in a hash map (a CDN log interleaves thousands: an ordered map
    // compared host names a dozen times per request), sorted afterwards.
    let mut by_host: HashMap<Arc<str>, HostData> = HashMap::new();
    // The unknown hosts of the chunks done, and of those not (a caller
    // that did not call `finish`).
    let mut unknown_hosts = std::mem::take(
        &mut *ctx
            .unknown_hosts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner),
    );
    // Disallow violations, decided by the collectors, per chunk in file
    // order (their blocks moved, below, into the table).
    let mut chunk_violations: Vec<Violations> = Vec::with_capacity(collectors.len());
    // What the chunks' delayed requests name, by chunk number (the steps
    // point into them).
    let mut delayed: Vec<DelayedRows> = Vec::with_capacity(collectors.len());
    // Chunks in file order: each one's activity comes after the previous
    // ones'.
    for c in collectors {
        counts.add(&c.counts);
        chunk_violations.push(c.violations);
        let chunk = u32::try_from(delayed.len()).expect("fewer than 2^32 chunks");
        delayed.push(c.delayed);
        for mut charged in c.charged {
            charged.activity.in_chunk(chunk);
            let data = by_host.entry(charged.host).or_default();
            match data.identities.get_mut(&charged.identity) {
                Some(activity) => activity.merge(charged.activity),
                None => {
                    data.identities.insert(charged.identity, charged.activity);
                }
            }
        }
        for (host, fetch) in c.fetches {
            by_host.entry(host).or_default().fetches.push(fetch);
        }
        for r in c.referrals {
            by_host.entry(r.host.clone()).or_default().referrals.push(r);
        }
        for (host, until) in c.referred_until {
            let data = by_host.entry(host).or_default();
            data.referred_until = data.referred_until.max(Some(until));
        }
        unknown_hosts.merge(c.unknown_hosts);
    }
    let mut by_host: Vec<(Arc<str>, HostData)> = by_host.into_iter().collect();
    by_host.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let results: Vec<HostResult> = by_host
        .into_par_iter()
        .map(|(host, data)| judge_host(ctx, &delayed, &host, data))
        .collect();
    // The judged hosts' violations join the Disallow ones: blocks moved,
    // not rows copied.
    let mut violations = Violations::default();
    for chunk in chunk_violations {
        violations.append(chunk);
    }
    let mut outcome = Outcome {
        counts,
        violations,
        ..Outcome::default()
    };
    let mut judged_hosts = Vec::new();
    for r in results {
        if ctx.state().is_some() {
            judged_hosts.push((r.host, (r.last, r.fetches)));
        }
        outcome.violations.append(r.violations);
        outcome.findings.extend(r.findings);
        outcome.activity.extend(r.activity);
    }
    // The previous state with this run's hosts replaced.
    if let Some(prior) = ctx.state() {
        outcome.state = State::next(prior, judged_hosts);
    }
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
                    outcome.findings.push(Finding {
                        kind: FindingKind::RobotsNoindexLine,
                        host: host.to_string(),
                        crawler: String::new(),
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
    outcome
        .findings
        .extend(unknown_host_findings(unknown_hosts));
    // The chunks' and hosts' working sets are freed: back to the system
    // before the sort adds the table's order.
    crate::memory::give_back_freed();
    super::sort_rows(&mut outcome.violations, &mut outcome.findings);
    outcome
        .activity
        .sort_by(|a, b| (&a.host, &a.crawler).cmp(&(&b.host, &b.crawler)));
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn details_and_urls() {
        assert_eq!(
            without_tracking("/a?utm_source=chatgpt.com"),
            Some("/a".into())
        );
        assert_eq!(
            without_tracking("/a?x=1&utm_source=chatgpt.com"),
            Some("/a?x=1".into())
        );
        assert_eq!(without_tracking("/a?x=1"), None);
        assert!(
            is_robots_txt("/robots.txt")
                && is_robots_txt("/robots.txt?x")
                && !is_robots_txt("/robots.txt.bak")
        );
    }
}

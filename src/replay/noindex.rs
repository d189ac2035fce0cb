//! noindex and unavailable_after (SPEC section 8): an engine showed a page
//! (a search referral) whose rules its crawler had seen when it fetched
//! the page; and the `noindex-unseen` findings, pages whose `noindex` a
//! crawler can never see because robots.txt keeps it out.

use std::collections::BTreeMap;
use std::sync::Arc;

use foldhash::{HashMap, HashMapExt};

use super::judge::{Identity, path_of, without_tracking};
use super::kept::Referral;
use super::state::HostState;
use super::{Context, Finding, FindingKind, Violation, ViolationKind, Violations};
use crate::bots::Crawler;
use crate::snapshot::Policy;
use crate::text::Interner;
use crate::time::format_time;

/// The violations of a host's referrals: for each search referral to a
/// page, each crawler of the referring engine whose last fetch of the
/// page before the referral (less the grace) found the page `noindex` in
/// every version since, or past its `unavailable_after`. `fetches` holds
/// the engine crawlers' 2xx fetches on the host; `referrals` are in time
/// order.
pub(super) fn shown_despite_rules(
    ctx: &Context,
    host: &str,
    referrals: &[Referral],
    fetches: &HostState,
    violations: &mut Violations,
) {
    use rayon::prelude::*;
    if referrals.len() <= REFERRALS_PART {
        shown_in_part(ctx, host, referrals, fetches, violations);
        return;
    }
    // Each referral is judged by itself, so a host with many (the one
    // host of a site's log) is judged in parts in parallel; the parts'
    // rows follow one another in the referrals' order, as one loop adds
    // them.
    let parts: Vec<Violations> = referrals
        .par_chunks(REFERRALS_PART)
        .map(|part| {
            let mut found = Violations::default();
            shown_in_part(ctx, host, part, fetches, &mut found);
            found
        })
        .collect();
    for found in parts {
        violations.append(found);
    }
}

/// The referrals a worker judges at a time in [`shown_despite_rules`]
/// (two in the unit tests, so that their hosts' referrals are judged in
/// parts and still give the known answers).
const REFERRALS_PART: usize = if cfg!(test) { 2 } else { 16 * 1024 };

/// [`shown_despite_rules`] of consecutive `referrals`, on one thread.
fn shown_in_part(
    ctx: &Context,
    host: &str,
    referrals: &[Referral],
    fetches: &HostState,
    violations: &mut Violations,
) {
    let snap = ctx.snapshot();
    let settings = ctx.settings();
    // The violations' repeated cells, shared.
    let mut texts = Interner::default();
    for referral in referrals {
        let Some(engine) = ctx.catalogue().engine(referral.engine()) else {
            continue;
        };
        let index = engine.index();
        let deadline = referral.time().saturating_sub(settings.index_grace);
        let url = path_of(referral.target()).into_owned();
        for crawler in ctx
            .catalogue()
            .crawlers()
            .iter()
            .filter(|c| c.engine() == Some(index))
        {
            let lookup =
                |u: &str| Some(fetches.fetches_of(crawler.name(), u)).filter(|l| !l.is_empty());
            let (page_url, list) = match lookup(&url) {
                Some(l) => (url.clone(), l),
                None => match without_tracking(&url).and_then(|u| lookup(&u).map(|l| (u, l))) {
                    Some(found) => found,
                    None => continue,
                },
            };
            let Some(fetch) = list
                .iter()
                .map(|r| &r.fetch)
                .filter(|f| f.time <= deadline)
                .max_by_key(|f| f.time)
            else {
                continue;
            };
            let versions = snap.page_versions_during(host, &page_url, fetch.time, referral.time());
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
            violations.push(Violation {
                time: referral.time(),
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
                    referral.via(),
                    format_time(fetch.time)
                )
                .into(),
                user_agent: None,
            });
        }
    }
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
/// crawler that feeds a search index, which robots.txt forbids that
/// crawler to fetch (as of its last
/// request), so that it can never see the `noindex`. One row per URL and
/// (directive, rule), naming the crawlers (the first [`UNSEEN_NAMES`],
/// sorted) and counting them: the rows are bounded by the site's pages,
/// whatever User-Agents a log invents, and crawlers that see the same
/// rules are judged once.
pub(super) fn unseen(ctx: &Context, host: &Arc<str>, seen: &[Identity]) -> Vec<Finding> {
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
        let (identity, crawler) = (seen.name(), seen.activity().crawler());
        let last_time = seen.activity().last().0;
        // Only a crawler that feeds a search index (one with an engine in
        // the catalogue) has a use for `noindex`: GPTBot's or ClaudeBot's
        // never seeing it is no finding.
        let outside_ranges = **identity == *super::identity_of(crawler, true);
        if outside_ranges || crawler.engine().is_none() {
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
                user_agent: crate::text::empty(),
                host: host.clone(),
                crawler: crawler.into(),
                url: url.to_string(),
                count: count as u64,
                detail,
            }
        })
        .collect()
}

//! The ordered stage: the chunks' kept requests gathered per host (in
//! file order), each host judged on its own (in parallel over hosts) by
//! the rule modules (`crawl_delay`, `noindex`, `findings`), and the
//! hosts' results joined into the run's outcome, sorted as the report
//! lists it.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

use rayon::prelude::*;

use super::activity::DelayedRows;
use super::gathered::Gathered;
use super::kept::{ChargedHost, Kept, Referral};
use super::state::{FetchRow, HostState, LastRequest, State};
use super::{
    Activity, Collector, Context, Counts, CrawlerActivity, Finding, Lookups, Outcome, Violations,
};
use super::{crawl_delay, findings, noindex};
use crate::robots::target_path;

/// The path-and-query a request or referral is judged on.
pub(crate) fn path_of(target: &str) -> Cow<'_, str> {
    match target_path(target.as_bytes()) {
        // A prefix of the text (an origin-form target, most of a log's, up
        // to any fragment) ending on a character boundary is text already:
        // no second UTF-8 check.
        Cow::Borrowed(path) if path.as_ptr() == target.as_ptr() => match target.get(..path.len()) {
            Some(text) => Cow::Borrowed(text),
            None => String::from_utf8_lossy(path),
        },
        Cow::Borrowed(path) => String::from_utf8_lossy(path),
        Cow::Owned(path) => Cow::Owned(String::from_utf8_lossy(&path).into_owned()),
    }
}

/// The URL without `utm_*` tracking parameters (assistant clicks carry
/// them; the crawler fetched the page without).
pub(crate) fn without_tracking(url: &str) -> Option<String> {
    let (path, query) = url.split_once('?')?;
    // No `utm_` anywhere (the common case) is no parameter beginning so.
    if memchr::memmem::find(query.as_bytes(), b"utm_").is_none()
        || !query.split('&').any(|p| p.starts_with("utm_"))
    {
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
    // The path before any query is `/robots.txt` (looked at from its
    // start: no scan of the whole path for a `?`).
    path.strip_prefix("/robots.txt")
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('?'))
}

#[derive(Default)]
struct HostResult {
    host: Arc<str>,
    violations: Violations,
    findings: Vec<Finding>,
    activity: Vec<CrawlerActivity>,
    /// With `--state`, the host's entries to carry over.
    state: HostState,
    spent: Spent,
}

/// Moves the rows of `parts` onto the end of `out`, in order, the parts
/// moved by the worker pool in parallel; `out` grows once. Returns the
/// emptied parts (their memory not yet freed: the caller frees it on one
/// thread, as it frees what the judging took apart, [`Spent`]).
fn append_in_parallel<T: Send>(out: &mut Vec<T>, parts: Vec<Vec<T>>) -> Vec<Vec<T>> {
    let total: usize = parts.iter().map(Vec::len).sum();
    out.reserve(total);
    let start = out.len();
    // Each part's own slots of the room after `start`, in order.
    let mut room = &mut out.spare_capacity_mut()[..total];
    let mut moves = Vec::with_capacity(parts.len());
    for part in parts {
        let (slots, rest) = std::mem::take(&mut room).split_at_mut(part.len());
        room = rest;
        moves.push((slots, part));
    }
    let emptied = moves
        .into_par_iter()
        .map(|(slots, mut part)| {
            for (slot, row) in slots.iter_mut().zip(part.drain(..)) {
                slot.write(row);
            }
            part
        })
        .collect();
    // SAFETY: `reserve` made room for `total` rows after `start`, the
    // parts' slots cover that room exactly (their lengths add up to
    // `total`), and each part wrote every one of its slots: a part's
    // `drain` yields as many rows as it has slots.
    unsafe { out.set_len(start + total) };
    emptied
}

/// What judging a host took apart, to be freed by the thread that
/// gathered it ([`replay_kept`]), not by the judging workers: the emptied
/// vectors of its identities and of its fetches, its identities with
/// their requests, and its referrals.
#[derive(Default)]
struct Spent {
    _identities: Vec<(u32, Activity)>,
    _seen: Vec<Identity>,
    _fetches: Vec<FetchRow>,
    _referrals: Vec<Referral>,
}

/// A crawler identity on one host: its name, its requests, and its last
/// robots.txt fetch (this run's, or carried over).
pub(super) struct Identity {
    name: Arc<str>,
    activity: Activity,
    last_robots: Option<i64>,
}

impl Identity {
    /// Its name (`Googlebot`, `Googlebot (unverified)`).
    pub(super) fn name(&self) -> &Arc<str> {
        &self.name
    }

    /// Its requests on the host, added up.
    pub(super) fn activity(&self) -> &Activity {
        &self.activity
    }

    /// Its last robots.txt fetch: this run's, or the previous night's.
    pub(super) fn last_robots(&self) -> Option<i64> {
        self.last_robots
    }
}

/// What the chunks kept of one host.
#[derive(Default)]
struct HostData {
    /// Per crawler identity (by its number in the run, in that order), its
    /// requests: only ever walked, so a vector of the exact size, not a
    /// map (100,000 hosts: the maps' tables were about a third of the
    /// samples of the judging's serial part, mostly page faults).
    identities: Vec<(u32, Activity)>,
    /// Engine crawlers' fetches, as the state's rows (in file order).
    fetches: Vec<FetchRow>,
    referrals: Vec<Referral>,
    /// With `--state`, the last referred request's time.
    referred_until: Option<i64>,
}

impl HostData {
    /// Nothing was kept of the host.
    fn is_empty(&self) -> bool {
        self.identities.is_empty()
            && self.fetches.is_empty()
            && self.referrals.is_empty()
            && self.referred_until.is_none()
    }
}

/// What the chunks kept, per host, by the run's numbers of the hosts
/// ([`ChargedHost`]): the snapshot's hosts by their number there, the
/// others by theirs among the run's others.
struct ByHost {
    snapshot: Vec<HostData>,
    others: Vec<HostData>,
}

impl ByHost {
    /// Room for every host `ctx`'s snapshot describes.
    fn new(ctx: &Context) -> ByHost {
        let mut snapshot = Vec::new();
        snapshot.resize_with(ctx.host_count(), HostData::default);
        ByHost {
            snapshot,
            others: Vec::new(),
        }
    }

    /// What was kept of `host`.
    fn get(&mut self, host: ChargedHost) -> &mut HostData {
        match host {
            ChargedHost::Snapshot(id) => &mut self.snapshot[id as usize],
            ChargedHost::Other(n) => {
                let n = n as usize;
                if n >= self.others.len() {
                    self.others.resize_with(n + 1, HostData::default);
                }
                &mut self.others[n]
            }
        }
    }

    /// The hosts something was kept of, with their names, sorted by name.
    fn into_sorted(self, ctx: &Context) -> Vec<(Arc<str>, HostData)> {
        let named = |data: Vec<HostData>, name: &dyn Fn(usize) -> Arc<str>| {
            data.into_iter()
                .enumerate()
                .filter(|(_, d)| !d.is_empty())
                .map(|(i, d)| (name(i), d))
                .collect::<Vec<_>>()
        };
        let host_name = |i: usize| {
            ctx.host_name(u32::try_from(i).expect("a host number"))
                .clone()
        };
        let mut hosts = named(self.snapshot, &host_name);
        let others = ctx.with_other_host_names(|names| named(self.others, &|i| names[i].clone()));
        hosts.extend(others);
        // A stable sort: the snapshot's hosts come in its order, by name
        // (one run, checked in one pass), and the others are merged in.
        hosts.sort_by(|a, b| a.0.cmp(&b.0));
        hosts
    }
}

fn judge_host(
    ctx: &Context,
    delayed: &[DelayedRows],
    names: &[Arc<str>],
    host: &Arc<str>,
    data: HostData,
    prior: HostState,
) -> HostResult {
    let HostData {
        mut identities,
        fetches: mut engine_fetches,
        mut referrals,
        referred_until,
    } = data;
    let snap = ctx.snapshot();
    let settings = ctx.settings();
    let judged_host = snap.is_judged(host);
    // Stable sorts: requests of one time keep their file order.
    engine_fetches.sort_by_key(|r| r.fetch.time);
    referrals.sort_by_key(Referral::time);
    let mut out = HostResult {
        host: host.clone(),
        ..HostResult::default()
    };
    // The previous night's entries of the host (moved, not copied).
    let mut entries = prior;
    // Engine crawlers' 2xx fetches by crawler and URL, the previous
    // nights' first: this night's rows moved in whole where the host had
    // none (no copy), else their emptied vector freed by the gathering
    // thread.
    let engine_fetches = entries.extend_fetches_from(engine_fetches);
    // Per identity (several crawlers can share one: a heuristic crawler
    // per User-Agent string, all named `python-requests`): crawl-delay
    // gaps, in time order, where a delay may apply, and what the report
    // and the next night need.
    let mut seen: Vec<Identity> = Vec::with_capacity(identities.len());
    let mut now = referred_until;
    for (id, mut activity) in identities.drain(..) {
        let name = names[id as usize].clone();
        // Carried over from the previous run, when it came before.
        let prior = entries
            .last_of(&name)
            .filter(|l| l.time <= activity.first());
        now = now.max(Some(activity.last().0));
        if let Some(steps) = activity.take_steps() {
            crawl_delay::violations(
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
    noindex::shown_despite_rules(ctx, host, &referrals, &entries, &mut out.violations);

    // Findings of this host, crawler by crawler in name order.
    seen.sort_by(|a, b| a.name.cmp(&b.name));
    out.findings = findings::of_identities(host, &seen);
    if judged_host {
        out.findings.extend(noindex::unseen(ctx, host, &seen));
    }

    // The report's per-crawler rows.
    out.activity = seen
        .iter()
        .map(|s| CrawlerActivity {
            host: host.clone(),
            crawler: s.name.clone(),
            operator: s.activity.crawler().shared_operator(),
            category: s.activity.crawler().category().as_str(),
            verified: s.activity.verified(),
            requests: s.activity.requests(),
            robots_txt_fetches: s.activity.robots_fetches(),
            first_seen: s.activity.first(),
            last_seen: s.activity.last().0,
            user_agent: s.activity.shared_agent(),
            days: s.activity.days(),
        })
        .collect();
    // What the next run needs, when it is asked for (`--state`).
    if ctx.has_state() {
        for s in &seen {
            let (time, resolution) = s.activity.last();
            // The run's shared copy of the name, not a copy per host (a
            // copy was an allocation per host and identity, and the state
            // file's writer looked each copy up by its bytes).
            entries.set_last(
                s.name.clone(),
                LastRequest {
                    time,
                    resolution,
                    robots_fetch: s.last_robots,
                },
            );
        }
        entries.prune(now.unwrap_or(i64::MIN), settings.index_grace);
        out.state = entries;
    }
    out.spent = Spent {
        _identities: identities,
        _seen: seen,
        _fetches: engine_fetches,
        _referrals: referrals,
    };
    out
}

/// Judges everything the collectors kept (in file order) and returns the
/// violations, findings, per-request rows and counts, sorted as the report
/// writes them.
pub fn replay(ctx: &Context, collectors: Vec<Collector<'_>>) -> Outcome {
    let n = collectors.len();
    replay_kept(
        ctx,
        collectors.into_iter().map(Collector::into_kept),
        n,
        Gathered::default(),
    )
}

/// [`replay`] of collectors made with [`Collector::with_lookups`] over
/// `lookups` made by [`Lookups::gathering`]: the activities the reader's
/// accepted chunks handed to `lookups` as it read are taken from there,
/// the rest from the collectors, as [`replay`] takes them.
pub fn replay_gathered(
    ctx: &Context,
    collectors: Vec<Collector<'_>>,
    lookups: &Lookups<'_>,
) -> Outcome {
    let n = collectors.len();
    replay_kept(
        ctx,
        collectors.into_iter().map(Collector::into_kept),
        n,
        lookups.take_gathered(),
    )
}

/// Judges the parts of chunks that [`super::SplitCollector`]s wrote for
/// one shard, in file order (the files in the order given, each file's
/// chunks in order): the outcome a `--shard K/N` run over the same files
/// returns, when `ctx` is set to that shard ([`Context::set_shard`]).
///
/// # Errors
/// A part that is not what a `SplitCollector` of this version wrote, or
/// that names a crawler or host `ctx` does not know (another catalogue or
/// snapshot).
pub fn replay_parts<'b>(
    ctx: &Context,
    parts: impl IntoIterator<Item = &'b [u8]>,
) -> Result<Outcome, super::WireError> {
    let mut kept = Vec::new();
    for bytes in parts {
        let mut r = super::wire::Reader::new(bytes, ctx)?;
        kept.push(Kept::read(&mut r)?);
        r.done()?;
    }
    let n = kept.len();
    Ok(replay_kept(ctx, kept.into_iter(), n, Gathered::default()))
}

/// Judges the chunks' parts, `n` of them, in file order, after the
/// activities `gathered` holds (of chunks before them in the files: the
/// chunks they came from hold none any more).
fn replay_kept(
    ctx: &Context,
    chunks: impl Iterator<Item = Kept>,
    n: usize,
    mut gathered: Gathered,
) -> Outcome {
    let mut counts = Counts::default();
    // Hosts by the run's numbers (a CDN log interleaves thousands, and
    // with `--state` each has its engines' fetches), sorted by name
    // afterwards.
    let mut by_host = ByHost::new(ctx);
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
    let mut chunk_violations: Vec<Violations> = Vec::with_capacity(n);
    let mut user_triggered = findings::UserTriggered::default();
    // Chunks in file order: each one's activity comes after the previous
    // ones'.
    for mut kept in chunks {
        counts.add(kept.counts());
        chunk_violations.push(kept.take_violations());
        // Its activities, delayed rows and unknown hosts (unless the
        // reader's acceptance gathered them already).
        gathered.gather(&mut kept);
        for (host, fetch) in kept.take_fetches() {
            by_host.get(host).fetches.push(fetch.into_row());
        }
        for (host, r) in kept.take_referrals() {
            by_host.get(host).referrals.push(r);
        }
        for (host, until) in kept.take_referred_until() {
            let data = by_host.get(host);
            data.referred_until = data.referred_until.max(Some(until));
        }
        user_triggered.merge(kept.take_user_triggered());
    }
    // Hosts are gathered by number (a CDN log's chunks each charge
    // thousands of hosts): the snapshot's, and the others the run
    // numbered; the steps point into `delayed` by chunk number.
    let (by_id, by_other, delayed, gathered_unknown) = gathered.into_parts();
    unknown_hosts.merge(gathered_unknown);
    let as_snapshot: fn(u32) -> ChargedHost = ChargedHost::Snapshot;
    for (mut by_number, host) in [(by_id, as_snapshot), (by_other, ChargedHost::Other)] {
        // Each host's identities, into a vector of the size it needs (each
        // pair is met once: the order is the keys').
        by_number.par_sort_unstable_by_key(|(key, _)| *key);
        let runs: Vec<(u32, usize)> = by_number
            .chunk_by(|a, b| a.0.0 == b.0.0)
            .map(|run| (run[0].0.0, run.len()))
            .collect();
        let mut rows = by_number.into_iter();
        for (number, len) in runs {
            let identities: Vec<(u32, Activity)> = rows
                .by_ref()
                .take(len)
                .map(|((_, identity), activity)| (identity, activity))
                .collect();
            by_host.get(host(number)).identities = identities;
        }
    }
    let names = ctx.identity_names();
    let by_host = by_host.into_sorted(ctx);
    // With `--state`, each judged host's previous entries, taken out of
    // the state, and the hosts this run did not meet (`rest`).
    let prior = ctx.take_state();
    let (prior_entries, rest) = match prior {
        Some(state) => {
            let (taken, rest) = state.split_hosts(by_host.iter().map(|(h, _)| &**h));
            (taken, Some(rest))
        }
        None => (Vec::new(), None),
    };
    let mut prior_entries = prior_entries.into_iter();
    let by_host: Vec<(Arc<str>, HostData, HostState)> = by_host
        .into_iter()
        .map(|(host, data)| (host, data, prior_entries.next().unwrap_or_default()))
        .collect();
    // The Disallow violations, decided by the collectors, are sorted while
    // the hosts are judged (one host's judgement is one thread's work).
    let mut violations = Violations::default();
    for chunk in chunk_violations {
        violations.append(chunk);
    }
    let (results, ()) = rayon::join(
        || {
            by_host
                .into_par_iter()
                .map(|(host, data, entries)| {
                    judge_host(ctx, &delayed, &names, &host, data, entries)
                })
                .collect::<Vec<HostResult>>()
        },
        || violations.sort(),
    );
    let mut judged = Vec::with_capacity(if rest.is_some() { results.len() } else { 0 });
    // The judged hosts' violations join the Disallow ones: blocks moved,
    // not rows copied, and merged into their order.
    let mut judged_violations = Violations::default();
    let mut outcome = Outcome {
        counts,
        ..Outcome::default()
    };
    // What the judging took apart, freed by one thread: most of it was
    // allocated by this thread (the gathering) or by the readers, and the
    // judging workers freeing it at once waited on each other for the
    // allocator's lock (100,000 hosts: about a third of the judging's time
    // asleep in futex calls).
    let mut spent = Vec::with_capacity(results.len());
    let mut findings = Vec::with_capacity(results.len());
    let mut activity = Vec::with_capacity(results.len());
    for r in results {
        spent.push(r.spent);
        if rest.is_some() {
            judged.push((r.host, r.state));
        }
        judged_violations.append(r.violations);
        findings.push(r.findings);
        activity.push(r.activity);
    }
    // The hosts' findings and per-crawler rows, moved into the outcome's
    // vectors (each sized once) in parallel parts: 100,000 hosts' rows
    // are tens of megabytes copied into fresh pages, which one thread did
    // while the other waited.
    let (findings, activity) = rayon::join(
        || append_in_parallel(&mut outcome.findings, findings),
        || append_in_parallel(&mut outcome.activity, activity),
    );
    // Freed while the hosts' violations are merged into the table's order
    // (one host's log: 20 ms that were a thread's alone).
    rayon::join(
        || violations.append_sorted(judged_violations),
        move || drop((spent, delayed, findings, activity)),
    );
    outcome.violations = violations;
    // Crawlers charged without a request in the run (noindex evidence of a
    // fetch on an earlier night): their category and operator.
    let active: foldhash::HashSet<&str> = outcome.activity.iter().map(|a| &*a.crawler).collect();
    let mut charged = BTreeMap::new();
    // Each crawler's name is one shared text in a block's rows: looked at
    // once per text met, by its address.
    let mut looked: foldhash::HashSet<(usize, usize)> = Default::default();
    for v in outcome.violations.iter_unordered() {
        if !looked.insert((v.crawler().as_ptr() as usize, v.crawler().len())) {
            continue;
        }
        if !active.contains(v.crawler()) && !charged.contains_key(v.crawler()) {
            if let Some(c) = ctx.catalogue().by_name(v.crawler()) {
                charged.insert(
                    v.crawler().to_string(),
                    (c.category().as_str(), c.operator().map(str::to_string)),
                );
            }
        }
    }
    outcome.charged_without_requests = charged;
    // The previous state with this run's hosts replaced.
    if let Some(rest) = rest {
        outcome.state = State::from_sorted(rest, judged);
    }
    outcome.findings.extend(findings::robots_noindex_lines(ctx));
    outcome
        .findings
        .extend(findings::unknown_hosts(unknown_hosts));
    outcome.findings.extend(user_triggered.into_findings());
    // The chunks' and hosts' working sets are freed by now. They are not
    // handed back to the system here but by the caller: an audit once,
    // before its report is built (`Report::build_taking_rows`), a
    // cluster's task after its judgement (`distributed::judge`). A trim
    // here too walked every heap a second time and returned pages the
    // report faulted straight back in (100,000 hosts with `--state`: about
    // 0.07 CPU-s in `malloc_trim`, more in the faults after it), for the
    // same peak.
    // The violations are in the table's order already.
    super::sort_findings(&mut outcome.findings);
    outcome
        .activity
        .par_sort_by(|a, b| (&a.host, &a.crawler).cmp(&(&b.host, &b.crawler)));
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The parts' rows follow the rows already there, in the parts' order,
    /// each once; the emptied parts come back one per part.
    #[test]
    fn parts_are_appended_in_order() {
        let mut rng = 7u64;
        for round in 0..40 {
            let mut out: Vec<String> = (0..round % 3).map(|i| format!("old {i}")).collect();
            let mut expected = out.clone();
            let parts: Vec<Vec<String>> = (0..round * 13)
                .map(|p| {
                    rng = rng.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                    (0..(rng >> 60) % 5)
                        .map(|i| format!("{round}/{p}/{i}"))
                        .collect()
                })
                .collect();
            expected.extend(parts.iter().flatten().cloned());
            let count = parts.len();
            let emptied = append_in_parallel(&mut out, parts);
            assert_eq!(out, expected, "round {round}");
            assert_eq!(emptied.len(), count);
            assert!(emptied.iter().all(Vec::is_empty));
        }
    }

    /// The text's own path is the one `target_path` finds in its bytes.
    #[test]
    fn paths_of_texts_are_target_paths() {
        for target in [
            "/",
            "/a?b=c",
            "/a#frag",
            "/é/ü?q=中#x",
            "//double/slash#",
            "/#",
            "http://h.example/x?y#z",
            "*",
            "",
            "a/b",
            "/\u{fffd}x",
        ] {
            let bytes = target_path(target.as_bytes());
            assert_eq!(
                path_of(target),
                String::from_utf8_lossy(&bytes),
                "{target:?}"
            );
        }
    }

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
                && is_robots_txt("/robots.txt?")
                && !is_robots_txt("/robots.txt.bak")
                && !is_robots_txt("/robots.txt#?")
                && !is_robots_txt("/robots.tx")
                && !is_robots_txt("/a/robots.txt")
                && !is_robots_txt("")
        );
        assert_eq!(without_tracking("/a?x=utm_1&y"), None);
        assert_eq!(without_tracking("/a?utm_a=1&utm_b=2"), Some("/a".into()));
    }
}

//! Crawl-delay: a request that came sooner after the identity's previous
//! one on the host than every robots.txt version it may have cached asks
//! (SPEC section 8). The steps are an identity's requests in time order;
//! each needs only the one before it, so they are walked in parallel runs.

use std::sync::Arc;

use foldhash::{HashMap, HashMapExt};
use rayon::prelude::*;

use super::activity::{DelayedRows, Step};
use super::state::LastRequest;
use super::violations::Cells;
use super::{Context, ViolationKind, Violations};
use crate::bots::Crawler;
use crate::snapshot::Policy;
use crate::text::Interner;
use crate::time::{format_seconds, seconds_to_nanos_f64};

/// The crawl delay `crawler` must keep under `policy` (seconds), with the
/// rule and line that ask for it; none for a crawler whose operator
/// documents that it does not support `Crawl-delay`.
pub(super) fn delay(policy: &Policy<'_>, crawler: &Crawler) -> Option<(f64, String, u32)> {
    if crawler.ignores_crawl_delay() {
        return None;
    }
    let tokens: Vec<&str> = crawler.tokens().iter().map(String::as_str).collect();
    policy
        .group_for(&tokens, crawler.obeys_global())?
        .crawl_delay()
        .map(|d| (d.seconds(), d.rule(), d.line()))
}

/// Steps one task of [`violations`] walks.
pub(super) const STEPS_PER_TASK: usize = 1 << 14;

/// The crawl-delay violations of one identity on a host: each request
/// that must keep a delay, against the request before it (the previous
/// night's last, for the first). Each request needs only the one before
/// it, so the steps are walked in parallel runs, and the runs' violations
/// joined in order.
pub(super) fn violations(
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
                        let (rule, line, version) = &*named
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
                            });
                        let detail = texts.get(&format!(
                            "gap {} < {}",
                            format_seconds(gap),
                            format_seconds(seconds_to_nanos_f64(delayed.seconds()))
                        ));
                        found.push_cells(&Cells {
                            time: t,
                            host: &host_cell,
                            crawler: identity,
                            verified: delayed.verified(),
                            client_ip: delayed.client(),
                            kind: ViolationKind::CrawlDelay,
                            method: delayed.method(),
                            url: delayed.url(),
                            status: delayed.status(),
                            rule,
                            rule_line: *line,
                            robots_version: version.as_ref(),
                            detail: &detail,
                            user_agent: Some(delayed.user_agent()),
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

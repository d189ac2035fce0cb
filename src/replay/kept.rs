//! What a chunk's collector keeps for the ordered stage, and the only way
//! the ordered stage reads it: a chunk's [`Kept`] (its counts, its Disallow
//! violations, its delayed requests' rows, each crawler identity's
//! requests per host, engine crawlers' fetches and referred visits), each
//! kept request a value whose fields are read through accessors.

use std::sync::Arc;

use super::activity::{Activity, DelayedRows};
use super::state::{Fetch, FetchRow};
use super::wire::{Reader, WireError, Writer};
use super::{Counts, UnknownHosts, Violations};
use crate::bots::Crawler;

/// A crawler identity's requests on one host, as one chunk read them.
#[derive(Debug)]
pub(crate) struct Charged {
    host: ChargedHost,
    /// The identity's number in the run (`Context::identity_names`).
    identity: u32,
    activity: Activity,
}

/// The host a [`Charged`], an [`EngineFetch`] or a [`Referral`] is kept
/// for, by number: the ordered stage gathers a host's parts by it, not by
/// hashing its name (100,000 hosts with `--state`: hashing 133,000 fetches
/// by name was 60 ms of the judging's one thread).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum ChargedHost {
    /// A host named as the snapshot names it, by its number there
    /// (`Context::host_name`): no copy of its name is shared per charge
    /// (a CDN log's chunks charge thousands of pairs, each a reference
    /// count touched on the name's own cache line and later dropped on
    /// the reader's thread).
    Snapshot(u32),
    /// Another host, by its number in the run
    /// (`Context::other_host_id`).
    Other(u32),
}

impl Charged {
    /// The requests of identity number `identity` on `host`, starting
    /// with `activity`.
    pub(crate) fn new(host: ChargedHost, identity: u32, activity: Activity) -> Charged {
        Charged {
            host,
            identity,
            activity,
        }
    }

    /// The requests, to add one to.
    pub(crate) fn activity_mut(&mut self) -> &mut Activity {
        &mut self.activity
    }

    /// Its host, its identity's number and its requests.
    pub(crate) fn into_parts(self) -> (ChargedHost, u32, Activity) {
        (self.host, self.identity, self.activity)
    }
}

/// An engine crawler's 2xx fetch of a page, evidence for a later
/// referral (see `noindex`).
#[derive(Clone, Debug)]
pub(crate) struct EngineFetch {
    crawler: Arc<Crawler>,
    path: String,
    fetch: Fetch,
}

impl EngineFetch {
    /// `crawler`'s fetch of `path` (path and query).
    pub(crate) fn new(crawler: Arc<Crawler>, path: String, fetch: Fetch) -> EngineFetch {
        EngineFetch {
            crawler,
            path,
            fetch,
        }
    }

    /// The fetch as a state's row: its crawler named by the catalogue's
    /// shared copy of the name (the state file's writer looks a name up
    /// once per copy it meets: a copy per host was 100,000 lookups at
    /// 100,000 hosts).
    pub(crate) fn into_row(self) -> FetchRow {
        FetchRow {
            crawler: self.crawler.shared_name(),
            url: self.path,
            fetch: self.fetch,
        }
    }
}

/// A human request that a search engine or assistant referred.
#[derive(Clone, Debug)]
pub(crate) struct Referral {
    time: i64,
    target: Box<str>,
    engine: String,
    /// The Referer host, or `landing marker ...`.
    via: String,
}

impl Referral {
    /// A visit of `target` at `time` that `engine` referred, `via` a
    /// Referer host or a landing marker (its host is kept beside it,
    /// [`Kept::push_referral`]).
    pub(crate) fn new(time: i64, target: Box<str>, engine: String, via: String) -> Referral {
        Referral {
            time,
            target,
            engine,
            via,
        }
    }

    /// When.
    pub(crate) fn time(&self) -> i64 {
        self.time
    }

    /// The URL as logged.
    pub(crate) fn target(&self) -> &str {
        &self.target
    }

    /// The referring engine's id.
    pub(crate) fn engine(&self) -> &str {
        &self.engine
    }

    /// The Referer host, or `landing marker ...`.
    pub(crate) fn via(&self) -> &str {
        &self.via
    }
}

/// What one chunk's collector kept, handed to the ordered stage once the
/// chunk is read ([`super::Collector::into_kept`]); each part is taken
/// once.
#[derive(Debug, Default)]
pub(crate) struct Kept {
    counts: Counts,
    violations: Violations,
    delayed: DelayedRows,
    charged: Vec<Charged>,
    fetches: Vec<(ChargedHost, EngineFetch)>,
    referrals: Vec<(ChargedHost, Referral)>,
    /// With `--state`, hosts and their last referred request's time (a
    /// host comes once, or more when the collector's host table was
    /// emptied during the chunk).
    referred_until: Vec<(ChargedHost, i64)>,
    unknown_hosts: UnknownHosts,
    user_triggered: super::findings::UserTriggered,
    /// Its activities and delayed rows were taken
    /// ([`Kept::take_activities`]).
    activities_taken: bool,
}

/// How much one chunk's [`Kept`] held of what grows with its requests:
/// the next chunk on the same worker reserves as much at once
/// ([`Kept::reserve`]), instead of growing each vector by doubling (a
/// CDN log's chunk charges about 11,000 (host, identity) pairs of over
/// 200 bytes each; each doubling copies them and touches new pages).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Sizes {
    /// The (host, identity) pairs charged.
    pub(crate) charged: usize,
    /// The Disallow violations' rows, URL bytes and distinct texts.
    violations: (usize, usize, usize),
    /// The delayed requests' rows and URL bytes.
    delayed: (usize, usize),
}

/// What the collector adds to a chunk's [`Kept`] as it reads.
impl Kept {
    /// How much it holds ([`Sizes`]).
    pub(crate) fn sizes(&self) -> Sizes {
        Sizes {
            charged: self.charged.len(),
            violations: self.violations.size(),
            delayed: self.delayed.size(),
        }
    }

    /// Room for as much as `sizes` says, reserved at once.
    pub(crate) fn reserve(&mut self, sizes: &Sizes) {
        self.charged.reserve(sizes.charged);
        self.violations.reserve(sizes.violations);
        self.delayed.reserve(sizes.delayed);
    }

    /// Requests by class, to count one.
    pub(crate) fn counts_mut(&mut self) -> &mut Counts {
        &mut self.counts
    }

    /// Where Disallow violations are kept, and where the requests of
    /// user-triggered fetchers that would be violations are counted.
    pub(crate) fn disallowed_mut(
        &mut self,
    ) -> (&mut Violations, &mut super::findings::UserTriggered) {
        (&mut self.violations, &mut self.user_triggered)
    }

    /// The delayed requests' rows.
    pub(crate) fn delayed_mut(&mut self) -> &mut DelayedRows {
        &mut self.delayed
    }

    /// Keeps an identity's requests on a host: their place, for
    /// [`Kept::charged_activity`].
    pub(crate) fn charge(&mut self, charged: Charged) -> usize {
        self.charged.push(charged);
        self.charged.len() - 1
    }

    /// The requests kept at place `i`, and the delayed requests' rows (a
    /// request added to one may add a row to the other).
    pub(crate) fn charged_activity(&mut self, i: usize) -> (&mut Activity, &mut DelayedRows) {
        (self.charged[i].activity_mut(), &mut self.delayed)
    }

    /// Keeps an engine crawler's fetch on `host`.
    pub(crate) fn push_fetch(&mut self, host: ChargedHost, fetch: EngineFetch) {
        self.fetches.push((host, fetch));
    }

    /// Keeps a referred visit of `host`.
    pub(crate) fn push_referral(&mut self, host: ChargedHost, referral: Referral) {
        self.referrals.push((host, referral));
    }

    /// Notes a referred visit of `host` at `time` (with `--state`).
    pub(crate) fn refer_until(&mut self, host: ChargedHost, time: i64) {
        self.referred_until.push((host, time));
    }

    /// Requests for hosts the snapshot does not describe, to count one.
    pub(crate) fn unknown_hosts_mut(&mut self) -> &mut UnknownHosts {
        &mut self.unknown_hosts
    }
}

/// What the ordered stage takes of a chunk's [`Kept`], each part once.
impl Kept {
    /// Requests by class.
    pub(crate) fn counts(&self) -> &Counts {
        &self.counts
    }

    /// Its Disallow violations, in file order.
    pub(crate) fn take_violations(&mut self) -> Violations {
        std::mem::take(&mut self.violations)
    }

    /// Per (host, identity), its requests, in order of first request, and
    /// what its crawl-delay rows name (the steps point into it); `None`
    /// once taken (a chunk is gathered once, `super::gathered`).
    pub(crate) fn take_activities(&mut self) -> Option<(Vec<Charged>, DelayedRows)> {
        if std::mem::replace(&mut self.activities_taken, true) {
            return None;
        }
        Some((
            std::mem::take(&mut self.charged),
            std::mem::take(&mut self.delayed),
        ))
    }

    /// Engine crawlers' fetches, with their hosts, in file order.
    pub(crate) fn take_fetches(&mut self) -> Vec<(ChargedHost, EngineFetch)> {
        std::mem::take(&mut self.fetches)
    }

    /// Referred human requests, with their hosts, in file order.
    pub(crate) fn take_referrals(&mut self) -> Vec<(ChargedHost, Referral)> {
        std::mem::take(&mut self.referrals)
    }

    /// With `--state`, hosts and their last referred request's time (a
    /// host may come more than once: the latest time is its own).
    pub(crate) fn take_referred_until(&mut self) -> Vec<(ChargedHost, i64)> {
        std::mem::take(&mut self.referred_until)
    }

    /// Requests for hosts the snapshot does not describe, not yet handed
    /// to the run.
    pub(crate) fn take_unknown_hosts(&mut self) -> UnknownHosts {
        std::mem::take(&mut self.unknown_hosts)
    }

    /// The chunk's user-triggered fetches of disallowed paths.
    pub(crate) fn take_user_triggered(&mut self) -> super::findings::UserTriggered {
        std::mem::take(&mut self.user_triggered)
    }
}

/// A chunk's parts as bytes for another process (`super::wire`), read back
/// as the same parts.
impl Kept {
    /// Writes everything the ordered stage takes of the chunk; `names`:
    /// the run's identity names by number ([`super::Context::identity_names`]);
    /// `ctx` names the hosts charged (the snapshot's, and the run's
    /// others).
    pub(crate) fn write(&self, w: &mut Writer<'_>, names: &[Arc<str>], ctx: &super::Context) {
        debug_assert!(
            !self.activities_taken,
            "a part is written with its activities"
        );
        let c = &self.counts;
        for n in [
            c.requests,
            c.crawler,
            c.human,
            c.self_traffic,
            c.referred,
            c.unjudged,
            c.not_requests,
            c.outside_window,
            c.no_host,
        ] {
            w.u64(n);
        }
        self.violations.write(w);
        self.delayed.write(w);
        ctx.with_other_host_names(|others| {
            let host = |w: &mut Writer<'_>, host: ChargedHost| match host {
                ChargedHost::Snapshot(id) => {
                    w.text(ctx.host_name(id));
                    w.opt_u32(Some(id));
                }
                ChargedHost::Other(n) => {
                    w.text(&others[n as usize]);
                    w.opt_u32(None);
                }
            };
            w.usize(self.charged.len());
            for charged in &self.charged {
                host(w, charged.host);
                w.text(&names[charged.identity as usize]);
                charged.activity.write(w);
            }
            w.usize(self.fetches.len());
            for (at, fetch) in &self.fetches {
                host(w, *at);
                w.crawler(&fetch.crawler);
                w.bytes(fetch.path.as_bytes());
                let f = &fetch.fetch;
                w.i64(f.time);
                w.opt_bool(f.verified);
                w.text(&f.client);
                w.text(&f.method);
                w.u64(u64::from(f.status));
            }
            w.usize(self.referrals.len());
            for (at, r) in &self.referrals {
                host(w, *at);
                w.i64(r.time);
                w.bytes(r.target.as_bytes());
                w.text(&r.engine);
                w.text(&r.via);
            }
            // Per host (it may have come more than once), in order.
            let mut until: std::collections::BTreeMap<ChargedHost, i64> =
                std::collections::BTreeMap::new();
            for (at, t) in &self.referred_until {
                let latest = until.entry(*at).or_insert(*t);
                *latest = (*latest).max(*t);
            }
            w.usize(until.len());
            for (at, t) in until {
                host(w, at);
                w.i64(t);
            }
        });
        w.usize(self.unknown_hosts.named.len());
        for (host, n) in &self.unknown_hosts.named {
            w.text(host);
            w.u64(*n);
        }
        w.u64(self.unknown_hosts.other);
        self.user_triggered.write(w);
    }

    /// Reads what [`Kept::write`] wrote, its identities numbered anew by
    /// the reader's context.
    pub(crate) fn read(r: &mut Reader<'_, '_>) -> Result<Kept, WireError> {
        let counts = Counts {
            requests: r.u64()?,
            crawler: r.u64()?,
            human: r.u64()?,
            self_traffic: r.u64()?,
            referred: r.u64()?,
            unjudged: r.u64()?,
            not_requests: r.u64()?,
            outside_window: r.u64()?,
            no_host: r.u64()?,
        };
        let violations = Violations::read(r)?;
        let delayed = DelayedRows::read(r)?;
        let rows = delayed.len();
        let ctx = r.ctx();
        let n = r.count(40)?;
        let mut charged = Vec::with_capacity(n);
        for _ in 0..n {
            let host = read_host(r)?;
            let identity = ctx.identity_id(&r.text()?);
            let activity = Activity::read(r, rows)?;
            charged.push(Charged::new(host, identity, activity));
        }
        let n = r.count(15)?;
        let mut fetches = Vec::with_capacity(n);
        for _ in 0..n {
            let host = read_host(r)?;
            let crawler = r.crawler()?;
            let path = r.string()?.to_string();
            let fetch = Fetch {
                time: r.i64()?,
                verified: r.opt_bool()?,
                client: r.text()?,
                method: r.text()?,
                status: r.u16()?,
            };
            fetches.push((host, EngineFetch::new(crawler, path, fetch)));
        }
        let n = r.count(13)?;
        let mut referrals = Vec::with_capacity(n);
        for _ in 0..n {
            let host = read_host(r)?;
            referrals.push((
                host,
                Referral::new(
                    r.i64()?,
                    r.string()?.into(),
                    r.text()?.to_string(),
                    r.text()?.to_string(),
                ),
            ));
        }
        let n = r.count(10)?;
        let mut referred_until = Vec::with_capacity(n);
        for _ in 0..n {
            referred_until.push((read_host(r)?, r.i64()?));
        }
        let n = r.count(2)?;
        let mut unknown_hosts = UnknownHosts::default();
        for _ in 0..n {
            let (host, count) = (r.text()?, r.u64()?);
            unknown_hosts.named.insert(host, count);
        }
        unknown_hosts.other = r.u64()?;
        let user_triggered = super::findings::UserTriggered::read(r)?;
        Ok(Kept {
            counts,
            violations,
            delayed,
            charged,
            fetches,
            referrals,
            referred_until,
            unknown_hosts,
            user_triggered,
            activities_taken: false,
        })
    }
}

/// Reads a host [`Kept::write`] wrote: its name, and its number in the
/// snapshot if it has one; another host is numbered by the reader's
/// context.
fn read_host(r: &mut Reader<'_, '_>) -> Result<ChargedHost, WireError> {
    let host = r.text()?;
    match r.opt_u32()? {
        Some(id) if id as usize >= r.ctx().host_count() => {
            Err(WireError("a host number the snapshot does not have".into()))
        }
        Some(id) => Ok(ChargedHost::Snapshot(id)),
        None => Ok(ChargedHost::Other(r.ctx().other_host_id(&host))),
    }
}

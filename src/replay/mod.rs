//! The replay: every crawler request judged against the robots.txt versions
//! the crawler may have cached, the crawl-delays they ask for, and the
//! indexing rules search engines showed pages despite (SPEC section 8).
//!
//! Reading is parallel and stateless: a [`Collector`] per log chunk
//! identifies each User-Agent (through a cache shared by all chunks),
//! verifies claimed crawlers against published IP ranges, decides each
//! crawler request's Disallow verdict on the spot (`disallow`: a verdict
//! depends only on host, crawler, path and time), and keeps only what needs
//! order: per crawler request its identity, time and the crawl delay its
//! cached robots.txt versions ask for (with the request's address, method,
//! URL and status only where a row may name them), engine crawlers' 2xx
//! fetches, and human requests that a search engine or assistant referred.
//! The ordered stage is per host (in parallel over hosts) and in time
//! order within a host: crawl-delay gaps, noindex evidence, findings and
//! per-crawler activity. [`replay`] returns the violations, the findings
//! and the activity rows for the report.
//!
//! ```
//! use std::sync::Arc;
//! use crawlaudit::bots::{Catalogue, IpRanges};
//! use crawlaudit::logs::{Format, Sink, parse_line};
//! use crawlaudit::replay::{Collector, Context, Settings, replay};
//! use crawlaudit::snapshot::Snapshot;
//!
//! let dir = std::env::temp_dir().join(format!("crawlaudit-doc-{}", std::process::id()));
//! std::fs::create_dir_all(dir.join("shop.example")).unwrap();
//! std::fs::write(dir.join("shop.example/robots.txt"), "User-agent: *\nDisallow: /cart/\n").unwrap();
//! let ctx = Context::new(Snapshot::load(&[dir]).unwrap(), Catalogue::builtin(), IpRanges::default(), Settings::default());
//! let format = Format::Combined.compile().unwrap();
//! let mut collector = Collector::new(&ctx);
//! let line = br#"192.0.2.7 - - [01/Nov/2026:10:00:00 +0000] "GET /cart/1 HTTP/1.1" 200 5 "-" "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)""#;
//! collector.record(&parse_line(&format, line).unwrap());
//! let outcome = replay(&ctx, vec![collector]);
//! assert_eq!(outcome.violations.len(), 1);
//! assert_eq!(outcome.violations[0].rule, "Disallow: /cart/");
//! ```

mod disallow;
mod judge;
mod state;

use foldhash::{HashMap, HashMapExt};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, RwLock};

use crate::bots::{Catalogue, Crawler, IpRanges};
use crate::host::{normalize_host, split_authority};
use crate::logs::{Request, Sink};
use crate::shard::Shard;
use crate::snapshot::Snapshot;
use crate::time::HOUR;

pub use disallow::Lookups;
pub(crate) use judge::merge_unknown_hosts;
pub use judge::replay;
pub use state::{Fetch, LastRequest, State};

/// The kinds of violation, in the report's order (`Violation::kind`).
pub const VIOLATION_KINDS: [&str; 4] = ["disallow", "crawl-delay", "noindex", "unavailable-after"];

/// How the audit judges.
#[derive(Clone, Debug)]
pub struct Settings {
    /// How old a robots.txt copy a crawler may legitimately act on
    /// (`--robots-cache-grace`, default 24 h), in nanoseconds.
    pub robots_cache_grace: i64,
    /// How long an engine may take to drop a page after its crawler saw
    /// `noindex` (`--index-grace`, default 72 h), in nanoseconds.
    pub index_grace: i64,
    /// Requests before this instant are not audited (`--since`).
    pub since: Option<i64>,
    /// Requests at or after this instant are not audited (`--until`).
    pub until: Option<i64>,
    /// The host of log lines whose format carries none (`--site`); when
    /// absent and the snapshot describes exactly one host, that host.
    pub site: Option<String>,
    /// Audit only this shard's hosts (`--shard K/N`); every count covers
    /// only the lines this shard owns, so that shard reports add up.
    pub shard: Option<Shard>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            robots_cache_grace: 24 * HOUR,
            index_grace: 72 * HOUR,
            since: None,
            until: None,
            site: None,
            shard: None,
        }
    }
}

/// User-Agent to crawler (`None`: a person).
type IdentityCache = HashMap<Box<[u8]>, Option<Arc<Crawler>>>;

/// The most User-Agents whose identification the run caches (shared by
/// all chunks); past it, a User-Agent not cached is identified each time.
pub const MAX_CACHED_USER_AGENTS: usize = 65_536;

/// The most entries of a chunk's own caches (User-Agents, Host values);
/// a full cache is emptied, and both are freed when the chunk is done.
const CHUNK_CACHE: usize = 4_096;

/// The most hosts the snapshot does not describe that `unknown-host`
/// findings name; the requests for the others are one `(other hosts)` row.
pub const MAX_UNKNOWN_HOSTS: usize = 10_000;

/// The `host` of the `unknown-host` row that adds up the hosts past
/// [`MAX_UNKNOWN_HOSTS`].
pub const OTHER_HOSTS: &str = "(other hosts)";

/// Requests for hosts the snapshot does not describe: the first
/// [`MAX_UNKNOWN_HOSTS`] host names in byte order with their exact counts,
/// and the requests for all the others. Which hosts are named does not
/// depend on the order requests come in, so chunks and threads can add
/// theirs up in any order: a host among the first names of all is among
/// the first names of every part, so its count is whole.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct UnknownHosts {
    pub(crate) named: BTreeMap<Arc<str>, u64>,
    pub(crate) other: u64,
}

impl UnknownHosts {
    /// Counts `n` requests for `host`.
    pub(crate) fn add(&mut self, host: &Arc<str>, n: u64) {
        if let Some(count) = self.named.get_mut(host) {
            *count = count.saturating_add(n);
            return;
        }
        if self.named.len() >= MAX_UNKNOWN_HOSTS {
            match self.named.last_key_value() {
                Some((last, _)) if host < last => {
                    let (_, evicted) = self.named.pop_last().expect("not empty");
                    self.other = self.other.saturating_add(evicted);
                }
                _ => {
                    self.other = self.other.saturating_add(n);
                    return;
                }
            }
        }
        self.named.insert(host.clone(), n);
    }

    /// Adds another part's counts.
    pub(crate) fn merge(&mut self, o: UnknownHosts) {
        for (host, n) in &o.named {
            self.add(host, *n);
        }
        self.other = self.other.saturating_add(o.other);
    }
}

/// Everything the replay reads, shared by all collectors.
#[derive(Debug)]
pub struct Context {
    snapshot: Snapshot,
    catalogue: Catalogue,
    ranges: IpRanges,
    settings: Settings,
    default_host: Option<String>,
    /// Identification results shared by all chunks: a User-Agent is
    /// identified once per run, not once per chunk (up to
    /// [`MAX_CACHED_USER_AGENTS`]).
    identified: RwLock<IdentityCache>,
    /// The unknown hosts of the chunks done ([`Sink::finish`]).
    unknown_hosts: Mutex<UnknownHosts>,
    /// Compiled referrer host patterns: (regex, engine id).
    referrers: Vec<(regex::Regex, String)>,
    /// What the previous run carried over (`--state`).
    state: Option<State>,
    /// Per snapshot host, what the per-request lookups need.
    host_rules: HashMap<String, disallow::HostRules>,
}

impl Context {
    /// Prepares a replay.
    pub fn new(
        snapshot: Snapshot,
        catalogue: Catalogue,
        ranges: IpRanges,
        settings: Settings,
    ) -> Context {
        let default_host = settings.site.as_deref().map(normalize_host).or_else(|| {
            let mut hosts = snapshot.hosts();
            match (hosts.next(), hosts.next()) {
                (Some((only, _)), None) => Some(only.to_string()),
                _ => None,
            }
        });
        let referrers = catalogue
            .engines()
            .iter()
            .flat_map(|e| {
                e.referrer_hosts().iter().filter_map(move |pattern| {
                    regex::RegexBuilder::new(pattern)
                        .case_insensitive(true)
                        .build()
                        .ok()
                        .map(|re| (re, e.id().to_string()))
                })
            })
            .collect();
        let host_rules = snapshot
            .hosts()
            .map(|(host, _)| (host.to_string(), disallow::HostRules::of(&snapshot, host)))
            .collect();
        Context {
            snapshot,
            catalogue,
            ranges,
            settings,
            default_host,
            identified: RwLock::new(HashMap::new()),
            unknown_hosts: Mutex::new(UnknownHosts::default()),
            referrers,
            state: None,
            host_rules,
        }
    }

    /// What the per-request lookups need of `host` (normalized); `None`
    /// for a host the snapshot does not describe.
    pub(crate) fn host_rules(&self, host: &str) -> Option<&disallow::HostRules> {
        self.host_rules.get(host)
    }

    /// Continues from what a previous run carried over (`--state`): its
    /// crawlers' last requests and robots.txt fetches, and its engine
    /// crawlers' fetches.
    pub fn with_state(mut self, state: State) -> Context {
        self.state = Some(state);
        self
    }

    /// The carried-over state, if any.
    pub fn state(&self) -> Option<&State> {
        self.state.as_ref()
    }

    /// The snapshot.
    pub fn snapshot(&self) -> &Snapshot {
        &self.snapshot
    }

    /// The crawler catalogue.
    pub fn catalogue(&self) -> &Catalogue {
        &self.catalogue
    }

    /// The settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The host used for lines that carry none.
    pub fn default_host(&self) -> Option<&str> {
        self.default_host.as_deref()
    }

    fn identify_shared(&self, ua: &[u8]) -> Option<Arc<Crawler>> {
        let full = match self.identified.read() {
            Ok(map) => match map.get(ua) {
                Some(hit) => return hit.clone(),
                None => map.len() >= MAX_CACHED_USER_AGENTS,
            },
            Err(_) => true,
        };
        let found = self.catalogue.identify(ua);
        if full {
            // Crawlers are one identity by name, so an answer not cached
            // is the same crawler as a cached one.
            return found;
        }
        if let Ok(mut map) = self.identified.write() {
            // Keep the first answer if another thread was quicker, so that
            // one User-Agent is one identity everywhere.
            return map.entry(ua.into()).or_insert(found).clone();
        }
        found
    }

    /// The engine whose result page a Referer is, or whose landing marker
    /// the target carries.
    fn referring_engine(&self, referer: &[u8], target: &[u8]) -> Option<(String, String)> {
        if let Some(host) = referer_host(referer) {
            if let Some((_, engine)) = self.referrers.iter().find(|(re, _)| re.is_match(&host)) {
                return Some((engine.clone(), host));
            }
        }
        let target = String::from_utf8_lossy(target);
        self.catalogue.engines().iter().find_map(|e| {
            e.landing_markers()
                .iter()
                .find(|m| target.contains(m.as_str()))
                .map(|m| (e.id().to_string(), format!("landing marker {m}")))
        })
    }
}

/// The host of a Referer URL, lower case, without port; `android-app://`
/// referrers of the Google app count as `www.google.com`.
fn referer_host(referer: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(referer).ok()?.trim();
    if text.starts_with("android-app://com.google.android.googlequicksearchbox") {
        return Some("www.google.com".to_string());
    }
    let (authority, _) = split_authority(text.split_once("://")?.1);
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = match host.rsplit_once(':') {
        Some((h, port)) if port.bytes().all(|b| b.is_ascii_digit()) => h,
        _ => host,
    };
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

/// A crawler request as the ordered stage needs it (its Disallow verdict
/// is decided already, in the collector): who, when, and the crawl delay
/// its cached robots.txt versions ask for.
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    /// The identity it is charged to ([`identity_of`]).
    pub(crate) identity: Arc<str>,
    pub(crate) crawler: Arc<Crawler>,
    pub(crate) time: i64,
    pub(crate) resolution: i64,
    /// See [`disallow::Judged::delay`].
    pub(crate) delay: Option<f64>,
    pub(crate) verified: Option<bool>,
    pub(crate) robots_txt: bool,
    /// What a row names of the request, kept where the ordered stage may
    /// need it: a request that can break a Crawl-delay, and its chunk's
    /// earliest request of the identity with a client address (the
    /// identity's sample address).
    pub(crate) detail: Option<Box<Detail>>,
}

/// What a violation row names of a request besides its time and crawler.
#[derive(Clone, Debug)]
pub(crate) struct Detail {
    pub(crate) client: Box<str>,
    pub(crate) method: Box<str>,
    pub(crate) url: Box<str>,
    pub(crate) status: u16,
}

/// An engine crawler's 2xx fetch of a page, evidence for a later
/// referral (see `judge`).
#[derive(Clone, Debug)]
pub(crate) struct EngineFetch {
    pub(crate) crawler: Arc<Crawler>,
    pub(crate) path: String,
    pub(crate) fetch: Fetch,
}

/// The identity violations are charged to: the crawler's name, or
/// `NAME (unverified)` for an impersonator.
pub(crate) fn identity_of(crawler: &Crawler, verified: Option<bool>) -> String {
    if verified == Some(false) {
        format!("{} (unverified)", crawler.name())
    } else {
        crawler.name().to_string()
    }
}

/// A human request that a search engine or assistant referred.
#[derive(Clone, Debug)]
pub(crate) struct Referral {
    pub(crate) host: Arc<str>,
    pub(crate) time: i64,
    pub(crate) target: Box<str>,
    pub(crate) engine: String,
    /// The Referer host, or `landing marker ...`.
    pub(crate) via: String,
}

/// Requests by class, as `summary.json` counts them.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Counts {
    /// Parsed lines seen.
    pub requests: u64,
    /// Requests from crawlers (catalogue or heuristic), in the window.
    pub crawler: u64,
    /// Requests from people, in the window.
    pub human: u64,
    /// Human requests referred by a search engine or assistant.
    pub referred: u64,
    /// Crawler requests for hosts without robots information, or before
    /// the first robots.txt version the snapshot knows: counted, not judged.
    pub unjudged: u64,
    /// Lines whose request was not an HTTP request.
    pub not_requests: u64,
    /// Requests outside `--since`/`--until`.
    pub outside_window: u64,
    /// Requests whose host is unknown (no host in the line, no `--site`,
    /// and a snapshot of several hosts).
    pub no_host: u64,
}

impl Counts {
    /// Adds another's counts (shards' counts add up).
    pub fn add(&mut self, o: &Counts) {
        self.requests += o.requests;
        self.crawler += o.crawler;
        self.human += o.human;
        self.referred += o.referred;
        self.unjudged += o.unjudged;
        self.not_requests += o.not_requests;
        self.outside_window += o.outside_window;
        self.no_host += o.no_host;
    }

    /// The sum of two counts, `None` when one would overflow (counts read
    /// back from a shard report that was tampered with).
    pub fn checked_add(&self, o: &Counts) -> Option<Counts> {
        Some(Counts {
            requests: self.requests.checked_add(o.requests)?,
            crawler: self.crawler.checked_add(o.crawler)?,
            human: self.human.checked_add(o.human)?,
            referred: self.referred.checked_add(o.referred)?,
            unjudged: self.unjudged.checked_add(o.unjudged)?,
            not_requests: self.not_requests.checked_add(o.not_requests)?,
            outside_window: self.outside_window.checked_add(o.outside_window)?,
            no_host: self.no_host.checked_add(o.no_host)?,
        })
    }
}

/// A host (normalized) and what the snapshot says of it (`None`: it does
/// not describe the host).
type HostOf<'c> = (Arc<str>, Option<&'c disallow::HostRules>);

/// The sink of one log chunk: keeps what the replay needs.
#[derive(Debug)]
pub struct Collector<'c> {
    ctx: &'c Context,
    local: IdentityCache,
    /// Host values as logged to the host, and what the snapshot says of
    /// it.
    hosts: HashMap<Box<[u8]>, HostOf<'c>>,
    /// The robots.txt lookups of the chunk.
    rules: disallow::Rules<'c>,
    /// Where the lookups go when the chunk is done, for the next chunk.
    lookups: Option<&'c disallow::Lookups<'c>>,
    /// Identities by (crawler, impersonator?).
    identities: HashMap<(usize, bool), (Arc<str>, Arc<Crawler>)>,
    /// Per (host, identity), by the addresses of their `Arc`s (which
    /// `kept` holds): the earliest time of a request with a client address
    /// so far (see [`Kept::detail`]).
    firsts: HashMap<(usize, usize), i64>,
    /// Crawler requests by host, in file order.
    pub(crate) kept: Vec<(Arc<str>, Kept)>,
    /// Disallow violations, in file order.
    pub(crate) violations: Vec<Violation>,
    /// Engine crawlers' 2xx fetches by host, in file order.
    pub(crate) fetches: Vec<(Arc<str>, EngineFetch)>,
    pub(crate) referrals: Vec<Referral>,
    /// Requests (all classes) for hosts the snapshot does not describe,
    /// until the chunk is done.
    pub(crate) unknown_hosts: UnknownHosts,
    pub(crate) counts: Counts,
}

impl<'c> Collector<'c> {
    /// A collector over `ctx`.
    pub fn new(ctx: &'c Context) -> Self {
        Collector {
            ctx,
            local: HashMap::new(),
            hosts: HashMap::new(),
            rules: disallow::Rules::new(ctx),
            lookups: None,
            identities: HashMap::new(),
            firsts: HashMap::new(),
            kept: Vec::new(),
            violations: Vec::new(),
            fetches: Vec::new(),
            referrals: Vec::new(),
            unknown_hosts: UnknownHosts::default(),
            counts: Counts::default(),
        }
    }

    /// A collector over `ctx` whose robots.txt lookups come from, and go
    /// back to, `lookups` (the audit makes one per chunk: a CDN log's
    /// thousands of hosts are then looked up about once per worker, not
    /// once per chunk).
    pub fn with_lookups(ctx: &'c Context, lookups: &'c disallow::Lookups<'c>) -> Self {
        let mut collector = Collector::new(ctx);
        collector.rules = lookups.take(ctx);
        collector.lookups = Some(lookups);
        collector
    }

    /// What this collector counted.
    pub fn counts(&self) -> &Counts {
        &self.counts
    }

    fn identify(&mut self, ua: &[u8]) -> Option<Arc<Crawler>> {
        if let Some(hit) = self.local.get(ua) {
            return hit.clone();
        }
        let found = self.ctx.identify_shared(ua);
        if self.local.len() >= CHUNK_CACHE {
            self.local.clear();
        }
        self.local.insert(ua.into(), found.clone());
        found
    }

    /// The identity of `crawler` (an impersonator when `verified` is
    /// `Some(false)`), named once per chunk.
    fn identity(&mut self, crawler: &Arc<Crawler>, verified: Option<bool>) -> Arc<str> {
        let key = (Arc::as_ptr(crawler) as usize, verified == Some(false));
        if let Some((identity, _)) = self.identities.get(&key) {
            return identity.clone();
        }
        if self.identities.len() >= CHUNK_CACHE {
            self.identities.clear();
        }
        let identity: Arc<str> = identity_of(crawler, verified).into();
        // The crawler is kept with it, so that its address is not reused
        // while it is a key.
        self.identities
            .insert(key, (identity.clone(), crawler.clone()));
        identity
    }

    /// Keeps a crawler request: its Disallow judged here, the rest for the
    /// ordered stage.
    fn keep(
        &mut self,
        request: &Request<'_>,
        host: Arc<str>,
        rules: Option<&'c disallow::HostRules>,
        crawler: Arc<Crawler>,
        target: String,
    ) {
        let t = request.time();
        let verified = request
            .client_ip()
            .and_then(|ip| self.ctx.catalogue.verify(&crawler, &self.ctx.ranges, ip));
        let identity = self.identity(&crawler, verified);
        let path = judge::path_of(&target);
        let robots_txt = judge::is_robots_txt(&path);
        let client = String::from_utf8_lossy(request.client());
        let method = String::from_utf8_lossy(request.method());
        let status = request.status();
        let judged = self.rules.judge(&disallow::Hit {
            host: &host,
            rules,
            time: t,
            crawler: &crawler,
            identity: &identity,
            verified,
            path: &path,
            robots_txt,
            client: &client,
            method: &method,
            url: &target,
            status,
        });
        if !judged.judged {
            self.counts.unjudged += 1;
        }
        self.violations.extend(judged.violation);
        let mut sample = false;
        if !client.is_empty() {
            if self.firsts.len() >= CHUNK_CACHE {
                self.firsts.clear();
            }
            let first = self
                .firsts
                .entry((
                    Arc::as_ptr(&host) as *const u8 as usize,
                    Arc::as_ptr(&identity) as *const u8 as usize,
                ))
                .or_insert(i64::MAX);
            if t < *first {
                *first = t;
                sample = true;
            }
        }
        // Only an engine's crawler's fetches are evidence for a referral.
        if verified != Some(false)
            && (200..300).contains(&status)
            && !robots_txt
            && crawler.engine().is_some()
        {
            self.fetches.push((
                host.clone(),
                EngineFetch {
                    crawler: crawler.clone(),
                    path,
                    fetch: Fetch {
                        time: t,
                        verified,
                        client: client.to_string(),
                        method: method.to_string(),
                        status,
                    },
                },
            ));
        }
        let detail = (sample || judged.delay.is_some()).then(|| {
            Box::new(Detail {
                client: client.into(),
                method: method.into(),
                url: target.into(),
                status,
            })
        });
        self.kept.push((
            host,
            Kept {
                identity,
                crawler,
                time: t,
                resolution: request.resolution(),
                delay: judged.delay,
                verified,
                robots_txt,
                detail,
            },
        ));
    }

    /// The request's host (normalized), and what the snapshot says of it
    /// (`None`: it does not describe the host).
    fn host(&mut self, request: &Request<'_>) -> Option<HostOf<'c>> {
        // Lines without a host are cached under the empty value.
        let (raw, default) = match request.host() {
            Some(raw) => (raw, None),
            None => (&b""[..], Some(self.ctx.default_host.as_deref()?)),
        };
        if let Some(h) = self.hosts.get(raw) {
            return Some(h.clone());
        }
        let h: Arc<str> = match default {
            Some(d) => d.into(),
            None => normalize_host(&String::from_utf8_lossy(raw)).into(),
        };
        // Normalized once more, as the snapshot's own lookups do (a
        // `shop.example.:443` is `shop.example.` once, `shop.example` twice).
        let rules = self.ctx.host_rules(&normalize_host(&h));
        if self.hosts.len() >= CHUNK_CACHE {
            self.hosts.clear();
        }
        self.hosts.insert(raw.into(), (h.clone(), rules));
        Some((h, rules))
    }
}

impl Sink for Collector<'_> {
    fn record(&mut self, request: &Request<'_>) {
        let host = self.host(request);
        let rules = host.as_ref().and_then(|h| h.1);
        let known = rules.is_some();
        let host = host.map(|h| h.0);
        if let Some(shard) = self.ctx.settings.shard {
            if !shard.owns(host.as_deref()) {
                return;
            }
        }
        self.counts.requests += 1;
        if !request.is_valid_request() {
            self.counts.not_requests += 1;
            return;
        }
        let settings = &self.ctx.settings;
        let t = request.time();
        if settings.since.is_some_and(|s| t < s) || settings.until.is_some_and(|u| t >= u) {
            self.counts.outside_window += 1;
            return;
        }
        let Some(host) = host else {
            self.counts.no_host += 1;
            return;
        };
        if !known {
            self.unknown_hosts.add(&host, 1);
        }
        let target = String::from_utf8_lossy(request.target());
        match self.identify(request.user_agent()) {
            Some(crawler) => {
                self.counts.crawler += 1;
                self.keep(request, host, rules, crawler, target.into_owned());
            }
            None => {
                self.counts.human += 1;
                if let Some((engine, via)) = self
                    .ctx
                    .referring_engine(request.referer(), request.target())
                {
                    self.counts.referred += 1;
                    self.referrals.push(Referral {
                        host,
                        time: t,
                        target: target.into(),
                        engine,
                        via,
                    });
                }
            }
        }
    }

    /// Frees the chunk's caches and hands its unknown hosts to the run, so
    /// that a collector kept until the replay holds only its evidence.
    fn finish(&mut self) {
        self.local = HashMap::new();
        self.hosts = HashMap::new();
        self.identities = HashMap::new();
        self.firsts = HashMap::new();
        match self.lookups {
            Some(lookups) => {
                let rules = std::mem::replace(&mut self.rules, disallow::Rules::new(self.ctx));
                lookups.give_back(rules);
            }
            None => self.rules.clear(),
        }
        let unknown = std::mem::take(&mut self.unknown_hosts);
        if unknown != UnknownHosts::default() {
            let mut all = self
                .ctx
                .unknown_hosts
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            all.merge(unknown);
        }
    }
}

/// The kinds of finding, as `findings.csv` names them.
pub const FINDING_KINDS: [&str; 5] = [
    "spoofed-agent",
    "no-robots-fetch",
    "noindex-unseen",
    "robots-noindex-line",
    "unknown-host",
];

/// Sorts violations by time, host, crawler, url, kind and findings by kind,
/// host, crawler, url, as the report lists them. The sorts are stable.
pub fn sort_rows(violations: &mut [Violation], findings: &mut [Finding]) {
    violations.sort_by(|a, b| {
        (a.time, &a.host, &a.crawler, &a.url, a.kind)
            .cmp(&(b.time, &b.host, &b.crawler, &b.url, b.kind))
    });
    findings.sort_by(|a, b| {
        (a.kind, &a.host, &a.crawler, &a.url).cmp(&(b.kind, &b.host, &b.crawler, &b.url))
    });
}

/// One violation (a row of `violations.csv`).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Violation {
    /// Request time, UTC nanoseconds.
    pub time: i64,
    /// The site.
    pub host: String,
    /// The crawler identity (`Googlebot`, `Googlebot (unverified)`).
    pub crawler: String,
    /// Verified against published ranges; `None` when none are known.
    pub verified: Option<bool>,
    /// The client address (for noindex evidence, the crawler's fetch).
    pub client_ip: String,
    /// `disallow`, `crawl-delay`, `noindex` or `unavailable-after`.
    pub kind: &'static str,
    /// The request method.
    pub method: String,
    /// Path and query as logged.
    pub url: String,
    /// The response status.
    pub status: u16,
    /// The rule: `Disallow: /private/`, `Crawl-delay: 10`,
    /// `X-Robots-Tag: noindex`, `robots.txt 5xx`.
    pub rule: String,
    /// The rule's line in robots.txt.
    pub rule_line: Option<u32>,
    /// The robots.txt version (file name or WARC date).
    pub robots_version: Option<String>,
    /// `gap 2s < 10s`; `referrer www.google.com; crawler fetched ...`.
    pub detail: String,
}

/// One finding (a row of `findings.csv`): reported, not a violation.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Finding {
    /// `spoofed-agent`, `no-robots-fetch`, `noindex-unseen`,
    /// `robots-noindex-line`, `unknown-host`.
    pub kind: &'static str,
    /// The site.
    pub host: String,
    /// The crawler identity, empty when none applies; for
    /// `noindex-unseen`, the crawlers' names, sorted, the first five then
    /// `and N more`.
    pub crawler: String,
    /// The URL, empty when none applies.
    pub url: String,
    /// How many requests (or lines) it covers; for `noindex-unseen`, how
    /// many crawler identities.
    pub count: u64,
    /// What was seen.
    pub detail: String,
}

/// A crawler identity's requests on one host, for the report's
/// per-crawler aggregation (polars adds these up over hosts).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct CrawlerActivity {
    /// The site.
    pub host: String,
    /// The crawler identity.
    pub crawler: String,
    /// Its operator, when known.
    pub operator: Option<String>,
    /// Its category.
    pub category: &'static str,
    /// Any request verified against published ranges: `Some(true)` when
    /// one was, `Some(false)` when all that could be checked failed,
    /// `None` when none could be checked.
    pub verified: Option<bool>,
    /// Requests in the window.
    pub requests: u64,
    /// Of them, fetches of `/robots.txt`.
    pub robots_txt_fetches: u64,
    /// The first request, UTC nanoseconds.
    pub first_seen: i64,
    /// The last request, UTC nanoseconds.
    pub last_seen: i64,
}

/// Combines two verification results as "any request verified" does.
pub(crate) fn any_verified(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x || y),
        (x, None) | (None, x) => x,
    }
}

/// What the replay found.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// Violations, sorted by time, host, crawler, url, kind.
    pub violations: Vec<Violation>,
    /// Findings, sorted by kind, host, crawler, url.
    pub findings: Vec<Finding>,
    /// Per crawler identity and host, its requests in the window; sorted
    /// by host, then crawler.
    pub activity: Vec<CrawlerActivity>,
    /// Requests by class.
    pub counts: Counts,
    /// The state to carry over to the next run (`--state`): the previous
    /// state with this run's hosts updated.
    pub state: State,
}

#[cfg(test)]
mod tests;

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
//! let ctx = Context::new(Snapshot::load(&[dir.clone()]).unwrap(), Catalogue::builtin(), IpRanges::default(), Settings::default());
//! std::fs::remove_dir_all(&dir).unwrap();
//! let format = Format::Combined.compile().unwrap();
//! let mut collector = Collector::new(&ctx);
//! let line = br#"192.0.2.7 - - [01/Nov/2026:10:00:00 +0000] "GET /cart/1 HTTP/1.1" 200 5 "-" "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)""#;
//! collector.record(&parse_line(&format, line).unwrap());
//! let outcome = replay(&ctx, vec![collector]);
//! assert_eq!(outcome.violations.len(), 1);
//! assert_eq!(outcome.violations.get(0).unwrap().rule(), "Disallow: /cart/");
//! ```

mod activity;
mod agents;
mod crawl_delay;
mod disallow;
mod findings;
mod gathered;
mod hosts;
mod judge;
mod kept;
mod kinds;
mod noindex;
mod split;
mod state;
mod violations;
mod wire;

use foldhash::{HashMap, HashMapExt};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, RwLock};

use crate::bots::{Catalogue, Crawler, IpRanges};
use crate::host::{normalize_host, split_authority};
use crate::logs::{Request, Sink};
use crate::shard::Shard;
use crate::snapshot::Snapshot;
use crate::time::HOUR;
use activity::{Activity, Step};
use hosts::Hosts;
use kept::{Charged, EngineFetch, Kept, Referral};

pub use disallow::Lookups;
pub(crate) use findings::merge_unknown_hosts;
pub use judge::{replay, replay_gathered, replay_parts};
pub use kinds::{FINDING_KINDS, FindingKind, VIOLATION_KINDS, ViolationKind};
pub use split::SplitCollector;
pub use state::{Fetch, LastRequest, State};
pub(crate) use state::{FetchRow, HostState};
pub(crate) use violations::TextColumn;
pub use violations::{ViolationRef, Violations};
pub use wire::WireError;

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

/// The most entries of a chunk's own caches (User-Agents, Referer hosts);
/// a full cache is emptied, and all are freed when the chunk is done (the
/// hosts met are a worker's, `hosts::Hosts`, bounded in proportion to the
/// snapshot).
const CHUNK_CACHE: usize = 4_096;

/// The fewest hosts for which a collector looks up each line's host a
/// line ahead ([`Sink::prefetch`]): below, the hosts' table stays in the
/// processor's nearest caches, and a one-host log pays nothing.
const PREFETCH_HOSTS: usize = 256;

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

/// What the previous run carried over: a state, or what gives it when
/// first needed ([`Context::with_state_loader`]).
enum Prior {
    Ready(State),
    Loading(Box<dyn FnOnce() -> State + Send>),
}

impl Prior {
    /// The state, loaded first if it is not yet.
    fn get(&mut self) -> &mut State {
        if let Prior::Loading(_) = self {
            if let Prior::Loading(load) = std::mem::replace(self, Prior::Ready(State::default())) {
                *self = Prior::Ready(load());
            }
        }
        match self {
            Prior::Ready(state) => state,
            Prior::Loading(_) => unreachable!("loaded above"),
        }
    }
}

impl std::fmt::Debug for Prior {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Prior::Ready(state) => f.debug_tuple("Ready").field(state).finish(),
            Prior::Loading(_) => f.write_str("Loading"),
        }
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
    /// Landing markers: (finder, engine id, marker), engines in catalogue
    /// order.
    markers: Vec<(memchr::memmem::Finder<'static>, String, String)>,
    /// What the previous run carried over (`--state`), until the ordered
    /// stage takes it ([`Context::take_state`]).
    state: Option<Mutex<Prior>>,
    /// Per snapshot host, what the per-request lookups need.
    host_rules: HashMap<Arc<str>, disallow::HostRules>,
    /// The snapshot's hosts by number (`HostRules::id`).
    host_names: Vec<Arc<str>>,
    /// The crawler identities met by the run, numbered as met (each chunk
    /// asks once per identity it meets).
    identities: RwLock<Numbered>,
    /// The hosts some crawler request was charged to that are not named
    /// as the snapshot names them, numbered as met (each worker asks once
    /// per host it charges): their requests are gathered by number, as
    /// the snapshot's hosts are, not by name.
    other_hosts: RwLock<Numbered>,
}

/// Names met by a run, numbered in the order met.
#[derive(Debug, Default)]
struct Numbered {
    ids: HashMap<Arc<str>, u32>,
    names: Vec<Arc<str>>,
}

impl Numbered {
    /// The number of `name` in `table`, given it when it has none.
    fn number(table: &RwLock<Numbered>, name: &Arc<str>) -> u32 {
        use std::sync::PoisonError;
        if let Some(&id) = table
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .ids
            .get(name)
        {
            return id;
        }
        let mut table = table.write().unwrap_or_else(PoisonError::into_inner);
        if let Some(&id) = table.ids.get(name) {
            return id;
        }
        let id = u32::try_from(table.names.len()).expect("fewer than 2^32 names");
        table.names.push(name.clone());
        table.ids.insert(name.clone(), id);
        id
    }

    /// The names of `table`, by number.
    fn names(table: &RwLock<Numbered>) -> Vec<Arc<str>> {
        table
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .names
            .clone()
    }
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
        let markers = catalogue
            .engines()
            .iter()
            .flat_map(|e| {
                e.landing_markers().iter().map(move |m| {
                    (
                        memchr::memmem::Finder::new(m.as_bytes()).into_owned(),
                        e.id().to_string(),
                        m.clone(),
                    )
                })
            })
            .collect();
        let host_names: Vec<Arc<str>> = snapshot.hosts().map(|(host, _)| host.into()).collect();
        let host_rules = host_names
            .iter()
            .enumerate()
            .map(|(id, host)| {
                let id = u32::try_from(id).expect("fewer than 2^32 hosts");
                (host.clone(), disallow::HostRules::of(&snapshot, host, id))
            })
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
            markers,
            state: None,
            host_rules,
            host_names,
            identities: RwLock::default(),
            other_hosts: RwLock::default(),
        }
    }

    /// The name of the snapshot's host numbered `id` (`HostRules::id`).
    pub(crate) fn host_name(&self, id: u32) -> &Arc<str> {
        &self.host_names[id as usize]
    }

    /// The run's number of the crawler identity `name`.
    fn identity_id(&self, name: &Arc<str>) -> u32 {
        Numbered::number(&self.identities, name)
    }

    /// The crawler identities numbered so far, by number
    /// ([`Charged::identity`]).
    pub(crate) fn identity_names(&self) -> Vec<Arc<str>> {
        Numbered::names(&self.identities)
    }

    /// The run's number of `host`, a host not named as the snapshot names
    /// it ([`kept::ChargedHost::Other`]).
    pub(crate) fn other_host_id(&self, host: &Arc<str>) -> u32 {
        Numbered::number(&self.other_hosts, host)
    }

    /// Calls `f` with the hosts [`Context::other_host_id`] numbered so
    /// far, by number, without copying the list (`f` must not number a
    /// host: the list is locked while it runs).
    pub(crate) fn with_other_host_names<R>(&self, f: impl FnOnce(&[Arc<str>]) -> R) -> R {
        f(&self
            .other_hosts
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .names)
    }

    /// How many hosts the snapshot describes (the lookups' bounds grow
    /// with it).
    pub(crate) fn host_count(&self) -> usize {
        self.host_rules.len()
    }

    /// What the per-request lookups need of `host` (normalized); `None`
    /// for a host the snapshot does not describe.
    pub(crate) fn host_rules(&self, host: &str) -> Option<&disallow::HostRules> {
        self.host_rules.get(host)
    }

    /// Continues from what a previous run carried over (`--state`): its
    /// crawlers' last requests and robots.txt fetches, and its engine
    /// crawlers' fetches. A replay takes it (its outcome holds the next
    /// night's): a context replays one night with it.
    pub fn with_state(mut self, state: State) -> Context {
        self.state = Some(Mutex::new(Prior::Ready(state)));
        self
    }

    /// As [`Context::with_state`], with a state that `load` gives when the
    /// replay first needs it: the collectors only ask whether there is
    /// one, so a state file can be read while the logs are (`load` may
    /// join the thread that reads it).
    pub fn with_state_loader(mut self, load: impl FnOnce() -> State + Send + 'static) -> Context {
        self.state = Some(Mutex::new(Prior::Loading(Box::new(load))));
        self
    }

    /// Sets the shard the ordered stage judges (`distributed::judge`: one
    /// context judges the shards of a task in turn); the collectors of a
    /// run read the shard of the context they were made with.
    pub fn set_shard(&mut self, shard: Option<Shard>) {
        self.settings.shard = shard;
    }

    /// Sets what the previous run carried over, or none; returns what was
    /// set before (what the replay left of it: it takes the state).
    pub fn replace_state(&mut self, state: Option<State>) -> Option<State> {
        std::mem::replace(&mut self.state, state.map(|s| Mutex::new(Prior::Ready(s)))).map(|m| {
            std::mem::take(
                m.into_inner()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .get(),
            )
        })
    }

    /// The run carries a state over (`--state`): it was given one, even
    /// an empty one.
    pub fn has_state(&self) -> bool {
        self.state.is_some()
    }

    /// Calls `f` with the carried-over state, if there is one (empty once
    /// a replay has taken it).
    pub fn with_prior_state<R>(&self, f: impl FnOnce(&State) -> R) -> Option<R> {
        self.state.as_ref().map(|m| {
            f(m.lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .get())
        })
    }

    /// Takes the carried-over state (the replay does: it moves each judged
    /// host's entries into the next state instead of copying them),
    /// leaving an empty one; `None` without `--state`.
    pub(crate) fn take_state(&self) -> Option<State> {
        self.state.as_ref().map(|m| {
            std::mem::take(
                m.lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .get(),
            )
        })
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

    /// The group a violation's rule belongs to, as its `User-agent`
    /// lines (`User-agent: GPTBot, ChatGPT-User`): looked up in robots.txt
    /// version `version` of `host` at `line`.
    pub fn rule_group(&self, host: &str, version: &str, line: u32) -> Option<String> {
        let timeline = self.snapshot.host(host)?;
        let v = timeline
            .robots_versions()
            .iter()
            .find(|v| v.name() == version)?;
        match v.answer() {
            crate::snapshot::RobotsAnswer::Rules(robots) => robots
                .agents_of_line(line)
                .map(|agents| format!("User-agent: {}", agents.join(", "))),
            _ => None,
        }
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

    /// The first landing marker the target carries (engines in catalogue
    /// order, each engine's markers in order): its index in `markers`.
    fn landing_marker(&self, target: &[u8]) -> Option<usize> {
        let mut text: Option<std::borrow::Cow<'_, str>> = None;
        self.markers.iter().position(|(finder, _, marker)| {
            if marker.is_ascii() {
                // An ASCII marker is in the bytes exactly when it is in
                // their lossy text: a replaced byte is never ASCII.
                finder.find(target).is_some()
            } else {
                text.get_or_insert_with(|| String::from_utf8_lossy(target))
                    .contains(marker.as_str())
            }
        })
    }
}

/// `bytes` as text, invalid UTF-8 replaced: `String::from_utf8_lossy`,
/// with faster checks first (log fields are nearly always ASCII, and this
/// runs three times for every crawler request): an inline ASCII check,
/// then the standard library's UTF-8 check.
#[inline]
fn lossy(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    if bytes.is_ascii() {
        // SAFETY: ASCII bytes are UTF-8.
        return std::borrow::Cow::Borrowed(unsafe { std::str::from_utf8_unchecked(bytes) });
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// The host of a Referer URL, lower case, without port; `android-app://`
/// referrers of the Google app count as `www.google.com`.
fn referer_host(referer: &[u8]) -> Option<std::borrow::Cow<'_, str>> {
    let text = std::str::from_utf8(referer).ok()?.trim();
    if text.starts_with("android-app://com.google.android.googlequicksearchbox") {
        return Some("www.google.com".into());
    }
    // The first `://` (as `str::split_once` finds it, with a searcher
    // built once).
    static SCHEME_END: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"://"));
    let after = SCHEME_END.find(text.as_bytes())? + 3;
    let (authority, _) = split_authority(&text[after..]);
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = match host.rsplit_once(':') {
        Some((h, port)) if port.bytes().all(|b| b.is_ascii_digit()) => h,
        _ => host,
    };
    if host.is_empty() {
        return None;
    }
    Some(if host.bytes().any(|b| b.is_ascii_uppercase()) {
        host.to_ascii_lowercase().into()
    } else {
        host.into()
    })
}

/// The identity violations are charged to: the crawler's name, or
/// `NAME (unverified)` for a request from outside its published ranges
/// (an impersonator, or, where the ranges were made too long before or
/// after the request to tell, a claim that cannot be verified: never the
/// real crawler's either way).
/// What a crawler's name is followed by in the identity of a request
/// from outside its published ranges (`Googlebot (unverified)`).
pub const UNVERIFIED_SUFFIX: &str = " (unverified)";

pub(crate) fn identity_of(crawler: &Crawler, outside_ranges: bool) -> String {
    if outside_ranges {
        format!("{}{UNVERIFIED_SUFFIX}", crawler.name())
    } else {
        crawler.name().to_string()
    }
}

/// Does the URL text after `scheme://` name `host` (its authority, any
/// case, with or without `www.` on either side)?
fn names_host(after_scheme: &[u8], host: &str) -> bool {
    let end = after_scheme
        .iter()
        .position(|&b| matches!(b, b'/' | b':' | b';' | b')' | b' ' | b'?' | b'#' | b','))
        .unwrap_or(after_scheme.len());
    let named = &after_scheme[..end];
    fn strip(v: &[u8]) -> &[u8] {
        match v.get(..4) {
            Some(w) if w.eq_ignore_ascii_case(b"www.") => &v[4..],
            _ => v,
        }
    }
    // A host with a port other than 80 and 443 (`example.com:8080`) is
    // named by its URL without one.
    let host = match host.rsplit_once(':') {
        Some((name, port)) if !name.contains(':') && port.bytes().all(|b| b.is_ascii_digit()) => {
            name
        }
        _ => host,
    };
    !named.is_empty() && strip(named).eq_ignore_ascii_case(strip(host.as_bytes()))
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
    /// The site's own requests (its server's internal connections, its
    /// load balancer's health checks, its CMS calling itself): counted,
    /// never judged.
    #[serde(rename = "self", default)]
    pub self_traffic: u64,
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
        self.self_traffic += o.self_traffic;
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
            self_traffic: self.self_traffic.checked_add(o.self_traffic)?,
            referred: self.referred.checked_add(o.referred)?,
            unjudged: self.unjudged.checked_add(o.unjudged)?,
            not_requests: self.not_requests.checked_add(o.not_requests)?,
            outside_window: self.outside_window.checked_add(o.outside_window)?,
            no_host: self.no_host.checked_add(o.no_host)?,
        })
    }
}

/// A crawler as a chunk met it, and its identity ids (the second: as an
/// impersonator).
#[derive(Debug)]
struct Met {
    crawler: Arc<Crawler>,
    /// The User-Agent it was first identified from (what names it in a
    /// chunk's part written for another process, `wire`).
    agent: Box<[u8]>,
    identity: [Option<u32>; 2],
    /// Its published ranges, gathered on its first request that needs
    /// them (`None` inside: none were loaded).
    ranges: Option<Option<crate::bots::RangeSet>>,
}

/// How a human request was referred: by an engine's result page (the
/// index of its referrer pattern) or by a landing marker in the target.
enum Referred {
    Page(usize),
    Marker(usize),
}

/// The sink of one log chunk: keeps what the replay needs (`Kept`).
/// Crawlers and identities are numbered as the chunk meets them, hosts as
/// the worker meets them (its chunks hand the table on), so that a request
/// costs a few lookups of small keys and no allocation unless it is kept.
#[derive(Debug)]
pub struct Collector<'c> {
    ctx: &'c Context,
    /// User-Agent to the crawler met and the User-Agent's text in
    /// `agent_texts` (`None`: a person).
    agents: agents::AgentCache<Option<(u32, u32)>>,
    /// The crawlers' User-Agents met, as text (invalid UTF-8 replaced):
    /// one shared copy for every violation row that names it.
    agent_texts: Vec<Arc<str>>,
    met: Vec<Met>,
    /// Crawlers met, by the address of their `Arc` (alive in `met`).
    met_by_address: HashMap<usize, u32>,
    /// Identity names, numbered.
    identities: Vec<Arc<str>>,
    identity_ids: HashMap<Arc<str>, u32>,
    /// Per identity numbered by the chunk, its number in the run.
    identity_run_ids: Vec<u32>,
    /// Host values as logged, to the host met (kept from chunk to chunk
    /// of a worker with the lookups).
    hosts: Hosts<'c>,
    /// Referer hosts to the referrer pattern they match.
    referers: HashMap<Box<str>, Option<usize>>,
    /// Short Referer values as logged (`-`, an engine's home page) to the
    /// referrer pattern their host matches: most referred visits skip
    /// reading the URL.
    referer_values:
        std::collections::HashMap<[u8; hosts::SHORT + 1], Option<usize>, hosts::ShortKeys>,
    /// The robots.txt lookups of the chunk.
    rules: disallow::Rules<'c>,
    /// Where the lookups go when the chunk is done, for the next chunk.
    lookups: Option<&'c disallow::Lookups<'c>>,
    /// (host, identity) to its entry of `charged`.
    charged_ids: HashMap<(u32, u32), usize>,
    /// With `--state`, by host number, the last referred visit's time.
    /// Handed to `kept` when the chunk is done or the numbers go void
    /// ([`Collector::flush_hosts`]).
    referred_until: hosts::ByHostNumber<Option<i64>, kept::ChargedHost>,
    /// By host number, the requests for a host the snapshot does not
    /// describe, handed to `kept` as `referred_until` is: counted by
    /// number, not looked up by name per request (a CDN log's thousands
    /// of hosts, when the snapshot describes none of them, made that
    /// lookup a fifth of the run).
    unknown_counts: hosts::ByHostNumber<u64>,
    /// What the chunk keeps for the ordered stage: its counts, Disallow
    /// violations, delayed requests' rows, per (host, identity) requests,
    /// engine crawlers' fetches and referred visits.
    kept: Kept,
}

impl<'c> Collector<'c> {
    /// A collector over `ctx`.
    pub fn new(ctx: &'c Context) -> Self {
        Collector {
            ctx,
            agents: agents::AgentCache::new(),
            agent_texts: Vec::new(),
            met: Vec::new(),
            met_by_address: HashMap::new(),
            identities: Vec::new(),
            identity_ids: HashMap::new(),
            identity_run_ids: Vec::new(),
            hosts: Hosts::default(),
            referers: HashMap::new(),
            referer_values: Default::default(),
            rules: disallow::Rules::new(ctx),
            lookups: None,
            charged_ids: HashMap::new(),
            referred_until: hosts::ByHostNumber::default(),
            unknown_counts: hosts::ByHostNumber::default(),
            kept: Kept::default(),
        }
    }

    /// A collector over `ctx` whose robots.txt lookups come from, and go
    /// back to, `lookups` (the audit makes one per chunk: a CDN log's
    /// thousands of hosts are then looked up about once per worker, not
    /// once per chunk).
    pub fn with_lookups(ctx: &'c Context, lookups: &'c disallow::Lookups<'c>) -> Self {
        let mut collector = Collector::new(ctx);
        let sizes;
        (collector.rules, collector.hosts, sizes) = lookups.take(ctx);
        // What the worker's last chunk kept, reserved at once: the next
        // chunk of the same log keeps about as much.
        collector.kept.reserve(&sizes);
        collector.charged_ids.reserve(sizes.charged);
        collector.lookups = Some(lookups);
        collector
    }

    /// What this collector counted.
    pub fn counts(&self) -> &Counts {
        self.kept.counts()
    }

    /// What the chunk kept, for the ordered stage.
    pub(crate) fn into_kept(mut self) -> Kept {
        self.flush_hosts();
        self.kept
    }

    /// Hands what is counted by the worker's host numbers to `kept`: the
    /// hosts' last referred visits (by the run's numbers), and the
    /// requests for hosts the snapshot does not describe (by name).
    pub(crate) fn flush_hosts(&mut self) {
        for (host, until) in self.referred_until.drain() {
            if let Some(t) = until {
                self.kept.refer_until(host, t);
            }
        }
        for (name, n) in self.unknown_counts.drain() {
            self.kept.unknown_hosts_mut().add(&name, n);
        }
    }

    /// Per crawler met (by the address of its `Arc`), a User-Agent it
    /// was identified from.
    fn agents_met(&self) -> HashMap<usize, Box<[u8]>> {
        self.met
            .iter()
            .map(|m| (Arc::as_ptr(&m.crawler) as usize, m.agent.clone()))
            .collect()
    }

    /// The crawler a User-Agent names, as met by this chunk, and the
    /// User-Agent's text (in `agent_texts`).
    fn identify(&mut self, ua: &[u8]) -> Option<(u32, u32)> {
        if let Some(hit) = self.agents.get(ua) {
            return hit;
        }
        let found = self.ctx.identify_shared(ua).map(|crawler| {
            let address = Arc::as_ptr(&crawler) as usize;
            match self.met_by_address.get(&address) {
                Some(&m) => m,
                None => {
                    let m = self.met.len() as u32;
                    self.met.push(Met {
                        crawler,
                        agent: ua.into(),
                        identity: [None; 2],
                        ranges: None,
                    });
                    self.met_by_address.insert(address, m);
                    m
                }
            }
        });
        if self.agents.len() >= CHUNK_CACHE {
            self.agents.clear();
            self.agent_texts.clear();
        }
        let found = found.map(|m| {
            self.agent_texts.push(String::from_utf8_lossy(ua).into());
            (m, (self.agent_texts.len() - 1) as u32)
        });
        self.agents.insert(ua, found);
        found
    }

    /// Is this request of crawler `m` the site's own? Crawlers of the
    /// `self` category always are; an HTTP library or an unnamed bot is
    /// when its User-Agent carries the URL of the very host it requests
    /// (`WordPress/6.8; https://example.com` calling example.com), `www.`
    /// aside; and a request for one of the crawler's `self_paths` (WordPress's
    /// `/wp-cron.php`), which only the site itself makes.
    fn is_self(&self, m: u32, request: &Request<'_>, h: u32) -> bool {
        let crawler = &self.met[m as usize].crawler;
        if crawler.category() == crate::bots::Category::SelfTraffic {
            return true;
        }
        // A path only the site itself requests with this client (WordPress
        // starts its own cron by posting to its wp-cron.php), whatever
        // host the log names.
        let target = request.target();
        if crawler
            .self_paths()
            .iter()
            .any(|p| target.starts_with(p.as_bytes()))
        {
            return true;
        }
        // Only a library or an unnamed bot is the site's own software
        // (WordPress's HTTP API is a library); a named crawler is not.
        if !matches!(
            crawler.category(),
            crate::bots::Category::Library | crate::bots::Category::Other
        ) || crawler.engine().is_some()
            || !crawler.ip_range_files().is_empty()
        {
            return false;
        }
        /// `://`, found without setting up a search per request.
        static SCHEME: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
            std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"://"));
        let ua = request.user_agent();
        let Some(at) = SCHEME.find(ua) else {
            return false;
        };
        names_host(&ua[at + 3..], &self.hosts.slot(h).name)
    }

    /// The identity of crawler `m` (`NAME (unverified)` for a request from
    /// outside its published ranges), numbered by name.
    fn identity(&mut self, m: u32, outside_ranges: bool) -> u32 {
        let slot = usize::from(outside_ranges);
        if let Some(id) = self.met[m as usize].identity[slot] {
            return id;
        }
        let name = identity_of(&self.met[m as usize].crawler, outside_ranges);
        let id = match self.identity_ids.get(name.as_str()) {
            Some(&id) => id,
            None => {
                let id = self.identities.len() as u32;
                let name: Arc<str> = name.into();
                self.identity_run_ids.push(self.ctx.identity_id(&name));
                self.identities.push(name.clone());
                self.identity_ids.insert(name, id);
                id
            }
        };
        self.met[m as usize].identity[slot] = Some(id);
        id
    }

    /// The request's host, as met by this chunk; `None` when the line has
    /// none and there is no default.
    fn host(&mut self, request: &Request<'_>) -> Option<u32> {
        // Lines without a host are cached under the empty value.
        let (raw, default) = match request.host() {
            Some(raw) => (raw, None),
            None => (&b""[..], Some(self.ctx.default_host.as_deref()?)),
        };
        let (h, emptied) = self.hosts.get(self.ctx, raw, default);
        if emptied {
            // The numbers in the keys are void.
            self.charged_ids.clear();
            self.flush_hosts();
        }
        Some(h)
    }

    /// Keeps a crawler request: its Disallow judged here, its activity
    /// added up, and its steps kept where a Crawl-delay may apply.
    fn keep(&mut self, request: &Request<'_>, h: u32, m: u32, agent: u32) {
        let t = request.time();
        let ctx = self.ctx;
        // Verified against the crawler's published ranges (as
        // `Catalogue::verify`, with the ranges gathered once per chunk).
        let (verified, outside_ranges) = {
            let met = &mut self.met[m as usize];
            if met.crawler.ip_range_files().is_empty() {
                (None, false)
            } else {
                let crawler = &met.crawler;
                match met
                    .ranges
                    .get_or_insert_with(|| ctx.ranges.union(crawler.ip_range_files()))
                {
                    // Outside ranges made long before or after the request
                    // is no proof of an impostor: unverified (null), and
                    // still not charged to the real crawler.
                    Some(set) => match request.client_ip() {
                        Some(ip) if set.contains(ip) => (Some(true), false),
                        Some(_) if set.is_current_at(t) => (Some(false), true),
                        Some(_) => (None, true),
                        None => (None, false),
                    },
                    None => (None, false),
                }
            }
        };
        let id = self.identity(m, outside_ranges);
        let charged_host = self.hosts.charged(ctx, h);
        let Collector {
            met,
            hosts,
            identities,
            identity_run_ids,
            rules,
            charged_ids,
            kept,
            agent_texts,
            ..
        } = self;
        let agent = &agent_texts[agent as usize];
        let crawler = &met[m as usize].crawler;
        let slot = hosts.slot(h);
        let target = lossy(request.target());
        let path = judge::path_of(&target);
        let robots_txt = judge::is_robots_txt(&path);
        let client = lossy(request.client());
        let method = lossy(request.method());
        let status = request.status();
        let judged = rules.judge(
            &disallow::Hit {
                host: &slot.name,
                rules: slot.rules,
                head: slot.head,
                time: t,
                crawler,
                identity: &identities[id as usize],
                verified,
                outside_ranges,
                path: &path,
                robots_txt,
                client: &client,
                method: &method,
                url: &target,
                status,
                user_agent: agent,
            },
            kept.disallowed_mut(),
        );
        if !judged.judged {
            kept.counts_mut().unjudged += 1;
        }
        // Only an engine's crawler's fetches are evidence for a referral
        // (never one from outside its ranges, current or not),
        // and only of a page the snapshot has rules for (the next night's
        // snapshot may have others: with `--state`, all are kept).
        if !outside_ranges
            && (200..300).contains(&status)
            && !robots_txt
            && crawler.engine().is_some()
            && (ctx.state.is_some()
                || (hosts.has_pages(h) && slot.rules.is_some_and(|r| r.has_page(&path))))
        {
            kept.push_fetch(
                charged_host,
                EngineFetch::new(
                    crawler.clone(),
                    path.to_string(),
                    Fetch {
                        time: t,
                        verified,
                        client: rules.shared(&client),
                        method: rules.shared(&method),
                        status,
                    },
                ),
            );
        }
        let seen = activity::Seen {
            crawler,
            time: t,
            resolution: request.resolution(),
            verified,
            robots_txt,
            client: &client,
            agent,
        };
        let i = match charged_ids.get(&(h, id)) {
            Some(&i) => i,
            None => {
                let steps = judged.may_delay;
                let i = kept.charge(Charged::new(
                    charged_host,
                    identity_run_ids[id as usize],
                    Activity::new(&seen, steps),
                ));
                charged_ids.insert((h, id), i);
                i
            }
        };
        let (activity, delayed) = kept.charged_activity(i);
        debug_assert!(
            judged.delay.is_none() || activity.keeps_steps(),
            "a crawl delay applies where none was foreseen"
        );
        activity.add(&seen, || {
            Step::new(
                t,
                request.resolution(),
                judged.delay.and_then(|seconds| {
                    let (client, method) = (rules.shared(&client), rules.shared(&method));
                    delayed.push(
                        seconds, crawler, verified, &client, &method, agent, &target, status,
                    )
                }),
            )
        });
    }

    /// The engine whose result page a Referer is, or whose landing marker
    /// the target carries.
    fn referred(&mut self, referer: &[u8], target: &[u8]) -> Option<Referred> {
        // A Referer of three bytes or fewer (`-`, most lines' value, or
        // none) holds no `scheme://host`: it names no page, and is not
        // looked up.
        let page = if referer.len() <= 3 {
            None
        } else {
            match hosts::short_key(referer) {
                Some(key) => match self.referer_values.get(&key) {
                    Some(&page) => page,
                    None => {
                        let page = self.referrer_page(referer);
                        if self.referer_values.len() >= CHUNK_CACHE {
                            self.referer_values.clear();
                        }
                        self.referer_values.insert(key, page);
                        page
                    }
                },
                None => self.referrer_page(referer),
            }
        };
        match page {
            Some(i) => Some(Referred::Page(i)),
            None => self.ctx.landing_marker(target).map(Referred::Marker),
        }
    }

    /// The referrer pattern (an engine's result pages) the Referer's host
    /// matches.
    fn referrer_page(&mut self, referer: &[u8]) -> Option<usize> {
        let host = referer_host(referer)?;
        if let Some(found) = self.referers.get(host.as_ref()) {
            return *found;
        }
        let found = self
            .ctx
            .referrers
            .iter()
            .position(|(re, _)| re.is_match(&host));
        if self.referers.len() >= CHUNK_CACHE {
            self.referers.clear();
        }
        self.referers.insert(host.as_ref().into(), found);
        found
    }

    /// Counts a human request, and keeps it when a search engine or
    /// assistant referred it to a page the snapshot has rules for.
    fn human(&mut self, request: &Request<'_>, h: u32) {
        let Some(referred) = self.referred(request.referer(), request.target()) else {
            return;
        };
        self.kept.counts_mut().referred += 1;
        let t = request.time();
        if self.ctx.state.is_some() {
            // By the host's number: no hashing per visit.
            let (hosts, ctx) = (&mut self.hosts, self.ctx);
            let until = self.referred_until.entry(h, || hosts.charged(ctx, h));
            *until = (*until).max(Some(t));
        }
        // A host without rules for any page has no page a referral could
        // be evidence for (its flags say so: neither its slot nor its
        // rules are read).
        if !self.hosts.has_pages(h) {
            return;
        }
        let Some(rules) = self.hosts.slot(h).rules else {
            return;
        };
        let target = lossy(request.target());
        let url = judge::path_of(&target);
        let page = rules.has_page(&url)
            || judge::without_tracking(&url).is_some_and(|u| rules.has_page(&u));
        if !page {
            return;
        }
        let (engine, via) = match referred {
            Referred::Page(i) => (
                self.ctx.referrers[i].1.clone(),
                // The host again: only the rare referral kept names it.
                referer_host(request.referer())
                    .map(std::borrow::Cow::into_owned)
                    .unwrap_or_default(),
            ),
            Referred::Marker(i) => {
                let (_, engine, marker) = &self.ctx.markers[i];
                (engine.clone(), format!("landing marker {marker}"))
            }
        };
        let host = self.hosts.charged(self.ctx, h);
        self.kept
            .push_referral(host, Referral::new(t, target.into(), engine, via));
    }
}

impl Sink for Collector<'_> {
    /// A snapshot of many hosts, or a log of many (met in the worker's
    /// chunks so far): their table outgrows the processor's nearest
    /// caches, and each line's host is fetched a line ahead.
    fn prefetches(&self) -> bool {
        self.ctx.host_count().max(self.hosts.len()) >= PREFETCH_HOSTS
    }

    fn prefetch(&self, request: &Request<'_>) {
        if let Some(raw) = request.host() {
            self.hosts.prefetch(raw);
        }
    }

    fn record(&mut self, request: &Request<'_>) {
        let host = self.host(request);
        if let Some(shard) = self.ctx.settings.shard {
            let owned = match host {
                Some(h) => self.hosts.slot(h).owned,
                None => shard.owns(None),
            };
            if !owned {
                return;
            }
        }
        self.kept.counts_mut().requests += 1;
        if !request.is_valid_request() {
            self.kept.counts_mut().not_requests += 1;
            return;
        }
        let settings = &self.ctx.settings;
        let t = request.time();
        if settings.since.is_some_and(|s| t < s) || settings.until.is_some_and(|u| t >= u) {
            self.kept.counts_mut().outside_window += 1;
            return;
        }
        let Some(h) = host else {
            self.kept.counts_mut().no_host += 1;
            return;
        };
        if !self.hosts.described(h) {
            let hosts = &self.hosts;
            *self.unknown_counts.entry(h, || hosts.slot(h).name.clone()) += 1;
        }
        match self.identify(request.user_agent()) {
            Some((m, _)) if self.is_self(m, request, h) => {
                self.kept.counts_mut().self_traffic += 1;
            }
            Some((m, agent)) => {
                self.kept.counts_mut().crawler += 1;
                self.keep(request, h, m, agent);
            }
            None => {
                self.kept.counts_mut().human += 1;
                self.human(request, h);
            }
        }
    }

    /// Hands the chunk's activities and unknown hosts to the lookups, when
    /// they gather ([`disallow::Lookups::gathering`]): the reader accepts
    /// chunks in file order, and what a chunk held per (host, identity) is
    /// then freed instead of kept until the end of the run.
    fn accept(&mut self) {
        if let Some(lookups) = self.lookups {
            lookups.gather(&mut self.kept);
        }
    }

    /// Frees the chunk's caches and hands its unknown hosts to the run, so
    /// that a collector kept until the replay holds only its evidence.
    fn finish(&mut self) {
        self.flush_hosts();
        self.kept.delayed_mut().seal();
        self.agents = agents::AgentCache::new();
        self.agent_texts = Vec::new();
        self.met = Vec::new();
        self.met_by_address = HashMap::new();
        self.identities = Vec::new();
        self.identity_ids = HashMap::new();
        self.identity_run_ids = Vec::new();
        self.referers = HashMap::new();
        self.referer_values = Default::default();
        self.charged_ids = HashMap::new();
        match self.lookups {
            Some(lookups) => {
                let rules = std::mem::replace(&mut self.rules, disallow::Rules::new(self.ctx));
                lookups.give_back(rules, std::mem::take(&mut self.hosts), self.kept.sizes());
            }
            None => {
                self.rules.clear();
                self.hosts.clear();
            }
        }
        // Gathering lookups take them when the reader accepts the chunk
        // (a chunk past a fault is dropped, its hosts with it).
        if self.lookups.is_some_and(disallow::Lookups::gathers) {
            return;
        }
        let unknown = self.kept.take_unknown_hosts();
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

/// Sorts violations by time, host, crawler, url, kind and findings by kind,
/// host, crawler, url, as the report lists them. The sorts are stable (and
/// parallel).
pub fn sort_rows(violations: &mut Violations, findings: &mut [Finding]) {
    violations.sort();
    sort_findings(findings);
}

/// Sorts findings by kind, host, crawler, url, as the report lists them
/// (stable, and parallel).
pub(crate) fn sort_findings(findings: &mut [Finding]) {
    use rayon::slice::ParallelSliceMut;
    findings.par_sort_by(|a, b| {
        (a.kind.as_str(), &a.host, &a.crawler, &a.url).cmp(&(
            b.kind.as_str(),
            &b.host,
            &b.crawler,
            &b.url,
        ))
    });
}

/// One violation (a row of `violations.csv`). Its repeated cells are
/// shared text ([`crate::text::Interner`]): a table of millions of rows
/// holds each host, crawler, rule and version once.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Violation {
    /// Request time, UTC nanoseconds.
    pub time: i64,
    /// The site.
    pub host: Arc<str>,
    /// The crawler identity (`Googlebot`, `Googlebot (unverified)`).
    pub crawler: Arc<str>,
    /// Verified against published ranges; `None` when none are known.
    pub verified: Option<bool>,
    /// The client address (for noindex evidence, the crawler's fetch).
    pub client_ip: Arc<str>,
    /// What the crawler did.
    pub kind: ViolationKind,
    /// The request method.
    pub method: Arc<str>,
    /// Path and query as logged.
    pub url: String,
    /// The response status.
    pub status: u16,
    /// The rule: `Disallow: /private/`, `Crawl-delay: 10`,
    /// `X-Robots-Tag: noindex`, `robots.txt 5xx`.
    pub rule: Arc<str>,
    /// The rule's line in robots.txt.
    pub rule_line: Option<u32>,
    /// The robots.txt version (file name or WARC date).
    pub robots_version: Option<Arc<str>>,
    /// `gap 2s < 10s`; `referrer www.google.com; crawler fetched ...`.
    pub detail: Arc<str>,
    /// The User-Agent as sent; `None` for `noindex` and
    /// `unavailable-after` evidence (a referral, not the crawler's request).
    pub user_agent: Option<Arc<str>>,
}

/// One finding (a row of `findings.csv`): reported, not a violation.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Finding {
    /// What it reports.
    pub kind: FindingKind,
    /// The site (shared: the rows of a host hold one copy).
    pub host: Arc<str>,
    /// The crawler identity, empty when none applies; for
    /// `noindex-unseen`, the crawlers' names, sorted, the first five then
    /// `and N more` (shared: the catalogue's copy of a crawler's name).
    pub crawler: Arc<str>,
    /// The URL, empty when none applies.
    pub url: String,
    /// A User-Agent the requests sent (the first request's), empty when
    /// none applies (shared: the copy the collector kept).
    pub user_agent: Arc<str>,
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
    /// The site (shared: the rows of a host hold one copy).
    pub host: Arc<str>,
    /// The crawler identity (shared: the catalogue's copy).
    pub crawler: Arc<str>,
    /// Its operator, when known (shared: the catalogue's copy).
    pub operator: Option<Arc<str>>,
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
    /// The User-Agent of its first request with an address (shared: the
    /// copy the collector kept).
    pub user_agent: Arc<str>,
    /// Its requests per UTC day: (days since 1970-01-01, requests), by
    /// day.
    pub days: Vec<(i64, u64)>,
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
    pub violations: Violations,
    /// Findings, sorted by kind, host, crawler, url.
    pub findings: Vec<Finding>,
    /// Per crawler identity and host, its requests in the window; sorted
    /// by host, then crawler.
    pub activity: Vec<CrawlerActivity>,
    /// Requests by class.
    pub counts: Counts,
    /// The category and operator of crawlers charged with violations
    /// without a request in the run (a referral tonight, the crawler's
    /// fetch on an earlier night, from `--state`).
    pub charged_without_requests: BTreeMap<String, (&'static str, Option<String>)>,
    /// The state to carry over to the next run (`--state`): the previous
    /// state with this run's hosts updated.
    pub state: State,
}

#[cfg(test)]
mod tests;

//! Disallow, judged in the parallel pass: a verdict depends only on the
//! host, the crawler, the path and the time, so each chunk's collector
//! decides it for its own requests, against policies looked up once per
//! cache window and groups selected once per robots.txt version and
//! crawler ([`Rules`]).

use std::sync::{Arc, Mutex};

use foldhash::{HashMap, HashMapExt};

use super::findings::UserTriggered;
use super::gathered::Gathered;
use super::hosts::Hosts;
use super::kept::{Kept, Sizes};
use super::violations::Cells;
use super::{Context, ViolationKind, Violations};

/// The fewest entries each map of a worker's robots.txt lookups
/// ([`Rules`]) holds before it is emptied; a snapshot of many hosts raises
/// the bound to [`ENTRIES_PER_HOST`] per host, so that a CDN log's hosts
/// and their crawlers are each looked up about once per worker (memory
/// then grows with hosts times crawlers, what is unique, never with
/// requests).
const RULES_CACHE: usize = 1 << 16;

/// Entries per snapshot host that each map of [`Rules`] may hold: room
/// for the crawlers of a busy host in a window or two.
const ENTRIES_PER_HOST: usize = 32;
use crate::bots::Crawler;
use crate::robots::Group;
use crate::snapshot::{Policy, RobotsVersion};
use crate::text::Interner;
use crate::time::{format_seconds, format_time};

/// What the snapshot says of one host, for the per-request lookups: is it
/// judged at all, when its first robots.txt version starts, and the
/// instants at which its policy may change
/// ([`crate::snapshot::Snapshot::policy_change_points`]).
#[derive(Debug)]
pub(crate) struct HostRules {
    /// The host's number in the snapshot (the context's host names).
    id: u32,
    judged: bool,
    first_known: i64,
    points: Vec<i64>,
    /// The pages the snapshot has rules for (a referral to another page
    /// can never be a noindex violation).
    pages: foldhash::HashSet<Box<str>>,
}

impl HostRules {
    /// The rules of `host` in `snapshot`, the host numbered `id`.
    pub(crate) fn of(snapshot: &crate::snapshot::Snapshot, host: &str, id: u32) -> HostRules {
        HostRules {
            id,
            judged: snapshot.is_judged(host),
            first_known: snapshot.first_known(host).unwrap_or(i64::MAX),
            points: snapshot.policy_change_points(host),
            pages: snapshot
                .host(host)
                .map(|t| t.pages().keys().map(|u| u.as_str().into()).collect())
                .unwrap_or_default(),
        }
    }

    /// The host's number in the snapshot.
    pub(crate) fn id(&self) -> u32 {
        self.id
    }

    /// Does the snapshot have rules for this page (path and query)? (An
    /// empty set answers without hashing; callers on the hot path ask the
    /// host table's copy of [`HostRules::has_pages`] first
    /// (`hosts::Hosts::has_pages`), so that the rules are not read at
    /// all.)
    pub(crate) fn has_page(&self, url: &str) -> bool {
        self.pages.contains(url)
    }

    /// Does the snapshot have rules for some page of the host?
    pub(crate) fn has_pages(&self) -> bool {
        !self.pages.is_empty()
    }

    /// What every request of the host reads of them ([`RulesHead`]).
    pub(crate) fn head(&self) -> RulesHead<'_> {
        RulesHead {
            points: &self.points,
            first_known: self.first_known,
        }
    }
}

/// The parts of a host's [`HostRules`] that every request of the host
/// reads, copied into each worker's slot for the host
/// (`hosts::HostSlot`): a CDN log's lines each name one of thousands of
/// hosts, and the shared rules of the line's host are mostly not in the
/// processor's caches when the request is judged. The slot is read for
/// every line anyway, so the copy costs no load of its own; the rules
/// themselves are read only when a request's selection is made.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct RulesHead<'c> {
    /// When the policies in force change ([`HostRules`]' change points).
    pub(crate) points: &'c [i64],
    /// When the first known robots.txt version begins.
    pub(crate) first_known: i64,
}

/// A request's judgement of Disallow and what it leaves for the ordered
/// stage.
pub(crate) struct Judged {
    /// Some robots.txt version was in force in its cache window.
    pub(crate) judged: bool,
    /// The smallest Crawl-delay (seconds) among the versions it may have
    /// cached, when it is judged and its window does not reach back before
    /// the first known version; `None` when a version asks for none.
    pub(crate) delay: Option<f64>,
    /// May a Crawl-delay apply to the crawler's name on the host at all
    /// ([`Rules::may_delay`]), read from the selection the request looked
    /// up (no lookup of its own).
    pub(crate) may_delay: bool,
}

/// A request to judge.
pub(crate) struct Hit<'a> {
    pub(crate) host: &'a Arc<str>,
    /// What the snapshot says of the host; `None` when it does not
    /// describe it.
    pub(crate) rules: Option<&'a HostRules>,
    /// What every request reads of `rules` (the default without them).
    pub(crate) head: RulesHead<'a>,
    pub(crate) time: i64,
    pub(crate) crawler: &'a Arc<Crawler>,
    pub(crate) identity: &'a Arc<str>,
    pub(crate) verified: Option<bool>,
    /// From outside the crawler's published ranges (an impersonator, or
    /// ranges too old or too new to tell).
    pub(crate) outside_ranges: bool,
    pub(crate) path: &'a str,
    pub(crate) robots_txt: bool,
    pub(crate) client: &'a str,
    pub(crate) method: &'a str,
    pub(crate) url: &'a str,
    pub(crate) status: u16,
    /// The User-Agent as sent, as text (read only for a violation).
    pub(crate) user_agent: &'a Arc<str>,
}

/// The group a policy selects for a crawler ([`Policy::group_for`]).
fn group_of<'c>(policy: &Policy<'c>, crawler: &Crawler) -> Option<Group<'c>> {
    let tokens: Vec<&str> = crawler.tokens().iter().map(String::as_str).collect();
    policy.group_for(&tokens, crawler.obeys_global())
}

/// The group `policy` selects for `crawler`, and the crawl delay it asks
/// of it in seconds: none for a crawler whose operator documents that it
/// does not support Crawl-delay (Google's).
fn group_and_delay<'c>(policy: &Policy<'c>, crawler: &Crawler) -> (Option<Group<'c>>, Option<f64>) {
    let group = group_of(policy, crawler);
    let delay = group
        .as_ref()
        .filter(|_| !crawler.ignores_crawl_delay())
        .and_then(|g| g.crawl_delay())
        .map(|d| d.seconds());
    (group, delay)
}

/// A worker's lookups of robots.txt rules: the policies of each cache
/// window, the group each policy selects for a crawler, and its
/// Crawl-delay. Each map is emptied when it reaches its limit
/// ([`RULES_CACHE`] entries, or [`ENTRIES_PER_HOST`] per snapshot host).
pub(crate) struct Rules<'c> {
    ctx: &'c Context,
    /// Entries each map holds before it is emptied.
    limit: usize,
    /// Per (host, by the address of its [`HostRules`] in the context;
    /// change points at or before the window's start; at or before its
    /// end): the policies in force in the window.
    windows: HashMap<(usize, usize, usize), Arc<Window<'c>>>,
    /// Per window (as `windows` names them) and crawler (by address): the
    /// groups selected, held in the map itself (a request reads its
    /// selection where the lookup lands: no reference count touched, no
    /// pointer followed for a window of one policy).
    selections: HashMap<(usize, usize, usize, usize), Selection<'c>>,
    /// Per (version, crawler): the group selected, the crawl delay, and
    /// the crawler, kept so that its address is not reused while cached.
    groups: HashMap<(usize, usize), Selected<'c>>,
    /// Per (host, by the address of its [`HostRules`]; crawler, by
    /// address): may a Crawl-delay apply to that crawler's name there
    /// ([`Rules::may_delay`])? The crawler is kept so that its address is
    /// not reused while cached.
    delays: HashMap<(usize, usize), (bool, Arc<Crawler>)>,
    /// Per host (by the address of its [`HostRules`]): every policy it
    /// ever has, which [`Rules::may_delay`] reads for each crawler met
    /// there (looked up in the snapshot once per host, not per crawler).
    always: HashMap<usize, Arc<[Policy<'c>]>>,
    /// The violations' repeated cells, shared (emptied at the maps'
    /// limit, as the maps are).
    texts: Interner,
    /// The cells made from the snapshot's rules and versions, by what
    /// they are made of (emptied with `texts`).
    cells: HashMap<Cell, Arc<str>>,
}

/// A cache window's policies with the groups they select for one
/// crawler, their smallest crawl delay, and which is in force at the end.
struct Selection<'c> {
    window: Arc<Window<'c>>,
    /// A window of one policy (the common case): that policy and the
    /// group it selects, held here.
    single: Option<(Policy<'c>, Option<Group<'c>>)>,
    groups: Vec<Option<Group<'c>>>,
    delay: Option<f64>,
    now: Option<usize>,
    /// [`Rules::may_delay`] of the host and crawler.
    may_delay: bool,
    /// Kept so that its address, part of the key, is not reused.
    _crawler: Arc<Crawler>,
}

/// The policies in force during a cache window, and the one in force at
/// its end.
struct Window<'c> {
    policies: Vec<Policy<'c>>,
    now: Option<Policy<'c>>,
}

/// What a violation's repeated cell is made of (rules and versions by
/// their address in the snapshot, which outlives the lookups).
#[derive(Clone, Copy, Hash, PartialEq, Eq)]
enum Cell {
    /// A rule's `Disallow: /path` text.
    Rule(usize),
    /// A version's name.
    Version(usize),
    /// The rule of a 5xx answer's disallow-all.
    Unavailable,
    /// "robots.txt answered 5xx since ..." of a version.
    Answered(usize),
    /// "disallowed by all N robots.txt versions of the last ...".
    AllOf(usize),
    /// No detail.
    Empty,
}

/// A group selected for a crawler, its crawl delay, and the crawler.
type Selected<'c> = (Option<Group<'c>>, Option<f64>, Arc<Crawler>);

impl std::fmt::Debug for Rules<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rules")
            .field("windows", &self.windows.len())
            .field("groups", &self.groups.len())
            .finish()
    }
}

/// Lookups handed from one chunk's collector to the next on the same
/// worker ([`super::Collector::with_lookups`]): the robots.txt lookups
/// (`Rules`) and the hosts met (`Hosts`). With thousands of hosts a
/// chunk would otherwise normalize every host's name and look its
/// policies and groups up anew. Each map stays bounded (65,536 entries,
/// or more in proportion to the snapshot's hosts).
///
/// Made by [`Lookups::gathering`], they also gather the crawler
/// identities' requests per host of each chunk the reader accepts, in
/// file order ([`crate::logs::Sink::accept`]), for
/// [`super::replay_gathered`].
#[derive(Debug, Default)]
pub struct Lookups<'c> {
    kept: Mutex<Vec<(Rules<'c>, Hosts<'c>, Sizes)>>,
    gathered: Option<Mutex<Gathered>>,
}

impl<'c> Lookups<'c> {
    /// Lookups that also gather the accepted chunks' activities.
    pub fn gathering() -> Self {
        Lookups {
            kept: Mutex::default(),
            gathered: Some(Mutex::default()),
        }
    }

    /// Lookups over `ctx`: those kept from a finished chunk, with how much
    /// that chunk kept, or new ones.
    pub(crate) fn take(&self, ctx: &'c Context) -> (Rules<'c>, Hosts<'c>, Sizes) {
        self.kept
            .lock()
            .ok()
            .and_then(|mut kept| kept.pop())
            .unwrap_or_else(|| (Rules::new(ctx), Hosts::default(), Sizes::default()))
    }

    /// Frees the lookups kept (the chunks are all read).
    pub fn free(&self) {
        let kept = match self.kept.lock() {
            Ok(mut kept) => std::mem::take(&mut *kept),
            Err(_) => return,
        };
        drop(kept);
    }

    /// Keeps a finished chunk's lookups, and how much it kept (`sizes`),
    /// for the next chunk.
    pub(crate) fn give_back(&self, rules: Rules<'c>, hosts: Hosts<'c>, sizes: Sizes) {
        if let Ok(mut kept) = self.kept.lock() {
            kept.push((rules, hosts, sizes));
        }
    }

    /// Gathers the activities of a chunk that comes after those gathered
    /// (file order), when these lookups gather.
    pub(crate) fn gather(&self, kept: &mut Kept) {
        if let Some(gathered) = &self.gathered {
            gathered
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .gather(kept);
        }
    }

    /// Do they gather the accepted chunks' activities?
    pub(crate) fn gathers(&self) -> bool {
        self.gathered.is_some()
    }

    /// The activities gathered so far, taken.
    pub(crate) fn take_gathered(&self) -> Gathered {
        self.gathered
            .as_ref()
            .map(|g| {
                std::mem::take(&mut *g.lock().unwrap_or_else(std::sync::PoisonError::into_inner))
            })
            .unwrap_or_default()
    }
}

impl<'c> Rules<'c> {
    /// Empty lookups over `ctx`.
    pub(crate) fn new(ctx: &'c Context) -> Self {
        Rules {
            ctx,
            limit: RULES_CACHE.max(ENTRIES_PER_HOST.saturating_mul(ctx.host_count())),
            windows: HashMap::new(),
            selections: HashMap::new(),
            groups: HashMap::new(),
            delays: HashMap::new(),
            always: HashMap::new(),
            texts: Interner::default(),
            cells: HashMap::new(),
        }
    }

    /// Frees the lookups.
    pub(crate) fn clear(&mut self) {
        self.windows = HashMap::new();
        self.selections = HashMap::new();
        self.groups = HashMap::new();
        self.delays = HashMap::new();
        self.always = HashMap::new();
        self.texts = Interner::default();
        self.cells = HashMap::new();
    }

    /// The chunk's shared copy of `text` (a client address, a method), as
    /// the violation rows hold them.
    pub(crate) fn shared(&mut self, text: &str) -> Arc<str> {
        self.bound_texts();
        self.texts.get(text)
    }

    /// Empties the shared texts, and the cells made of them, when they
    /// reach the maps' limit (the rows keep their copies).
    fn bound_texts(&mut self) {
        if self.texts.len() >= self.limit {
            self.texts = Interner::default();
            self.cells.clear();
        }
    }

    /// May a Crawl-delay apply on `host` to a crawler named as `crawler` is:
    /// does some policy the host ever has give it a group with a
    /// Crawl-delay? Decided by name, not by crawler (the answer is cached
    /// by name, and `crawler`'s own groups come from the lookups the
    /// requests use), because one identity may gather
    /// several crawlers of one name (the catalogue's, and the heuristic's
    /// for a User-Agent the catalogue does not know): either's tokens
    /// count. When the answer is no, no request of the identity on the host
    /// can break a delay, and its requests need not be kept in order.
    fn may_delay(&mut self, rules: &HostRules, host: &str, crawler: &Arc<Crawler>) -> bool {
        if !rules.judged {
            return false;
        }
        let key = (
            rules as *const HostRules as usize,
            Arc::as_ptr(crawler) as usize,
        );
        if let Some((answer, _)) = self.delays.get(&key) {
            return *answer;
        }
        let policies = self.always(rules, host);
        let answer = self.may_delay_in(&policies, crawler, |rules| {
            policies
                .iter()
                .any(|policy| rules.group(policy, crawler).1.is_some())
        });
        if self.delays.len() >= self.limit {
            self.delays.clear();
        }
        self.delays.insert(key, (answer, crawler.clone()));
        answer
    }

    /// [`Rules::may_delay`] for a host whose every policy is one of
    /// `policies`; `own` says whether the crawler's own groups in them ask
    /// for a delay (looked up only when some group of theirs asks for
    /// one).
    fn may_delay_in(
        &mut self,
        policies: &[Policy<'c>],
        crawler: &Arc<Crawler>,
        own: impl FnOnce(&mut Self) -> bool,
    ) -> bool {
        let name = crawler.name();
        // Most files ask no crawler to slow down: then none of their
        // groups is looked up here.
        let delays = policies.iter().any(Policy::has_crawl_delays);
        // This crawler's reading, through the groups the requests use.
        let mut answer = delays && own(self);
        if delays && !answer {
            // The other crawlers of that name: the catalogue's, and the
            // heuristic's (its product token, and the global group).
            let own: (Vec<&str>, bool) = (
                crawler.tokens().iter().map(String::as_str).collect(),
                crawler.obeys_global(),
            );
            let mut readings: Vec<(Vec<&str>, bool)> = Vec::new();
            let catalogue = self.ctx.catalogue();
            if let Some(c) = catalogue.by_name(name) {
                readings.push((
                    c.tokens().iter().map(String::as_str).collect(),
                    c.obeys_global(),
                ));
            }
            let token = crate::robots::product_token(name);
            readings.push((
                if token.is_empty() {
                    vec![]
                } else {
                    vec![token]
                },
                true,
            ));
            readings.retain(|r| *r != own);
            answer = !crawler.ignores_crawl_delay()
                && policies.iter().any(|policy| {
                    readings.iter().any(|(tokens, global)| {
                        policy
                            .group_for(tokens, *global)
                            .is_some_and(|g| g.crawl_delay().is_some())
                    })
                });
        }
        answer
    }

    /// Every policy `host` (whose rules are `rules`) ever has.
    fn always(&mut self, rules: &HostRules, host: &str) -> Arc<[Policy<'c>]> {
        let key = rules as *const HostRules as usize;
        if let Some(policies) = self.always.get(&key) {
            return policies.clone();
        }
        let policies: Arc<[Policy<'c>]> = self
            .ctx
            .snapshot()
            .policies_during(host, crate::time::ALWAYS, i64::MAX)
            .into();
        if self.always.len() >= self.limit {
            self.always.clear();
        }
        self.always.insert(key, policies.clone());
        policies
    }

    /// The group `policy` selects for `crawler`, and its crawl delay.
    fn group(
        &mut self,
        policy: &Policy<'c>,
        crawler: &Arc<Crawler>,
    ) -> (Option<Group<'c>>, Option<f64>) {
        let key = (
            policy.version() as *const RobotsVersion as usize,
            Arc::as_ptr(crawler) as usize,
        );
        if let Some((group, delay, _)) = self.groups.get(&key) {
            return (group.clone(), *delay);
        }
        if self.groups.len() >= self.limit {
            self.groups.clear();
        }
        let (group, delay) = group_and_delay(policy, crawler);
        self.groups
            .insert(key, (group.clone(), delay, crawler.clone()));
        (group, delay)
    }

    /// The window of cache `key` (a request at `time` on `host`, whose
    /// cached copies date from `start` on): the policies in force during
    /// it, and the one in force at its end (the request's time).
    fn window(
        &mut self,
        key: (usize, usize, usize),
        host: &str,
        judged: bool,
        start: i64,
        time: i64,
    ) -> Arc<Window<'c>> {
        if let Some(w) = self.windows.get(&key) {
            return w.clone();
        }
        let snap = self.ctx.snapshot();
        let window = Arc::new(if judged {
            Window {
                policies: snap.policies_during(host, start, time),
                now: snap.policy_at(host, time),
            }
        } else {
            Window {
                policies: Vec::new(),
                now: None,
            }
        });
        if self.windows.len() >= self.limit {
            self.windows.clear();
        }
        self.windows.insert(key, window.clone());
        window
    }

    /// The window of cache `key` with the groups its policies select for
    /// `hit`'s crawler: one lookup per request.
    fn selection(
        &mut self,
        key: (usize, usize, usize),
        hit: &Hit<'_>,
        rules: &HostRules,
        start: i64,
    ) -> &Selection<'c> {
        let full = (key.0, key.1, key.2, Arc::as_ptr(hit.crawler) as usize);
        if !self.selections.contains_key(&full) {
            let selection = self.select(key, hit, rules, start);
            if self.selections.len() >= self.limit {
                self.selections.clear();
            }
            self.selections.insert(full, selection);
        }
        &self.selections[&full]
    }

    /// The groups the policies of window `key` select for `hit`'s crawler.
    fn select(
        &mut self,
        key: (usize, usize, usize),
        hit: &Hit<'_>,
        rules: &HostRules,
        start: i64,
    ) -> Selection<'c> {
        // A host whose policy never changes (no change points: one
        // robots.txt for all time, as most hosts have) has one window for
        // every request, whose policies are all it ever has: its groups and
        // whether a delay may apply are made here, once per crawler, not
        // kept in the maps that serve a host's several windows.
        let constant = rules.points.is_empty();
        let window = self.window(key, hit.host, rules.judged, start, hit.time);
        let mut groups = Vec::with_capacity(window.policies.len());
        // The smallest delay among the versions; none when a version asks
        // for none.
        let mut delay = Some(f64::INFINITY);
        // Whether any version asks this crawler for a delay.
        let mut asked = false;
        for policy in &window.policies {
            let (group, seconds) = if constant {
                group_and_delay(policy, hit.crawler)
            } else {
                self.group(policy, hit.crawler)
            };
            asked |= seconds.is_some();
            delay = match (delay, seconds) {
                (Some(min), Some(s)) => Some(min.min(s)),
                _ => None,
            };
            groups.push(group);
        }
        let may_delay = if !constant {
            self.may_delay(rules, hit.host, hit.crawler)
        } else if rules.judged {
            self.may_delay_in(&window.policies, hit.crawler, |_| asked)
        } else {
            false
        };
        let now_key = window.now.as_ref().map(Policy::key);
        let now = window
            .policies
            .iter()
            .position(|p| Some(p.key()) == now_key);
        let single = match (&window.policies[..], &groups[..]) {
            ([policy], [group]) => Some((policy.clone(), group.clone())),
            _ => None,
        };
        Selection {
            window,
            single,
            groups,
            delay,
            now,
            may_delay,
            _crawler: hit.crawler.clone(),
        }
    }

    /// Judges `hit`: whether it is judged and the crawl delay its cached
    /// versions ask for, as SPEC section 8 defines them; its Disallow
    /// violation, if any, is added to `violations`.
    pub(crate) fn judge(
        &mut self,
        hit: &Hit<'_>,
        (violations, user_triggered): (&mut Violations, &mut UserTriggered),
    ) -> Judged {
        let grace = self.ctx.settings().robots_cache_grace;
        let Some(rules) = hit.rules else {
            return Judged {
                judged: false,
                delay: None,
                may_delay: false,
            };
        };
        let start = hit.time.saturating_sub(grace);
        // The policies in force change only at the change points: a
        // window is named by the points before its start and its end.
        let key = (
            rules as *const HostRules as usize,
            hit.head.points.partition_point(|&p| p <= start),
            hit.head.points.partition_point(|&p| p <= hit.time),
        );
        let selection = self.selection(key, hit, rules, start);
        let may_delay = selection.may_delay;
        // The window's policies and their groups: held in the selection
        // for a window of one policy, else the window's.
        let (policies, groups) = match &selection.single {
            Some((policy, group)) => (std::slice::from_ref(policy), std::slice::from_ref(group)),
            None => (&selection.window.policies[..], &selection.groups[..]),
        };
        let judged = !policies.is_empty();
        // Before the first version the snapshot knows, robots.txt is
        // unknown: a crawler whose cache may reach back there may have had
        // a version that allowed the request, so it is not blamed.
        let reaches_unknown = start < hit.head.first_known;
        if !judged || reaches_unknown {
            return Judged {
                judged,
                delay: None,
                may_delay,
            };
        }
        // Disallowed by every cached version, and what the policy in force
        // at the request's time (the window's policy `i`) decided.
        let mut disallowed_everywhere = !hit.robots_txt;
        let mut decided_now: Option<(usize, Option<&'c crate::robots::Rule>)> = None;
        if disallowed_everywhere {
            for (i, (policy, group)) in policies.iter().zip(groups).enumerate() {
                let (allowed, rule) = match (policy, group) {
                    (Policy::Rules { .. }, Some(group)) => {
                        let verdict = group.check(hit.path.as_bytes());
                        (verdict.allowed(), verdict.rule())
                    }
                    (Policy::DisallowAll { .. }, _) => (false, None),
                    _ => (true, None),
                };
                if allowed {
                    disallowed_everywhere = false;
                    break;
                }
                if selection.now == Some(i) {
                    decided_now = Some((i, rule));
                }
            }
        }
        let delay = selection.delay;
        // The policy in force is the window's policy of its key (one key,
        // one policy), read where the selection holds it: a window of one
        // policy is not read through its `Arc` (with thousands of hosts,
        // a miss in the cache per violation).
        if let Some((i, rule)) = decided_now {
            if disallowed_everywhere {
                let (now, cached) = (policies[i].clone(), policies.len());
                self.violation(hit, &now, rule, cached, violations, user_triggered);
            }
        }
        Judged {
            judged,
            delay,
            may_delay,
        }
    }

    /// Adds to `violations` the Disallow violation of `hit` under `now`,
    /// the policy in force at its time (one of the `cached` versions, so it
    /// disallows too), whose deciding rule is `rule` (`None` for a 5xx's
    /// disallow-all, which no rule decides). Its repeated cells are
    /// shared: each rule's, version's and detail's text is made once.
    fn violation(
        &mut self,
        hit: &Hit<'_>,
        now: &Policy<'c>,
        rule: Option<&'c crate::robots::Rule>,
        cached: usize,
        violations: &mut Violations,
        user_triggered: &mut UserTriggered,
    ) {
        // `now` is one of the cached policies, so it disallows too; an
        // allow-all cannot occur here.
        if let Policy::AllowAll { .. } = now {
            return;
        }
        self.bound_texts();
        let agent = hit.user_agent.clone();
        let ctx = self.ctx;
        let texts = &mut self.texts;
        let version_address = now.version() as *const RobotsVersion as usize;
        let version = self
            .cells
            .entry(Cell::Version(version_address))
            .or_insert_with(|| texts.get(now.version().name()))
            .clone();
        // As `Policy::decide` names the deciding rule: a 5xx answer's
        // disallow-all is `robots.txt 5xx`; a rules policy's rule as
        // written (a disallowed path always has one).
        let (rule_text, line) = match (now, rule) {
            (Policy::DisallowAll { .. }, _) => (
                self.cells
                    .entry(Cell::Unavailable)
                    .or_insert_with(|| texts.get("robots.txt 5xx"))
                    .clone(),
                None,
            ),
            (_, Some(r)) => (
                self.cells
                    .entry(Cell::Rule(r as *const crate::robots::Rule as usize))
                    .or_insert_with(|| texts.get(&r.directive()))
                    .clone(),
                Some(r.line()),
            ),
            (_, None) => (
                self.cells
                    .entry(Cell::Empty)
                    .or_insert_with(|| texts.get(""))
                    .clone(),
                None,
            ),
        };
        // A fetcher that acts for a person, as its operator documents (an
        // impersonator of one has no such excuse): a finding, not a
        // violation.
        if hit.crawler.user_triggered() && !hit.outside_ranges {
            user_triggered.add(
                hit.host,
                hit.identity,
                hit.crawler,
                &rule_text,
                line,
                &version,
                hit.time,
                hit.url,
                &agent,
            );
            return;
        }
        let detail = match now {
            Policy::Rules { .. } if cached > 1 => self.cells.entry(Cell::AllOf(cached)),
            Policy::DisallowAll { .. } => self.cells.entry(Cell::Answered(version_address)),
            _ => self.cells.entry(Cell::Empty),
        }
        .or_insert_with(|| {
            texts.get(&match now {
                Policy::Rules { .. } if cached > 1 => format!(
                    "disallowed by all {cached} robots.txt versions of the last {}",
                    format_seconds(ctx.settings().robots_cache_grace as f64)
                ),
                Policy::DisallowAll { .. } => format!(
                    "robots.txt answered {} since {}",
                    now.version().status(),
                    format_time(now.version().from())
                ),
                _ => String::new(),
            })
        })
        .clone();
        violations.push_cells(&Cells {
            time: hit.time,
            host: hit.host,
            crawler: hit.identity,
            verified: hit.verified,
            client_ip: &texts.get(hit.client),
            kind: ViolationKind::Disallow,
            method: &texts.get(hit.method),
            url: hit.url,
            status: hit.status,
            rule: &rule_text,
            rule_line: line,
            robots_version: Some(&version),
            detail: &detail,
            user_agent: Some(&agent),
        });
    }
}

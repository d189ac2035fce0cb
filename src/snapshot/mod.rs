//! Site snapshots: robots.txt over time and what each page answered, per
//! host (SPEC section 4).
//!
//! [`Snapshot::load`] reads snapshot directories (`SNAPSHOT/<host>/robots.txt`,
//! `robots/<time>.<status>` history, `pages.jsonl`) and WARC files into one
//! timeline per host. The queries the audit needs:
//! - [`Snapshot::policy_at`]: the robots.txt policy in force for a host at a
//!   moment ([`Policy`]: a file's rules, allow-all, or the complete disallow
//!   of a 5xx answer);
//! - [`Snapshot::policies_during`]: every policy in force at some moment of an
//!   interval (what a crawler may legitimately have cached);
//! - [`Snapshot::page_versions_during`] and [`Snapshot::page_at`]: the page
//!   versions of a URL, with their indexing rules.
//!
//! robots.txt answers follow RFC 9309 and Google's documented handling:
//! 2xx, the body's rules; 3xx, followed up to 5 hops within the snapshot,
//! else as 4xx; 4xx, no restrictions; 5xx or unreachable, complete disallow,
//! until it has lasted 30 days, when the last 2xx version applies again (or
//! allow-all when there is none). A host without robots information is
//! unjudged.

mod dir;
mod http;
mod warc;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::host::{normalize_host, split_authority};
use crate::indexing::PageRules;
use crate::robots::{Group, Robots};
use crate::time::{ALWAYS, DAY, instant};

pub use dir::MAX_PAGE_LINE;
pub use warc::{MAX_WARC_BLOCK, MAX_WARC_HEADER_LINE, MAX_WARC_HEADERS, WarcStats};

/// How long a 5xx answer means "disallow everything" before the last good
/// version applies again.
pub const UNAVAILABLE_LIMIT: i64 = 30 * DAY;
/// Redirects followed when fetching robots.txt.
pub const MAX_REDIRECTS: usize = 5;

/// An error reading a snapshot: the file, where in it, and what is wrong.
#[derive(Debug, thiserror::Error)]
#[error("{}{}: {message}", path.display(), location.as_deref().map(|l| format!(", {l}")).unwrap_or_default())]
pub struct SnapshotError {
    /// The file or directory.
    pub path: PathBuf,
    /// `line N` or `byte N`, when it applies.
    pub location: Option<String>,
    /// What is wrong, and what to do.
    pub message: String,
}

impl SnapshotError {
    pub(crate) fn new(path: &Path, location: Option<String>, message: impl Into<String>) -> Self {
        SnapshotError {
            path: path.to_path_buf(),
            location,
            message: message.into(),
        }
    }
}

/// What a path that is not a regular file is, for messages.
fn special_kind(file_type: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a FIFO";
        } else if file_type.is_char_device() {
            return "a character device";
        } else if file_type.is_block_device() {
            return "a block device";
        } else if file_type.is_socket() {
            return "a socket";
        }
    }
    if file_type.is_dir() {
        "a directory"
    } else {
        "not a file"
    }
}

/// Opens a snapshot file for reading, if it is a regular file (after
/// following symbolic links): a FIFO would block the run, a device such as
/// `/dev/zero` would never end. Returns the file and its length (as it
/// was when opened).
pub(crate) fn open_regular(path: &Path) -> Result<(std::fs::File, u64), SnapshotError> {
    let refuse = |file_type: std::fs::FileType| {
        SnapshotError::new(
            path,
            None,
            format!(
                "not a regular file ({}): a snapshot is made of regular files; copy the contents into one",
                special_kind(file_type)
            ),
        )
    };
    let cannot = |e: std::io::Error| SnapshotError::new(path, None, format!("cannot read: {e}"));
    let meta = std::fs::metadata(path).map_err(cannot)?;
    if !meta.is_file() {
        return Err(refuse(meta.file_type()));
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    // Replaced by a FIFO since the check above: do not wait for a writer.
    #[cfg(target_os = "linux")]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let file = options.open(path).map_err(cannot)?;
    let meta = file.metadata().map_err(cannot)?;
    if !meta.is_file() {
        return Err(refuse(meta.file_type()));
    }
    Ok((file, meta.len()))
}

/// Reads a robots.txt body from a snapshot file: at most
/// [`crate::robots::MAX_ROBOTS_BYTES`] and one byte more (the parser
/// ignores what is past 500 KiB; the extra byte tells it the file was
/// longer), from regular files only.
pub(crate) fn read_robots_file(path: &Path) -> Result<Vec<u8>, SnapshotError> {
    use std::io::Read;
    let (file, len) = open_regular(path)?;
    let limit = crate::robots::MAX_ROBOTS_BYTES as u64 + 1;
    // Sized from the file's length: `take` hides it from `read_to_end`,
    // which would otherwise grow the buffer from 32 bytes by doubling.
    let mut body = Vec::with_capacity(usize::try_from(len.min(limit)).unwrap_or(0));
    file.take(limit)
        .read_to_end(&mut body)
        .map_err(|e| SnapshotError::new(path, None, format!("cannot read: {e}")))?;
    Ok(body)
}

/// What fetching robots.txt answered.
#[derive(Clone, Debug)]
pub enum RobotsAnswer {
    /// 2xx: the body's rules.
    Rules(Arc<Robots>),
    /// 3xx: the `Location` (absolute, or a path on the same host).
    Redirect(String),
    /// 4xx: no restrictions.
    NotFound,
    /// 5xx or unreachable: complete disallow (for up to 30 days).
    Unavailable,
}

/// One robots.txt version of a host: what it answered from a moment on.
#[derive(Clone, Debug)]
pub struct RobotsVersion {
    from: i64,
    status: u16,
    answer: RobotsAnswer,
    name: String,
}

impl RobotsVersion {
    /// In force from this instant (UTC nanoseconds), or [`ALWAYS`].
    pub fn from(&self) -> i64 {
        self.from
    }

    /// The HTTP status it answered (200 for a `robots.txt` file).
    pub fn status(&self) -> u16 {
        self.status
    }

    /// What it answered.
    pub fn answer(&self) -> &RobotsAnswer {
        &self.answer
    }

    /// Its name in reports: the history file name (`2026-11-01T00-00-00Z.txt`),
    /// `robots.txt`, or the WARC record's date and file.
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// One version of a page: what its URL answered from a moment on.
#[derive(Clone, Debug)]
pub struct PageVersion {
    from: i64,
    status: u16,
    rules: PageRules,
    source: String,
}

impl PageVersion {
    /// In force from this instant, or [`ALWAYS`].
    pub fn from(&self) -> i64 {
        self.from
    }

    /// The HTTP status.
    pub fn status(&self) -> u16 {
        self.status
    }

    /// Its X-Robots-Tag lines and robots meta tags.
    pub fn rules(&self) -> &PageRules {
        &self.rules
    }

    /// Where it was read: `pages.jsonl line 4`, or a WARC record.
    pub fn source(&self) -> &str {
        &self.source
    }
}

/// Everything known about one host.
#[derive(Clone, Debug, Default)]
pub struct HostTimeline {
    /// Sorted by `from`.
    robots: Vec<RobotsVersion>,
    /// URL (path and query) to its versions, sorted by `from`.
    pages: BTreeMap<String, Vec<PageVersion>>,
}

impl HostTimeline {
    /// The robots.txt versions, oldest first.
    pub fn robots_versions(&self) -> &[RobotsVersion] {
        &self.robots
    }

    /// The pages and their versions.
    pub fn pages(&self) -> &BTreeMap<String, Vec<PageVersion>> {
        &self.pages
    }

    fn sort(&mut self) {
        self.robots.sort_by_key(|v| v.from);
        for versions in self.pages.values_mut() {
            versions.sort_by_key(|v| v.from);
        }
    }

    /// The version in force at `t`: the last one from at or before `t`.
    fn version_index_at(&self, t: i64) -> Option<usize> {
        let i = self.robots.partition_point(|v| v.from <= t);
        i.checked_sub(1)
    }
}

/// Why robots.txt imposes no restriction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AllowReason {
    /// robots.txt answered 4xx.
    NotFound,
    /// A redirect could not be followed within the snapshot, or there were
    /// more than 5.
    Redirects,
    /// 5xx for over 30 days and no earlier 2xx version.
    UnavailableTooLong,
}

/// What a policy decides for one path ([`Policy::decide`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    /// May the crawler fetch the path?
    pub allowed: bool,
    /// The deciding rule as written (`Disallow: /cart/`), or `robots.txt
    /// 5xx`; `None` when no rule decides.
    pub rule: Option<String>,
    /// The deciding rule's line.
    pub line: Option<u32>,
}

/// The robots.txt policy for a host at a moment.
#[derive(Clone, Debug)]
pub enum Policy<'s> {
    /// A robots.txt file's rules (the version it came from may be another
    /// host's, through a redirect, or an earlier one, after a long 5xx).
    Rules {
        /// The parsed file.
        robots: &'s Robots,
        /// The version whose body it is.
        version: &'s RobotsVersion,
    },
    /// Everything allowed.
    AllowAll {
        /// The version in force (4xx, 3xx or 5xx).
        version: &'s RobotsVersion,
        /// Why.
        reason: AllowReason,
    },
    /// Everything disallowed: robots.txt answered 5xx or was unreachable,
    /// for less than 30 days.
    DisallowAll {
        /// The version in force.
        version: &'s RobotsVersion,
    },
}

impl<'s> Policy<'s> {
    /// The version whose answer decides.
    pub fn version(&self) -> &RobotsVersion {
        match self {
            Policy::Rules { version, .. }
            | Policy::AllowAll { version, .. }
            | Policy::DisallowAll { version } => version,
        }
    }

    /// Does any group of this policy ask for a crawl delay? A policy
    /// without rules has none.
    pub fn has_crawl_delays(&self) -> bool {
        match self {
            Policy::Rules { robots, .. } => robots.has_crawl_delays(),
            Policy::AllowAll { .. } | Policy::DisallowAll { .. } => false,
        }
    }

    /// The group this policy selects for a crawler of `tokens` (in
    /// preference order; `obeys_global`: whether it follows the `*` group):
    /// `None` for a policy without rules (allow-all, or the disallow-all of
    /// a 5xx answer). With [`Policy::decide`], the one way the audit and
    /// `crawlaudit rules` decide.
    pub fn group_for(&self, tokens: &[&str], obeys_global: bool) -> Option<Group<'s>> {
        match self {
            Policy::Rules { robots, .. } => Some(robots.group_for(tokens, obeys_global)),
            Policy::AllowAll { .. } | Policy::DisallowAll { .. } => None,
        }
    }

    /// Whether this policy allows `path`, given the group it selected
    /// ([`Policy::group_for`]): [`Policy::decide`]'s `allowed`, without
    /// naming the rule (the audit's per-request check).
    pub fn allows(&self, group: Option<&Group<'s>>, path: &[u8]) -> bool {
        match (self, group) {
            (Policy::Rules { .. }, Some(group)) => group.check(path).allowed(),
            (Policy::DisallowAll { .. }, _) => false,
            _ => true,
        }
    }

    /// What this policy decides for `path`, given the group it selected
    /// ([`Policy::group_for`]): allowed or not, and the deciding rule
    /// (`robots.txt 5xx` for the disallow-all of a 5xx answer) and line.
    pub fn decide(&self, group: Option<&Group<'s>>, path: &[u8]) -> Decision {
        match (self, group) {
            (Policy::Rules { .. }, Some(group)) => {
                let verdict = group.check(path);
                let rule = verdict.rule();
                Decision {
                    allowed: verdict.allowed(),
                    rule: rule.map(|r| r.directive()),
                    line: rule.map(|r| r.line()),
                }
            }
            (Policy::DisallowAll { .. }, _) => Decision {
                allowed: false,
                rule: Some("robots.txt 5xx".into()),
                line: None,
            },
            _ => Decision {
                allowed: true,
                rule: None,
                line: None,
            },
        }
    }

    /// Its kind and version: policies with one key are one policy.
    pub(crate) fn key(&self) -> (usize, *const RobotsVersion) {
        let tag = match self {
            Policy::Rules { .. } => 0,
            Policy::AllowAll { .. } => 1,
            Policy::DisallowAll { .. } => 2,
        };
        (tag, self.version() as *const RobotsVersion)
    }
}

impl fmt::Display for Policy<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Policy::Rules { version, .. } => {
                write!(f, "rules of {} ({})", version.name, version.status)
            }
            Policy::AllowAll { version, reason } => {
                let why = match reason {
                    AllowReason::NotFound => "robots.txt not found: no restrictions",
                    AllowReason::Redirects => {
                        "robots.txt redirects could not be followed: treated as not found"
                    }
                    AllowReason::UnavailableTooLong => {
                        "robots.txt unavailable for over 30 days, no earlier version: no restrictions"
                    }
                };
                write!(f, "{why} ({}, {})", version.name, version.status)
            }
            Policy::DisallowAll { version } => {
                write!(
                    f,
                    "robots.txt unavailable ({}, {}): everything disallowed",
                    version.name, version.status
                )
            }
        }
    }
}

/// Site snapshots of one or more hosts.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    hosts: BTreeMap<String, HostTimeline>,
    sources: Vec<String>,
    pub(crate) warc: Vec<(String, WarcStats)>,
}

/// Does the file start as a WARC record does (`WARC/`), or as gzip (a
/// WARC compressed per record)? A file that cannot be read is left to the
/// WARC reader, whose error says why.
fn starts_like_warc(path: &std::path::Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 5];
    match std::fs::File::open(path).and_then(|mut f| f.read(&mut head)) {
        Ok(n) => head[..n].starts_with(b"WARC/") || head[..n].starts_with(&[0x1f, 0x8b]),
        Err(_) => true,
    }
}

impl Snapshot {
    /// Loads snapshot paths: directories (SPEC 4.1) and WARC or `.warc.gz`
    /// files (SPEC 4.2), merged into one timeline per host.
    ///
    /// # Errors
    /// A path that does not exist or cannot be read, a host directory that
    /// is not a host name, a bad history file name, a malformed
    /// `pages.jsonl` line, or a WARC record that does not parse, each with
    /// its file and line or offset.
    pub fn load(paths: &[PathBuf]) -> Result<Snapshot, SnapshotError> {
        let mut snapshot = Snapshot::default();
        for path in paths {
            let meta = std::fs::metadata(path).map_err(|e| {
                SnapshotError::new(path, None, format!("cannot read snapshot: {e}"))
            })?;
            if meta.is_dir() && dir::is_snapshot_dir(path) {
                dir::load(path, &mut snapshot)?;
            } else if meta.is_dir() {
                // A directory of WARC files.
                let mut files: Vec<PathBuf> = std::fs::read_dir(path)
                    .map_err(|e| {
                        SnapshotError::new(path, None, format!("cannot read snapshot: {e}"))
                    })?
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| warc::is_warc_name(p))
                    .collect();
                files.sort();
                if files.is_empty() {
                    return Err(SnapshotError::new(
                        path,
                        None,
                        "neither a snapshot directory (host folders) nor a folder of WARC files",
                    ));
                }
                for f in files {
                    warc::load(&f, &mut snapshot)?;
                }
            } else if !warc::is_warc_name(path) && !starts_like_warc(path) {
                // The likeliest first mistake: one robots.txt given as
                // the snapshot.
                return Err(SnapshotError::new(
                    path,
                    None,
                    "not a snapshot: a snapshot is a directory with one folder per site \
                     (SNAPSHOT/example.com/robots.txt, optional SNAPSHOT/example.com/robots/ \
                     history and pages.jsonl) or WARC files (.warc, .warc.gz); to audit \
                     against one robots.txt, put it at SNAPSHOT/HOST/robots.txt and give \
                     --snapshot SNAPSHOT",
                ));
            } else {
                warc::load(path, &mut snapshot)?;
            }
            snapshot.sources.push(path.display().to_string());
        }
        snapshot.sort_timelines();
        Ok(snapshot)
    }

    /// Reads a WARC stream (plain or gzip) named `path` into the snapshot,
    /// as [`Snapshot::load`] reads a WARC file: for callers that hold the
    /// bytes already (an object-store client, a test).
    ///
    /// # Errors
    /// A record that does not parse, with its byte offset.
    pub fn read_warc(
        &mut self,
        path: &Path,
        source: impl std::io::Read,
    ) -> Result<WarcStats, SnapshotError> {
        let stats = warc::load_from(source, path, self)?;
        self.sort_timelines();
        Ok(stats)
    }

    /// Reads `pages.jsonl` lines (SPEC 4.1) for `host` from a stream named
    /// `path`, as [`Snapshot::load`] reads a host folder's `pages.jsonl`.
    ///
    /// # Errors
    /// A line that is not a page object, or longer than
    /// [`MAX_PAGE_LINE`], with its line number.
    pub fn read_pages(
        &mut self,
        host: &str,
        path: &Path,
        source: impl std::io::Read,
    ) -> Result<(), SnapshotError> {
        dir::load_pages_from(source, path, host, self)?;
        self.sort_timelines();
        Ok(())
    }

    fn sort_timelines(&mut self) {
        for timeline in self.hosts.values_mut() {
            timeline.sort();
        }
    }

    /// Takes in the hosts of `part` (read apart from this snapshot), their
    /// versions after the ones already here, as if they had been read into
    /// it; their sources and WARC statistics stay with `part`.
    pub(crate) fn absorb(&mut self, part: Snapshot) {
        for (host, timeline) in part.hosts {
            let mine = self.hosts.entry(host).or_default();
            mine.robots.extend(timeline.robots);
            for (url, versions) in timeline.pages {
                mine.pages.entry(url).or_default().extend(versions);
            }
        }
    }

    pub(crate) fn host_mut(&mut self, host: &str) -> &mut HostTimeline {
        self.hosts.entry(normalize_host(host)).or_default()
    }

    pub(crate) fn add_robots(
        &mut self,
        host: &str,
        from: i64,
        status: u16,
        answer: RobotsAnswer,
        name: String,
    ) {
        self.host_mut(host).robots.push(RobotsVersion {
            from,
            status,
            answer,
            name,
        });
    }

    pub(crate) fn add_page(
        &mut self,
        host: &str,
        url: String,
        version: (i64, u16, PageRules, String),
    ) {
        let (from, status, rules, source) = version;
        self.host_mut(host)
            .pages
            .entry(url)
            .or_default()
            .push(PageVersion {
                from,
                status,
                rules,
                source,
            });
    }

    /// The hosts described, in order.
    pub fn hosts(&self) -> impl Iterator<Item = (&str, &HostTimeline)> {
        self.hosts.iter().map(|(h, t)| (h.as_str(), t))
    }

    /// One host's timeline (the host is normalized first).
    pub fn host(&self, host: &str) -> Option<&HostTimeline> {
        self.hosts.get(&normalize_host(host))
    }

    /// Does the snapshot hold robots information for this host (else its
    /// requests are unjudged)?
    pub fn is_judged(&self, host: &str) -> bool {
        self.host(host).is_some_and(|t| !t.robots.is_empty())
    }

    /// When the first robots.txt version the snapshot knows for `host`
    /// starts (`ALWAYS` for a whole-window `robots.txt`).
    pub fn first_known(&self, host: &str) -> Option<i64> {
        self.host(host)?.robots.first().map(|v| v.from)
    }

    /// The robots.txt policy in force for `host` at `t`, or `None` when the
    /// snapshot knows nothing for that moment (no robots information for the
    /// host, or `t` before its first version).
    pub fn policy_at(&self, host: &str, t: i64) -> Option<Policy<'_>> {
        self.policy_at_depth(&normalize_host(host), t, 0)
    }

    fn policy_at_depth(&self, host: &str, t: i64, depth: usize) -> Option<Policy<'_>> {
        let timeline = self.hosts.get(host)?;
        let i = timeline.version_index_at(t)?;
        let version = &timeline.robots[i];
        Some(match &version.answer {
            RobotsAnswer::Rules(robots) => Policy::Rules { robots, version },
            RobotsAnswer::NotFound => Policy::AllowAll {
                version,
                reason: AllowReason::NotFound,
            },
            RobotsAnswer::Redirect(location) => {
                let target = redirect_host(host, location);
                match target.filter(|_| depth < MAX_REDIRECTS) {
                    Some(target) => match self.policy_at_depth(&target, t, depth + 1) {
                        Some(p) => p,
                        None => Policy::AllowAll {
                            version,
                            reason: AllowReason::Redirects,
                        },
                    },
                    None => Policy::AllowAll {
                        version,
                        reason: AllowReason::Redirects,
                    },
                }
            }
            RobotsAnswer::Unavailable => {
                // The 5xx run started at the first of the consecutive 5xx versions.
                let mut start = i;
                while start > 0
                    && matches!(timeline.robots[start - 1].answer, RobotsAnswer::Unavailable)
                {
                    start -= 1;
                }
                let since = timeline.robots[start].from;
                if since == ALWAYS || t.saturating_sub(since) < UNAVAILABLE_LIMIT {
                    Policy::DisallowAll { version }
                } else {
                    match timeline.robots[..start]
                        .iter()
                        .rev()
                        .find(|v| matches!(v.answer, RobotsAnswer::Rules(_)))
                    {
                        Some(
                            good @ RobotsVersion {
                                answer: RobotsAnswer::Rules(robots),
                                ..
                            },
                        ) => Policy::Rules {
                            robots,
                            version: good,
                        },
                        _ => Policy::AllowAll {
                            version,
                            reason: AllowReason::UnavailableTooLong,
                        },
                    }
                }
            }
        })
    }

    /// The instants in `(a, b]` at which the policy of `host` may change:
    /// its versions' starts, the 30-day mark of each 5xx run, and the
    /// changes of the hosts its redirects lead to.
    fn change_points(&self, host: &str, a: i64, b: i64, depth: usize, out: &mut Vec<i64>) {
        let Some(timeline) = self.hosts.get(host) else {
            return;
        };
        let mut run_start: Option<i64> = None;
        for v in &timeline.robots {
            if v.from > a && v.from <= b {
                out.push(v.from);
            }
            match &v.answer {
                RobotsAnswer::Unavailable => {
                    let start = *run_start.get_or_insert(v.from);
                    let mark = start.saturating_add(UNAVAILABLE_LIMIT);
                    if start != ALWAYS && mark > a && mark <= b {
                        out.push(mark);
                    }
                }
                RobotsAnswer::Redirect(location) => {
                    run_start = None;
                    if depth < MAX_REDIRECTS {
                        if let Some(target) = redirect_host(host, location) {
                            self.change_points(&target, a, b, depth + 1, out);
                        }
                    }
                }
                _ => run_start = None,
            }
        }
    }

    /// Every instant at which the policy of `host` may change, sorted and
    /// each once: between two of them (from one, up to the next) the
    /// policy is the same, so [`Snapshot::policies_during`] of `[a, b]`
    /// depends only on how many of them are at or before `a` and at or
    /// before `b`. That lets the audit look the policies of a request's
    /// cache window up once per pair of counts, not per request.
    pub fn policy_change_points(&self, host: &str) -> Vec<i64> {
        let mut points = Vec::new();
        self.change_points(&normalize_host(host), i64::MIN, i64::MAX, 0, &mut points);
        points.sort_unstable();
        points.dedup();
        points
    }

    /// Every policy in force at some moment of `[a, b]`, in time order,
    /// each once: the versions a crawler may have cached at `b` when its
    /// cache may be up to `b - a` old. Empty when the snapshot knows
    /// nothing for any moment of the interval.
    pub fn policies_during(&self, host: &str, a: i64, b: i64) -> Vec<Policy<'_>> {
        let host = normalize_host(host);
        let mut points = vec![a];
        self.change_points(&host, a, b, 0, &mut points);
        points.sort_unstable();
        points.dedup();
        let mut out: Vec<Policy<'_>> = Vec::new();
        for t in points {
            if let Some(p) = self.policy_at_depth(&host, t, 0) {
                if !out.iter().any(|q| q.key() == p.key()) {
                    out.push(p);
                }
            }
        }
        out
    }

    /// The versions of a page (path and query as requested) in force at
    /// some moment of `[a, b]`, oldest first.
    pub fn page_versions_during(&self, host: &str, url: &str, a: i64, b: i64) -> Vec<&PageVersion> {
        let Some(versions) = self.host(host).and_then(|t| t.pages.get(url)) else {
            return Vec::new();
        };
        let first = versions.partition_point(|v| v.from <= a).saturating_sub(1);
        versions[first..].iter().filter(|v| v.from <= b).collect()
    }

    /// The page version in force at `t`.
    pub fn page_at(&self, host: &str, url: &str, t: i64) -> Option<&PageVersion> {
        let versions = self.host(host)?.pages.get(url)?;
        let i = versions.partition_point(|v| v.from <= t);
        i.checked_sub(1).map(|i| &versions[i])
    }

    /// What each WARC file held (file, counts).
    pub fn warc_stats(&self) -> &[(String, WarcStats)] {
        &self.warc
    }

    /// The snapshot paths loaded.
    pub fn sources(&self) -> &[String] {
        &self.sources
    }
}

/// The host a robots.txt redirect leads to, when it leads to a robots.txt
/// (`https://www.example.com/robots.txt`, or `/robots.txt` on the same host).
fn redirect_host(host: &str, location: &str) -> Option<String> {
    let location = location.trim();
    let (target_host, path) = match location.split_once("://") {
        Some((_, rest)) => {
            let (authority, path) = split_authority(rest);
            (normalize_host(authority), path)
        }
        None if location.starts_with("//") => {
            let (authority, path) = split_authority(&location[2..]);
            (normalize_host(authority), path)
        }
        None => (host.to_string(), location),
    };
    let path = path.split(['?', '#']).next().unwrap_or("");
    (path == "/robots.txt" && !target_host.is_empty()).then_some(target_host)
}

/// Parses the UTC instant of a history file name: `2026-11-01T00-00-00Z`
/// (colons written as dashes, as file systems need), or with colons.
pub(crate) fn parse_file_time(stem: &str) -> Option<i64> {
    let b = stem.as_bytes();
    if b.len() != 20 || b[19] != b'Z' || b[10] != b'T' {
        return None;
    }
    let mut fixed = stem.to_string().into_bytes();
    if fixed[13] == b'-' && fixed[16] == b'-' {
        fixed[13] = b':';
        fixed[16] = b':';
    }
    let text = String::from_utf8(fixed).ok()?;
    instant(text.parse().ok()?)
}

#[cfg(test)]
mod tests;

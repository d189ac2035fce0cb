//! Crawler IP ranges as the operators publish them, and fast lookup.
//!
//! `--ip-ranges DIR` holds one file per published list, named as the last
//! segment of the operator's URL (`googlebot.json`, `bingbot.json`,
//! `gptbot.json`, ...). JSON files are read whatever their layout: every
//! string that is an IP prefix (`"66.249.64.0/27"`, `"2001:4860::/32"`) or
//! address anywhere in the document counts, which covers Google's and
//! Bing's `prefixes`/`ipv4Prefix`/`ipv6Prefix`, OpenAI's, Perplexity's,
//! Apple's and DuckDuckGo's formats. Other files are plain lists: one prefix
//! or address a line, `#` comments and blank lines allowed.

use std::collections::BTreeMap;
use std::fmt;
use std::net::IpAddr;
#[cfg(test)]
use std::net::{Ipv4Addr, Ipv6Addr};
use std::path::{Path, PathBuf};

use serde_json::Value;

/// An error reading a range file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RangeError {
    /// The directory or a file could not be read.
    #[error("cannot read IP range {}: {source}{}", path.display(), if source.kind() == std::io::ErrorKind::NotADirectory { " (give a directory of range files, as `crawlaudit ranges update DIR` writes)" } else { "" })]
    Io {
        /// The path.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A JSON file is not JSON.
    #[error("IP range file {} is not valid JSON: {source}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: serde_json::Error,
    },
    /// A line of a plain list is not an IP prefix.
    #[error("IP range file {}, line {line}: {text:?} is not an IP address or prefix (expected e.g. 66.249.64.0/19)", path.display())]
    BadLine {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// The line.
        text: String,
    },
    /// A file holds no prefix at all.
    #[error("IP range file {} holds no IP prefix", path.display())]
    Empty {
        /// The file.
        path: PathBuf,
    },
}

/// Parses `a.b.c.d/len`, `x::/len` or a bare address (a /32 or /128).
pub fn parse_prefix(text: &str) -> Option<(IpAddr, u8)> {
    let text = text.trim();
    let (addr, len) = match text.split_once('/') {
        Some((a, l)) => (a, Some(l.parse::<u8>().ok()?)),
        None => (text, None),
    };
    let addr: IpAddr = addr.parse().ok()?;
    let max = if addr.is_ipv4() { 32 } else { 128 };
    let len = len.unwrap_or(max);
    (len <= max).then_some((addr, len))
}

/// An IPv4-mapped IPv6 prefix (`::ffff:66.249.64.0/115`) is the IPv4
/// prefix it covers (`66.249.64.0/19`); others are unchanged.
fn mapped_to_v4(addr: IpAddr, len: u8) -> (IpAddr, u8) {
    match addr {
        IpAddr::V6(v6) if len >= 96 => v6
            .to_ipv4_mapped()
            .map_or((addr, len), |v4| (IpAddr::V4(v4), len - 96)),
        _ => (addr, len),
    }
}

/// The shortest IPv4 prefix accepted from a range file: a /7 holds 2% of
/// all IPv4 addresses, which verifies nothing.
pub const MIN_V4_PREFIX: u8 = 8;
/// The shortest IPv6 prefix accepted from a range file.
pub const MIN_V6_PREFIX: u8 = 16;

/// Is the prefix too broad to be evidence that an address is a crawler's?
fn too_broad(addr: IpAddr, len: u8) -> bool {
    match mapped_to_v4(addr, len) {
        (IpAddr::V4(_), len) => len < MIN_V4_PREFIX,
        (IpAddr::V6(_), len) => len < MIN_V6_PREFIX,
    }
}

/// A set of IP prefixes, merged into sorted disjoint intervals.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RangeSet {
    v4: Vec<(u32, u32)>,
    v6: Vec<(u128, u128)>,
    /// When the files were made (UTC nanoseconds, the earliest and the
    /// latest of those merged): their `creationTime`, else their
    /// modification time; `None` when not known.
    created: Option<(i64, i64)>,
}

/// How far from a range file's creation a request may be for the file to
/// say who it is not: operators move their crawlers between networks, so
/// an address outside ranges made long before or after the request
/// proves nothing.
pub const RANGES_VALID_FOR: i64 = 30 * crate::time::DAY;

fn merge<T: Copy + Ord + num_like::Succ>(ranges: &mut Vec<(T, T)>) {
    ranges.sort_unstable();
    let mut out: Vec<(T, T)> = Vec::with_capacity(ranges.len());
    for &(lo, hi) in ranges.iter() {
        match out.last_mut() {
            Some(last) if last.1.succ().is_none_or(|next| lo <= next) => {
                if hi > last.1 {
                    last.1 = hi;
                }
            }
            _ => out.push((lo, hi)),
        }
    }
    *ranges = out;
}

mod num_like {
    /// The next value, if any (to merge adjacent intervals).
    pub trait Succ: Sized {
        fn succ(self) -> Option<Self>;
    }
    impl Succ for u32 {
        fn succ(self) -> Option<Self> {
            self.checked_add(1)
        }
    }
    impl Succ for u128 {
        fn succ(self) -> Option<Self> {
            self.checked_add(1)
        }
    }
}

fn contains<T: Copy + Ord>(ranges: &[(T, T)], x: T) -> bool {
    let i = ranges.partition_point(|&(lo, _)| lo <= x);
    i > 0 && x <= ranges[i - 1].1
}

/// A JSON range file's top-level `creationTime` (Google's layout, also
/// used by others): RFC 3339, or without a zone as UTC (Google writes
/// `2026-08-21T23:00:48.000000`).
fn creation_time(path: &Path, bytes: &[u8]) -> Option<i64> {
    if !path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
    {
        return None;
    }
    let value: Value = serde_json::from_slice(bytes).ok()?;
    let text = value.get("creationTime")?.as_str()?.trim();
    let ts = text.parse::<jiff::Timestamp>().ok().or_else(|| {
        text.parse::<jiff::civil::DateTime>()
            .ok()?
            .to_zoned(jiff::tz::TimeZone::UTC)
            .ok()
            .map(|z| z.timestamp())
    })?;
    i64::try_from(ts.as_nanosecond()).ok()
}

/// An IPv4-mapped IPv6 address (`::ffff:1.2.3.4`) is its IPv4 address.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

impl RangeSet {
    /// Builds a set from prefixes.
    pub fn from_prefixes(prefixes: impl IntoIterator<Item = (IpAddr, u8)>) -> RangeSet {
        let mut set = RangeSet::default();
        for (addr, len) in prefixes {
            set.push(addr, len);
        }
        set.normalize();
        set
    }

    fn push(&mut self, addr: IpAddr, len: u8) {
        let (addr, len) = mapped_to_v4(addr, len);
        match addr {
            IpAddr::V4(a) => {
                let bits = u32::from(a);
                let mask = if len == 0 {
                    0
                } else {
                    u32::MAX << (32 - u32::from(len.min(32)))
                };
                self.v4.push((bits & mask, bits | !mask));
            }
            IpAddr::V6(a) => {
                let bits = u128::from(a);
                let mask = if len == 0 {
                    0
                } else {
                    u128::MAX << (128 - u32::from(len.min(128)))
                };
                self.v6.push((bits & mask, bits | !mask));
            }
        }
    }

    fn normalize(&mut self) {
        merge(&mut self.v4);
        merge(&mut self.v6);
    }

    /// Adds every prefix of `other`.
    pub fn extend(&mut self, other: &RangeSet) {
        self.v4.extend_from_slice(&other.v4);
        self.v6.extend_from_slice(&other.v6);
        self.created = match (self.created, other.created) {
            (Some(a), Some(b)) => Some((a.0.min(b.0), a.1.max(b.1))),
            (a, b) => a.or(b),
        };
        self.normalize();
    }

    /// Is `ip` inside the set? (Binary search: `O(log n)`.)
    pub fn contains(&self, ip: IpAddr) -> bool {
        match canonical(ip) {
            IpAddr::V4(a) => contains(&self.v4, u32::from(a)),
            IpAddr::V6(a) => contains(&self.v6, u128::from(a)),
        }
    }

    /// No prefix at all?
    pub fn is_empty(&self) -> bool {
        self.v4.is_empty() && self.v6.is_empty()
    }

    /// Number of disjoint intervals (IPv4, IPv6).
    pub fn intervals(&self) -> (usize, usize) {
        (self.v4.len(), self.v6.len())
    }

    /// When the file (or the files merged) was made: (earliest, latest),
    /// UTC nanoseconds.
    pub fn created(&self) -> Option<(i64, i64)> {
        self.created
    }

    /// The set with its creation time set (a file's, UTC nanoseconds).
    pub fn with_created(mut self, created: i64) -> RangeSet {
        self.created = Some((created, created));
        self
    }

    /// Can an address outside the set be trusted to be no crawler of it at
    /// `time`? Not when a file was made more than [`RANGES_VALID_FOR`]
    /// before or after: the claim is then unverified, not an impostor's.
    pub fn is_current_at(&self, time: i64) -> bool {
        self.created.is_none_or(|(first, last)| {
            time >= last.saturating_sub(RANGES_VALID_FOR)
                && time <= first.saturating_add(RANGES_VALID_FOR)
        })
    }

    /// Reads one range file (JSON in any operator layout, or a plain list).
    ///
    /// # Errors
    /// The file cannot be read, is invalid JSON, has a line that is not a
    /// prefix (plain lists), or holds no prefix.
    pub fn load(path: &Path) -> Result<RangeSet, RangeError> {
        Ok(RangeSet::load_checked(path)?.0)
    }

    /// Reads one range file as [`RangeSet::load`] does, and returns the
    /// warnings about prefixes it skipped (see [`RangeSet::parse_checked`]).
    ///
    /// # Errors
    /// As [`RangeSet::load`].
    pub fn load_checked(path: &Path) -> Result<(RangeSet, Vec<String>), RangeError> {
        /// A range file past this is refused (the operators' files are
        /// kilobytes).
        const MAX_RANGE_FILE_BYTES: u64 = 64 << 20;
        let bytes =
            crate::bounded_read::read_at_most(path, MAX_RANGE_FILE_BYTES).map_err(|source| {
                RangeError::Io {
                    path: path.into(),
                    source,
                }
            })?;
        let (set, warnings) = RangeSet::parse_checked(path, &bytes)?;
        if set.created.is_some() {
            return Ok((set, warnings));
        }
        // No `creationTime`: the file's modification time.
        let modified = std::fs::metadata(path)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| jiff::Timestamp::try_from(t).ok())
            .and_then(|t| i64::try_from(t.as_nanosecond()).ok());
        Ok((
            match modified {
                Some(t) => set.with_created(t),
                None => set,
            },
            warnings,
        ))
    }

    /// Parses the contents of a range file; `path` (whose extension picks
    /// JSON or a plain list) names it in errors.
    ///
    /// # Errors
    /// As [`RangeSet::load`], but for reading.
    pub fn parse(path: &Path, bytes: &[u8]) -> Result<RangeSet, RangeError> {
        Ok(RangeSet::parse_checked(path, bytes)?.0)
    }

    /// Parses a range file as [`RangeSet::parse`] does, and returns the
    /// warnings about what it skipped: prefixes too broad to be evidence
    /// (IPv4 shorter than `MIN_V4_PREFIX` (/8), IPv6 shorter than
    /// `MIN_V6_PREFIX` (/16), such as `0.0.0.0/0`), each naming the file and
    /// the prefix. A file whose every prefix was skipped gives an empty set.
    ///
    /// # Errors
    /// As [`RangeSet::parse`]; a file that holds no prefix at all.
    pub fn parse_checked(path: &Path, bytes: &[u8]) -> Result<(RangeSet, Vec<String>), RangeError> {
        let mut warnings = Vec::new();
        let (mut kept, mut skipped) = (Vec::new(), false);
        for (addr, len) in RangeSet::parse_all(path, bytes)? {
            if too_broad(addr, len) {
                skipped = true;
                warnings.push(format!(
                    "IP range file {}: the prefix {addr}/{len} is too broad to verify a crawler (IPv4 prefixes shorter than /{MIN_V4_PREFIX} and IPv6 shorter than /{MIN_V6_PREFIX} are skipped)",
                    path.display()
                ));
            } else {
                kept.push((addr, len));
            }
        }
        if kept.is_empty() && !skipped {
            return Err(RangeError::Empty { path: path.into() });
        }
        let set = RangeSet::from_prefixes(kept);
        Ok((
            match creation_time(path, bytes) {
                Some(t) => set.with_created(t),
                None => set,
            },
            warnings,
        ))
    }

    /// Every prefix of a range file, as written.
    fn parse_all(path: &Path, bytes: &[u8]) -> Result<Vec<(IpAddr, u8)>, RangeError> {
        let prefixes = if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"))
        {
            let value: Value =
                serde_json::from_slice(bytes).map_err(|source| RangeError::Json {
                    path: path.into(),
                    source,
                })?;
            let mut prefixes = Vec::new();
            collect_prefixes(&value, &mut prefixes);
            prefixes
        } else {
            let text = String::from_utf8_lossy(bytes);
            let mut prefixes = Vec::new();
            for (i, line) in text.lines().enumerate() {
                let line = line.split('#').next().unwrap_or("").trim();
                if line.is_empty() {
                    continue;
                }
                let prefix = parse_prefix(line).ok_or_else(|| RangeError::BadLine {
                    path: path.into(),
                    line: i + 1,
                    text: line.to_string(),
                })?;
                prefixes.push(prefix);
            }
            prefixes
        };
        Ok(prefixes)
    }
}

fn collect_prefixes(value: &Value, out: &mut Vec<(IpAddr, u8)>) {
    match value {
        Value::String(s) => out.extend(parse_prefix(s)),
        Value::Array(items) => items.iter().for_each(|v| collect_prefixes(v, out)),
        Value::Object(map) => map.values().for_each(|v| collect_prefixes(v, out)),
        _ => {}
    }
}

/// The operators' published range files: (file name, URL). The file name is
/// the URL's last segment, which is how the catalogue refers to it.
pub const PUBLISHED: &[(&str, &str)] = &[
    (
        "googlebot.json",
        "https://developers.google.com/static/search/apis/ipranges/googlebot.json",
    ),
    (
        "special-crawlers.json",
        "https://developers.google.com/static/search/apis/ipranges/special-crawlers.json",
    ),
    (
        "user-triggered-fetchers.json",
        "https://developers.google.com/static/search/apis/ipranges/user-triggered-fetchers.json",
    ),
    ("bingbot.json", "https://www.bing.com/toolbox/bingbot.json"),
    ("gptbot.json", "https://openai.com/gptbot.json"),
    ("searchbot.json", "https://openai.com/searchbot.json"),
    ("chatgpt-user.json", "https://openai.com/chatgpt-user.json"),
    (
        "perplexitybot.json",
        "https://www.perplexity.ai/perplexitybot.json",
    ),
    (
        "perplexity-user.json",
        "https://www.perplexity.ai/perplexity-user.json",
    ),
    (
        "applebot.json",
        "https://search.developer.apple.com/applebot.json",
    ),
    (
        "duckduckbot.json",
        "https://duckduckgo.com/duckduckbot.json",
    ),
];

/// The range files of an `--ip-ranges` directory, by file name.
#[derive(Clone, Debug, Default)]
pub struct IpRanges {
    files: BTreeMap<String, RangeSet>,
    warnings: Vec<String>,
}

impl IpRanges {
    /// Loads every regular file of `dir` (not recursively); files whose name
    /// starts with `.` are skipped. Prefixes too broad to be evidence are
    /// skipped with a warning ([`IpRanges::warnings`]), and a file left
    /// without prefixes is not used.
    ///
    /// # Errors
    /// The directory cannot be read, or a file is not a valid range file.
    pub fn load_dir(dir: &Path) -> Result<IpRanges, RangeError> {
        let io = |source| RangeError::Io {
            path: dir.into(),
            source,
        };
        let mut files = BTreeMap::new();
        let mut warnings = Vec::new();
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .map_err(io)?
            .collect::<Result<_, _>>()
            .map_err(io)?;
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = entry.path();
            if name.starts_with('.') || !path.is_file() {
                continue;
            }
            let (set, skipped) = RangeSet::load_checked(&path)?;
            warnings.extend(skipped);
            if set.is_empty() {
                warnings.push(format!(
                    "IP range file {} holds no other prefix: it is not used, so its crawlers are not verified",
                    path.display()
                ));
            } else {
                files.insert(name, set);
            }
        }
        Ok(IpRanges { files, warnings })
    }

    /// What loading skipped, one line each, naming the file and the
    /// prefix: for the caller to show (the CLI prints them as warnings).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Adds a set under a file name (for tests and embedders).
    pub fn insert(&mut self, name: &str, set: RangeSet) {
        self.files.insert(name.to_string(), set);
    }

    /// The set of one file, if loaded.
    pub fn get(&self, name: &str) -> Option<&RangeSet> {
        self.files.get(name)
    }

    /// The loaded file names.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(String::as_str)
    }

    /// Each loaded file with when it was made, if known.
    pub fn files(&self) -> impl Iterator<Item = (&str, Option<i64>)> {
        self.files
            .iter()
            .map(|(name, set)| (name.as_str(), set.created.map(|c| c.0)))
    }

    /// The union of the named files that are loaded, or `None` when none is.
    pub fn union(&self, names: &[String]) -> Option<RangeSet> {
        let mut found = names.iter().filter_map(|n| self.files.get(n)).peekable();
        found.peek()?;
        let mut set = RangeSet::default();
        for s in found {
            set.extend(s);
        }
        Some(set)
    }
}

impl fmt::Display for RangeSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (v4, v6) = self.intervals();
        write!(f, "{v4} IPv4 and {v6} IPv6 intervals")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v4(a: u8, b: u8, c: u8, d: u8) -> IpAddr {
        IpAddr::V4(Ipv4Addr::new(a, b, c, d))
    }

    fn v6(text: &str) -> IpAddr {
        IpAddr::V6(text.parse::<Ipv6Addr>().unwrap())
    }

    #[test]
    fn prefixes() {
        assert_eq!(
            parse_prefix("66.249.64.0/19"),
            Some((v4(66, 249, 64, 0), 19))
        );
        assert_eq!(parse_prefix(" 1.2.3.4 "), Some((v4(1, 2, 3, 4), 32)));
        assert_eq!(
            parse_prefix("2001:4860:4801:10::/64"),
            Some((v6("2001:4860:4801:10::"), 64))
        );
        assert_eq!(parse_prefix("1.2.3.4/33"), None);
        assert_eq!(parse_prefix("creationTime"), None);
        assert_eq!(parse_prefix("1.2.3/24"), None);
    }

    #[test]
    fn lookup_v4_v6_and_mapped() {
        let set = RangeSet::from_prefixes([
            parse_prefix("66.249.64.0/19").unwrap(),
            parse_prefix("66.249.96.0/19").unwrap(),
            parse_prefix("10.0.0.1").unwrap(),
            parse_prefix("2001:4860:4801:10::/64").unwrap(),
        ]);
        assert_eq!(set.intervals(), (2, 1), "adjacent /19s merge");
        assert!(set.contains(v4(66, 249, 66, 1)));
        assert!(set.contains(v4(66, 249, 127, 255)));
        assert!(!set.contains(v4(66, 249, 128, 0)));
        assert!(!set.contains(v4(66, 249, 63, 255)));
        assert!(set.contains(v4(10, 0, 0, 1)));
        assert!(!set.contains(v4(10, 0, 0, 2)));
        assert!(set.contains(v6("2001:4860:4801:10::abcd")));
        assert!(!set.contains(v6("2001:4860:4801:11::1")));
        assert!(set.contains(v6("::ffff:66.249.66.1")));
        let all = RangeSet::from_prefixes([parse_prefix("0.0.0.0/0").unwrap()]);
        assert!(all.contains(v4(255, 255, 255, 255)));
    }

    #[test]
    fn json_in_any_layout() {
        let dir = std::env::temp_dir().join(format!("crawlaudit-ranges-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("googlebot.json"),
            r#"{"creationTime":"2026-01-01T00:00:00","prefixes":[{"ipv4Prefix":"66.249.64.0/27"},{"ipv6Prefix":"2001:4860:4801:10::/64"}]}"#,
        )
        .unwrap();
        std::fs::write(
            dir.join("openai.json"),
            r#"{"gptbot":{"ipv4Prefixes":[{"ipv4Prefix":"20.1.2.0/24"}]}}"#,
        )
        .unwrap();
        std::fs::write(
            dir.join("plain.txt"),
            "# comment\n1.2.3.0/24\n\n5.6.7.8 # one host\n",
        )
        .unwrap();
        let ranges = IpRanges::load_dir(&dir).unwrap();
        assert_eq!(
            ranges.names().collect::<Vec<_>>(),
            ["googlebot.json", "openai.json", "plain.txt"]
        );
        assert!(
            ranges
                .get("googlebot.json")
                .unwrap()
                .contains(v4(66, 249, 64, 1))
        );
        assert!(ranges.get("openai.json").unwrap().contains(v4(20, 1, 2, 3)));
        assert!(ranges.get("plain.txt").unwrap().contains(v4(5, 6, 7, 8)));
        let union = ranges
            .union(&[
                "googlebot.json".into(),
                "missing.json".into(),
                "plain.txt".into(),
            ])
            .unwrap();
        assert!(union.contains(v4(1, 2, 3, 4)) && union.contains(v4(66, 249, 64, 1)));
        assert!(ranges.union(&["missing.json".into()]).is_none());

        std::fs::write(dir.join("bad.txt"), "1.2.3.0/24\nnot-an-ip\n").unwrap();
        let err = IpRanges::load_dir(&dir).unwrap_err().to_string();
        assert!(
            err.contains("bad.txt, line 2") && err.contains("not-an-ip"),
            "{err}"
        );
        std::fs::remove_file(dir.join("bad.txt")).unwrap();
        std::fs::write(dir.join("broken.json"), "{").unwrap();
        let err = IpRanges::load_dir(&dir).unwrap_err().to_string();
        assert!(
            err.contains("broken.json") && err.contains("not valid JSON"),
            "{err}"
        );
        std::fs::write(dir.join("broken.json"), "{\"prefixes\":[]}").unwrap();
        let err = IpRanges::load_dir(&dir).unwrap_err().to_string();
        assert!(err.contains("holds no IP prefix"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn ipv4_mapped_prefixes_are_their_ipv4_prefixes() {
        // Googlebot's 66.249.64.0/19 written in IPv6: /115.
        let set = RangeSet::from_prefixes([parse_prefix("::ffff:66.249.64.0/115").unwrap()]);
        assert_eq!(
            set,
            RangeSet::from_prefixes([parse_prefix("66.249.64.0/19").unwrap()])
        );
        for client in ["66.249.64.1", "66.249.95.255", "::ffff:66.249.64.1"] {
            assert!(set.contains(client.parse().unwrap()), "{client}");
        }
        assert!(!set.contains(v4(66, 249, 96, 0)));
        // A mapped address alone is one IPv4 address.
        let one = RangeSet::from_prefixes([parse_prefix("::ffff:10.0.0.1").unwrap()]);
        assert!(one.contains(v4(10, 0, 0, 1)) && !one.contains(v4(10, 0, 0, 2)));
        // Through a file and the catalogue's verification.
        let path = Path::new("googlebot.txt");
        let (set, warnings) = RangeSet::parse_checked(path, b"::ffff:66.249.64.0/115\n").unwrap();
        assert!(warnings.is_empty());
        assert!(set.contains(v4(66, 249, 64, 1)));
    }

    #[test]
    fn prefixes_too_broad_to_be_evidence_are_skipped_with_a_warning() {
        let path = Path::new("ranges/evil.json");
        let json = br#"{"prefixes":[{"ipv4Prefix":"0.0.0.0/0"},{"ipv6Prefix":"::/0"},{"ipv4Prefix":"66.249.64.0/19"},{"ipv4Prefix":"64.0.0.0/7"},{"ipv6Prefix":"2001::/15"},{"ipv6Prefix":"::ffff:0.0.0.0/96"},{"ipv4Prefix":"10.0.0.0/8"},{"ipv6Prefix":"2001:4860::/16"}]}"#;
        let (set, warnings) = RangeSet::parse_checked(path, json).unwrap();
        let skipped: Vec<&str> = [
            "0.0.0.0/0",
            "::/0",
            "64.0.0.0/7",
            "2001::/15",
            "::ffff:0.0.0.0/96",
        ]
        .into_iter()
        .collect();
        assert_eq!(warnings.len(), skipped.len(), "{warnings:?}");
        for (w, prefix) in warnings.iter().zip(&skipped) {
            assert!(
                w.starts_with(&format!(
                    "IP range file ranges/evil.json: the prefix {prefix} is too broad"
                )),
                "{w}"
            );
        }
        assert!(set.contains(v4(66, 249, 64, 1)) && set.contains(v4(10, 1, 2, 3)));
        assert!(!set.contains(v4(1, 2, 3, 4)) && !set.contains(v6("2002::1")));
        assert!(set.contains(v6("2001:4860::1")));
        // A file of nothing else is not used, with a warning.
        let dir = std::env::temp_dir().join(format!("crawlaudit-broad-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("googlebot.txt"), "0.0.0.0/0\n::/0\n").unwrap();
        std::fs::write(dir.join("bingbot.txt"), "157.55.39.0/24\n").unwrap();
        let ranges = IpRanges::load_dir(&dir).unwrap();
        assert_eq!(ranges.names().collect::<Vec<_>>(), ["bingbot.txt"]);
        assert_eq!(ranges.warnings().len(), 3, "{:?}", ranges.warnings());
        assert!(ranges.warnings()[2].contains("googlebot.txt holds no other prefix"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_says_when_it_was_made_and_for_how_long_it_tells_impostors() {
        let day = crate::time::DAY;
        let at = |text: &str| {
            i64::try_from(text.parse::<jiff::Timestamp>().unwrap().as_nanosecond()).unwrap()
        };
        // Google's layout: no zone, read as UTC.
        let google = RangeSet::parse(
            Path::new("googlebot.json"),
            br#"{"creationTime": "2026-08-21T23:00:48.000000", "prefixes": [{"ipv4Prefix": "66.249.64.0/19"}]}"#,
        )
        .unwrap();
        let made = at("2026-08-21T23:00:48Z");
        assert_eq!(google.created(), Some((made, made)));
        assert!(google.is_current_at(made));
        assert!(google.is_current_at(made - RANGES_VALID_FOR));
        assert!(!google.is_current_at(made - RANGES_VALID_FOR - 1));
        assert!(!google.is_current_at(made + RANGES_VALID_FOR + day));
        // With a zone; a plain list has none (its file's time is used).
        let other = RangeSet::parse(
            Path::new("x.json"),
            br#"{"creationTime": "2026-10-07T00:00:00Z", "prefixes": ["216.73.216.0/22"]}"#,
        )
        .unwrap();
        assert_eq!(
            other.created().map(|c| c.0),
            Some(at("2026-10-07T00:00:00Z"))
        );
        let plain = RangeSet::parse(Path::new("x.txt"), b"66.249.64.0/19\n").unwrap();
        assert_eq!(plain.created(), None);
        assert!(
            plain.is_current_at(0),
            "a set without a time is always taken"
        );
        // Merged: current only where every file is.
        let mut both = google.clone();
        both.extend(&other);
        assert!(both.is_current_at(at("2026-09-10T00:00:00Z")));
        assert!(!both.is_current_at(at("2026-08-25T00:00:00Z")));
        assert!(!both.is_current_at(at("2026-07-25T00:00:00Z")));
        assert!(!both.is_current_at(at("2026-10-30T00:00:00Z")));
    }
}

//! The robots.txt evaluator: RFC 9309, agreeing with Google's reference
//! parser and matcher (github.com/google/robotstxt) where the two differ.
//!
//! [`Robots::parse`] reads a file once (bytes, never failing); [`Robots::group`]
//! picks the group for a crawler's product tokens; [`Group::check`] decides
//! a path and returns a [`Verdict`] that names the deciding rule and its line.
//!
//! ```
//! use crawlaudit::robots::Robots;
//!
//! let robots = Robots::parse(b"User-agent: *\nDisallow: /private/\nAllow: /private/ok\n");
//! let group = robots.group(&["Googlebot"]);
//! let verdict = group.check(b"/private/secret.html");
//! assert!(!verdict.allowed());
//! assert_eq!(verdict.rule().unwrap().to_string(), "2: Disallow: /private/");
//! assert!(group.check(b"/private/ok").allowed());
//! ```
//!
//! Where we deliberately go beyond the reference library:
//! - `/robots.txt` itself is always allowed (RFC 9309 section 2.2.2; the
//!   reference leaves this to its caller).
//! - Only the first 500 KiB are read (Google's documented limit; the
//!   reference library reads whatever it is given).
//! - `Crawl-delay`, `Request-rate`, `Sitemap` and `Noindex` lines are kept
//!   for the audit; to the matcher they are lines it ignores, as in the
//!   reference, so they do not start a new group.

mod extensions;
mod parse;
mod pattern;
mod url;

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

pub use extensions::{CrawlDelay, DelaySource};
pub use parse::{MAX_LINE_BYTES, MAX_ROBOTS_BYTES};
pub use url::{path_params_query, target_path};

use extensions::Extension;
use parse::Key;
pub use pattern::Patterns;
use pattern::{Form, Pattern, Subject};

/// `Allow` or `Disallow`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RuleKind {
    /// An `Allow:` line.
    Allow,
    /// A `Disallow:` line.
    Disallow,
}

impl fmt::Display for RuleKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RuleKind::Allow => "Allow",
            RuleKind::Disallow => "Disallow",
        })
    }
}

/// One `Allow` or `Disallow` rule of a robots.txt.
#[derive(Clone, Debug)]
pub struct Rule {
    kind: RuleKind,
    line: u32,
    /// The pattern as written (white space trimmed), for display, when it
    /// differs from the escaped pattern (most patterns need no escaping:
    /// one copy of their bytes is kept).
    written: Option<Box<[u8]>>,
    pattern: Pattern,
}

impl Rule {
    /// `Allow` or `Disallow`.
    pub fn kind(&self) -> RuleKind {
        self.kind
    }

    /// The 1-based line of robots.txt the rule is on.
    pub fn line(&self) -> u32 {
        self.line
    }

    /// The pattern as written in robots.txt.
    pub fn pattern(&self) -> &[u8] {
        self.written.as_deref().unwrap_or(self.pattern.escaped())
    }

    /// The pattern after escaping (`%xx` upper-cased, non-ASCII bytes
    /// escaped), which is what is matched; its length is the rule's priority.
    pub fn escaped_pattern(&self) -> &[u8] {
        self.pattern.escaped()
    }

    /// The rule's weight: the length in bytes of its escaped pattern. Longer
    /// wins; on a tie, `Allow` wins.
    pub fn priority(&self) -> usize {
        self.pattern.priority()
    }

    /// `Disallow: /private/` (the directive and the pattern as written).
    pub fn directive(&self) -> String {
        format!("{}: {}", self.kind, String::from_utf8_lossy(self.pattern()))
    }

    /// Is `self` the better of two matching rules? Higher priority wins; on
    /// equal priority `Allow` beats `Disallow`; then the earlier line (the
    /// reference keeps the first line of the highest priority).
    fn beats(&self, other: &Rule) -> bool {
        (
            self.priority(),
            self.kind == RuleKind::Allow,
            std::cmp::Reverse(self.line),
        ) > (
            other.priority(),
            other.kind == RuleKind::Allow,
            std::cmp::Reverse(other.line),
        )
    }
}

impl fmt::Display for Rule {
    /// `LINE: Directive: pattern`, as `crawlaudit check` prints it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.line, self.directive())
    }
}

/// A `User-agent` line of a group.
#[derive(Clone, Debug)]
pub struct AgentLine {
    line: u32,
    written: String,
}

impl AgentLine {
    /// The line number.
    pub fn line(&self) -> u32 {
        self.line
    }

    /// The value as written (`Googlebot`, `*`).
    pub fn value(&self) -> &str {
        &self.written
    }
}

/// A run of `User-agent` lines and the lines that follow them until the next
/// `User-agent` line that comes after a rule.
#[derive(Clone, Debug, Default)]
struct Block {
    agents: Vec<AgentLine>,
    /// Sorted best first: priority descending, `Allow` first, line ascending.
    rules: Vec<Rule>,
    delays: Vec<CrawlDelay>,
    /// For a block of many rules, its rules by pattern ([`RuleIndex`]).
    index: Option<RuleIndex>,
}

/// A block's rules by pattern, so that the first rule of the block's order
/// that a path matches is found without trying each: a file of thousands
/// of rules under one directory (`Disallow: /html/A44550_1/`, ...) would
/// otherwise try them all for every path under it. The rules are first
/// split by the second byte of their pattern's first literal part (a path
/// must start with that part to match, so its second byte picks the
/// rules it may match); rules of priority 0 (an empty pattern, which never
/// decides) are left out.
#[derive(Clone, Debug)]
struct RuleIndex {
    /// Per second byte, the rules whose pattern has it, and those whose
    /// first literal part has no second byte.
    by_lead: Box<[(u8, Candidates)]>,
    /// The rules whose first literal part has no second byte alone, for
    /// paths whose second byte no pattern has.
    others: Candidates,
}

/// Rules a path may match: few, tried in the block's order; or many, by
/// pattern form.
#[derive(Clone, Debug)]
enum Candidates {
    /// Places in the block, in its order (fewer than [`INDEXED_RULES`]:
    /// trying each costs less than searching).
    Few(Box<[u32]>),
    /// Many rules, by form.
    Many {
        /// The `Prefix` rules, by literal, then by place in the block.
        prefixes: Box<[u32]>,
        /// The `Exact` rules, by literal, then by place in the block.
        exacts: Box<[u32]>,
        /// The `Glob` rules, in the block's order.
        globs: Box<[u32]>,
    },
}

impl RuleIndex {
    /// The index of `rules` (a block's, in its order).
    fn of(rules: &[Rule]) -> RuleIndex {
        let mut by_lead: std::collections::BTreeMap<u8, Vec<u32>> = Default::default();
        let mut others = Vec::new();
        for (i, rule) in rules.iter().enumerate() {
            if rule.priority() == 0 {
                continue;
            }
            let i = u32::try_from(i).expect("a block's rules fit robots.txt's 500 KiB");
            match rule.pattern.lead() {
                Some(b) => by_lead.entry(b).or_default().push(i),
                None => others.push(i),
            }
        }
        let by_lead = by_lead
            .into_iter()
            .map(|(b, mut list)| {
                list.extend_from_slice(&others);
                (b, Candidates::of(rules, list))
            })
            .collect();
        RuleIndex {
            by_lead,
            others: Candidates::of(rules, others),
        }
    }

    /// The place of the first rule of `rules` (the block's, which this
    /// indexes) that `subject` matches.
    fn first_match(&self, rules: &[Rule], subject: &Subject<'_>) -> Option<usize> {
        let candidates = subject
            .path
            .get(1)
            .and_then(|b| self.by_lead.binary_search_by_key(b, |(k, _)| *k).ok())
            .map_or(&self.others, |i| &self.by_lead[i].1);
        candidates.first_match(rules, subject)
    }
}

impl Candidates {
    /// The rules `list` (places in `rules`, in its order).
    fn of(rules: &[Rule], mut list: Vec<u32>) -> Candidates {
        list.sort_unstable();
        if list.len() < INDEXED_RULES {
            return Candidates::Few(list.into_boxed_slice());
        }
        let (mut prefixes, mut exacts, mut globs) = (Vec::new(), Vec::new(), Vec::new());
        for i in list {
            match rules[i as usize].pattern.form() {
                Form::Prefix(_) => prefixes.push(i),
                Form::Exact(_) => exacts.push(i),
                Form::Glob => globs.push(i),
            }
        }
        let by_literal = |mut list: Vec<u32>| {
            list.sort_unstable_by_key(|&i| (literal(&rules[i as usize]), i));
            list.into_boxed_slice()
        };
        Candidates::Many {
            prefixes: by_literal(prefixes),
            exacts: by_literal(exacts),
            globs: globs.into_boxed_slice(),
        }
    }

    /// The place of the first of these rules, in the block's order, that
    /// `subject` matches: the longest prefix literal of its path, an exact
    /// literal equal to it, or a glob, whichever comes first (priority
    /// first: a prefix's and an exact pattern's are their escaped length).
    fn first_match(&self, rules: &[Rule], subject: &Subject<'_>) -> Option<usize> {
        let (prefixes, exacts, globs) = match self {
            Candidates::Few(list) => {
                return list
                    .iter()
                    .map(|&i| i as usize)
                    .find(|&i| rules[i].pattern.matches(subject));
            }
            Candidates::Many {
                prefixes,
                exacts,
                globs,
            } => (prefixes, exacts, globs),
        };
        let literal_of = |i: u32| literal(&rules[i as usize]);
        let path = subject.path;
        // The first of the rules whose literal is `text` (they lie together,
        // by place).
        let first_of = |list: &[u32], text: &[u8]| -> Option<u32> {
            let at = list.partition_point(|&i| literal_of(i) < text);
            list.get(at).copied().filter(|&i| literal_of(i) == text)
        };
        let mut first = first_of(exacts, path);
        // The longest literal that starts the path: the last literal at or
        // before `query` is one when it starts it; when not, no literal
        // longer than their common start can be one (it would sort between
        // the two), so the query is cut to that start.
        let mut query = path;
        while let Some(at) = prefixes
            .partition_point(|&i| literal_of(i) <= query)
            .checked_sub(1)
        {
            let found = literal_of(prefixes[at]);
            if query.starts_with(found) {
                let i = first_of(prefixes, found).expect("found is listed");
                first = Some(first.map_or(i, |f| f.min(i)));
                break;
            }
            let common = query.iter().zip(found).take_while(|(a, b)| a == b).count();
            query = &query[..common];
        }
        // The globs before it, in order.
        let glob = globs
            .iter()
            .take_while(|&&g| first.is_none_or(|f| g < f))
            .find(|&&g| rules[g as usize].pattern.matches(subject));
        first = glob.copied().or(first);
        first.map(|i| i as usize)
    }
}

/// A `Prefix` or `Exact` rule's literal (empty for a glob: not asked).
fn literal(rule: &Rule) -> &[u8] {
    match rule.pattern.form() {
        Form::Prefix(l) | Form::Exact(l) => l,
        Form::Glob => &[],
    }
}

/// The block's best rule matching `subject` makes `best` when it beats it:
/// `rules` are in the block's order (best first), so the scan stops at the
/// first match, or at the first rule that cannot win any more.
fn best_of_block<'r>(
    rules: impl Iterator<Item = &'r Rule>,
    subject: &Subject<'_>,
    best: &mut Option<&'r Rule>,
) {
    for rule in rules {
        if rule.priority() == 0 || best.is_some_and(|best| rule.priority() < best.priority()) {
            break;
        }
        if rule.pattern.matches(subject) {
            if best.is_none_or(|best| rule.beats(best)) {
                *best = Some(rule);
            }
            break;
        }
    }
}

/// Blocks with fewer rules are scanned whole.
const INDEXED_RULES: usize = 16;

impl Block {
    /// Hashes what the block is made of: its `User-agent` lines, rules
    /// and delays, with their line numbers ([`Block::same_content`]).
    fn hash_content<H: std::hash::Hasher>(&self, state: &mut H) {
        use std::hash::Hash;
        self.agents.len().hash(state);
        for a in &self.agents {
            (a.line, &a.written).hash(state);
        }
        self.rules.len().hash(state);
        for r in &self.rules {
            (r.kind, r.line, &r.written, r.pattern.escaped()).hash(state);
        }
        self.delays.len().hash(state);
        for d in &self.delays {
            (d.line(), d.seconds().to_bits()).hash(state);
        }
    }

    /// Are two blocks made of the same lines (the same agents, rules and
    /// delays, on the same line numbers)? Such blocks answer every query
    /// alike, naming the same rules and lines. Their indexes are made of
    /// their rules, so they are alike too.
    fn same_content(&self, other: &Block) -> bool {
        self.agents.len() == other.agents.len()
            && self.rules.len() == other.rules.len()
            && self.delays == other.delays
            && self
                .agents
                .iter()
                .zip(&other.agents)
                .all(|(a, b)| a.line == b.line && a.written == b.written)
            && self.rules.iter().zip(&other.rules).all(|(a, b)| {
                a.kind == b.kind
                    && a.line == b.line
                    && a.written == b.written
                    && a.pattern.escaped() == b.pattern.escaped()
            })
    }

    /// Indexes the rules (once sorted) when there are many.
    fn index(&mut self) {
        self.index = (self.rules.len() >= INDEXED_RULES).then(|| RuleIndex::of(&self.rules));
    }

    /// The block's best rule matching `subject` makes `best` when it beats
    /// it: the first rule of the block's order that matches, found through
    /// the index when the block has one.
    fn best<'r>(&'r self, subject: &Subject<'_>, best: &mut Option<&'r Rule>) {
        let Some(index) = &self.index else {
            return best_of_block(self.rules.iter(), subject, best);
        };
        let Some(rule) = index
            .first_match(&self.rules, subject)
            .map(|i| &self.rules[i])
        else {
            return;
        };
        // A rule of lower priority than the best found in another block
        // never beats it (the whole scan stops before it).
        if best.is_none_or(|best| rule.beats(best)) {
            *best = Some(rule);
        }
    }
}

/// A `Noindex:` line (not part of the standard; Google stopped honouring it
/// in 2019). Recorded so that the audit can report it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoindexLine {
    /// The line number.
    pub line: u32,
    /// The value as written.
    pub value: String,
}

/// Facts about how a file was read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ParseStats {
    /// Lines read.
    pub lines: u32,
    /// Lines longer than [`MAX_LINE_BYTES`], which were cut.
    pub long_lines: u32,
    /// Bytes past [`MAX_ROBOTS_BYTES`] that were ignored.
    pub ignored_bytes: usize,
    /// `Allow`/`Disallow`/extension lines before any `User-agent` line,
    /// which apply to no one.
    pub rules_outside_groups: u32,
}

/// A parsed robots.txt, ready to answer many queries.
#[derive(Clone, Debug, Default)]
pub struct Robots {
    /// Shared with the files read before through the same [`Patterns`]
    /// that wrote a block alike.
    blocks: Vec<Arc<Block>>,
    /// Lower-cased product token (as the reference extracts it) to the
    /// blocks that name it.
    by_agent: HashMap<Box<[u8]>, Vec<u32>>,
    /// Lower-cased user-agent value up to its first space or `/`, where it
    /// differs from the reference's product token (`mj12bot`, which the
    /// reference reads as `mj`), to the blocks naming it either way: what
    /// the site owner wrote, for [`Robots::group_for`].
    by_written: HashMap<Box<[u8]>, Vec<u32>>,
    /// Blocks with a `*` user-agent.
    global: Vec<u32>,
    sitemaps: Vec<(u32, String)>,
    noindex: Vec<NoindexLine>,
    stats: ParseStats,
    /// Does a block ask for a crawl delay (`Crawl-delay` or
    /// `Request-rate`)?
    delays: bool,
}

/// The product token of a robots.txt `User-agent` value as the reference
/// extracts it: its leading run of `[A-Za-z_-]`.
///
/// ```
/// use crawlaudit::robots::product_token;
/// assert_eq!(product_token("Googlebot/2.1"), "Googlebot");
/// assert_eq!(product_token("Foo Bar"), "Foo");
/// assert_eq!(product_token("*"), "");
/// ```
pub fn product_token(value: &str) -> &str {
    let end = value
        .bytes()
        .position(|b| !(b.is_ascii_alphabetic() || b == b'-' || b == b'_'))
        .unwrap_or(value.len());
    &value[..end]
}

/// A `User-agent` value as its author wrote the name: up to the first
/// white space or `/`.
fn written_name(value: &[u8]) -> &[u8] {
    let end = value
        .iter()
        .position(|&b| b == b'/' || b.is_ascii_whitespace())
        .unwrap_or(value.len());
    &value[..end]
}

fn product_token_bytes(value: &[u8]) -> &[u8] {
    let end = value
        .iter()
        .position(|&b| !(b.is_ascii_alphabetic() || b == b'-' || b == b'_'))
        .unwrap_or(value.len());
    &value[..end]
}

/// A block's Allow and Disallow lines as read: kind, line number, value.
type RuleLines<'a> = Vec<(RuleKind, u32, &'a [u8])>;

/// A block as [`Robots::parse_with`] reads it: its `User-agent` lines and
/// delays, its rules as written (compiled when the block is complete), and
/// where its lines lie in the file.
struct Building<'a> {
    block: Block,
    /// Allow and Disallow lines: kind, line number, value.
    rules: RuleLines<'a>,
    /// The number of its first line, and the length of its value (the
    /// bytes of the line before the value are not in the block's text: a
    /// line cut at its longest keeps a value of that length).
    first_line: (u32, usize),
    /// Where its first line's value starts in the file, and where its last
    /// line's ends.
    start: usize,
    end: usize,
}

impl<'a> Building<'a> {
    /// A block whose first line, numbered `first_line`, has its value of
    /// `len` bytes at byte `start`; `rules` (empty, with room) will hold
    /// its Allow and Disallow lines.
    fn new(first_line: u32, start: usize, len: usize, rules: RuleLines<'a>) -> Self {
        debug_assert!(rules.is_empty());
        Building {
            block: Block::default(),
            rules,
            first_line: (first_line, len),
            start,
            end: start + len,
        }
    }

    /// Its lines reach byte `end`.
    fn reaches(&mut self, end: usize) {
        self.end = self.end.max(end);
    }

    /// The complete block, shared through `patterns`. A block whose text
    /// (from its first line's value to its last line's value's end, at the
    /// same line number, its first value as long) `patterns` has met in
    /// more than one file is that block, its rules not compiled again: the
    /// same bytes on the same lines read as the same lines (the tokenizer
    /// reads each line of its own bytes), so they make the same block.
    /// Its lines' vector comes back emptied (its room kept), for the next
    /// block.
    fn finish(mut self, body: &[u8], patterns: &mut Patterns) -> (Arc<Block>, RuleLines<'a>) {
        let text = &body[self.start..self.end];
        if let Some(shared) = patterns.block_written(self.first_line, text) {
            self.rules.clear();
            return (shared, self.rules);
        }
        let mut block = self.block;
        // One allocation for the rules (an `Allow: /dir/index.html` adds a
        // second rule, and a rare growth).
        block.rules.reserve_exact(self.rules.len());
        for (kind, line, value) in self.rules.drain(..) {
            let escaped = pattern::escape_pattern(value);
            let rule = Rule {
                kind,
                line,
                written: (value != &escaped[..]).then(|| value.into()),
                pattern: Pattern::new_in(&escaped, patterns),
            };
            if kind == RuleKind::Allow {
                if let Some(dir) = index_html_directory(&escaped) {
                    // Google treats "Allow: /dir/index.html" as also
                    // allowing "/dir/" (and only that).
                    // It shows as the rule written.
                    block.rules.push(Rule {
                        pattern: Pattern::new_in(&dir, patterns),
                        written: Some(rule.pattern().into()),
                        ..rule.clone()
                    });
                }
            }
            block.rules.push(rule);
        }
        // Best first: higher priority, then Allow, then the earlier
        // line. No two rules share all three (the `/dir/$` rule an
        // `Allow: /dir/index.html` adds shares its line but is
        // shorter), so the order is total and an unstable sort gives
        // the stable sort's result.
        block.rules.sort_unstable_by_key(|r| {
            (
                std::cmp::Reverse(r.priority()),
                r.kind != RuleKind::Allow,
                r.line,
            )
        });
        block.rules.shrink_to_fit();
        // Indexed once shared: a block met before has its index already.
        (patterns.block(block, self.first_line, text), self.rules)
    }
}

/// Is a `User-agent` value the global `*`? Google also takes `*` followed by
/// white space and more text as global.
fn is_global_agent(value: &[u8]) -> bool {
    value.first() == Some(&b'*')
        && value
            .get(1)
            .is_none_or(|&b| matches!(b, b' ' | b'\t' | b'\n' | b'\x0B' | b'\x0C' | b'\r'))
}

impl Robots {
    /// Parses a robots.txt body. Never fails: whatever is not understood is
    /// ignored, as RFC 9309 asks.
    pub fn parse(body: &[u8]) -> Robots {
        Robots::parse_with(body, &mut Patterns::default())
    }

    /// As [`Robots::parse`], the patterns' bytes shared with the equal
    /// patterns of the files read before with `patterns`.
    pub fn parse_with(body: &[u8], patterns: &mut Patterns) -> Robots {
        let mut robots = Robots::default();
        // The blocks read, each shared through `patterns` once complete.
        let mut blocks: Vec<Arc<Block>> = Vec::new();
        // The block being read.
        let mut building: Option<Building<'_>> = None;
        // The blocks' Allow and Disallow lines, one vector handed from
        // block to block, made once with room for every line of the file
        // (grown by doubling, a file of hundreds of rules copied its lines
        // nine times).
        let read = &body[..body.len().min(MAX_ROBOTS_BYTES)];
        let mut lines = Vec::with_capacity(memchr::memchr_iter(b'\n', read).count() + 1);
        // True once the current block has seen an Allow/Disallow line: the
        // next User-agent line then starts a new block.
        let mut block_has_rule = false;
        // Where a value lies in `body` (the tokenizer's lines are slices of
        // it).
        let at = |value: &[u8]| value.as_ptr() as usize - body.as_ptr() as usize;
        let tokens = parse::tokenize(body, |line| {
            let number = line.number;
            match line.key {
                Key::UserAgent => {
                    if building.is_none() || block_has_rule {
                        if let Some(done) = building.take() {
                            let (block, emptied) = done.finish(body, patterns);
                            blocks.push(block);
                            lines = emptied;
                        }
                        building = Some(Building::new(
                            number,
                            at(line.value),
                            line.value.len(),
                            std::mem::take(&mut lines),
                        ));
                        block_has_rule = false;
                    }
                    let block = building.as_mut().expect("a block was started");
                    block.reaches(at(line.value) + line.value.len());
                    let index = blocks.len() as u32;
                    let written = String::from_utf8_lossy(line.value).into_owned();
                    block.block.agents.push(AgentLine {
                        line: number,
                        written,
                    });
                    let list = if is_global_agent(line.value) {
                        &mut robots.global
                    } else {
                        let name = product_token_bytes(line.value).to_ascii_lowercase();
                        let written = written_name(line.value).to_ascii_lowercase();
                        if written != name && !written.is_empty() {
                            let list = robots
                                .by_written
                                .entry(written.into_boxed_slice())
                                .or_default();
                            if list.last() != Some(&index) {
                                list.push(index);
                            }
                        }
                        robots.by_agent.entry(name.into_boxed_slice()).or_default()
                    };
                    if list.last() != Some(&index) {
                        list.push(index);
                    }
                }
                Key::Allow | Key::Disallow => {
                    let Some(block) = building.as_mut() else {
                        robots.stats.rules_outside_groups += 1;
                        return;
                    };
                    block_has_rule = true;
                    block.reaches(at(line.value) + line.value.len());
                    let kind = if line.key == Key::Allow {
                        RuleKind::Allow
                    } else {
                        RuleKind::Disallow
                    };
                    block.rules.push((kind, number, line.value));
                }
                Key::Sitemap => {
                    robots
                        .sitemaps
                        .push((number, String::from_utf8_lossy(line.value).into_owned()));
                }
                Key::Other(key) => match extensions::classify(key) {
                    Some(Extension::Noindex) => robots.noindex.push(NoindexLine {
                        line: number,
                        value: String::from_utf8_lossy(line.value).into_owned(),
                    }),
                    Some(ext @ (Extension::CrawlDelay | Extension::RequestRate)) => {
                        let Some(block) = building.as_mut() else {
                            robots.stats.rules_outside_groups += 1;
                            return;
                        };
                        block.reaches(at(line.value) + line.value.len());
                        let delay = if ext == Extension::CrawlDelay {
                            extensions::parse_crawl_delay(number, line.value)
                        } else {
                            extensions::parse_request_rate(number, line.value)
                        };
                        block.block.delays.extend(delay);
                    }
                    None => {}
                },
            }
        });
        if let Some(done) = building.take() {
            blocks.push(done.finish(body, patterns).0);
        }
        robots.blocks = blocks;
        // A name written as such also selects the blocks that the
        // reference's reading gives it (`User-agent: MJ12bot` and a later
        // `User-agent: mj12bot/1.0` are one crawler's).
        for (name, blocks) in &mut robots.by_written {
            if let Some(more) = robots.by_agent.get(name) {
                blocks.extend_from_slice(more);
                blocks.sort_unstable();
                blocks.dedup();
            }
        }
        robots.stats.lines = tokens.lines;
        robots.stats.long_lines = tokens.long_lines;
        robots.stats.ignored_bytes = tokens.ignored_bytes;
        robots.delays = robots.blocks.iter().any(|b| !b.delays.is_empty());
        robots
    }

    /// The `User-agent` values of the group a rule or `Crawl-delay` line
    /// belongs to (`["GPTBot", "ChatGPT-User"]`); `None` when no group
    /// holds that line.
    pub fn agents_of_line(&self, line: u32) -> Option<Vec<&str>> {
        self.blocks
            .iter()
            .find(|b| {
                b.rules.iter().any(|r| r.line == line) || b.delays.iter().any(|d| d.line() == line)
            })
            .map(|b| b.agents.iter().map(|a| a.written.as_str()).collect())
    }

    /// The group that applies to a crawler whose robots.txt product tokens
    /// are `tokens`, in order of preference (`["Googlebot-Image",
    /// "Googlebot"]`), exactly as Google's reference matcher selects it:
    /// the groups naming the first token that any group names, merged;
    /// else the `*` groups, merged; else no group (everything allowed).
    /// Tokens are compared with the group's user-agent value (its leading
    /// `[A-Za-z_-]` run) without regard to case.
    pub fn group(&self, tokens: &[&str]) -> Group<'_> {
        self.group_google(tokens, true)
    }

    /// As [`Robots::group`], for a crawler that may ignore `*` groups
    /// (`obeys_global = false`, as Google's AdsBot does): then only groups
    /// naming one of its tokens apply, and without one everything is allowed.
    pub fn group_google(&self, tokens: &[&str], obeys_global: bool) -> Group<'_> {
        self.select(tokens, obeys_global, false)
    }

    /// The group written for a crawler, as the audit judges it: as
    /// [`Robots::group_google`], but a token also names a group whose
    /// user-agent value, up to its first space or `/`, equals it without
    /// regard to case. `User-agent: MJ12bot` is then Majestic's group,
    /// which Google's parser reads as `MJ` and never gives the token
    /// `MJ12bot`. For tokens of letters, `-` and `_` (all of Google's) both
    /// readings agree.
    pub fn group_for(&self, tokens: &[&str], obeys_global: bool) -> Group<'_> {
        self.select(tokens, obeys_global, true)
    }

    /// User-agent lines whose value reads differently under Google's
    /// parser than as written (`MJ12bot` is `MJ` to it): (line, the value
    /// as written, Google's reading). `check` and `rules` warn of them.
    pub fn agents_read_differently(&self) -> Vec<(u32, &str, &str)> {
        let mut out: Vec<(u32, &str, &str)> = self
            .blocks
            .iter()
            .flat_map(|b| &b.agents)
            .filter_map(|a| {
                let value = a.written.as_str();
                if is_global_agent(value.as_bytes()) {
                    return None;
                }
                let google = product_token(value);
                let written = std::str::from_utf8(written_name(value.as_bytes())).unwrap_or(value);
                (!written.eq_ignore_ascii_case(google)).then_some((a.line, value, google))
            })
            .collect();
        out.sort_unstable_by_key(|a| a.0);
        out
    }

    fn select(&self, tokens: &[&str], obeys_global: bool, as_written: bool) -> Group<'_> {
        for token in tokens {
            let lower = token.as_bytes().to_ascii_lowercase();
            let written = if as_written {
                self.by_written.get(lower.as_slice())
            } else {
                None
            };
            if let Some(blocks) = written.or_else(|| self.by_agent.get(lower.as_slice())) {
                return self.group_of(blocks, Selection::Specific((*token).to_string()));
            }
        }
        if self.global.is_empty() || !obeys_global {
            self.group_of(&[], Selection::None)
        } else {
            self.group_of(&self.global, Selection::Global)
        }
    }

    /// The group of `blocks`, chosen as `selection` says.
    fn group_of<'r>(&'r self, blocks: &'r [u32], selection: Selection) -> Group<'r> {
        Group {
            robots: self,
            blocks,
            only: match blocks {
                [b] => Some(&self.blocks[*b as usize]),
                _ => None,
            },
            selection,
        }
    }

    /// Shorthand for `self.group(tokens).check(path)`.
    pub fn check(&self, tokens: &[&str], path: &[u8]) -> Verdict<'_> {
        self.group(tokens).check(path)
    }

    /// Does any group ask for a crawl delay? When not, no crawler's group
    /// does ([`Group::crawl_delay`] is `None` for every selection).
    pub fn has_crawl_delays(&self) -> bool {
        self.delays
    }

    /// `Sitemap:` lines, with their line numbers.
    pub fn sitemaps(&self) -> &[(u32, String)] {
        &self.sitemaps
    }

    /// `Noindex:` lines (unsupported by every major crawler).
    pub fn noindex_lines(&self) -> &[NoindexLine] {
        &self.noindex
    }

    /// Facts about how the file was read.
    pub fn stats(&self) -> ParseStats {
        self.stats
    }
}

/// For an allow pattern whose last path segment starts with `index.htm`,
/// the pattern `<directory>/$` that Google also allows.
fn index_html_directory(escaped: &[u8]) -> Option<Vec<u8>> {
    let slash = memchr::memrchr(b'/', escaped)?;
    if !escaped[slash..].starts_with(b"/index.htm") {
        return None;
    }
    let mut dir = escaped[..=slash].to_vec();
    dir.push(b'$');
    Some(dir)
}

/// Which groups were chosen for a crawler.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selection {
    /// Groups naming this product token.
    Specific(String),
    /// The `*` groups (no group names any of the crawler's tokens).
    Global,
    /// No group applies: everything is allowed.
    None,
}

/// The rules that apply to one crawler: all groups naming its token merged,
/// or the `*` groups.
#[derive(Clone, Debug)]
pub struct Group<'r> {
    robots: &'r Robots,
    blocks: &'r [u32],
    /// The block of a group of one block (most are), found once: a check
    /// then reads neither `blocks` nor the file's list of blocks (with a
    /// snapshot of thousands of hosts, each read is a miss in the cache).
    only: Option<&'r Block>,
    selection: Selection,
}

/// Why a path was allowed or disallowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// The rule decided.
    Rule,
    /// No rule of the group matched (or only empty ones): allowed.
    NoMatchingRule,
    /// No group applies to the crawler: allowed.
    NoGroup,
    /// `/robots.txt` itself, always allowed (RFC 9309 section 2.2.2).
    RobotsTxt,
}

/// The decision for one path.
#[derive(Clone, Copy, Debug)]
pub struct Verdict<'r> {
    allowed: bool,
    rule: Option<&'r Rule>,
    reason: Reason,
}

impl<'r> Verdict<'r> {
    /// May the crawler fetch the path?
    pub fn allowed(&self) -> bool {
        self.allowed
    }

    /// The deciding rule, if a rule decided.
    pub fn rule(&self) -> Option<&'r Rule> {
        self.rule
    }

    /// Why.
    pub fn reason(&self) -> Reason {
        self.reason
    }
}

impl<'r> Group<'r> {
    /// What decides its verdicts: the file and the blocks chosen. Groups
    /// with one key answer every path alike, whatever crawler chose them.
    pub(crate) fn key(&self) -> (usize, usize, usize) {
        (
            std::ptr::from_ref(self.robots) as usize,
            self.blocks.as_ptr() as usize,
            self.blocks.len(),
        )
    }

    /// Which groups were chosen.
    pub fn selection(&self) -> &Selection {
        &self.selection
    }

    /// The `User-agent` lines of the chosen groups.
    pub fn agent_lines(&self) -> impl Iterator<Item = &'r AgentLine> + 'r {
        let robots = self.robots;
        self.blocks
            .iter()
            .flat_map(move |&b| robots.blocks[b as usize].agents.iter())
    }

    /// The rules of the chosen groups, best first within each group.
    pub fn rules(&self) -> impl Iterator<Item = &'r Rule> + 'r {
        let robots = self.robots;
        self.blocks
            .iter()
            .flat_map(move |&b| robots.blocks[b as usize].rules.iter())
    }

    /// Decides `path` (path and query, starting with `/`, as
    /// [`path_params_query`] or [`target_path`] return it).
    ///
    /// The longest matching pattern wins (its length counted in bytes after
    /// escaping); on a tie `Allow` wins; an empty pattern never decides.
    pub fn check(&self, path: &[u8]) -> Verdict<'r> {
        if path == b"/robots.txt" {
            return Verdict {
                allowed: true,
                rule: None,
                reason: Reason::RobotsTxt,
            };
        }
        if self.selection == Selection::None {
            return Verdict {
                allowed: true,
                rule: None,
                reason: Reason::NoGroup,
            };
        }
        let subject = Subject::new(path);
        let mut best: Option<&'r Rule> = None;
        match self.only {
            Some(block) => block.best(&subject, &mut best),
            None => {
                for &b in self.blocks {
                    self.robots.blocks[b as usize].best(&subject, &mut best);
                }
            }
        }
        match best {
            Some(rule) => Verdict {
                allowed: rule.kind == RuleKind::Allow,
                rule: Some(rule),
                reason: Reason::Rule,
            },
            None => Verdict {
                allowed: true,
                rule: None,
                reason: Reason::NoMatchingRule,
            },
        }
    }

    /// The crawl delay the group asks for: the strictest (longest) of its
    /// `Crawl-delay` and `Request-rate` lines, or `None`.
    pub fn crawl_delay(&self) -> Option<&'r CrawlDelay> {
        let robots = self.robots;
        self.blocks
            .iter()
            .flat_map(|&b| robots.blocks[b as usize].delays.iter())
            .fold(None, |best: Option<&CrawlDelay>, d| match best {
                Some(b) if b.seconds() >= d.seconds() => Some(b),
                _ => Some(d),
            })
    }
}

#[cfg(test)]
mod tests;

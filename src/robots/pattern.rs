//! robots.txt path patterns: escaping as the reference does, and a matcher
//! that never backtracks.

use std::borrow::Cow;
use std::sync::Arc;

use memchr::memmem;

/// Escapes a rule value the way Google's reference parser does
/// (`MaybeEscapePattern`): `%xx` escapes get upper-case hex digits and every
/// byte with the high bit set becomes `%XX`. Everything else is kept.
pub(crate) fn escape_pattern(value: &[u8]) -> Cow<'_, [u8]> {
    // Most values hold neither an escape nor a non-ASCII byte: two
    // vectorised scans say so, instead of the byte walk below.
    if value.is_ascii() && memchr::memchr(b'%', value).is_none() {
        return Cow::Borrowed(value);
    }
    let is_escape = |i: usize| {
        value[i] == b'%'
            && value.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
            && value.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
    };
    let mut needs_change = false;
    let mut i = 0;
    while i < value.len() {
        if is_escape(i) {
            if value[i + 1].is_ascii_lowercase() || value[i + 2].is_ascii_lowercase() {
                needs_change = true;
            }
            i += 3;
        } else {
            if value[i] & 0x80 != 0 {
                needs_change = true;
            }
            i += 1;
        }
    }
    if !needs_change {
        return Cow::Borrowed(value);
    }
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = Vec::with_capacity(value.len() * 3);
    let mut i = 0;
    while i < value.len() {
        if is_escape(i) {
            out.push(b'%');
            out.push(value[i + 1].to_ascii_uppercase());
            out.push(value[i + 2].to_ascii_uppercase());
            i += 3;
        } else {
            let b = value[i];
            if b & 0x80 != 0 {
                out.extend_from_slice(&[b'%', HEX[usize::from(b >> 4)], HEX[usize::from(b & 0xf)]]);
            } else {
                out.push(b);
            }
            i += 1;
        }
    }
    Cow::Owned(out)
}

/// A set of byte values, used to reject a pattern quickly when the path
/// lacks one of the bytes the pattern needs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ByteSet([u64; 4]);

impl ByteSet {
    pub(crate) fn of(bytes: &[u8]) -> Self {
        let mut set = ByteSet::default();
        for &b in bytes {
            set.0[usize::from(b >> 6)] |= 1 << (b & 63);
        }
        set
    }

    /// The set of `bytes` without `except` (a pattern's bytes but its
    /// wildcard), with no copy of the bytes made.
    fn of_except(bytes: &[u8], except: u8) -> Self {
        let mut set = ByteSet::of(bytes);
        set.0[usize::from(except >> 6)] &= !(1 << (except & 63));
        set
    }

    fn is_subset_of(&self, other: &ByteSet) -> bool {
        self.0.iter().zip(other.0.iter()).all(|(a, b)| a & !b == 0)
    }
}

/// A path as the matcher sees it: its bytes, the set of byte values in it,
/// and (built on first need) where each byte next occurs.
#[derive(Debug)]
pub(crate) struct Subject<'p> {
    pub(crate) path: &'p [u8],
    set: ByteSet,
    next: std::cell::OnceCell<Option<NextTable>>,
}

impl<'p> Subject<'p> {
    pub(crate) fn new(path: &'p [u8]) -> Self {
        Subject {
            path,
            set: ByteSet::of(path),
            next: std::cell::OnceCell::new(),
        }
    }

    /// The first position of `needle` in `path[from..end]`.
    fn find(&self, from: usize, end: usize, needle: &[u8]) -> Option<usize> {
        let Some(table) = self.next.get_or_init(|| NextTable::new(self.path)) else {
            return find(&self.path[from..end], needle).map(|i| i + from);
        };
        let Some((&first, rest)) = needle.split_first() else {
            return Some(from);
        };
        let mut i = table.next(first, from)?;
        while i + needle.len() <= end {
            if self.path[i + 1..].starts_with(rest) {
                return Some(i);
            }
            i = table.next(first, i + 1)?;
        }
        None
    }
}

/// For each byte value in a path, the next position at or after each index
/// where it occurs. Built once per path when a wildcard pattern needs its
/// middle segments searched, so that a file with thousands of `*` patterns
/// costs a table lookup per segment instead of a scan.
#[derive(Debug)]
struct NextTable {
    /// Row of each byte value, plus one; 0 for bytes not in the path.
    row_of: [u16; 256],
    /// `rows * (len + 1)` positions; `u32::MAX` for "none".
    next: Box<[u32]>,
    width: usize,
}

impl NextTable {
    /// Paths longer than this are searched with `memchr` instead.
    const MAX_PATH: usize = 4096;

    fn new(path: &[u8]) -> Option<NextTable> {
        if path.len() > Self::MAX_PATH {
            return None;
        }
        let mut row_of = [0u16; 256];
        let mut rows = 0u16;
        for &b in path {
            if row_of[usize::from(b)] == 0 {
                rows += 1;
                row_of[usize::from(b)] = rows;
            }
        }
        let width = path.len() + 1;
        let mut next = vec![u32::MAX; usize::from(rows) * width].into_boxed_slice();
        let mut last = vec![u32::MAX; usize::from(rows)];
        for i in (0..path.len()).rev() {
            let r = usize::from(row_of[usize::from(path[i])] - 1);
            last[r] = i as u32;
            for (row, &pos) in last.iter().enumerate() {
                next[row * width + i] = pos;
            }
        }
        Some(NextTable {
            row_of,
            next,
            width,
        })
    }

    fn next(&self, byte: u8, from: usize) -> Option<usize> {
        let row = self.row_of[usize::from(byte)];
        if row == 0 {
            return None;
        }
        let pos = self.next[usize::from(row - 1) * self.width + from];
        (pos != u32::MAX).then_some(pos as usize)
    }
}

/// How a pattern is matched.
#[derive(Clone, Debug)]
enum Shape {
    /// No `*` and no trailing `$`: a prefix comparison.
    Prefix,
    /// No `*` and a trailing `$`: the whole path must equal the literal.
    Exact,
    /// One or more `*`: literal segments found left to right (boxed: most
    /// patterns are prefixes, and a snapshot of many hosts holds
    /// hundreds of thousands of patterns).
    Glob(Box<Glob>),
}

/// What a pattern is, as an index of many reads it: a path must start
/// with a `Prefix`'s literal, equal an `Exact`'s; a `Glob` is matched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form<'a> {
    /// No `*` and no trailing `$`.
    Prefix(&'a [u8]),
    /// No `*` and a trailing `$` (the literal without it).
    Exact(&'a [u8]),
    /// One or more `*`.
    Glob,
}

/// What a pattern with `*` is matched by.
#[derive(Clone, Debug)]
struct Glob {
    /// Byte ranges of the literal segments in `literal`, split at `*`.
    segments: Box<[(u32, u32)]>,
    /// A trailing `$` anchors the last segment at the end of the path.
    anchored: bool,
    /// Bytes the path must contain: a quick no before the segments are
    /// looked for (a prefix or an exact pattern compares at once).
    needs: ByteSet,
}

/// The patterns and groups met while reading robots.txt files, each
/// once: a snapshot of thousands of hosts repeats the same rules in every
/// host's file, and each pattern's bytes are then kept once per reader (the
/// benchmark's 10,000 hosts: 3.2 million rules, 10,321 distinct
/// patterns); a block of `User-agent` lines and rules written alike in
/// several files (line numbers included: a hosting platform's default
/// file, a shop system's template) is kept once too, so that checking a
/// path against it reads memory that the other hosts' requests keep warm.
#[derive(Debug, Default)]
pub struct Patterns {
    patterns: foldhash::HashSet<Arc<[u8]>>,
    blocks: foldhash::HashSet<SharedBlock>,
    /// Blocks met in more than one file, by their first line's number and
    /// value's length, then their text (from that value to their last
    /// line's value's end): met again, they are not compiled again. Only
    /// repeated blocks are kept here, so a snapshot of distinct files
    /// holds no text twice.
    #[allow(clippy::type_complexity)]
    written: foldhash::HashMap<(u32, usize), foldhash::HashMap<Box<[u8]>, Arc<super::Block>>>,
}

/// A block, hashed and compared by what it is made of.
#[derive(Debug)]
struct SharedBlock(Arc<super::Block>);

impl std::hash::Hash for SharedBlock {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.hash_content(state);
    }
}

impl PartialEq for SharedBlock {
    fn eq(&self, other: &Self) -> bool {
        self.0.same_content(&other.0)
    }
}

impl Eq for SharedBlock {}

impl Patterns {
    /// The shared copy of `bytes`.
    fn get(&mut self, bytes: &[u8]) -> Arc<[u8]> {
        if let Some(shared) = self.patterns.get(bytes) {
            return shared.clone();
        }
        let shared: Arc<[u8]> = bytes.into();
        self.patterns.insert(shared.clone());
        shared
    }

    /// The block written as `text` from line `first_line` on (its number,
    /// and its value's length), when it was met in more than one file
    /// ([`Patterns::block`]).
    pub(super) fn block_written(
        &self,
        first_line: (u32, usize),
        text: &[u8],
    ) -> Option<Arc<super::Block>> {
        self.written.get(&first_line)?.get(text).cloned()
    }

    /// The shared copy of `block` (its rules sorted), written as `text`
    /// from line `first_line` on: an equal block met before, or this one,
    /// indexed ([`super::Block::index`]) the first time it is met. A block
    /// met before is remembered by its text too
    /// ([`Patterns::block_written`]).
    pub(super) fn block(
        &mut self,
        block: super::Block,
        first_line: (u32, usize),
        text: &[u8],
    ) -> Arc<super::Block> {
        let mut block = SharedBlock(Arc::new(block));
        if let Some(shared) = self.blocks.get(&block) {
            let shared = shared.0.clone();
            self.written
                .entry(first_line)
                .or_default()
                .insert(text.into(), shared.clone());
            return shared;
        }
        Arc::get_mut(&mut block.0)
            .expect("a block not yet shared has one owner")
            .index();
        let shared = block.0.clone();
        self.blocks.insert(block);
        shared
    }
}

/// A compiled robots.txt pattern (already escaped).
///
/// `*` matches any run of bytes and a `$` at the very end anchors the
/// pattern at the end of the path; a `$` anywhere else is an ordinary byte,
/// as in the reference. Matching is anchored at the start of the path.
/// Literal segments are found left to right with `memmem`, which is exact
/// for patterns whose only wildcard is `*` and costs `O(path + pattern)`:
/// there is no backtracking, whatever the number of `*`.
#[derive(Clone, Debug)]
pub(crate) struct Pattern {
    /// The escaped pattern as the reference stores it; its length is the
    /// match priority. Without a trailing `$` it is also the literal of a
    /// `Prefix` or `Exact` pattern, and the bytes of a `Glob`'s segments
    /// ([`Pattern::literal`]).
    escaped: Arc<[u8]>,
    shape: Shape,
    /// Sum of literal segment lengths: a shorter path cannot match.
    min_len: usize,
}

impl Pattern {
    /// Compiles an escaped pattern.
    #[cfg(test)]
    pub(crate) fn new(escaped: &[u8]) -> Self {
        Pattern::new_in(escaped, &mut Patterns::default())
    }

    /// Compiles an escaped pattern, its bytes shared with the equal
    /// patterns `patterns` has met.
    pub(crate) fn new_in(escaped: &[u8], patterns: &mut Patterns) -> Self {
        let anchored = escaped.last() == Some(&b'$');
        let body = if anchored {
            &escaped[..escaped.len() - 1]
        } else {
            escaped
        };
        let stars = memchr::memchr_iter(b'*', body).count();
        let has_star = stars > 0;
        let shape = if !has_star {
            if anchored {
                Shape::Exact
            } else {
                Shape::Prefix
            }
        } else {
            let mut segments = Vec::new();
            let mut start = 0usize;
            for part in body.split(|&b| b == b'*') {
                segments.push((start as u32, (start + part.len()) as u32));
                start += part.len() + 1;
            }
            Shape::Glob(Box::new(Glob {
                segments: segments.into_boxed_slice(),
                anchored,
                needs: ByteSet::of_except(body, b'*'),
            }))
        };
        Pattern {
            escaped: patterns.get(escaped),
            shape,
            min_len: body.len() - stars,
        }
    }

    /// The escaped pattern without a trailing `$`: the literal of a
    /// `Prefix` or `Exact` pattern, where a `Glob`'s segments lie.
    fn literal(&self) -> &[u8] {
        let anchored = match &self.shape {
            Shape::Prefix => false,
            Shape::Exact => true,
            Shape::Glob(glob) => glob.anchored,
        };
        &self.escaped[..self.escaped.len() - usize::from(anchored)]
    }

    /// The second byte of the first literal segment, when it has one: a
    /// path whose second byte differs cannot match.
    pub(crate) fn lead(&self) -> Option<u8> {
        let first = match &self.shape {
            Shape::Prefix | Shape::Exact => self.literal(),
            Shape::Glob(glob) => self.segment(glob.segments[0]),
        };
        first.get(1).copied()
    }

    /// What the pattern is, for an index of many ([`Form`]).
    pub(crate) fn form(&self) -> Form<'_> {
        match &self.shape {
            Shape::Prefix => Form::Prefix(self.literal()),
            Shape::Exact => Form::Exact(self.literal()),
            Shape::Glob(_) => Form::Glob,
        }
    }

    /// The escaped pattern.
    pub(crate) fn escaped(&self) -> &[u8] {
        &self.escaped
    }

    /// The match priority: the length of the escaped pattern in bytes.
    pub(crate) fn priority(&self) -> usize {
        self.escaped.len()
    }

    fn segment(&self, (start, end): (u32, u32)) -> &[u8] {
        &self.escaped[start as usize..end as usize]
    }

    /// Does the pattern match `subject` (anchored at its start)?
    pub(crate) fn matches(&self, subject: &Subject<'_>) -> bool {
        let path = subject.path;
        if path.len() < self.min_len {
            return false;
        }
        match &self.shape {
            Shape::Prefix => path.starts_with(&self.escaped),
            Shape::Exact => path == self.literal(),
            Shape::Glob(glob) => {
                let Glob {
                    segments,
                    anchored,
                    needs,
                } = &**glob;
                if !needs.is_subset_of(&subject.set) {
                    return false;
                }
                let (first, rest) = segments.split_first().expect("a glob has two segments");
                let (last, middle) = rest.split_last().expect("a glob has two segments");
                let first = self.segment(*first);
                let last = self.segment(*last);
                if !path.starts_with(first) || (*anchored && !path.ends_with(last)) {
                    return false;
                }
                // With an anchored last segment, the middle segments must fit
                // before it.
                let end = if *anchored {
                    path.len() - last.len()
                } else {
                    path.len()
                };
                if end < first.len() {
                    return false;
                }
                let mut pos = first.len();
                for &seg in middle {
                    let seg = self.segment(seg);
                    match subject.find(pos, end, seg) {
                        Some(i) => pos = i + seg.len(),
                        None => return false,
                    }
                }
                *anchored || find(&path[pos..], last).is_some()
            }
        }
    }
}

/// The first position of `needle` in `haystack`. Segments are usually a few
/// bytes and paths short, so a `memchr` for the first byte followed by a
/// comparison beats building a `memmem` searcher; long needles use `memmem`.
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    match needle {
        [] => Some(0),
        [b] => memchr::memchr(*b, haystack),
        [b, rest @ ..] if needle.len() <= 8 => {
            let mut from = 0;
            while from + needle.len() <= haystack.len() {
                let i = from + memchr::memchr(*b, &haystack[from..haystack.len() - rest.len()])?;
                if haystack[i + 1..].starts_with(rest) {
                    return Some(i);
                }
                from = i + 1;
            }
            None
        }
        _ => memmem::find(haystack, needle),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pattern: &str, path: &str) -> bool {
        Pattern::new(pattern.as_bytes()).matches(&Subject::new(path.as_bytes()))
    }

    #[test]
    fn google_escape_pattern() {
        assert_eq!(
            &*escape_pattern(b"http://www.example.com"),
            b"http://www.example.com"
        );
        assert_eq!(&*escape_pattern(b"/a/b/c"), b"/a/b/c");
        assert_eq!(&*escape_pattern("/á".as_bytes()), b"/%C3%A1");
        assert_eq!(&*escape_pattern(b"%aa"), b"%AA");
        assert_eq!(&*escape_pattern(b"/%a"), b"/%a");
        assert_eq!(&*escape_pattern(b"/%2f%zz%C3"), b"/%2F%zz%C3");
        assert!(matches!(escape_pattern(b"/plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn rfc9309_special_characters() {
        assert!(m("/fish", "/fish.html"));
        assert!(!m("/fish", "/Fish.asp"));
        assert!(m("/*.php", "/folder/filename.php?parameters"));
        assert!(m("/*.php$", "/folder/filename.php"));
        assert!(!m("/*.php$", "/filename.php?parameters"));
        assert!(m("/fish*.php", "/fishheads/catfish.php?parameters"));
        assert!(!m("/fish*.php", "/Fish.PHP"));
        assert!(m("/$", "/"));
        assert!(!m("/$", "/page"));
        assert!(m("/a$b", "/a$b"), "a '$' that is not last is literal");
        assert!(m("/a*$", "/abc"));
        assert!(!m("$", "/"));
        assert!(m("", "/anything"));
        assert!(m("*", "/"));
        assert!(m("/**a**", "/xya"));
        assert!(!m("/*a*b$", "/xbya"));
        assert!(m("/*a*b$", "/xayb"));
        assert!(m("/*ab*ab$", "/abab"));
        assert!(!m("/*ab*ab$", "/ab"));
        assert!(
            !m("/a*a$", "/a"),
            "the anchored suffix may not overlap the prefix"
        );
        assert!(m("/a*a$", "/aa"));
        assert!(
            m("/*abcdefghij*z", "/xxabcdefghijyz"),
            "long segments use memmem"
        );
    }

    #[test]
    fn find_short_and_long_needles() {
        assert_eq!(find(b"abcabc", b""), Some(0));
        assert_eq!(find(b"abcabc", b"c"), Some(2));
        assert_eq!(find(b"abcabc", b"ca"), Some(2));
        assert_eq!(find(b"abcabc", b"cab"), Some(2));
        assert_eq!(find(b"abcab", b"abc"), Some(0));
        assert_eq!(find(b"xxab", b"abc"), None);
        assert_eq!(find(b"ab", b"abc"), None);
        assert_eq!(find(b"0123456789abcdef", b"9abcdef"), Some(9));
        assert_eq!(find(b"0123456789abcdef", b"89abcdefg"), None);
    }
}

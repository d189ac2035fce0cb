//! The robots.txt tokenizer: bytes in, numbered `key: value` lines out, with
//! the reference parser's handling of BOMs, line ends, comments, long lines
//! and misspelt keys.

/// Only this many bytes of a robots.txt are read (Google's documented limit,
/// 500 KiB); the rest is ignored.
pub const MAX_ROBOTS_BYTES: usize = 500 * 1024;

/// The reference parser keeps at most this many bytes of a line (its buffer is
/// `2083 * 8` bytes, one of which holds the terminating NUL); the rest of the
/// line is dropped.
pub const MAX_LINE_BYTES: usize = 2083 * 8 - 1;

const UTF8_BOM: &[u8; 3] = b"\xEF\xBB\xBF";

/// What a line's key was recognised as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Key<'a> {
    UserAgent,
    Allow,
    Disallow,
    Sitemap,
    /// Any other key, as written (for extensions such as `Crawl-delay`).
    Other(&'a [u8]),
}

/// One `key: value` line.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Line<'a> {
    /// 1-based line number, counted as the reference counts.
    pub(crate) number: u32,
    pub(crate) key: Key<'a>,
    /// The value with surrounding white space removed, not yet escaped.
    pub(crate) value: &'a [u8],
}

/// Counts of what the tokenizer saw, for diagnostics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct TokenStats {
    /// Lines in the part of the file that was read.
    pub(crate) lines: u32,
    /// Lines cut at [`MAX_LINE_BYTES`].
    pub(crate) long_lines: u32,
    /// Bytes after [`MAX_ROBOTS_BYTES`] that were not read.
    pub(crate) ignored_bytes: usize,
}

/// Calls `emit` for every `key: value` line of `body`, in order.
pub(crate) fn tokenize<'a>(body: &'a [u8], mut emit: impl FnMut(Line<'a>)) -> TokenStats {
    let mut stats = TokenStats::default();
    let mut body = body;
    if body.len() > MAX_ROBOTS_BYTES {
        stats.ignored_bytes = body.len() - MAX_ROBOTS_BYTES;
        body = &body[..MAX_ROBOTS_BYTES];
    }
    // A UTF-8 BOM, or any leading part of one, is skipped.
    let bom = body
        .iter()
        .zip(UTF8_BOM)
        .take_while(|(a, b)| a == b)
        .count();
    let body = &body[bom..];

    let mut number = 0u32;
    let mut pos = 0usize;
    let mut last_was_cr = false;
    let mut line_done = |number: u32, line: &'a [u8], stats: &mut TokenStats| {
        let mut line = line;
        if line.len() > MAX_LINE_BYTES {
            stats.long_lines += 1;
            line = &line[..MAX_LINE_BYTES];
        }
        if let Some(l) = key_value(number, line) {
            emit(l);
        }
    };
    loop {
        match memchr::memchr2(b'\n', b'\r', &body[pos..]) {
            Some(i) => {
                let end = body[pos + i];
                // "\r\n" is one line end: the empty "line" between them is not a line.
                let crlf_continuation = i == 0 && last_was_cr && end == b'\n';
                if !crlf_continuation {
                    number = number.saturating_add(1);
                    line_done(number, &body[pos..pos + i], &mut stats);
                }
                last_was_cr = end == b'\r';
                pos += i + 1;
            }
            None => {
                number = number.saturating_add(1);
                line_done(number, &body[pos..], &mut stats);
                break;
            }
        }
    }
    stats.lines = number;
    stats
}

/// White space as `absl::ascii_isspace` sees it.
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\x0B' | b'\x0C' | b'\r')
}

fn trim(s: &[u8]) -> &[u8] {
    let start = s.iter().position(|&b| !is_space(b)).unwrap_or(s.len());
    let end = s
        .iter()
        .rposition(|&b| !is_space(b))
        .map_or(start, |i| i + 1);
    &s[start..end]
}

/// Splits one line into key and value as the reference does, or `None` for a
/// line that holds no directive.
fn key_value(number: u32, line: &[u8]) -> Option<Line<'_>> {
    // The reference handles lines as C strings: a NUL byte ends the line.
    let line = match memchr::memchr(0, line) {
        Some(nul) => &line[..nul],
        None => line,
    };
    let line = match memchr::memchr(b'#', line) {
        Some(hash) => &line[..hash],
        None => line,
    };
    let line = trim(line);
    let sep = match memchr::memchr(b':', line) {
        Some(colon) => colon,
        None => {
            // Google accepts white space instead of a missing colon, but only
            // when the line is exactly two runs of non-space characters.
            let ws = line.iter().position(|&b| b == b' ' || b == b'\t')?;
            let value_start = ws
                + line[ws..]
                    .iter()
                    .take_while(|&&b| b == b' ' || b == b'\t')
                    .count();
            if line[value_start..].iter().any(|&b| b == b' ' || b == b'\t') {
                return None;
            }
            ws
        }
    };
    let key = trim(&line[..sep]);
    if key.is_empty() {
        return None;
    }
    let value = trim(&line[sep + 1..]);
    Some(Line {
        number,
        key: classify(key),
        value,
    })
}

fn starts_with_ignore_case(s: &[u8], prefix: &[u8]) -> bool {
    s.len() >= prefix.len() && s[..prefix.len()].eq_ignore_ascii_case(prefix)
}

/// Recognises a key by its start, with the misspellings the reference accepts.
fn classify(key: &[u8]) -> Key<'_> {
    let any = |prefixes: &[&[u8]]| prefixes.iter().any(|p| starts_with_ignore_case(key, p));
    if any(&[b"user-agent", b"useragent", b"user agent"]) {
        Key::UserAgent
    } else if any(&[b"allow"]) {
        Key::Allow
    } else if any(&[
        b"disallow",
        b"dissallow",
        b"dissalow",
        b"disalow",
        b"diasllow",
        b"disallaw",
    ]) {
        Key::Disallow
    } else if any(&[b"sitemap", b"site-map"]) {
        Key::Sitemap
    } else {
        Key::Other(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(body: &[u8]) -> (Vec<(u32, String, String)>, TokenStats) {
        let mut out = Vec::new();
        let stats = tokenize(body, |l| {
            let key = match l.key {
                Key::UserAgent => "user-agent".to_string(),
                Key::Allow => "allow".to_string(),
                Key::Disallow => "disallow".to_string(),
                Key::Sitemap => "sitemap".to_string(),
                Key::Other(k) => String::from_utf8_lossy(k).into_owned(),
            };
            out.push((l.number, key, String::from_utf8_lossy(l.value).into_owned()));
        });
        (out, stats)
    }

    #[test]
    fn rfc9309_line_ends_are_counted_like_the_reference() {
        for body in [
            &b"User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /\n"[..],
            b"User-Agent: foo\r\nAllow: /some/path\r\nUser-Agent: bar\r\n\r\n\r\nDisallow: /\r\n",
            b"User-Agent: foo\rAllow: /some/path\rUser-Agent: bar\r\r\rDisallow: /\r",
            b"User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /",
            b"User-Agent: foo\nAllow: /some/path\r\nUser-Agent: bar\n\r\n\nDisallow: /",
        ] {
            let (l, _) = lines(body);
            assert_eq!(l.len(), 4, "{body:?}");
            assert_eq!(l[3].0, 6, "{body:?}");
        }
    }

    #[test]
    fn google_bom_is_skipped_whole_or_in_part() {
        for prefix in [&b"\xEF\xBB\xBF"[..], b"\xEF\xBB", b"\xEF"] {
            let mut body = prefix.to_vec();
            body.extend_from_slice(b"User-Agent: foo\nAllow: /AnyValue\n");
            let (l, _) = lines(&body);
            assert_eq!(l[0].1, "user-agent", "{prefix:?}");
        }
        // A BOM that is broken before its end leaves the rest of the line alone.
        let (l, _) = lines(b"\xEF\x11\xBFUser-Agent: foo\n");
        assert_eq!(l[0].1, "\u{11}\u{FFFD}User-Agent");
        // A BOM anywhere else is an ordinary byte.
        let (l, _) = lines(b"User-Agent: foo\n\xEF\xBB\xBFAllow: /x\n");
        assert_eq!(l[1].1, "\u{FEFF}Allow");
    }

    #[test]
    fn google_missing_colon_is_accepted_for_two_words_only() {
        let (l, _) = lines(b"user-agent FooBot\ndisallow /\ndisallow / x\nnocolon\n");
        assert_eq!(l.len(), 2);
        assert_eq!(l[1], (2, "disallow".into(), "/".into()));
    }

    #[test]
    fn google_misspellings_and_key_prefixes() {
        let (l, _) = lines(
            b"useragent: a\nuser agent: b\nUSER-AGENTS: c\ndisalow: /1\ndissallow: /2\n\
              dissalow: /3\ndiasllow: /4\ndisallaw: /5\nallowed: /6\nsite-map: s\nfoo: bar\n",
        );
        let keys: Vec<&str> = l.iter().map(|x| x.1.as_str()).collect();
        assert_eq!(
            keys,
            [
                "user-agent",
                "user-agent",
                "user-agent",
                "disallow",
                "disallow",
                "disallow",
                "disallow",
                "disallow",
                "allow",
                "sitemap",
                "foo"
            ]
        );
    }

    #[test]
    fn rfc9309_comments_and_spaces() {
        let (l, _) = lines(b"  Disallow :  /a b  # comment\n# Disallow: /\n\t: empty key\n");
        assert_eq!(l, [(1, "disallow".into(), "/a b".into())]);
    }

    #[test]
    fn google_nul_ends_a_line() {
        let (l, _) = lines(b"Disallow: /a\0b\n");
        assert_eq!(l[0].2, "/a");
    }

    #[test]
    fn google_long_lines_are_cut() {
        let mut body = b"Disallow: /".to_vec();
        body.extend(std::iter::repeat_n(b'a', 20_000));
        body.extend_from_slice(b"\nAllow: /b\n");
        let (l, stats) = lines(&body);
        assert_eq!(stats.long_lines, 1);
        assert_eq!(l[0].2.len(), MAX_LINE_BYTES - "Disallow: ".len());
        assert_eq!(l[1], (2, "allow".into(), "/b".into()));
    }

    #[test]
    fn only_the_first_500_kib_are_read() {
        let mut body = b"User-agent: *\n".to_vec();
        body.resize(MAX_ROBOTS_BYTES, b'#');
        body.extend_from_slice(b"\nDisallow: /\n");
        let (l, stats) = lines(&body);
        assert_eq!(l.len(), 1);
        assert_eq!(stats.ignored_bytes, 13);
    }
}

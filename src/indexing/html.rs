//! Finding `<meta name=... content=...>` in real-world HTML.
//!
//! A small scanner that follows the HTML tokenizer where it matters for
//! meta tags: comments, raw-text and escapable raw-text elements (`script`,
//! `style`, `textarea`, `title`, ...), quoted and unquoted attribute values,
//! character references, and `<template>` contents (which are not part of
//! the document). It works on bytes, jumps from `<` to `<` with `memchr`,
//! never backtracks and never panics, so multi-megabyte and broken pages
//! cost one pass.

use memchr::{memchr, memchr2, memchr3, memmem};

/// A `<meta>` tag with a `name` and a `content` attribute.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MetaTag {
    /// The `name` attribute, lower-cased and trimmed.
    pub name: String,
    /// The `content` attribute with character references decoded.
    pub content: String,
    /// Byte offset of the tag's `<` in the page.
    pub offset: usize,
}

/// Elements whose content is text up to their end tag.
const RAW_TEXT: &[&[u8]] = &[
    b"script",
    b"style",
    b"textarea",
    b"title",
    b"xmp",
    b"iframe",
    b"noembed",
    b"noframes",
];

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\x0C' | b'\r')
}

/// All meta tags of `html` that have both a `name` and a `content`
/// attribute, in document order, except those inside comments, raw-text
/// elements or `<template>`.
pub fn meta_tags(html: &[u8]) -> Vec<MetaTag> {
    let mut out = Vec::new();
    let mut template_depth = 0usize;
    let mut i = 0;
    while let Some(p) = memchr(b'<', &html[i..]) {
        let lt = i + p;
        let next = html.get(lt + 1).copied();
        match next {
            Some(b'!') if html[lt + 2..].starts_with(b"--") => i = skip_comment(html, lt + 4),
            Some(b'!') | Some(b'?') => i = skip_past(html, lt + 2, b'>'),
            Some(b'/') if html.get(lt + 2).is_some_and(u8::is_ascii_alphabetic) => {
                let Some(tag) = read_tag(html, lt + 2, false) else {
                    break;
                };
                if tag.name == b"template" {
                    template_depth = template_depth.saturating_sub(1);
                }
                i = tag.end;
            }
            Some(c) if c.is_ascii_alphabetic() => {
                let want_attrs =
                    html[lt + 1..].len() >= 4 && html[lt + 1..lt + 5].eq_ignore_ascii_case(b"meta");
                let Some(tag) = read_tag(html, lt + 1, want_attrs) else {
                    break;
                };
                i = tag.end;
                match tag.name.as_slice() {
                    b"meta" if template_depth == 0 => {
                        if let (Some(name), Some(content)) =
                            (tag.attr(b"name"), tag.attr(b"content"))
                        {
                            out.push(MetaTag {
                                name: decode(name).trim().to_ascii_lowercase(),
                                content: decode(content),
                                offset: lt,
                            });
                        }
                    }
                    b"template" => template_depth += 1,
                    b"plaintext" => break,
                    name if RAW_TEXT.contains(&name) => i = skip_raw_text(html, i, name),
                    _ => {}
                }
            }
            _ => i = lt + 1,
        }
    }
    out
}

/// After `<!--`: the comment ends at `-->` or `--!>`; `<!-->` and `<!--->`
/// end at once; an unterminated comment runs to the end.
fn skip_comment(html: &[u8], start: usize) -> usize {
    let rest = &html[start.min(html.len())..];
    if rest.starts_with(b">") {
        return start + 1;
    }
    if rest.starts_with(b"->") {
        return start + 2;
    }
    let mut from = 0;
    while let Some(p) = memmem::find(&rest[from..], b"--") {
        let at = from + p + 2;
        if rest[at..].starts_with(b">") {
            return start + at + 1;
        }
        if rest[at..].starts_with(b"!>") {
            return start + at + 2;
        }
        from = from + p + 1;
    }
    html.len()
}

fn skip_past(html: &[u8], start: usize, byte: u8) -> usize {
    match memchr(byte, &html[start.min(html.len())..]) {
        Some(p) => start + p + 1,
        None => html.len(),
    }
}

/// Skips the text of a raw-text element up to `</name` followed by white
/// space, `/` or `>`, and past that end tag.
fn skip_raw_text(html: &[u8], start: usize, name: &[u8]) -> usize {
    let finder = memmem::Finder::new(b"</");
    let mut from = start;
    while let Some(p) = finder.find(&html[from..]) {
        let at = from + p + 2;
        let candidate = &html[at..];
        if candidate.len() >= name.len()
            && candidate[..name.len()].eq_ignore_ascii_case(name)
            && candidate
                .get(name.len())
                .is_none_or(|&b| is_space(b) || b == b'/' || b == b'>')
        {
            return match read_tag(html, at, false) {
                Some(tag) => tag.end,
                None => html.len(),
            };
        }
        from = at;
    }
    html.len()
}

/// A tag as read: its lower-cased name, its attributes (when asked for) as
/// byte ranges, and the index just past its `>`.
struct Tag<'h> {
    name: Vec<u8>,
    attrs: Vec<(&'h [u8], &'h [u8])>,
    end: usize,
}

impl<'h> Tag<'h> {
    /// The first attribute of that name (names compared without case), as
    /// the HTML tokenizer keeps the first of duplicates.
    fn attr(&self, name: &[u8]) -> Option<&'h [u8]> {
        self.attrs
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| *v)
    }
}

/// Reads a tag whose name starts at `start`. `None` when the page ends
/// inside the tag (the tokenizer drops such a tag).
fn read_tag(html: &[u8], start: usize, with_attrs: bool) -> Option<Tag<'_>> {
    let mut i = start;
    while i < html.len() && !is_space(html[i]) && html[i] != b'/' && html[i] != b'>' {
        i += 1;
    }
    let name = html[start..i].to_ascii_lowercase();
    let mut attrs = Vec::new();
    loop {
        while i < html.len() && (is_space(html[i]) || html[i] == b'/') {
            i += 1;
        }
        match html.get(i)? {
            b'>' => {
                return Some(Tag {
                    name,
                    attrs,
                    end: i + 1,
                });
            }
            _ => {
                // Attribute name: a leading '=' belongs to the name.
                let name_start = i;
                i += 1;
                while i < html.len() && !is_space(html[i]) && !matches!(html[i], b'/' | b'>' | b'=')
                {
                    i += 1;
                }
                let attr_name = &html[name_start..i];
                while i < html.len() && is_space(html[i]) {
                    i += 1;
                }
                let mut value: &[u8] = b"";
                if html.get(i) == Some(&b'=') {
                    i += 1;
                    while i < html.len() && is_space(html[i]) {
                        i += 1;
                    }
                    match html.get(i)? {
                        &q @ (b'"' | b'\'') => {
                            let close = memchr(q, &html[i + 1..])?;
                            value = &html[i + 1..i + 1 + close];
                            i += close + 2;
                        }
                        b'>' => {}
                        _ => {
                            let v_start = i;
                            let end = memchr3(b'>', b' ', b'\t', &html[i..])
                                .map_or(html.len(), |p| i + p);
                            // Other white space also ends an unquoted value.
                            let end = memchr2(b'\n', b'\r', &html[v_start..end])
                                .map_or(end, |p| v_start + p);
                            let end =
                                memchr(b'\x0C', &html[v_start..end]).map_or(end, |p| v_start + p);
                            value = &html[v_start..end];
                            i = end;
                        }
                    }
                }
                if with_attrs {
                    attrs.push((attr_name, value));
                }
            }
        }
    }
}

/// Decodes character references in an attribute value (numeric ones, and
/// the named ones that occur in robots values), lossily as UTF-8.
fn decode(value: &[u8]) -> String {
    let text = String::from_utf8_lossy(value);
    if !text.contains('&') {
        return text.into_owned();
    }
    const NAMED: &[(&str, char)] = &[
        ("amp", '&'),
        ("lt", '<'),
        ("gt", '>'),
        ("quot", '"'),
        ("apos", '\''),
        ("nbsp", '\u{A0}'),
        ("comma", ','),
        ("colon", ':'),
        ("semi", ';'),
        ("hyphen", '-'),
        ("dash", '-'),
        ("lowbar", '_'),
        ("UnderBar", '_'),
        ("period", '.'),
        ("sol", '/'),
        ("plus", '+'),
        ("equals", '='),
        ("Tab", '\t'),
        ("NewLine", '\n'),
    ];
    /// References recognised without a trailing `;` (legacy), when not
    /// followed by an alphanumeric or `=`, as in attribute values.
    const LEGACY: &[&str] = &["amp", "lt", "gt", "quot", "nbsp"];
    let mut out = String::with_capacity(text.len());
    let mut rest: &str = &text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let after = &rest[amp + 1..];
        if let Some(num) = after.strip_prefix('#') {
            let (digits, radix, skip) = match num.strip_prefix(['x', 'X']) {
                Some(hex) => (hex.bytes().take_while(u8::is_ascii_hexdigit).count(), 16, 1),
                None => (num.bytes().take_while(u8::is_ascii_digit).count(), 10, 0),
            };
            if digits > 0 {
                let digits_str = &num[skip..skip + digits];
                let c = u32::from_str_radix(digits_str, radix)
                    .ok()
                    .and_then(char::from_u32)
                    .filter(|&c| c != '\0')
                    .unwrap_or('\u{FFFD}');
                out.push(c);
                let mut consumed = 1 + skip + digits;
                if num[skip + digits..].starts_with(';') {
                    consumed += 1;
                }
                rest = &after[consumed..];
                continue;
            }
        } else if let Some(&(name, c)) = NAMED.iter().find(|(n, _)| after.starts_with(n)) {
            let tail = &after[name.len()..];
            if let Some(after_semi) = tail.strip_prefix(';') {
                out.push(c);
                rest = after_semi;
                continue;
            }
            if LEGACY.contains(&name)
                && !tail.starts_with(|ch: char| ch.is_ascii_alphanumeric() || ch == '=')
            {
                out.push(c);
                rest = tail;
                continue;
            }
        }
        out.push('&');
        rest = after;
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metas(html: &str) -> Vec<(String, String)> {
        meta_tags(html.as_bytes())
            .into_iter()
            .map(|m| (m.name, m.content))
            .collect()
    }

    fn m(name: &str, content: &str) -> (String, String) {
        (name.to_string(), content.to_string())
    }

    #[test]
    fn meta_in_head_and_body() {
        let html = r#"<!DOCTYPE html><html><head><meta name="robots" content="noindex" /></head>
            <body><meta name="googlebot" content="nofollow"></body></html>"#;
        assert_eq!(
            metas(html),
            [m("robots", "noindex"), m("googlebot", "nofollow")]
        );
    }

    #[test]
    fn attribute_forms() {
        assert_eq!(
            metas("<META NAME=ROBOTS CONTENT=noindex>"),
            [m("robots", "noindex")]
        );
        assert_eq!(
            metas("<meta name='robots' content='noindex, nofollow'>"),
            [m("robots", "noindex, nofollow")]
        );
        assert_eq!(
            metas("<meta content=\"noindex\" name=\"robots\">"),
            [m("robots", "noindex")]
        );
        assert_eq!(
            metas("<meta\nname = robots\tcontent = noindex/>"),
            [m("robots", "noindex/")]
        );
        assert_eq!(
            metas("<meta name=\" Robots \" content=\"x\">"),
            [m("robots", "x")]
        );
        assert_eq!(
            metas("<meta name=robots content=\"a\" content=\"b\">"),
            [m("robots", "a")]
        );
        assert_eq!(metas("<meta name=robots>"), []);
        assert_eq!(metas("<meta property=og:title content=x>"), []);
        assert_eq!(metas("<metadata name=robots content=noindex>"), []);
    }

    #[test]
    fn character_references() {
        assert_eq!(
            metas("<meta name=robots content=\"noindex&#44; nofollow\">"),
            [m("robots", "noindex, nofollow")]
        );
        assert_eq!(
            metas("<meta name=robots content=\"noindex&#x2C;nofollow\">"),
            [m("robots", "noindex,nofollow")]
        );
        assert_eq!(
            metas("<meta name=robots content=\"a&amp;b &comma; c&amp d &ampx\">"),
            [m("robots", "a&b , c& d &ampx")]
        );
        assert_eq!(
            metas("<meta name=robots content=\"&#0; &#xFFFFFF; &#; &bogus;\">"),
            [m("robots", "\u{FFFD} \u{FFFD} &#; &bogus;")]
        );
    }

    #[test]
    fn ignored_contexts() {
        let html = "<!-- <meta name=robots content=noindex> -->\
            <script>var s = '<meta name=robots content=noindex>';</script>\
            <style>/* <meta name=robots content=noindex> */</style>\
            <textarea><meta name=robots content=noindex></textarea>\
            <title><meta name=robots content=noindex></title>\
            <template><meta name=robots content=noindex><template></template><meta name=robots content=x></template>\
            <meta name=robots content=real>";
        assert_eq!(metas(html), [m("robots", "real")]);
    }

    #[test]
    fn raw_text_ends_only_at_its_own_end_tag() {
        let html = "<script>document.write('</scr' + 'ipt>'); x = '</scriptx>';</SCRIPT >\
                    <meta name=robots content=after>";
        assert_eq!(metas(html), [m("robots", "after")]);
        assert_eq!(
            metas("<script>never closed <meta name=robots content=noindex>"),
            []
        );
    }

    #[test]
    fn comment_forms() {
        assert_eq!(
            metas("<!--><meta name=robots content=a>"),
            [m("robots", "a")]
        );
        assert_eq!(
            metas("<!---><meta name=robots content=b>"),
            [m("robots", "b")]
        );
        assert_eq!(
            metas("<!-- x --!><meta name=robots content=c>"),
            [m("robots", "c")]
        );
        assert_eq!(
            metas("<!-- a -- b --><meta name=robots content=d>"),
            [m("robots", "d")]
        );
        assert_eq!(metas("<!-- unterminated <meta name=robots content=e>"), []);
        assert_eq!(
            metas("<!DOCTYPE html><?xml version=1?><meta name=robots content=f>"),
            [m("robots", "f")]
        );
    }

    #[test]
    fn broken_markup() {
        assert_eq!(metas("<meta name=robots content=\"noindex"), []);
        assert_eq!(metas("<meta name=robots content=noindex"), []);
        assert_eq!(
            metas("< meta name=robots content=x><a href='>'><meta name=robots content=y>"),
            [m("robots", "y")]
        );
        assert_eq!(
            metas("<<<>>><meta name=robots content=z>"),
            [m("robots", "z")]
        );
        assert_eq!(metas("<div title='<meta name=robots content=no>'>"), []);
    }

    #[test]
    fn non_utf8_bytes() {
        let html = b"<p>\xff\xfe</p><meta name=robots content=\"noindex \xe9\">";
        let tags = meta_tags(html);
        assert_eq!(tags.len(), 1);
        assert_eq!(tags[0].content, "noindex \u{FFFD}");
        assert_eq!(tags[0].offset, 9);
    }

    #[test]
    fn large_page_is_one_pass() {
        let mut html = String::from("<html><head><title>t</title></head><body>");
        for i in 0..50_000 {
            html.push_str(&format!(
                "<p class=c{i}>text <a href='/x?{i}'>link</a></p><!-- c -->\n"
            ));
        }
        html.push_str("<meta name=robots content=noindex></body></html>");
        assert!(html.len() > 3_000_000);
        assert_eq!(metas(&html), [m("robots", "noindex")]);
    }
}

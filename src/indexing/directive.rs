//! One indexing rule, and a rule list with crawler-name prefixes.

use std::fmt;

use jiff::Timestamp;

use super::date::{is_weekday, parse_date};

/// The setting of `max-image-preview`, least to most permissive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ImagePreview {
    /// No image preview.
    None,
    /// A default-size preview.
    Standard,
    /// A preview up to the width of the viewport.
    Large,
}

impl ImagePreview {
    /// The setting as written in rules.
    pub fn as_str(self) -> &'static str {
        match self {
            ImagePreview::None => "none",
            ImagePreview::Standard => "standard",
            ImagePreview::Large => "large",
        }
    }
}

/// One indexing rule (SPEC section 6).
#[derive(Clone, Debug, PartialEq)]
pub enum Directive {
    /// `all`: no restriction (no effect).
    All,
    /// `index` (no effect).
    Index,
    /// `follow` (no effect).
    Follow,
    /// `noindex`.
    NoIndex,
    /// `nofollow`.
    NoFollow,
    /// `none`: `noindex` plus `nofollow`.
    None,
    /// `noarchive`.
    NoArchive,
    /// `nocache` (Bing's `noarchive`).
    NoCache,
    /// `nosnippet`.
    NoSnippet,
    /// `indexifembedded`.
    IndexIfEmbedded,
    /// `max-snippet: N` (`-1`: no limit; `0`: no snippet).
    MaxSnippet(i64),
    /// `max-image-preview: none|standard|large`.
    MaxImagePreview(ImagePreview),
    /// `max-video-preview: N` seconds (`-1`: no limit).
    MaxVideoPreview(i64),
    /// `notranslate`.
    NoTranslate,
    /// `noimageindex`.
    NoImageIndex,
    /// `unavailable_after: DATE`.
    UnavailableAfter(Timestamp),
    /// `noodp` (legacy).
    NoOdp,
    /// `noydir` (legacy).
    NoYdir,
    /// `noai` (de facto).
    NoAi,
    /// `noimageai` (de facto).
    NoImageAi,
    /// Any other rule, kept as written (name lower-cased).
    Unknown {
        /// The rule's name.
        name: String,
        /// Its value, if it had one (`name: value`).
        value: Option<String>,
    },
}

/// Rules that take a value after a colon; for them `name: value` is a rule,
/// never a crawler prefix.
fn is_value_rule(name: &str) -> bool {
    matches!(
        name,
        "max-snippet"
            | "max-image-preview"
            | "max-video-preview"
            | "unavailable_after"
            | "unavailable-after"
    )
}

/// Is `name` a rule this evaluator knows (plain or taking a value)?
pub(crate) fn is_known_rule(name: &str) -> bool {
    plain_rule(name).is_some() || is_value_rule(name)
}

fn plain_rule(name: &str) -> Option<Directive> {
    Some(match name {
        "all" => Directive::All,
        "index" => Directive::Index,
        "follow" => Directive::Follow,
        "noindex" => Directive::NoIndex,
        "nofollow" => Directive::NoFollow,
        "none" => Directive::None,
        "noarchive" => Directive::NoArchive,
        "nocache" => Directive::NoCache,
        "nosnippet" => Directive::NoSnippet,
        "indexifembedded" => Directive::IndexIfEmbedded,
        "notranslate" => Directive::NoTranslate,
        "noimageindex" => Directive::NoImageIndex,
        "noodp" => Directive::NoOdp,
        "noydir" => Directive::NoYdir,
        "noai" => Directive::NoAi,
        "noimageai" => Directive::NoImageAi,
        _ => return None,
    })
}

/// `-1` or a non-negative integer (a leading `+` is accepted).
fn limit(value: &str) -> Option<i64> {
    let v = value.trim();
    let v = v.strip_prefix('+').unwrap_or(v);
    let n: i64 = v.parse().ok()?;
    (n >= -1).then_some(n)
}

/// A rule whose value could not be read: it has no effect at all (an
/// invalid date or number voids only that rule).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidRule {
    /// The rule's name.
    pub name: String,
    /// The value as written.
    pub value: String,
}

impl Directive {
    /// Reads one rule, `name` or `name: value`. `Err` for a value-taking
    /// rule whose value is invalid.
    fn parse(name: &str, value: Option<&str>) -> Result<Directive, InvalidRule> {
        let invalid = || InvalidRule {
            name: name.to_string(),
            value: value.unwrap_or("").trim().to_string(),
        };
        match name {
            "max-snippet" => value
                .and_then(limit)
                .map(Directive::MaxSnippet)
                .ok_or_else(invalid),
            "max-video-preview" => value
                .and_then(limit)
                .map(Directive::MaxVideoPreview)
                .ok_or_else(invalid),
            "max-image-preview" => match value.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
                Some("none") => Ok(Directive::MaxImagePreview(ImagePreview::None)),
                Some("standard") => Ok(Directive::MaxImagePreview(ImagePreview::Standard)),
                Some("large") => Ok(Directive::MaxImagePreview(ImagePreview::Large)),
                _ => Err(invalid()),
            },
            "unavailable_after" | "unavailable-after" => value
                .and_then(parse_date)
                .map(Directive::UnavailableAfter)
                .ok_or_else(invalid),
            _ => Ok(plain_rule(name).unwrap_or_else(|| Directive::Unknown {
                name: name.to_string(),
                value: value.map(|v| v.trim().to_string()),
            })),
        }
    }
}

impl fmt::Display for Directive {
    /// The rule in canonical form: `noindex`, `max-snippet: 20`,
    /// `unavailable_after: 2025-12-03T13:09:53Z`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plain = match self {
            Directive::All => "all",
            Directive::Index => "index",
            Directive::Follow => "follow",
            Directive::NoIndex => "noindex",
            Directive::NoFollow => "nofollow",
            Directive::None => "none",
            Directive::NoArchive => "noarchive",
            Directive::NoCache => "nocache",
            Directive::NoSnippet => "nosnippet",
            Directive::IndexIfEmbedded => "indexifembedded",
            Directive::NoTranslate => "notranslate",
            Directive::NoImageIndex => "noimageindex",
            Directive::NoOdp => "noodp",
            Directive::NoYdir => "noydir",
            Directive::NoAi => "noai",
            Directive::NoImageAi => "noimageai",
            Directive::MaxSnippet(n) => return write!(f, "max-snippet: {n}"),
            Directive::MaxVideoPreview(n) => return write!(f, "max-video-preview: {n}"),
            Directive::MaxImagePreview(p) => return write!(f, "max-image-preview: {}", p.as_str()),
            Directive::UnavailableAfter(t) => return write!(f, "unavailable_after: {t}"),
            Directive::Unknown {
                name,
                value: Some(v),
            } => return write!(f, "{name}: {v}"),
            Directive::Unknown { name, value: None } => name,
        };
        f.write_str(plain)
    }
}

/// One rule of a rule list, with the crawler it is addressed to.
#[derive(Clone, Debug, PartialEq)]
pub struct ScopedRule {
    /// The crawler name the rule is addressed to (lower case), or `None` for
    /// every crawler.
    pub scope: Option<String>,
    /// The rule, or why it was void.
    pub rule: Result<Directive, InvalidRule>,
    /// The rule as written (trimmed), without its crawler prefix.
    pub text: String,
}

/// Could `name` be a crawler name used as a prefix (`googlebot:`)?
fn is_crawler_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// `name/1.2`: a crawler name with a version, which no crawler answers to.
fn is_versioned_crawler_name(name: &str) -> bool {
    match name.split_once('/') {
        Some((n, v)) => {
            is_crawler_name(n)
                && !v.is_empty()
                && v.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.')
        }
        None => false,
    }
}

/// Is `scope` a crawler prefix that no crawler can answer to (one with a
/// version, `googlebot/2.1`)?
pub fn is_unknown_prefix(scope: &str) -> bool {
    scope.contains('/')
}

/// Parses a rule list (one `X-Robots-Tag` header line, or one meta tag's
/// `content`) whose rules apply to `scope` until a crawler prefix
/// (`googlebot: nofollow`) changes it.
///
/// Only the first colon of a piece splits name from value; `name: value`
/// is a rule when the name takes a value (`max-snippet`, `max-image-preview`,
/// `max-video-preview`, `unavailable_after`), else a crawler prefix. The
/// comma after a weekday in an `unavailable_after` date is part of the date.
pub fn parse_rule_list(value: &str, scope: Option<&str>) -> Vec<ScopedRule> {
    let mut out = Vec::new();
    let mut scope = scope.map(str::to_ascii_lowercase);
    let mut pieces = value.split(',').peekable();
    let mut pending: Option<String> = None;
    loop {
        let piece = match pending.take() {
            Some(p) => p,
            None => match pieces.next() {
                Some(p) => p.to_string(),
                None => break,
            },
        };
        let piece = piece.trim();
        if piece.is_empty() {
            continue;
        }
        let (name, value) = match piece.split_once(':') {
            Some((n, v)) => (n.trim().to_ascii_lowercase(), Some(v.trim())),
            None => (piece.to_ascii_lowercase(), None),
        };
        match value {
            Some(v) if is_value_rule(&name) => {
                let mut v = v.to_string();
                let mut text = piece.to_string();
                if name.starts_with("unavailable") && is_weekday(&v) {
                    if let Some(rest) = pieces.next() {
                        v = format!("{v},{rest}");
                        text = format!("{text},{rest}");
                    }
                }
                // A date written with more commas (`3 Dec 2025, 13:09`):
                // a piece that starts with a digit is no rule and no
                // crawler name, so it continues the date.
                if name.starts_with("unavailable") {
                    while let Some(rest) =
                        pieces.next_if(|p| p.trim_start().starts_with(|c: char| c.is_ascii_digit()))
                    {
                        v = format!("{v},{rest}");
                        text = format!("{text},{rest}");
                    }
                }
                out.push(ScopedRule {
                    scope: scope.clone(),
                    rule: Directive::parse(&name, Some(&v)),
                    text: text.trim().to_string(),
                });
            }
            Some(rest) if plain_rule(&name).is_none() && is_crawler_name(&name) => {
                scope = Some(name);
                if !rest.is_empty() {
                    pending = Some(rest.to_string());
                }
            }
            // `googlebot/2.1: noindex`: a prefix with a version names no
            // crawler (a prefix is a name); its rules apply to none.
            Some(rest) if is_versioned_crawler_name(&name) => {
                scope = Some(name);
                if !rest.is_empty() {
                    pending = Some(rest.to_string());
                }
            }
            _ => out.push(ScopedRule {
                scope: scope.clone(),
                rule: Directive::parse(&name, value),
                text: piece.to_string(),
            }),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(value: &str) -> Vec<(Option<String>, String)> {
        parse_rule_list(value, None)
            .into_iter()
            .map(|r| {
                let rule = match r.rule {
                    Ok(d) => d.to_string(),
                    Err(e) => format!("INVALID {}: {}", e.name, e.value),
                };
                (r.scope, rule)
            })
            .collect()
    }

    fn s(scope: Option<&str>, rule: &str) -> (Option<String>, String) {
        (scope.map(str::to_string), rule.to_string())
    }

    #[test]
    fn prefixes_scope_until_the_next_prefix() {
        assert_eq!(
            rules("BadBot: noindex, nofollow, googlebot: nofollow"),
            [
                s(Some("badbot"), "noindex"),
                s(Some("badbot"), "nofollow"),
                s(Some("googlebot"), "nofollow")
            ]
        );
        assert_eq!(
            rules("noarchive, otherbot: noindex"),
            [s(None, "noarchive"), s(Some("otherbot"), "noindex")]
        );
    }

    #[test]
    fn value_rules_are_not_prefixes() {
        assert_eq!(rules("max-snippet: 20"), [s(None, "max-snippet: 20")]);
        assert_eq!(rules("max-snippet:20"), [s(None, "max-snippet: 20")]);
        assert_eq!(
            rules("MAX-IMAGE-PREVIEW: Large"),
            [s(None, "max-image-preview: large")]
        );
        assert_eq!(
            rules("googlebot: max-video-preview: -1"),
            [s(Some("googlebot"), "max-video-preview: -1")]
        );
    }

    #[test]
    fn unavailable_after_keeps_its_comma_and_colons() {
        assert_eq!(
            rules("unavailable_after: Wed, 03 Dec 2025 13:09:53 GMT, noarchive"),
            [
                s(None, "unavailable_after: 2025-12-03T13:09:53Z"),
                s(None, "noarchive")
            ]
        );
        assert_eq!(
            rules("googlebot: unavailable_after: 2025-12-03T13:09:53+01:00"),
            [s(
                Some("googlebot"),
                "unavailable_after: 2025-12-03T12:09:53Z"
            )]
        );
    }

    #[test]
    fn invalid_values_void_only_their_rule() {
        assert_eq!(
            rules(
                "max-snippet: lots, noindex, unavailable_after: someday, max-image-preview: huge"
            ),
            [
                s(None, "INVALID max-snippet: lots"),
                s(None, "noindex"),
                s(None, "INVALID unavailable_after: someday"),
                s(None, "INVALID max-image-preview: huge")
            ]
        );
        assert_eq!(
            rules("max-snippet: -2"),
            [s(None, "INVALID max-snippet: -2")]
        );
        assert_eq!(rules("max-snippet"), [s(None, "INVALID max-snippet: ")]);
    }

    #[test]
    fn unknown_rules_are_kept() {
        assert_eq!(
            rules("NoIndex, Foo-Bar, x y"),
            [s(None, "noindex"), s(None, "foo-bar"), s(None, "x y")]
        );
        assert_eq!(rules("noindex: please"), [s(None, "noindex")]);
        assert_eq!(rules("some thing: x"), [s(None, "some thing: x")]);
    }

    #[test]
    fn empty_pieces_and_space() {
        assert_eq!(
            rules(" , noindex ,, nofollow , "),
            [s(None, "noindex"), s(None, "nofollow")]
        );
        assert_eq!(rules(""), []);
        assert_eq!(rules("googlebot:"), []);
    }
}

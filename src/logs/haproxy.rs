//! HAProxy's HTTP log (`option httplog`), as HAProxy's reference lists its
//! fields (section 8.2.3,
//! <https://docs.haproxy.org/2.8/configuration.html#8.2.3>), with or
//! without the prefix a syslog daemon writes before each message:
//!
//! ```text
//! [syslog prefix] client_ip:client_port [request_date] frontend_name
//! backend_name/server_name TR/Tw/Tc/Tr/Ta status_code bytes_read
//! captured_request_cookie captured_response_cookie termination_state
//! actconn/feconn/beconn/srv_conn/retries srv_queue/backend_queue
//! [{captured_request_headers}] [{captured_response_headers}] "http_request"
//! ```
//!
//! The date (`06/Feb/2009:12:14:14.655`) is the proxy's local time and
//! carries no zone: it is read as UTC. The header blocks appear only when
//! the frontend captures headers (`capture request header NAME len N`):
//! their values are `|`-separated in the order the captures are declared,
//! which only the configuration knows, so they are read only when
//! `--format haproxy:NAME,NAME,...` names them. HAProxy writes `"`, `#`,
//! `{`, `|`, `}` and non-printable bytes of a header as `#XX`, and `"`,
//! `#` and non-printable bytes of the request line the same way, so a
//! block ends at the first `}` and the request at the first `"`. Header
//! values are decoded; the target is kept as logged.

use std::borrow::Cow;

use super::BadReason;
use super::record::{Request, decode_hex_escapes};
use super::template::without_port;
use super::time::parse_clf;
use crate::host::strip_default_port;

/// Which captured request headers give the host, the user agent and the
/// referer: their positions in the first `{...}` block.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct HaproxyFields {
    /// How many request headers the frontend captures (0: the blocks are
    /// not read).
    count: usize,
    host: Option<usize>,
    user_agent: Option<usize>,
    referer: Option<usize>,
}

/// Checks the names of `--format haproxy:NAME,NAME,...`: HTTP header names.
pub(crate) fn check_capture_names(names: &[String]) -> Result<(), String> {
    if names.is_empty() {
        return Err(
            "haproxy: name the captured request headers in the order of the `capture request header` lines, e.g. haproxy:Host,User-Agent".into(),
        );
    }
    for name in names {
        let token = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
        if !token {
            return Err(format!(
                "haproxy: {name:?} is not a header name (write haproxy:Host,User-Agent, in the order of the `capture request header` lines)"
            ));
        }
    }
    Ok(())
}

impl HaproxyFields {
    /// The fields for a frontend that captures these request headers, in
    /// this order (none: the captured headers are not read).
    pub(crate) fn new(captures: &[String]) -> HaproxyFields {
        let find = |name: &str| captures.iter().position(|c| c.eq_ignore_ascii_case(name));
        HaproxyFields {
            count: captures.len(),
            host: find("host"),
            user_agent: find("user-agent"),
            referer: find("referer"),
        }
    }

    /// Reads one line.
    pub(crate) fn parse_line<'a>(&self, line: &'a [u8]) -> Result<Request<'a>, BadReason> {
        let (client_start, open) = find_date(line).ok_or(BadReason::Layout)?;
        let client = &line[client_start..open - 1];
        let address = without_port(client);
        if address.len() == client.len() || address.is_empty() {
            return Err(BadReason::Layout);
        }
        let close = open + memchr::memchr(b']', &line[open..]).ok_or(BadReason::Layout)?;
        let date = &line[open + 1..close];
        let mut pos = close + 1;
        let mut next = || token(line, &mut pos);
        let frontend = next().ok_or(BadReason::Layout)?;
        let backend_server = next().ok_or(BadReason::Layout)?;
        let timers = next().ok_or(BadReason::Layout)?;
        let status = next().ok_or(BadReason::Layout)?;
        let bytes = next().ok_or(BadReason::Layout)?;
        let _request_cookie = next().ok_or(BadReason::Layout)?;
        let _response_cookie = next().ok_or(BadReason::Layout)?;
        let termination = next().ok_or(BadReason::Layout)?;
        let connections = next().ok_or(BadReason::Layout)?;
        let queues = next().ok_or(BadReason::Layout)?;
        if frontend.is_empty()
            || termination.is_empty()
            || memchr::memchr(b'/', backend_server).is_none()
            || !numbers(timers, 5)
            || !numbers(connections, 5)
            || !numbers(queues, 2)
        {
            return Err(BadReason::Layout);
        }
        // Up to two header blocks: the request's, then the response's.
        let mut blocks: [Option<&[u8]>; 2] = [None, None];
        for block in &mut blocks {
            if !line[pos..].starts_with(b" {") {
                break;
            }
            let start = pos + 2;
            let end = start + memchr::memchr(b'}', &line[start..]).ok_or(BadReason::Layout)?;
            *block = Some(&line[start..end]);
            pos = end + 1;
        }
        if !line[pos..].starts_with(b" \"") {
            return Err(BadReason::Layout);
        }
        // The request line ends at the next quote; HAProxy truncates long
        // lines (1024 bytes by default), so it may end with the line.
        let start = pos + 2;
        let end = memchr::memchr(b'"', &line[start..]).map_or(line.len(), |p| start + p);
        let request = &line[start..end];

        let time = parse_clf(date).ok_or(BadReason::Time)?;
        let mut req = Request {
            client: Cow::Borrowed(address),
            time: time.nanos,
            resolution: time.resolution,
            valid_request: true,
            status: status_code(status)?,
            bytes: bytes_read(bytes)?,
            ..Request::default()
        };
        // `<BADREQ>`, an empty or cut request, is none.
        req.set_request_line(request);
        if let Some(headers) = blocks[0].filter(|_| self.count > 0) {
            let values: Vec<&[u8]> = headers.split(|&b| b == b'|').collect();
            // A block of another length is not the one the names describe.
            if values.len() == self.count {
                let value = |i: Option<usize>| i.map(|i| unescape(values[i]));
                if let Some(host) = value(self.host) {
                    req.host = Some(match host {
                        Cow::Borrowed(h) => Cow::Borrowed(strip_default_port(h)),
                        Cow::Owned(h) => Cow::Owned(strip_default_port(&h).to_vec()),
                    });
                }
                req.user_agent = value(self.user_agent).unwrap_or_default();
                req.referer = value(self.referer).unwrap_or_default();
            }
        }
        Ok(req)
    }
}

/// The request date's `[` (after a space) and where the client address
/// before it starts: the first ` [` followed by `dd/Mon/yyyy:`, whatever
/// syslog prefix comes before the client.
fn find_date(line: &[u8]) -> Option<(usize, usize)> {
    memchr::memchr_iter(b'[', line)
        .filter(|&at| at > 0 && line[at - 1] == b' ' && looks_like_date(&line[at + 1..]))
        .map(|at| {
            let client_start = memchr::memrchr(b' ', &line[..at - 1]).map_or(0, |p| p + 1);
            (client_start, at)
        })
        .next()
}

/// Starts with `dd/Mon/yyyy:`?
fn looks_like_date(s: &[u8]) -> bool {
    s.len() >= 12
        && s[..2].iter().all(u8::is_ascii_digit)
        && s[2] == b'/'
        && s[3..6].iter().all(u8::is_ascii_alphabetic)
        && s[6] == b'/'
        && s[7..11].iter().all(u8::is_ascii_digit)
        && s[11] == b':'
}

/// The space-separated field at `pos` (which must be the space); moves
/// `pos` to the space after it, or the end of the line.
fn token<'a>(line: &'a [u8], pos: &mut usize) -> Option<&'a [u8]> {
    if line.get(*pos) != Some(&b' ') {
        return None;
    }
    let start = *pos + 1;
    let end = memchr::memchr(b' ', &line[start..]).map_or(line.len(), |p| start + p);
    *pos = end;
    Some(&line[start..end])
}

/// `n` `/`-separated integers, each perhaps signed (`-1`: a timer that did
/// not run; `+`: `option logasap`, or a redispatch in the retries).
fn numbers(field: &[u8], n: usize) -> bool {
    let mut parts = 0;
    for part in field.split(|&b| b == b'/') {
        let digits = part.strip_prefix(b"-").or_else(|| part.strip_prefix(b"+"));
        let digits = digits.unwrap_or(part);
        if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
            return false;
        }
        parts += 1;
    }
    parts == n
}

/// The status: up to three digits; `-1` (no response) is 0, unknown.
fn status_code(v: &[u8]) -> Result<u16, BadReason> {
    if v == b"-1" {
        return Ok(0);
    }
    if v.is_empty() || v.len() > 3 || !v.iter().all(u8::is_ascii_digit) {
        return Err(BadReason::Status);
    }
    Ok(v.iter().fold(0u16, |acc, b| acc * 10 + u16::from(b - b'0')))
}

/// The bytes sent to the client; `option logasap` writes them `+N` (the
/// bytes sent when the line was logged).
fn bytes_read(v: &[u8]) -> Result<Option<u64>, BadReason> {
    let v = v.strip_prefix(b"+").unwrap_or(v);
    if v.is_empty() || v.len() > 19 || !v.iter().all(u8::is_ascii_digit) {
        return Err(BadReason::Bytes);
    }
    Ok(Some(
        v.iter().fold(0u64, |acc, b| acc * 10 + u64::from(b - b'0')),
    ))
}

/// Decodes HAProxy's `#XX` escapes of a captured header value.
fn unescape(v: &[u8]) -> Cow<'_, [u8]> {
    if memchr::memchr(b'#', v).is_none() {
        return Cow::Borrowed(v);
    }
    Cow::Owned(decode_hex_escapes(v, b'#', false))
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &[u8] = br#"Feb  6 12:14:14 localhost haproxy[14389]: 10.0.1.2:33317 [06/Feb/2009:12:14:14.655] http-in static/srv1 10/0/30/69/109 200 2750 - - ---- 1/1/1/1/0 0/0 "GET /index.html HTTP/1.1""#;

    fn show(nanos: i64) -> String {
        jiff::Timestamp::from_nanosecond(nanos.into())
            .unwrap()
            .to_string()
    }

    #[test]
    fn httplog_with_and_without_a_syslog_prefix() {
        let f = HaproxyFields::new(&[]);
        let r = f.parse_line(LINE).unwrap();
        assert_eq!(r.client(), b"10.0.1.2");
        assert_eq!(
            (r.method(), r.target(), r.protocol()),
            (&b"GET"[..], &b"/index.html"[..], &b"HTTP/1.1"[..])
        );
        assert_eq!((r.status(), r.bytes()), (200, Some(2750)));
        assert_eq!(show(r.time()), "2009-02-06T12:14:14.655Z");
        assert_eq!(r.resolution(), 1_000_000);
        assert_eq!((r.host(), r.user_agent()), (None, &b""[..]));
        // `log stdout format raw`: no prefix; an RFC 5424 prefix.
        let raw = &LINE[memchr::memmem::find(LINE, b"10.0.1.2:").unwrap()..];
        assert_eq!(f.parse_line(raw).unwrap().target(), b"/index.html");
        let rfc5424 = [
            &b"<134>1 2009-02-06T12:14:14.655+01:00 lb haproxy 14389 - - "[..],
            raw,
        ]
        .concat();
        assert_eq!(f.parse_line(&rfc5424).unwrap().client(), b"10.0.1.2");
    }

    #[test]
    fn odd_but_valid_lines() {
        let f = HaproxyFields::new(&[]);
        // IPv6 client, logasap (`+` bytes and total time), a redispatch,
        // a `-1` timer and status, a bad request.
        let r = f.parse_line(br#"2001:db8::1:40000 [06/Feb/2009:12:14:14.655] fe~ be/<NOSRV> 0/-1/-1/-1/+5 -1 +0 - - CR-- 1/1/0/0/+1 0/0 "<BADREQ>""#).unwrap();
        assert_eq!(r.client(), b"2001:db8::1");
        assert_eq!((r.status(), r.bytes()), (0, Some(0)));
        assert!(!r.is_valid_request());
        // A request line cut by HAProxy's line length limit.
        let r = f.parse_line(br#"192.0.2.1:1 [06/Feb/2009:12:14:14.655] fe be/s 1/0/0/1/2 200 5 - - ---- 1/1/1/1/0 0/0 "GET /very/long"#).unwrap();
        assert_eq!((r.target(), r.protocol()), (&b"/very/long"[..], &b""[..]));
        // An absolute-form target gives the host.
        let r = f.parse_line(br#"192.0.2.1:1 [06/Feb/2009:12:14:14.655] fe be/s 1/0/0/1/2 200 5 - - ---- 1/1/1/1/0 0/0 "GET https://Shop.example:443/a HTTP/2.0""#).unwrap();
        assert_eq!(r.host(), Some(&b"Shop.example"[..]));
    }

    #[test]
    fn captured_headers_are_read_only_when_named() {
        let line = br#"192.0.2.1:1 [06/Feb/2009:12:14:14.655] fe be/s 1/0/0/1/2 200 5 - - ---- 1/1/1/1/0 0/0 {shop.example:443|Mozilla/5.0 (compatible; Googlebot/2.1) #7Bx#7D|} {text/html} "GET / HTTP/1.1""#;
        // Not named: nothing is guessed, not even from one value.
        let r = HaproxyFields::new(&[]).parse_line(line).unwrap();
        assert_eq!((r.host(), r.user_agent()), (None, &b""[..]));
        let one = br#"192.0.2.1:1 [06/Feb/2009:12:14:14.655] fe be/s 1/0/0/1/2 200 5 - - ---- 1/1/1/1/0 0/0 {shop.example} "GET / HTTP/1.1""#;
        assert_eq!(
            HaproxyFields::new(&[]).parse_line(one).unwrap().host(),
            None
        );
        // Named in the order of the capture lines.
        let names = ["Host", "User-Agent", "Referer"].map(String::from);
        let r = HaproxyFields::new(&names).parse_line(line).unwrap();
        assert_eq!(r.host(), Some(&b"shop.example"[..]));
        assert_eq!(
            r.user_agent(),
            b"Mozilla/5.0 (compatible; Googlebot/2.1) {x}"
        );
        assert_eq!(r.referer(), b"");
        assert_eq!(r.target(), b"/");
        // A block of another length than the names: not read.
        let names = ["Host", "User-Agent"].map(String::from);
        let r = HaproxyFields::new(&names).parse_line(line).unwrap();
        assert_eq!((r.host(), r.user_agent()), (None, &b""[..]));
        assert!(check_capture_names(&names).is_ok());
        assert!(check_capture_names(&["User Agent".into()]).is_err());
        assert!(check_capture_names(&[]).is_err());
    }

    #[test]
    fn bad_lines_say_why() {
        let f = HaproxyFields::new(&[]);
        let bad = |line: &[u8]| f.parse_line(line).unwrap_err();
        assert_eq!(
            bad(b"Feb  6 12:14:14 localhost haproxy[14389]: Proxy http-in started."),
            BadReason::Layout
        );
        // The TCP log format (`option tcplog`): three timers, no request.
        assert_eq!(bad(b"10.0.1.2:33313 [06/Feb/2009:12:12:51.443] fnt bck/srv1 0/0/5007 212 -- 0/0/0/0/3 0/0"), BadReason::Layout);
        // A combined line is no HAProxy line.
        assert_eq!(
            bad(br#"192.0.2.1 - - [06/Feb/2009:12:14:14 +0000] "GET / HTTP/1.1" 200 5 "-" "-""#),
            BadReason::Layout
        );
        assert_eq!(bad(br#"192.0.2.1:1 [06/Feb/2009:12:14:14.655] fe be/s 1/0/0/1/2 200 5 - - ---- 1/1/1/1/0 0/0 {unclosed "GET / HTTP/1.1""#), BadReason::Layout);
        assert_eq!(bad(br#"192.0.2.1:1 [31/Feb/2009:12:14:14.655] fe be/s 1/0/0/1/2 200 5 - - ---- 1/1/1/1/0 0/0 "GET / HTTP/1.1""#), BadReason::Time);
        assert_eq!(bad(br#"192.0.2.1:1 [06/Feb/2009:12:14:14.655] fe be/s 1/0/0/1/2 2000 5 - - ---- 1/1/1/1/0 0/0 "GET / HTTP/1.1""#), BadReason::Status);
        assert_eq!(bad(br#"192.0.2.1:1 [06/Feb/2009:12:14:14.655] fe be/s 1/0/0/1/2 200 5k - - ---- 1/1/1/1/0 0/0 "GET / HTTP/1.1""#), BadReason::Bytes);
        // No port: not HAProxy's client field.
        assert_eq!(bad(br#"192.0.2.1 [06/Feb/2009:12:14:14.655] fe be/s 1/0/0/1/2 200 5 - - ---- 1/1/1/1/0 0/0 "GET / HTTP/1.1""#), BadReason::Layout);
    }

    #[test]
    fn hex_escapes() {
        assert_eq!(unescape(b"a#22b#23"), &b"a\"b#"[..]);
        assert_eq!(unescape(b"#2"), &b"#2"[..]);
        assert_eq!(unescape(b"#zz"), &b"#zz"[..]);
        assert_eq!(unescape(b"plain"), &b"plain"[..]);
    }
}

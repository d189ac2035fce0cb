//! W3C extended log files (IIS, CloudFront, and others): a `#Fields:`
//! directive names the columns of the lines that follow it.

use std::borrow::Cow;

use super::BadReason;
use super::record::{Request, decode_hex_escapes};
use super::time::parse_w3c;
use crate::host::strip_default_port;

/// The columns crawlaudit uses, by position in a `#Fields:` line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct W3cFields {
    date: Option<usize>,
    time: Option<usize>,
    client: Option<usize>,
    method: Option<usize>,
    stem: Option<usize>,
    query: Option<usize>,
    uri: Option<usize>,
    request: Option<usize>,
    status: Option<usize>,
    bytes: Option<usize>,
    referer: Option<usize>,
    user_agent: Option<usize>,
    host: Option<usize>,
    protocol: Option<usize>,
    count: usize,
}

impl W3cFields {
    /// Reads the field names of a `#Fields:` directive line.
    pub(crate) fn parse(directive: &[u8]) -> Option<W3cFields> {
        let rest = directive.strip_prefix(b"#Fields:")?;
        let mut f = W3cFields::default();
        for (i, name) in rest
            .split(|b| b.is_ascii_whitespace())
            .filter(|n| !n.is_empty())
            .enumerate()
        {
            let name = String::from_utf8_lossy(name).to_ascii_lowercase();
            let slot = match name.as_str() {
                // IIS Advanced Logging writes the server's local time;
                // without a zone in the file, it is read as UTC.
                "date" | "date-local" | "date-utc" => &mut f.date,
                "time" | "time-local" | "time-utc" => &mut f.time,
                "c-ip" | "c-ip-address" | "cs-ip" => &mut f.client,
                "cs-method" => &mut f.method,
                "cs-uri-stem" => &mut f.stem,
                "cs-uri-query" => &mut f.query,
                "cs-uri" => &mut f.uri,
                "cs-request" | "request" => &mut f.request,
                "sc-status" => &mut f.status,
                "sc-bytes" => &mut f.bytes,
                "cs(referer)" | "cs(referrer)" => &mut f.referer,
                "cs(user-agent)" => &mut f.user_agent,
                // The Host header the client sent (CloudFront's
                // x-host-header) wins over the edge's own name (cs(Host)).
                "x-host-header" => {
                    f.host = Some(i);
                    f.count = i + 1;
                    continue;
                }
                "cs-host" | "cs(host)" => &mut f.host,
                "cs-protocol-version" | "cs-version" => &mut f.protocol,
                _ => {
                    f.count = i + 1;
                    continue;
                }
            };
            if slot.is_none() {
                *slot = Some(i);
            }
            f.count = i + 1;
        }
        (f.date.is_some()
            && f.time.is_some()
            && (f.stem.is_some() || f.uri.is_some() || f.request.is_some()))
        .then_some(f)
    }

    /// Reads one data line under these fields. Tab-separated lines
    /// (CloudFront) have percent-encoded header values; space-separated
    /// ones (IIS) write spaces in them as `+`.
    pub(crate) fn parse_line<'a>(&self, line: &'a [u8]) -> Result<Request<'a>, BadReason> {
        let tabbed = memchr::memchr(b'\t', line).is_some();
        let mut cols: Vec<(&'a [u8], bool)> = Vec::with_capacity(self.count);
        split_fields(line, tabbed, &mut cols);
        if cols.len() < self.count {
            return Err(BadReason::Layout);
        }
        let get =
            |i: Option<usize>| -> Option<&'a [u8]> { i.map(|i| cols[i].0).filter(|v| *v != b"-") };
        let quoted = |i: Option<usize>| i.is_some_and(|i| cols[i].1);
        let time = parse_w3c(
            get(self.date).ok_or(BadReason::Time)?,
            get(self.time).ok_or(BadReason::Time)?,
        )
        .ok_or(BadReason::Time)?;
        // CloudFront (tabs) percent-encodes header values; IIS writes their
        // spaces as `+` unless the value is quoted.
        let decode = |v: &'a [u8], quoted: bool| -> Cow<'a, [u8]> {
            if tabbed {
                percent_decode(v)
            } else if quoted {
                Cow::Borrowed(v)
            } else {
                plus_to_space(v)
            }
        };
        let mut req = Request {
            time: time.nanos,
            resolution: time.resolution,
            valid_request: true,
            client: Cow::Borrowed(get(self.client).unwrap_or_default()),
            referer: get(self.referer)
                .map(|v| decode(v, quoted(self.referer)))
                .unwrap_or_default(),
            user_agent: get(self.user_agent)
                .map(|v| decode(v, quoted(self.user_agent)))
                .unwrap_or_default(),
            host: get(self.host).map(|h| Cow::Borrowed(strip_default_port(h))),
            protocol: Cow::Borrowed(get(self.protocol).unwrap_or_default()),
            ..Request::default()
        };
        let path = get(self.stem).or_else(|| get(self.uri));
        if let Some(path) = path {
            req.method = Cow::Borrowed(get(self.method).unwrap_or_default());
            req.target = match get(self.query)
                .filter(|q| !q.is_empty() && memchr::memchr(b'?', path).is_none())
            {
                Some(q) => {
                    let mut t = Vec::with_capacity(path.len() + 1 + q.len());
                    t.extend_from_slice(path);
                    t.push(b'?');
                    t.extend_from_slice(q);
                    Cow::Owned(t)
                }
                None => Cow::Borrowed(path),
            };
        } else if let Some(request) = get(self.request) {
            req.set_request_line(request);
        }
        if req.target.is_empty() {
            req.valid_request = false;
        }
        // An empty status (the connection closed before an answer) is unknown: 0.
        if let Some(status) = get(self.status).filter(|s| !s.is_empty()) {
            if status.len() > 3 || !status.iter().all(u8::is_ascii_digit) {
                return Err(BadReason::Status);
            }
            req.status = status
                .iter()
                .fold(0u16, |a, b| a * 10 + u16::from(b - b'0'));
        }
        if let Some(bytes) = get(self.bytes).filter(|b| !b.is_empty()) {
            if !bytes.iter().all(u8::is_ascii_digit) || bytes.len() > 19 {
                return Err(BadReason::Bytes);
            }
            req.bytes = Some(bytes.iter().fold(0u64, |a, b| a * 10 + u64::from(b - b'0')));
        }
        Ok(req)
    }
}

/// Splits a data line into (value, was quoted): on tabs when the line has
/// any (CloudFront), else on runs of spaces, where a value in double quotes
/// may contain spaces (IIS Advanced Logging, Incapsula).
fn split_fields<'a>(line: &'a [u8], tabbed: bool, out: &mut Vec<(&'a [u8], bool)>) {
    let unquote = |v: &'a [u8]| -> (&'a [u8], bool) {
        match v.strip_prefix(b"\"").and_then(|v| v.strip_suffix(b"\"")) {
            Some(inner) => (inner, true),
            None => (v, false),
        }
    };
    if tabbed {
        out.extend(line.split(|&b| b == b'\t').map(unquote));
        return;
    }
    let mut i = 0;
    while i < line.len() {
        if line[i] == b' ' {
            i += 1;
            continue;
        }
        if line[i] == b'"' {
            if let Some(close) = memchr::memchr(b'"', &line[i + 1..]) {
                out.push((&line[i + 1..i + 1 + close], true));
                i += close + 2;
                continue;
            }
        }
        let end = memchr::memchr(b' ', &line[i..]).map_or(line.len(), |p| i + p);
        out.push((&line[i..end], false));
        i = end;
    }
}

/// IIS writes a space as `+` and a `+` as itself, so `++` is a space then
/// a plus (`; +http://...` is logged `;++http://...`).
fn plus_to_space(v: &[u8]) -> Cow<'_, [u8]> {
    if memchr::memchr(b'+', v).is_none() {
        return Cow::Borrowed(v);
    }
    let mut out = Vec::with_capacity(v.len());
    let mut i = 0;
    while i < v.len() {
        if v[i] == b'+' {
            out.push(b' ');
            if v.get(i + 1) == Some(&b'+') {
                out.push(b'+');
                i += 1;
            }
        } else {
            out.push(v[i]);
        }
        i += 1;
    }
    Cow::Owned(out)
}

/// Decodes `%XX` escapes (CloudFront encodes header values, sometimes
/// twice: `%2520`, which is decoded once more).
pub(crate) fn percent_decode(v: &[u8]) -> Cow<'_, [u8]> {
    let once = |v: &[u8]| decode_hex_escapes(v, b'%', false);
    if memchr::memchr(b'%', v).is_none() {
        return Cow::Borrowed(v);
    }
    let first = once(v);
    if memchr::memmem::find(&first, b"%20").is_some() {
        Cow::Owned(once(&first))
    } else {
        Cow::Owned(first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iis() {
        let f = W3cFields::parse(b"#Fields: date time s-ip cs-method cs-uri-stem cs-uri-query s-port cs-username c-ip cs(User-Agent) cs(Referer) sc-status sc-substatus sc-win32-status time-taken").unwrap();
        let r = f
            .parse_line(b"2024-05-01 13:55:36 10.0.0.1 GET /default.aspx q=1 443 - 66.249.66.1 Mozilla/5.0+(compatible;+Googlebot/2.1;++http://www.google.com/bot.html) https://www.google.com/ 200 0 0 15")
            .unwrap();
        assert_eq!(r.target(), b"/default.aspx?q=1");
        assert_eq!(r.client(), b"66.249.66.1");
        assert_eq!(
            r.user_agent(),
            b"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
        );
        assert_eq!((r.status(), r.method()), (200, &b"GET"[..]));
        assert_eq!(
            jiff::Timestamp::from_nanosecond(r.time().into())
                .unwrap()
                .to_string(),
            "2024-05-01T13:55:36Z"
        );
        assert_eq!(
            f.parse_line(b"2024-05-01 13:55:36 10.0.0.1"),
            Err(BadReason::Layout)
        );
    }

    #[test]
    fn cloudfront() {
        let f = W3cFields::parse(b"#Fields: date time x-edge-location sc-bytes c-ip cs-method cs(Host) cs-uri-stem sc-status cs(Referer) cs(User-Agent) cs-uri-query cs(Cookie)").unwrap();
        let r = f
            .parse_line(b"2024-05-01\t01:02:03\tFRA2\t1234\t2001:db8::1\tGET\td111111abcdef8.cloudfront.net\t/img/a.png\t304\t-\tMozilla/5.0%2520(compatible;%2520bingbot/2.0)\t-\t-")
            .unwrap();
        assert_eq!(r.user_agent(), b"Mozilla/5.0 (compatible; bingbot/2.0)");
        assert_eq!(r.host(), Some(&b"d111111abcdef8.cloudfront.net"[..]));
        assert_eq!(
            (r.target(), r.status(), r.bytes()),
            (&b"/img/a.png"[..], 304, Some(1234))
        );
    }

    #[test]
    fn quoted_values_and_runs_of_spaces() {
        let f = W3cFields::parse(b"#Fields:   date-local time-local   s-ip   cs-method cs-uri-stem cs-uri-query s-port cs-username c-ip cs(User-Agent) cs(Referer) cs(Host) sc-status").unwrap();
        let r = f
            .parse_line(br#"2012-08-15 17:00:00.363 1.2.3.4 GET /Products/x - 80 - "70.95.0.0" "Mozilla/5.0 (Linux; Android 4.4.4) Chrome/39.0+x" "http://example.com/" "example.com" 200"#)
            .unwrap();
        assert_eq!(
            r.user_agent(),
            b"Mozilla/5.0 (Linux; Android 4.4.4) Chrome/39.0+x"
        );
        assert_eq!(
            (r.client(), r.target(), r.status(), r.resolution()),
            (&b"70.95.0.0"[..], &b"/Products/x"[..], 200, 1_000_000)
        );
        let g = W3cFields::parse(b"#Fields: date time c-ip cs-uri sc-status").unwrap();
        let r = g
            .parse_line(br#""2017-06-28" "07:26:35" "1.2.3.4" "/a?b" "200""#)
            .unwrap();
        assert_eq!((r.target(), r.status()), (&b"/a?b"[..], 200));
        let r = g
            .parse_line(b"2017-06-28   07:26:35   1.2.3.4   /c   200")
            .unwrap();
        assert_eq!(r.target(), b"/c");
    }

    #[test]
    fn fields_need_date_time_and_a_target() {
        assert!(W3cFields::parse(b"#Fields: date time c-ip").is_none());
        assert!(W3cFields::parse(b"#Software: IIS").is_none());
        assert!(W3cFields::parse(b"#Fields: date time cs-uri").is_some());
    }
}

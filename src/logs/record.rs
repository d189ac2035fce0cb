//! One parsed log line.

use std::borrow::Cow;

use crate::host::strip_default_port;

/// One request, as a log line recorded it. Fields borrow from the log's
/// bytes; only values that had to be decoded (W3C's `+` for space, `%XX`)
/// are owned. Quoted fields of Apache and nginx formats (not AWS's or
/// Envoy's, which do not escape) have their
/// backslash escapes (`\"`, `\\`, `\xHH`) decoded; the line's bytes as
/// logged stay in the reader's accounting.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Request<'a> {
    pub(crate) client: Cow<'a, [u8]>,
    pub(crate) time: i64,
    pub(crate) resolution: i64,
    pub(crate) method: Cow<'a, [u8]>,
    pub(crate) target: Cow<'a, [u8]>,
    pub(crate) protocol: Cow<'a, [u8]>,
    pub(crate) valid_request: bool,
    pub(crate) status: u16,
    pub(crate) bytes: Option<u64>,
    pub(crate) referer: Cow<'a, [u8]>,
    pub(crate) user_agent: Cow<'a, [u8]>,
    pub(crate) host: Option<Cow<'a, [u8]>>,
}

fn dash_empty(v: &[u8]) -> &[u8] {
    if v == b"-" { b"" } else { v }
}

impl<'a> Request<'a> {
    /// Takes method, target and protocol from a request line
    /// ([`split_request_line`]); a line that is no request (`-`, empty,
    /// binary) marks the request as none.
    pub(crate) fn set_request_line(&mut self, line: &'a [u8]) {
        match split_request_line(line) {
            Some((method, target, protocol)) => {
                self.method = Cow::Borrowed(method);
                self.target = Cow::Borrowed(target);
                self.protocol = Cow::Borrowed(protocol);
            }
            None => self.valid_request = false,
        }
    }

    /// The client address as logged (an IPv4 or IPv6 address, or whatever
    /// the server wrote).
    pub fn client(&self) -> &[u8] {
        &self.client
    }

    /// The client address, if it is an IP address.
    pub fn client_ip(&self) -> Option<std::net::IpAddr> {
        let text = std::str::from_utf8(&self.client).ok()?;
        text.trim_start_matches('[')
            .trim_end_matches(']')
            .parse()
            .ok()
    }

    /// UTC nanoseconds since the epoch.
    pub fn time(&self) -> i64 {
        self.time
    }

    /// The resolution of the logged time, in nanoseconds (1 s = 1e9).
    pub fn resolution(&self) -> i64 {
        self.resolution
    }

    /// The request method (`GET`); empty when the request line was not a request.
    pub fn method(&self) -> &[u8] {
        &self.method
    }

    /// The request target as logged (`/path?q`, or absolute form); empty
    /// when the request line was not a request (`-`, a TLS handshake).
    pub fn target(&self) -> &[u8] {
        &self.target
    }

    /// The protocol (`HTTP/1.1`), empty if the line had none.
    pub fn protocol(&self) -> &[u8] {
        &self.protocol
    }

    /// Was the request line a request (`METHOD TARGET [PROTOCOL]`)?
    pub fn is_valid_request(&self) -> bool {
        self.valid_request
    }

    /// The response status (0 when the log had none).
    pub fn status(&self) -> u16 {
        self.status
    }

    /// Response bytes, when logged.
    pub fn bytes(&self) -> Option<u64> {
        self.bytes
    }

    /// The Referer header, empty for `-` or none.
    pub fn referer(&self) -> &[u8] {
        dash_empty(&self.referer)
    }

    /// The User-Agent header, empty for `-` or none.
    pub fn user_agent(&self) -> &[u8] {
        dash_empty(&self.user_agent)
    }

    /// The host the request was for: the log's host field (without ports 80
    /// and 443), else the host of an absolute-form target.
    pub fn host(&self) -> Option<&[u8]> {
        if let Some(h) = self.host.as_deref().filter(|h| !h.is_empty() && *h != b"-") {
            return Some(h);
        }
        let t: &[u8] = &self.target;
        let rest = t
            .strip_prefix(b"http://")
            .or_else(|| t.strip_prefix(b"https://"))?;
        let end = rest
            .iter()
            .position(|&b| matches!(b, b'/' | b'?' | b'#'))
            .unwrap_or(rest.len());
        let host = strip_default_port(&rest[..end]);
        (!host.is_empty()).then_some(host)
    }
}

/// Decodes the escapes `<escape>XX` (two hex digits) in a logged value,
/// and `+` as a space when `plus_is_space` (a URL-encoded form); an
/// escape without two hex digits after it is kept as it is.
pub(crate) fn decode_hex_escapes(v: &[u8], escape: u8, plus_is_space: bool) -> Vec<u8> {
    let hex = |b: u8| (b as char).to_digit(16);
    let mut out = Vec::with_capacity(v.len());
    let mut i = 0;
    while i < v.len() {
        if v[i] == escape && i + 2 < v.len() {
            if let (Some(h), Some(l)) = (hex(v[i + 1]), hex(v[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(if plus_is_space && v[i] == b'+' {
            b' '
        } else {
            v[i]
        });
        i += 1;
    }
    out
}

/// Splits a request line into method, target and protocol.
/// `GET /a HTTP/1.1`, `GET /a` (no protocol) and targets containing spaces
/// are requests; `-`, an empty line or binary garbage are not.
pub(crate) fn split_request_line(line: &[u8]) -> Option<(&[u8], &[u8], &[u8])> {
    let sp = memchr::memchr(b' ', line)?;
    let method = &line[..sp];
    if method.is_empty()
        || !method
            .iter()
            .all(|b| b.is_ascii_alphabetic() || *b == b'-' || *b == b'_')
    {
        return None;
    }
    let rest = &line[sp + 1..];
    // The protocol is at the end: look for its space in the last bytes first.
    let tail = rest.len().saturating_sub(16);
    let last_space = match rest[tail..].iter().rposition(|&b| b == b' ') {
        Some(i) => Some(tail + i),
        None => memchr::memrchr(b' ', &rest[..tail]),
    };
    match last_space {
        Some(last) if rest[last + 1..].starts_with(b"HTTP/") => {
            Some((method, &rest[..last], &rest[last + 1..]))
        }
        _ if rest.is_empty() => None,
        _ => Some((method, rest, b"")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_lines() {
        assert_eq!(
            split_request_line(b"GET /a?b HTTP/1.1"),
            Some((&b"GET"[..], &b"/a?b"[..], &b"HTTP/1.1"[..]))
        );
        assert_eq!(
            split_request_line(b"GET /"),
            Some((&b"GET"[..], &b"/"[..], &b""[..]))
        );
        assert_eq!(
            split_request_line(b"GET /a b HTTP/1.0"),
            Some((&b"GET"[..], &b"/a b"[..], &b"HTTP/1.0"[..]))
        );
        assert_eq!(split_request_line(b"-"), None);
        assert_eq!(
            split_request_line(b"\\x16\\x03\\x01\\x02\\x00\\x01\\x00\\x01\\xFC\\x03\\x03"),
            None
        );
        assert_eq!(split_request_line(b"GET "), None);
    }

    #[test]
    fn host_from_field_or_absolute_target() {
        let b = |s: &'static [u8]| Cow::Borrowed(s);
        let r = Request {
            target: b(b"http://Example.com:80/x"),
            ..Request::default()
        };
        assert_eq!(r.host(), Some(&b"Example.com"[..]));
        let r = Request {
            target: b(b"https://example.com:8443?x"),
            ..Request::default()
        };
        assert_eq!(r.host(), Some(&b"example.com:8443"[..]));
        let r = Request {
            target: b(b"/x"),
            host: Some(b(b"site.example")),
            ..Request::default()
        };
        assert_eq!(r.host(), Some(&b"site.example"[..]));
        let r = Request {
            target: b(b"/x"),
            host: Some(b(b"-")),
            ..Request::default()
        };
        assert_eq!(r.host(), None);
    }
}

//! JSON-lines logs with a configurable field mapping.

use std::borrow::Cow;

use serde_json::Value;

use super::BadReason;
use super::record::{Request, split_request_line};
use super::time::parse_any;
use crate::host::strip_default_port;

/// The logical fields a JSON log can map.
const NAMES: [&str; 11] = [
    "time",
    "ip",
    "method",
    "uri",
    "request",
    "protocol",
    "status",
    "bytes",
    "referer",
    "user_agent",
    "host",
];

/// Where each logical field is found in a JSON line: candidate keys in
/// order (a key may be a dotted path into nested objects, e.g.
/// `request.headers.User-Agent`; an array value gives its first element).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsonFields {
    paths: [Vec<String>; 11],
}

fn list(keys: &[&str]) -> Vec<String> {
    keys.iter().map(|k| k.to_string()).collect()
}

impl JsonFields {
    /// Field names of Cloudflare Logpush (HTTP requests), Caddy, Traefik and
    /// common nginx/Apache JSON formats, tried in turn.
    pub fn auto() -> JsonFields {
        JsonFields {
            paths: [
                list(&[
                    "EdgeStartTimestamp",
                    "time_iso8601",
                    "time_local",
                    "msec",
                    "ts",
                    "StartUTC",
                    "time",
                    "timestamp",
                    "@timestamp",
                    "date",
                ]),
                list(&[
                    "ClientIP",
                    "remote_addr",
                    "request.client_ip",
                    "request.remote_ip",
                    "ClientHost",
                    "client_ip",
                    "remote_ip",
                    "ip",
                    "clientip",
                ]),
                list(&[
                    "ClientRequestMethod",
                    "request_method",
                    "request.method",
                    "RequestMethod",
                    "method",
                ]),
                list(&[
                    "ClientRequestURI",
                    "request_uri",
                    "request.uri",
                    "RequestPath",
                    "uri",
                    "path",
                    "url",
                ]),
                list(&["request"]),
                list(&[
                    "ClientRequestProtocol",
                    "server_protocol",
                    "request.proto",
                    "RequestProtocol",
                    "protocol",
                ]),
                list(&[
                    "EdgeResponseStatus",
                    "status",
                    "DownstreamStatus",
                    "status_code",
                ]),
                list(&[
                    "EdgeResponseBytes",
                    "body_bytes_sent",
                    "bytes_sent",
                    "size",
                    "DownstreamContentSize",
                    "bytes",
                ]),
                list(&[
                    "ClientRequestReferer",
                    "http_referer",
                    "request.headers.Referer",
                    "request_Referer",
                    "referer",
                    "referrer",
                ]),
                list(&[
                    "ClientRequestUserAgent",
                    "http_user_agent",
                    "request.headers.User-Agent",
                    "request_User-Agent",
                    "user_agent",
                    "useragent",
                ]),
                list(&[
                    "ClientRequestHost",
                    "host",
                    "http_host",
                    "request.host",
                    "RequestHost",
                    "server_name",
                ]),
            ],
        }
    }

    /// Cloudflare Logpush HTTP request fields.
    pub fn cloudflare() -> JsonFields {
        JsonFields {
            paths: [
                list(&["EdgeStartTimestamp"]),
                list(&["ClientIP"]),
                list(&["ClientRequestMethod"]),
                list(&["ClientRequestURI"]),
                list(&[]),
                list(&["ClientRequestProtocol"]),
                list(&["EdgeResponseStatus"]),
                list(&["EdgeResponseBytes"]),
                list(&["ClientRequestReferer"]),
                list(&["ClientRequestUserAgent"]),
                list(&["ClientRequestHost"]),
            ],
        }
    }

    /// Overrides from `--json-fields name=key,name=key` (names: `time`, `ip`,
    /// `method`, `uri`, `request`, `protocol`, `status`, `bytes`, `referer`,
    /// `user_agent`, `host`). An override replaces that field's candidates.
    ///
    /// # Errors
    /// An unknown field name or a missing `=`, with the list of names.
    pub fn with_overrides(mut self, spec: &str) -> Result<JsonFields, String> {
        for pair in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (name, key) = pair.split_once('=').ok_or_else(|| {
                format!(
                    "--json-fields: {pair:?} is not name=key (names: {})",
                    NAMES.join(", ")
                )
            })?;
            let i = NAMES
                .iter()
                .position(|n| *n == name.trim())
                .ok_or_else(|| {
                    format!(
                        "--json-fields: unknown field {:?} (names: {})",
                        name.trim(),
                        NAMES.join(", ")
                    )
                })?;
            self.paths[i] = vec![key.trim().to_string()];
        }
        Ok(self)
    }

    fn lookup<'v>(&self, field: usize, obj: &'v Value) -> Option<&'v Value> {
        self.paths[field]
            .iter()
            .find_map(|path| get_path(obj, path))
            .filter(|v| !v.is_null())
    }

    /// Reads one line.
    pub(crate) fn parse_line<'a>(&self, line: &'a [u8]) -> Result<Request<'a>, BadReason> {
        let value: Value = serde_json::from_slice(line).map_err(|_| BadReason::Json)?;
        if !value.is_object() {
            return Err(BadReason::Json);
        }
        let text = |field: usize| -> Option<Cow<'a, [u8]>> {
            self.lookup(field, &value).and_then(|v| match v {
                Value::String(s) => Some(Cow::Owned(s.clone().into_bytes())),
                Value::Number(n) => Some(Cow::Owned(n.to_string().into_bytes())),
                Value::Array(a) => a
                    .first()
                    .and_then(Value::as_str)
                    .map(|s| Cow::Owned(s.as_bytes().to_vec())),
                _ => None,
            })
        };
        let time = text(0).and_then(|t| parse_any(&t)).ok_or(BadReason::Time)?;
        let mut req = Request {
            time: time.nanos,
            resolution: time.resolution,
            valid_request: true,
            client: text(1).unwrap_or_default(),
            method: text(2).unwrap_or_default(),
            protocol: text(5).unwrap_or_default(),
            referer: text(8).unwrap_or_default(),
            user_agent: text(9).unwrap_or_default(),
            host: text(10).map(|h| match h {
                Cow::Owned(v) => Cow::Owned(strip_default_port(&v).to_vec()),
                b => b,
            }),
            ..Request::default()
        };
        if let Some(uri) = text(3) {
            req.target = uri;
        } else if let Some(line) = text(4) {
            match split_request_line(&line) {
                Some((m, t, p)) => {
                    req.method = Cow::Owned(m.to_vec());
                    req.target = Cow::Owned(t.to_vec());
                    req.protocol = Cow::Owned(p.to_vec());
                }
                None => req.valid_request = false,
            }
        }
        if req.target.is_empty() {
            req.valid_request = false;
        }
        if let Some(status) = text(6) {
            let s = std::str::from_utf8(&status)
                .ok()
                .and_then(|s| s.parse::<u16>().ok())
                .ok_or(BadReason::Status)?;
            req.status = s;
        }
        if let Some(bytes) = text(7) {
            req.bytes = Some(
                std::str::from_utf8(&bytes)
                    .ok()
                    .and_then(|s| s.parse::<u64>().ok())
                    .ok_or(BadReason::Bytes)?,
            );
        }
        Ok(req)
    }

    /// Does this line look like one this mapping can read (a JSON object
    /// with a time and a request)? Used by format detection.
    pub(crate) fn recognises(&self, line: &[u8]) -> bool {
        self.parse_line(line).is_ok_and(|r| r.valid_request)
    }
}

/// A flat key first (keys may contain dots), then a dotted path.
fn get_path<'v>(obj: &'v Value, path: &str) -> Option<&'v Value> {
    if let Some(v) = obj.get(path) {
        return Some(v);
    }
    let mut cur = obj;
    for part in path.split('.') {
        cur = cur.get(part)?;
    }
    Some(cur)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cloudflare_logpush() {
        let line = br#"{"ClientIP":"66.249.66.1","ClientRequestHost":"www.example.com","ClientRequestMethod":"GET","ClientRequestURI":"/a?b=1","ClientRequestProtocol":"HTTP/2","ClientRequestReferer":"","ClientRequestUserAgent":"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)","EdgeResponseBytes":1234,"EdgeResponseStatus":200,"EdgeStartTimestamp":"2024-05-01T13:55:36Z"}"#;
        for fields in [JsonFields::cloudflare(), JsonFields::auto()] {
            let r = fields.parse_line(line).unwrap();
            assert_eq!(
                (r.client(), r.target(), r.status(), r.bytes()),
                (&b"66.249.66.1"[..], &b"/a?b=1"[..], 200, Some(1234))
            );
            assert_eq!(r.host(), Some(&b"www.example.com"[..]));
            assert_eq!(
                jiff::Timestamp::from_nanosecond(r.time().into())
                    .unwrap()
                    .to_string(),
                "2024-05-01T13:55:36Z"
            );
        }
        // Nanosecond integer timestamps, as Logpush can send them.
        let r = JsonFields::cloudflare()
            .parse_line(br#"{"ClientIP":"1.2.3.4","ClientRequestURI":"/","EdgeStartTimestamp":1714571736123456789,"EdgeResponseStatus":200}"#)
            .unwrap();
        assert_eq!(r.resolution(), 1);
    }

    #[test]
    fn caddy_nested() {
        let line = br#"{"level":"info","ts":1714571736.5,"logger":"http.log.access","request":{"remote_ip":"2001:db8::1","proto":"HTTP/2.0","method":"GET","host":"example.com","uri":"/x","headers":{"User-Agent":["curl/8.0"],"Referer":["https://www.bing.com/"]}},"status":404,"size":12}"#;
        let r = JsonFields::auto().parse_line(line).unwrap();
        assert_eq!(
            (r.client(), r.user_agent(), r.referer()),
            (
                &b"2001:db8::1"[..],
                &b"curl/8.0"[..],
                &b"https://www.bing.com/"[..]
            )
        );
        assert_eq!(
            (r.target(), r.status(), r.resolution()),
            (&b"/x"[..], 404, 100_000_000)
        );
    }

    #[test]
    fn nginx_json_with_request_line_and_overrides() {
        let line = br#"{"t":"01/Jan/2024:00:00:00 +0000","addr":"1.2.3.4","request":"GET /p HTTP/1.1","status":"301","ua":"Wget/1.21"}"#;
        let fields = JsonFields::auto()
            .with_overrides("time=t, ip=addr, user_agent=ua")
            .unwrap();
        let r = fields.parse_line(line).unwrap();
        assert_eq!(
            (
                r.client(),
                r.method(),
                r.target(),
                r.status(),
                r.user_agent()
            ),
            (
                &b"1.2.3.4"[..],
                &b"GET"[..],
                &b"/p"[..],
                301,
                &b"Wget/1.21"[..]
            )
        );
        assert_eq!(
            JsonFields::auto().parse_line(line).unwrap_err(),
            BadReason::Time
        );
        assert!(
            JsonFields::auto()
                .with_overrides("when=t")
                .unwrap_err()
                .contains("unknown field \"when\"")
        );
        assert_eq!(
            JsonFields::auto().parse_line(b"[1,2]").unwrap_err(),
            BadReason::Json
        );
        assert_eq!(
            JsonFields::auto().parse_line(b"{not json").unwrap_err(),
            BadReason::Json
        );
    }
}

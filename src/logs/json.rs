//! JSON-lines logs with a configurable field mapping, and the named
//! layouts of the CDNs, cloud load balancers and proxies that write JSON
//! (`json:cloudflare`, `json:gcp`, `json:azure`, `json:fastly`,
//! `json:akamai`, `json:traefik`).

use std::borrow::Cow;

use serde_json::Value;

use super::record::{Request, decode_hex_escapes, split_request_line};
use super::time::{LogTime, parse_any};
use super::{BadReason, fields};
use crate::host::strip_default_port;

/// The logical fields a JSON log can map: those of every format
/// ([`fields::NAMES`]), and `query` (a query string logged apart from the
/// path).
pub(crate) const NAMES: [&str; 12] = {
    let mut names = [""; 12];
    let mut i = 0;
    while i < fields::NAMES.len() {
        names[i] = fields::NAMES[i];
        i += 1;
    }
    names[QUERY] = "query";
    names
};

/// How many logical fields there are.
pub(crate) const FIELDS: usize = NAMES.len();

/// Indexes into [`NAMES`]: those of [`fields::NAMES`], then `query`.
pub(crate) use fields::TIME;
use fields::{BYTES, HOST, IP, METHOD, PROTOCOL, REFERER, REQUEST, STATUS, URI, USER_AGENT};
const QUERY: usize = fields::NAMES.len();

/// The named layouts (`--format json:NAME`), in the order format
/// detection tries their distinctive keys.
pub const PRESETS: [&str; 6] = ["cloudflare", "gcp", "azure", "fastly", "akamai", "traefik"];

/// Where each logical field is found in a JSON line: candidate keys in
/// order (a key may be a dotted path into nested objects, e.g.
/// `request.headers.User-Agent` or `httpRequest.requestUrl`; a key that
/// itself contains dots is tried first as it is; an array value gives its
/// first element).
///
/// The target is the `uri` field (else the request line of `request`),
/// with the `query` field appended after a `?` when the vendor logs the
/// query apart (Akamai). A `uri` that is a full URL (`https://host/p?q`,
/// as Google Cloud and Azure Front Door log it) gives its path and query
/// as the target and its host as the host, unless a `host` field is
/// there. A client address with a port (`192.0.2.1:5000`,
/// `[2001:db8::1]:5000`) loses the port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsonFields {
    paths: [Vec<String>; 12],
    /// The layout's name (`cloudflare`, ...): `None` for the automatic
    /// mapping and for any mapping `--json-fields` changed.
    name: Option<&'static str>,
    /// The User-Agent and Referer are URL-encoded (`%XX`, `+` for a
    /// space), as Akamai DataStream writes them: they are decoded.
    url_encoded: bool,
}

fn list(keys: &[&str]) -> Vec<String> {
    keys.iter().map(|k| k.to_string()).collect()
}

/// Builds a mapping from candidate keys per field, in [`NAMES`] order.
fn mapping(name: Option<&'static str>, keys: [&[&str]; 12]) -> JsonFields {
    JsonFields {
        paths: keys.map(list),
        name,
        url_encoded: false,
    }
}

impl JsonFields {
    /// Field names of Cloudflare Logpush (HTTP requests), Caddy, Traefik and
    /// common nginx/Apache JSON formats, tried in turn.
    pub fn auto() -> JsonFields {
        mapping(
            None,
            [
                &[
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
                ],
                &[
                    "ClientIP",
                    "remote_addr",
                    "request.client_ip",
                    "request.remote_ip",
                    "ClientHost",
                    "client_ip",
                    "remote_ip",
                    "ip",
                    "clientip",
                ],
                &[
                    "ClientRequestMethod",
                    "request_method",
                    "request.method",
                    "RequestMethod",
                    "method",
                ],
                &[
                    "ClientRequestURI",
                    "request_uri",
                    "request.uri",
                    "RequestPath",
                    "uri",
                    "path",
                    "url",
                ],
                &["request"],
                &[
                    "ClientRequestProtocol",
                    "server_protocol",
                    "request.proto",
                    "RequestProtocol",
                    "protocol",
                ],
                &[
                    "EdgeResponseStatus",
                    "status",
                    "DownstreamStatus",
                    "status_code",
                ],
                &[
                    "EdgeResponseBytes",
                    "body_bytes_sent",
                    "bytes_sent",
                    "size",
                    "DownstreamContentSize",
                    "bytes",
                ],
                &[
                    "ClientRequestReferer",
                    "http_referer",
                    "request.headers.Referer",
                    "request_Referer",
                    "referer",
                    "referrer",
                ],
                &[
                    "ClientRequestUserAgent",
                    "http_user_agent",
                    "request.headers.User-Agent",
                    "request_User-Agent",
                    "user_agent",
                    "useragent",
                ],
                &[
                    "ClientRequestHost",
                    "host",
                    "http_host",
                    "request.host",
                    "RequestHost",
                    "server_name",
                ],
                &[],
            ],
        )
    }

    /// Cloudflare Logpush HTTP request fields
    /// (<https://developers.cloudflare.com/logs/reference/log-fields/zone/http_requests/>).
    pub fn cloudflare() -> JsonFields {
        mapping(
            Some("cloudflare"),
            [
                &["EdgeStartTimestamp"],
                &["ClientIP"],
                &["ClientRequestMethod"],
                &["ClientRequestURI"],
                &[],
                &["ClientRequestProtocol"],
                &["EdgeResponseStatus"],
                &["EdgeResponseBytes"],
                &["ClientRequestReferer"],
                &["ClientRequestUserAgent"],
                &["ClientRequestHost"],
                &[],
            ],
        )
    }

    /// Google Cloud HTTP(S) Load Balancing logs (and other Cloud Logging
    /// request logs) exported as JSON: a `LogEntry` per line, whose
    /// `httpRequest` object holds the request
    /// (<https://cloud.google.com/logging/docs/reference/v2/rest/v2/LogEntry#HttpRequest>);
    /// `requestUrl` is a full URL, which gives the host.
    pub fn gcp() -> JsonFields {
        mapping(
            Some("gcp"),
            [
                &["timestamp", "receiveTimestamp"],
                &["httpRequest.remoteIp"],
                &["httpRequest.requestMethod"],
                &["httpRequest.requestUrl"],
                &[],
                &["httpRequest.protocol"],
                &["httpRequest.status"],
                &["httpRequest.responseSize"],
                &["httpRequest.referer"],
                &["httpRequest.userAgent"],
                &[],
                &[],
            ],
        )
    }

    /// Azure Front Door access logs (`properties.requestUri` is a full
    /// URL, `properties.hostName` the host) and Application Gateway access
    /// logs (`properties.originalRequestUriWithArgs`, the URI as the
    /// client sent it, else `properties.requestUri`, without the query on
    /// v1; `properties.originalHost`, else `properties.host`), one record
    /// per line as diagnostic settings write them to storage
    /// (<https://learn.microsoft.com/en-us/azure/frontdoor/front-door-diagnostics>,
    /// <https://learn.microsoft.com/en-us/azure/application-gateway/application-gateway-diagnostics>).
    pub fn azure() -> JsonFields {
        mapping(
            Some("azure"),
            [
                &["time", "timeStamp"],
                &["properties.clientIp", "properties.clientIP"],
                &["properties.httpMethod"],
                &[
                    "properties.originalRequestUriWithArgs",
                    "properties.requestUri",
                ],
                &[],
                &["properties.httpVersion"],
                &["properties.httpStatusCode", "properties.httpStatus"],
                &["properties.responseBytes", "properties.sentBytes"],
                &["properties.referer", "properties.referrer"],
                &["properties.userAgent"],
                &[
                    "properties.hostName",
                    "properties.originalHost",
                    "properties.host",
                ],
                &[],
            ],
        )
    }

    /// Fastly's documented JSON log format
    /// (<https://docs.fastly.com/en/guides/useful-log-formats>: `timestamp`,
    /// `client_ip`, `host`, `url`, `request_method`, `request_protocol`,
    /// `request_referer`, `request_user_agent`, `response_status`,
    /// `response_body_size`), and the nested fields of its Datadog
    /// endpoint's default format (`time_start`, `network.client.ip`,
    /// `http.method`, `http.url`, `http.status_code`, `http.referer`,
    /// `http.useragent`).
    pub fn fastly() -> JsonFields {
        mapping(
            Some("fastly"),
            [
                &["timestamp", "time_start"],
                &["client_ip", "network.client.ip"],
                &["request_method", "http.method"],
                &["url", "http.url"],
                &[],
                &["request_protocol", "http.protocol"],
                &["response_status", "http.status_code"],
                &["response_body_size", "network.bytes_written"],
                &["request_referer", "http.referer"],
                &["request_user_agent", "http.useragent"],
                &["host"],
                &[],
            ],
        )
    }

    /// Akamai DataStream 2 JSON logs
    /// (<https://techdocs.akamai.com/datastream2/docs/log-format-1>): the
    /// path (`reqPath`) and query (`queryStr`) are rejoined; `UA` and
    /// `referer` are URL-encoded and decoded here.
    pub fn akamai() -> JsonFields {
        let mut fields = mapping(
            Some("akamai"),
            [
                &["reqTimeSec"],
                &["cliIP"],
                &["reqMethod"],
                &["reqPath"],
                &[],
                &[],
                &["statusCode"],
                &["bytes"],
                &["referer"],
                &["UA"],
                &["reqHost"],
                &["queryStr"],
            ],
        );
        fields.url_encoded = true;
        fields
    }

    /// Traefik's JSON access log
    /// (<https://doc.traefik.io/traefik/observability/access-logs/>):
    /// `StartUTC`, `ClientHost`, `RequestMethod`, `RequestPath`,
    /// `RequestHost`, `DownstreamStatus`, and the `request_User-Agent` and
    /// `request_Referer` headers when Traefik keeps them (it drops headers
    /// by default).
    pub fn traefik() -> JsonFields {
        mapping(
            Some("traefik"),
            [
                &["StartUTC", "StartLocal"],
                &["ClientHost", "ClientAddr"],
                &["RequestMethod"],
                &["RequestPath"],
                &[],
                &["RequestProtocol"],
                &["DownstreamStatus"],
                &["DownstreamContentSize"],
                &["request_Referer"],
                &["request_User-Agent"],
                &["RequestHost"],
                &[],
            ],
        )
    }

    /// The named layout `name` (one of [`PRESETS`]).
    pub fn preset(name: &str) -> Option<JsonFields> {
        Some(match name {
            "cloudflare" => JsonFields::cloudflare(),
            "gcp" => JsonFields::gcp(),
            "azure" => JsonFields::azure(),
            "fastly" => JsonFields::fastly(),
            "akamai" => JsonFields::akamai(),
            "traefik" => JsonFields::traefik(),
            _ => return None,
        })
    }

    /// The layout's name (`cloudflare`, ...), or `None` for the automatic
    /// mapping and for a mapping `--json-fields` changed.
    pub fn name(&self) -> Option<&'static str> {
        self.name
    }

    /// The keys that tell a layout's lines apart: a line is in the layout
    /// when it has every key of one of the sets.
    fn signatures(name: &str) -> &'static [&'static [&'static str]] {
        match name {
            "cloudflare" => &[&["EdgeStartTimestamp", "ClientRequestURI"]],
            "gcp" => &[&["httpRequest.requestUrl"]],
            "azure" => &[&["properties.httpMethod", "properties.requestUri"]],
            "fastly" => &[
                &["response_status", "request_user_agent"],
                &["fastly_server"],
                &["time_start", "http.url", "network.client.ip"],
            ],
            "akamai" => &[&["reqTimeSec", "cliIP"]],
            "traefik" => &[&["RequestPath", "DownstreamStatus"]],
            _ => &[],
        }
    }

    /// The layout of a JSON log, from its first line that is a JSON
    /// object: the first of [`PRESETS`] whose distinctive keys it has,
    /// else the automatic mapping.
    pub(crate) fn detect(lines: &[&[u8]]) -> JsonFields {
        let first = lines
            .iter()
            .filter_map(|l| serde_json::from_slice::<Value>(l).ok())
            .find(Value::is_object);
        let Some(first) = first else {
            return JsonFields::auto();
        };
        PRESETS
            .iter()
            .find(|name| {
                JsonFields::signatures(name)
                    .iter()
                    .any(|keys| keys.iter().all(|k| get_path(&first, k).is_some()))
            })
            .and_then(|name| JsonFields::preset(name))
            .unwrap_or_else(JsonFields::auto)
    }

    /// Overrides from `--json-fields name=key,name=key` (names: `time`, `ip`,
    /// `method`, `uri`, `request`, `protocol`, `status`, `bytes`, `referer`,
    /// `user_agent`, `host`, `query`). An override replaces that field's
    /// candidates; a key may be a dotted path (`httpRequest.requestUrl`).
    ///
    /// # Errors
    /// An unknown field name or a missing `=`, with the list of names.
    pub fn with_overrides(mut self, spec: &str) -> Result<JsonFields, String> {
        super::fields::mapping("--json-fields", "key", &NAMES, spec, |i, key, _| {
            self.paths[i] = vec![key.to_string()];
            self.name = None;
            Ok(())
        })?;
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
        self.build(text, None)
    }

    /// The candidate keys of logical field `field` (an index into the
    /// names `--json-fields` takes), in order.
    pub(crate) fn candidates(&self, field: usize) -> &[String] {
        &self.paths[field]
    }

    /// Builds a request from the text of each logical field (`text(field)`,
    /// `None` when the record has none), as a JSON line or a Parquet row
    /// gives them; `time`, when given, is the time (a typed timestamp) and
    /// the time field's text is not read.
    pub(crate) fn build<'a>(
        &self,
        text: impl Fn(usize) -> Option<Cow<'a, [u8]>>,
        time: Option<LogTime>,
    ) -> Result<Request<'a>, BadReason> {
        let header = |field: usize| -> Cow<'a, [u8]> {
            match text(field) {
                Some(v) if self.url_encoded => Cow::Owned(form_decode(&v)),
                Some(v) => v,
                None => Cow::Borrowed(b""),
            }
        };
        let time = match time {
            Some(t) => t,
            None => text(TIME)
                .and_then(|t| parse_any(&t))
                .ok_or(BadReason::Time)?,
        };
        let mut req = Request {
            time: time.nanos,
            resolution: time.resolution,
            valid_request: true,
            client: text(IP)
                .map(|c| Cow::Owned(without_port(&c).to_vec()))
                .unwrap_or_default(),
            method: text(METHOD).unwrap_or_default(),
            protocol: text(PROTOCOL).unwrap_or_default(),
            referer: header(REFERER),
            user_agent: header(USER_AGENT),
            host: text(HOST).map(|h| Cow::Owned(strip_default_port(&h).to_vec())),
            ..Request::default()
        };
        if let Some(uri) = text(URI) {
            match split_url(&uri) {
                Some((host, target)) => {
                    if req
                        .host
                        .as_deref()
                        .is_none_or(|h| h.is_empty() || h == b"-")
                    {
                        req.host = Some(Cow::Owned(strip_default_port(host).to_vec()));
                    }
                    req.target = Cow::Owned(target);
                }
                None => req.target = uri,
            }
        } else if let Some(line) = text(REQUEST) {
            match split_request_line(&line) {
                Some((m, t, p)) => {
                    req.method = Cow::Owned(m.to_vec());
                    req.target = Cow::Owned(t.to_vec());
                    req.protocol = Cow::Owned(p.to_vec());
                }
                None => req.valid_request = false,
            }
        }
        if let Some(query) = text(QUERY).filter(|q| !q.is_empty() && q.as_ref() != b"-") {
            if !req.target.is_empty() && memchr::memchr(b'?', &req.target).is_none() {
                let mut t = req.target.into_owned();
                t.push(b'?');
                t.extend_from_slice(query.strip_prefix(b"?").unwrap_or(&query));
                req.target = Cow::Owned(t);
            }
        }
        if req.target.is_empty() {
            req.valid_request = false;
        }
        if let Some(status) = text(STATUS) {
            // A status has three digits at most, as in the line formats.
            let s = std::str::from_utf8(&status)
                .ok()
                .and_then(|s| s.parse::<u16>().ok())
                .filter(|s| *s <= 999)
                .ok_or(BadReason::Status)?;
            req.status = s;
        }
        if let Some(bytes) = text(BYTES) {
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

/// A full URL (`https://user@host:8443/p?q#f`, scheme case-insensitive):
/// its host (with the port) and its path and query (`/` when it has no
/// path, the fragment dropped). `None` for anything else.
fn split_url(url: &[u8]) -> Option<(&[u8], Vec<u8>)> {
    let colon = memchr::memchr(b':', url)?;
    let scheme = &url[..colon];
    if !(scheme.eq_ignore_ascii_case(b"http") || scheme.eq_ignore_ascii_case(b"https")) {
        return None;
    }
    let rest = url[colon + 1..].strip_prefix(b"//")?;
    let end = rest
        .iter()
        .position(|&b| matches!(b, b'/' | b'?' | b'#'))
        .unwrap_or(rest.len());
    let authority = &rest[..end];
    let host = match memchr::memrchr(b'@', authority) {
        Some(at) => &authority[at + 1..],
        None => authority,
    };
    let tail = &rest[end..];
    let tail = &tail[..memchr::memchr(b'#', tail).unwrap_or(tail.len())];
    let mut target = Vec::with_capacity(tail.len() + 1);
    if !tail.starts_with(b"/") {
        target.push(b'/');
    }
    target.extend_from_slice(tail);
    Some((host, target))
}

/// A client address without its port: `192.0.2.1:5000` (one colon) and
/// `[2001:db8::1]:5000` lose it; a bare IPv6 address (two colons or more)
/// is kept whole.
fn without_port(v: &[u8]) -> &[u8] {
    if let Some(rest) = v.strip_prefix(b"[") {
        return rest
            .iter()
            .position(|&b| b == b']')
            .map_or(v, |e| &rest[..e]);
    }
    let mut colons = memchr::memchr_iter(b':', v);
    match (colons.next(), colons.next()) {
        (Some(c), None) if v[c + 1..].iter().all(u8::is_ascii_digit) => &v[..c],
        _ => v,
    }
}

/// Decodes a URL-encoded value: `+` is a space, `%XX` a byte (an invalid
/// escape is kept as it is).
fn form_decode(v: &[u8]) -> Vec<u8> {
    decode_hex_escapes(v, b'%', true)
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

    fn time_of(r: &Request<'_>) -> String {
        jiff::Timestamp::from_nanosecond(r.time().into())
            .unwrap()
            .to_string()
    }

    #[test]
    fn gcp_load_balancer_log_entries() {
        let line = br#"{"httpRequest":{"requestMethod":"GET","requestUrl":"https://www.example.com/docs/a?b=1","requestSize":"312","status":200,"responseSize":"5120","userAgent":"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)","remoteIp":"66.249.66.1","referer":"https://www.google.com/","latency":"0.012s","protocol":"HTTP/1.1"},"insertId":"abc","jsonPayload":{"@type":"type.googleapis.com/google.cloud.loadbalancing.type.LoadBalancerLogEntry","statusDetails":"response_sent_by_backend"},"resource":{"type":"http_load_balancer"},"timestamp":"2024-05-01T13:55:36.123456789Z","severity":"INFO","receiveTimestamp":"2024-05-01T13:55:37Z"}"#;
        let r = JsonFields::gcp().parse_line(line).unwrap();
        assert_eq!(
            (r.client(), r.method(), r.target(), r.status(), r.bytes()),
            (
                &b"66.249.66.1"[..],
                &b"GET"[..],
                &b"/docs/a?b=1"[..],
                200,
                Some(5120)
            )
        );
        assert_eq!(r.host(), Some(&b"www.example.com"[..]));
        assert_eq!(r.referer(), b"https://www.google.com/");
        assert_eq!(
            (time_of(&r), r.resolution()),
            ("2024-05-01T13:55:36.123456789Z".into(), 1)
        );
        assert_eq!(JsonFields::detect(&[line]), JsonFields::gcp());
        // A port on the client, a URL without a path, a non-default port.
        let r = JsonFields::gcp()
            .parse_line(br#"{"httpRequest":{"requestMethod":"HEAD","requestUrl":"http://Shop.Example:8080","status":301,"remoteIp":"192.0.2.7:41234"},"timestamp":"2024-05-01T13:55:36Z"}"#)
            .unwrap();
        assert_eq!(
            (r.client(), r.target(), r.host()),
            (
                &b"192.0.2.7"[..],
                &b"/"[..],
                Some(&b"Shop.Example:8080"[..])
            )
        );
    }

    #[test]
    fn azure_front_door_and_application_gateway() {
        let front_door = br#"{"time":"2024-05-01T13:55:36.1234567Z","resourceId":"/SUBSCRIPTIONS/X/RESOURCEGROUPS/RG/PROVIDERS/MICROSOFT.CDN/PROFILES/P","category":"FrontDoorAccessLog","operationName":"Microsoft.Cdn/Profiles/AccessLog/Write","properties":{"trackingReference":"0TzE1ZAAAAAB","httpMethod":"GET","httpVersion":"2.0.0","requestUri":"https://www.example.com:443/a/b?c=d","hostName":"www.example.com","requestBytes":"512","responseBytes":"2048","userAgent":"Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)","clientIp":"2001:db8::9","clientPort":"50123","socketIp":"2001:db8::9","timeTaken":"0.015","requestProtocol":"HTTPS","httpStatusCode":"200","pop":"AMS","cacheStatus":"HIT","referer":"https://www.bing.com/"}}"#;
        let r = JsonFields::azure().parse_line(front_door).unwrap();
        assert_eq!(
            (r.client(), r.target(), r.status(), r.bytes()),
            (&b"2001:db8::9"[..], &b"/a/b?c=d"[..], 200, Some(2048))
        );
        assert_eq!(r.host(), Some(&b"www.example.com"[..]));
        assert_eq!(r.referer(), b"https://www.bing.com/");
        assert_eq!(time_of(&r), "2024-05-01T13:55:36.1234567Z");
        // Application Gateway v2: the original URI with its query; v1:
        // requestUri, and no query (v1's requestQuery is no query).
        let v2 = br#"{"timeStamp":"2024-05-01T13:55:36+00:00","operationName":"ApplicationGatewayAccess","category":"ApplicationGatewayAccessLog","properties":{"instanceId":"appgw_1","clientIP":"203.0.113.5","clientPort":45057,"httpMethod":"GET","originalRequestUriWithArgs":"/shop?page=2","requestUri":"/rewritten","requestQuery":"page=2","userAgent":"curl/8.5.0","httpStatus":404,"httpVersion":"HTTP/1.1","receivedBytes":184,"sentBytes":466,"host":"backend.internal","originalHost":"shop.example.com"}}"#;
        let r = JsonFields::azure().parse_line(v2).unwrap();
        assert_eq!(
            (r.client(), r.target(), r.status(), r.host()),
            (
                &b"203.0.113.5"[..],
                &b"/shop?page=2"[..],
                404,
                Some(&b"shop.example.com"[..])
            )
        );
        let v1 = br#"{"time":"2024-05-01T13:55:36Z","properties":{"clientIP":"203.0.113.6","httpMethod":"GET","requestUri":"/phpmyadmin/","requestQuery":"SERVER-ROUTED=10.4.0.4&SERVER-STATUS=404","userAgent":"-","httpStatus":404,"httpVersion":"HTTP/1.0","host":"www.example.com"}}"#;
        let r = JsonFields::azure().parse_line(v1).unwrap();
        assert_eq!(
            (r.target(), r.user_agent()),
            (&b"/phpmyadmin/"[..], &b""[..])
        );
        for line in [&front_door[..], v2, v1] {
            assert_eq!(JsonFields::detect(&[line]), JsonFields::azure());
        }
    }

    #[test]
    fn fastly_json_formats() {
        let line = br#"{"timestamp":"2024-05-01T13:55:36+0000","client_ip":"198.51.100.4","geo_country":"netherlands","geo_city":"amsterdam","host":"www.example.com","url":"/search?q=robots","request_method":"GET","request_protocol":"HTTP/2","request_referer":"","request_user_agent":"Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)","response_state":"MISS","response_status":200,"response_reason":null,"response_body_size":731,"fastly_server":"cache-ams21080-AMS","fastly_is_edge":true}"#;
        let r = JsonFields::fastly().parse_line(line).unwrap();
        assert_eq!(
            (r.client(), r.target(), r.status(), r.bytes(), r.host()),
            (
                &b"198.51.100.4"[..],
                &b"/search?q=robots"[..],
                200,
                Some(731),
                Some(&b"www.example.com"[..])
            )
        );
        assert_eq!(time_of(&r), "2024-05-01T13:55:36Z");
        assert_eq!(JsonFields::detect(&[line]), JsonFields::fastly());
        // The Datadog endpoint's default: nested, times with %Z.
        let datadog = br#"{"ddsource":"fastly","service":"SU1Z0isxPaozGVKXdv0eY","date":"2024-05-01T13:55:36UTC","time_start":"2024-05-01T13:55:36UTC","time_end":"2024-05-01T13:55:37UTC","http":{"request_time_ms":"12","method":"GET","url":"/a","useragent":"curl/8.5.0","referer":"-","protocol":"HTTP/1.1","status_code":"304"},"network":{"client":{"ip":"192.0.2.9"},"bytes_written":"0"},"host":"www.example.com"}"#;
        let r = JsonFields::fastly().parse_line(datadog).unwrap();
        assert_eq!(
            (
                r.client(),
                r.target(),
                r.status(),
                r.user_agent(),
                r.referer()
            ),
            (
                &b"192.0.2.9"[..],
                &b"/a"[..],
                304,
                &b"curl/8.5.0"[..],
                &b""[..]
            )
        );
        assert_eq!(JsonFields::detect(&[datadog]), JsonFields::fastly());
    }

    #[test]
    fn akamai_datastream() {
        let line = br#"{"version":1,"cp":"123456","reqId":"1239f220","reqTimeSec":"1714571736","bytes":"4995","cliIP":"128.147.28.68","statusCode":"206","proto":"HTTPS","reqHost":"www.example.com","reqMethod":"GET","reqPath":"/path1/file.ext","reqPort":"443","rspContentLen":"5000","rspContentType":"text/html","UA":"Mozilla%2F5.0+%28compatible%3B+Googlebot%2F2.1%29","queryStr":"param=value&x=a%2Bb","referer":"https%3A%2F%2Fwww.google.com%2F","streamId":"12345"}"#;
        let r = JsonFields::akamai().parse_line(line).unwrap();
        assert_eq!(
            (r.client(), r.target(), r.status(), r.bytes(), r.host()),
            (
                &b"128.147.28.68"[..],
                &b"/path1/file.ext?param=value&x=a%2Bb"[..],
                206,
                Some(4995),
                Some(&b"www.example.com"[..])
            )
        );
        assert_eq!(
            (r.user_agent(), r.referer()),
            (
                &b"Mozilla/5.0 (compatible; Googlebot/2.1)"[..],
                &b"https://www.google.com/"[..]
            )
        );
        assert_eq!(
            (time_of(&r), r.resolution()),
            ("2024-05-01T13:55:36Z".into(), 1_000_000_000)
        );
        assert_eq!(JsonFields::detect(&[line]), JsonFields::akamai());
        // No query: the path alone.
        let r = JsonFields::akamai()
            .parse_line(br#"{"reqTimeSec":"1714571736.250","cliIP":"192.0.2.1","reqMethod":"HEAD","reqPath":"/robots.txt","statusCode":"200"}"#)
            .unwrap();
        assert_eq!(
            (r.target(), r.resolution()),
            (&b"/robots.txt"[..], 1_000_000)
        );
    }

    #[test]
    fn traefik_json() {
        let line = br#"{"ClientAddr":"192.0.2.10:52458","ClientHost":"192.0.2.10","ClientPort":"52458","ClientUsername":"-","DownstreamContentSize":15,"DownstreamStatus":200,"Duration":1002425,"OriginStatus":200,"RequestAddr":"app.example.com","RequestHost":"app.example.com","RequestMethod":"GET","RequestPath":"/api/items?id=7","RequestPort":"-","RequestProtocol":"HTTP/1.1","RequestScheme":"https","RouterName":"app@docker","StartLocal":"2024-05-01T15:55:36.5+02:00","StartUTC":"2024-05-01T13:55:36.5Z","entryPointName":"websecure","level":"info","msg":"","request_User-Agent":"Mozilla/5.0 (compatible; AhrefsBot/7.0)","request_Referer":"https://ahrefs.com/","time":"2024-05-01T13:55:37Z"}"#;
        let r = JsonFields::traefik().parse_line(line).unwrap();
        assert_eq!(
            (r.client(), r.method(), r.target(), r.status(), r.bytes()),
            (
                &b"192.0.2.10"[..],
                &b"GET"[..],
                &b"/api/items?id=7"[..],
                200,
                Some(15)
            )
        );
        assert_eq!(
            (r.host(), r.user_agent(), r.referer()),
            (
                Some(&b"app.example.com"[..]),
                &b"Mozilla/5.0 (compatible; AhrefsBot/7.0)"[..],
                &b"https://ahrefs.com/"[..]
            )
        );
        assert_eq!(time_of(&r), "2024-05-01T13:55:36.5Z");
        assert_eq!(JsonFields::detect(&[line]), JsonFields::traefik());
        // Headers dropped (Traefik's default), ClientHost missing: ClientAddr.
        let r = JsonFields::traefik()
            .parse_line(br#"{"ClientAddr":"[2001:db8::4]:443","DownstreamStatus":404,"RequestMethod":"GET","RequestPath":"/x","StartUTC":"2024-05-01T13:55:36Z"}"#)
            .unwrap();
        assert_eq!(
            (r.client(), r.user_agent()),
            (&b"2001:db8::4"[..], &b""[..])
        );
    }

    #[test]
    fn layouts_by_name_and_overrides() {
        for name in PRESETS {
            let fields = JsonFields::preset(name).unwrap();
            assert_eq!(fields.name(), Some(name));
            // An override makes it a custom mapping.
            assert_eq!(fields.with_overrides("host=h").unwrap().name(), None);
        }
        assert_eq!(JsonFields::preset("splunk"), None);
        assert_eq!(JsonFields::auto().name(), None);
        // Dotted paths and the query field work in --json-fields too.
        let fields = JsonFields::auto()
            .with_overrides("time=t, uri=req.path, query=req.qs, ip=req.ip")
            .unwrap();
        let r = fields
            .parse_line(
                br#"{"t":"2024-05-01T13:55:36Z","req":{"path":"/p","qs":"a=1","ip":"192.0.2.1"}}"#,
            )
            .unwrap();
        assert_eq!(
            (r.target(), r.client()),
            (&b"/p?a=1"[..], &b"192.0.2.1"[..])
        );
        // A line of no known layout: the automatic mapping.
        assert_eq!(
            JsonFields::detect(&[br#"{"ts":1714571736.5,"request":{"uri":"/"}}"#]),
            JsonFields::auto()
        );
        assert_eq!(JsonFields::detect(&[b"not json"]), JsonFields::auto());
    }

    #[test]
    fn urls_ports_and_decoding() {
        let split = |u: &[u8]| split_url(u).map(|(h, t)| (h.to_vec(), t));
        assert_eq!(
            split(b"HTTPS://user:pw@a.example:8443/p?q=1#frag"),
            Some((b"a.example:8443".to_vec(), b"/p?q=1".to_vec()))
        );
        assert_eq!(
            split(b"http://a.example?x"),
            Some((b"a.example".to_vec(), b"/?x".to_vec()))
        );
        assert_eq!(split(b"/just/a/path"), None);
        assert_eq!(split(b"ftp://a.example/"), None);
        assert_eq!(without_port(b"192.0.2.1:80"), b"192.0.2.1");
        assert_eq!(without_port(b"[2001:db8::1]:80"), b"2001:db8::1");
        assert_eq!(without_port(b"2001:db8::1"), b"2001:db8::1");
        assert_eq!(
            without_port(b"FE80::0202:B3FF:FE1E:8329"),
            b"FE80::0202:B3FF:FE1E:8329"
        );
        assert_eq!(form_decode(b"a+b%2Fc%zz%4"), b"a b/c%zz%4");
    }
}

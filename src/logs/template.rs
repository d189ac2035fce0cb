//! Line formats made of literal text and fields: Apache/nginx `combined`,
//! `common`, Apache `vhost_combined`, lighttpd's default, any nginx
//! `log_format` string, Gandi's hosting log, the access logs of AWS
//! Application Load Balancers, classic Elastic Load Balancers and S3
//! (built-in templates with a few AWS-only fields), and Envoy's default
//! access log.
//!
//! A format compiles to a list of literals and fields. A line is read left
//! to right: a literal must be there; a field runs to the next literal (a
//! quoted field to its closing quote, skipping `\"` escapes). Each step is
//! a `memchr` and a comparison, never a regex.

use std::borrow::Cow;
use std::cell::Cell;

use super::BadReason;
use super::record::{Request, split_request_line};
use super::time::{LogTime, parse_clf, parse_epoch, parse_iso};
use crate::host::strip_default_port;

/// What a field holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Field {
    RemoteAddr,
    TimeLocal,
    TimeIso,
    Msec,
    Request,
    Method,
    Uri,
    Protocol,
    Status,
    BodyBytes,
    Referer,
    UserAgent,
    Host,
    ServerName,
    /// `%v:%p` of Apache's vhost_combined: host and port.
    VHost,
    /// AWS load balancers' `client:port`: the address, its port dropped.
    ClientPort,
    /// S3's bucket: the host (`BUCKET.s3.amazonaws.com`) when the line has
    /// no `Host` header field.
    Bucket,
    /// S3's `Host` header field: the host; older lines end before it.
    HostHeader,
    /// Envoy's `"%REQ(X-FORWARDED-FOR)%"`: the client is the list's first
    /// address (Envoy's default format logs no other client address).
    ForwardedFor,
    /// A field whose value is not used (`$remote_user`, `$request_time`, unknown variables).
    Ignore,
}

fn field_of(variable: &str) -> Field {
    match variable {
        "remote_addr" | "binary_remote_addr" | "realip_remote_addr" | "http_x_real_ip" => {
            Field::RemoteAddr
        }
        "time_local" => Field::TimeLocal,
        "time_iso8601" => Field::TimeIso,
        "msec" => Field::Msec,
        "request" => Field::Request,
        "request_method" => Field::Method,
        "request_uri" => Field::Uri,
        "server_protocol" => Field::Protocol,
        "status" => Field::Status,
        "body_bytes_sent" | "bytes_sent" => Field::BodyBytes,
        "http_referer" => Field::Referer,
        "http_user_agent" => Field::UserAgent,
        "host" | "http_host" => Field::Host,
        "server_name" => Field::ServerName,
        "vhost" => Field::VHost,
        _ => Field::Ignore,
    }
}

/// The fields of the built-in Envoy template: nginx's, and
/// `$envoy_forwarded_for` (ignored in an nginx `log_format`, as any unknown
/// variable is).
fn envoy_field_of(variable: &str) -> Field {
    match variable {
        "envoy_forwarded_for" => Field::ForwardedFor,
        other => field_of(other),
    }
}

/// The fields of the built-in AWS templates: nginx's, and three names an
/// nginx `log_format` cannot use (they are ignored there, as any unknown
/// variable is).
fn aws_field_of(variable: &str) -> Field {
    match variable {
        "aws_client_port" => Field::ClientPort,
        "s3_bucket" => Field::Bucket,
        "s3_host_header" => Field::HostHeader,
        other => field_of(other),
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Item {
    Literal(Vec<u8>),
    Field { field: Field, quoted: bool },
}

/// The items of `format` (an nginx `log_format` directive is unwrapped),
/// each variable named as `field_of` reads it.
fn items_of(format: &str, field_of: fn(&str) -> Field) -> Result<Vec<Item>, FormatError> {
    let source = unwrap_nginx_directive(format);
    let err = |message: &str| FormatError {
        format: format.to_string(),
        message: message.to_string(),
    };
    let mut items: Vec<Item> = Vec::new();
    let mut literal = Vec::new();
    let bytes = source.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'$' {
            let (name, next) = if bytes.get(i + 1) == Some(&b'{') {
                let close = source[i + 2..]
                    .find('}')
                    .ok_or_else(|| err("unclosed ${"))?;
                (&source[i + 2..i + 2 + close], i + 3 + close)
            } else {
                let len = bytes[i + 1..]
                    .iter()
                    .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                    .count();
                (&source[i + 1..i + 1 + len], i + 1 + len)
            };
            if name.is_empty() {
                literal.push(b'$');
                i += 1;
                continue;
            }
            if !literal.is_empty() {
                items.push(Item::Literal(std::mem::take(&mut literal)));
            }
            if matches!(items.last(), Some(Item::Field { .. })) {
                return Err(err(&format!(
                    "${name} follows another variable with nothing between them"
                )));
            }
            let quoted = matches!(items.last(), Some(Item::Literal(l)) if l.ends_with(b"\""));
            items.push(Item::Field {
                field: field_of(name),
                quoted,
            });
            i = next;
        } else {
            literal.push(bytes[i]);
            i += 1;
        }
    }
    if !literal.is_empty() {
        items.push(Item::Literal(literal));
    }
    Ok(items)
}

/// A compiled line format.
#[derive(Clone, Debug)]
pub(crate) struct Template {
    items: Vec<Item>,
    has_time: bool,
    /// An AWS log: a request line `- - -` is no request, lines may end
    /// before the trailing fields AWS added over the years (also when
    /// detecting the format), a quoted field included.
    aws: bool,
    /// Envoy's log: a request line whose method is `-` (a request Envoy
    /// could not parse: `"- - HTTP/1.1"`) is no request.
    envoy: bool,
    /// The format is Apache's and nginx's `combined` (with `vhost`: Apache's
    /// `vhost_combined`), read by [`Template::parse_combined`] without
    /// walking the items.
    combined: Option<Combined>,
    /// The last `$time_local` text read and its value: consecutive lines
    /// mostly share their second, and this skips the date arithmetic.
    last_time: Cell<([u8; 32], usize, LogTime)>,
}

impl PartialEq for Template {
    fn eq(&self, other: &Self) -> bool {
        self.items == other.items
    }
}

impl Eq for Template {}

/// An error in a format string.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid log format {format:?}: {message}")]
pub struct FormatError {
    pub(crate) format: String,
    pub(crate) message: String,
}

/// The `combined` format of Apache and nginx.
pub(crate) const COMBINED: &str = r#"$remote_addr $ignore $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent""#;
/// The common log format.
pub(crate) const COMMON: &str =
    r#"$remote_addr $ignore $remote_user [$time_local] "$request" $status $body_bytes_sent"#;
/// Apache's `vhost_combined`: `%v:%p %h %l %u %t "%r" %>s %O "%{Referer}i" "%{User-Agent}i"`.
pub(crate) const VHOST_COMBINED: &str = r#"$vhost $remote_addr $ignore $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent""#;

/// Apache's common log format with the virtual host first: `%v %h %l %u
/// %t "%r" %>s %b`, the `vhost_common` nickname of SUSE's Apache
/// configuration (`mod_log_config.conf`), `common_vhost` to Matomo's log
/// importer; the fields are those of
/// <https://httpd.apache.org/docs/2.4/mod/mod_log_config.html>.
pub(crate) const VHOST_COMMON: &str =
    r#"$vhost $remote_addr $ignore $remote_user [$time_local] "$request" $status $body_bytes_sent"#;

/// Gandi's web hosting access log: `vhost_combined`'s fields with the host
/// name alone first (Apache's `%{Host}i`, a port only when the client sent
/// one) and the time taken in parentheses after the date (`(0 s)`).
/// Gandi publishes no reference for it: this is the layout as its logs
/// show it.
pub(crate) const GANDI: &str = r#"$host $remote_addr $ignore $remote_user [$time_local] ($request_time) "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent""#;

/// lighttpd's default `accesslog.format`, `%h %V %u %t "%r" %>s %b
/// "%{Referer}i" "%{User-Agent}i"` (<https://redmine.lighttpd.net/projects/lighttpd/wiki/Docs_ModAccesslog>):
/// combined with the request's host (`%V`) where combined has identd.
pub(crate) const LIGHTTPD: &str = r#"$remote_addr $host $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent""#;

/// Envoy's default access log format, as documented in
/// <https://www.envoyproxy.io/docs/envoy/latest/configuration/observability/access_log/usage#default-format-string>:
/// `[%START_TIME%] "%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)%
/// %PROTOCOL%" %RESPONSE_CODE% %RESPONSE_FLAGS% %BYTES_RECEIVED%
/// %BYTES_SENT% %DURATION% %RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)%
/// "%REQ(X-FORWARDED-FOR)%" "%REQ(USER-AGENT)%" "%REQ(X-REQUEST-ID)%"
/// "%REQ(:AUTHORITY)%" "%UPSTREAM_HOST%"`.
pub(crate) const ENVOY: &str = r#"[$time_iso8601] "$request" $status $response_flags $bytes_received $body_bytes_sent $duration $upstream_service_time "$envoy_forwarded_for" "$http_user_agent" "$request_id" "$host" "$upstream_host""#;

/// AWS Application Load Balancer, as documented in
/// <https://docs.aws.amazon.com/elasticloadbalancing/latest/application/load-balancer-access-logs.html>:
/// `type time elb client:port target:port request_processing_time
/// target_processing_time response_processing_time elb_status_code
/// target_status_code received_bytes sent_bytes "request" "user_agent"
/// ssl_cipher ssl_protocol target_group_arn ...`; the fields after
/// `target_group_arn` (`"trace_id" "domain_name" ...`, added over the
/// years) are ignored.
pub(crate) const ALB: &str = r#"$type $time_iso8601 $elb $aws_client_port $target $request_processing_time $target_processing_time $response_processing_time $status $target_status_code $received_bytes $body_bytes_sent "$request" "$http_user_agent" $ssl_cipher $ssl_protocol $target_group_arn"#;
/// The classic Elastic Load Balancer, as documented in
/// <https://docs.aws.amazon.com/elasticloadbalancing/latest/classic/access-log-collection.html>:
/// `time elb client:port backend:port request_processing_time
/// backend_processing_time response_processing_time elb_status_code
/// backend_status_code received_bytes sent_bytes "request" "user_agent"
/// ssl_cipher ssl_protocol`.
pub(crate) const ELB: &str = r#"$time_iso8601 $elb $aws_client_port $backend $request_processing_time $backend_processing_time $response_processing_time $status $backend_status_code $received_bytes $body_bytes_sent "$request" "$http_user_agent" $ssl_cipher $ssl_protocol"#;
/// S3 server access logs, as documented in
/// <https://docs.aws.amazon.com/AmazonS3/latest/userguide/LogFormat.html>:
/// `bucket_owner bucket [time] remote_ip requester request_id operation key
/// "request_uri" http_status error_code bytes_sent object_size total_time
/// turn_around_time "referer" "user_agent" version_id host_id
/// signature_version cipher_suite authentication_type host_header
/// tls_version ...`; lines may end after the user agent (older logs), and
/// the fields after `tls_version` are ignored.
pub(crate) const S3: &str = r#"$bucket_owner $s3_bucket [$time_local] $remote_addr $requester $request_id $operation $key "$request" $status $error_code $body_bytes_sent $object_size $total_time $turn_around_time "$http_referer" "$http_user_agent" $version_id $host_id $signature_version $cipher_suite $authentication_type $s3_host_header $tls_version"#;

/// Takes a `log_format` as written in nginx.conf (`log_format main '...' '...';`,
/// with or without the directive, quotes and `escape=` parameter) and
/// returns the format string itself.
fn unwrap_nginx_directive(text: &str) -> String {
    let text = text.trim().trim_end_matches(';').trim();
    let text = text.strip_prefix("log_format").map_or(text, |rest| {
        // Skip the name and an optional escape= parameter.
        let mut rest = rest.trim_start();
        rest = rest
            .split_once(char::is_whitespace)
            .map_or("", |(_, r)| r)
            .trim_start();
        if rest.starts_with("escape=") {
            rest = rest
                .split_once(char::is_whitespace)
                .map_or("", |(_, r)| r)
                .trim_start();
        }
        rest
    });
    if !text.starts_with('\'') && !text.starts_with('"') {
        return text.to_string();
    }
    // One or more quoted strings, concatenated as nginx does.
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\'' || c == '"' {
            let quote = c;
            while let Some(d) = chars.next() {
                match d {
                    '\\' => {
                        if let Some(e) = chars.next() {
                            out.push(e);
                        }
                    }
                    d if d == quote => break,
                    d => out.push(d),
                }
            }
        }
    }
    out
}

impl Template {
    /// Compiles an nginx-style format string (`$variable` or `${variable}`
    /// and literal text between them).
    pub(crate) fn compile(format: &str) -> Result<Template, FormatError> {
        Template::compile_with(format, field_of, false)
    }

    /// Compiles one of the built-in AWS templates ([`ALB`], [`ELB`], [`S3`]).
    pub(crate) fn compile_aws(format: &str) -> Result<Template, FormatError> {
        Template::compile_with(format, aws_field_of, true)
    }

    /// Compiles the built-in Envoy template ([`ENVOY`]).
    pub(crate) fn compile_envoy(format: &str) -> Result<Template, FormatError> {
        let mut template = Template::compile_with(format, envoy_field_of, false)?;
        template.envoy = true;
        // Envoy's request lines are read otherwise (`- -` is none).
        template.combined = None;
        Ok(template)
    }

    fn compile_with(
        format: &str,
        field_of: fn(&str) -> Field,
        aws: bool,
    ) -> Result<Template, FormatError> {
        let err = |message: &str| FormatError {
            format: format.to_string(),
            message: message.to_string(),
        };
        let items = items_of(format, field_of)?;
        let fields: Vec<Field> = items
            .iter()
            .filter_map(|it| {
                if let Item::Field { field, .. } = it {
                    Some(*field)
                } else {
                    None
                }
            })
            .collect();
        let has_time = fields
            .iter()
            .any(|f| matches!(f, Field::TimeLocal | Field::TimeIso | Field::Msec));
        if !has_time {
            return Err(err("it has no time ($time_local, $time_iso8601 or $msec)"));
        }
        if !fields
            .iter()
            .any(|f| matches!(f, Field::Request | Field::Uri))
        {
            return Err(err("it has no request ($request or $request_uri)"));
        }
        Ok(Template {
            combined: (!aws).then(|| Combined::of(&items)).flatten(),
            items,
            has_time,
            aws,
            envoy: false,
            last_time: Cell::new((
                [0; 32],
                usize::MAX,
                LogTime {
                    nanos: 0,
                    resolution: 0,
                },
            )),
        })
    }

    fn clf_cached(&self, value: &[u8]) -> Option<LogTime> {
        let (bytes, len, t) = self.last_time.get();
        if len == value.len() && same_short(&bytes, value) {
            return Some(t);
        }
        let t = parse_clf(value)?;
        if value.len() <= 32 {
            let mut b = [0u8; 32];
            b[..value.len()].copy_from_slice(value);
            self.last_time.set((b, value.len(), t));
        }
        Some(t)
    }

    /// Are all fields from item `i` on ones a line may lack (referer, user
    /// agent, ignored fields, S3's `Host` header)?
    fn only_optional_after(&self, i: usize) -> bool {
        self.items[i..].iter().all(|it| match it {
            Item::Literal(_) => true,
            Item::Field { field, .. } => matches!(
                field,
                Field::Referer | Field::UserAgent | Field::Ignore | Field::HostHeader
            ),
        })
    }

    /// Does format detection read lines leniently? AWS formats do: their
    /// older lines lack trailing fields, and no other format reads them.
    pub(crate) fn detects_leniently(&self) -> bool {
        self.aws
    }

    /// Reads one line (without its line end).
    pub(crate) fn parse<'a>(&self, line: &'a [u8]) -> Result<Request<'a>, BadReason> {
        self.parse_with(line, true)
    }

    /// Reads one line; `lenient` accepts lines that lack the format's
    /// trailing referer and user agent (format detection reads strictly).
    pub(crate) fn parse_with<'a>(
        &self,
        line: &'a [u8],
        lenient: bool,
    ) -> Result<Request<'a>, BadReason> {
        if let Some(combined) = self.combined {
            if let Some(req) = self.parse_combined(line, combined) {
                return Ok(req);
            }
        }
        let mut req = Request {
            valid_request: true,
            resolution: crate::time::SECOND,
            ..Request::default()
        };
        let mut time: Option<LogTime> = None;
        let mut saw_uri = false;
        let mut bucket: Option<&[u8]> = None;
        // Which quoted fields held a backslash escape (bits of `escape_bit`).
        let mut escapes = 0u8;
        let mut pos = 0usize;
        for (i, item) in self.items.iter().enumerate() {
            match item {
                Item::Literal(lit) => {
                    if !has_prefix(&line[pos..], lit) {
                        // A line that ends where only the referer and user
                        // agent remain is a common-format line in a combined
                        // log (servers mix them): keep it, without them.
                        // (An AWS line may end inside the literal: after the
                        // closing quote of its last field.)
                        let ends = pos == line.len() || (self.aws && lit.starts_with(&line[pos..]));
                        if lenient && ends && self.only_optional_after(i) {
                            break;
                        }
                        return Err(BadReason::Layout);
                    }
                    pos += lit.len();
                }
                Item::Field { field, quoted } => {
                    let next = match self.items.get(i + 1) {
                        Some(Item::Literal(l)) => Some(l.as_slice()),
                        _ => None,
                    };
                    let (end, escaped) = if *quoted {
                        match closing_quote(line, pos, next.unwrap_or(b"\"")) {
                            Some((end, escaped)) => (Some(end), escaped),
                            // An older AWS line that ends with this field.
                            None => (
                                (self.aws
                                    && lenient
                                    && line.len() > pos
                                    && line.ends_with(b"\"")
                                    && self.only_optional_after(i + 1))
                                .then(|| line.len() - 1),
                                false,
                            ),
                        }
                    } else {
                        let end = match next {
                            // A common-format line in a combined log: the last
                            // field before the missing optional ones runs to
                            // the end of the line.
                            Some(l) => find(&line[pos..], l).map(|p| pos + p).or_else(|| {
                                (lenient && self.only_optional_after(i + 1)).then_some(line.len())
                            }),
                            // The last field: free text runs to the end of the
                            // line; anything else ends at white space, and
                            // what follows it is ignored.
                            None if matches!(
                                field,
                                Field::UserAgent | Field::Referer | Field::Request
                            ) =>
                            {
                                Some(line.len())
                            }
                            None => Some(
                                pos + line[pos..]
                                    .iter()
                                    .position(|&b| b == b' ')
                                    .unwrap_or(line.len() - pos),
                            ),
                        };
                        (end, false)
                    };
                    let end = end.ok_or(BadReason::Layout)?;
                    let value = &line[pos..end];
                    pos = end;
                    escapes |= u8::from(escaped) << escape_bit(*field);
                    match field {
                        Field::RemoteAddr => req.client = Cow::Borrowed(value),
                        Field::ClientPort => req.client = Cow::Borrowed(without_port(value)),
                        Field::ForwardedFor => req.client = Cow::Borrowed(first_forwarded(value)),
                        Field::Bucket => bucket = Some(value),
                        Field::TimeLocal => {
                            time = Some(self.clf_cached(value).ok_or(BadReason::Time)?)
                        }
                        Field::TimeIso => time = Some(parse_iso(value).ok_or(BadReason::Time)?),
                        Field::Msec => time = Some(parse_epoch(value).ok_or(BadReason::Time)?),
                        // AWS load balancers log `- - -` for a request
                        // that was none (malformed, or a TCP listener).
                        Field::Request if (self.aws || self.envoy) && value.starts_with(b"- ") => {
                            req.valid_request = false
                        }
                        Field::Request => req.set_request_line(value),
                        Field::Method => req.method = Cow::Borrowed(value),
                        Field::Uri => {
                            req.target = Cow::Borrowed(value);
                            saw_uri = true;
                        }
                        Field::Protocol => req.protocol = Cow::Borrowed(value),
                        Field::Status => req.status = status(value)?,
                        Field::BodyBytes => req.bytes = bytes(value)?,
                        Field::Referer => req.referer = Cow::Borrowed(value),
                        Field::UserAgent => req.user_agent = Cow::Borrowed(value),
                        Field::Host | Field::VHost | Field::HostHeader => {
                            req.host = Some(Cow::Borrowed(strip_default_port(value)))
                        }
                        Field::ServerName => {
                            if req.host.is_none() {
                                req.host = Some(Cow::Borrowed(value));
                            }
                        }
                        Field::Ignore => {}
                    }
                }
            }
        }
        if escapes & TEXT_FIELDS != 0 && !self.aws && !self.envoy {
            // Apache and nginx write `"`, `\` and bytes outside printable
            // ASCII as `\"`, `\\` and `\xHH`: the values are what the
            // client sent.
            unescape_fields(&mut req, escapes);
        }
        if saw_uri {
            req.valid_request = !req.target.is_empty() && *req.target != *b"-";
        }
        if let Some(bucket) = bucket.filter(|b| !b.is_empty() && *b != b"-") {
            if req
                .host
                .as_deref()
                .is_none_or(|h| h.is_empty() || h == b"-")
            {
                req.host = Some(Cow::Owned([bucket, b".s3.amazonaws.com"].concat()));
            }
        }
        debug_assert!(self.has_time);
        let time = time.ok_or(BadReason::Time)?;
        req.time = time.nanos;
        req.resolution = time.resolution;
        Ok(req)
    }
}

/// The `combined` format, as [`Template::parse_combined`] reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Combined {
    /// Apache's `vhost_combined`: a `host:port` field first.
    vhost: bool,
}

impl Combined {
    /// Are `items` those of `combined` or `vhost_combined`?
    fn of(items: &[Item]) -> Option<Combined> {
        let (vhost, rest) = match items {
            [
                Item::Field {
                    field: Field::VHost,
                    quoted: false,
                },
                Item::Literal(space),
                rest @ ..,
            ] if space == b" " => (true, rest),
            _ => (false, items),
        };
        // `combined`'s own items, as `compile` makes them.
        static COMBINED_ITEMS: std::sync::OnceLock<Vec<Item>> = std::sync::OnceLock::new();
        let combined = COMBINED_ITEMS
            .get_or_init(|| items_of(COMBINED, field_of).expect("the combined format compiles"));
        let same = rest == combined.as_slice();
        same.then_some(Combined { vhost })
    }
}

impl Template {
    /// Reads a `combined` line as [`Template::parse_with`] reads it,
    /// field by field without walking the items; `None` for any line it
    /// would read otherwise than plainly (a backslash escape, a field or
    /// time it rejects, a line that ends early), which is then read by
    /// walking the items.
    #[inline]
    fn parse_combined<'a>(&self, line: &'a [u8], combined: Combined) -> Option<Request<'a>> {
        let mut pos = 0;
        // An unquoted field ends where the next literal starts.
        let upto = |pos: usize, next: &[u8]| find(&line[pos..], next).map(|p| pos + p);
        // A quoted field ends at its closing quote; one with a backslash
        // escape is left to the walk, which decodes it.
        let quoted = |pos: usize, after: &[u8]| {
            closing_quote(line, pos, after).and_then(|(end, escaped)| (!escaped).then_some(end))
        };
        let mut host = None;
        if combined.vhost {
            let end = upto(pos, b" ")?;
            host = Some(Cow::Borrowed(strip_default_port(&line[pos..end])));
            pos = end + 1;
        }
        let end = upto(pos, b" ")?;
        let client = &line[pos..end];
        pos = upto(end + 1, b" ")? + 1;
        let end = upto(pos, b" [")?;
        pos = end + 2;
        let end = upto(pos, b"] \"")?;
        let time = self.clf_cached(&line[pos..end])?;
        pos = end + 3;
        let end = quoted(pos, b"\" ")?;
        let request = split_request_line(&line[pos..end]);
        pos = end + 2;
        let end = upto(pos, b" ")?;
        let status = status(&line[pos..end]).ok()?;
        pos = end + 1;
        let end = upto(pos, b" \"")?;
        let bytes = bytes(&line[pos..end]).ok()?;
        pos = end + 2;
        let end = quoted(pos, b"\" \"")?;
        let referer = &line[pos..end];
        pos = end + 3;
        let end = quoted(pos, b"\"")?;
        let user_agent = &line[pos..end];
        // Built in one piece, in place (`Request::set_request_line`'s
        // reading of the request line).
        let (method, target, protocol) = request.unwrap_or_default();
        Some(Request {
            client: Cow::Borrowed(client),
            time: time.nanos,
            resolution: time.resolution,
            method: Cow::Borrowed(method),
            target: Cow::Borrowed(target),
            protocol: Cow::Borrowed(protocol),
            valid_request: request.is_some(),
            status,
            bytes,
            referer: Cow::Borrowed(referer),
            user_agent: Cow::Borrowed(user_agent),
            host,
        })
    }
}

/// The bit of `field` in the escape mask of [`Template::parse_with`].
#[inline]
fn escape_bit(field: Field) -> u8 {
    match field {
        Field::Request => 0,
        Field::Method => 1,
        Field::Uri => 2,
        Field::Protocol => 3,
        Field::Referer => 4,
        Field::UserAgent => 5,
        _ => 7,
    }
}

/// The escape mask's text fields (bit 7 is every other field).
const TEXT_FIELDS: u8 = 0x3f;

/// Decodes the backslash escapes (`\xHH`, `\"`, `\\`; any other
/// backslash is kept) of the text fields flagged in `escapes`. Rare: kept
/// out of the line loop.
#[cold]
#[inline(never)]
fn unescape_fields(req: &mut Request<'_>, escapes: u8) {
    let decode = |v: &mut Cow<'_, [u8]>| {
        if memchr::memchr(b'\\', v).is_some() {
            *v = Cow::Owned(decode_backslashes(v));
        }
    };
    if escapes & (1 << 0 | 1 << 1) != 0 {
        decode(&mut req.method);
    }
    if escapes & (1 << 0 | 1 << 2) != 0 {
        decode(&mut req.target);
    }
    if escapes & (1 << 0 | 1 << 3) != 0 {
        decode(&mut req.protocol);
    }
    if escapes & (1 << 4) != 0 {
        decode(&mut req.referer);
    }
    if escapes & (1 << 5) != 0 {
        decode(&mut req.user_agent);
    }
}

/// `\xHH` as the byte, `\"` as `"`, `\\` as `\`; other backslashes kept.
pub(crate) fn decode_backslashes(v: &[u8]) -> Vec<u8> {
    let hex = |b: u8| (b as char).to_digit(16);
    let mut out = Vec::with_capacity(v.len());
    let mut i = 0;
    while i < v.len() {
        if v[i] == b'\\' && i + 1 < v.len() {
            match v[i + 1] {
                b'"' | b'\\' => {
                    out.push(v[i + 1]);
                    i += 2;
                    continue;
                }
                b'x' | b'X' if i + 3 < v.len() => {
                    if let (Some(h), Some(l)) = (hex(v[i + 2]), hex(v[i + 3])) {
                        out.push((h * 16 + l) as u8);
                        i += 4;
                        continue;
                    }
                }
                _ => {}
            }
        }
        out.push(v[i]);
        i += 1;
    }
    out
}

/// An address without its port: `192.0.2.1:2817`, `[2001:db8::1]:2817`
/// and `2001:db8::1:2817` (an IPv6 address without brackets: AWS load
/// balancers always log a port, so the last group is taken for it) give
/// the address; `-` stays. HAProxy logs its clients the same way.
pub(crate) fn without_port(v: &[u8]) -> &[u8] {
    if let Some(rest) = v.strip_prefix(b"[") {
        return rest
            .iter()
            .position(|&b| b == b']')
            .map_or(v, |e| &rest[..e]);
    }
    match memchr::memrchr(b':', v) {
        Some(c) if c + 1 < v.len() && v[c + 1..].iter().all(u8::is_ascii_digit) => &v[..c],
        _ => v,
    }
}

/// The first address of an `X-Forwarded-For` list (`198.51.100.7,
/// 10.0.0.1`): the original client.
fn first_forwarded(v: &[u8]) -> &[u8] {
    let first = &v[..memchr::memchr(b',', v).unwrap_or(v.len())];
    first.trim_ascii()
}

/// Is `value` (at most 32 bytes) the start of `kept`? A timestamp is
/// 16 to 32 bytes: two overlapping 16-byte comparisons, inline, instead of
/// a call to `memcmp` per line.
#[inline]
fn same_short(kept: &[u8; 32], value: &[u8]) -> bool {
    let n = value.len();
    if !(16..=32).contains(&n) {
        return n <= 32 && kept[..n] == *value;
    }
    let word =
        |b: &[u8], at: usize| u128::from_ne_bytes(b[at..at + 16].try_into().expect("16 bytes"));
    word(kept, 0) == word(value, 0) && word(kept, n - 16) == word(value, n - 16)
}

/// `hay.starts_with(needle)` for the short literals of a format, compared
/// inline: a call to `memcmp` for two or three bytes costs more than the
/// comparison.
#[inline]
fn has_prefix(hay: &[u8], needle: &[u8]) -> bool {
    needle.len() <= hay.len() && needle.iter().zip(hay).all(|(a, b)| a == b)
}

/// The first `byte` in `hay`: most fields are a few bytes long (an address,
/// `-`, a status), where a plain loop beats setting up a vector search, so
/// the first 32 bytes are scanned inline, eight at a time, and the rest
/// with `memchr`.
#[inline]
fn find_byte(byte: u8, hay: &[u8]) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    let pattern = ONES * u64::from(byte);
    let head = hay.len().min(32);
    let mut at = 0;
    while at + 8 <= head {
        let word = u64::from_le_bytes(hay[at..at + 8].try_into().expect("8 bytes")) ^ pattern;
        // The bytes equal to `byte` are the zero bytes of `word`. A borrow
        // can flag a byte above a zero byte, never below the first one: the
        // lowest flag is the first match.
        let zeros = word.wrapping_sub(ONES) & !word & HIGHS;
        if zeros != 0 {
            return Some(at + (zeros.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    if let Some(i) = hay[at..head].iter().position(|&b| b == byte) {
        return Some(at + i);
    }
    memchr::memchr(byte, &hay[head..]).map(|i| i + head)
}

/// Finds `needle` in `haystack` (a search for its first byte, then a compare).
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    let (&first, rest) = needle.split_first()?;
    let mut from = 0;
    while let Some(p) = find_byte(first, &haystack[from..]) {
        let at = from + p;
        if has_prefix(&haystack[at + 1..], rest) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// The closing quote of a quoted field that starts at `pos`: a `"` not
/// escaped by a backslash, after which the rest of the format's next
/// literal (`after`, which begins with the quote) follows. An unescaped
/// quote inside the value (some servers do not escape) is skipped when
/// what follows it does not fit the format. When the field is the last of
/// the format (`after` is just the quote), the quote must end the line or
/// be followed by a space and the start of another field. `escaped` is
/// set when the value holds a backslash escape.
#[inline]
fn closing_quote(line: &[u8], pos: usize, after: &[u8]) -> Option<(usize, bool)> {
    let mut i = pos;
    let mut escaped = false;
    while let Some(p) = memchr::memchr2(b'"', b'\\', &line[i..]) {
        let at = i + p;
        if line[at] == b'\\' {
            escaped = true;
            i = at + 2;
            if i > line.len() {
                return None;
            }
            continue;
        }
        let rest = &line[at..];
        let fits = if after.len() == 1 {
            // The last field of the format: the line ends, or an extra
            // field (quoted, a number, or "-") follows after a space.
            rest.len() == 1
                || (rest[1] == b' '
                    && rest
                        .get(2)
                        .is_none_or(|&b| b == b'"' || b == b'-' || b.is_ascii_digit()))
        } else {
            has_prefix(rest, after)
        };
        if fits {
            return Some((at, escaped));
        }
        i = at + 1;
    }
    None
}

/// A status: up to three digits; `-` is 0, unknown.
pub(crate) fn status(v: &[u8]) -> Result<u16, BadReason> {
    if v == b"-" {
        return Ok(0);
    }
    if v.is_empty() || v.len() > 3 || !v.iter().all(u8::is_ascii_digit) {
        return Err(BadReason::Status);
    }
    Ok(v.iter().fold(0u16, |acc, b| acc * 10 + u16::from(b - b'0')))
}

/// A byte count; `-` or nothing is none.
pub(crate) fn bytes(v: &[u8]) -> Result<Option<u64>, BadReason> {
    if v == b"-" || v.is_empty() {
        return Ok(None);
    }
    if v.len() > 19 || !v.iter().all(u8::is_ascii_digit) {
        return Err(BadReason::Bytes);
    }
    Ok(Some(
        v.iter().fold(0u64, |acc, b| acc * 10 + u64::from(b - b'0')),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn combined() -> Template {
        Template::compile(COMBINED).unwrap()
    }

    #[test]
    fn short_comparison_agrees_with_slices() {
        let kept_text = b"05/Sep/2016:20:33:25 +0200 and more ..";
        let mut kept = [0u8; 32];
        kept.copy_from_slice(&kept_text[..32]);
        for n in 0..=32 {
            assert!(same_short(&kept, &kept_text[..n]), "length {n}");
            for at in 0..n {
                let mut other = kept_text[..n].to_vec();
                other[at] ^= 1;
                assert!(!same_short(&kept, &other), "length {n}, byte {at} changed");
            }
        }
        assert!(!same_short(&kept, &[0u8; 33]));
    }

    #[test]
    fn backslash_escapes_are_decoded_in_text_fields() {
        let t = combined();
        let line = br#"192.0.2.1 - - [05/Sep/2016:20:33:25 +0200] "GET /a\x22b?q=\"x\" HTTP/1.1" 200 5 "http://r.example/\xC3\xA9" "1\x22 \\ Opera \xe2\x80\x93 Opera/9.00 \q""#;
        let r = t.parse(line).unwrap();
        assert_eq!(r.method(), b"GET");
        assert_eq!(r.target(), br#"/a"b?q="x""#);
        assert_eq!(r.protocol(), b"HTTP/1.1");
        assert_eq!(r.referer(), "http://r.example/\u{e9}".as_bytes());
        assert_eq!(
            r.user_agent(),
            "1\" \\ Opera \u{2013} Opera/9.00 \\q".as_bytes()
        );
        // Without a backslash the fields borrow the line.
        let plain = t
            .parse(br#"192.0.2.1 - - [05/Sep/2016:20:33:25 +0200] "GET / HTTP/1.1" 200 5 "-" "curl/8""#)
            .unwrap();
        assert!(matches!(plain.user_agent, Cow::Borrowed(_)));
        assert_eq!(decode_backslashes(br"\x4"), br"\x4");
        assert_eq!(decode_backslashes(br"a\"), br"a\");
    }

    #[test]
    fn combined_line() {
        let line = br#"66.249.66.1 - - [17/Apr/2025:05:10:56 +0100] "GET /music/?a=1 HTTP/2.0" 200 10353 "https://www.google.com/" "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)""#;
        let r = combined().parse(line).unwrap();
        assert_eq!(r.client(), b"66.249.66.1");
        assert_eq!(r.method(), b"GET");
        assert_eq!(r.target(), b"/music/?a=1");
        assert_eq!(r.protocol(), b"HTTP/2.0");
        assert_eq!(r.status(), 200);
        assert_eq!(r.bytes(), Some(10353));
        assert_eq!(r.referer(), b"https://www.google.com/");
        assert!(
            r.user_agent()
                .starts_with(b"Mozilla/5.0 (compatible; Googlebot")
        );
        assert_eq!(
            jiff::Timestamp::from_nanosecond(r.time().into())
                .unwrap()
                .to_string(),
            "2025-04-17T04:10:56Z"
        );
        assert_eq!(r.resolution(), crate::time::SECOND);
    }

    #[test]
    fn hard_cases() {
        let t = combined();
        // Escaped quotes and backslashes inside quoted fields, decoded.
        let r = t.parse(br#"::1 - - [01/Jan/2024:00:00:00 +0000] "GET /q?x=\"a\" HTTP/1.1" 200 5 "-" "Bot \"quoted\" \\ ok""#).unwrap();
        assert_eq!(r.target(), br#"/q?x="a""#);
        assert_eq!(r.user_agent(), br#"Bot "quoted" \ ok"#);
        assert_eq!(r.client_ip(), Some("::1".parse().unwrap()));
        assert_eq!(r.referer(), b"");
        // An unescaped quote inside the user agent.
        let r = t.parse(br#"1.2.3.4 - - [01/Jan/2024:00:00:00 +0000] "GET / HTTP/1.1" 200 5 "-" "Evil "quote" UA""#).unwrap();
        assert_eq!(r.user_agent(), br#"Evil "quote" UA"#);
        // No protocol; garbage; "-".
        let r = t
            .parse(br#"1.2.3.4 - - [01/Jan/2024:00:00:00 +0000] "GET /" 200 5 "-" "-""#)
            .unwrap();
        assert_eq!(
            (r.target(), r.protocol(), r.is_valid_request()),
            (&b"/"[..], &b""[..], true)
        );
        let r = t
            .parse(br#"1.2.3.4 - - [01/Jan/2024:00:00:00 +0000] "\x16\x03\x01\x00" 400 0 "-" "-""#)
            .unwrap();
        assert!(!r.is_valid_request());
        assert_eq!(r.target(), b"");
        let r = t
            .parse(br#"1.2.3.4 - - [01/Jan/2024:00:00:00 +0000] "-" 408 - "-" "-""#)
            .unwrap();
        assert_eq!(
            (r.is_valid_request(), r.status(), r.bytes()),
            (false, 408, None)
        );
        // Absolute-form target gives the host.
        let r = t.parse(br#"1.2.3.4 - - [01/Jan/2024:00:00:00 +0000] "GET http://Site.example:80/p HTTP/1.1" 200 1 "-" "-""#).unwrap();
        assert_eq!(r.host(), Some(&b"Site.example"[..]));
        // Extra fields after the format are ignored.
        let r = t.parse(br#"1.2.3.4 - bob [01/Jan/2024:00:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" "UA" "10.0.0.1" 0.003"#).unwrap();
        assert_eq!(r.user_agent(), b"UA");
    }

    #[test]
    fn bad_lines_say_why() {
        let t = combined();
        assert_eq!(t.parse(b"garbage"), Err(BadReason::Layout));
        assert_eq!(
            t.parse(br#"1.2.3.4 - - [99/Jan/2024:00:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" "-""#),
            Err(BadReason::Time)
        );
        assert_eq!(
            t.parse(br#"1.2.3.4 - - [01/Jan/2024:00:00:00 +0000] "GET / HTTP/1.1" 2x0 1 "-" "-""#),
            Err(BadReason::Status)
        );
        assert_eq!(
            t.parse(br#"1.2.3.4 - - [01/Jan/2024:00:00:00 +0000] "GET / HTTP/1.1" 200 1x "-" "-""#),
            Err(BadReason::Bytes)
        );
        assert_eq!(t.parse(br#"1.2.3.4 - - [01/Jan/2024:00:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" "unterminated"#), Err(BadReason::Layout));
        // A common-format line in a combined log is kept, without referer and user agent.
        let r = t
            .parse(br#"1.2.3.4 - - [01/Jan/2024:00:00:00 +0000] "PUT /alerts HTTP/1.1" 500 3335"#)
            .unwrap();
        assert_eq!(
            (r.status(), r.user_agent(), r.referer()),
            (500, &b""[..], &b""[..])
        );
        assert_eq!(
            t.parse(br#"1.2.3.4 - - [01/Jan/2024:00:00:00 +0000] "PUT /alerts HTTP/1.1" 500"#),
            Err(BadReason::Layout)
        );
    }

    #[test]
    fn common_and_vhost() {
        let t = Template::compile(COMMON).unwrap();
        let r = t.parse(br#"127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326"#).unwrap();
        assert_eq!(
            (r.target(), r.status(), r.bytes()),
            (&b"/apache_pb.gif"[..], 200, Some(2326))
        );
        assert_eq!(r.user_agent(), b"");
        let t = Template::compile(VHOST_COMBINED).unwrap();
        let r = t.parse(br#"www.example.com:443 1.2.3.4 - - [01/Jan/2024:00:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" "UA""#).unwrap();
        assert_eq!(r.host(), Some(&b"www.example.com"[..]));
        let r = t.parse(br#"www.example.com:8080 1.2.3.4 - - [01/Jan/2024:00:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" "UA""#).unwrap();
        assert_eq!(r.host(), Some(&b"www.example.com:8080"[..]));
    }

    #[test]
    fn gandi_lines() {
        let t = Template::compile(GANDI).unwrap();
        let r = t.parse(br#"www.example.com 66.249.66.1 - alice [10/Feb/2024:16:42:07 -0500] (0 s) "GET /a?b=1 HTTP/1.1" 301 368 "-" "Mozilla/5.0 (compatible; Googlebot/2.1)""#).unwrap();
        assert_eq!(r.host(), Some(&b"www.example.com"[..]));
        assert_eq!(
            (r.client(), r.method(), r.target(), r.status(), r.bytes()),
            (
                &b"66.249.66.1"[..],
                &b"GET"[..],
                &b"/a?b=1"[..],
                301,
                Some(368)
            )
        );
        assert_eq!(r.user_agent(), b"Mozilla/5.0 (compatible; Googlebot/2.1)");
        assert_eq!(
            jiff::Timestamp::from_nanosecond(r.time().into())
                .unwrap()
                .to_string(),
            "2024-02-10T21:42:07Z"
        );
        // A slow request; a port the client sent; no referer and user agent.
        let r = t.parse(br#"shop.example:443 2001:db8::1 - - [10/Feb/2024:16:42:07 -0500] (12 s) "POST /cart HTTP/1.1" 302 -"#).unwrap();
        assert_eq!(
            (r.host(), r.bytes(), r.user_agent()),
            (Some(&b"shop.example"[..]), None, &b""[..])
        );
        // vhost_combined and combined lines are not Gandi lines, nor the reverse.
        let vhost = br#"www.example.com:80 1.2.3.4 - - [01/Jan/2024:00:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" "UA""#;
        assert_eq!(t.parse(vhost), Err(BadReason::Layout));
        let gandi = br#"www.example.com 1.2.3.4 - - [01/Jan/2024:00:00:00 +0000] (0 s) "GET / HTTP/1.1" 200 1 "-" "UA""#;
        for other in [VHOST_COMBINED, COMBINED, COMMON] {
            assert_eq!(
                Template::compile(other).unwrap().parse(gandi),
                Err(BadReason::Layout)
            );
        }
    }

    #[test]
    fn nginx_log_format_as_written_in_nginx_conf() {
        let conf = r#"log_format main '$remote_addr - $remote_user [$time_local] "$request" '
                        '$status $body_bytes_sent "$http_referer" '
                        '"$http_user_agent" "$http_x_forwarded_for"';"#;
        let t = Template::compile(conf).unwrap();
        let r = t.parse(br#"1.2.3.4 - - [01/Jan/2024:00:00:00 +0000] "GET /x HTTP/1.1" 200 1 "-" "UA" "5.6.7.8""#).unwrap();
        assert_eq!((r.target(), r.user_agent()), (&b"/x"[..], &b"UA"[..]));

        let t = Template::compile("$host $remote_addr [$time_iso8601] $request_method ${request_uri} $status $bytes_sent $request_time \"$http_user_agent\"").unwrap();
        let r = t.parse(br#"shop.example 2001:db8::1 [2024-01-01T00:00:00+01:00] POST /cart?x=1 302 512 0.004 "curl/8.0""#).unwrap();
        assert_eq!(r.host(), Some(&b"shop.example"[..]));
        assert_eq!(
            (r.method(), r.target(), r.status(), r.bytes()),
            (&b"POST"[..], &b"/cart?x=1"[..], 302, Some(512))
        );
        assert_eq!(
            jiff::Timestamp::from_nanosecond(r.time().into())
                .unwrap()
                .to_string(),
            "2023-12-31T23:00:00Z"
        );

        let t = Template::compile("$msec|$remote_addr|$request|$status|$http_user_agent").unwrap();
        let r = t
            .parse(b"1700000000.123|1.2.3.4|GET / HTTP/1.1|200|Mozilla/5.0 (X)")
            .unwrap();
        assert_eq!(r.resolution(), 1_000_000);
        assert_eq!(r.user_agent(), b"Mozilla/5.0 (X)");
    }

    #[test]
    fn alb_lines() {
        let t = Template::compile_aws(ALB).unwrap();
        let line = br#"https 2024-05-06T07:08:09.123456Z app/my-lb/0123456789abcdef 66.249.66.1:41234 10.0.0.1:80 0.000 0.001 0.000 200 200 250 5120 "GET https://www.example.com:443/a?q=1 HTTP/1.1" "Mozilla/5.0 (compatible; Googlebot/2.1)" ECDHE-RSA-AES128-GCM-SHA256 TLSv1.2 arn:aws:elasticloadbalancing:us-east-2:123456789012:targetgroup/t/0123 "Root=1-0-0" "www.example.com" "-" 1 2024-05-06T07:08:09.000000Z "forward" "-" "-" "10.0.0.1:80" "200" "-" "-" TID_1"#;
        let r = t.parse(line).unwrap();
        assert_eq!(r.client(), b"66.249.66.1");
        assert_eq!(
            (r.method(), r.target(), r.protocol()),
            (
                &b"GET"[..],
                &b"https://www.example.com:443/a?q=1"[..],
                &b"HTTP/1.1"[..]
            )
        );
        assert_eq!((r.status(), r.bytes()), (200, Some(5120)));
        assert_eq!(r.host(), Some(&b"www.example.com"[..]));
        assert_eq!(r.user_agent(), b"Mozilla/5.0 (compatible; Googlebot/2.1)");
        assert_eq!(r.referer(), b"");
        assert_eq!(r.resolution(), 1_000);
        assert_eq!(
            jiff::Timestamp::from_nanosecond(r.time().into())
                .unwrap()
                .to_string(),
            "2024-05-06T07:08:09.123456Z"
        );
        // A malformed request: `- - -`, no target; the line is read.
        let r = t.parse(br#"http 2024-05-06T07:08:09.000000Z app/my-lb/0 [2001:db8::1]:5000 - -1 -1 -1 400 - 0 0 "- - - " "-" - - -"#).unwrap();
        assert!(!r.is_valid_request());
        assert_eq!(
            (r.client(), r.status(), r.host()),
            (&b"2001:db8::1"[..], 400, None)
        );
        // Bad lines say why.
        assert_eq!(t.parse(b"http garbage"), Err(BadReason::Layout));
        assert_eq!(t.parse(b"http not-a-time x"), Err(BadReason::Time));
        assert_eq!(t.parse(br#"http 2024-05-06T07:08:09.000000Z app/my-lb/0 192.0.2.1:1 - 0 0 0 2000 - 0 0 "GET https://a.example/ HTTP/1.1" "-" - - -"#), Err(BadReason::Status));
        assert_eq!(
            t.parse(br#"http 2024-05-06T07:08:09.000000Z app/my-lb/0 192.0.2.1:1"#),
            Err(BadReason::Layout)
        );
    }

    #[test]
    fn elb_and_s3_lines() {
        let t = Template::compile_aws(ELB).unwrap();
        let r = t.parse(br#"2015-05-13T23:39:43.945958Z my-loadbalancer 2001:db8::7:2817 10.0.0.1:80 0.000073 0.001048 0.000057 200 200 0 29 "GET http://www.example.com:80/ HTTP/1.1" "curl/7.38.0" - -"#).unwrap();
        assert_eq!(
            (r.client(), r.status(), r.bytes()),
            (&b"2001:db8::7"[..], 200, Some(29))
        );
        assert_eq!(r.host(), Some(&b"www.example.com"[..]));
        let r = t.parse(br#"2015-05-13T23:39:43.945958Z my-loadbalancer 192.168.131.39:2817 10.0.0.1:80 0.001069 0.000028 0.000041 - - 82 305 "- - - " "-" - -"#).unwrap();
        assert_eq!((r.is_valid_request(), r.status()), (false, 0));

        let t = Template::compile_aws(S3).unwrap();
        let head = br#"79a59df900b949e55d96a1e698fbacedfd6e09d98eacf8f8d5218e7cd47ef2be example-bucket [06/Feb/2019:00:00:38 +0000] 192.0.2.3 - 3E57427F3EXAMPLE REST.GET.OBJECT a/b.html "GET /a/b.html HTTP/1.1" 200 - 113 113 7 - "https://ref.example/" "Mozilla/5.0 (X11; Linux x86_64)""#;
        let full = [&head[..], b" - aG9zdA== SigV4 ECDHE-RSA-AES128-GCM-SHA256 AuthHeader example-bucket.s3.us-west-1.amazonaws.com TLSv1.2 - Yes"].concat();
        let r = t.parse(&full).unwrap();
        assert_eq!(
            (r.client(), r.target(), r.status()),
            (&b"192.0.2.3"[..], &b"/a/b.html"[..], 200)
        );
        assert_eq!(
            (r.referer(), r.user_agent()),
            (
                &b"https://ref.example/"[..],
                &b"Mozilla/5.0 (X11; Linux x86_64)"[..]
            )
        );
        assert_eq!(
            r.host(),
            Some(&b"example-bucket.s3.us-west-1.amazonaws.com"[..])
        );
        // An older line, without the Host header field: the bucket's host.
        for lenient in [true, false] {
            let r = t
                .parse_with(head, lenient)
                .map(|r| r.host().map(<[u8]>::to_vec));
            if lenient {
                assert_eq!(r, Ok(Some(b"example-bucket.s3.amazonaws.com".to_vec())));
            } else {
                assert_eq!(r, Err(BadReason::Layout));
            }
        }
        assert_eq!(
            t.parse(b"owner bucket [06/Feb/2019:00:00:38 +0000] 192.0.2.3"),
            Err(BadReason::Layout)
        );
    }

    #[test]
    fn ports_dropped_from_aws_clients() {
        assert_eq!(without_port(b"192.0.2.1:2817"), b"192.0.2.1");
        assert_eq!(without_port(b"[2001:db8::1]:2817"), b"2001:db8::1");
        assert_eq!(without_port(b"2001:db8::1:2817"), b"2001:db8::1");
        assert_eq!(without_port(b"192.0.2.1"), b"192.0.2.1");
        assert_eq!(without_port(b"-"), b"-");
    }

    #[test]
    fn aws_field_names_are_ignored_in_nginx_formats() {
        let t = Template::compile("$s3_host_header $aws_client_port [$time_local] \"$request\"")
            .unwrap();
        let r = t
            .parse(br#"h.example 192.0.2.1:80 [01/Jan/2024:00:00:00 +0000] "GET / HTTP/1.1""#)
            .unwrap();
        assert_eq!((r.host(), r.client()), (None, &b""[..]));
        // `- - -` stays what it always was in other formats.
        let r = Template::compile(COMBINED)
            .unwrap()
            .parse(br#"1.2.3.4 - - [01/Jan/2024:00:00:00 +0000] "- - -" 400 0 "-" "-""#)
            .unwrap();
        assert!(r.is_valid_request());
    }

    #[test]
    fn format_errors() {
        assert!(
            Template::compile("$remote_addr $status")
                .unwrap_err()
                .to_string()
                .contains("no time")
        );
        assert!(
            Template::compile("$time_local $status")
                .unwrap_err()
                .to_string()
                .contains("no request")
        );
        assert!(
            Template::compile("$time_local$request")
                .unwrap_err()
                .to_string()
                .contains("follows another variable")
        );
        assert!(
            Template::compile("${time_local")
                .unwrap_err()
                .to_string()
                .contains("unclosed")
        );
    }

    #[test]
    fn envoy_default_format() {
        let t = Template::compile_envoy(ENVOY).unwrap();
        let line = br#"[2024-05-01T13:55:36.310Z] "GET /api/v1/items?page=2 HTTP/2" 200 - 0 1834 12 10 "66.249.66.1,10.0.0.2" "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)" "cc21d9b0-cf5c-432b-8c7e-98aeb7988cd2" "www.example.com" "10.0.2.1:8080""#;
        let r = t.parse(line).unwrap();
        assert_eq!(
            (r.client(), r.method(), r.target(), r.protocol()),
            (
                &b"66.249.66.1"[..],
                &b"GET"[..],
                &b"/api/v1/items?page=2"[..],
                &b"HTTP/2"[..]
            )
        );
        assert_eq!((r.status(), r.bytes()), (200, Some(1834)));
        assert_eq!(r.host(), Some(&b"www.example.com"[..]));
        assert_eq!(r.resolution(), 1_000_000);
        assert_eq!(
            r.user_agent(),
            b"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
        );
        // No X-Forwarded-For, no authority; a request Envoy could not parse.
        let r = t.parse(br#"[2024-05-01T13:55:37.000Z] "- - HTTP/1.1" 400 DPE 0 11 0 - "-" "-" "-" "-" "-""#).unwrap();
        assert_eq!(
            (r.is_valid_request(), r.status(), r.client(), r.host()),
            (false, 400, &b"-"[..], None)
        );
        assert_eq!(
            t.parse(br#"[2024-05-01T13:55:36.310Z] "GET / HTTP/1.1" 2000 - 0 1 1 - "-" "-" "-" "-" "-""#),
            Err(BadReason::Status)
        );
        assert_eq!(
            t.parse(b"[2024-05-01T13:55:36.310Z] garbage"),
            Err(BadReason::Layout)
        );
        // In an nginx format, the Envoy-only name is ignored.
        let nginx = Template::compile("$envoy_forwarded_for [$time_local] \"$request\"").unwrap();
        let r = nginx
            .parse(br#"192.0.2.1 [01/Jan/2024:00:00:00 +0000] "GET / HTTP/1.1""#)
            .unwrap();
        assert_eq!(r.client(), b"");
    }

    #[test]
    fn lighttpd_default_format() {
        let t = Template::compile(LIGHTTPD).unwrap();
        let r = t.parse(br#"192.0.2.5 www.example.com - [01/May/2024:13:55:36 +0000] "GET /a?b=1 HTTP/1.1" 200 512 "https://duckduckgo.com/" "Mozilla/5.0 (compatible; DuckDuckBot-Https/1.1)""#).unwrap();
        assert_eq!(
            (r.client(), r.target(), r.status(), r.bytes()),
            (&b"192.0.2.5"[..], &b"/a?b=1"[..], 200, Some(512))
        );
        assert_eq!(r.host(), Some(&b"www.example.com"[..]));
        assert_eq!(r.referer(), b"https://duckduckgo.com/");
    }

    #[test]
    fn combined_formats_are_read_without_walking_the_items() {
        for format in [COMBINED, VHOST_COMBINED] {
            assert!(
                Template::compile(format).unwrap().combined.is_some(),
                "{format}"
            );
        }
        // The same fields written otherwise are read by walking the items.
        for format in [
            COMMON,
            GANDI,
            LIGHTTPD,
            r#"$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent""#,
            r#"$remote_addr $ignore $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" "$http_x_forwarded_for""#,
        ] {
            assert!(
                Template::compile(format).unwrap().combined.is_none(),
                "{format}"
            );
        }
        assert!(Template::compile_aws(ALB).unwrap().combined.is_none());
    }

    /// `Template::parse_combined` reads every line as walking the items
    /// does, or leaves it to the walk: lines built of the format's pieces
    /// and of the bytes that make them hard (quotes, backslashes, spaces,
    /// brackets, a missing tail).
    mod combined_fast_path {
        use super::*;
        use proptest::prelude::*;

        fn walked(format: &str) -> Template {
            let mut t = Template::compile(format).unwrap();
            t.combined = None;
            t
        }

        fn text() -> impl Strategy<Value = String> {
            proptest::string::string_regex(r#"[a-z0-9 "\\\[\]/:+-]{0,12}"#).unwrap()
        }

        fn time() -> impl Strategy<Value = String> {
            prop_oneof![
                Just("05/Sep/2016:20:33:25 +0200".to_string()),
                Just("17/Apr/2025:05:10:56 +0000".to_string()),
                Just("31/Feb/2025:05:10:56 +0000".to_string()),
                text(),
            ]
        }

        fn line() -> impl Strategy<Value = String> {
            (
                (text(), text(), text(), text(), time()),
                (text(), text(), text(), text(), text()),
                (0usize..3, 0usize..120),
            )
                .prop_map(|((vhost, client, ident, user, time), (request, status, size, referer, agent), (shape, cut))| {
                    let status = if status.len() % 2 == 0 { "200".to_string() } else { status };
                    let size = if size.len() % 3 == 0 { "5123".to_string() } else { size };
                    let request = if request.len() % 2 == 0 {
                        format!("GET /{request} HTTP/1.1")
                    } else {
                        request
                    };
                    let mut line = format!(
                        r#"{vhost} {client} {ident} {user} [{time}] "{request}" {status} {size} "{referer}" "{agent}""#
                    );
                    match shape {
                        // A line cut short.
                        0 => line.truncate(cut.min(line.len())),
                        // Extra fields after the user agent.
                        1 => line.push_str(r#" "x" 12"#),
                        _ => {}
                    }
                    line
                })
        }

        proptest! {
            /// The word-at-a-time scan finds the first match as a plain
            /// search does, wherever it is (in the words, the tail before
            /// `memchr`, or after), and whatever the other bytes are.
            #[test]
            fn find_byte_finds_the_first_match(
                mut hay in proptest::collection::vec(any::<u8>(), 0..80),
                byte in any::<u8>(),
                planted in proptest::collection::vec(0usize..80, 0..3),
            ) {
                for at in planted {
                    if at < hay.len() {
                        hay[at] = byte;
                    }
                }
                prop_assert_eq!(find_byte(byte, &hay), hay.iter().position(|&b| b == byte));
            }

            #[test]
            fn reads_as_the_walk_does(line in line(), lenient in any::<bool>()) {
                let bytes = line.as_bytes();
                for (format, skip) in [(VHOST_COMBINED, 0), (COMBINED, line.find(' ').map_or(0, |i| i + 1))] {
                    let fast = Template::compile(format).unwrap();
                    prop_assert!(fast.combined.is_some());
                    let walk = walked(format);
                    let bytes = &bytes[skip.min(bytes.len())..];
                    prop_assert_eq!(fast.parse_with(bytes, lenient), walk.parse_with(bytes, lenient));
                }
            }
        }

        #[test]
        fn plain_lines_take_the_fast_path() {
            let t = Template::compile(VHOST_COMBINED).unwrap();
            let line = br#"www.example.com:443 192.0.2.1 - - [05/Sep/2016:20:33:25 +0200] "GET /a HTTP/1.1" 200 5 "-" "curl/8""#;
            let r = t
                .parse_combined(line, t.combined.unwrap())
                .expect("read plainly");
            assert_eq!(Ok(r), walked(VHOST_COMBINED).parse(line));
            // A backslash escape is left to the walk, which decodes it.
            let escaped = br#"www.example.com 192.0.2.1 - - [05/Sep/2016:20:33:25 +0200] "GET /a HTTP/1.1" 200 5 "-" "a\"b""#;
            assert!(t.parse_combined(escaped, t.combined.unwrap()).is_none());
            assert_eq!(t.parse(escaped).unwrap().user_agent(), br#"a"b"#);
        }
    }
}

//! Reading access logs: every common format, gzip, zstd and bzip2, in
//! parallel, nothing lost (SPEC section 3).
//!
//! - [`Format`] names a line format; [`Format::Auto`] detects it per file
//!   from its first lines ([`detect`]).
//! - [`Request`] is one parsed line, borrowing from the log's bytes.
//! - [`read_input`] reads one file (in 32 MiB windows split into
//!   newline-aligned chunks parsed in parallel, two windows in flight so
//!   that no worker waits at a window's end, or a compressed/stdin stream
//!   decompressed on one thread while the blocks are parsed in parallel)
//!   into [`Sink`]s, and accounts for every line in a [`FileReport`].
//!
//! ```
//! use crawlaudit::logs::{Format, parse_line};
//!
//! let line = br#"66.249.66.1 - - [17/Apr/2025:05:10:56 +0100] "GET /music/ HTTP/2.0" 200 10353 "-" "Googlebot/2.1""#;
//! let format = Format::Combined.compile().unwrap();
//! let request = parse_line(&format, line).unwrap();
//! assert_eq!(request.target(), b"/music/");
//! assert_eq!(request.status(), 200);
//! ```

mod csv_log;
mod fields;
mod haproxy;
mod inputs;
mod json;
mod reader;
mod record;
mod regex_format;
mod template;
pub mod time;
mod w3c;

use std::fmt;
use std::str::FromStr;

pub use csv_log::CsvFormat;
pub use inputs::{Input, expand_inputs};
pub use json::{JsonFields, PRESETS as JSON_LAYOUTS};
pub use reader::{BadSample, FileReport, MAX_LINE, ReadOptions, Sink, read_input};
pub use record::Request;
pub use template::FormatError;

use haproxy::HaproxyFields;
use regex_format::RegexFields;
use template::Template;
use w3c::W3cFields;

/// Why a line could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum BadReason {
    /// The line does not have the format's layout (a literal or a field is missing).
    Layout,
    /// The time is missing or not a valid time.
    Time,
    /// The status is not a number.
    Status,
    /// The byte count is not a number.
    Bytes,
    /// Not a JSON object.
    Json,
    /// A W3C data line before any `#Fields:` directive.
    NoFields,
    /// Longer than [`MAX_LINE`]: not parsed.
    TooLong,
}

impl BadReason {
    /// A short name, as `summary.json` counts them.
    pub fn as_str(self) -> &'static str {
        match self {
            BadReason::Layout => "layout",
            BadReason::Time => "time",
            BadReason::Status => "status",
            BadReason::Bytes => "bytes",
            BadReason::Json => "json",
            BadReason::NoFields => "no-fields",
            BadReason::TooLong => "too-long",
        }
    }

    /// What it means, for people.
    pub fn describe(self) -> &'static str {
        match self {
            BadReason::Layout => "does not match the log format",
            BadReason::Time => "missing or invalid time",
            BadReason::Status => "invalid status",
            BadReason::Bytes => "invalid byte count",
            BadReason::Json => "not a JSON object",
            BadReason::NoFields => "W3C data line before any #Fields directive",
            BadReason::TooLong => "line longer than 1 MiB (not parsed)",
        }
    }
}

impl fmt::Display for BadReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A log line format (`--format`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Format {
    /// Detect per file from its first lines.
    Auto,
    /// Apache/nginx combined.
    Combined,
    /// The common log format.
    Common,
    /// Apache's vhost_combined (`%v:%p` first).
    VhostCombined,
    /// Apache's common log format with the virtual host first (`%v %h %l
    /// %u %t "%r" %>s %b`; `common_vhost` to Matomo's log importer).
    VhostCommon,
    /// Gandi's web hosting log: the host, then combined with the time
    /// taken after the date (`(0 s)`).
    Gandi,
    /// An nginx `log_format` string, as written in nginx.conf.
    Nginx(String),
    /// JSON lines with a field mapping.
    Json(Box<JsonFields>),
    /// W3C extended (`#Fields:`), as IIS and CloudFront write it.
    W3c,
    /// AWS Application Load Balancer access logs.
    Alb,
    /// AWS classic Elastic Load Balancer access logs.
    Elb,
    /// AWS S3 server access logs.
    S3,
    /// HAProxy's HTTP log (`option httplog`), and the request headers its
    /// frontend captures, in the order of its `capture request header`
    /// lines (empty: the captured headers are not read).
    Haproxy(Vec<String>),
    /// A regular expression whose named groups are the fields
    /// (`--format regex:PATTERN`).
    Regex(String),
    /// CSV or TSV with a header row, read a row at a time by
    /// [`read_input`] (not line by line: [`Format::compile`] refuses it).
    Csv(Box<CsvFormat>),
    /// Envoy's default access log format.
    Envoy,
    /// lighttpd's default access log format (combined, with the host
    /// second).
    Lighttpd,
    /// Parquet files, read by columns through polars with a JSON field
    /// mapping (the same names and candidates as JSON lines).
    Parquet(Box<JsonFields>),
}

impl FromStr for Format {
    type Err = String;

    /// `auto`, `combined`, `common`, `vhost_combined`, `vhost_common`
    /// (also `common_vhost`), `gandi`, `json`,
    /// `json:NAME` (`cloudflare`, `gcp`, `azure`, `fastly`, `akamai`,
    /// `traefik`), `w3c`, `alb`, `elb`, `s3`, `envoy`, `lighttpd`,
    /// `haproxy`, `haproxy:Host,User-Agent,...`, `parquet`,
    /// `nginx:<log_format>`, `regex:<pattern>`, `csv`, `tsv`.
    fn from_str(s: &str) -> Result<Format, String> {
        Ok(match s.trim() {
            "auto" => Format::Auto,
            "combined" => Format::Combined,
            "common" | "clf" => Format::Common,
            "vhost_combined" => Format::VhostCombined,
            "vhost_common" | "common_vhost" => Format::VhostCommon,
            "gandi" => Format::Gandi,
            "json" => Format::Json(Box::new(JsonFields::auto())),
            "cloudflare" => Format::Json(Box::new(JsonFields::cloudflare())),
            "w3c" | "iis" | "cloudfront" => Format::W3c,
            "alb" => Format::Alb,
            "elb" => Format::Elb,
            "s3" => Format::S3,
            "haproxy" => Format::Haproxy(Vec::new()),
            "csv" => Format::Csv(Box::new(CsvFormat::csv())),
            "tsv" => Format::Csv(Box::new(CsvFormat::tsv())),
            "envoy" => Format::Envoy,
            "lighttpd" => Format::Lighttpd,
            "parquet" => Format::Parquet(Box::new(JsonFields::auto())),
            other => {
                if let Some(fmt) = other.strip_prefix("nginx:") {
                    Template::compile(fmt).map_err(|e| e.to_string())?;
                    Format::Nginx(fmt.to_string())
                } else if let Some(pattern) = other.strip_prefix("regex:") {
                    RegexFields::compile(pattern)?;
                    Format::Regex(pattern.to_string())
                } else if let Some(names) = other.strip_prefix("haproxy:") {
                    let names: Vec<String> =
                        names.split(',').map(|n| n.trim().to_string()).collect();
                    haproxy::check_capture_names(&names)?;
                    Format::Haproxy(names)
                } else if let Some(name) = other.strip_prefix("json:") {
                    let fields = JsonFields::preset(name).ok_or_else(|| {
                        format!(
                            "unknown JSON layout {name:?} (json:{})",
                            JSON_LAYOUTS.join(", json:")
                        )
                    })?;
                    Format::Json(Box::new(fields))
                } else {
                    return Err(format!(
                        "unknown log format {other:?} (auto, combined, common, vhost_combined, vhost_common, gandi, json, json:{}, w3c, alb, elb, s3, envoy, lighttpd, haproxy, parquet, csv, tsv, nginx:'<log_format>', regex:'<pattern>')",
                        JSON_LAYOUTS.join(", json:")
                    ));
                }
            }
        })
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Format::Auto => f.write_str("auto"),
            Format::Combined => f.write_str("combined"),
            Format::Common => f.write_str("common"),
            Format::VhostCombined => f.write_str("vhost_combined"),
            Format::VhostCommon => f.write_str("vhost_common"),
            Format::Gandi => f.write_str("gandi"),
            Format::Nginx(s) => write!(f, "nginx:{s}"),
            Format::Json(fields) => match fields.name() {
                Some(name) => write!(f, "json:{name}"),
                None => f.write_str("json"),
            },
            Format::W3c => f.write_str("w3c"),
            Format::Alb => f.write_str("alb"),
            Format::Elb => f.write_str("elb"),
            Format::S3 => f.write_str("s3"),
            Format::Haproxy(names) if names.is_empty() => f.write_str("haproxy"),
            Format::Haproxy(names) => write!(f, "haproxy:{}", names.join(",")),
            Format::Regex(pattern) => write!(f, "regex:{pattern}"),
            Format::Csv(csv) => write!(f, "{csv}"),
            Format::Envoy => f.write_str("envoy"),
            Format::Lighttpd => f.write_str("lighttpd"),
            Format::Parquet(_) => f.write_str("parquet"),
        }
    }
}

/// A format ready to read lines. It keeps small per-reader state (the
/// last timestamp read, W3C columns), so it is not shared between threads:
/// clone it for each one (cloning is cheap).
#[derive(Clone, Debug)]
pub struct Compiled {
    kind: Kind,
}

#[derive(Clone, Debug)]
enum Kind {
    Template(Template),
    Json(JsonFields),
    W3c(Option<W3cFields>),
    Haproxy(HaproxyFields),
    Regex(RegexFields),
}

impl Format {
    /// Applies `--json-fields` overrides: to a JSON or Parquet format's
    /// mapping, or, for `auto`, to JSON with the automatic mapping.
    ///
    /// # Errors
    /// A bad override, or a format that is neither JSON nor Parquet.
    pub fn with_json_fields(self, spec: &str) -> Result<Format, String> {
        Ok(match self {
            Format::Json(fields) => Format::Json(Box::new(fields.with_overrides(spec)?)),
            Format::Parquet(fields) => Format::Parquet(Box::new(fields.with_overrides(spec)?)),
            Format::Auto => Format::Json(Box::new(JsonFields::auto().with_overrides(spec)?)),
            other => {
                return Err(format!(
                    "--json-fields needs --format json or parquet (not {other})"
                ));
            }
        })
    }

    /// Applies `--csv-fields` overrides to a CSV or TSV format.
    ///
    /// # Errors
    /// A bad override, or a format that is not CSV or TSV.
    pub fn with_csv_fields(self, spec: &str) -> Result<Format, String> {
        match self {
            Format::Csv(csv) => Ok(Format::Csv(Box::new(csv.with_overrides(spec)?))),
            other => Err(format!(
                "--csv-fields needs --format csv or --format tsv (not {other})"
            )),
        }
    }

    /// Compiles the format. [`Format::Auto`] cannot be compiled: detect first.
    ///
    /// # Errors
    /// An invalid nginx format string or regex pattern, `Auto`, or CSV
    /// (which [`read_input`] reads a row at a time, not line by line).
    pub fn compile(&self) -> Result<Compiled, FormatError> {
        let kind = match self {
            Format::Auto => {
                return Err(FormatError {
                    format: "auto".into(),
                    message: "detect the format first".into(),
                });
            }
            Format::Combined => Kind::Template(Template::compile(template::COMBINED)?),
            Format::Common => Kind::Template(Template::compile(template::COMMON)?),
            Format::VhostCombined => Kind::Template(Template::compile(template::VHOST_COMBINED)?),
            Format::VhostCommon => Kind::Template(Template::compile(template::VHOST_COMMON)?),
            Format::Gandi => Kind::Template(Template::compile(template::GANDI)?),
            Format::Nginx(s) => Kind::Template(Template::compile(s)?),
            Format::Json(fields) => Kind::Json((**fields).clone()),
            Format::W3c => Kind::W3c(None),
            Format::Alb => Kind::Template(Template::compile_aws(template::ALB)?),
            Format::Elb => Kind::Template(Template::compile_aws(template::ELB)?),
            Format::S3 => Kind::Template(Template::compile_aws(template::S3)?),
            Format::Haproxy(names) => Kind::Haproxy(HaproxyFields::new(names)),
            Format::Csv(csv) => {
                return Err(FormatError {
                    format: csv.to_string(),
                    message: "a CSV log is read a row at a time by read_input, not line by line"
                        .into(),
                });
            }
            Format::Regex(pattern) => Kind::Regex(RegexFields::compile(pattern).map_err(
                |message| FormatError {
                    format: format!("regex:{pattern}"),
                    message,
                },
            )?),
            Format::Envoy => Kind::Template(Template::compile_envoy(template::ENVOY)?),
            Format::Lighttpd => Kind::Template(Template::compile(template::LIGHTTPD)?),
            Format::Parquet(_) => {
                return Err(FormatError {
                    format: "parquet".into(),
                    message: "Parquet is read by columns, not by lines".into(),
                });
            }
        };
        Ok(Compiled { kind })
    }
}

impl Compiled {
    /// Is this a W3C format (whose `#` lines are directives)?
    pub fn is_w3c(&self) -> bool {
        matches!(self.kind, Kind::W3c(_))
    }

    /// Takes a W3C directive line (`#Fields: ...` sets the columns of the
    /// lines that follow); other formats ignore it.
    pub fn directive(&mut self, line: &[u8]) {
        if let Kind::W3c(fields) = &mut self.kind {
            if let Some(f) = W3cFields::parse(line) {
                *fields = Some(f);
            }
        }
    }

    /// Reads a line as format detection does: no leniency (but AWS formats,
    /// whose older lines lack trailing fields, are read as they are read).
    fn parse_strict<'a>(&self, line: &'a [u8]) -> Result<Request<'a>, BadReason> {
        match &self.kind {
            Kind::Template(t) => t.parse_with(line, t.detects_leniently()),
            _ => self.parse(line),
        }
    }

    fn parse<'a>(&self, line: &'a [u8]) -> Result<Request<'a>, BadReason> {
        match &self.kind {
            Kind::Template(t) => t.parse(line),
            Kind::Json(j) => j.parse_line(line),
            Kind::W3c(Some(f)) => f.parse_line(line),
            Kind::W3c(None) => Err(BadReason::NoFields),
            Kind::Haproxy(h) => h.parse_line(line),
            Kind::Regex(r) => r.parse_line(line),
        }
    }
}

/// Parses one line (without its line end) in a compiled format.
///
/// # Errors
/// Why the line could not be read.
pub fn parse_line<'a>(format: &Compiled, line: &'a [u8]) -> Result<Request<'a>, BadReason> {
    format.parse(line)
}

/// Detects the format of a log from its first lines (up to 50 non-empty
/// lines of `sample`): Parquet when it begins with `PAR1`; W3C when it has
/// W3C directives; CSV or TSV when its first row is a header that names a
/// time and a request or URL column (`csv_log::detect`); JSON when its lines
/// are JSON objects (a named layout, `json:gcp` and the like, when the
/// first object has that layout's distinctive keys and the layout reads at
/// least half the lines; else the automatic mapping); else the line format
/// that reads the most lines, the more specific one on a tie (envoy, alb,
/// elb, s3, haproxy, gandi, vhost_combined, lighttpd, combined, common).
/// lighttpd's lines also read as combined: only lines whose second field
/// is a host name or address count for lighttpd (combined's second field,
/// identd's answer, is `-` unless the server asks identd, which Apache and
/// nginx do not by default). `None` when no format reads any line.
pub fn detect(sample: &[u8]) -> Option<Format> {
    if sample.starts_with(b"PAR1") {
        return Some(Format::Parquet(Box::new(JsonFields::auto())));
    }
    let lines: Vec<&[u8]> = sample
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .filter(|l| !l.trim_ascii().is_empty())
        .take(50)
        .collect();
    if lines.iter().any(|l| {
        l.starts_with(b"#Fields:") || l.starts_with(b"#Software:") || l.starts_with(b"#Version:")
    }) {
        return Some(Format::W3c);
    }
    if lines
        .first()
        .is_some_and(|l| l.trim_ascii_start().starts_with(b"{"))
    {
        let reads = |fields: &JsonFields| lines.iter().filter(|l| fields.recognises(l)).count();
        let layout = JsonFields::detect(&lines);
        if layout.name().is_some() {
            let ok = reads(&layout);
            if ok * 2 >= lines.len() && ok > 0 {
                return Some(Format::Json(Box::new(layout)));
            }
        }
        let fields = JsonFields::auto();
        let ok = reads(&fields);
        return (ok * 2 >= lines.len() && ok > 0).then_some(Format::Json(Box::new(fields)));
    }
    if let Some(csv) = csv_log::detect(sample) {
        return Some(Format::Csv(Box::new(csv)));
    }
    // Combined lines also read as common (which ignores their end), so a
    // common count is no evidence against combined: the most specific
    // candidate that reads at least half as many lines as the best wins
    // (combined then also keeps the odd common-format line, leniently).
    // No AWS, HAProxy or Envoy line reads in another format, nor another
    // format's line as AWS, HAProxy or Envoy.
    let candidates = [
        Format::Envoy,
        Format::Alb,
        Format::Elb,
        Format::S3,
        Format::Haproxy(Vec::new()),
        Format::Gandi,
        Format::VhostCombined,
        Format::Lighttpd,
        Format::Combined,
        Format::VhostCommon,
        Format::Common,
    ];
    let counts: Vec<usize> = candidates
        .iter()
        .map(|c| {
            let compiled = c.compile().expect("built-in formats compile");
            lines
                .iter()
                .filter(|l| match compiled.parse_strict(l) {
                    Ok(r) if *c == Format::Lighttpd => {
                        r.host.as_deref().is_some_and(looks_like_host)
                    }
                    Ok(_) => true,
                    Err(_) => false,
                })
                .count()
        })
        .collect();
    let best = counts.iter().copied().max().unwrap_or(0);
    if best == 0 {
        return None;
    }
    candidates
        .into_iter()
        .zip(counts)
        .find(|(_, n)| n * 2 >= best)
        .map(|(f, _)| f)
}

/// Does lighttpd's second field look like a host (`example.com`,
/// `192.0.2.1`, `[2001:db8::1]:8080`, `localhost`), not a user name?
fn looks_like_host(host: &[u8]) -> bool {
    host.iter()
        .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_' | b':' | b'[' | b']'))
        && (host.iter().any(|&b| b == b'.' || b == b':') || host.eq_ignore_ascii_case(b"localhost"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by the `log_template` and `log_json` fuzz targets: a 12-digit
    /// epoch time overflowed (a panic in debug builds, a wrong time in
    /// release builds). It is a bad time now.
    #[test]
    fn huge_epoch_times_are_bad_lines_found_by_fuzzing() {
        let nginx: Format = "nginx:$msec \"$request\" $status".parse().unwrap();
        let nginx = nginx.compile().unwrap();
        let ok = parse_line(&nginx, b"1700000000.5 \"GET / HTTP/1.1\" 200");
        assert!(ok.is_ok());
        let bad = parse_line(&nginx, b"999999999999.5 \"GET / HTTP/1.1\" 200");
        assert_eq!(bad.err(), Some(BadReason::Time));
        let json: Format = "json".parse().unwrap();
        let json = json.compile().unwrap();
        let line = br#"{"ts": 999999999999, "request": {"uri": "/", "remote_ip": "192.0.2.1"}, "status": 200}"#;
        assert_eq!(parse_line(&json, line).err(), Some(BadReason::Time));
    }

    #[test]
    fn format_names() {
        for name in [
            "auto",
            "combined",
            "common",
            "vhost_combined",
            "vhost_common",
            "gandi",
            "json",
            "json:cloudflare",
            "w3c",
            "alb",
            "elb",
            "s3",
            "haproxy",
            "haproxy:Host,User-Agent",
            "csv",
            "tsv",
            "envoy",
            "lighttpd",
            "parquet",
            "json:gcp",
            "json:azure",
            "json:fastly",
            "json:akamai",
            "json:traefik",
        ] {
            assert_eq!(name.parse::<Format>().unwrap().to_string(), name);
        }
        assert_eq!(
            "haproxy: host , user-agent ".parse::<Format>().unwrap(),
            Format::Haproxy(vec!["host".into(), "user-agent".into()])
        );
        assert!(
            "haproxy:Host,"
                .parse::<Format>()
                .unwrap_err()
                .contains("is not a header name")
        );
        assert_eq!(
            "cloudflare".parse::<Format>().unwrap().to_string(),
            "json:cloudflare"
        );
        assert!(
            "json:splunk"
                .parse::<Format>()
                .unwrap_err()
                .contains("unknown JSON layout \"splunk\" (json:cloudflare, json:gcp, json:azure, json:fastly, json:akamai, json:traefik)")
        );
        // --json-fields on a layout makes it a custom mapping.
        let custom = "json:gcp"
            .parse::<Format>()
            .unwrap()
            .with_json_fields("host=h")
            .unwrap();
        assert_eq!(custom.to_string(), "json");
        let f: Format = "nginx:$remote_addr [$time_local] \"$request\" $status"
            .parse()
            .unwrap();
        assert!(matches!(f, Format::Nginx(_)));
        assert!(
            "nginx:$remote_addr"
                .parse::<Format>()
                .unwrap_err()
                .contains("no time")
        );
        let f: Format = r"regex:^(?P<time>\S+) (?P<uri>\S+)".parse().unwrap();
        assert_eq!(f.to_string(), r"regex:^(?P<time>\S+) (?P<uri>\S+)");
        assert!(f.compile().is_ok());
        assert_eq!(
            "regex:(?P<time>".parse::<Format>().unwrap_err(),
            "regex: invalid pattern: unclosed group at character 1"
        );
        assert!(
            "apache"
                .parse::<Format>()
                .unwrap_err()
                .contains("unknown log format")
        );
    }

    #[test]
    fn detection() {
        let combined =
            b"1.2.3.4 - - [01/Jan/2024:00:00:00 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"UA\"\n";
        assert_eq!(detect(combined), Some(Format::Combined));
        let common = b"1.2.3.4 - - [01/Jan/2024:00:00:00 +0000] \"GET / HTTP/1.1\" 200 1\n";
        assert_eq!(detect(common), Some(Format::Common));
        let vhost = b"example.com:80 1.2.3.4 - - [01/Jan/2024:00:00:00 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"UA\"\n";
        assert_eq!(detect(vhost), Some(Format::VhostCombined));
        let vhost_common =
            b"www.example.com 1.2.3.4 - theuser [01/Jan/2024:00:00:00 +0000] \"GET / HTTP/1.1\" 200 1\n";
        assert_eq!(detect(vhost_common), Some(Format::VhostCommon));
        let gandi = b"www.example.com 1.2.3.4 - - [01/Jan/2024:00:00:00 +0000] (0 s) \"GET / HTTP/1.1\" 200 1 \"-\" \"UA\"\n";
        assert_eq!(detect(gandi), Some(Format::Gandi));
        assert_eq!(
            detect(b"#Software: Microsoft IIS\n#Fields: date time cs-uri-stem\n"),
            Some(Format::W3c)
        );
        let json = br#"{"ClientIP":"1.2.3.4","ClientRequestURI":"/","EdgeStartTimestamp":"2024-01-01T00:00:00Z"}"#;
        assert_eq!(
            detect(json),
            Some(Format::Json(Box::new(JsonFields::cloudflare())))
        );
        let caddy = br#"{"ts":1714571736.5,"request":{"remote_ip":"192.0.2.1","method":"GET","uri":"/"},"status":200}"#;
        assert_eq!(
            detect(caddy),
            Some(Format::Json(Box::new(JsonFields::auto())))
        );
        // A layout's keys on the first line, but its time missing on most
        // lines: the automatic mapping, if it reads them.
        let odd = br#"{"httpRequest":{"requestUrl":"/"},"time":"2024-01-01T00:00:00Z","uri":"/"}"#;
        assert_eq!(
            detect(odd),
            Some(Format::Json(Box::new(JsonFields::auto())))
        );
        assert_eq!(detect(b"hello\nworld\n"), None);
        let alb = br#"h2 2024-01-01T00:00:00.000001Z app/lb/0 192.0.2.1:2817 10.0.0.1:80 0.000 0.001 0.000 200 200 34 366 "GET https://a.example:443/ HTTP/2.0" "UA" - - arn:tg "Root=1" "-" "-" 0 2024-01-01T00:00:00.000000Z "forward" "-" "-" "10.0.0.1:80" "200" "-" "-""#;
        assert_eq!(detect(alb), Some(Format::Alb));
        let elb = br#"2024-01-01T00:00:00.000001Z my-lb 192.0.2.1:2817 10.0.0.1:80 0.000073 0.001048 0.000057 200 200 0 29 "GET http://a.example:80/ HTTP/1.1" "curl/7.38.0" - -"#;
        assert_eq!(detect(elb), Some(Format::Elb));
        let s3 = br#"0123abcd bucket [06/Feb/2019:00:00:38 +0000] 192.0.2.3 - 3E57427F3EXAMPLE REST.GET.OBJECT key "GET /bucket/key HTTP/1.1" 200 - 113 113 7 6 "-" "S3Console/0.4" - aG9zdA== SigV4 ECDHE-RSA-AES128-GCM-SHA256 AuthHeader bucket.s3.us-west-1.amazonaws.com TLSv1.2 - -"#;
        assert_eq!(detect(s3), Some(Format::S3));
        // S3's older lines end after the user agent.
        let old_s3 = br#"0123abcd bucket [06/Feb/2019:00:00:38 +0000] 192.0.2.3 - 3E57427F3EXAMPLE REST.GET.OBJECT key "GET /bucket/key HTTP/1.1" 200 - 113 113 7 6 "-" "S3Console/0.4""#;
        assert_eq!(detect(old_s3), Some(Format::S3));
        let haproxy = br#"Feb  6 12:14:14 localhost haproxy[14389]: 10.0.1.2:33317 [06/Feb/2009:12:14:14.655] http-in static/srv1 10/0/30/69/109 200 2750 - - ---- 1/1/1/1/0 0/0 {1wt.eu} {} "GET /index.html HTTP/1.1""#;
        assert_eq!(detect(haproxy), Some(Format::Haproxy(Vec::new())));
        let envoy = br#"[2024-05-01T13:55:36.310Z] "GET / HTTP/1.1" 200 - 0 1 1 1 "192.0.2.1" "curl/8.0" "id" "a.example" "10.0.0.1:80""#;
        assert_eq!(detect(envoy), Some(Format::Envoy));
        // lighttpd: the host second; combined: identd's `-` there.
        let lighttpd = br#"1.2.3.4 www.example.com - [01/Jan/2024:00:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" "UA""#;
        assert_eq!(detect(lighttpd), Some(Format::Lighttpd));
        let localhost =
            br#"1.2.3.4 localhost - [01/Jan/2024:00:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" "UA""#;
        assert_eq!(detect(localhost), Some(Format::Lighttpd));
        let ident =
            br#"1.2.3.4 frank - [01/Jan/2024:00:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" "UA""#;
        assert_eq!(detect(ident), Some(Format::Combined));
        // An absolute target (varnishncsa) is no host in the second field.
        let varnish = br#"1.2.3.4 - - [01/Jan/2024:00:00:00 +0000] "GET http://a.example/ HTTP/1.1" 200 1 "-" "UA""#;
        assert_eq!(detect(varnish), Some(Format::Combined));
        // A combined log with a few common-format lines is still combined.
        let mixed = [&combined[..], common, combined, combined].concat();
        assert_eq!(detect(&mixed), Some(Format::Combined));
    }
}

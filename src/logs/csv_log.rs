//! CSV and TSV logs with a header row (`--format csv`, `--format tsv`),
//! read through the `csv` crate: quoted fields, doubled quotes, embedded
//! delimiters and newlines are the crate's. The header's column names are
//! mapped to fields automatically where they are common names
//! (`timestamp`, `client_ip`, `user_agent`, ...) and by `--csv-fields
//! time=COLUMN,...` otherwise.
//!
//! A quoted field may hold newlines, so a CSV log cannot be cut at any
//! line end: it is read in one sequential pass (see `reader.rs`).

use std::fmt;

use csv::ByteRecord;

use super::BadReason;
use super::fields::{self, NAMES, REQUEST, TIME, URI};
use super::record::Request;
use super::time::parse_any;

/// The column names recognised for each field of [`NAMES`], in order of
/// preference, compared after [`normalise`] (lower case, `-`, `.` and
/// spaces as `_`).
const AUTO: [&[&str]; 11] = [
    &[
        "timestamp",
        "time",
        "datetime",
        "date_time",
        "@timestamp",
        "ts",
        "time_iso8601",
        "time_local",
    ],
    &[
        "client_ip",
        "ip",
        "clientip",
        "remote_addr",
        "remote_ip",
        "client_address",
        "c_ip",
    ],
    &[
        "method",
        "request_method",
        "http_method",
        "cs_method",
        "verb",
    ],
    &[
        "url",
        "uri",
        "path",
        "request_uri",
        "request_url",
        "request_path",
        "target",
        "cs_uri",
    ],
    &["request", "request_line"],
    &["protocol", "http_version", "server_protocol"],
    &[
        "status",
        "status_code",
        "http_status",
        "response_code",
        "sc_status",
    ],
    &[
        "bytes",
        "bytes_sent",
        "body_bytes_sent",
        "response_bytes",
        "size",
        "sc_bytes",
    ],
    &["referer", "referrer", "http_referer"],
    &["user_agent", "useragent", "http_user_agent", "ua"],
    &["host", "http_host", "request_host"],
];

/// A CSV or TSV log format: its delimiter and the `--csv-fields`
/// overrides (field, column name).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CsvFormat {
    delimiter: u8,
    overrides: Vec<(usize, String)>,
}

impl fmt::Display for CsvFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.delimiter == b'\t' {
            "tsv"
        } else {
            "csv"
        })
    }
}

/// A column name compared as [`AUTO`] lists them: trimmed, a UTF-8 byte
/// order mark dropped, lower case, with `-`, `.` and spaces as `_`.
fn normalise(name: &[u8]) -> String {
    let name = name.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(name);
    String::from_utf8_lossy(name.trim_ascii())
        .chars()
        .map(|c| match c {
            '-' | '.' | ' ' => '_',
            c => c.to_ascii_lowercase(),
        })
        .collect()
}

impl CsvFormat {
    /// Comma-separated, with a header row.
    pub fn csv() -> CsvFormat {
        CsvFormat {
            delimiter: b',',
            overrides: Vec::new(),
        }
    }

    /// Tab-separated, with a header row.
    pub fn tsv() -> CsvFormat {
        CsvFormat {
            delimiter: b'\t',
            overrides: Vec::new(),
        }
    }

    /// The field delimiter.
    pub(crate) fn delimiter(&self) -> u8 {
        self.delimiter
    }

    /// Overrides from `--csv-fields name=column,...` (names: `time`, `ip`,
    /// `method`, `uri`, `request`, `protocol`, `status`, `bytes`,
    /// `referer`, `user_agent`, `host`): that field is read from that
    /// column of the header, whatever the automatic mapping finds.
    ///
    /// # Errors
    /// An unknown field name or a missing `=`, with the list of names.
    pub fn with_overrides(mut self, spec: &str) -> Result<CsvFormat, String> {
        fields::mapping(
            "--csv-fields",
            "column",
            &NAMES,
            spec,
            |field, column, pair| {
                if column.is_empty() {
                    return Err(format!("--csv-fields: {pair:?} names no column"));
                }
                self.overrides.retain(|(f, _)| *f != field);
                self.overrides.push((field, column.to_string()));
                Ok(())
            },
        )?;
        Ok(self)
    }

    /// The columns of a log whose header row is `header`.
    ///
    /// # Errors
    /// An override naming a column the header does not have, or a header
    /// without a time or a request column: a message naming the columns.
    pub(crate) fn columns(&self, header: &ByteRecord) -> Result<CsvColumns, String> {
        let names: Vec<String> = header.iter().map(normalise).collect();
        let shown = || {
            header
                .iter()
                .map(|c| String::from_utf8_lossy(c.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(c)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut fields = [None; 11];
        for (field, candidates) in AUTO.iter().enumerate() {
            fields[field] = candidates
                .iter()
                .find_map(|c| names.iter().position(|n| n == c));
        }
        for (field, column) in &self.overrides {
            // The exact name first, then as the automatic mapping compares.
            let exact = header.iter().position(|c| c == column.as_bytes());
            let found = exact.or_else(|| {
                let wanted = normalise(column.as_bytes());
                names.iter().position(|n| *n == wanted)
            });
            fields[*field] = Some(found.ok_or_else(|| {
                format!(
                    "--csv-fields {}={column}: the header has no column {column:?} (columns: {})",
                    NAMES[*field],
                    shown()
                )
            })?);
        }
        if fields[TIME].is_none() {
            return Err(format!(
                "no time column in the header (columns: {}): name it with --csv-fields time=COLUMN",
                shown()
            ));
        }
        if fields[URI].is_none() && fields[REQUEST].is_none() {
            return Err(format!(
                "no URL or request column in the header (columns: {}): name it with --csv-fields uri=COLUMN or request=COLUMN",
                shown()
            ));
        }
        Ok(CsvColumns {
            fields,
            count: header.len(),
        })
    }
}

/// Where each field is in the rows of one CSV log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CsvColumns {
    fields: [Option<usize>; 11],
    /// The number of columns of the header (and of every row).
    count: usize,
}

impl CsvColumns {
    /// Reads one row.
    pub(crate) fn request<'r>(&self, row: &'r ByteRecord) -> Result<Request<'r>, BadReason> {
        self.request_of(row.len(), |i| row.get(i))
    }

    /// [`CsvColumns::request`] of a row of `count` fields, the `i`th
    /// given by `column(i)`.
    pub(crate) fn request_of<'r>(
        &self,
        count: usize,
        column: impl Fn(usize) -> Option<&'r [u8]>,
    ) -> Result<Request<'r>, BadReason> {
        if count != self.count {
            return Err(BadReason::Layout);
        }
        // An empty field is an absent one.
        let get = |field: usize| -> Option<&'r [u8]> {
            self.fields[field]
                .and_then(&column)
                .filter(|v| !v.is_empty())
        };
        let time = get(TIME).and_then(parse_any).ok_or(BadReason::Time)?;
        fields::request(time, get)
    }
}

/// Detects a CSV or TSV log from its first bytes: its first row is a
/// header whose names map a time and a request or URL column
/// ([`CsvFormat::columns`], tab-separated when it has a tab, else
/// comma-separated), and at least half the rows after it (of up to 50)
/// read as requests. A header alone (no rows yet) is enough.
pub(crate) fn detect(sample: &[u8]) -> Option<CsvFormat> {
    let first = sample.split(|&b| b == b'\n').next().unwrap_or_default();
    let format = if first.contains(&b'\t') {
        CsvFormat::tsv()
    } else if first.contains(&b',') {
        CsvFormat::csv()
    } else {
        return None;
    };
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(format.delimiter)
        .has_headers(false)
        .flexible(true)
        .from_reader(sample);
    let mut row = ByteRecord::new();
    if !reader.read_byte_record(&mut row).ok()? {
        return None;
    }
    let columns = format.columns(&row).ok()?;
    let (mut rows, mut read) = (0usize, 0usize);
    while rows < 50 {
        match reader.read_byte_record(&mut row) {
            Ok(true) => {}
            Ok(false) | Err(_) => break,
        }
        rows += 1;
        read += usize::from(columns.request(&row).is_ok());
    }
    // The sample may end inside its last row.
    (read * 2 + 1 >= rows).then_some(format)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(fields: &[&str]) -> ByteRecord {
        ByteRecord::from(fields.to_vec())
    }

    #[test]
    fn common_header_names_are_mapped() {
        let header = row(&[
            "\u{feff}Timestamp",
            "Client-IP",
            "Method",
            "URL",
            "Status",
            "Bytes Sent",
            "Referrer",
            "User-Agent",
            "Host",
            "Cache",
        ]);
        let cols = CsvFormat::csv().columns(&header).unwrap();
        let line = row(&[
            "2026-11-01T10:00:00.5Z",
            "66.249.66.1",
            "GET",
            "/a?b=1",
            "200",
            "5120",
            "https://ref.example/",
            "Mozilla/5.0 (compatible; Googlebot/2.1)",
            "shop.example:443",
            "HIT",
        ]);
        let r = cols.request(&line).unwrap();
        assert_eq!(
            (r.client(), r.method(), r.target(), r.status(), r.bytes()),
            (
                &b"66.249.66.1"[..],
                &b"GET"[..],
                &b"/a?b=1"[..],
                200,
                Some(5120)
            )
        );
        assert_eq!(r.host(), Some(&b"shop.example"[..]));
        assert_eq!(r.referer(), b"https://ref.example/");
        assert_eq!(r.user_agent(), b"Mozilla/5.0 (compatible; Googlebot/2.1)");
        assert_eq!(r.resolution(), 100_000_000);
        // Empty fields are absent; a row of another length is bad.
        let line = row(&["2026-11-01T10:00:00Z", "", "", "-", "", "", "", "", "", ""]);
        let r = cols.request(&line).unwrap();
        assert_eq!(
            (r.status(), r.bytes(), r.is_valid_request()),
            (0, None, false)
        );
        assert_eq!(
            cols.request(&row(&["2026-11-01T10:00:00Z"])),
            Err(BadReason::Layout)
        );
        let bad_time = row(&["soon", "", "", "/", "", "", "", "", "", ""]);
        assert_eq!(cols.request(&bad_time), Err(BadReason::Time));
        let bad_status = row(&[
            "2026-11-01T10:00:00Z",
            "",
            "",
            "/",
            "OK",
            "",
            "",
            "",
            "",
            "",
        ]);
        assert_eq!(cols.request(&bad_status), Err(BadReason::Status));
    }

    #[test]
    fn overrides_and_missing_columns() {
        let header = row(&["When", "Who", "Line", "Agent"]);
        assert_eq!(
            CsvFormat::csv().columns(&header).unwrap_err(),
            "no time column in the header (columns: When, Who, Line, Agent): name it with --csv-fields time=COLUMN"
        );
        let f = CsvFormat::tsv()
            .with_overrides("time=When, ip=who, request=Line,user_agent=Agent")
            .unwrap();
        assert_eq!(f.to_string(), "tsv");
        let cols = f.columns(&header).unwrap();
        let line = row(&[
            "[10/Oct/2000:13:55:36 -0700]",
            "::1",
            "GET /x HTTP/1.1",
            "curl/8.0",
        ]);
        let r = cols.request(&line).unwrap();
        assert_eq!(
            (r.client(), r.method(), r.target(), r.user_agent()),
            (&b"::1"[..], &b"GET"[..], &b"/x"[..], &b"curl/8.0"[..])
        );
        assert_eq!(
            CsvFormat::csv()
                .with_overrides("time=Wen")
                .unwrap()
                .columns(&header)
                .unwrap_err(),
            "--csv-fields time=Wen: the header has no column \"Wen\" (columns: When, Who, Line, Agent)"
        );
        assert_eq!(
            CsvFormat::csv()
                .with_overrides("time=When")
                .unwrap()
                .columns(&header)
                .unwrap_err(),
            "no URL or request column in the header (columns: When, Who, Line, Agent): name it with --csv-fields uri=COLUMN or request=COLUMN"
        );
        assert!(
            CsvFormat::csv()
                .with_overrides("when=When")
                .unwrap_err()
                .starts_with("--csv-fields: unknown field \"when\" (names: time, ip,")
        );
        assert!(CsvFormat::csv().with_overrides("time").is_err());
    }
}

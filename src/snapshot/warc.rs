//! WARC 1.0/1.1 files (ISO 28500), plain or gzip per record, as written by
//! `wget --warc-file`, Heritrix, Browsertrix or Common Crawl.
//!
//! Each `response` record for `/robots.txt` is a robots.txt version of its
//! host from its `WARC-Date`, with its HTTP status; every other `response`
//! gives that URL's X-Robots-Tag lines and, for HTML, its robots meta tags.
//! A `revisit` record repeats an earlier response's content at its own date.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::sync::Arc;

use super::http::parse_response;
use super::{RobotsAnswer, Snapshot, SnapshotError};
use crate::host::{normalize_host, split_authority};
use crate::indexing::PageRules;
use crate::robots::{Robots, path_params_query};

/// What one WARC file held.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WarcStats {
    /// Records read.
    pub records: u64,
    /// `response` records used.
    pub responses: u64,
    /// `revisit` records used.
    pub revisits: u64,
    /// robots.txt versions found.
    pub robots: u64,
    /// Page versions found.
    pub pages: u64,
    /// Records of other types (`request`, `metadata`, `warcinfo`, ...), and
    /// responses or revisits that could not be used (not HTTP, or a revisit
    /// whose original is not in the file).
    pub skipped: u64,
}

/// The longest WARC header line read; a longer one is refused.
pub const MAX_WARC_HEADER_LINE: usize = 64 << 10;
/// The most header bytes one record may have.
pub const MAX_WARC_HEADERS: usize = 1 << 20;
/// The most of a record's block kept in memory: the HTTP headers and a body
/// up to the decompression limit. The rest of a longer block is skipped
/// (a 2 GB video record costs no memory).
pub const MAX_WARC_BLOCK: u64 = super::http::MAX_BODY + (1 << 20);

/// Is this file name a WARC file?
pub(crate) fn is_warc_name(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    name.ends_with(".warc") || name.ends_with(".warc.gz")
}

/// Content kept for `revisit` records.
#[derive(Clone)]
enum Stored {
    Robots(u16, RobotsAnswer),
    Page(u16, PageRules),
}

struct Record {
    offset: u64,
    headers: Vec<(String, String)>,
    block: Vec<u8>,
}

impl Record {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Reads records one by one, counting the (decompressed) offset.
struct Reader<R> {
    inner: R,
    offset: u64,
}

impl<R: BufRead> Reader<R> {
    /// Reads one line of at most [`MAX_WARC_HEADER_LINE`] bytes; a longer
    /// one is an `InvalidData` error.
    fn line(&mut self, buf: &mut Vec<u8>) -> std::io::Result<usize> {
        buf.clear();
        let n = (&mut self.inner)
            .take(MAX_WARC_HEADER_LINE as u64 + 1)
            .read_until(b'\n', buf)?;
        self.offset += n as u64;
        if n > MAX_WARC_HEADER_LINE {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "a header line longer than {} KiB: this is not a WARC file, or the previous record's Content-Length is wrong",
                    MAX_WARC_HEADER_LINE >> 10
                ),
            ));
        }
        Ok(n)
    }

    fn next(&mut self, path: &Path) -> Result<Option<Record>, SnapshotError> {
        let err =
            |offset: u64, m: String| SnapshotError::new(path, Some(format!("byte {offset}")), m);
        let io = |offset: u64, e: std::io::Error| err(offset, format!("cannot read: {e}"));
        let mut line = Vec::new();
        // Skip the blank lines between records.
        let start = loop {
            let at = self.offset;
            if self.line(&mut line).map_err(|e| io(at, e))? == 0 {
                return Ok(None);
            }
            if !line.trim_ascii().is_empty() {
                break at;
            }
        };
        if !line.starts_with(b"WARC/") {
            let shown = String::from_utf8_lossy(&line[..line.len().min(40)])
                .trim()
                .to_string();
            return Err(err(
                start,
                format!("a record must start with a WARC/1.x line, found {shown:?}"),
            ));
        }
        let mut headers = Vec::new();
        loop {
            let at = self.offset;
            if at - start > MAX_WARC_HEADERS as u64 {
                return Err(err(
                    start,
                    format!(
                        "the record's headers run past {} KiB without the blank line that ends them",
                        MAX_WARC_HEADERS >> 10
                    ),
                ));
            }
            if self.line(&mut line).map_err(|e| io(at, e))? == 0 {
                return Err(err(
                    start,
                    "the file ends inside the record's headers".into(),
                ));
            }
            let text = String::from_utf8_lossy(&line);
            let text = text.trim_end_matches(['\r', '\n']);
            if text.is_empty() {
                break;
            }
            match text.split_once(':') {
                Some((n, v)) => headers.push((n.trim().to_string(), v.trim().to_string())),
                None if text.starts_with([' ', '\t']) => {
                    // A folded header line continues the previous value.
                    if let Some(last) = headers.last_mut() {
                        last.1.push(' ');
                        last.1.push_str(text.trim());
                    }
                }
                None => return Err(err(at, format!("{text:?} is not a WARC header line"))),
            }
        }
        let length: u64 = headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("Content-Length"))
            .ok_or_else(|| err(start, "the record has no Content-Length".into()))?
            .1
            .parse()
            .map_err(|_| err(start, "the record's Content-Length is not a number".into()))?;
        // Keep at most MAX_WARC_BLOCK bytes of the block, growing the
        // buffer as bytes come (a Content-Length that lies cannot allocate
        // more than the file holds), and skip the rest.
        let mut block = Vec::new();
        let kept = (&mut self.inner)
            .take(length.min(MAX_WARC_BLOCK))
            .read_to_end(&mut block)
            .map_err(|e| io(self.offset, e))? as u64;
        self.offset += kept;
        let mut got = kept;
        if kept < length && kept == MAX_WARC_BLOCK {
            let skipped = std::io::copy(
                &mut (&mut self.inner).take(length - kept),
                &mut std::io::sink(),
            )
            .map_err(|e| io(self.offset, e))?;
            self.offset += skipped;
            got += skipped;
        }
        if got < length {
            return Err(err(
                start,
                format!(
                    "the record declares Content-Length {length} but the file ends {got} bytes into its block: the file is truncated or the Content-Length is wrong"
                ),
            ));
        }
        Ok(Some(Record {
            offset: start,
            headers,
            block,
        }))
    }
}

/// Parses a WARC date (RFC 3339, UTC) to nanoseconds.
fn warc_date(text: &str) -> Option<i64> {
    crate::time::instant(text.trim().parse().ok()?)
}

/// Splits an http(s) URL into host and path-and-query.
fn split_url(uri: &str) -> Option<(String, String)> {
    let uri = uri.trim().trim_start_matches('<').trim_end_matches('>');
    let rest = uri
        .strip_prefix("http://")
        .or_else(|| uri.strip_prefix("https://"))?;
    let host = normalize_host(split_authority(rest).0);
    let path = path_params_query(uri.as_bytes());
    (!host.is_empty()).then(|| (host, String::from_utf8_lossy(&path).into_owned()))
}

/// Loads one WARC file into `snapshot` and returns what it held.
pub(crate) fn load(path: &Path, snapshot: &mut Snapshot) -> Result<WarcStats, SnapshotError> {
    let (file, _) = super::open_regular(path)?;
    load_from(file, path, snapshot)
}

/// Loads a WARC stream (plain or gzip) named `path` into `snapshot`.
pub(crate) fn load_from(
    source: impl Read,
    path: &Path,
    snapshot: &mut Snapshot,
) -> Result<WarcStats, SnapshotError> {
    let mut buffered = BufReader::with_capacity(1 << 20, source);
    let gzip = buffered
        .fill_buf()
        .map(|b| b.starts_with(&[0x1F, 0x8B]))
        .unwrap_or(false);
    let inner: Box<dyn BufRead + '_> = if gzip {
        Box::new(BufReader::with_capacity(
            1 << 20,
            flate2::read::MultiGzDecoder::new(buffered),
        ))
    } else {
        Box::new(buffered)
    };
    let mut reader = Reader { inner, offset: 0 };
    let mut stats = WarcStats::default();
    let mut by_digest: HashMap<String, Stored> = HashMap::new();
    let mut by_uri_date: HashMap<(String, String), Stored> = HashMap::new();
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    while let Some(record) = reader.next(path)? {
        stats.records += 1;
        let kind = record
            .header("WARC-Type")
            .unwrap_or("")
            .to_ascii_lowercase();
        if kind != "response" && kind != "revisit" {
            stats.skipped += 1;
            continue;
        }
        let (Some(uri), Some(date_text)) =
            (record.header("WARC-Target-URI"), record.header("WARC-Date"))
        else {
            stats.skipped += 1;
            continue;
        };
        let Some((host, url)) = split_url(uri) else {
            stats.skipped += 1;
            continue;
        };
        let date = warc_date(date_text).ok_or_else(|| {
            SnapshotError::new(
                path,
                Some(format!("byte {}", record.offset)),
                format!("WARC-Date {date_text:?} is not an RFC 3339 time"),
            )
        })?;
        let response = parse_response(&record.block);
        let is_robots = url.split('?').next() == Some("/robots.txt");
        let stored = if kind == "response" {
            let Some(response) = response else {
                stats.skipped += 1;
                continue;
            };
            stats.responses += 1;
            if is_robots {
                let answer = match response.status {
                    200..=299 => RobotsAnswer::Rules(Arc::new(Robots::parse(&response.body))),
                    300..=399 => match response.header("location") {
                        Some(l) => RobotsAnswer::Redirect(l.to_string()),
                        None => RobotsAnswer::NotFound,
                    },
                    400..=499 => RobotsAnswer::NotFound,
                    _ => RobotsAnswer::Unavailable,
                };
                Stored::Robots(response.status, answer)
            } else {
                let mut rules = PageRules::default();
                for value in response.header_values("x-robots-tag") {
                    rules.add_header(value);
                }
                let html_type = response
                    .header("content-type")
                    .is_some_and(|t| t.to_ascii_lowercase().contains("html"));
                let head = &response.body[..response.body.len().min(512)];
                let looks_html = head
                    .windows(5)
                    .any(|w| w.eq_ignore_ascii_case(b"<html") || w.eq_ignore_ascii_case(b"<!doc"));
                if html_type || looks_html {
                    rules.add_html(&response.body);
                }
                Stored::Page(response.status, rules)
            }
        } else {
            // A revisit: the content of an earlier response, at a new date.
            let refers = record
                .header("WARC-Payload-Digest")
                .and_then(|d| by_digest.get(d))
                .or_else(|| {
                    let uri = record.header("WARC-Refers-To-Target-URI")?;
                    let date = record.header("WARC-Refers-To-Date")?;
                    by_uri_date.get(&(uri.trim_matches(['<', '>']).to_string(), date.to_string()))
                })
                .cloned();
            let Some(original) = refers else {
                stats.skipped += 1;
                continue;
            };
            stats.revisits += 1;
            // A revisit may carry the new response's headers: its status,
            // and its X-Robots-Tag lines if it has any.
            match (original, response) {
                (Stored::Page(status, rules), Some(r))
                    if r.header_values("x-robots-tag").next().is_some() =>
                {
                    let mut fresh = PageRules::default();
                    for value in r.header_values("x-robots-tag") {
                        fresh.add_header(value);
                    }
                    // Meta tags come from the body, which did not change.
                    fresh.copy_meta_from(&rules);
                    Stored::Page(if r.status == 304 { status } else { r.status }, fresh)
                }
                (original, _) => original,
            }
        };
        let name = format!("{file_name} {date_text}");
        match &stored {
            Stored::Robots(status, answer) => {
                stats.robots += 1;
                snapshot.add_robots(&host, date, *status, answer.clone(), name.clone());
            }
            Stored::Page(status, rules) => {
                stats.pages += 1;
                snapshot.add_page(
                    &host,
                    url.clone(),
                    (date, *status, rules.clone(), name.clone()),
                );
            }
        }
        if let Some(digest) = record.header("WARC-Payload-Digest") {
            by_digest.insert(digest.to_string(), stored.clone());
        }
        by_uri_date.insert(
            (
                uri.trim_matches(['<', '>']).to_string(),
                date_text.to_string(),
            ),
            stored,
        );
    }
    snapshot
        .warc
        .push((path.display().to_string(), stats.clone()));
    Ok(stats)
}

#[cfg(test)]
mod tests;

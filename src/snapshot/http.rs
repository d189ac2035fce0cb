//! HTTP responses as WARC `response` records keep them: status line,
//! headers, and a body that may still be chunked and compressed.

use std::borrow::Cow;
use std::io::Read;

/// Bodies are decompressed up to this size; the rest is ignored (a gzip
/// bomb in a WARC must not exhaust memory).
pub(crate) const MAX_BODY: u64 = 64 << 20;

/// A parsed HTTP response.
#[derive(Debug)]
pub(crate) struct Response<'a> {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(&'a str, &'a str)>,
    pub(crate) body: Cow<'a, [u8]>,
}

impl Response<'_> {
    /// All values of a header (name compared without case), in order.
    pub(crate) fn header_values<'h>(&'h self, name: &'h str) -> impl Iterator<Item = &'h str> + 'h {
        self.headers
            .iter()
            .filter(move |(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| *v)
    }

    /// The first value of a header.
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| *v)
    }
}

/// Parses a response block. `None` when it does not start with an HTTP
/// status line. Chunked bodies are de-chunked and gzip/deflate bodies
/// decompressed, tolerantly: what can be read is kept.
pub(crate) fn parse_response(block: &[u8]) -> Option<Response<'_>> {
    let header_end = memchr::memmem::find(block, b"\r\n\r\n")
        .map(|i| (i, i + 4))
        .or_else(|| memchr::memmem::find(block, b"\n\n").map(|i| (i, i + 2)))
        .unwrap_or((block.len(), block.len()));
    let head = std::str::from_utf8(&block[..header_end.0]).ok()?;
    let mut lines = head.split('\n').map(|l| l.trim_end_matches('\r'));
    let status_line = lines.next()?;
    let mut parts = status_line.split_whitespace();
    if !parts.next()?.starts_with("HTTP/") {
        return None;
    }
    let status: u16 = parts.next()?.parse().ok()?;
    let mut headers = Vec::new();
    for line in lines {
        if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim(), value.trim()));
        }
    }
    let raw = &block[header_end.1..];
    let mut response = Response {
        status,
        headers,
        body: Cow::Borrowed(raw),
    };
    if response
        .header("transfer-encoding")
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"))
    {
        response.body = Cow::Owned(dechunk(raw));
    }
    let encoding = response
        .header("content-encoding")
        .map(str::to_ascii_lowercase);
    match encoding.as_deref() {
        Some("gzip" | "x-gzip") => {
            let body = inflate(flate2::read::MultiGzDecoder::new(&response.body[..]));
            response.body = Cow::Owned(body);
        }
        Some("deflate") => {
            let zlib = inflate(flate2::read::ZlibDecoder::new(&response.body[..]));
            let body = if zlib.is_empty() {
                inflate(flate2::read::DeflateDecoder::new(&response.body[..]))
            } else {
                zlib
            };
            response.body = Cow::Owned(body);
        }
        _ => {}
    }
    Some(response)
}

/// Reads a decoder to its end or to [`MAX_BODY`], keeping what was read
/// before any error.
fn inflate(decoder: impl Read) -> Vec<u8> {
    let mut out = Vec::new();
    let mut limited = decoder.take(MAX_BODY);
    let mut buf = [0u8; 64 << 10];
    loop {
        match limited.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => out.extend_from_slice(&buf[..n]),
        }
    }
    out
}

/// Removes chunked transfer coding; a malformed chunk ends the body.
fn dechunk(mut raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(nl) = memchr::memchr(b'\n', raw) {
        let size_line = std::str::from_utf8(&raw[..nl]).unwrap_or("").trim();
        let size_hex = size_line.split(';').next().unwrap_or("").trim();
        let Ok(size) = usize::from_str_radix(size_hex, 16) else {
            break;
        };
        raw = &raw[nl + 1..];
        if size == 0 || size > raw.len() || out.len() as u64 + size as u64 > MAX_BODY {
            if size > raw.len() {
                out.extend_from_slice(raw);
            }
            break;
        }
        out.extend_from_slice(&raw[..size]);
        raw = &raw[size..];
        raw = raw
            .strip_prefix(b"\r\n")
            .or_else(|| raw.strip_prefix(b"\n"))
            .unwrap_or(raw);
    }
    out
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    #[test]
    fn plain_chunked_and_gzip_bodies() {
        let r = parse_response(b"HTTP/1.1 200 OK\r\nX-Robots-Tag: noindex\r\nx-robots-tag: googlebot: nofollow\r\n\r\nhello").unwrap();
        assert_eq!(r.status, 200);
        assert_eq!(
            r.header_values("X-Robots-Tag").collect::<Vec<_>>(),
            ["noindex", "googlebot: nofollow"]
        );
        assert_eq!(&*r.body, b"hello");

        let r = parse_response(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\n\r\n").unwrap();
        assert_eq!(&*r.body, b"hello world");

        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(b"<meta name=robots content=noindex>").unwrap();
        let body = gz.finish().unwrap();
        let mut block = b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n".to_vec();
        block.extend_from_slice(&body);
        assert_eq!(
            &*parse_response(&block).unwrap().body,
            b"<meta name=robots content=noindex>"
        );

        // Chunked and gzip together; truncated gzip keeps what was read.
        let mut chunked = format!("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n\r\n{:x}\r\n", body.len()).into_bytes();
        chunked.extend_from_slice(&body);
        chunked.extend_from_slice(b"\r\n0\r\n\r\n");
        assert_eq!(
            &*parse_response(&chunked).unwrap().body,
            b"<meta name=robots content=noindex>"
        );
        assert!(parse_response(b"GET / HTTP/1.1\r\n\r\n").is_none());
        assert_eq!(
            parse_response(b"HTTP/1.0 503 Service Unavailable\n\n")
                .unwrap()
                .status,
            503
        );
    }

    #[test]
    fn gzip_bombs_are_capped() {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        let zeros = vec![0u8; 1 << 20];
        for _ in 0..80 {
            gz.write_all(&zeros).unwrap();
        }
        let mut block = b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n".to_vec();
        block.extend_from_slice(&gz.finish().unwrap());
        assert_eq!(parse_response(&block).unwrap().body.len() as u64, MAX_BODY);
    }
}

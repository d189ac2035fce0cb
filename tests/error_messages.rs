//! Every error a user can cause, pinned: the exact one-line message (the
//! file, the line or offset where it applies, and what to do) and exit
//! code 2. `{dir}` in an expected message is the case's scratch directory.
//! Hostile inputs (over-long lines, lying WARC lengths) are pinned in
//! `hostile_inputs.rs`, report write failures in `report_faults.rs`.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::Command;

const DEMO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/demo");

const LINE: &str = "shop.example:443 192.0.2.1 - - [01/Nov/2026:10:00:00 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"x\"\n";

/// One case: files to write (path relative to the scratch directory,
/// contents), the arguments (`{dir}` and `{demo}` substituted), and the
/// message expected as the error's line of stderr (the first, after any
/// warnings).
struct Case {
    name: &'static str,
    files: &'static [(&'static str, &'static [u8])],
    args: &'static str,
    message: &'static str,
}

const CASES: &[Case] = &[
    Case {
        name: "missing log",
        files: &[],
        args: "audit {dir}/missing.log --snapshot {demo}/snapshot",
        message: "crawlaudit: error: log file {dir}/missing.log does not exist",
    },
    Case {
        name: "undetectable log format",
        files: &[("a.log", b"hello\nworld\n")],
        args: "audit {dir}/a.log --snapshot {demo}/snapshot",
        message: "crawlaudit: error: cannot detect the log format of {dir}/a.log from its first lines (tried combined, common, vhost_combined, vhost_common, gandi, lighttpd, envoy, json, w3c, alb, elb, s3, haproxy, parquet, csv and tsv with a header row): give --format, e.g. --format nginx:'<log_format from nginx.conf>'",
    },
    Case {
        name: "xz log",
        files: &[("a.log.xz", b"\xFD7zXZ\x00\x00\x04")],
        args: "audit {dir}/a.log.xz --snapshot {demo}/snapshot",
        message: "crawlaudit: error: {dir}/a.log.xz is compressed with xz (decompress it first, e.g. `xzcat FILE | crawlaudit audit -`)",
    },
    Case {
        name: "bzip2 log cut after its header",
        files: &[("a.log.bz2", b"BZh91AY&SY")],
        args: "audit {dir}/a.log.bz2 --snapshot {demo}/snapshot",
        message: "crawlaudit: error: {dir}/a.log.bz2: the bzip2 stream is corrupt or truncated near compressed byte 10 (decompression not finished but EOF reached): the lines before it were used; give --allow-partial to accept them",
    },
    Case {
        name: "zstd log cut after its header",
        files: &[("a.log.zst", b"\x28\xB5\x2F\xFD\x04\x58")],
        args: "audit {dir}/a.log.zst --snapshot {demo}/snapshot",
        message: "crawlaudit: error: {dir}/a.log.zst: the zstd stream is corrupt or truncated near compressed byte 6 (incomplete frame): the lines before it were used; give --allow-partial to accept them",
    },
    Case {
        // A frame header asking for a 2 GiB window (`zstd --long=31`).
        name: "zstd log with a window over 128 MiB",
        files: &[("a.log.zst", b"\x28\xB5\x2F\xFD\x00\xA8")],
        args: "audit {dir}/a.log.zst --snapshot {demo}/snapshot",
        message: "crawlaudit: error: {dir}/a.log.zst: a zstd frame near compressed byte 0 needs a window over 128 MiB (zstd's own limit; `zstd --long=28` or more writes such frames): decompress it first, e.g. `zstd -d --long=31 -c FILE | crawlaudit audit -`; the lines before it were used; give --allow-partial to accept them",
    },
    Case {
        name: "missing snapshot",
        files: &[("a.log", LINE.as_bytes())],
        args: "audit {dir}/a.log --snapshot {dir}/nothing",
        message: "crawlaudit: error: {dir}/nothing: cannot read snapshot: No such file or directory (os error 2)",
    },
    Case {
        name: "host folder in upper case",
        files: &[
            ("a.log", LINE.as_bytes()),
            ("s/Shop.Example/robots.txt", b"User-agent: *\n"),
        ],
        args: "audit {dir}/a.log --snapshot {dir}/s",
        message: "crawlaudit: error: {dir}/s/Shop.Example: not a host folder: host folders are lower case: name it \"shop.example\"",
    },
    Case {
        name: "robots history file not named by time",
        files: &[
            ("a.log", LINE.as_bytes()),
            ("s/shop.example/robots/yesterday.txt", b"User-agent: *\n"),
        ],
        args: "audit {dir}/a.log --snapshot {dir}/s",
        message: "crawlaudit: error: {dir}/s/shop.example/robots/yesterday.txt: \"yesterday\" is not a UTC time: write it as 2026-11-01T00-00-00Z",
    },
    Case {
        name: "robots history file with an unknown status",
        files: &[
            ("a.log", LINE.as_bytes()),
            (
                "s/shop.example/robots/2026-11-01T00-00-00Z.ok",
                b"User-agent: *\n",
            ),
        ],
        args: "audit {dir}/a.log --snapshot {dir}/s",
        message: "crawlaudit: error: {dir}/s/shop.example/robots/2026-11-01T00-00-00Z.ok: unknown status \"ok\": use .txt (200) or an HTTP status such as .404 or .503",
    },
    Case {
        name: "pages.jsonl with a wrong type",
        files: &[
            ("a.log", LINE.as_bytes()),
            (
                "s/shop.example/pages.jsonl",
                b"{\"url\": \"/a\"}\n{\"url\": \"/b\", \"status\": \"ok\"}\n",
            ),
        ],
        args: "audit {dir}/a.log --snapshot {dir}/s",
        message: "crawlaudit: error: {dir}/s/shop.example/pages.jsonl, line 2: invalid type: string \"ok\", expected u16 at line 1 column 28 (a line is {\"url\": \"/path\", \"status\": 200, \"x_robots_tag\": [...], \"html\": \"...\", \"meta\": [...], \"from\": \"RFC 3339 time\"})",
    },
    Case {
        name: "pages.jsonl with a bad time",
        files: &[
            ("a.log", LINE.as_bytes()),
            (
                "s/shop.example/pages.jsonl",
                b"{\"url\": \"/a\", \"from\": \"2026-13-01T00:00:00Z\"}\n",
            ),
        ],
        args: "audit {dir}/a.log --snapshot {dir}/s",
        message: "crawlaudit: error: {dir}/s/shop.example/pages.jsonl, line 1: \"from\": \"2026-13-01T00:00:00Z\" is not an RFC 3339 time (failed to parse two digit integer as month: parameter 'month' is not in the required range of 1..=12)",
    },
    Case {
        name: "not a WARC file",
        files: &[
            ("a.log", LINE.as_bytes()),
            ("x.warc", b"<html>oops</html>\n"),
        ],
        args: "audit {dir}/a.log --snapshot {dir}/x.warc",
        message: "crawlaudit: error: {dir}/x.warc, byte 0: a record must start with a WARC/1.x line, found \"<html>oops</html>\"",
    },
    Case {
        name: "catalogue with a missing field",
        files: &[
            ("a.log", LINE.as_bytes()),
            ("bots.toml", b"[[crawler]]\nname = \"X\"\n"),
        ],
        args: "audit {dir}/a.log --snapshot {demo}/snapshot --bots {dir}/bots.toml",
        message: "crawlaudit: error: crawler catalogue {dir}/bots.toml, line 1, column 1: missing field `category`",
    },
    Case {
        name: "catalogue that is not TOML",
        files: &[
            ("a.log", LINE.as_bytes()),
            ("bots.toml", b"\n\nnot toml [\n"),
        ],
        args: "audit {dir}/a.log --snapshot {demo}/snapshot --bots {dir}/bots.toml",
        message: "crawlaudit: error: crawler catalogue {dir}/bots.toml, line 3, column 5: key with no value, expected `=`",
    },
    Case {
        name: "missing catalogue",
        files: &[("a.log", LINE.as_bytes())],
        args: "audit {dir}/a.log --snapshot {demo}/snapshot --bots {dir}/bots.toml",
        message: "crawlaudit: error: cannot read crawler catalogue {dir}/bots.toml: No such file or directory (os error 2)",
    },
    Case {
        name: "IP ranges given as a file",
        files: &[
            ("a.log", LINE.as_bytes()),
            ("ranges.txt", b"66.249.64.0/19\n"),
        ],
        args: "audit {dir}/a.log --snapshot {demo}/snapshot --ip-ranges {dir}/ranges.txt",
        message: "crawlaudit: error: cannot read IP range {dir}/ranges.txt: Not a directory (os error 20) (give a directory of range files, as `crawlaudit ranges update DIR` writes)",
    },
    Case {
        name: "IP range file with a bad prefix",
        files: &[
            ("a.log", LINE.as_bytes()),
            ("ranges/googlebot.txt", b"66.249.64.0/19\n1.2.3.4/40\n"),
        ],
        args: "audit {dir}/a.log --snapshot {demo}/snapshot --ip-ranges {dir}/ranges",
        message: "crawlaudit: error: IP range file {dir}/ranges/googlebot.txt, line 2: \"1.2.3.4/40\" is not an IP address or prefix (expected e.g. 66.249.64.0/19)",
    },
    Case {
        name: "bad --site",
        files: &[("a.log", LINE.as_bytes())],
        args: "audit {dir}/a.log --snapshot {demo}/snapshot --site shop_example",
        message: "crawlaudit: error: --site \"shop_example\": not a host name (letters, digits, '-' and '.', e.g. example.com or shop.example:8080)",
    },
    Case {
        name: "empty window",
        files: &[("a.log", LINE.as_bytes())],
        args: "audit {dir}/a.log --snapshot {demo}/snapshot --since 2026-11-05 --until 2026-11-01",
        message: "crawlaudit: error: --since is not before --until: the audit window would be empty",
    },
    Case {
        name: "bad --fail-on",
        files: &[("a.log", LINE.as_bytes())],
        args: "audit {dir}/a.log --snapshot {demo}/snapshot --fail-on disallowed",
        message: "crawlaudit: error: --fail-on: unknown kind \"disallowed\" (disallow, crawl-delay, noindex, unavailable-after, any)",
    },
    Case {
        name: "bad --output-formats",
        files: &[("a.log", LINE.as_bytes())],
        args: "audit {dir}/a.log --snapshot {demo}/snapshot --output-formats csv,xml",
        message: "crawlaudit: error: --output-formats: unknown format \"xml\" (csv, parquet, json, html)",
    },
    Case {
        name: "bad --json-fields",
        files: &[("a.log", LINE.as_bytes())],
        args: "audit {dir}/a.log --snapshot {demo}/snapshot --json-fields ua",
        message: "crawlaudit: error: --json-fields: \"ua\" is not name=key (names: time, ip, method, uri, request, protocol, status, bytes, referer, user_agent, host, query)",
    },
    Case {
        name: "bad --since",
        files: &[],
        args: "audit --since yesterday",
        message: "crawlaudit: error: invalid value 'yesterday' for '--since <TIME>': \"yesterday\" is not a time: write 2026-11-01T00:00:00Z or 2026-11-01 (see crawlaudit audit --help)",
    },
    Case {
        name: "bad --robots-cache-grace",
        files: &[],
        args: "audit --robots-cache-grace 5x",
        message: "crawlaudit: error: invalid value '5x' for '--robots-cache-grace <DURATION>': \"5x\" is not a duration: write e.g. 24h, 30m, 90s, 2d or 1h30m (see crawlaudit audit --help)",
    },
    Case {
        name: "unknown --format",
        files: &[],
        args: "audit --format apache",
        message: "crawlaudit: error: invalid value 'apache' for '--format <FORMAT>': unknown log format \"apache\" (auto, combined, common, vhost_combined, vhost_common, gandi, json, json:cloudflare, json:gcp, json:azure, json:fastly, json:akamai, json:traefik, w3c, alb, elb, s3, envoy, lighttpd, haproxy, parquet, csv, tsv, nginx:'<log_format>', regex:'<pattern>') (see crawlaudit audit --help)",
    },
    Case {
        name: "nginx format without a time",
        files: &[],
        args: "audit --format nginx:$remote_addr",
        message: "crawlaudit: error: invalid value 'nginx:$remote_addr' for '--format <FORMAT>': invalid log format \"$remote_addr\": it has no time ($time_local, $time_iso8601 or $msec) (see crawlaudit audit --help)",
    },
    Case {
        name: "regex format that is no regex",
        files: &[],
        args: r"audit --format regex:(?P<time>\S+)\s(?P<uri>[^\s+)",
        message: r"crawlaudit: error: invalid value 'regex:(?P<time>\S+)\s(?P<uri>[^\s+)' for '--format <FORMAT>': regex: invalid pattern: unclosed character class at character 24 (see crawlaudit audit --help)",
    },
    Case {
        name: "regex format with an unknown group name",
        files: &[],
        args: r"audit --format regex:(?P<time>\S+)\s(?P<url>\S+)",
        message: r#"crawlaudit: error: invalid value 'regex:(?P<time>\S+)\s(?P<url>\S+)' for '--format <FORMAT>': regex: unknown group name "url" (fields: time, ip, method, uri, request, protocol, status, bytes, referer, user_agent, host; a time in parts: year, month, day, hour, minute, second, zone; write other groups as (?:...)) (see crawlaudit audit --help)"#,
    },
    Case {
        name: "regex format without a time",
        files: &[],
        args: r"audit --format regex:(?P<ip>\S+)\s(?P<uri>\S+)",
        message: r"crawlaudit: error: invalid value 'regex:(?P<ip>\S+)\s(?P<uri>\S+)' for '--format <FORMAT>': regex: no time: name a (?P<time>...) group, or year, month, day, hour and minute groups (see crawlaudit audit --help)",
    },
    Case {
        name: "regex format without a request",
        files: &[],
        args: r"audit --format regex:(?P<time>\S+)\s(?P<status>\d+)",
        message: r"crawlaudit: error: invalid value 'regex:(?P<time>\S+)\s(?P<status>\d+)' for '--format <FORMAT>': regex: no request: name a (?P<request>...) group (`GET /path HTTP/1.1`) or a (?P<uri>...) group (see crawlaudit audit --help)",
    },
    Case {
        name: "csv log with an unknown --csv-fields column",
        files: &[("a.csv", b"timestamp,url\n2026-11-01T10:00:00Z,/\n")],
        args: "audit {dir}/a.csv --snapshot {demo}/snapshot --format csv --csv-fields time=When",
        message: r#"crawlaudit: error: {dir}/a.csv: --csv-fields time=When: the header has no column "When" (columns: timestamp, url)"#,
    },
    Case {
        name: "csv log without a time column",
        files: &[("a.csv", b"url,status\n/,200\n")],
        args: "audit {dir}/a.csv --snapshot {demo}/snapshot --format csv",
        message: "crawlaudit: error: {dir}/a.csv: no time column in the header (columns: url, status): name it with --csv-fields time=COLUMN",
    },
    Case {
        name: "bad --csv-fields",
        files: &[],
        args: "audit --format tsv --csv-fields when=When",
        message: r#"crawlaudit: error: --csv-fields: unknown field "when" (names: time, ip, method, uri, request, protocol, status, bytes, referer, user_agent, host)"#,
    },
    Case {
        name: "--csv-fields without a csv format",
        files: &[],
        args: "audit --csv-fields time=When",
        message: "crawlaudit: error: --csv-fields needs --format csv or --format tsv (not auto)",
    },
    Case {
        name: "report directory that cannot be made",
        files: &[("a.log", LINE.as_bytes()), ("file", b"")],
        args: "audit {dir}/a.log --snapshot {demo}/snapshot --out {dir}/file/reports",
        message: "crawlaudit: error: the report was not written to {dir}/file/reports: cannot write {dir}/file: a file, not a directory: choose another --out",
    },
    Case {
        name: "check: missing robots.txt",
        files: &[],
        args: "check {dir}/robots.txt Googlebot /a",
        message: "crawlaudit: error: cannot read robots.txt file {dir}/robots.txt: No such file or directory (os error 2)",
    },
    Case {
        name: "rules: missing HTML file",
        files: &[],
        args: "rules --agent Googlebot --html {dir}/page.html",
        message: "crawlaudit: error: cannot read HTML file {dir}/page.html: No such file or directory (os error 2)",
    },
    Case {
        name: "rules: bad --at",
        files: &[],
        args: "rules --agent Googlebot --snapshot {demo}/snapshot --at never /a",
        message: "crawlaudit: error: --at \"never\" is not a time: write 2026-11-01T12:00:00Z or 2026-11-01: failed to parse four digit integer as year: invalid digit, expected 0-9 but got n",
    },
    Case {
        name: "a robots.txt given as the snapshot",
        files: &[
            ("a.log", LINE.as_bytes()),
            ("robots.txt", b"User-agent: *\nDisallow: /x\n"),
        ],
        args: "audit {dir}/a.log --snapshot {dir}/robots.txt",
        message: "crawlaudit: error: {dir}/robots.txt: not a snapshot: a snapshot is a directory with one folder per site (SNAPSHOT/example.com/robots.txt, optional SNAPSHOT/example.com/robots/ history and pages.jsonl) or WARC files (.warc, .warc.gz); to audit against one robots.txt, put it at SNAPSHOT/HOST/robots.txt and give --snapshot SNAPSHOT",
    },
    Case {
        name: "--out names a file",
        files: &[("a.log", LINE.as_bytes()), ("precious.html", b"mine")],
        args: "audit {dir}/a.log --snapshot {demo}/snapshot --out {dir}/precious.html",
        message: "crawlaudit: error: --out {dir}/precious.html: a file, not a report directory: crawlaudit writes a directory and never replaces a file; choose another --out",
    },
    Case {
        name: "no log could be read",
        files: &[("a.log.bz2", b"BZh91AY&SY")],
        args: "audit {dir}/a.log.bz2 --snapshot {demo}/snapshot --out {dir}/r --allow-partial",
        message: "crawlaudit: error: {dir}/a.log.bz2: the bzip2 stream is corrupt or truncated near compressed byte 10 (decompression not finished but EOF reached): the lines before it were used; give --allow-partial to accept them",
    },
    Case {
        name: "an unknown option",
        files: &[],
        args: "audit --bogus",
        message: "crawlaudit: error: unexpected argument '--bogus' found; a similar argument exists: '--bots' (see crawlaudit audit --help)",
    },
];

fn write_files(dir: &Path, files: &[(&str, &[u8])]) {
    for (name, bytes) in files {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::File::create(&path)
            .unwrap()
            .write_all(bytes)
            .unwrap();
    }
}

#[test]
fn every_user_error_has_its_pinned_message() {
    let mut failures = Vec::new();
    for (i, case) in CASES.iter().enumerate() {
        let dir = common::fresh_dir(&format!("errors-{i}"));
        write_files(&dir, case.files);
        let d = dir.to_str().unwrap();
        let args: Vec<String> = case
            .args
            .split(' ')
            .map(|a| a.replace("{dir}", d).replace("{demo}", DEMO))
            .collect();
        let quiet = (args[0] == "audit").then_some("--quiet");
        let out = Command::new(env!("CARGO_BIN_EXE_crawlaudit"))
            .args(&args)
            .args(quiet)
            .current_dir(&dir)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        // The error's line (warnings may come before it).
        let first = stderr
            .lines()
            .find(|l| l.starts_with("crawlaudit: error:"))
            .unwrap_or_else(|| stderr.lines().next().unwrap_or(""));
        let want = case.message.replace("{dir}", d);
        if out.status.code() != Some(2) || first != want {
            failures.push(format!(
                "{}: exit {:?}\n  want: {want}\n  got:  {first}",
                case.name,
                out.status.code()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// 2000 log lines, each distinct.
fn lines() -> String {
    (0..2000)
        .map(|i| LINE.replace("GET /", &format!("GET /{i}")))
        .collect()
}

/// Runs `audit` on `compressed` cut in half and returns the path and stderr.
fn audit_cut(dir: &Path, name: &str, compressed: &[u8]) -> (std::path::PathBuf, String) {
    let path = dir.join(name);
    std::fs::write(&path, &compressed[..compressed.len() / 2]).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_crawlaudit"))
        .args(["audit", path.to_str().unwrap(), "--snapshot"])
        .arg(Path::new(DEMO).join("snapshot"))
        .args(["--out", dir.join("out").to_str().unwrap(), "--quiet"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    (path, String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn a_truncated_zstd_or_bzip2_log_names_the_file_and_the_offset() {
    let dir = common::fresh_dir("errors-zstd-bzip2");
    let text = lines();
    let zst = zstd::stream::encode_all(text.as_bytes(), 3).unwrap();
    let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
    bz.write_all(text.as_bytes()).unwrap();
    let bz = bz.finish().unwrap();
    for (name, kind, compressed, why) in [
        ("a.log.zst", "zstd", zst, "incomplete frame"),
        (
            "a.log.bz2",
            "bzip2",
            bz,
            "decompression not finished but EOF reached",
        ),
    ] {
        let (path, stderr) = audit_cut(&dir, name, &compressed);
        let want = format!(
            "crawlaudit: error: {}: the {kind} stream is corrupt or truncated near compressed byte {} ({why}): the lines before it were used; give --allow-partial to accept them",
            path.display(),
            compressed.len() / 2
        );
        assert_eq!(stderr.lines().next(), Some(want.as_str()), "{stderr}");
    }
}

#[test]
fn a_truncated_gzip_log_names_the_file_and_the_offset() {
    let dir = common::fresh_dir("errors-gzip");
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(lines().as_bytes()).unwrap();
    let gz = e.finish().unwrap();
    let (path, stderr) = audit_cut(&dir, "a.log.gz", &gz);
    let want = format!(
        "crawlaudit: error: {}: the gzip stream is corrupt or truncated near compressed byte {} (",
        path.display(),
        gz.len() / 2
    );
    let error = stderr
        .lines()
        .find(|l| l.starts_with("crawlaudit: error:"))
        .unwrap_or_default();
    assert!(error.starts_with(&want), "want {want}... got {stderr}");
    assert!(
        error.ends_with("): the lines before it were used; give --allow-partial to accept them"),
        "{stderr}"
    );
}

/// The warnings (exit 0, the report written): each pinned as a line of
/// stderr and kept in `summary.json`'s `warnings`. `{dir}` and `{demo}` as
/// in [`CASES`].
const WARNINGS: &[Case] = &[
    Case {
        name: "no --ip-ranges",
        files: &[("a.log", LINE.as_bytes())],
        args: "audit {dir}/a.log --snapshot {demo}/snapshot",
        message: "crawlaudit: warning: no --ip-ranges: claimed crawlers are not checked against their published addresses, so impersonators are not found (verified is null)",
    },
    Case {
        name: "--site not in the snapshot",
        files: &[("c.log", COMBINED.as_bytes())],
        args: "audit {dir}/c.log --snapshot {demo}/snapshot --site nope.example",
        message: "crawlaudit: warning: --site nope.example is not a host of the snapshot (blog.example, shop.example): requests without a host are charged to it and not judged (unknown-host)",
    },
    Case {
        name: "host-less lines with a two-host snapshot",
        files: &[("c.log", COMBINED.as_bytes())],
        args: "audit {dir}/c.log --snapshot {demo}/snapshot",
        message: "crawlaudit: warning: 2 requests name no host and the snapshot describes 2 hosts (blog.example, shop.example): they were not judged; give --site HOST to say which site the log is of",
    },
    Case {
        name: "a window without requests",
        files: &[("a.log", LINE.as_bytes())],
        args: "audit {dir}/a.log --snapshot {demo}/snapshot --since 2030-01-01",
        message: "crawlaudit: warning: no request falls in the window (2030-01-01T00:00:00Z to the end): all 1 requests were outside it",
    },
    Case {
        name: "many bad lines",
        files: &[("a.log", BAD_LINES.as_bytes())],
        args: "audit {dir}/a.log --snapshot {demo}/snapshot --format vhost_combined",
        message: "crawlaudit: warning: {dir}/a.log: 1 of 2 lines (50.0%) could not be read as vhost_combined: is --format right? (samples in summary.json)",
    },
    Case {
        name: "no --snapshot",
        files: &[("a.log", LINE.as_bytes())],
        args: "audit {dir}/a.log",
        message: "crawlaudit: warning: no --snapshot: no host can be judged; only findings are reported",
    },
];

/// Two combined lines (no host) of a crawler.
const COMBINED: &str = "192.0.2.1 - - [01/Nov/2026:10:00:00 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"GPTBot/1.2\"\n192.0.2.1 - - [01/Nov/2026:10:00:01 +0000] \"GET /x HTTP/1.1\" 200 1 \"-\" \"GPTBot/1.2\"\n";

/// One good line, one that is not a log line.
const BAD_LINES: &str = "shop.example:443 192.0.2.1 - - [01/Nov/2026:10:00:00 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"x\"\nnot a log line\n";

#[test]
fn every_warning_has_its_pinned_message() {
    let mut failures = Vec::new();
    for (i, case) in WARNINGS.iter().enumerate() {
        let dir = common::fresh_dir(&format!("warnings-{i}"));
        write_files(&dir, case.files);
        let d = dir.to_str().unwrap();
        let mut args: Vec<String> = case
            .args
            .split(' ')
            .map(|a| a.replace("{dir}", d).replace("{demo}", DEMO))
            .collect();
        args.extend(["--quiet".into(), "--out".into(), format!("{d}/out")]);
        let out = Command::new(env!("CARGO_BIN_EXE_crawlaudit"))
            .args(&args)
            .current_dir(&dir)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let want = case.message.replace("{dir}", d);
        let summary: serde_json::Value = std::fs::read(dir.join("out/summary.json"))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default();
        let kept = summary["warnings"].as_array().is_some_and(|w| {
            w.iter().any(|w| {
                Some(w.as_str().unwrap_or("")) == want.strip_prefix("crawlaudit: warning: ")
            })
        });
        if out.status.code() != Some(0) || !stderr.lines().any(|l| l == want) || !kept {
            failures.push(format!(
                "{}: exit {:?}, in summary.json: {kept}\n  want: {want}\n  got:  {stderr}",
                case.name,
                out.status.code()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

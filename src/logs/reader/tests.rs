//! Reader tests: chunking, streams, gzip, zstd and bzip2 faults, accounting.

use std::io::Write;

use flate2::write::GzEncoder;

use super::*;

/// Keeps (line target, status) of every request, to compare reads.
#[derive(Debug, Default)]
struct Keep(Vec<(Vec<u8>, u16, i64)>);

impl Sink for Keep {
    fn record(&mut self, r: &Request<'_>) {
        self.0.push((r.target().to_vec(), r.status(), r.time()));
    }
}

fn flat(sinks: Vec<Keep>) -> Vec<(Vec<u8>, u16, i64)> {
    sinks.into_iter().flat_map(|k| k.0).collect()
}

fn line(i: usize) -> String {
    format!(
        "10.0.0.{} - - [01/Jan/2024:00:{:02}:{:02} +0000] \"GET /p{i}?x=1 HTTP/1.1\" 200 {i} \"-\" \"UA {i}\"\n",
        i % 250,
        (i / 60) % 60,
        i % 60
    )
}

fn temp(name: &str, data: &[u8]) -> std::path::PathBuf {
    let dir = crate::test_dirs::process_dir().join("reader");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, data).unwrap();
    path
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn zstd(data: &[u8]) -> Vec<u8> {
    zstd::stream::encode_all(data, 3).unwrap()
}

fn bzip2(data: &[u8]) -> Vec<u8> {
    let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// A zstd skippable frame (pzstd writes one before each frame).
fn skippable(payload: &[u8]) -> Vec<u8> {
    let mut frame = vec![0x5E, 0x2A, 0x4D, 0x18];
    frame.extend((payload.len() as u32).to_le_bytes());
    frame.extend_from_slice(payload);
    frame
}

fn read(path: &std::path::Path, chunk: usize) -> (Vec<(Vec<u8>, u16, i64)>, FileReport) {
    let options = ReadOptions {
        format: Format::Auto,
        chunk_size: chunk,
    };
    let (sinks, report) = read_input(&Input::File(path.to_path_buf()), &options, &Keep::default);
    (flat(sinks), report)
}

#[test]
fn mapped_chunks_equal_one_chunk_and_gzip() {
    let text: String = (0..3000).map(line).collect();
    let plain = temp("plain.log", text.as_bytes());
    let (whole, r1) = read(&plain, 1 << 30);
    assert_eq!(
        (r1.lines, r1.parsed, r1.bad, r1.format.as_str()),
        (3000, 3000, 0, "combined")
    );
    for chunk in [1, 100, 4096, 65536] {
        let (got, r) = read(&plain, chunk);
        assert_eq!(got, whole, "chunk size {chunk}");
        assert_eq!(r.lines, 3000);
    }
    // The same bytes as one gzip member, and as several concatenated members.
    let gz = temp("one.log.gz", &gzip(text.as_bytes()));
    let (got, r) = read(&gz, 70_000);
    assert_eq!(got, whole);
    assert!(r.compressed && r.fault.is_none());
    assert_eq!(r.bytes, text.len() as u64);
    let (a, b) = text.split_at(text.len() / 3);
    let mut multi = gzip(a.as_bytes());
    multi.extend(gzip(b.as_bytes()));
    let (got, r) = read(&temp("multi.log.gz", &multi), 70_000);
    assert_eq!(got, whole, "multi-member gzip");
    assert_eq!(r.lines, 3000);
}

#[test]
fn truncated_gzip_is_a_fault_and_keeps_what_was_read() {
    let text: String = (0..20000).map(line).collect();
    let gz = gzip(text.as_bytes());
    let cut = temp("cut.log.gz", &gz[..gz.len() / 2]);
    let (got, r) = read(&cut, 64 << 10);
    let fault = r.fault.expect("a truncated gzip is a fault");
    assert!(
        fault.contains("gzip stream is corrupt or truncated near compressed byte"),
        "{fault}"
    );
    assert!(
        !got.is_empty() && got.len() < 20000,
        "{} lines kept",
        got.len()
    );
    assert_eq!(
        got[..],
        flat(vec![Keep(
            (0..got.len())
                .map(|i| (format!("/p{i}?x=1").into_bytes(), 200, got[i].2))
                .collect()
        )])[..]
    );
    let mut corrupt = gz.clone();
    let mid = corrupt.len() / 2;
    for b in &mut corrupt[mid..mid + 64] {
        *b ^= 0x5A;
    }
    let (_, r) = read(&temp("corrupt.log.gz", &corrupt), 64 << 10);
    assert!(r.fault.is_some());
}

#[test]
fn hard_lines_are_accounted() {
    let mut data = Vec::new();
    data.extend_from_slice(line(1).trim_end().as_bytes());
    data.extend_from_slice(b"\r\n\n   \n");
    data.extend_from_slice(b"not a log line\n");
    // Over 64 KiB in one line, invalid UTF-8 in a field.
    let long_ua = "x".repeat(70_000);
    data.extend_from_slice(format!("1.2.3.4 - - [01/Jan/2024:00:00:00 +0000] \"GET /long HTTP/1.1\" 200 1 \"-\" \"{long_ua}\"\n").as_bytes());
    data.extend_from_slice(b"1.2.3.4 - - [01/Jan/2024:00:00:00 +0000] \"GET /\xff\xfe HTTP/1.1\" 200 1 \"-\" \"\xc3\"\n");
    data.extend_from_slice(
        b"1.2.3.4 - - [01/Jan/2024:00:00:99 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"-\"\n",
    );
    // The last line has no newline.
    data.extend_from_slice(line(2).trim_end().as_bytes());
    for chunk in [1, 50, 1 << 20] {
        let (got, r) = read(&temp("hard.log", &data), chunk);
        assert_eq!(r.lines, 8, "chunk {chunk}");
        assert_eq!((r.parsed, r.empty, r.bad), (4, 2, 2), "chunk {chunk}");
        let targets: Vec<Vec<u8>> = got.iter().map(|g| g.0.clone()).collect();
        assert_eq!(
            targets,
            [
                b"/p1?x=1".to_vec(),
                b"/long".to_vec(),
                b"/\xff\xfe".to_vec(),
                b"/p2?x=1".to_vec()
            ]
        );
        assert_eq!(
            r.samples
                .iter()
                .map(|s| (s.line, s.reason.as_str()))
                .collect::<Vec<_>>(),
            [(4, "layout"), (7, "time")]
        );
        assert_eq!(r.bad_by_reason.get("layout"), Some(&1));
        assert_eq!(r.samples[0].text, "not a log line");
    }
}

#[test]
fn samples_are_capped_and_numbered_across_chunks() {
    let mut text = String::new();
    for i in 0..100 {
        text.push_str(&line(i));
        text.push_str("garbage\n");
    }
    let (_, r) = read(&temp("garbage.log", text.as_bytes()), 300);
    assert_eq!((r.lines, r.parsed, r.bad), (200, 100, 100));
    assert_eq!(r.samples.len(), 10);
    assert_eq!(
        r.samples.iter().map(|s| s.line).collect::<Vec<_>>(),
        [2, 4, 6, 8, 10, 12, 14, 16, 18, 20]
    );
}

#[test]
fn w3c_fields_carry_across_chunks_and_blocks() {
    let mut text = String::from(
        "#Software: Microsoft Internet Information Services 10.0\n#Fields: date time c-ip cs-method cs-uri-stem sc-status cs(User-Agent)\n",
    );
    for i in 0..500 {
        text.push_str(&format!(
            "2024-05-01 00:00:{:02} 1.2.3.4 GET /a{i} 200 UA+{i}\n",
            i % 60
        ));
        if i == 250 {
            text.push_str("#Fields: date time c-ip cs-method cs-uri-stem cs-uri-query sc-status cs(User-Agent)\n");
        }
    }
    text.push_str("2024-05-01 00:00:00 1.2.3.4 GET /last q=1 404 UA\n");
    let plain = temp("iis.log", text.as_bytes());
    for chunk in [1, 1000, 1 << 20] {
        let (got, r) = read(&plain, chunk);
        assert_eq!(
            (r.format.as_str(), r.directives, r.bad),
            ("w3c", 3, 249),
            "chunk {chunk}"
        );
        assert_eq!(got.last().unwrap().0, b"/last?q=1");
    }
    // In windows of a few lines each, several in flight: the directive is
    // carried from window to window, in order.
    let (whole, _) = read(&plain, 1 << 20);
    for window in [4096, 10_000] {
        let (got, r) = read_windowed(&plain, text.len() as u64, window, Format::Auto, 1000);
        assert_eq!((r.directives, r.bad), (3, 249), "window {window}");
        assert!(got == whole, "window {window}");
    }
    let (got, r) = read(&temp("iis.log.gz", &gzip(text.as_bytes())), 1);
    assert_eq!((r.directives, r.bad), (3, 249));
    assert_eq!(got.last().unwrap().0, b"/last?q=1");
}

#[test]
fn zstd_and_bzip2_read_like_plain_files_and_stdin() {
    // File names of their own: tests run in parallel in one directory.
    let text: String = (0..3000).map(line).collect();
    let (whole, _) = read(&temp("cmp-plain.log", text.as_bytes()), 1 << 20);
    assert_eq!(whole.len(), 3000);
    // Split mid-line: frames and streams need not end at line ends.
    let (a, rest) = text.as_bytes().split_at(text.len() / 3 + 7);
    let (b, c) = rest.split_at(rest.len() / 2);
    // Frames one after another, an empty one and skippable ones among them.
    let mut zstd_multi = zstd(a);
    zstd_multi.extend(zstd(b""));
    zstd_multi.extend(skippable(b"not log text\n"));
    zstd_multi.extend(zstd(b));
    zstd_multi.extend(zstd(c));
    zstd_multi.extend(skippable(b""));
    // As pzstd writes it: a skippable frame (holding the next frame's
    // size) before each frame, so the file starts with one.
    let mut pzstd = Vec::new();
    for part in [a, b, c] {
        let frame = zstd(part);
        pzstd.extend(skippable(&(frame.len() as u32).to_le_bytes()));
        pzstd.extend(frame);
    }
    // Streams one after another (`cat a.bz2 b.bz2`, `pbzip2`).
    let mut bzip2_multi = bzip2(a);
    bzip2_multi.extend(bzip2(b));
    bzip2_multi.extend(bzip2(c));
    let cases = [
        ("cmp-one.log.zst", zstd(text.as_bytes()), "zstd"),
        ("cmp-multi.log.zst", zstd_multi, "zstd"),
        ("cmp-pzstd.log.zst", pzstd, "zstd"),
        ("cmp-one.log.bz2", bzip2(text.as_bytes()), "bzip2"),
        ("cmp-multi.log.bz2", bzip2_multi, "bzip2"),
        ("cmp-one.log.gz", gzip(text.as_bytes()), "gzip"),
    ];
    for (name, bytes, kind) in cases {
        let path = temp(name, &bytes);
        for chunk in [1, 97, 8 << 20] {
            let (got, r) = read(&path, chunk);
            let what = format!("{name} chunk {chunk}");
            assert_eq!(got, whole, "{what}");
            assert_eq!(r.fault, None, "{what}");
            assert_eq!((r.lines, r.bytes), (3000, text.len() as u64), "{what}");
            assert_eq!(r.format, "combined", "{what}");
            assert!(r.compressed, "{what}");
            assert_eq!(r.compression.as_deref(), Some(kind), "{what}");
        }
        // Standard input takes the same path as a stream of any origin.
        let report = FileReport {
            path: "-".into(),
            ..FileReport::default()
        };
        let options = ReadOptions {
            format: Format::Auto,
            chunk_size: 97,
        };
        let (sinks, r) = read_stream(io::Cursor::new(bytes), report, &options, &Keep::default);
        assert_eq!(flat(sinks), whole, "{name} as a stream");
        assert_eq!((r.fault, r.compression.as_deref()), (None, Some(kind)));
    }
    let (_, r) = read(&temp("cmp-plain.log", text.as_bytes()), 1 << 20);
    assert_eq!((r.compressed, r.compression), (false, None));
}

#[test]
fn the_first_bytes_name_the_compression_not_the_file_name() {
    let text: String = (0..200).map(line).collect();
    let bytes = text.as_bytes();
    for (name, contents, kind) in [
        ("magic-zstd.log.gz", zstd(bytes), Some("zstd")),
        ("magic-gzip.log.bz2", gzip(bytes), Some("gzip")),
        ("magic-bzip2.log.zst", bzip2(bytes), Some("bzip2")),
        ("magic-bzip2.log", bzip2(bytes), Some("bzip2")),
        ("magic-plain.log.zst", bytes.to_vec(), None),
        ("magic-plain.log.bz2", bytes.to_vec(), None),
    ] {
        let (got, r) = read(&temp(name, &contents), 97);
        assert_eq!((r.fault.as_deref(), got.len()), (None, 200), "{name}");
        assert_eq!(r.compression.as_deref(), kind, "{name}");
        assert_eq!(r.compressed, kind.is_some(), "{name}");
    }
    // "BZh" not followed by a block size (1 to 9) is no bzip2 stream, and
    // a zstd skippable magic needs its third and fourth bytes.
    assert_eq!(Compression::detect(b"BZh9"), Some(Compression::Bzip2));
    assert_eq!(Compression::detect(b"BZh0"), None);
    assert_eq!(Compression::detect(b"BZhx"), None);
    assert_eq!(
        Compression::detect(&[0x5F, 0x2A, 0x4D, 0x18]),
        Some(Compression::Zstd)
    );
    assert_eq!(Compression::detect(&[0x60, 0x2A, 0x4D, 0x18]), None);
    assert_eq!(Compression::detect(&[0x28, 0xB5, 0x2F]), None);
    assert_eq!(Compression::detect(&[0x1F, 0x8B]), Some(Compression::Gzip));
}

#[test]
fn summary_json_names_only_the_compressions_after_gzip() {
    let json = |compression: Option<&str>| {
        serde_json::to_value(FileReport {
            compressed: compression.is_some(),
            compression: compression.map(str::to_string),
            ..FileReport::default()
        })
        .unwrap()
    };
    // Plain and gzip inputs: `compressed` alone, as before.
    for kind in [None, Some("gzip")] {
        let v = json(kind);
        assert_eq!(v["compressed"], kind.is_some(), "{kind:?}");
        assert!(v.get("compression").is_none(), "{kind:?}: {v}");
    }
    for kind in ["zstd", "bzip2"] {
        let v = json(Some(kind));
        assert_eq!(
            (&v["compressed"], &v["compression"]),
            (&true.into(), &kind.into())
        );
        // And back, as `merge` reads a shard's summary.
        let back: FileReport = serde_json::from_value(v).unwrap();
        assert_eq!(back.compression.as_deref(), Some(kind));
    }
}

/// Checks that `got` holds the first lines of `line(0..)`, in order.
fn assert_prefix(got: &[(Vec<u8>, u16, i64)], what: &str) {
    for (i, g) in got.iter().enumerate() {
        assert_eq!(g.0, format!("/p{i}?x=1").into_bytes(), "{what}: line {i}");
    }
}

/// Reads `data` as the file `name`, `chunk` bytes at a time, which must be
/// a fault naming the file and its broken `kind` stream; returns the
/// records read before it and the compressed offset the fault names.
fn read_broken(
    name: &str,
    data: &[u8],
    chunk: usize,
    kind: &str,
) -> (Vec<(Vec<u8>, u16, i64)>, u64) {
    let path = temp(name, data);
    let (got, r) = read(&path, chunk);
    let fault = r.fault.expect("a broken stream is a fault");
    let start = format!(
        "{}: the {kind} stream is corrupt or truncated near compressed byte ",
        path.display()
    );
    let rest = fault
        .strip_prefix(&start)
        .unwrap_or_else(|| panic!("{fault}"));
    let offset = rest[..rest.find(" (").expect(&fault)].parse().unwrap();
    (got, offset)
}

/// How much text a `kind` decoder gives from `data`, read 1 KiB at a time,
/// before it fails.
fn decodable(kind: &str, data: &[u8]) -> usize {
    let mut decoder: Box<dyn Read> = if kind == "zstd" {
        Box::new(zstd::stream::read::Decoder::new(data).unwrap())
    } else {
        Box::new(bzip2::read::MultiBzDecoder::new(data))
    };
    let mut total = 0;
    let mut buf = [0u8; 1024];
    while let Ok(n @ 1..) = decoder.read(&mut buf) {
        total += n;
    }
    total
}

#[test]
fn truncated_or_corrupt_zstd_and_bzip2_are_faults_that_keep_what_was_read() {
    let text: String = (0..20000).map(line).collect();
    for (kind, compressed) in [
        ("zstd", zstd(text.as_bytes())),
        ("bzip2", bzip2(text.as_bytes())),
    ] {
        let half = compressed.len() / 2;
        let name = |what: &str| format!("{what}-{kind}.log.z");
        let (got, near) = read_broken(&name("cut"), &compressed[..half], 64 << 10, kind);
        assert_eq!(near, half as u64, "{kind}: the end of the truncated file");
        // The last, partial, line may be cut anywhere: the others are kept.
        assert!(
            got.len() > 5000 && got.len() < 20000,
            "{kind}: {}",
            got.len()
        );
        assert_prefix(&got[..got.len() - 1], kind);
        let mut corrupt = compressed.clone();
        for b in &mut corrupt[half..half + 64] {
            *b ^= 0x5A;
        }
        // Blocks of 8 MiB, the default: read from the decoder in small
        // reads, so that one failing read does not drop the whole block.
        let (got, near) = read_broken(&name("corrupt"), &corrupt, 8 << 20, kind);
        // Near the corrupt bytes: within the compressed block that holds
        // them (zstd blocks hold at most 128 KiB of text, bzip2's 900 kB,
        // checked whole).
        let block = if kind == "zstd" {
            64 << 10
        } else {
            half as u64
        };
        assert!(
            near.abs_diff(half as u64) <= block,
            "{kind}: {near} for {half}"
        );
        // What was decompressed before the corrupt spot was used: all but
        // at most one decoder read of it, though blocks are of 8 MiB.
        let kept: usize = (0..got.len()).map(|i| line(i).len()).sum();
        let decodable = decodable(kind, &corrupt);
        assert!(
            kept <= decodable && kept + DECODE_READ + 100 >= decodable,
            "{kind}: {kept} bytes kept of {decodable}"
        );
        assert!(got.len() > 1000, "{kind}: {} lines kept", got.len());
        assert_prefix(&got[..got.len() - 1], kind);
        // Garbage after the last frame or stream: all lines, and a fault
        // at the end of the stream.
        let mut trailing = compressed.clone();
        trailing.extend_from_slice(b"garbage");
        let (got, near) = read_broken(&name("trailing"), &trailing, 64 << 10, kind);
        assert_eq!(got.len(), 20000, "{kind}");
        assert!(
            (compressed.len() as u64..=trailing.len() as u64).contains(&near),
            "{kind}: {near} for {}",
            compressed.len()
        );
    }
}

#[test]
fn a_zstd_window_over_128_mib_is_refused() {
    // `zstd --long=31` output: decoding it needs a 2 GiB window.
    let mut e = zstd::stream::write::Encoder::new(Vec::new(), 3).unwrap();
    e.window_log(31).unwrap();
    e.long_distance_matching(true).unwrap();
    e.write_all((0..100).map(line).collect::<String>().as_bytes())
        .unwrap();
    let path = temp("long31.log.zst", &e.finish().unwrap());
    let (got, r) = read(&path, 1 << 20);
    assert!(got.is_empty());
    assert_eq!(
        r.fault.expect("a window over the limit is a fault"),
        format!(
            "{}: a zstd frame near compressed byte 0 needs a window over 128 MiB (zstd's own limit; `zstd --long=28` or more writes such frames): decompress it first, e.g. `zstd -d --long=31 -c FILE | crawlaudit audit -`; the lines before it were used; give --allow-partial to accept them",
            path.display()
        )
    );
    // 128 MiB itself is read (`zstd --long`, `--ultra -22`).
    let mut e = zstd::stream::write::Encoder::new(Vec::new(), 3).unwrap();
    e.window_log(27).unwrap();
    let text: String = (0..100).map(line).collect();
    e.write_all(text.as_bytes()).unwrap();
    let (got, r) = read(&temp("long27.log.zst", &e.finish().unwrap()), 1 << 20);
    assert_eq!((r.fault, got.len()), (None, 100));
}

#[test]
fn unsupported_and_unreadable_inputs_are_faults() {
    let (_, r) = read(&temp("x.log.xz", b"\xFD7zXZ\0\0\x04"), 1 << 20);
    assert!(r.fault.unwrap().contains("compressed with xz"));
    // Not a bzip2 block size after "BZh": a (one-line) plain log.
    let (_, r) = read(&temp("x.log", b"BZh hello\n"), 1 << 20);
    assert!(r.fault.unwrap().contains("cannot detect the log format"));
    let (_, r) = read(&temp("x.txt", b"hello\nworld\n"), 1 << 20);
    assert!(r.fault.unwrap().contains("cannot detect the log format"));
    let (_, r) = read(std::path::Path::new("/nonexistent/access.log"), 1 << 20);
    assert!(r.fault.unwrap().contains("/nonexistent/access.log"));
    let (got, r) = read(&temp("empty.log", b""), 1 << 20);
    assert!(got.is_empty() && r.lines == 0);
}

#[test]
fn a_line_over_the_limit_that_starts_a_byte_before_a_block_ends() {
    // Blocks of MAX_LINE bytes: the first block ends one byte into the
    // long line, so the next holds exactly MAX_LINE + 1 bytes of it.
    let mut data = Vec::new();
    let mut i = 0;
    while data.len() + line(i).len() + 200 < MAX_LINE {
        data.extend_from_slice(line(i).as_bytes());
        i += 1;
    }
    let normal = i;
    let pad = MAX_LINE - 1 - data.len() - 1;
    data.extend(std::iter::repeat_n(b'x', pad));
    data.push(b'\n');
    assert_eq!(data.len(), MAX_LINE - 1);
    data.extend(std::iter::repeat_n(b'a', 2 << 20));
    data.push(b'\n');
    data.extend_from_slice(line(i).as_bytes());
    let (got, r) = read(&temp("one-byte-before.log.gz", &gzip(&data)), MAX_LINE);
    assert_eq!(r.fault, None);
    assert_eq!((r.lines, r.parsed), (normal as u64 + 3, normal as u64 + 1));
    assert_eq!(r.bad_by_reason.get("too-long"), Some(&1));
    assert_eq!(r.bytes, data.len() as u64);
    assert_eq!(got.len(), normal + 1);
}

#[test]
fn lines_over_the_limit_are_counted_and_skipped() {
    // Normal lines around one 3 MiB line, plain and gzip, several chunk
    // sizes; the stream path skips the long line block by block.
    let mut data = Vec::new();
    data.extend_from_slice(line(1).as_bytes());
    data.extend_from_slice(b"1.2.3.4 - - [01/Jan/2024:00:00:00 +0000] \"GET /");
    data.extend(std::iter::repeat_n(b'a', 3 << 20));
    data.extend_from_slice(b" HTTP/1.1\" 200 1 \"-\" \"-\"\n");
    data.extend_from_slice(line(2).as_bytes());
    // A file that ends inside a second long line.
    let mut unterminated = data.clone();
    unterminated.extend(std::iter::repeat_n(b'z', MAX_LINE + 10));
    for (name, bytes, lines) in [("long.log", &data, 3), ("long-end.log", &unterminated, 4)] {
        for (file, contents) in [
            (name.to_string(), bytes.clone()),
            (format!("{name}.gz"), gzip(bytes)),
            (format!("{name}.zst"), zstd(bytes)),
            (format!("{name}.bz2"), bzip2(bytes)),
        ] {
            for chunk in [4 << 10, 1 << 20] {
                let (got, r) = read(&temp(&file, &contents), chunk);
                let what = format!("{file} chunk {chunk}");
                assert_eq!(r.fault, None, "{what}");
                assert_eq!(r.lines, lines, "{what}");
                assert_eq!(r.parsed, 2, "{what}");
                assert_eq!(r.bad, lines - 2, "{what}");
                assert_eq!(
                    r.bad_by_reason.get("too-long"),
                    Some(&(lines - 2)),
                    "{what}"
                );
                assert_eq!(r.bytes, bytes.len() as u64, "{what}");
                assert_eq!(r.samples[0].line, 2, "{what}");
                assert_eq!(r.samples[0].text.len(), SAMPLE_BYTES, "{what}");
                let targets: Vec<&[u8]> = got.iter().map(|g| &g.0[..]).collect();
                assert_eq!(targets, [&b"/p1?x=1"[..], b"/p2?x=1"], "{what}");
            }
        }
    }
}

/// Reads `path` as if it was `len` bytes long when opened (its length
/// before a truncation), `window` bytes at a time.
fn read_as_opened(
    path: &std::path::Path,
    len: u64,
    window: usize,
) -> (Vec<(Vec<u8>, u16, i64)>, FileReport) {
    read_windowed(path, len, window, Format::Auto, 4096)
}

/// [`read_as_opened`] in `format`, in chunks of `chunk` bytes.
fn read_windowed(
    path: &std::path::Path,
    len: u64,
    window: usize,
    format: Format,
    chunk: usize,
) -> (Vec<(Vec<u8>, u16, i64)>, FileReport) {
    let options = ReadOptions {
        format,
        chunk_size: chunk,
    };
    let report = FileReport {
        path: path.display().to_string(),
        ..FileReport::default()
    };
    let file = File::open(path).unwrap();
    let (sinks, report) = read_plain(path, file, len, window, report, &options, &Keep::default);
    (flat(sinks), report)
}

/// Cuts the file at `path` to `len` bytes, as logrotate's copytruncate
/// empties it.
fn cut_to(path: &std::path::Path, len: u64) {
    let file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    file.set_len(len).unwrap();
}

/// Where the first window of `window` bytes of `text` ends: after its last
/// line end.
fn first_window_end(text: &str, window: usize) -> usize {
    text.as_bytes()[..window]
        .iter()
        .rposition(|&b| b == b'\n')
        .unwrap()
        + 1
}

#[test]
fn a_file_truncated_while_read_is_a_fault_not_a_crash() {
    // logrotate's copytruncate empties the file the reader has open: what
    // was seen at open is no longer there. Reading the second window finds
    // the end of the file; the first window's lines are kept.
    let text: String = (0..3000).map(line).collect();
    let path = temp("copytruncate.log", text.as_bytes());
    let len = text.len() as u64;
    let window = 64 << 10;
    let cut = window as u64 + 1000;
    cut_to(&path, cut);
    let (got, r) = read_as_opened(&path, len, window);
    let fault = r.fault.expect("a truncated file is a fault");
    let first_end = first_window_end(&text, window);
    let expected = format!(
        "{} shrank while it was read ({window} bytes expected at byte {first_end}; the file now ends at {cut}): was it truncated (logrotate copytruncate)?",
        path.display()
    );
    assert!(fault.starts_with(&expected), "{fault}");
    let kept = text[..first_end].lines().count();
    assert_eq!((r.lines as usize, got.len()), (kept, kept));
    assert_eq!(r.bytes, first_end as u64);
    assert_eq!(got[kept - 1].0, format!("/p{}?x=1", kept - 1).into_bytes());
    // Emptied before the first byte was read: a fault at byte 0.
    std::fs::File::create(&path).unwrap();
    let (got, r) = read_as_opened(&path, len, window);
    assert!(got.is_empty() && r.lines == 0);
    assert!(
        r.fault.unwrap().contains("the file now ends at 0"),
        "emptied file"
    );
}

/// A sink that cuts its file to `cut` bytes when it records the line whose
/// target is `at` (that is, while the window holding it is being parsed).
struct CutAt {
    path: std::path::PathBuf,
    at: Vec<u8>,
    cut: u64,
    kept: Keep,
}

impl Sink for CutAt {
    fn record(&mut self, r: &Request<'_>) {
        if r.target() == self.at {
            cut_to(&self.path, self.cut);
        }
        self.kept.record(r);
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_mapped_window_cut_under_the_reader_reads_zeros_and_says_so() {
    // Without the SIGBUS handler, touching the pages past the new end
    // kills the test process.
    let text: String = (0..3000).map(line).collect();
    let path = temp("mapped-cut.log", text.as_bytes());
    let file = File::open(&path).unwrap();
    let window = super::mapped::Mapped::map(&file, 100, text.len() - 100).expect("mapped");
    assert!(!window.cut_short());
    assert_eq!(window.bytes(), &text.as_bytes()[100..]);
    let cut = 40_000;
    cut_to(&path, cut);
    let bytes = window.bytes();
    // The bytes past the cut: zeros (the last page's tail by the kernel,
    // the pages after it by the handler), not the file's.
    assert!(bytes[(cut - 100) as usize..].iter().all(|&b| b == 0));
    assert_eq!(
        &bytes[..(cut - 100) as usize],
        &text.as_bytes()[100..cut as usize]
    );
    assert!(window.cut_short(), "the fault is recorded");
    drop(window);
    // A new map of the same slot starts clean.
    let again = super::mapped::Mapped::map(&file, 0, 4096).expect("mapped");
    assert!(!again.cut_short());
}

#[test]
fn a_file_cut_while_a_window_is_parsed_is_a_fault_and_keeps_the_windows_before() {
    // The cut comes while the second window is parsed (its pages were
    // already mapped): the second window's lines are not the file's any
    // more and are dropped; the first window's are kept.
    let text: String = (0..3000).map(line).collect();
    let path = temp("cut-while-parsed.log", text.as_bytes());
    let len = text.len() as u64;
    let window = 64 << 10;
    let first_end = first_window_end(&text, window);
    let kept = text[..first_end].lines().count();
    for cut in [first_end as u64 + 10_000, first_end as u64 + 1] {
        std::fs::write(&path, text.as_bytes()).unwrap();
        let options = ReadOptions {
            format: Format::Auto,
            chunk_size: 1 << 30,
        };
        let report = FileReport {
            path: path.display().to_string(),
            ..FileReport::default()
        };
        let at = format!("/p{}?x=1", kept + 5).into_bytes();
        let make = || CutAt {
            path: path.clone(),
            at: at.clone(),
            cut,
            kept: Keep::default(),
        };
        let file = File::open(&path).unwrap();
        let (sinks, r) = read_plain(&path, file, len, window, report, &options, &make);
        let got: Vec<_> = sinks.into_iter().flat_map(|s| s.kept.0).collect();
        let want = window.min(text.len() - first_end);
        let expected = format!(
            "{} shrank while it was read ({want} bytes expected at byte {first_end}; the file now ends at {cut})",
            path.display()
        );
        let fault = r.fault.expect("a file cut while read is a fault");
        assert!(fault.starts_with(&expected), "cut at {cut}: {fault}");
        assert_eq!((r.lines as usize, got.len()), (kept, kept), "cut at {cut}");
        assert_eq!(r.bytes, first_end as u64);
    }
}

#[test]
fn windows_of_any_size_read_the_same() {
    let text: String = (0..3000).map(line).collect();
    let path = temp("windows.log", text.as_bytes());
    let (whole, r) = read(&path, 1 << 20);
    assert_eq!(r.lines, 3000);
    for window in [MAX_LINE, 70_000 + MAX_LINE, text.len() - 1] {
        let (got, r) = read_as_opened(&path, text.len() as u64, window);
        assert_eq!(got, whole, "window {window}");
        assert_eq!((r.lines, r.bytes, r.fault), (3000, text.len() as u64, None));
    }
}

#[test]
fn many_windows_in_flight_read_as_one_window_does() {
    // Many windows, several in flight, each of many chunks, with bad lines
    // among them (and, in windows of more than MAX_LINE, a line longer
    // than the window): the requests come in file order, and the bad lines
    // are counted and sampled at their line numbers in the file, as one
    // window reads them.
    let bad_at = |i: usize| i % 997 == 5;
    let text = |long: Option<usize>| {
        let mut text = String::new();
        for i in 0..6000 {
            if Some(i) == long {
                text.push_str(&"x".repeat(MAX_LINE + 10));
                text.push('\n');
            } else if bad_at(i) {
                text.push_str(&format!("garbage line {i}\n"));
            } else {
                text.push_str(&line(i));
            }
        }
        text
    };
    let read_with = |path: &std::path::Path, len: u64, window: usize, chunk: usize| {
        read_windowed(path, len, window, Format::Combined, chunk)
    };
    // (the over-long line's number, the (window, chunk) sizes read with)
    let cases = [
        (None, &[(4096, 1), (10_000, 512), (65_536, 4096)][..]),
        (Some(3001), &[(MAX_LINE, 4096), (MAX_LINE + 12_345, 1)]),
    ];
    for (long, windows) in cases {
        let text = text(long);
        let path = temp("many-windows.log", text.as_bytes());
        let len = text.len() as u64;
        let (whole, one) = read_with(&path, len, len as usize, 1 << 30);
        let mut bad: Vec<u64> = (0..6000)
            .filter(|&i| bad_at(i) || Some(i) == long)
            .map(|i| i as u64 + 1)
            .collect();
        bad.sort_unstable();
        assert_eq!(
            (one.lines, one.bad, one.fault.as_deref()),
            (6000, bad.len() as u64, None)
        );
        assert_eq!(one.samples.iter().map(|s| s.line).collect::<Vec<_>>(), bad);
        for &(window, chunk) in windows {
            let (got, r) = read_with(&path, len, window, chunk);
            let what = format!("long line {long:?}, window {window}, chunk {chunk}");
            assert!(got == whole, "{what}");
            assert_eq!(
                (
                    r.lines,
                    r.bytes,
                    r.bad,
                    &r.bad_by_reason,
                    &r.samples,
                    &r.fault
                ),
                (
                    one.lines,
                    one.bytes,
                    one.bad,
                    &one.bad_by_reason,
                    &one.samples,
                    &one.fault
                ),
                "{what}"
            );
        }
    }
}

/// A sink that panics on the line whose target is `at`.
struct PanicAt(Vec<u8>);

impl Sink for PanicAt {
    fn record(&mut self, r: &Request<'_>) {
        assert!(r.target() != self.0, "a sink's own failure");
    }
}

#[test]
fn a_worker_that_panics_ends_the_read_with_a_panic_not_a_hang() {
    // The reader waits for each window's chunks in order: a chunk that
    // never comes (its worker panicked) must not be waited for.
    let text: String = (0..3000).map(line).collect();
    let path = temp("panics.log", text.as_bytes());
    let len = text.len() as u64;
    for at in [5, 1500, 2999] {
        let options = ReadOptions {
            format: Format::Auto,
            chunk_size: 4096,
        };
        let report = FileReport {
            path: path.display().to_string(),
            ..FileReport::default()
        };
        let file = File::open(&path).unwrap();
        let target = format!("/p{at}?x=1").into_bytes();
        let make = || PanicAt(target.clone());
        let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            read_plain(&path, file, len, 16 << 10, report, &options, &make)
        }));
        assert!(read.is_err(), "line {at}");
    }
}

#[test]
fn nul_padding_after_the_last_gzip_member_is_accepted() {
    // A preallocated file that was not filled to its end: `zcat` reads it.
    let text: String = (0..500).map(line).collect();
    let mut padded = gzip(text.as_bytes());
    padded.extend(gzip(b""));
    padded.extend(std::iter::repeat_n(0u8, 100_000));
    let (got, r) = read(&temp("padded.log.gz", &padded), 64 << 10);
    assert_eq!(r.fault, None);
    assert_eq!((got.len(), r.lines, r.compressed), (500, 500, true));
    // Other bytes after the padding, or instead of it, are still a fault.
    for tail in [&b"\0\0\0garbage"[..], b"garbage"] {
        let mut bad = gzip(text.as_bytes());
        bad.extend_from_slice(tail);
        let (got, r) = read(&temp("trailing.log.gz", &bad), 64 << 10);
        assert!(
            r.fault
                .as_deref()
                .is_some_and(|f| f.contains("gzip stream is corrupt")),
            "{tail:?}: {:?}",
            r.fault
        );
        assert_eq!(got.len(), 500, "{tail:?}");
    }
}

fn read_csv_file(path: &std::path::Path, chunk: usize) -> (Vec<(Vec<u8>, u16, i64)>, FileReport) {
    let options = ReadOptions {
        format: "csv".parse().unwrap(),
        chunk_size: chunk,
    };
    let (sinks, report) = read_input(&Input::File(path.to_path_buf()), &options, &Keep::default);
    (flat(sinks), report)
}

#[test]
fn csv_rows_over_the_limit_are_counted_and_reading_goes_on() {
    // A 3 MiB row on one line, a quote left open before 3 MiB of lines,
    // and a row just over the limit: each one bad row (`too-long`), the
    // rows after them read (the lines after the open quote's cut are rows
    // of one field: bad); plain and compressed, any chunk size, the same.
    let row = |i: usize| format!("2024-01-01T00:00:0{i}Z,/p{i},200\n");
    let mut data = b"time,path,status\n".to_vec();
    data.extend_from_slice(row(1).as_bytes());
    data.extend_from_slice(b"2024-01-01T00:00:00Z,/");
    data.extend(std::iter::repeat_n(b'a', 3 << 20));
    data.extend_from_slice(b",200\n");
    data.extend_from_slice(row(2).as_bytes());
    data.extend_from_slice(b"2024-01-01T00:00:00Z,\"/open");
    for _ in 0..(3 << 20) / 64 {
        data.extend(std::iter::repeat_n(b'b', 63));
        data.push(b'\n');
    }
    data.extend_from_slice(row(3).as_bytes());
    data.extend_from_slice(b"2024-01-01T00:00:00Z,/");
    data.extend(std::iter::repeat_n(b'c', MAX_LINE));
    data.extend_from_slice(b",200\n");
    data.extend_from_slice(row(4).as_bytes());
    let mut first: Option<FileReport> = None;
    for (file, contents) in [
        ("long.csv".to_string(), data.clone()),
        ("long.csv.gz".to_string(), gzip(&data)),
        ("long.csv.zst".to_string(), zstd(&data)),
    ] {
        for chunk in [1, 4 << 10, 8 << 20] {
            let (got, mut r) = read_csv_file(&temp(&file, &contents), chunk);
            let what = format!("{file} chunk {chunk}");
            assert!(
                r.bad_by_reason.get("layout").is_some_and(|&n| n > 1000),
                "{what}"
            );
            assert_eq!(r.fault, None, "{what}");
            assert_eq!(r.parsed, 4, "{what}");
            assert_eq!(r.bad_by_reason.get("too-long"), Some(&3), "{what}");
            assert_eq!(r.bytes, data.len() as u64, "{what}");
            assert_eq!(r.samples[0].line, 3, "{what}");
            assert_eq!(r.samples[1].line, 5, "{what}");
            let targets: Vec<&[u8]> = got.iter().map(|g| &g.0[..]).collect();
            assert_eq!(targets, [&b"/p1"[..], b"/p2", b"/p3", b"/p4"], "{what}");
            (r.path, r.compressed, r.compression) = Default::default();
            assert_eq!(first.get_or_insert_with(|| r.clone()), &r, "{what}");
        }
    }
}

#[test]
fn csv_samples_name_the_line_a_row_starts_on_in_any_batch() {
    // Rows ended by `\r` alone (one line in all), and rows spanning lines
    // (a quoted field with line ends): a bad row's sample names the line
    // its row starts on, whatever batch it falls in (found by log_csv: a
    // later batch's line less its rows underflowed).
    let mut cr = b"time,path,status\r".to_vec();
    for i in 0..40 {
        cr.extend_from_slice(format!("2024-01-01T00:00:{i:02}Z,/p{i},200\r").as_bytes());
    }
    cr.extend_from_slice(b"2024-01-01T00:00:00Z,/bad,2000\r");
    let mut spans = b"time,path,status\n".to_vec();
    for i in 0..40 {
        spans.extend_from_slice(format!("2024-01-01T00:00:{i:02}Z,\"/p\n{i}\",200\n").as_bytes());
    }
    spans.extend_from_slice(b"2024-01-01T00:00:00Z,/bad,2000\n");
    for (name, data, line) in [("cr.csv", cr, 1), ("spans.csv", spans, 82)] {
        for chunk in [1, 97, 8 << 20] {
            let (got, r) = read_csv_file(&temp(name, &data), chunk);
            assert_eq!((got.len(), r.lines, r.bad), (40, 42, 1), "{name} {chunk}");
            assert_eq!(r.samples[0].line, line, "{name} {chunk}");
        }
    }
}

#[test]
fn csv_header_faults_and_stdin_like_streams() {
    let path = temp("no-time.csv", b"path,status\n/a,200\n");
    let (_, r) = read_csv_file(&path, 8 << 20);
    assert_eq!(
        r.fault.as_deref().map(|f| f.replace(&r.path, "FILE")),
        Some("FILE: no time column in the header (columns: path, status): name it with --csv-fields time=COLUMN".into())
    );
    // The refused header is still counted, as the header row it is: every
    // line is accounted for even in a faulted log (found by fuzzing:
    // log_csv's accounting check).
    assert_eq!((r.lines, r.parsed, r.directives, r.bad), (1, 0, 1, 0));
    let (_, r) = read_csv_file(
        &temp(
            "no-url.csv",
            b"1.2.3.4 - x [10/Feb/2012:16:42:07 -0500] \"GET / HTTP/1.0\" 301 368\n",
        ),
        8 << 20,
    );
    assert!(r.fault.is_some());
    assert_eq!(r.parsed + r.bad + r.empty + r.directives, r.lines);
    // An empty CSV log is no fault: it has no rows.
    let (_, r) = read_csv_file(&temp("empty.csv", b""), 8 << 20);
    assert_eq!((r.fault, r.lines), (None, 0));
}

/// Records its chunk's targets, and on `accept` the order in which it was
/// accepted, in a log all sinks share.
struct Accepts {
    log: Arc<Mutex<Vec<Vec<u8>>>>,
    first: Option<Vec<u8>>,
    accepted: usize,
}

impl Sink for Accepts {
    fn record(&mut self, r: &Request<'_>) {
        self.first.get_or_insert_with(|| r.target().to_vec());
    }

    fn accept(&mut self) {
        self.accepted += 1;
        let first = self.first.clone().unwrap_or_default();
        self.log.lock().unwrap().push(first);
    }
}

/// Every chunk a read returns is accepted once, in file order, before the
/// read returns: plain files (many chunks, in windows), gzip streams and
/// CSV files, whose chunks workers finish in any order.
#[test]
fn each_chunk_returned_is_accepted_once_in_file_order() {
    let text: String = (0..6000).map(line).collect();
    let csv: String = std::iter::once("time,path,status\n".to_string())
        .chain((0..6000).map(|i| format!("2024-01-01T00:00:00Z,/c{i},200\n")))
        .collect();
    for (name, data, format) in [
        ("accept.log", text.clone().into_bytes(), Format::Auto),
        ("accept.log.gz", gzip(text.as_bytes()), Format::Auto),
        (
            "accept.csv",
            csv.clone().into_bytes(),
            "csv".parse().unwrap(),
        ),
        (
            "accept.csv.gz",
            gzip(csv.as_bytes()),
            "csv".parse().unwrap(),
        ),
    ] {
        let log = Arc::new(Mutex::new(Vec::new()));
        let options = ReadOptions {
            format,
            chunk_size: 4096,
        };
        let make = || Accepts {
            log: log.clone(),
            first: None,
            accepted: 0,
        };
        let (sinks, report) = read_input(&Input::File(temp(name, &data)), &options, &make);
        assert_eq!((report.fault, report.parsed), (None, 6000), "{name}");
        assert!(sinks.len() > 20, "{name}: {} chunks", sinks.len());
        assert!(sinks.iter().all(|s| s.accepted == 1), "{name}");
        let returned: Vec<Vec<u8>> = sinks
            .iter()
            .map(|s| s.first.clone().unwrap_or_default())
            .collect();
        assert_eq!(*log.lock().unwrap(), returned, "{name}");
        let mut sorted = returned.clone();
        sorted.sort_by_key(|t| {
            let digits = t.iter().skip(2).take_while(|b| b.is_ascii_digit());
            digits.fold(0usize, |n, b| n * 10 + usize::from(b - b'0'))
        });
        assert_eq!(returned, sorted, "{name}: file order");
    }
}

/// Logs what the reader tells it: each request shown ahead
/// ([`Sink::prefetch`], which may not change the sink: through a shared
/// log) and each recorded, by target.
#[derive(Debug, Default)]
struct Ahead {
    shown: Arc<Mutex<Vec<Vec<u8>>>>,
    recorded: Vec<Vec<u8>>,
    /// For each request recorded, how many requests had been shown then.
    shown_at_record: Vec<usize>,
}

impl Sink for Ahead {
    fn prefetches(&self) -> bool {
        true
    }

    fn prefetch(&self, r: &Request<'_>) {
        self.shown.lock().unwrap().push(r.target().to_vec());
    }

    fn record(&mut self, r: &Request<'_>) {
        self.recorded.push(r.target().to_vec());
        self.shown_at_record.push(self.shown.lock().unwrap().len());
    }
}

/// A sink that prefetches is shown every request a line before it is
/// recorded, and records the same requests in the same order, with the
/// same counts, as one that does not: across bad, empty and over-long
/// lines, and at the chunk's end.
#[test]
fn requests_shown_ahead_are_recorded_as_without() {
    let mut text = String::new();
    for i in 0..200 {
        text.push_str(&line(i));
        match i % 7 {
            0 => text.push_str("not a log line at all\n"),
            3 => text.push_str("\n   \n"),
            5 => text.push_str(&format!("{}\n", "x".repeat(MAX_LINE + 1))),
            _ => {}
        }
    }
    let compiled = Format::Combined.compile().unwrap();
    let mut plain = Keep::default();
    let plain_counts = parse_chunk(text.as_bytes(), &mut compiled.clone(), &mut plain);
    let mut ahead = Ahead::default();
    let counts = parse_chunk(text.as_bytes(), &mut compiled.clone(), &mut ahead);
    let targets: Vec<Vec<u8>> = plain.0.iter().map(|(t, _, _)| t.clone()).collect();
    assert_eq!(targets.len(), 200);
    assert_eq!(ahead.recorded, targets, "the same requests, in order");
    assert_eq!(
        *ahead.shown.lock().unwrap(),
        targets,
        "each shown once, in order"
    );
    // Each request but the last is recorded once the next is shown.
    let expected: Vec<usize> = (0..200).map(|i| (i + 2).min(200)).collect();
    assert_eq!(ahead.shown_at_record, expected);
    assert_eq!(
        (counts.lines, counts.parsed, counts.empty, &counts.bad),
        (
            plain_counts.lines,
            plain_counts.parsed,
            plain_counts.empty,
            &plain_counts.bad
        )
    );
    assert_eq!(counts.samples, plain_counts.samples);
    assert!(counts.bad.values().sum::<u64>() > 50);
}

/// The thread that made a chunk's sink (the one that parsed it); the first
/// request of each chunk is slow, so that blocks wait for the workers.
struct Slow {
    by: std::thread::ThreadId,
    kept: Keep,
}

impl Sink for Slow {
    fn record(&mut self, r: &Request<'_>) {
        if self.kept.0.is_empty() {
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        self.kept.record(r);
    }
}

#[test]
fn a_streams_reader_parses_blocks_itself_when_the_workers_are_behind() {
    let text: String = (0..20_000).map(line).collect();
    let path = temp("helping.log.gz", &gzip(text.as_bytes()));
    let (want, _) = read(&path, 4 << 10);
    for threads in [1, 2, 3] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let (reader, sinks, report) = pool.install(|| {
            let options = ReadOptions {
                format: Format::Auto,
                chunk_size: 4 << 10,
            };
            let make = || Slow {
                by: std::thread::current().id(),
                kept: Keep::default(),
            };
            let (sinks, report) = read_input(&Input::File(path.clone()), &options, &make);
            (std::thread::current().id(), sinks, report)
        });
        assert_eq!(report.fault, None);
        let by_reader = sinks.iter().filter(|s| s.by == reader).count();
        let got: Vec<_> = sinks.into_iter().flat_map(|s| s.kept.0).collect();
        assert_eq!(got, want, "{threads} threads: same requests, same order");
        if threads == 1 {
            assert_eq!(by_reader, 0, "one thread: the reader only decompresses");
        } else {
            assert!(
                by_reader > 0,
                "{threads} threads: the reader parsed no block"
            );
        }
    }
}

//! Property tests: reading a log in parallel chunks (plain files, read in windows) or in
//! stream blocks (gzip) gives exactly what one sequential read gives, for
//! random logs and random chunk sizes; no input makes a parser panic.

use std::io::Write;

use crawlaudit::logs::{Format, Input, ReadOptions, Request, Sink, parse_line, read_input};
use proptest::prelude::*;

#[derive(Default)]
struct Keep(Vec<String>);

impl Sink for Keep {
    fn record(&mut self, r: &Request<'_>) {
        self.0.push(format!(
            "{} {} {:?} {:?} {} {:?}",
            r.time(),
            r.status(),
            String::from_utf8_lossy(r.target()),
            String::from_utf8_lossy(r.user_agent()),
            r.is_valid_request(),
            r.host().map(|h| String::from_utf8_lossy(h).into_owned())
        ));
    }
}

fn line_strategy() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => (0u32..86_400, 0u32..5000, prop::sample::select(vec!["GET", "POST", "HEAD"]), prop::sample::select(vec!["\"-\"", "\"https://www.google.com/\""]), prop::sample::select(vec!["curl/8", "Mozilla/5.0 (compatible; Googlebot/2.1)", "a \\\"quoted\\\" UA"]))
            .prop_map(|(t, n, m, r, ua)| format!(
                "10.0.0.{} - - [01/Nov/2026:{:02}:{:02}:{:02} +0100] \"{m} /p/{n}?q={n} HTTP/1.1\" {} {n} {r} \"{ua}\"",
                n % 256, t / 3600, t / 60 % 60, t % 60, 200 + n % 300
            )),
        1 => Just(String::new()),
        1 => Just("garbage line".to_string()),
        1 => Just("1.2.3.4 - - [01/Nov/2026:00:00:00 +0000] \"-\" 400 0 \"-\" \"-\"".to_string()),
        1 => Just("1.2.3.4 - - [01/Nov/2026:00:00:00 +0000] \"GET /common HTTP/1.1\" 200 1".to_string()),
        1 => "[ -~]{0,80}",
    ]
}

fn read(path: &std::path::Path, chunk_size: usize) -> (Vec<String>, String) {
    let options = ReadOptions {
        format: Format::Combined,
        chunk_size,
    };
    let (sinks, r) = read_input(&Input::File(path.to_path_buf()), &options, &Keep::default);
    let records = sinks.into_iter().flat_map(|k| k.0).collect();
    let report = format!(
        "{} {} {} {} {:?} {:?}",
        r.lines, r.parsed, r.empty, r.bad, r.bad_by_reason, r.samples
    );
    (records, report)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn parallel_chunks_and_stream_blocks_equal_a_sequential_read(
        lines in prop::collection::vec(line_strategy(), 0..400),
        ends in prop::collection::vec(prop::sample::select(vec!["\n", "\r\n"]), 400),
        final_newline in any::<bool>(),
        chunk in 1usize..20_000,
    ) {
        let mut text = String::new();
        for (i, l) in lines.iter().enumerate() {
            text.push_str(l);
            if i + 1 < lines.len() || final_newline {
                text.push_str(ends[i]);
            }
        }
        let dir = std::env::temp_dir().join(format!("crawlaudit-props-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let plain = dir.join(format!("p{chunk}.log"));
        std::fs::write(&plain, &text).unwrap();
        let sequential = read(&plain, usize::MAX / 2);
        prop_assert_eq!(&read(&plain, chunk), &sequential);

        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(text.as_bytes()).unwrap();
        let gzpath = dir.join(format!("p{chunk}.log.gz"));
        std::fs::write(&gzpath, gz.finish().unwrap()).unwrap();
        prop_assert_eq!(&read(&gzpath, chunk), &sequential);
        std::fs::remove_file(&plain).unwrap();
        std::fs::remove_file(&gzpath).unwrap();
        // Empty unless an earlier case failed (its files are left to see).
        let _ = std::fs::remove_dir(&dir);
    }

    #[test]
    fn no_line_makes_a_parser_panic(line in prop::collection::vec(any::<u8>(), 0..300)) {
        for format in [Format::Combined, Format::Common, Format::VhostCombined, "json".parse().unwrap(), Format::W3c] {
            let compiled = format.compile().unwrap();
            let _ = parse_line(&compiled, &line);
        }
    }
}

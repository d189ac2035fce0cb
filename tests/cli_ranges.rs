//! `crawlaudit ranges update` against a small HTTP server on 127.0.0.1 that
//! serves range files written here: no other network is used.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::process::Command;
use std::thread;
use std::time::Duration;

/// Serves `files` (path -> body; missing paths get 404) for at most
/// `requests` connections, then stops.
fn serve(
    files: Vec<(&'static str, &'static str)>,
    requests: usize,
) -> (String, thread::JoinHandle<Vec<String>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let handle = thread::spawn(move || {
        let mut seen = Vec::new();
        for stream in listener.incoming().take(requests) {
            let mut stream = stream.unwrap();
            stream
                .set_read_timeout(Some(Duration::from_secs(10)))
                .unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut request_line = String::new();
            reader.read_line(&mut request_line).unwrap();
            loop {
                let mut header = String::new();
                if reader.read_line(&mut header).unwrap() == 0 || header == "\r\n" {
                    break;
                }
            }
            let path = request_line
                .split_whitespace()
                .nth(1)
                .unwrap_or("")
                .to_string();
            let (status, body) = match files.iter().find(|(p, _)| *p == path) {
                Some((_, body)) => ("200 OK", *body),
                None => ("404 Not Found", "not found"),
            };
            write!(
                stream,
                "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            )
            .unwrap();
            seen.push(path);
        }
        seen
    });
    (base, handle)
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("crawlaudit-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

const GOOGLE: &str = r#"{"creationTime":"2026-01-01T00:00:00","prefixes":[{"ipv4Prefix":"66.249.64.0/19"},{"ipv6Prefix":"2001:4860:4801:10::/64"}]}"#;

#[test]
fn update_writes_checked_files_and_keeps_old_ones_on_failure() {
    let dir = temp_dir("ranges");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("gptbot.json"),
        r#"{"prefixes":[{"ipv4Prefix":"20.0.0.0/24"}]}"#,
    )
    .unwrap();
    let (base, server) = serve(
        vec![
            ("/googlebot.json", GOOGLE),
            ("/gptbot.json", "<html>maintenance</html>"),
        ],
        3,
    );
    let out = Command::new(env!("CARGO_BIN_EXE_crawlaudit"))
        .args(["ranges", "update"])
        .arg(&dir)
        .args([
            "--mirror",
            &base,
            "--only",
            "googlebot.json",
            "--only",
            "gptbot.json",
            "--only",
            "bingbot.json",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(2), "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines[0]
            .starts_with("googlebot.json\tupdated\t1 IPv4 and 1 IPv6 intervals\thttp://127.0.0.1:"),
        "{stdout}"
    );
    assert!(
        lines[1].starts_with("bingbot.json\tFAILED\t") && lines[1].contains("404"),
        "{stdout}"
    );
    assert!(
        lines[2].starts_with("gptbot.json\tFAILED\t") && lines[2].contains("not valid JSON"),
        "{stdout}"
    );
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("2 range file(s) could not be updated")
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("googlebot.json")).unwrap(),
        GOOGLE
    );
    // The bad download did not replace the old file, and left no temporary behind.
    assert!(
        std::fs::read_to_string(dir.join("gptbot.json"))
            .unwrap()
            .contains("20.0.0.0/24")
    );
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    let mut seen = server.join().unwrap();
    seen.sort();
    assert_eq!(seen, ["/bingbot.json", "/googlebot.json", "/gptbot.json"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn update_succeeds_and_the_files_verify() {
    let dir = temp_dir("ranges-ok");
    let (base, server) = serve(vec![("/googlebot.json", GOOGLE)], 1);
    let status = Command::new(env!("CARGO_BIN_EXE_crawlaudit"))
        .args(["ranges", "update"])
        .arg(&dir)
        .args(["--mirror", &base, "--only", "googlebot.json"])
        .status()
        .unwrap();
    assert!(status.success());
    server.join().unwrap();
    let ranges = crawlaudit::bots::IpRanges::load_dir(&dir).unwrap();
    assert!(
        ranges
            .get("googlebot.json")
            .unwrap()
            .contains("66.249.66.1".parse().unwrap())
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unknown_file_name_is_a_usage_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_crawlaudit"))
        .args([
            "ranges",
            "update",
            "/tmp/never-created-by-crawlaudit",
            "--only",
            "googlebot.txt",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("known: googlebot.json")
    );
}

//! `crawlaudit logs --agents N`: the most frequent User-Agents, as the
//! audit classes them.

mod common;

use std::process::Command;

#[test]
fn agents_are_listed_most_frequent_first_with_their_class() {
    let dir = common::fresh_dir("logs-agents");
    let line = |ua: &str| {
        format!(
            "192.0.2.1 - - [01/Nov/2026:10:00:00 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"{ua}\"\n"
        )
    };
    let browser = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36";
    let mut log = line(browser).repeat(3);
    log.push_str(
        &line("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)").repeat(2),
    );
    log.push_str(&line("Apache/2.4.29 (Ubuntu) (internal dummy connection)"));
    log.push_str(&line(r"1\x22"));
    std::fs::write(dir.join("a.log"), log).unwrap();
    let run = Command::new(env!("CARGO_BIN_EXE_crawlaudit"))
        .args(["logs", "a.log", "--agents", "3"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0));
    let out = String::from_utf8(run.stdout).unwrap();
    let table: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("requests\t"))
        .collect();
    assert_eq!(
        table,
        [
            "requests\tclass\tname\tcategory\tuser_agent",
            &format!("3\tperson\t-\t-\t{browser}"),
            "2\tcrawler\tGooglebot\tsearch\tMozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
            // Ties by User-Agent: `1"` (nginx's `1\x22`, decoded) first.
            "1\tcrawler\t(exploit payload in User-Agent)\tscanner\t1\"",
            "(1 more User-Agents, 1 requests)",
        ]
    );
    let both = Command::new(env!("CARGO_BIN_EXE_crawlaudit"))
        .args(["logs", "a.log", "--agents", "9"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let out = String::from_utf8(both.stdout).unwrap();
    assert!(
        out.contains("1\tself\tApache (internal dummy connection)\tself\t"),
        "{out}"
    );
}

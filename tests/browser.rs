//! `report.html` in a real browser: headless Chromium driven over the
//! DevTools pipe (`tests/browser/cdp.rs`) opens the demo's report and a
//! large generated one (`tests/browser/big.rs`) at 1400x900 and at a
//! phone's 390x844, and checks (`tests/browser/checks.rs`) that the page
//! is under 1 MB, logs nothing, fetches nothing, is usable within a
//! second, has no horizontal scroll, that its filters and sort change
//! what is shown, and saves screenshots under
//! `$CARGO_TARGET_TMPDIR/browser/` (`cargo test --test browser --
//! --nocapture` prints their paths and every check's numbers).
//!
//! The checks are themselves tested on small hand-written pages: one with
//! working hooks passes all of them, and each defect (console output, an
//! exception, an image from the network, a 1000px-wide element, a slow
//! first render, filters that do nothing) fails exactly its check.
//!
//! Chromium: `CRAWLAUDIT_CHROMIUM`, else `chromium`, `chromium-browser` or
//! `google-chrome` on `PATH`. Without one the tests fail, saying how to
//! install it, unless `CRAWLAUDIT_SKIP_BROWSER=1` (then they say they were
//! skipped and pass).

#[path = "browser/big.rs"]
mod big;
#[path = "browser/cdp.rs"]
mod cdp;
#[path = "browser/checks.rs"]
mod checks;
#[path = "support/rng.rs"]
mod rng;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::Instant;

use cdp::Browser;
use checks::{Check, Outcome, Plan};

/// The tests take turns: one browser at a time keeps the timings honest
/// on a small machine.
static SERIAL: Mutex<()> = Mutex::new(());

/// Where the screenshots go.
const SHOTS: &str = concat!(env!("CARGO_TARGET_TMPDIR"), "/browser/");

/// The viewports: a laptop and a phone.
const WIDTHS: [u32; 2] = [1400, 390];

/// A browser, or `None` when there is none and `CRAWLAUDIT_SKIP_BROWSER=1`.
fn launch(test: &str) -> Option<Browser> {
    let Some(binary) = cdp::find_chromium() else {
        if std::env::var("CRAWLAUDIT_SKIP_BROWSER").as_deref() == Ok("1") {
            eprintln!("{test}: skipped (no chromium, and CRAWLAUDIT_SKIP_BROWSER=1)");
            return None;
        }
        panic!(
            "{test}: no Chromium found (CRAWLAUDIT_CHROMIUM unset; none of chromium, \
             chromium-browser, google-chrome on PATH). Install it with \
             `apt-get install chromium` (Debian/Ubuntu), or point CRAWLAUDIT_CHROMIUM at a \
             Chrome or Chromium binary; CRAWLAUDIT_SKIP_BROWSER=1 skips these tests."
        );
    };
    let started = Instant::now();
    let browser =
        Browser::launch(&binary).unwrap_or_else(|e| panic!("{test}: starting Chromium: {e}"));
    println!(
        "{test}: {} up in {} ms",
        binary.display(),
        started.elapsed().as_millis()
    );
    Some(browser)
}

/// Prints every outcome; returns the failures, each naming its view.
fn failures(view: &str, outcomes: &[Outcome]) -> Vec<String> {
    let mut failed = Vec::new();
    for (check, result) in outcomes {
        match result {
            Ok(detail) => println!("{view}: ok   {check}: {detail}"),
            Err(e) => {
                println!("{view}: FAIL {check}: {e}");
                failed.push(format!("{view}, {check}: {e}"));
            }
        }
    }
    failed
}

/// Every check of a report, at both widths: the filters and the sort at
/// 1400 (with the kind and date filters when `day` is given), screenshots
/// at both.
fn check_report(browser: &Browser, name: &str, html: &Path, day: Option<&str>) {
    let mut failed = failures(
        &format!("{name} report"),
        &[(Check::Size, checks::check_size(html))],
    );
    for width in WIDTHS {
        let shot = PathBuf::from(SHOTS).join(format!("{name}-{width}.png"));
        let plan = Plan {
            filters: width == 1400,
            kind_and_date: day.filter(|_| width == 1400).map(str::to_string),
            screenshot: Some(shot.clone()),
        };
        let started = Instant::now();
        let outcomes = checks::check_page(browser, html, width, &plan);
        failed.extend(failures(&format!("{name} report at {width}px"), &outcomes));
        if shot.exists() {
            println!("screenshot: {}", shot.display());
        }
        println!(
            "{name} report at {width}px: checked in {} ms",
            started.elapsed().as_millis()
        );
    }
    assert!(
        failed.is_empty(),
        "{} check(s) failed on {}:\n  {}",
        failed.len(),
        html.display(),
        failed.join("\n  ")
    );
}

/// Runs the built binary's `audit` from the repository root.
fn audit(args: &[&str]) {
    let run = Command::new(env!("CARGO_BIN_EXE_crawlaudit"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("audit")
        .args(args)
        .output()
        .expect("running crawlaudit");
    assert!(
        run.status.success(),
        "crawlaudit audit {args:?}: {}\n{}",
        run.status,
        String::from_utf8_lossy(&run.stderr)
    );
}

fn temp_dir(prefix: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(prefix)
        .tempdir()
        .expect("a temporary directory")
}

#[test]
fn demo_report_in_chromium() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(browser) = launch("demo_report_in_chromium") else {
        return;
    };
    let dir = temp_dir("crawlaudit-browser-demo-");
    let out = dir.path().join("demo");
    audit(&["--out", out.to_str().unwrap(), "--quiet"]);
    check_report(&browser, "demo", &out.join("report.html"), None);
}

/// Lines of a CSV file, its header left out.
fn csv_rows(path: &Path) -> usize {
    let text = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .count()
        .saturating_sub(1)
}

#[test]
fn large_report_in_chromium() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(browser) = launch("large_report_in_chromium") else {
        return;
    };
    let dir = temp_dir("crawlaudit-browser-big-");
    let started = Instant::now();
    let input = big::generate(dir.path()).expect("generating the large report's input");
    let generated = started.elapsed();
    let out = dir.path().join("big");
    audit(&[
        input.log.to_str().unwrap(),
        "--snapshot",
        input.snapshot.to_str().unwrap(),
        "--format",
        "vhost_combined",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    let (violations, findings) = (
        csv_rows(&out.join("violations.csv")),
        csv_rows(&out.join("findings.csv")),
    );
    println!(
        "large report: {} log lines generated in {} ms, audited in {} ms: {violations} \
         violations, {findings} findings rows",
        input.lines,
        generated.as_millis(),
        (started.elapsed() - generated).as_millis()
    );
    assert!(
        violations >= 150_000 && findings >= 100_000,
        "the generated input gave {violations} violations (want 150,000) and {findings} \
         findings rows (want 100,000)"
    );
    check_report(
        &browser,
        "big",
        &out.join("report.html"),
        Some(big::LAST_DAY),
    );
}

/// A page with the report's hooks, small and correct, to be broken one
/// way at a time.
struct HookPage {
    /// `<meta name=viewport ...>`.
    viewport: bool,
    /// The filters and the sort react to input.
    working: bool,
    /// Busy milliseconds before the first render.
    delay_ms: u32,
    head: &'static str,
    body: &'static str,
    script: &'static str,
}

impl Default for HookPage {
    fn default() -> Self {
        HookPage {
            viewport: true,
            working: true,
            delay_ms: 0,
            head: "",
            body: "",
            script: "",
        }
    }
}

const HOOK_PAGE: &str = r#"<!doctype html><html lang=en><head><meta charset=utf-8>@VIEWPORT@
<title>hooks</title><style>
body{font:14px sans-serif;margin:0;padding:8px}table{border-collapse:collapse;width:100%;margin:8px 0}
td,th{border:1px solid #ccc;padding:2px 4px}.ctl{display:flex;flex-wrap:wrap;gap:4px}
</style>@HEAD@</head><body>
<div class=ctl>
<select id=f-crawler><option value="">all crawlers</option></select>
<select id=f-category><option value="">all categories</option><option>ai-crawler</option><option>seo</option></select>
<select id=f-kind><option value="">all kinds</option><option>disallow</option><option>crawl-delay</option></select>
<select id=f-host><option value="">all hosts</option><option>a.example</option></select>
<input id=f-from type=date><input id=f-to type=date><input id=f-search type=search>
</div>
<table data-table=crawlers><thead><tr><th data-sort=crawler>crawler<th data-sort=requests>requests</thead><tbody></tbody></table>
<table data-table=violations><thead><tr><th data-sort=time>time<th data-sort=crawler>crawler<th data-sort=kind>kind<th data-sort=url>url</thead><tbody></tbody></table>
<table data-table=findings><thead><tr><th data-sort=kind>kind<th data-sort=url>url</thead><tbody><tr><td>noindex-unseen<td>/private/doc-1</tbody></table>
@BODY@
<script>
(() => {
  const busy = performance.now() + @DELAY@; while (performance.now() < busy) {}
  const crawlers = [['GPTBot', 40], ['AhrefsBot', 25], ['bingbot', 60], ['ClaudeBot', 10]];
  const V = [];
  for (let i = 0; i < 40; i++) V.push({
    time: '2026-10-' + String(1 + i % 30).padStart(2, '0') + ' 10:00:00',
    crawler: crawlers[i % 4][0], kind: i % 3 ? 'disallow' : 'crawl-delay', url: '/private/doc-' + i});
  const sel = document.getElementById('f-crawler');
  for (const [c] of crawlers) sel.add(new Option(c, c));
  const $ = id => document.getElementById(id).value;
  let dir = 0;
  function render() {
    const c = $('f-crawler'), k = $('f-kind'), q = $('f-search').toLowerCase(), from = $('f-from'), to = $('f-to');
    const rows = V.filter(v => (!c || v.crawler === c) && (!k || v.kind === k)
      && (!q || Object.values(v).join(' ').toLowerCase().includes(q))
      && (!from || v.time.slice(0, 10) >= from) && (!to || v.time.slice(0, 10) <= to));
    document.querySelector('[data-table=violations] tbody').innerHTML =
      rows.map(v => `<tr><td>${v.time}<td>${v.crawler}<td>${v.kind}<td>${v.url}`).join('');
    const cs = crawlers.slice();
    if (dir) cs.sort((a, b) => dir * (a[1] - b[1]));
    document.querySelector('[data-table=crawlers] tbody').innerHTML =
      cs.map(([n, r]) => `<tr><td>${n}<td>${r}`).join('');
  }
  render();
  if (@WORKING@) {
    document.addEventListener('input', render);
    document.addEventListener('change', render);
    document.querySelector('th[data-sort=requests]').addEventListener('click', () => { dir = dir === -1 ? 1 : -1; render(); });
  }
  @SCRIPT@
  window.crawlauditReadyMs = performance.now();
  document.body.dataset.ready = '1';
})();
</script></body></html>
"#;

impl HookPage {
    fn write(&self, dir: &Path, name: &str) -> PathBuf {
        let html = HOOK_PAGE
            .replace(
                "@VIEWPORT@",
                if self.viewport {
                    r#"<meta name=viewport content="width=device-width,initial-scale=1">"#
                } else {
                    ""
                },
            )
            .replace("@HEAD@", self.head)
            .replace("@BODY@", self.body)
            .replace("@DELAY@", &self.delay_ms.to_string())
            .replace("@WORKING@", if self.working { "true" } else { "false" })
            .replace("@SCRIPT@", self.script);
        let path = dir.join(format!("{name}.html"));
        std::fs::write(&path, html).unwrap();
        path
    }
}

/// The date the hook page's date filter is tried on (one row).
const HOOK_DAY: &str = "2026-10-30";

fn full_plan(screenshot: Option<PathBuf>) -> Plan {
    Plan {
        filters: true,
        kind_and_date: Some(HOOK_DAY.to_string()),
        screenshot,
    }
}

#[test]
fn harness_passes_a_page_with_working_hooks() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(browser) = launch("harness_passes_a_page_with_working_hooks") else {
        return;
    };
    let dir = temp_dir("crawlaudit-browser-hooks-");
    let html = HookPage::default().write(dir.path(), "good");
    let mut failed = failures("good page", &[(Check::Size, checks::check_size(&html))]);
    for width in WIDTHS {
        let shot = dir.path().join(format!("good-{width}.png"));
        let plan = if width == 1400 {
            full_plan(Some(shot))
        } else {
            Plan::default()
        };
        let outcomes = checks::check_page(&browser, &html, width, &plan);
        let ran: BTreeSet<Check> = outcomes.iter().map(|(c, _)| *c).collect();
        if width == 1400 {
            assert_eq!(ran.len(), 11, "every page check ran at 1400px: {ran:?}");
        }
        failed.extend(failures(&format!("good page at {width}px"), &outcomes));
    }
    assert!(
        failed.is_empty(),
        "a correct page failed:\n  {}",
        failed.join("\n  ")
    );
}

#[test]
fn harness_catches_each_defect() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(browser) = launch("harness_catches_each_defect") else {
        return;
    };
    let dir = temp_dir("crawlaudit-browser-defects-");
    let none = Plan::default;
    let cases: Vec<(&str, HookPage, u32, Plan, &[Check])> = vec![
        (
            "console.log",
            HookPage {
                script: "console.log('rendered');",
                ..Default::default()
            },
            1400,
            none(),
            &[Check::Console],
        ),
        (
            "console.error when filtering",
            HookPage {
                script: "document.addEventListener('change', () => console.error('filter broke'));",
                ..Default::default()
            },
            1400,
            Plan {
                filters: true,
                ..none()
            },
            &[Check::Console],
        ),
        (
            "an uncaught exception",
            HookPage {
                script: "setTimeout(() => { undefined.x = 1; }, 0);",
                ..Default::default()
            },
            1400,
            none(),
            &[Check::Console],
        ),
        (
            "an image from the network",
            HookPage {
                body: r#"<img src="https://example.com/x.png" alt="">"#,
                ..Default::default()
            },
            1400,
            none(),
            &[Check::Requests],
        ),
        (
            "a 1000px-wide element, on a phone",
            HookPage {
                body: r#"<div style="width:1000px;height:4px"></div>"#,
                ..Default::default()
            },
            390,
            none(),
            &[Check::HorizontalScroll],
        ),
        (
            "a 1000px-wide element, on a laptop",
            HookPage {
                body: r#"<div style="width:1000px;height:4px"></div>"#,
                ..Default::default()
            },
            1400,
            none(),
            &[],
        ),
        (
            "no viewport meta, on a phone",
            HookPage {
                viewport: false,
                ..Default::default()
            },
            390,
            none(),
            &[Check::HorizontalScroll],
        ),
        (
            "a first render after 1.2 s",
            HookPage {
                delay_ms: 1200,
                ..Default::default()
            },
            1400,
            none(),
            &[Check::TimeToUsable],
        ),
        (
            "filters and sort that do nothing",
            HookPage {
                working: false,
                ..Default::default()
            },
            1400,
            full_plan(None),
            &[
                Check::CrawlerFilter,
                Check::SearchFilter,
                Check::Sort,
                Check::KindFilter,
                Check::DateFilter,
            ],
        ),
    ];
    let mut wrong = Vec::new();
    for (i, (what, page, width, plan, expected)) in cases.into_iter().enumerate() {
        let html = page.write(dir.path(), &format!("defect-{i}"));
        let outcomes = checks::check_page(&browser, &html, width, &plan);
        let view = format!("{what} at {width}px");
        failures(&view, &outcomes);
        let failed: BTreeSet<Check> = outcomes
            .iter()
            .filter(|(_, r)| r.is_err())
            .map(|(c, _)| *c)
            .collect();
        let expected: BTreeSet<Check> = expected.iter().copied().collect();
        if failed != expected {
            wrong.push(format!(
                "{view}: failed {failed:?}, expected exactly {expected:?}"
            ));
        }
    }
    // The size check, on a page just over the limit.
    let heavy = dir.path().join("heavy.html");
    let padding = "<!-- padding -->".repeat(1_000_000 / 16 + 1);
    std::fs::write(
        &heavy,
        format!("<!doctype html><title>heavy</title>{padding}"),
    )
    .unwrap();
    match checks::check_size(&heavy) {
        Err(e) => println!("heavy page: FAIL {} (expected): {e}", Check::Size),
        Ok(d) => wrong.push(format!("a page of over 1 MB passed the size check ({d})")),
    }
    assert!(
        wrong.is_empty(),
        "the harness missed or misplaced defects:\n  {}",
        wrong.join("\n  ")
    );
}

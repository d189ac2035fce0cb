//! The checks of one report page in one viewport, each its own function so
//! that a page with one defect fails exactly one check.
//!
//! The page's hooks: filter controls `#f-crawler`, `#f-category`,
//! `#f-kind`, `#f-host`, `#f-from`, `#f-to` (dates), `#f-search`; tables
//! `table[data-table="crawlers"|"violations"|"findings"]` with sortable
//! `th[data-sort="COLUMN"]`; `document.body.dataset.ready = "1"` and
//! `window.crawlauditReadyMs` (`performance.now()` when the first render
//! is done) once the page is usable.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::cdp::{Browser, Page, base64_decode};

/// The report page may weigh at most this much.
pub const MAX_BYTES: u64 = 1_000_000;
/// The page must be usable this soon after navigation starts.
pub const MAX_READY_MS: f64 = 1000.0;
/// Screenshots are clipped to this height.
pub const MAX_SHOT_HEIGHT: f64 = 6000.0;
/// How long after the load event the page may take to set `data-ready`
/// before the check gives up (the failure then says so; the limit is
/// [`MAX_READY_MS`]).
const READY_WAIT: Duration = Duration::from_secs(3);
/// How long a filter or a sort may take to change the rows shown (a
/// debounced search included).
const CHANGE_WAIT: Duration = Duration::from_millis(1000);

/// One check, named in failures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Check {
    /// report.html is under [`MAX_BYTES`].
    Size,
    /// The page loads (navigation and the load event).
    Load,
    /// `data-ready` and `crawlauditReadyMs` under [`MAX_READY_MS`].
    TimeToUsable,
    /// No horizontal scroll (and, on a phone, a device-width layout).
    HorizontalScroll,
    /// `#f-crawler` narrows the violations to that crawler.
    CrawlerFilter,
    /// `#f-search` narrows the violations to rows with the text.
    SearchFilter,
    /// The crawlers table sorts by requests, both ways.
    Sort,
    /// `#f-kind` narrows the violations to that kind.
    KindFilter,
    /// `#f-from` / `#f-to` change the violations shown.
    DateFilter,
    /// A PNG of the page was written.
    Screenshot,
    /// Nothing logged on the console, no exception, no error log entry.
    Console,
    /// No request other than the report's own file (and data:, about:).
    Requests,
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Check::Size => "size under 1,000,000 bytes",
            Check::Load => "page load",
            Check::TimeToUsable => "time to usable under 1 s",
            Check::HorizontalScroll => "no horizontal scroll",
            Check::CrawlerFilter => "#f-crawler filter",
            Check::SearchFilter => "#f-search filter",
            Check::Sort => "crawlers sort by requests",
            Check::KindFilter => "#f-kind filter",
            Check::DateFilter => "#f-from/#f-to filter",
            Check::Screenshot => "screenshot",
            Check::Console => "no console output or errors",
            Check::Requests => "no request leaves the page",
        })
    }
}

/// The outcome of one check: what it saw, or why it failed.
pub type Outcome = (Check, Result<String, String>);

/// What to check on a page besides what every page gets.
#[derive(Default)]
pub struct Plan {
    /// The crawler filter, the search and the sort.
    pub filters: bool,
    /// The kind filter, and the date filter on this day (`YYYY-MM-DD`).
    pub kind_and_date: Option<String>,
    /// Where to save a screenshot.
    pub screenshot: Option<PathBuf>,
}

/// The viewport height for a width: a laptop or a phone.
pub fn height_for(width: u32) -> u32 {
    if width < 600 { 844 } else { 900 }
}

/// `file://` URL of an absolute path, bytes outside the unreserved set
/// percent-encoded.
pub fn file_url(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut url = String::from("file://");
    for &b in path.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            url.push(b as char);
        } else {
            url.push_str(&format!("%{b:02X}"));
        }
    }
    url
}

/// Check 1: the file's size.
pub fn check_size(html: &Path) -> Result<String, String> {
    let len = std::fs::metadata(html)
        .map_err(|e| format!("{}: {e}", html.display()))?
        .len();
    if len < MAX_BYTES {
        Ok(format!("{len} bytes"))
    } else {
        Err(format!("report.html is {len} bytes, not under {MAX_BYTES}"))
    }
}

/// Opens `html` at `width` in a new tab and runs every check of `plan`
/// (all but [`Check::Size`], which is the file's).
pub fn check_page(browser: &Browser, html: &Path, width: u32, plan: &Plan) -> Vec<Outcome> {
    let mut out = Vec::new();
    let page = match browser.new_page() {
        Ok(page) => page,
        Err(e) => {
            out.push((Check::Load, Err(format!("opening a tab: {e}"))));
            return out;
        }
    };
    let url = file_url(html);
    let mark = browser.event_mark();
    let started = Instant::now();
    if let Err(e) = open(&page, &url, width) {
        out.push((Check::Load, Err(e)));
        return out;
    }
    out.push((
        Check::Load,
        Ok(format!(
            "load event after {} ms",
            started.elapsed().as_millis()
        )),
    ));
    out.push((Check::TimeToUsable, check_time_to_usable(&page, started)));
    out.push((
        Check::HorizontalScroll,
        check_horizontal_scroll(&page, width),
    ));
    if plan.filters {
        out.push((Check::CrawlerFilter, check_crawler_filter(&page)));
        out.push((Check::SearchFilter, check_search_filter(&page)));
        out.push((Check::Sort, check_sort(&page)));
    }
    if let Some(day) = &plan.kind_and_date {
        out.push((Check::KindFilter, check_kind_filter(&page)));
        out.push((Check::DateFilter, check_date_filter(&page, day)));
    }
    if let Some(path) = &plan.screenshot {
        out.push((Check::Screenshot, screenshot(&page, width, path)));
    }
    // Last, so that they cover the interactions too.
    out.push((Check::Console, check_console(&page, mark)));
    out.push((Check::Requests, check_requests(&page, mark, &url)));
    out
}

/// Enables the domains the checks listen to, sets the viewport, navigates
/// and waits for the load event.
fn open(page: &Page<'_>, url: &str, width: u32) -> Result<(), String> {
    for domain in ["Page", "Runtime", "Log", "Network"] {
        page.call(&format!("{domain}.enable"), json!({}))?;
    }
    let mobile = width < 600;
    page.call(
        "Emulation.setDeviceMetricsOverride",
        json!({
            "width": width,
            "height": height_for(width),
            "deviceScaleFactor": if mobile { 2 } else { 1 },
            "mobile": mobile,
        }),
    )?;
    let mark = page.browser().event_mark();
    let nav = page.call("Page.navigate", json!({ "url": url }))?;
    if let Some(error) = nav.get("errorText").and_then(Value::as_str) {
        return Err(format!("navigating to {url}: {error}"));
    }
    page.wait_event("Page.loadEventFired", mark, Duration::from_secs(30))
        .map(|_| ())
        .map_err(|e| format!("{url}: {e}"))
}

/// Check 4: `data-ready` set and `crawlauditReadyMs` under a second.
pub fn check_time_to_usable(page: &Page<'_>, started: Instant) -> Result<String, String> {
    let deadline = Instant::now() + READY_WAIT;
    let ready = loop {
        let ready = page.eval("!!document.body && document.body.dataset.ready === '1'")?;
        if ready == Value::Bool(true) {
            break true;
        }
        if Instant::now() >= deadline {
            break false;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let wall = started.elapsed().as_millis();
    let ms = page.eval("typeof window.crawlauditReadyMs === 'number' ? window.crawlauditReadyMs : String(window.crawlauditReadyMs)")?;
    if !ready {
        return Err(format!(
            "document.body.dataset.ready never became \"1\" ({} s after the load event; \
             window.crawlauditReadyMs is {ms})",
            READY_WAIT.as_secs()
        ));
    }
    let Some(ms) = ms.as_f64() else {
        return Err(format!(
            "data-ready is \"1\" but window.crawlauditReadyMs is {ms}, not a number"
        ));
    };
    if ms < MAX_READY_MS {
        Ok(format!(
            "ready at {ms:.0} ms (seen after {wall} ms of wall time)"
        ))
    } else {
        Err(format!(
            "window.crawlauditReadyMs is {ms:.0} ms, not under {MAX_READY_MS:.0} ms"
        ))
    }
}

/// Check 5: the page is no wider than the viewport; on a phone, laid out
/// at the device's width.
pub fn check_horizontal_scroll(page: &Page<'_>, width: u32) -> Result<String, String> {
    let v = page.eval(&format!(
        r#"(() => {{
            const iw = window.innerWidth, sw = document.documentElement.scrollWidth;
            const limit = Math.min(iw, {width}), out = [];
            // The heading before an element, to say where it is.
            const under = el => {{
                for (let n = el; n && n !== document.body; n = n.parentElement)
                    for (let p = n.previousElementSibling; p; p = p.previousElementSibling)
                        if (/^H[1-4]$/.test(p.tagName)) return ' under "' + p.textContent.trim().slice(0, 40) + '"';
                return '';
            }};
            // Inside a scrolling or clipping box, an element widens nothing.
            const clipped = el => {{
                for (let a = el.parentElement; a && a !== document.body; a = a.parentElement)
                    if (getComputedStyle(a).overflowX !== 'visible') return true;
                return false;
            }};
            if (sw > iw || iw > {width}) {{
                for (const el of document.body ? document.body.querySelectorAll('*') : []) {{
                    const r = el.getBoundingClientRect(), p = el.parentElement;
                    if (r.right > limit + 0.5 && (!p || p.getBoundingClientRect().right <= limit + 0.5)
                        && !clipped(el)) {{
                        out.push(el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
                            + (typeof el.className === 'string' && el.className.trim() ? '.' + el.className.trim().split(/\s+/).join('.') : '')
                            + under(el) + ' (right edge ' + Math.round(r.right) + 'px)');
                        if (out.length === 3) break;
                    }}
                }}
            }}
            return {{iw, sw, out}};
        }})()"#
    ))?;
    let (iw, sw) = (
        v["iw"].as_f64().unwrap_or(-1.0),
        v["sw"].as_f64().unwrap_or(-1.0),
    );
    let culprits: Vec<&str> = v["out"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let culprits = if culprits.is_empty() {
        String::new()
    } else {
        format!("; sticking out: {}", culprits.join(", "))
    };
    if sw > iw {
        return Err(format!(
            "document.documentElement.scrollWidth {sw} > window.innerWidth {iw}{culprits}"
        ));
    }
    // A phone zooms out a page wider than the screen until it fits, so
    // scrollWidth and innerWidth grow together past the screen's width.
    if iw > f64::from(width) {
        return Err(format!(
            "window.innerWidth is {iw} on a {width}px-wide screen (scrollWidth {sw}): the page \
             is laid out wider than the screen and zoomed out to fit (content too wide, or no \
             <meta name=viewport content=\"width=device-width\">){culprits}"
        ));
    }
    Ok(format!("scrollWidth {sw} <= innerWidth {iw}"))
}

/// Helpers prepended to the scripts of the filter checks.
const JS: &str = r#"
const CA = {
  table(name) { return document.querySelector(`table[data-table="${name}"]`); },
  // Visible body rows, without an empty-state row (one cell spanning columns).
  rows(name) {
    const t = CA.table(name);
    if (!t) return null;
    return Array.from(t.querySelectorAll('tbody tr')).filter(r =>
      r.getClientRects().length > 0 && !(r.cells.length === 1 && r.cells[0].colSpan > 1));
  },
  col(name, key) {
    const th = document.querySelector(`table[data-table="${name}"] th[data-sort="${key}"]`);
    return th ? th.cellIndex : -1;
  },
  text(el) {
    if (el && el.cells) return Array.from(el.cells).map(c => CA.text(c)).join(' | ');
    return (el ? el.textContent : '').replace(/\s+/g, ' ').trim();
  },
  cell(row, i) { return CA.text(i >= 0 && i < row.cells.length ? row.cells[i] : row); },
  shown(name) {
    const rows = CA.rows(name);
    if (!rows) return null;
    let h = 0;
    for (const r of rows) { const s = CA.text(r) + '\n'; for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0; }
    return {count: rows.length, hash: rows.length + ':' + h, first: rows.slice(0, 2).map(r => CA.text(r).slice(0, 120))};
  },
  // The visible rows whose cell in column `key` (the whole row when there
  // is no such column) does not contain `needle`, case-insensitively.
  missing(name, key, needle) {
    const i = CA.col(name, key), n = needle.toLowerCase();
    const bad = (CA.rows(name) || []).map(r => CA.cell(r, i)).filter(t => !t.toLowerCase().includes(n));
    return {count: bad.length, example: bad.length ? bad[0].slice(0, 160) : null, column: i >= 0};
  },
  set(sel, value, events) {
    const el = document.querySelector(sel);
    if (!el) return false;
    el.value = value;
    for (const e of events) el.dispatchEvent(new Event(e, {bubbles: true}));
    return true;
  },
  options(sel) {
    const el = document.querySelector(sel);
    return el && el.options ? {value: el.value, options: Array.from(el.options).map(o => o.value)} : null;
  },
};
"#;

fn script(body: &str) -> String {
    format!("(() => {{ {JS}\n{body} }})()")
}

fn js_str(s: &str) -> String {
    serde_json::to_string(s).expect("a string serialises")
}

/// What a table shows: its visible row count and a hash of their text.
#[derive(Clone, Debug, PartialEq)]
struct Shown {
    count: u64,
    hash: String,
    first: Vec<String>,
}

impl fmt::Display for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} rows", self.count)
    }
}

fn shown(page: &Page<'_>, table: &str) -> Result<Shown, String> {
    let v = page.eval(&script(&format!("return CA.shown({});", js_str(table))))?;
    if v.is_null() {
        return Err(format!("no table[data-table=\"{table}\"] on the page"));
    }
    Ok(Shown {
        count: v["count"].as_u64().unwrap_or(0),
        hash: v["hash"].as_str().unwrap_or_default().to_string(),
        first: v["first"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
    })
}

/// After an input: waits until the table shows something other than
/// `from` (at most [`CHANGE_WAIT`]), then until it holds still for 150 ms.
fn settle(page: &Page<'_>, table: &str, from: &Shown) -> Result<Shown, String> {
    let deadline = Instant::now() + CHANGE_WAIT;
    let mut now = shown(page, table)?;
    while now.hash == from.hash && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
        now = shown(page, table)?;
    }
    let deadline = Instant::now() + Duration::from_secs(1);
    loop {
        std::thread::sleep(Duration::from_millis(150));
        let next = shown(page, table)?;
        if next == now || Instant::now() >= deadline {
            return Ok(next);
        }
        now = next;
    }
}

/// Sets a control's value and fires the events a user's change fires.
fn set(page: &Page<'_>, selector: &str, value: &str, events: &[&str]) -> Result<(), String> {
    let events = serde_json::to_string(events).expect("strings serialise");
    let done = page.eval(&script(&format!(
        "return CA.set({}, {}, {events});",
        js_str(selector),
        js_str(value)
    )))?;
    if done == Value::Bool(true) {
        Ok(())
    } else {
        Err(format!("no {selector} on the page"))
    }
}

/// A select's current value and its options' values.
fn options(page: &Page<'_>, selector: &str) -> Result<(String, Vec<String>), String> {
    let v = page.eval(&script(&format!(
        "return CA.options({});",
        js_str(selector)
    )))?;
    if v.is_null() {
        return Err(format!("no <select> {selector} on the page"));
    }
    let values = v["options"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect();
    Ok((v["value"].as_str().unwrap_or_default().to_string(), values))
}

/// The visible violations rows whose `column` cell lacks `needle`.
fn rows_without(page: &Page<'_>, column: &str, needle: &str) -> Result<Option<String>, String> {
    let v = page.eval(&script(&format!(
        "return CA.missing('violations', {}, {});",
        js_str(column),
        js_str(needle)
    )))?;
    let count = v["count"].as_u64().unwrap_or(0);
    if count == 0 {
        return Ok(None);
    }
    let place = if v["column"] == Value::Bool(true) {
        format!("the {column} column of")
    } else {
        format!("(no th[data-sort=\"{column}\"], so the text of)")
    };
    Ok(Some(format!(
        "{count} visible rows lack {needle:?} in {place} the row, e.g. {}",
        v["example"]
    )))
}

const INPUT_CHANGE: &[&str] = &["input", "change"];

/// Selects `value` in `selector` and checks that the violations shown
/// change, that every row shown carries `value` in `column`, and that
/// going back to the first value shows the rows of before.
fn check_select(
    page: &Page<'_>,
    selector: &str,
    value: &str,
    column: &str,
) -> Result<String, String> {
    let (initial, _) = options(page, selector)?;
    let before = shown(page, "violations")?;
    if before.count == 0 {
        return Err("the violations table shows no rows before filtering".into());
    }
    set(page, selector, value, INPUT_CHANGE)?;
    let after = settle(page, "violations", &before)?;
    let result = (|| {
        if after.hash == before.hash {
            return Err(format!(
                "selecting {value:?} left the violations shown as they were ({before}, first {:?})",
                before.first
            ));
        }
        if let Some(stray) = rows_without(page, column, value)? {
            return Err(format!(
                "after selecting {value:?} ({before} -> {after}): {stray}"
            ));
        }
        Ok(format!("{selector} = {value:?}: {before} -> {after}"))
    })();
    set(page, selector, &initial, INPUT_CHANGE)?;
    let result = result?;
    let reset = settle(page, "violations", &after)?;
    if reset.count != before.count {
        return Err(format!(
            "{result}, but setting it back to {initial:?} shows {reset}, not the {before} of before"
        ));
    }
    Ok(result)
}

/// The option of a select to try: `preferred` when offered, else the
/// second non-empty value (the first when there is one only).
fn pick(options: &[String], preferred: Option<&str>) -> Option<String> {
    if let Some(p) = preferred.filter(|p| options.iter().any(|o| o == p)) {
        return Some(p.to_string());
    }
    let values: Vec<&String> = options.iter().filter(|o| !o.trim().is_empty()).collect();
    values.get(1).or(values.first()).map(|v| v.to_string())
}

/// Check 6a: `#f-crawler` (a crawler other than the first offered).
pub fn check_crawler_filter(page: &Page<'_>) -> Result<String, String> {
    let (_, opts) = options(page, "#f-crawler")?;
    let non_empty = opts.iter().filter(|o| !o.trim().is_empty()).count();
    if non_empty < 2 {
        return Err(format!(
            "#f-crawler offers {non_empty} crawlers ({opts:?}): need two to test"
        ));
    }
    let value = pick(&opts, None).expect("two values");
    check_select(page, "#f-crawler", &value, "crawler")
}

/// Check 6b: `#f-search`, with a crawler's name that some rows shown
/// carry and others do not.
pub fn check_search_filter(page: &Page<'_>) -> Result<String, String> {
    let v = page.eval(&script(
        r#"
        const el = document.querySelector('#f-search');
        if (!el) return {error: 'no #f-search on the page'};
        const rows = CA.rows('violations');
        if (!rows) return {error: 'no table[data-table="violations"] on the page'};
        const texts = rows.map(r => CA.text(r).toLowerCase());
        const c = CA.col('violations', 'crawler');
        const names = [];
        const sel = document.querySelector('#f-crawler');
        if (sel && sel.options) for (const o of sel.options) if (o.value.trim()) names.push(o.value);
        for (const r of rows) names.push(CA.cell(r, c >= 0 ? c : 1));
        for (const n of names) {
          const k = texts.filter(t => t.includes(n.toLowerCase())).length;
          if (n && k > 0 && k < texts.length) return {term: n, initial: el.value};
        }
        return {error: 'no crawler name is in some but not all of the ' + rows.length + ' violations rows shown'};
        "#,
    ))?;
    if let Some(e) = v["error"].as_str() {
        return Err(e.to_string());
    }
    let term = v["term"].as_str().unwrap_or_default().to_string();
    let initial = v["initial"].as_str().unwrap_or_default().to_string();
    let before = shown(page, "violations")?;
    set(page, "#f-search", &term, &["input"])?;
    let after = settle(page, "violations", &before)?;
    let result = (|| {
        if after.hash == before.hash {
            return Err(format!(
                "typing {term:?} left the violations shown as they were ({before}, some without it)"
            ));
        }
        if after.count == 0 {
            return Err(format!(
                "typing {term:?}, which {before} contain some of, shows no rows"
            ));
        }
        let stray = page.eval(&script(&format!(
            "const n = {}.toLowerCase(); const bad = CA.rows('violations').map(r => CA.text(r)).filter(t => !t.toLowerCase().includes(n)); return bad.length ? bad.length + ' rows shown lack it, e.g. ' + JSON.stringify(bad[0].slice(0, 160)) : null;",
            js_str(&term)
        )))?;
        if let Some(stray) = stray.as_str() {
            return Err(format!(
                "after typing {term:?} ({before} -> {after}): {stray}"
            ));
        }
        Ok(format!("#f-search = {term:?}: {before} -> {after}"))
    })();
    set(page, "#f-search", &initial, &["input"])?;
    let result = result?;
    let reset = settle(page, "violations", &after)?;
    if reset.count != before.count {
        return Err(format!(
            "{result}, but clearing it shows {reset}, not the {before} of before"
        ));
    }
    Ok(result)
}

/// The crawlers table's visible rows: first column and requests.
fn crawler_rows(page: &Page<'_>) -> Result<(Vec<String>, Vec<f64>), String> {
    let v = page.eval(&script(
        r#"
        const rows = CA.rows('crawlers');
        if (!rows) return {error: 'no table[data-table="crawlers"] on the page'};
        const i = CA.col('crawlers', 'requests');
        if (i < 0) return {error: 'no th[data-sort="requests"] in the crawlers table'};
        return {
          first: rows.map(r => CA.cell(r, 0)),
          requests: rows.map(r => { const d = CA.cell(r, i).replace(/[^0-9]/g, ''); return d ? Number(d) : null; }),
        };
        "#,
    ))?;
    if let Some(e) = v["error"].as_str() {
        return Err(e.to_string());
    }
    let first = v["first"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| s.as_str().unwrap_or_default().to_string())
        .collect();
    let requests = v["requests"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|n| {
            n.as_f64()
                .ok_or_else(|| format!("a requests cell without a number ({v})"))
        })
        .collect::<Result<_, _>>()?;
    Ok((first, requests))
}

fn click_sort(page: &Page<'_>, table: &str, key: &str) -> Result<(), String> {
    let done = page.eval(&script(&format!(
        "const th = document.querySelector('table[data-table=\"{table}\"] th[data-sort=\"{key}\"]'); if (!th) return false; (th.querySelector('button') || th).click(); return true;"
    )))?;
    if done == Value::Bool(true) {
        Ok(())
    } else {
        Err(format!(
            "no table[data-table=\"{table}\"] th[data-sort=\"{key}\"]"
        ))
    }
}

fn direction(values: &[f64]) -> &'static str {
    let up = values.windows(2).all(|w| w[0] <= w[1]);
    let down = values.windows(2).all(|w| w[0] >= w[1]);
    match (up, down) {
        (true, true) => "constant",
        (true, false) => "ascending",
        (false, true) => "descending",
        (false, false) => "unsorted",
    }
}

/// Check 6c: clicking the requests header sorts the crawlers by requests,
/// and clicking again sorts the other way; the order shown changes.
pub fn check_sort(page: &Page<'_>) -> Result<String, String> {
    let (first0, req0) = crawler_rows(page)?;
    if first0.len() < 2 {
        return Err(format!(
            "the crawlers table shows {} rows: need two to sort",
            first0.len()
        ));
    }
    let before = shown(page, "crawlers")?;
    click_sort(page, "crawlers", "requests")?;
    let once = settle(page, "crawlers", &before)?;
    let (first1, req1) = crawler_rows(page)?;
    click_sort(page, "crawlers", "requests")?;
    settle(page, "crawlers", &once)?;
    let (first2, req2) = crawler_rows(page)?;
    let (d1, d2) = (direction(&req1), direction(&req2));
    if first1 == first0 && first2 == first1 {
        return Err(format!(
            "two clicks on th[data-sort=\"requests\"] left the order as it was: {first0:?} (requests {req0:?})"
        ));
    }
    let opposite = matches!(
        (d1, d2),
        ("ascending", "descending") | ("descending", "ascending")
    );
    if !opposite {
        return Err(format!(
            "after one click the requests are {d1} ({req1:?}), after two {d2} ({req2:?}): \
             want one direction then the other"
        ));
    }
    Ok(format!(
        "requests {d1} then {d2}; first rows {:?} -> {:?}",
        &first1[..2],
        &first2[..2]
    ))
}

/// Check 6d (large report): `#f-kind`, crawl-delay when offered.
pub fn check_kind_filter(page: &Page<'_>) -> Result<String, String> {
    let (_, opts) = options(page, "#f-kind")?;
    let value = pick(&opts, Some("crawl-delay"))
        .ok_or_else(|| format!("#f-kind offers no kind ({opts:?})"))?;
    check_select(page, "#f-kind", &value, "kind")
}

/// Check 6e (large report): `#f-from` and `#f-to` both set to `day`.
pub fn check_date_filter(page: &Page<'_>, day: &str) -> Result<String, String> {
    let initial = page.eval(
        "[document.querySelector('#f-from'), document.querySelector('#f-to')].map(e => e ? e.value : null)",
    )?;
    let (from0, to0) = match (initial[0].as_str(), initial[1].as_str()) {
        (Some(f), Some(t)) => (f.to_string(), t.to_string()),
        _ => return Err(format!("no #f-from and #f-to on the page ({initial})")),
    };
    let before = shown(page, "violations")?;
    set(page, "#f-from", day, INPUT_CHANGE)?;
    set(page, "#f-to", day, INPUT_CHANGE)?;
    let after = settle(page, "violations", &before)?;
    set(page, "#f-from", &from0, INPUT_CHANGE)?;
    set(page, "#f-to", &to0, INPUT_CHANGE)?;
    if after.hash == before.hash {
        return Err(format!(
            "from = to = {day} left the violations shown as they were ({before})"
        ));
    }
    let reset = settle(page, "violations", &after)?;
    if reset.count != before.count {
        return Err(format!(
            "from = to = {day}: {before} -> {after}, but setting them back ({from0:?}, {to0:?}) \
             shows {reset}"
        ));
    }
    Ok(format!("from = to = {day}: {before} -> {after}"))
}

/// Check 7: a PNG of the page, at most [`MAX_SHOT_HEIGHT`] tall.
pub fn screenshot(page: &Page<'_>, width: u32, path: &Path) -> Result<String, String> {
    let metrics = page.call("Page.getLayoutMetrics", json!({}))?;
    let content = &metrics["cssContentSize"];
    let height = content["height"]
        .as_f64()
        .unwrap_or(f64::from(height_for(width)));
    let height = height.clamp(1.0, MAX_SHOT_HEIGHT);
    let shot = page.call(
        "Page.captureScreenshot",
        json!({
            "format": "png",
            "captureBeyondViewport": true,
            "clip": { "x": 0, "y": 0, "width": width, "height": height, "scale": 1 },
        }),
    )?;
    let png = base64_decode(shot["data"].as_str().ok_or("no data in the screenshot")?)?;
    if !png.starts_with(b"\x89PNG\r\n\x1a\n") {
        return Err("the screenshot is not a PNG".into());
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(path, &png).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(format!(
        "{} ({} bytes, {width}x{height:.0} CSS px)",
        path.display(),
        png.len()
    ))
}

/// Check 2: the page logged nothing, threw nothing, and Chromium logged
/// no error. A `network` log entry (a failed load) is left to
/// [`check_requests`], which names the request.
pub fn check_console(page: &Page<'_>, mark: usize) -> Result<String, String> {
    let mut seen = Vec::new();
    for e in page.events("Runtime.consoleAPICalled", mark) {
        let args: Vec<String> = e["args"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|a| match a.get("value") {
                Some(Value::String(s)) => s.clone(),
                Some(v) => v.to_string(),
                None => a["description"].as_str().unwrap_or("?").to_string(),
            })
            .collect();
        seen.push(format!(
            "console.{}({})",
            e["type"].as_str().unwrap_or("?"),
            args.join(", ")
        ));
    }
    for e in page.events("Runtime.exceptionThrown", mark) {
        let d = &e["exceptionDetails"];
        let text = d["exception"]["description"]
            .as_str()
            .or(d["text"].as_str())
            .unwrap_or("?");
        seen.push(format!(
            "exception {text} at line {}:{}",
            d["lineNumber"].as_i64().map_or(-1, |n| n + 1),
            d["columnNumber"].as_i64().map_or(-1, |n| n + 1)
        ));
    }
    for e in page.events("Log.entryAdded", mark) {
        let entry = &e["entry"];
        if entry["level"] == "error" && entry["source"] != "network" {
            seen.push(format!(
                "log error ({}): {} {}",
                entry["source"].as_str().unwrap_or("?"),
                entry["text"].as_str().unwrap_or("?"),
                entry["url"].as_str().unwrap_or("")
            ));
        }
    }
    if seen.is_empty() {
        Ok("nothing logged".into())
    } else {
        Err(format!(
            "{} console message(s)/error(s): {}",
            seen.len(),
            summarise(&seen)
        ))
    }
}

/// Check 3: every request is for the report itself (or data:, about:).
pub fn check_requests(page: &Page<'_>, mark: usize, own: &str) -> Result<String, String> {
    let mut all = 0;
    let mut foreign = Vec::new();
    for e in page.events("Network.requestWillBeSent", mark) {
        all += 1;
        let url = e["request"]["url"].as_str().unwrap_or_default();
        let base = url.split('#').next().unwrap_or_default();
        if base == own || url.starts_with("data:") || url.starts_with("about:") {
            continue;
        }
        foreign.push(format!("{} {url}", e["type"].as_str().unwrap_or("?")));
    }
    if foreign.is_empty() {
        Ok(format!("{all} request(s), all the page's own"))
    } else {
        Err(format!(
            "{} request(s) leave the page: {}",
            foreign.len(),
            summarise(&foreign)
        ))
    }
}

fn summarise(items: &[String]) -> String {
    let mut text: Vec<String> = items
        .iter()
        .take(5)
        .map(|s| s.chars().take(300).collect())
        .collect();
    if items.len() > 5 {
        text.push(format!("and {} more", items.len() - 5));
    }
    text.join("; ")
}

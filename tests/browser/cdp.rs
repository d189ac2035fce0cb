//! A small Chrome DevTools Protocol driver over a pipe: headless Chromium
//! started with `--remote-debugging-pipe` reads commands from its fd 3 and
//! writes responses and events to its fd 4, each message JSON ended by a
//! NUL byte. A reader thread splits the messages, files responses by id and
//! keeps every event; [`Browser::call`] sends one command and waits for its
//! answer with a timeout. Pages are targets attached with `flatten: true`:
//! their commands carry the session id ([`Page::call`]).
//!
//! Dropping the browser asks it to close, then kills its process group and
//! removes its temporary profile.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::{FromRawFd, RawFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long a command may take before [`Browser::call`] gives up.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(30);

/// Why a wait ended without what it waited for.
enum Waited {
    /// Chromium closed the pipe, and why.
    Closed(String),
    /// The time ran out.
    Late,
}

/// What the reader thread shares with the callers.
#[derive(Default)]
struct State {
    /// Responses not yet taken, by command id.
    responses: HashMap<u64, Value>,
    /// Every event received, in order.
    events: Vec<Value>,
    /// Set when the pipe closed or carried something that is not JSON.
    closed: Option<String>,
}

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    changed: Condvar,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A headless Chromium driven over the DevTools pipe.
pub struct Browser {
    child: Child,
    commands: Mutex<File>,
    shared: Arc<Shared>,
    next_id: AtomicU64,
    reader: Option<JoinHandle<()>>,
    binary: PathBuf,
    stderr_log: PathBuf,
    /// The `--user-data-dir`, removed after the browser is gone (fields
    /// drop after [`Drop::drop`] ran).
    profile: Option<tempfile::TempDir>,
}

/// The Chromium to use: `CRAWLAUDIT_CHROMIUM`, else the first of
/// `chromium`, `chromium-browser`, `google-chrome` on `PATH`.
pub fn find_chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("CRAWLAUDIT_CHROMIUM").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        for dir in std::env::split_paths(&path) {
            let candidate = dir.join(name);
            if is_executable(&candidate) {
                return Some(candidate);
            }
        }
    }
    None
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// A pipe whose two ends are close-on-exec: (read, write).
fn pipe() -> std::io::Result<(File, File)> {
    let mut fds = [0 as RawFd; 2];
    // SAFETY: `fds` is a valid array of two ints for pipe2 to fill.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: pipe2 succeeded, so both fds are open and owned by nobody else.
    Ok(unsafe { (File::from_raw_fd(fds[0]), File::from_raw_fd(fds[1])) })
}

impl Browser {
    /// Starts `binary` headless with the DevTools pipe on fds 3 and 4 and
    /// waits until it answers `Browser.getVersion`.
    pub fn launch(binary: &Path) -> Result<Browser, String> {
        use std::os::fd::AsRawFd;
        let profile = tempfile::Builder::new()
            .prefix("crawlaudit-chromium-")
            .tempdir()
            .map_err(|e| format!("creating a temporary profile: {e}"))?;
        let stderr_log = profile.path().join("chromium-stderr.log");
        let stderr =
            File::create(&stderr_log).map_err(|e| format!("{}: {e}", stderr_log.display()))?;
        // Commands: we write, the child reads on fd 3. Responses: the child
        // writes on fd 4, we read.
        let (cmd_read, cmd_write) = pipe().map_err(|e| format!("pipe: {e}"))?;
        let (resp_read, resp_write) = pipe().map_err(|e| format!("pipe: {e}"))?;
        let (child_in, child_out) = (cmd_read.as_raw_fd(), resp_write.as_raw_fd());
        let mut command = Command::new(binary);
        command
            .args([
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                "--remote-debugging-pipe",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .args(["--no-first-run", "about:blank"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr)
            // Its own process group, so that its helpers (zygote,
            // renderers) are ended with it.
            .process_group(0);
        // SAFETY: the closure only calls fcntl and dup2, which are
        // async-signal-safe, on fds that are open in the child.
        unsafe {
            command.pre_exec(move || {
                // First above 10, so that neither lands on 3 or 4 before
                // it is placed there (and dup2 of an fd onto itself would
                // keep its close-on-exec flag).
                let input = libc::fcntl(child_in, libc::F_DUPFD, 10);
                let output = libc::fcntl(child_out, libc::F_DUPFD, 10);
                if input < 0 || output < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                if libc::dup2(input, 3) < 0 || libc::dup2(output, 4) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                libc::close(input);
                libc::close(output);
                Ok(())
            });
        }
        let child = command
            .spawn()
            .map_err(|e| format!("starting {}: {e}", binary.display()))?;
        // The child's ends are the child's alone now: without this, our
        // reader would never see end-of-file when it exits.
        drop(cmd_read);
        drop(resp_write);
        let shared = Arc::new(Shared::default());
        let reader = {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new()
                .name("cdp-reader".into())
                .spawn(move || read_messages(resp_read, &shared))
                .map_err(|e| format!("reader thread: {e}"))?
        };
        let browser = Browser {
            child,
            commands: Mutex::new(cmd_write),
            shared,
            next_id: AtomicU64::new(1),
            reader: Some(reader),
            binary: binary.to_path_buf(),
            stderr_log,
            profile: Some(profile),
        };
        browser
            .call_timeout(
                None,
                "Browser.getVersion",
                json!({}),
                Duration::from_secs(60),
            )
            .map_err(|e| format!("{} did not start: {e}", binary.display()))?;
        Ok(browser)
    }

    /// The last lines Chromium wrote on stderr, for error messages.
    pub fn stderr_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.stderr_log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(15)..].join("\n")
    }

    /// Sends `method` (to `session`'s target when given) and waits for its
    /// result, at most [`CALL_TIMEOUT`].
    pub fn call(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
    ) -> Result<Value, String> {
        self.call_timeout(session, method, params, CALL_TIMEOUT)
    }

    /// [`Browser::call`] with its own timeout.
    pub fn call_timeout(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, String> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut message = json!({ "id": id, "method": method, "params": params });
        if let Some(session) = session {
            message["sessionId"] = Value::from(session);
        }
        let mut bytes = serde_json::to_vec(&message).expect("a JSON value serialises");
        bytes.push(0);
        {
            let mut pipe = self.commands.lock().unwrap_or_else(|e| e.into_inner());
            pipe.write_all(&bytes)
                .and_then(|()| pipe.flush())
                .map_err(|e| format!("{method}: writing to chromium's pipe: {e}"))?;
        }
        let response = self
            .wait_until(timeout, |state| state.responses.remove(&id))
            .map_err(|waited| match waited {
                Waited::Closed(why) => format!(
                    "{method}: {why}; chromium's stderr:\n{}",
                    self.stderr_tail()
                ),
                Waited::Late => format!("{method}: no answer within {timeout:?}"),
            })?;
        if let Some(error) = response.get("error") {
            return Err(format!("{method}: {error}"));
        }
        Ok(response.get("result").cloned().unwrap_or(Value::Null))
    }

    /// Waits until `found` finds what it looks for in the state (looked
    /// at again on every change), chromium closes the pipe, or `timeout`
    /// passes.
    fn wait_until<T>(
        &self,
        timeout: Duration,
        mut found: impl FnMut(&mut State) -> Option<T>,
    ) -> Result<T, Waited> {
        let deadline = Instant::now() + timeout;
        let mut state = self.shared.lock();
        loop {
            if let Some(t) = found(&mut state) {
                return Ok(t);
            }
            if let Some(why) = &state.closed {
                return Err(Waited::Closed(why.clone()));
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(Waited::Late);
            }
            state = self
                .shared
                .changed
                .wait_timeout(state, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// How many events have arrived so far: a mark for [`Browser::wait_event`]
    /// and [`Browser::events`].
    pub fn event_mark(&self) -> usize {
        self.shared.lock().events.len()
    }

    /// The events named `method` for `session` received since `mark`.
    pub fn events(&self, session: &str, method: &str, mark: usize) -> Vec<Value> {
        let state = self.shared.lock();
        state.events[mark.min(state.events.len())..]
            .iter()
            .filter(|e| e["method"] == method && e["sessionId"] == session)
            .map(|e| e["params"].clone())
            .collect()
    }

    /// Waits for an event named `method` for `session` after `mark`.
    pub fn wait_event(
        &self,
        session: &str,
        method: &str,
        mark: usize,
        timeout: Duration,
    ) -> Result<Value, String> {
        let mut from = mark;
        self.wait_until(timeout, |state| {
            let hit = state.events[from.min(state.events.len())..]
                .iter()
                .find(|e| e["method"] == method && e["sessionId"] == session)
                .map(|e| e["params"].clone());
            from = state.events.len();
            hit
        })
        .map_err(|waited| match waited {
            Waited::Closed(why) => format!("waiting for {method}: {why}"),
            Waited::Late => format!("no {method} within {timeout:?}"),
        })
    }

    /// Opens a new tab on `about:blank` and attaches to it.
    pub fn new_page(&self) -> Result<Page<'_>, String> {
        let target = self.call(None, "Target.createTarget", json!({ "url": "about:blank" }))?;
        let target_id = target["targetId"]
            .as_str()
            .ok_or_else(|| format!("Target.createTarget answered {target}"))?
            .to_string();
        let attached = self.call(
            None,
            "Target.attachToTarget",
            json!({ "targetId": target_id, "flatten": true }),
        )?;
        let session = attached["sessionId"]
            .as_str()
            .ok_or_else(|| format!("Target.attachToTarget answered {attached}"))?
            .to_string();
        Ok(Page {
            browser: self,
            session,
            target_id,
        })
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.call_timeout(None, "Browser.close", json!({}), Duration::from_secs(2));
        let deadline = Instant::now() + Duration::from_secs(3);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        // The whole process group we created (its pid is the child's).
        if let Ok(pid) = libc::pid_t::try_from(self.child.id()) {
            // SAFETY: kill has no memory-safety preconditions.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(reader) = self.reader.take() {
            // The pipe closed with the browser: the reader ends.
            let _ = reader.join();
        }
        if let Some(Err(e)) = self.profile.take().map(tempfile::TempDir::close) {
            eprintln!(
                "removing the chromium profile of {}: {e}",
                self.binary.display()
            );
        }
    }
}

/// The reader thread: NUL-separated JSON messages from chromium's fd 4.
fn read_messages(pipe: File, shared: &Shared) {
    let mut reader = BufReader::with_capacity(1 << 20, pipe);
    let mut buf = Vec::new();
    let why = loop {
        buf.clear();
        match reader.read_until(0, &mut buf) {
            Ok(0) => break "chromium closed the pipe".to_string(),
            Ok(_) => {}
            Err(e) => break format!("reading chromium's pipe: {e}"),
        }
        if buf.last() == Some(&0) {
            buf.pop();
        }
        let message: Value = match serde_json::from_slice(&buf) {
            Ok(v) => v,
            Err(e) => break format!("chromium sent a message that is not JSON ({e})"),
        };
        let mut state = shared.lock();
        match message.get("id").and_then(Value::as_u64) {
            Some(id) => {
                state.responses.insert(id, message);
            }
            None => state.events.push(message),
        }
        drop(state);
        shared.changed.notify_all();
    };
    shared.lock().closed = Some(why);
    shared.changed.notify_all();
}

/// One tab, attached with a session; closed on drop.
pub struct Page<'b> {
    browser: &'b Browser,
    session: String,
    target_id: String,
}

impl Page<'_> {
    /// Sends `method` to this tab.
    pub fn call(&self, method: &str, params: Value) -> Result<Value, String> {
        self.browser.call(Some(&self.session), method, params)
    }

    /// The browser this tab belongs to.
    pub fn browser(&self) -> &Browser {
        self.browser
    }

    /// Evaluates `expression` in the page (awaiting a promise) and returns
    /// its value; a thrown exception is an error with its description.
    pub fn eval(&self, expression: &str) -> Result<Value, String> {
        let result = self.call(
            "Runtime.evaluate",
            json!({
                "expression": expression,
                "returnByValue": true,
                "awaitPromise": true,
                "userGesture": true,
            }),
        )?;
        if let Some(details) = result.get("exceptionDetails") {
            let text = details["exception"]["description"]
                .as_str()
                .or_else(|| details["text"].as_str())
                .unwrap_or("an exception");
            return Err(format!("evaluating the page's script threw: {text}"));
        }
        Ok(result["result"]["value"].clone())
    }

    /// The events named `method` of this tab since `mark`.
    pub fn events(&self, method: &str, mark: usize) -> Vec<Value> {
        self.browser.events(&self.session, method, mark)
    }

    /// Waits for an event of this tab after `mark`.
    pub fn wait_event(
        &self,
        method: &str,
        mark: usize,
        timeout: Duration,
    ) -> Result<Value, String> {
        self.browser
            .wait_event(&self.session, method, mark, timeout)
    }
}

impl Drop for Page<'_> {
    fn drop(&mut self) {
        let _ = self.browser.call_timeout(
            None,
            "Target.closeTarget",
            json!({ "targetId": self.target_id }),
            Duration::from_secs(5),
        );
    }
}

/// Decodes standard base64 (screenshots), ignoring whitespace.
pub fn base64_decode(text: &str) -> Result<Vec<u8>, String> {
    fn value(c: u8) -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    }
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let (mut acc, mut bits) = (0u32, 0u32);
    for &c in text.as_bytes() {
        if c == b'=' {
            break;
        }
        if c.is_ascii_whitespace() {
            continue;
        }
        let v = value(c).ok_or_else(|| format!("not base64: byte {c:#04x}"))?;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Ok(out)
}

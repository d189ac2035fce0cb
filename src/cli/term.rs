//! Output to the terminal, with control characters made visible.
//!
//! Crawler names, User-Agents, log lines, robots.txt files, TOML keys and
//! paths all come from outside; printed raw, an escape sequence in one of
//! them could set the terminal's title, clear the screen or hide text. So
//! everything the command line prints goes through [`Escaped`], which
//! writes C0 controls (but newline and tab), DEL and C1 controls as
//! `\u00XX` and bytes that are not UTF-8 as `\xHH`. The `\u00XX` form is
//! also a JSON string escape of the same character, so JSON printed
//! through it stays valid and means the same.

use std::io::{self, Write};

/// A writer that shows control characters as escapes.
pub struct Escaped<W: Write>(pub W);

/// Whether `c` is a control character a terminal may act on.
fn is_control(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || matches!(c, '\u{2028}' | '\u{2029}')
}

impl<W: Write> Write for Escaped<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut out = Vec::with_capacity(buf.len());
        for chunk in buf.utf8_chunks() {
            for c in chunk.valid().chars() {
                if is_control(c) {
                    let _ = write!(out, "\\u{:04x}", u32::from(c));
                } else {
                    let mut utf8 = [0; 4];
                    out.extend_from_slice(c.encode_utf8(&mut utf8).as_bytes());
                }
            }
            for b in chunk.invalid() {
                let _ = write!(out, "\\x{b:02x}");
            }
        }
        self.0.write_all(&out)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

/// Standard output, escaped.
pub fn stdout() -> Escaped<io::StdoutLock<'static>> {
    Escaped(io::stdout().lock())
}

/// Standard error, escaped.
pub fn stderr() -> Escaped<io::Stderr> {
    Escaped(io::stderr())
}

/// `text` with control characters escaped, for messages handed to other
/// writers (the progress bar).
pub fn escape(text: &str) -> String {
    let mut out = Escaped(Vec::new());
    let _ = out.write_all(text.as_bytes());
    String::from_utf8(out.0).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_shown_not_acted_on() {
        // Set the title, clear the screen, a C1 CSI, DEL, a bare CR.
        let hostile = "Bot\u{1b}]0;owned\u{7}\u{1b}[2J\u{9b}31m\u{7f}x\ry";
        assert_eq!(
            escape(hostile),
            "Bot\\u001b]0;owned\\u0007\\u001b[2J\\u009b31m\\u007fx\\u000dy"
        );
        // Newlines, tabs and non-ASCII text pass.
        assert_eq!(escape("a\tb\nGöögle 日本"), "a\tb\nGöögle 日本");
        // Bytes that are not UTF-8.
        let mut out = Escaped(Vec::new());
        out.write_all(b"a\xff\x9bb").unwrap();
        assert_eq!(out.0, b"a\\xff\\x9bb");
        // JSON printed through it stays JSON, with the same value.
        let json = serde_json::to_string("\u{9b}2J\u{1b}").unwrap();
        let shown = escape(&json);
        assert!(!shown.contains('\u{9b}'), "{shown}");
        assert_eq!(
            serde_json::from_str::<String>(&shown).unwrap(),
            "\u{9b}2J\u{1b}"
        );
    }
}

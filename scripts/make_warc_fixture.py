#!/usr/bin/env python3
"""Regenerate fixtures/warc/wget-site.warc.gz: a real `wget --warc-file`
crawl of a small site served on 127.0.0.1, whose pages carry X-Robots-Tag
headers and robots <meta> tags. Development tool (needs wget); the test
tests/snapshot_wget.rs reads the committed output.

    python3 scripts/make_warc_fixture.py

The site (port 18931, so the WARC's host is 127.0.0.1:18931):
  /robots.txt        User-agent: * / Disallow: /private/
  /                  links to every page
  /a.html            <meta name="robots" content="noindex">
  /b.html            X-Robots-Tag: googlebot: nofollow, otherbot: noindex
  /c.html            <meta name="googlebot" content="noindex&#44; noarchive">
                     and X-Robots-Tag: unavailable_after: Wed, 03 Dec 2025 13:09:53 GMT
  /d.html            no rules
  /doc.pdf           X-Robots-Tag: noindex, nofollow (not HTML)
  /e.html            two X-Robots-Tag lines: noimageindex / max-snippet: 20
"""

import http.server
import os
import shutil
import socketserver
import subprocess
import tempfile
import threading
from pathlib import Path

PORT = 18931
OUT = Path(__file__).resolve().parent.parent / "fixtures" / "warc" / "wget-site.warc.gz"

PAGES = {
    "/robots.txt": ("text/plain", b"User-agent: *\nDisallow: /private/\n", []),
    "/": ("text/html", b'<html><body><a href="/a.html">a</a> <a href="/b.html">b</a> <a href="/c.html">c</a> '
          b'<a href="/d.html">d</a> <a href="/doc.pdf">pdf</a> <a href="/e.html">e</a> <a href="/private/x.html">x</a></body></html>', []),
    "/a.html": ("text/html", b'<!doctype html><html><head><meta name="robots" content="noindex"></head><body>a</body></html>', []),
    "/b.html": ("text/html", b"<html><body>b</body></html>", [("X-Robots-Tag", "googlebot: nofollow, otherbot: noindex")]),
    "/c.html": ("text/html", b"<html><head><META NAME=googlebot CONTENT='noindex&#44; noarchive'></head><body>c</body></html>",
                [("X-Robots-Tag", "unavailable_after: Wed, 03 Dec 2025 13:09:53 GMT")]),
    "/d.html": ("text/html", b"<html><body>d <!-- <meta name=robots content=noindex> --></body></html>", []),
    "/doc.pdf": ("application/pdf", b"%PDF-1.4 fake", [("X-Robots-Tag", "noindex, nofollow")]),
    "/e.html": ("text/html", b"<html><body>e</body></html>", [("X-Robots-Tag", "noimageindex"), ("X-Robots-Tag", "max-snippet: 20")]),
}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        page = PAGES.get(self.path)
        if page is None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        ctype, body, headers = page
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def main():
    server = socketserver.TCPServer(("127.0.0.1", PORT), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            ["wget", "--quiet", "--recursive", "--level=2", "--no-parent", "--tries=1", "--timeout=10",
             "--delete-after", "--no-warc-keep-log", f"--warc-file={tmp}/site", f"http://127.0.0.1:{PORT}/"],
            cwd=tmp, check=False,
        )
        OUT.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(f"{tmp}/site.warc.gz", OUT)
    server.shutdown()
    print(f"wrote {OUT} ({os.path.getsize(OUT)} bytes)")


if __name__ == "__main__":
    main()

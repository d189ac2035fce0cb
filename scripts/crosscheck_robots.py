#!/usr/bin/env python3
"""Cross-check `crawlaudit check` against Google's reference robots.txt matcher.

Development tool, not part of CI. Needs the PyPI package `jwm-robotstxt`
(Python bindings of github.com/google/robotstxt):

    pip install jwm-robotstxt
    cargo build --release
    python3 scripts/crosscheck_robots.py --random 1000 --seed 1
    python3 scripts/crosscheck_robots.py --random 300 --lines 300 --urls 40
    python3 scripts/crosscheck_robots.py --corpus ../shared/data/robots_corpus/protego

For each robots.txt (random, or every file below a corpus directory) and each
product token, it runs `crawlaudit check` once with many URLs and compares
every decision, and the deciding line whenever crawlaudit names one, with
`RobotsMatcher.OneAgentAllowedByRobots` and `matching_line()`.

Two differences are by design and are not counted as disagreements:
- `/robots.txt` itself is always allowed (RFC 9309 section 2.2.2);
- only the first 500 KiB of a file are read, so the oracle is given the same
  500 KiB.

Exit status: 0 when everything agrees, 1 otherwise (the first disagreements
are printed with a reproducer).
"""

import argparse
import os
import random
import subprocess
import sys
from pathlib import Path

from jwm.robotstxt import googlebot

MAX_ROBOTS_BYTES = 500 * 1024
ROOT = Path(__file__).resolve().parent.parent
TOKENS = ["FooBot", "foobot", "Googlebot", "Googlebot-Image", "bar_bot", "BazBot", "a", "X-Y", "Bingbot"]


def default_binary():
    target = os.environ.get("CARGO_TARGET_DIR", str(ROOT / "target"))
    return str(Path(target) / "release" / "crawlaudit")


def oracle(body, token, url):
    m = googlebot.RobotsMatcher()
    ok = m.OneAgentAllowedByRobots(body, token.encode(), url)
    return ok, m.matching_line()


def shown(raw):
    """`raw` as crawlaudit prints it (src/cli/term.rs): invalid UTF-8 bytes
    as \\xHH, control characters but newline and tab as \\u00XX."""
    out = []
    text = raw.decode("utf-8", errors="surrogateescape")
    for c in text:
        code = ord(c)
        if 0xDC80 <= code <= 0xDCFF:
            out.append("\\x%02x" % (code - 0xDC00))
        elif (code < 0x20 and c not in "\n\t") or 0x7F <= code <= 0x9F or c in "\u2028\u2029":
            out.append("\\u%04x" % code)
        else:
            out.append(c)
    return "".join(out).encode()


def run_check(binary, robots_path, token, urls):
    out = subprocess.run([binary, "check", "--", robots_path, token, *urls], capture_output=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"crawlaudit failed ({out.returncode}): {out.stderr.decode(errors='replace')}")
    lines = out.stdout.split(b"\n")
    results = []
    for url, line in zip(urls, lines):
        decision, rest = line.split(b"\t", 1)
        echoed = shown(url)
        assert rest.startswith(echoed + b"\t"), (url, line)
        rule = rest[len(echoed) + 1 :]
        rule_line = None if rule == b"-" else int(rule.split(b":", 1)[0])
        results.append((decision == b"allowed", rule_line))
    return results


# ---- random files -------------------------------------------------------------

PATH_ATOMS = [
    "/", "/", "/", "a", "b", "c", "ab", "*", "*", "$", "?", "=", "&", ".", ".html", "index.html", "index.htm",
    "%2f", "%2F", "%a", "%zz", "%e3%83%84", "ä", "ツ", ";", "-", "_", "~", "%7E", "fish", "php", "$", "//",
]
RAW_ATOMS = [b"\xff", b"\xc3", b"\x80"]


def rand_path(rng, allow_raw=True, allow_special=True):
    parts = ["/"] if rng.random() < 0.9 else []
    for _ in range(rng.randint(0, 6)):
        a = rng.choice(PATH_ATOMS)
        if not allow_special and a in ("*", "$"):
            a = "x"
        parts.append(a)
    data = "".join(parts).encode()
    if allow_raw and rng.random() < 0.05:
        data += rng.choice(RAW_ATOMS)
    return data


UA_KEYS = ["User-agent", "user-agent", "USER-AGENT", "useragent", "user agent", "User-Agents", "User-agent "]
ALLOW_KEYS = ["Allow", "allow", "ALLOW", "Allowed", "allow "]
DISALLOW_KEYS = ["Disallow", "disallow", "DISALLOW", "disalow", "dissallow", "dissalow", "diasllow", "disallaw", "Disallow "]
OTHER_KEYS = ["Sitemap", "Crawl-delay", "Request-rate", "Noindex", "Host", "Clean-param", "foo", "site-map"]


def rand_agent(rng):
    choice = rng.random()
    if choice < 0.3:
        return "*"
    if choice < 0.35:
        return rng.choice(["* extra", "*foo", "*\tx", ""])
    token = rng.choice(TOKENS)
    token = "".join(c.upper() if rng.random() < 0.3 else c for c in token)
    suffix = rng.choice(["", "", "", "/2.1", " Bar", "*", " *", "(compatible)"])
    return token + suffix


def rand_line(rng, state, agents=0.22):
    r = rng.random()
    sep = rng.choice([": ", ":", " :  ", " ", "\t", ":\t"])
    if r < agents:
        return f"{rng.choice(UA_KEYS)}{sep}{rand_agent(rng)}".encode()
    if r < 0.5:
        return rng.choice(DISALLOW_KEYS).encode() + sep.encode() + rand_path(rng)
    if r < 0.72:
        return rng.choice(ALLOW_KEYS).encode() + sep.encode() + rand_path(rng)
    if r < 0.8:
        key = rng.choice(OTHER_KEYS)
        value = rng.choice(["https://e.example/s.xml", "10", "0.5", "1/10s", "/x", "bogus"])
        return f"{key}{sep}{value}".encode()
    if r < 0.85:
        return b"# comment " + rand_path(rng)
    if r < 0.88:
        return rng.choice([b"<html><body>Not found</body></html>", b"<!DOCTYPE html>", b"  <p>x: y</p>"])
    if r < 0.9:
        return b"Disallow: /" + b"a" * rng.choice([16640, 16652, 16653, 16700, 20000]) + b"/tail"
    if r < 0.92:
        return b"Disallow: /nul\x00after" if rng.random() < 0.5 else b"Allow: /x # c\x00"
    if r < 0.94:
        return b"  \t "
    return b""


def rand_robots(rng, max_lines=25):
    # Longer files have fewer `User-agent` lines, so that their groups
    # hold many rules (16 and more are indexed).
    agents = 0.22 if max_lines <= 25 else 0.02
    lines = [rand_line(rng, None, agents) for _ in range(rng.randint(0, max_lines))]
    out = b""
    if rng.random() < 0.08:
        out += rng.choice([b"\xef\xbb\xbf", b"\xef\xbb", b"\xef", b"\xef\x11"])
    for line in lines:
        out += line + rng.choice([b"\n", b"\n", b"\n", b"\r\n", b"\r", b"\n\r"])
    if rng.random() < 0.3 and out:
        out = out.rstrip(b"\r\n")
    return out


def rand_url(rng):
    path = rand_path(rng, allow_special=rng.random() < 0.3)
    if b"\x00" in path:
        path = path.replace(b"\x00", b"")
    r = rng.random()
    if r < 0.6:
        url = b"http://example.com" + path
    elif r < 0.7:
        url = path
    elif r < 0.75:
        url = b"https://example.com:8080" + path + b"#frag"
    elif r < 0.8:
        url = b"example.com" + path
    else:
        url = b"http://example.com" + path + b"?q=" + rand_path(rng, allow_raw=False)
    return url


# ---- corpus files -------------------------------------------------------------


def urls_from_rules(rng, body, n):
    """URLs that exercise a real file's own rules."""
    patterns = []
    for raw in body.splitlines():
        line = raw.split(b"#", 1)[0].strip()
        key, _, value = line.partition(b":")
        if key.strip().lower() in (b"allow", b"disallow") and value.strip():
            patterns.append(value.strip())
    urls = [b"http://example.com/", b"http://example.com/index.html", b"http://example.com/search?q=x"]
    rng.shuffle(patterns)
    for p in patterns[: n * 2]:
        p = p.rstrip(b"$") if rng.random() < 0.7 else p
        p = p.replace(b"*", rng.choice([b"", b"x", b"abc/def", b"?a=1"]))
        if not p.startswith(b"/"):
            p = b"/" + p
        if rng.random() < 0.5:
            p += rng.choice([b"", b"x", b"/", b".html", b"?id=1", b"$"])
        urls.append(b"http://example.com" + p)
    return [u for u in urls if b"\x00" not in u][: n + 3]


def compare(binary, body, tokens, urls, tmp, label, report, stats):
    path = tmp / "robots.txt"
    path.write_bytes(body)
    oracle_body = body[:MAX_ROBOTS_BYTES]
    for token in tokens:
        ours = run_check(binary, str(path), token, urls)
        for url, (allowed, line) in zip(urls, ours):
            stats["checks"] += 1
            ref_allowed, ref_line = oracle(oracle_body, token, url)
            from_path = url.split(b"#")[0]
            if url in (b"/robots.txt",) or from_path.endswith(b"example.com/robots.txt"):
                stats["robots_txt"] += 1
                continue
            stats["disallowed"] += not ref_allowed
            stats["lines_compared"] += line is not None
            if allowed != ref_allowed or (line is not None and line != ref_line):
                stats["disagree"] += 1
                if len(report) < 20:
                    report.append((label, body[:2000], token, url, (allowed, line), (ref_allowed, ref_line)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=default_binary())
    ap.add_argument("--random", type=int, default=0, help="number of random robots.txt files")
    ap.add_argument("--urls", type=int, default=12, help="URLs per random file")
    ap.add_argument(
        "--lines",
        type=int,
        default=25,
        help="most lines per random file (above 25, few are User-agent lines, so that groups of 16 rules and more, which are indexed, are common)",
    )
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--corpus", help="directory of real robots.txt files")
    args = ap.parse_args()

    import tempfile

    rng = random.Random(args.seed)
    tmp = Path(tempfile.mkdtemp(prefix="crosscheck-"))
    report = []
    stats = {"files": 0, "checks": 0, "disagree": 0, "robots_txt": 0, "disallowed": 0, "lines_compared": 0}
    for i in range(args.random):
        body = rand_robots(rng, args.lines)
        tokens = rng.sample(TOKENS, 2)
        urls = [rand_url(rng) for _ in range(args.urls // 2)]
        urls += urls_from_rules(rng, body, args.urls - len(urls))
        if rng.random() < 0.05:
            urls.append(b"http://example.com/robots.txt")
        compare(args.binary, body, tokens, urls, tmp, f"random#{i}", report, stats)
        stats["files"] += 1
    if args.corpus:
        root = Path(args.corpus)
        for f in sorted(root.rglob("*")):
            if not f.is_file() or f.name.endswith(".LICENSE"):
                continue
            body = f.read_bytes()
            urls = urls_from_rules(rng, body, 20)
            label = str(f.relative_to(root))
            compare(args.binary, body, ["Googlebot", "bingbot", "FooBot"], urls, tmp, label, report, stats)
            stats["files"] += 1
        if stats["files"] == 0:
            sys.exit(f"--corpus {args.corpus}: no files found")
    for label, body, token, url, ours, ref in report:
        print(f"DISAGREE {label}: token={token!r} url={url!r} ours={ours} reference={ref}")
        print(f"  robots.txt (first 2000 bytes): {body!r}")
    print(
        f"files={stats['files']} checks={stats['checks']} disagreements={stats['disagree']} "
        f"(reference disallowed {stats['disallowed']}, deciding lines compared {stats['lines_compared']}) "
        f"robots.txt-self (allowed by design)={stats['robots_txt']}"
    )
    return 1 if stats["disagree"] else 0


if __name__ == "__main__":
    sys.exit(main())

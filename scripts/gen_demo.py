#!/usr/bin/env python3
"""Regenerate fixtures/demo/: the small demo site and logs that
`crawlaudit audit` audits when given no logs and no snapshot (they are
embedded in the binary). Deterministic: the same bytes every run.

    python3 scripts/gen_demo.py

The week of 2026-11-01 on two hosts, shop.example and blog.example:
- robots.txt of shop.example changes on 2026-11-03 (it adds Disallow: /search
  and a Crawl-delay of 5 for everyone), answers 503 from 2026-11-05T10:00 to
  2026-11-06T14:00 (longer than the 24 h cache grace, so requests late on the
  6th are judged against the complete disallow alone), then the second
  version again;
- GPTBot and CCBot are disallowed everywhere, yet GPTBot crawls;
- SemrushBot crawls through the 503 outage;
- AhrefsBot ignores the Crawl-delay; a client claiming to be Googlebot comes
  from outside Google's ranges; python-requests never reads robots.txt;
- pages marked noindex (header, meta, googlebot-only) and one with
  unavailable_after are shown by Google, Bing (and DuckDuckGo, which shows
  Bing's index) and ChatGPT days after their crawlers fetched them.
"""

import json
import random
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "fixtures" / "demo"
rng = random.Random(2026)

GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
GOOGLEBOT_SMART = ("Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) "
                   "Chrome/131.0.6778.69 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)")
BINGBOT = "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)"
GPTBOT = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)"
OAI = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot)"
AHREFS = "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)"
REQUESTS = "python-requests/2.32.3"
SEMRUSH = "Mozilla/5.0 (compatible; SemrushBot/7~bl; +http://www.semrush.com/bot.html)"
BROWSERS = [
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Safari/605.1.15",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1",
]

ROBOTS_V1 = """# shop.example robots.txt, first version
User-agent: *
Disallow: /cart/
Disallow: /checkout/
Disallow: /account/

User-agent: GPTBot
User-agent: CCBot
Disallow: /

Sitemap: https://shop.example/sitemap.xml
"""
ROBOTS_V2 = """# shop.example robots.txt, from 2026-11-03
User-agent: *
Disallow: /cart/
Disallow: /checkout/
Disallow: /account/
Disallow: /search
Crawl-delay: 5

User-agent: Googlebot
Disallow: /cart/
Disallow: /checkout/
Disallow: /account/
Disallow: /search

User-agent: GPTBot
User-agent: CCBot
Disallow: /

Sitemap: https://shop.example/sitemap.xml
"""
BLOG_ROBOTS = """User-agent: *
Disallow: /drafts/
Noindex: /tag/
"""

PAGES = [
    {"url": "/products/old-sofa", "status": 200, "x_robots_tag": ["noindex"]},
    {"url": "/products/lamp", "status": 200, "x_robots_tag": ["googlebot: noindex, nofollow"]},
    {"url": "/sale/summer", "status": 200, "meta": [{"name": "robots", "content": "unavailable_after: 2026-11-02T00:00:00Z"}]},
    {"url": "/internal/prices", "status": 200, "html": "<!doctype html><html><head><meta name=\"robots\" content=\"noindex, nofollow\"></head><body>prices</body></html>"},
    {"url": "/cart/saved", "status": 200, "x_robots_tag": ["noindex"]},
    {"url": "/products/chair", "status": 200, "x_robots_tag": ["max-image-preview: large"]},
]
BLOG_PAGES = [{"url": "/2026/hello", "status": 200, "html": "<html><head><meta name=robots content=\"max-snippet: 50\"></head><body>hi</body></html>"}]

GOOGLE_RANGES = {"creationTime": "2026-11-01T00:00:00.000000", "prefixes": [{"ipv4Prefix": "66.249.64.0/19"}, {"ipv6Prefix": "2001:4860:4801::/48"}]}

lines = []


def ts(day, secs):
    h, m, s = secs // 3600, secs // 60 % 60, secs % 60
    return f"{day:02d}/Nov/2026:{h:02d}:{m:02d}:{s:02d} +0000"


def log(host, ip, day, secs, path, status, ua, referer="-"):
    size = rng.randint(200, 40000) if status == 200 else 0
    lines.append((day, secs, f'{host}:443 {ip} - - [{ts(day, secs)}] "GET {path} HTTP/1.1" {status} {size} "{referer}" "{ua}"'))


SHOP_PATHS = ["/", "/products/sofa", "/products/chair", "/products/lamp", "/products/old-sofa", "/sale/summer",
              "/category/living", "/category/garden", "/search?q=sofa", "/cart/", "/internal/prices", "/products/table"]

for day in range(1, 8):
    # Googlebot: polite, reads robots.txt daily, never fetches disallowed paths.
    log("shop.example", "66.249.66.1", day, 3600, "/robots.txt", 200, GOOGLEBOT)
    for k, path in enumerate(["/", "/products/sofa", "/products/chair", "/products/lamp", "/products/old-sofa", "/sale/summer", "/internal/prices"]):
        if day <= 2 or path in ("/", "/products/sofa"):
            log("shop.example", "66.249.66.%d" % (2 + k), day, 3700 + k * 40, path, 200, GOOGLEBOT_SMART if k % 2 else GOOGLEBOT)
    # bingbot: reads robots.txt, fetches a noindex page.
    log("shop.example", "157.55.39.10", day, 7200, "/robots.txt", 200, BINGBOT)
    for k, path in enumerate(["/", "/products/old-sofa", "/category/living"]):
        log("shop.example", "157.55.39.10", day, 7300 + k * 60, path, 200, BINGBOT)
    # GPTBot: reads robots.txt, is disallowed everywhere, crawls anyway.
    log("shop.example", "20.171.207.17", day, 10800, "/robots.txt", 200, GPTBOT)
    for k in range(3):
        log("shop.example", "20.171.207.17", day, 10860 + k * 30, rng.choice(SHOP_PATHS[1:8]), 200, GPTBOT)
    # OAI-SearchBot fetches the summer sale page (ChatGPT search).
    if day == 1:
        log("shop.example", "20.171.208.5", day, 11000, "/robots.txt", 200, OAI)
        log("shop.example", "20.171.208.5", day, 11010, "/products/old-sofa", 200, OAI)
    # AhrefsBot: reads robots.txt, then ignores the crawl-delay from day 3.
    log("shop.example", "54.36.148.7", day, 14400, "/robots.txt", 200, AHREFS)
    for k in range(6):
        log("shop.example", "54.36.148.7", day, 14402 + k * 2, rng.choice(["/products/sofa", "/category/garden", "/products/table", "/search?q=lamp"]), 200, AHREFS)
    # A fake Googlebot from a cloud address: never reads robots.txt, goes for /cart/.
    for k in range(4):
        log("shop.example", "45.148.10.23", day, 20000 + k * 5, rng.choice(["/cart/", "/checkout/", "/account/", "/products/sofa"]), 200, GOOGLEBOT)
    # python-requests: never reads robots.txt.
    for k in range(3):
        log("shop.example", "198.51.100.77", day, 30000 + k * 300, rng.choice(["/account/", "/products/chair", "/"]), 200, REQUESTS)
    # Blog: Googlebot and GPTBot.
    log("blog.example", "66.249.66.20", day, 5000, "/robots.txt", 200, GOOGLEBOT)
    log("blog.example", "66.249.66.20", day, 5100, "/2026/hello", 200, GOOGLEBOT)
    log("blog.example", "20.171.207.18", day, 6000, "/drafts/next", 200, GPTBOT)
    # People, some referred by search engines and assistants.
    for k in range(25):
        path = rng.choice(["/", "/products/sofa", "/products/chair", "/category/living", "/products/table"])
        ref = rng.choice(["-", "-", "https://www.google.com/", "https://www.bing.com/", "https://shop.example/"])
        log("shop.example", "203.0.113.%d" % rng.randint(1, 250), day, 36000 + k * 997, path, 200, rng.choice(BROWSERS), ref)

# SemrushBot keeps crawling while robots.txt has answered 503 for over 24 h
# (Google's rule: a 5xx robots.txt means a complete disallow).
for k, path in enumerate(["/products/sofa", "/category/garden", "/products/table"]):
    log("shop.example", "185.191.171.4", 6, 43200 + k * 20, path, 200, SEMRUSH)

# Search referrals to pages the engines' crawlers saw as noindex (evidence),
# after the 72 h grace, and one inside it (not yet evidence).
for day, secs, path, ref in [
    (6, 40000, "/products/old-sofa", "https://www.google.com/"),
    (6, 41000, "/products/lamp", "https://www.google.de/"),
    (7, 42000, "/internal/prices", "https://www.google.com/"),
    (7, 43000, "/sale/summer", "https://www.google.com/"),
    (6, 44000, "/products/old-sofa", "https://www.bing.com/"),
    (7, 45000, "/products/old-sofa", "https://duckduckgo.com/"),
    (7, 46000, "/products/old-sofa?utm_source=chatgpt.com", "-"),
    (3, 47000, "/products/old-sofa", "https://www.google.com/"),
]:
    log("shop.example", "203.0.113.%d" % rng.randint(1, 250), day, secs, path, 200, rng.choice(BROWSERS), ref)

lines.sort(key=lambda x: (x[0], x[1]))
snap = ROOT / "snapshot"
for p in [snap / "shop.example" / "robots", snap / "blog.example", ROOT / "ip-ranges"]:
    p.mkdir(parents=True, exist_ok=True)
(snap / "shop.example" / "robots" / "2026-10-01T00-00-00Z.txt").write_text(ROBOTS_V1)
(snap / "shop.example" / "robots" / "2026-11-03T00-00-00Z.txt").write_text(ROBOTS_V2)
(snap / "shop.example" / "robots" / "2026-11-05T10-00-00Z.503").write_text("")
(snap / "shop.example" / "robots" / "2026-11-06T14-00-00Z.txt").write_text(ROBOTS_V2)
(snap / "shop.example" / "pages.jsonl").write_text("".join(json.dumps(p) + "\n" for p in PAGES))
(snap / "blog.example" / "robots.txt").write_text(BLOG_ROBOTS)
(snap / "blog.example" / "pages.jsonl").write_text("".join(json.dumps(p) + "\n" for p in BLOG_PAGES))
(ROOT / "ip-ranges" / "googlebot.json").write_text(json.dumps(GOOGLE_RANGES, indent=2) + "\n")
(ROOT / "access.log").write_text("".join(l + "\n" for _, _, l in lines))
print(f"wrote {ROOT}: {len(lines)} log lines")

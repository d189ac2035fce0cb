#!/usr/bin/env python3
"""Regenerate src/bots/data/crawler-user-agents.json from the PyPI package.

The crawler-user-agents dataset (MIT, github.com/monperrus/crawler-user-agents,
also on npm) is a list of User-Agent regex patterns with tags. crawlaudit
embeds its patterns and tags (nothing else) as the fallback catalogue under
our own curated table (src/bots/catalog.toml).

    python3 scripts/gen_catalog.py            # the pinned version below
    python3 scripts/gen_catalog.py 1.68.0     # another version

It downloads the wheel with pip (no install), and writes the table and the
dataset's licence next to it.
"""

import json
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

VERSION = sys.argv[1] if len(sys.argv) > 1 else "1.67.0"
OUT = Path(__file__).resolve().parent.parent / "src" / "bots" / "data"


def main():
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "-d", tmp, f"crawler-user-agents=={VERSION}"],
            check=True,
        )
        wheel = next(Path(tmp).glob("*.whl"))
        with zipfile.ZipFile(wheel) as z:
            data = json.loads(z.read("crawleruseragents/crawler-user-agents.json"))
            licence = next(n for n in z.namelist() if n.endswith("LICENSE"))
            licence_text = z.read(licence).decode()
    patterns = [{"pattern": e["pattern"], "tags": sorted(e.get("tags", []))} for e in data]
    table = {
        "dataset": "crawler-user-agents",
        "version": VERSION,
        "license": "MIT (see crawler-user-agents.LICENSE)",
        "source": "https://pypi.org/project/crawler-user-agents/ (github.com/monperrus/crawler-user-agents)",
        "generated_by": "scripts/gen_catalog.py",
        "patterns": patterns,
    }
    OUT.mkdir(parents=True, exist_ok=True)
    text = json.dumps(table, indent=0, ensure_ascii=False, sort_keys=False)
    (OUT / "crawler-user-agents.json").write_text(text + "\n")
    (OUT / "crawler-user-agents.LICENSE").write_text(licence_text)
    print(f"wrote {len(patterns)} patterns of crawler-user-agents {VERSION} to {OUT}")


if __name__ == "__main__":
    main()

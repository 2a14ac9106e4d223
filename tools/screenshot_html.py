"""Take the screenshot of the -f html page shown in docs/formats.md.

    .venv/bin/bvtest eval -f html --ci 0.95 qrels/qrels.txt sample_runs/ > report.html
    .venv/bin/python tools/screenshot_html.py report.html docs/images/eval-html.png

Headless Chromium (Debian's package, or $BVTEST_CHROMIUM) driven by
Playwright, a 1280-px window; the first measure: its summary, its charts and
the start of its tables (the header, notes and glossary are above),
saved as a 128-colour PNG when Pillow (matplotlib's) is installed.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path


def main() -> None:
    from playwright.sync_api import sync_playwright

    page_path, out = Path(sys.argv[1]).resolve(), sys.argv[2]
    chromium = os.environ.get("BVTEST_CHROMIUM") or shutil.which("chromium")
    args = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=args)
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.goto(page_path.as_uri(), wait_until="load")
        top = page.evaluate(
            "() => { const s = document.querySelector('section.measure');"
            " return s ? s.getBoundingClientRect().top + window.scrollY : 0; }"
        )
        page.screenshot(path=out, full_page=True, clip={"x": 0, "y": top, "width": 1280,
                                                         "height": 1000})  # fmt: skip
        browser.close()
    try:  # a palette PNG: a third of the bytes, the same picture to the eye
        from PIL import Image
    except ImportError:
        return
    Image.open(out).convert("RGB").quantize(colors=128).save(out, optimize=True)


if __name__ == "__main__":
    main()

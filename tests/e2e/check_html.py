#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""check_html.py REPORT.html REPORT.json

Parses an nve-conform HTML report and checks that it is well formed (every
element closed in order), self-contained (no script, no external asset or
link) and complete: one row per result of the JSON report of the same run,
with the same verdict (a SKIP's badge says its kind: N/A, BLOCKED,
UNTESTED), and one coverage cell per class of the JSON report's
"coverage", with the same states. Prints what is wrong and exits
1, or exits 0."""
import json
import sys
from html.parser import HTMLParser

COVER_STATES = {"ran": "ran", "elsewhere": "elsewhere", "notrun": "not run"}
SKIP_LABELS = {"N/A", "BLOCKED", "UNTESTED"}
VOID = {"meta", "br", "hr", "img", "input", "link", "col", "area", "base", "wbr", "source"}


class Checker(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.problems, self.rows, self.row, self.doctype = [], [], {}, None, False
        self.cover = []  # the coverage table's cells' states, in order
        self.in_cov = False  # inside <table class="cov">
        self.badge = None  # the row whose verdict badge's text comes next

    def handle_decl(self, decl):
        self.doctype = self.doctype or decl.lower() == "doctype html"

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("script", "link", "iframe", "object", "embed", "img"):
            self.problems.append(f"<{tag}> in a self-contained page")
        for name in ("src", "href"):
            if name in a and not (a[name] or "").startswith("#"):
                self.problems.append(f"external reference {name}={a[name]!r}")
        if tag == "tr" and "id" in a:
            self.row = a["id"]
        css = (a.get("class") or "").split()
        if tag == "span" and self.row and "v" in css and self.row not in self.rows:
            self.badge = self.row
        if tag == "table":
            self.in_cov = "cov" in css
        if tag == "span" and self.in_cov and css and css[0] in COVER_STATES:
            self.cover.append(COVER_STATES[css[0]])
        if tag not in VOID:
            self.stack.append(tag)

    def handle_data(self, data):
        if self.badge:
            label = data.strip()
            self.rows[self.badge] = "SKIP" if label in SKIP_LABELS else label
            self.badge = None

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes <{self.stack[-1] if self.stack else 'nothing'}>")
            return
        self.stack.pop()
        if tag == "tr":
            self.row = None
        if tag == "table":
            self.in_cov = False


def main():
    page, report = sys.argv[1], json.load(open(sys.argv[2]))
    c = Checker()
    c.feed(open(page, encoding="utf-8").read())
    c.close()
    if not c.doctype:
        c.problems.append("no <!DOCTYPE html>")
    if c.stack:
        c.problems.append("unclosed: " + " ".join(c.stack))
    for res in report["results"]:
        got = c.rows.get(res["id"])
        if got != res["verdict"]:
            c.problems.append(f"{res['id']}: the page says {got}, the JSON report {res['verdict']}")
    if len(c.rows) != len(report["results"]):
        c.problems.append(f"{len(c.rows)} rule rows for {len(report['results'])} results")
    want = sorted(cell["state"] for cell in report.get("coverage", []))
    if sorted(c.cover) != want:
        c.problems.append(f"coverage: the page has {len(c.cover)} cells, the JSON report "
                          f"{len(want)}, or their states differ")
    for p in c.problems:
        print(p)
    return 1 if c.problems else 0


if __name__ == "__main__":
    sys.exit(main())

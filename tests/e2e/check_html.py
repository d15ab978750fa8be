#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""check_html.py REPORT.html REPORT.json

Parses an nve-conform HTML report and checks that it is well formed (every
element closed in order), self-contained (no script, no external asset or
link) and complete: one row per result of the JSON report of the same run,
with the same verdict, and one coverage cell per class of the JSON
report's "coverage", in the same state. Prints what is wrong and exits
1, or exits 0."""
import json
import sys
from html.parser import HTMLParser

COVER_STATES = {"ran": "ran", "elsewhere": "elsewhere", "notrun": "not run"}
VOID = {"meta", "br", "hr", "img", "input", "link", "col", "area", "base", "wbr", "source"}


class Checker(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.problems, self.rows, self.row, self.doctype = [], [], {}, None, False
        self.cover = []  # the coverage table's cells' states, in order

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
        if tag == "span" and self.row and "v" in (a.get("class") or "").split():
            self.rows.setdefault(self.row, (a.get("class") or "").split()[-1])
        css = (a.get("class") or "").split()
        if tag == "span" and css and css[0] in COVER_STATES:
            self.cover.append(COVER_STATES[css[0]])
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes <{self.stack[-1] if self.stack else 'nothing'}>")
            return
        self.stack.pop()
        if tag == "tr":
            self.row = None


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
    want = [cell["state"] for cell in report.get("coverage", [])]
    if c.cover != want:
        c.problems.append(f"coverage: the page has {len(c.cover)} cells, the JSON report "
                          f"{len(want)}, or their states differ")
    for p in c.problems:
        print(p)
    return 1 if c.problems else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""check_html_dom.py [--rendered] PAGE [REPORT.json]
check_html_dom.py --probe PAGE COPY

Checks that an nve-conform HTML report reads at a glance, as a person
would look at it:
  - the summary's badges are coloured by what they count: a zero is grey
    whatever its label, FAIL red, PASS green, BLOCKED and UNTESTED amber,
    N/A grey; each count is the number of rule rows with that badge (and,
    with REPORT.json, the JSON report's);
  - the root cause (#root-cause) is the first thing under the header
    table, before the summary and every table of rules, and names every
    rule that failed on its own; a run where nothing failed has none;
  - the command line wraps (white-space pre-wrap, overflow-wrap anywhere
    or break-word) rather than widening the page;
  - the coverage table has a row per op (each once) and a column per
    dimension, and with REPORT.json holds exactly its cells;
  - the page is self-contained: no script, no external src or href, no
    url() or @import in its style.
PAGE is the file as written (colours and wrapping then come from the
page's own style sheet, cascaded over each element's classes) or, with
--rendered, the DOM headless Chromium dumped of a --probe copy: the probe
script recorded the computed colours, the page's width against the
window's and where the root cause starts, then removed itself, so the
rendered DOM must also fit a 1280 px window and show the root cause
above the fold. Prints what is wrong and exits 1, or exits 0."""
import colorsys
import json
import re
import sys
from html.parser import HTMLParser

LABELS = ["PASS", "FAIL", "WARN", "N/A", "BLOCKED", "UNTESTED", "ERROR", "WAIVED"]
COVER_STATES = {"ran": "ran", "elsewhere": "elsewhere", "notrun": "not run"}
VOID = {"meta", "br", "hr", "img", "input", "link", "col", "area", "base", "wbr", "source"}
# Hue ranges in degrees (a range may wrap past 360) a non-zero badge must be in.
HUES = {"PASS": (90, 160), "FAIL": (340, 15), "WARN": (15, 40), "BLOCKED": (30, 55),
        "UNTESTED": (25, 55), "ERROR": (260, 320), "WAIVED": (195, 235)}
NEUTRAL_SATURATION = 0.15  # below this a colour reads as grey

# What the probe copy runs in Chromium: it measures, writes the numbers
# into the DOM as data- attributes, and removes itself before the dump.
PROBE = """<script>
(function () {
  var d = document.documentElement, rc = document.getElementById('root-cause');
  d.setAttribute('data-scroll-width', d.scrollWidth);
  d.setAttribute('data-view-width', window.innerWidth);
  d.setAttribute('data-view-height', window.innerHeight);
  if (rc) rc.setAttribute('data-top', rc.getBoundingClientRect().top + window.scrollY);
  document.querySelectorAll('span.v, code.cmd').forEach(function (e) {
    var s = getComputedStyle(e);
    e.setAttribute('data-bg', s.backgroundColor);
    e.setAttribute('data-wrap', s.whiteSpace + ' ' + s.overflowWrap + ' ' + s.wordBreak);
  });
  document.currentScript.remove();
})();
</script>
"""


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.children, self.text = tag, attrs, parent, [], ""
        self.classes = (attrs.get("class") or "").split()

    def all_text(self):
        return self.text + "".join(c.all_text() for c in self.children)

    def walk(self):
        yield self
        for c in self.children:
            yield from c.walk()

    def find(self, pred):
        return [n for n in self.walk() if pred(n)]


class Tree(HTMLParser):
    """The page as a tree of elements (tolerant: a stray end tag closes
    up to its element), its style sheets' text, and what is not
    self-contained."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", {}, None)
        self.cur, self.style, self.problems = self.root, "", []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("script", "link", "iframe", "object", "embed", "img", "frame"):
            self.problems.append(f"<{tag}> in a self-contained page")
        for name in ("src", "href", "srcset", "action"):
            if name in a and not (a[name] or "").startswith("#"):
                self.problems.append(f"external reference {name}={a[name]!r}")
        node = Node(tag, a, self.cur)
        self.cur.children.append(node)
        if tag not in VOID:
            self.cur = node

    def handle_endtag(self, tag):
        n = self.cur
        while n is not self.root and n.tag != tag:
            n = n.parent
        if n is not self.root:
            self.cur = n.parent

    def handle_data(self, data):
        if self.cur.tag == "style":
            self.style += data
        self.cur.text += data


def parse_css(text):
    """The rules whose selectors are compound (tag and classes, no
    combinator): [(specificity, order, tag, classes, declarations)]."""
    rules = []
    for order, m in enumerate(re.finditer(r"([^{}]+)\{([^}]*)\}", text)):
        decls = {}
        for d in m.group(2).split(";"):
            if ":" in d:
                k, v = d.split(":", 1)
                decls[k.strip()] = v.strip()
        for sel in m.group(1).split(","):
            sel = sel.strip()
            cm = re.fullmatch(r"([a-z0-9]*)((?:\.[\w-]+)*)", sel)
            if not sel or not cm:
                continue
            classes = [c for c in cm.group(2).split(".") if c]
            rules.append(((len(classes), 1 if cm.group(1) else 0), order, cm.group(1), classes,
                          decls))
    return sorted(rules, key=lambda r: (r[0], r[1]))


def declared(rules, node, prop, inherited):
    """The value the style sheet gives prop on node (for an inherited
    property, the nearest ancestor's that declares it), or None."""
    while node is not None and node.tag != "#root":
        value = None
        for _, _, tag, classes, decls in rules:
            if prop in decls and (not tag or tag == node.tag) and all(
                    c in node.classes for c in classes):
                value = decls[prop]
        if value is not None or not inherited:
            return value
        node = node.parent
    return None


def rgb(colour):
    """(r, g, b) in 0..1 from #rgb, #rrggbb or rgb(...)/rgba(...), or None."""
    if not colour:
        return None
    colour = colour.strip().lower()
    m = re.fullmatch(r"#([0-9a-f]{3}|[0-9a-f]{6})", colour)
    if m:
        h = m.group(1)
        if len(h) == 3:
            h = "".join(c * 2 for c in h)
        return tuple(int(h[i:i + 2], 16) / 255 for i in (0, 2, 4))
    m = re.fullmatch(r"rgba?\(\s*(\d+)[ ,]+(\d+)[ ,]+(\d+)(?:[ ,/]+([\d.]+))?\s*\)", colour)
    if m:
        if m.group(4) is not None and float(m.group(4)) == 0:
            return None  # transparent: no badge colour at all
        return tuple(int(m.group(i)) / 255 for i in (1, 2, 3))
    return None


def in_hue(h, lo, hi):
    return lo <= h <= hi if lo <= hi else h >= lo or h <= hi


def colour_problem(label, count, colour):
    """Why a badge of count label in colour misleads, or None."""
    c = rgb(colour)
    if c is None:
        return f"the {count} {label} badge has no colour ({colour!r})"
    h, _, s = colorsys.rgb_to_hls(*c)
    grey = s < NEUTRAL_SATURATION
    if count == 0 or label == "N/A":
        return None if grey else f"the {count} {label} badge is coloured ({colour}), not grey"
    lo, hi = HUES[label]
    if grey or not in_hue(h * 360, lo, hi):
        return f"the {count} {label} badge is {colour}, not in hue {lo}-{hi}"
    return None


def follows(page, a, b):
    """Whether node a comes before node b in document order."""
    order = {id(n): i for i, n in enumerate(page.walk())}
    return order[id(a)] < order[id(b)]


def check_badges(page, rules, rendered, report, problems):
    summary = page.find(lambda n: n.attrs.get("id") == "summary")
    if not summary:
        problems.append("no summary (#summary)")
        return {}
    counts = {}
    for b in summary[0].find(lambda n: n.tag == "span" and "v" in n.classes):
        m = re.fullmatch(r"(\d+) (\S+)", b.all_text().strip())
        if not m or m.group(2) not in LABELS:
            problems.append(f"summary badge {b.all_text()!r} is not 'N LABEL'")
            continue
        n, label = int(m.group(1)), m.group(2)
        counts[label] = n
        colour = b.attrs.get("data-bg") if rendered else declared(rules, b, "background", False)
        p = colour_problem(label, n, colour)
        if p:
            problems.append(p)
    for label in LABELS[:7]:
        if label not in counts:
            problems.append(f"the summary has no {label} badge")
    # Each count is the rows'.
    rows = page.find(lambda n: n.tag == "tr" and "id" in n.attrs)
    for label in LABELS:
        shown = sum(1 for r in rows if any(
            s.all_text().strip() == label for s in r.find(lambda n: "v" in n.classes)[:1]))
        if counts.get(label, 0) != shown:
            problems.append(f"the summary says {counts.get(label, 0)} {label}, the rows {shown}")
    total = re.match(r"\s*(\d+) rules", summary[0].all_text())
    if not total or int(total.group(1)) != sum(counts.values()) or int(total.group(1)) != len(rows):
        problems.append(f"the badges add up to {sum(counts.values())}, the summary says "
                        f"{total.group(1) if total else '?'} rules, the page has {len(rows)} rows")
    if report:
        s = report["summary"]
        want = {"PASS": s["PASS"], "FAIL": s["FAIL"], "WARN": s["WARN"],
                "N/A": s["skips"]["not applicable"], "BLOCKED": s["skips"]["blocked"],
                "UNTESTED": s["skips"]["untested"], "ERROR": s["ERROR"],
                "WAIVED": s.get("WAIVED", 0)}
        for label, n in want.items():
            if counts.get(label, 0) != n:
                problems.append(f"the page says {counts.get(label, 0)} {label}, the JSON {n}")
    return counts


def check_root_cause(page, counts, rendered, report, problems):
    rc = page.find(lambda n: n.attrs.get("id") == "root-cause")
    failed = counts.get("FAIL", 0) + counts.get("WARN", 0) + counts.get("ERROR", 0)
    refused = bool(report and report["summary"].get("refusal"))
    if not failed and not refused:
        if rc:
            problems.append("a root cause on a run where nothing failed")
        return
    if not rc:
        problems.append(f"{failed} rules failed but the page has no root cause (#root-cause)")
        return
    rc = rc[0]
    head = page.find(lambda n: n.tag == "table" and "head" in n.classes)
    if head:
        siblings = [c for c in head[0].parent.children if c.tag != "#text"]
        at = siblings.index(head[0])
        if at + 1 >= len(siblings) or siblings[at + 1] is not rc:
            problems.append("the root cause is not right under the header table")
    later = page.find(lambda n: n.attrs.get("id") == "summary" or
                      (n.tag == "table" and "rules" in n.classes) or
                      (n.tag == "table" and "cov" in n.classes))
    for n in later:
        if not follows(page, rc, n):
            problems.append(f"the root cause comes after <{n.tag} {n.attrs}>")
            break
    linked = {a.attrs.get("href", "")[1:] for a in rc.find(lambda n: n.tag == "a")}
    for r in page.find(lambda n: n.tag == "tr" and "id" in n.attrs):
        badge = r.find(lambda n: "v" in n.classes)[:1]
        if badge and badge[0].all_text().strip() in ("FAIL", "WARN", "ERROR") and \
                r.attrs["id"] not in linked:
            problems.append(f"the root cause does not name {r.attrs['id']}")
    if rendered:
        top, height = rc.attrs.get("data-top"), page_attr(page, "data-view-height")
        if top is None or height is None or float(top) >= float(height):
            problems.append(f"the root cause starts at {top} px, below the fold ({height} px)")


def page_attr(page, name):
    html = page.find(lambda n: n.tag == "html")
    return html[0].attrs.get(name) if html else None


def check_command(page, rules, rendered, problems):
    for row in page.find(lambda n: n.tag == "tr"):
        cells = [c for c in row.children if c.tag == "td"]
        if len(cells) == 2 and cells[0].all_text().strip() == "command":
            value = (cells[1].find(lambda n: n.tag == "code") or [cells[1]])[0]
            if rendered:
                wrap = value.attrs.get("data-wrap", "")
            else:
                wrap = " ".join(declared(rules, value, p, True) or "normal"
                                for p in ("white-space", "overflow-wrap", "word-break"))
            ws, ow, wb = (wrap.split() + ["", "", ""])[:3]
            if ws not in ("pre-wrap", "normal", "break-spaces") or \
                    (ow not in ("anywhere", "break-word") and wb != "break-all"):
                problems.append(f"the command line does not wrap (white-space, overflow-wrap, "
                                f"word-break: {wrap!r})")
            return
    problems.append("the header has no command line")


def check_coverage(page, report, problems):
    tables = page.find(lambda n: n.tag == "table" and "cov" in n.classes)
    want = sorted((c["op"], c["dimension"], c["class"], c["state"])
                  for c in (report or {}).get("coverage", []))
    if not tables:
        if want:
            problems.append("no coverage table, the JSON report has coverage")
        return
    rows = tables[0].find(lambda n: n.tag == "tr")
    head = [c.all_text().strip() for c in rows[0].children if c.tag == "th"]
    if head[:2] != ["op", "rule"] or len(head) < 3:
        problems.append(f"the coverage table's columns are {head}, not op, rule, dimensions")
        return
    dims, ops, got = head[2:], [], []
    for row in rows[1:]:
        th = [c for c in row.children if c.tag == "th"]
        cells = [c for c in row.children if c.tag == "td"]
        if not th:
            problems.append("a coverage row without its op")
            continue
        op = th[0].all_text().strip()
        ops.append(op)
        width = sum(int(c.attrs.get("colspan", 1)) for c in cells)
        if width != 1 + len(dims):
            problems.append(f"coverage row {op}: {width} cells for {1 + len(dims)} columns")
            continue
        for j, cell in enumerate(cells[1:]):
            # One cell across every dimension: the op did not run at all
            # (the JSON report's one "op" item for it).
            dim = "op" if "unswept" in cell.classes else dims[j]
            for chip in cell.find(lambda n: n.tag == "span" and n.classes and
                                  n.classes[0] in COVER_STATES):
                got.append((op, dim, chip.all_text().strip(), COVER_STATES[chip.classes[0]]))
    for op in set(ops):
        if ops.count(op) > 1:
            problems.append(f"the coverage table has {ops.count(op)} rows for {op}")
    if report is not None:
        want_ops = {c["op"] for c in report.get("coverage", [])}
        if set(ops) != want_ops:
            problems.append(f"coverage rows {sorted(ops)}, the JSON's ops {sorted(want_ops)}")
        if sorted(got) != want:
            missing = sorted(set(want) - set(got))[:3]
            extra = sorted(set(got) - set(want))[:3]
            problems.append(f"coverage cells differ from the JSON's: missing {missing}, "
                            f"extra {extra}")


def check_layout(page, problems):
    width, view = page_attr(page, "data-scroll-width"), page_attr(page, "data-view-width")
    if width is None or view is None:
        problems.append("the rendered DOM has no measurements: did the probe run?")
    elif int(width) > int(view):
        problems.append(f"the page is {width} px wide in a {view} px window: something does "
                        "not wrap")


def main(argv):
    if argv[:1] == ["--probe"]:
        page = open(argv[1], encoding="utf-8").read()
        at = page.rindex("</body>")
        open(argv[2], "w", encoding="utf-8").write(page[:at] + PROBE + page[at:])
        return 0
    rendered = argv[:1] == ["--rendered"]
    args = argv[1:] if rendered else argv
    tree = Tree()
    tree.feed(open(args[0], encoding="utf-8").read())
    tree.close()
    report = json.load(open(args[1])) if len(args) > 1 else None
    problems = tree.problems
    if re.search(r"url\(|@import", tree.style):
        problems.append("the style sheet loads something (url() or @import)")
    rules, page = parse_css(tree.style), tree.root
    if report and report.get("error"):
        return finish(problems)
    counts = check_badges(page, rules, rendered, report, problems)
    check_root_cause(page, counts, rendered, report, problems)
    check_command(page, rules, rendered, problems)
    check_coverage(page, report, problems)
    if rendered:
        check_layout(page, problems)
    return finish(problems)


def finish(problems):
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

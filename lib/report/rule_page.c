/* SPDX-License-Identifier: Apache-2.0 */
/* Rule pages in markdown (rule_page.h). doc/rules.md is this file's
 * output: change the text in lib/rules/rules.def, then run
 * `make rules-doc`; make check fails while the two differ. */
#include "rule_page.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"

#ifndef NC_DOCDIR
#define NC_DOCDIR "doc"
#endif

void nc_rule_doc_anchor(nc_rule rule, char out[16])
{
  const char *id = nc_rule_text(rule);
  size_t i = 0;
  for (; id && id[i] && i < 15; i++)
    out[i] = (char)tolower((unsigned char)id[i]);
  out[i] = '\0';
}

static void contract_link(nc_strbuf *b, nc_rule rule, const nc_rule_doc *d, nc_page_kind kind)
{
  const char *anchor = nc_rule_anchor(rule);
  if (!anchor) {
    nc_strbuf_puts(b, nc_rule_defs[rule].info.clause);
    return;
  }
  if (kind == NC_PAGE_TERMINAL)
    nc_strbuf_printf(b, "%s (%s/contract.md#%s)", d->section, NC_DOCDIR, anchor);
  else
    nc_strbuf_printf(b, "[%s](contract.md#%s)", d->section, anchor);
}

/* Appends text broken into lines of at most width columns (a word longer
 * than that gets a line of its own). */
static void wrap(nc_strbuf *b, const char *text, size_t width)
{
  size_t col = 0;
  while (*text) {
    size_t word = strcspn(text, " ");
    if (col > 0 && col + 1 + word > width) {
      nc_strbuf_puts(b, "\n");
      col = 0;
    } else if (col > 0) {
      nc_strbuf_puts(b, " ");
      col++;
    }
    nc_strbuf_printf(b, "%.*s", (int)word, text);
    col += word;
    text += word;
    text += strspn(text, " ");
  }
  nc_strbuf_puts(b, "\n");
}

/* A paragraph: one line in the document (markdown wraps it), wrapped at 78
 * columns for a terminal. */
static void paragraph(nc_strbuf *b, nc_page_kind kind, const char *label, const char *text)
{
  nc_strbuf p = {0};
  nc_strbuf_printf(&p, "%s%s%s %s", *label ? "**" : "", label, *label ? "**" : "", text);
  if (p.failed || !p.data)
    b->failed = 1;
  else if (kind == NC_PAGE_TERMINAL)
    wrap(b, p.data, 78);
  else
    nc_strbuf_printf(b, "%s\n", p.data);
  nc_strbuf_puts(b, "\n");
  nc_strbuf_free(&p);
}

void nc_rule_page(nc_strbuf *b, nc_rule rule, nc_page_kind kind)
{
  if ((int)rule < 0 || rule >= NC_RULE_COUNT)
    return;
  const nc_rule_def *def = &nc_rule_defs[rule];
  const nc_rule_doc *d = &nc_rule_defs[rule].doc;
  char anchor[16];
  nc_rule_doc_anchor(rule, anchor);
  if (kind == NC_PAGE_DOC)
    nc_strbuf_printf(b, "<a id=\"%s\"></a>\n", anchor);
  nc_strbuf_printf(b, "### %s: %s\n\n", def->info.id, def->info.title);
  nc_strbuf meta = {0}, proof = {0};
  nc_strbuf_printf(&meta, "%s; %s; %s; contract: ", nc_severity_name(def->info.severity),
                   def->waivable ? "a waiver may accept a failure" : "no waiver accepts a failure",
                   def->applies_to == NC_APPLIES_ANY ? "every plugin" : "external plugins");
  contract_link(&meta, rule, d, kind);
  nc_strbuf_puts(&meta, ".");
  paragraph(b, kind, "", meta.data ? meta.data : "");
  paragraph(b, kind, "Why a host needs it.", d->why);
  paragraph(b, kind, "How nve-conform checks it.", d->how);
  paragraph(b, kind, "Usual mistakes.", d->mistakes);
  paragraph(b, kind, "How to fix it.", d->fix);
  if (d->snippet)
    nc_strbuf_printf(b, "```%s\n%s\n```\n\n", d->lang ? d->lang : "c", d->snippet);
  nc_strbuf_printf(&proof, "the fixture `%s`, which fails this rule (fixtures/fixtures.list, "
                           "fixtures/expected.tsv).",
                   d->fixture);
  paragraph(b, kind, "Proven by", proof.data ? proof.data : "");
  if (!b->failed && b->len) /* one newline at the end, not a blank line */
    b->data[--b->len] = '\0';
  b->failed |= meta.failed | proof.failed;
  nc_strbuf_free(&meta);
  nc_strbuf_free(&proof);
}

/* The rules of a family in ID order; returns how many. */
static size_t family_rules(const char *family, nc_rule out[NC_RULE_COUNT])
{
  size_t n = 0;
  for (int r = 0; r < NC_RULE_COUNT; r++) {
    if (strcmp(nc_rule_defs[r].info.family, family) != 0)
      continue;
    size_t k = n++;
    for (; k > 0 && strcmp(nc_rule_text(out[k - 1]), nc_rule_text((nc_rule)r)) > 0; k--)
      out[k] = out[k - 1];
    out[k] = (nc_rule)r;
  }
  return n;
}

/* The rules a waiver cannot accept, by family, with runs of three or more
 * numbers folded ("SYM-01..04, SYM-06"). README carries the same sentence,
 * copied by make rules-doc from between the markers. */
static void unwaivable_sentence(nc_strbuf *b)
{
  nc_rule rules[NC_RULE_COUNT];
  const char *sep = "";
  nc_strbuf_puts(b, "<!-- unwaivable:begin -->\nThese rules cannot be waived: ");
  for (size_t f = 0; f < nc_family_count; f++) {
    size_t n = family_rules(nc_family_defs[f].family, rules);
    for (size_t i = 0; i < n; i++) {
      if (nc_rule_defs[rules[i]].waivable)
        continue;
      size_t j = i; /* the run of consecutive numbers that cannot be waived */
      while (j + 1 < n && !nc_rule_defs[rules[j + 1]].waivable &&
             atoi(nc_rule_text(rules[j + 1]) + 4) == atoi(nc_rule_text(rules[j]) + 4) + 1)
        j++;
      if (j - i >= 2) {
        nc_strbuf_printf(b, "%s%s..%s", sep, nc_rule_text(rules[i]), nc_rule_text(rules[j]) + 4);
        i = j;
      } else {
        nc_strbuf_printf(b, "%s%s", sep, nc_rule_text(rules[i]));
      }
      sep = ", ";
    }
  }
  nc_strbuf_puts(b, " (the host refuses the plugin, crashes, or reads memory it must "
                    "not).\n<!-- unwaivable:end -->\n\n");
}

void nc_rules_document(nc_strbuf *b)
{
  nc_rule rules[NC_RULE_COUNT];
  nc_strbuf_printf(b,
      "# nve-conform rules (ruleset %s)\n\n"
      "<!-- Written by `nve-conform --list --format=markdown` (make rules-doc) from\n"
      "     the rule table, lib/rules/rules.def. Edit that, not this file. -->\n\n"
      "Every check nve-conform makes is a rule with a stable ID. Each rule below says "
      "what it asks, the section of [the contract](contract.md) it enforces, why a "
      "host needs it, how the harness checks it, the usual mistakes, how to fix them, "
      "and the fixture plugin that proves the check can fail. `nve-conform --explain "
      "ID` prints one rule's page.\n\n"
      "Verdicts: **PASS**; **FAIL**, a MUST rule is broken; **WARN**, a SHOULD rule is "
      "broken (a failure only with `--strict`); **SKIP**, with the reason (not for this "
      "mode, needs a GPU, blocked by an earlier failure, or inconclusive because no "
      "failure could be provoked); **ERROR**, the harness itself could not run the case, "
      "which is never the plugin's failure. A waiver can accept the failure of a rule "
      "marked so, for a while and with a reason.\n\n",
      NC_RULESET_VERSION_STRING);
  unwaivable_sentence(b);
  nc_strbuf_puts(b,
      "A violation the instrumentation sees (the services, the simulated CUDA runtime, "
      "the call wrappers, the guarded buffers) counts for its rule in whichever case saw "
      "it; the evidence says where (\"seen during ...\"), and the reproduce line runs "
      "that case too.\n\n");
  nc_strbuf_puts(b, "| rule | severity | title |\n|---|---|---|\n");
  for (size_t f = 0; f < nc_family_count; f++) {
    size_t n = family_rules(nc_family_defs[f].family, rules);
    for (size_t i = 0; i < n; i++) {
      const nc_rule_info *info = &nc_rule_defs[rules[i]].info;
      char anchor[16];
      nc_rule_doc_anchor(rules[i], anchor);
      nc_strbuf_printf(b, "| [%s](#%s) | %s | ", info->id, anchor,
                       nc_severity_name(info->severity));
      for (const char *t = info->title; *t; t++) /* a '|' would end the cell */
        nc_strbuf_printf(b, "%s%c", *t == '|' ? "\\" : "", *t);
      nc_strbuf_puts(b, " |\n");
    }
  }
  for (size_t f = 0; f < nc_family_count; f++) {
    nc_strbuf_printf(b, "\n## %s: %s\n\n%s\n", nc_family_defs[f].family, nc_family_defs[f].title,
                     nc_family_defs[f].intro);
    size_t n = family_rules(nc_family_defs[f].family, rules);
    for (size_t i = 0; i < n; i++) {
      nc_strbuf_puts(b, "\n");
      nc_rule_page(b, rules[i], NC_PAGE_DOC);
    }
  }
}

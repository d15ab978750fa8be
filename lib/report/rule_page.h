/* SPDX-License-Identifier: Apache-2.0 */
/* A rule's explanation as markdown, from the rule table (rules.def):
 * one page for --explain, SARIF's help and the HTML report, and the whole
 * catalogue for doc/rules.md (nve-conform --list --format=markdown). */
#ifndef NC_RULE_PAGE_H
#define NC_RULE_PAGE_H

#include "rules.h"
#include "strbuf.h"

typedef enum {
  NC_PAGE_DOC,      /* inside doc/rules.md: anchors, links relative to doc/ */
  NC_PAGE_TERMINAL, /* --explain: no HTML anchor, the contract by installed path */
  NC_PAGE_EMBEDDED, /* SARIF and HTML: no HTML anchor, links as in doc/ */
} nc_page_kind;

/* Appends one rule's page. */
void nc_rule_page(nc_strbuf *b, nc_rule rule, nc_page_kind kind);

/* Appends the whole of doc/rules.md. */
void nc_rules_document(nc_strbuf *b);

/* "own-01" for OWN-01: the rule's anchor in doc/rules.md. */
void nc_rule_doc_anchor(nc_rule rule, char out[16]);

#endif

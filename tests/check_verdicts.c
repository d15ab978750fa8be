/* SPDX-License-Identifier: Apache-2.0 */
/* check_verdicts REPORT.json EXIT-CODE EXPECTED-EXIT SPEC...
 *
 * Compares a JSON report with the verdicts a fixture must get. SPEC words
 * are RULE=VERDICT, where VERDICT is PASS, FAIL, WARN, ERROR, WAIVED, or a
 * kind of SKIP: N/A, BLOCKED or UNTESTED (a bare SKIP is refused: the kinds
 * differ in what they mean for the exit code), and RULE is an ID or a glob
 * ("SVC-*"); an exact ID
 * wins over a glob (the first glob that matches), and a glob over "*", which
 * covers every other rule. VERDICT<RULE (e.g. BLOCKED<TBL-02) also asks that
 * the result be blocked by RULE (its blocked_by). Every result
 * in the report is compared, so a rule that passes where it should fail is
 * caught as surely as one that fails where it should pass. Prints one line
 * per difference; exits 0 when there is none. */
#include <cjson/cJSON.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  if (buf)
    buf[n] = '\0';
  fclose(f);
  return buf;
}

/* What the report shows for a result: its verdict, or its kind of SKIP. */
static const char *label_of(const cJSON *res)
{
  const char *verdict = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res, "verdict"));
  const char *skip = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res, "skip"));
  if (!verdict || strcmp(verdict, "SKIP") != 0)
    return verdict;
  if (skip && strcmp(skip, "not applicable") == 0)
    return "N/A";
  if (skip && strcmp(skip, "blocked") == 0)
    return "BLOCKED";
  return "UNTESTED";
}

/* The verdict SPEC demands for id, or NULL. */
static const char *expected_for(const char *id, int nspec, char **spec)
{
  const char *by_glob = NULL, *fallback = NULL;
  for (int i = 0; i < nspec; i++) {
    const char *eq = strchr(spec[i], '=');
    if (!eq)
      continue;
    char pattern[64];
    snprintf(pattern, sizeof(pattern), "%.*s", (int)(eq - spec[i]), spec[i]);
    if (strcmp(pattern, "*") == 0)
      fallback = eq + 1;
    else if (strcmp(pattern, id) == 0)
      return eq + 1;
    else if (!by_glob && fnmatch(pattern, id, 0) == 0)
      by_glob = eq + 1;
  }
  return by_glob ? by_glob : fallback;
}

int main(int argc, char **argv)
{
  if (argc < 4) {
    fprintf(stderr, "usage: check_verdicts REPORT.json EXIT EXPECTED-EXIT RULE=VERDICT...\n");
    return 2;
  }
  char *text = slurp(argv[1]);
  if (!text) {
    printf("report %s is missing\n", argv[1]);
    return 1;
  }
  cJSON *root = cJSON_Parse(text);
  free(text);
  if (!root) {
    printf("report %s is not valid JSON\n", argv[1]);
    return 1;
  }
  int differences = 0, substituted = 0;
  int nspec = argc - 4;
  char **spec = argv + 4;
  for (int i = 0; i < nspec; i++) {
    const char *eq = strchr(spec[i], '=');
    if (eq && strncmp(eq + 1, "SKIP", 4) == 0) {
      printf("%s: say which SKIP: N/A, BLOCKED or UNTESTED\n", spec[i]);
      differences++;
    }
  }
  const cJSON *results = cJSON_GetObjectItemCaseSensitive(root, "results");
  const cJSON *res;
  int seen = 0;
  cJSON_ArrayForEach(res, results)
  {
    const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res, "id"));
    const char *got = label_of(res);
    const char *reason = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res, "reason"));
    const char *want = id ? expected_for(id, nspec, spec) : NULL;
    seen++;
    if (!id || !got) {
      printf("a result lacks its id or verdict\n");
      differences++;
    } else if (!want) {
      printf("%s: %s, but the table gives no verdict for it\n", id, got);
      differences++;
    } else {
      /* "SKIP<TBL-02": the verdict, and the rule that blocks it. */
      const char *lt = strchr(want, '<');
      size_t vlen = lt ? (size_t)(lt - want) : strlen(want);
      const char *by = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res, "blocked_by"));
      int same = strlen(got) == vlen && strncmp(want, got, vlen) == 0;
      if (!same && getenv("NC_NO_INTERPOSER") && strcmp(got, "UNTESTED") == 0 && reason &&
          strstr(reason, "allocation interposer")) {
        substituted++; /* a sanitizer build: this rule cannot run there, and says so */
      } else if (!same) {
        printf("%s: %s, expected %.*s (%s)\n", id, got, (int)vlen, want,
               reason ? reason : "no reason");
        differences++;
      } else if (lt && (!by || strcmp(by, lt + 1) != 0)) {
        printf("%s: %s blocked by %s, expected blocked by %s (%s)\n", id, got, by ? by : "nothing",
               lt + 1, reason ? reason : "no reason");
        differences++;
      }
    }
  }
  /* A rule named in the spec (not a glob) must be in the report. */
  for (int i = 0; i < nspec; i++) {
    if (strpbrk(spec[i], "*?["))
      continue;
    int found = 0;
    cJSON_ArrayForEach(res, results)
    {
      const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res, "id"));
      if (id && strncmp(spec[i], id, strlen(id)) == 0 && spec[i][strlen(id)] == '=')
        found = 1;
    }
    if (!found) {
      printf("%s: not in the report\n", spec[i]);
      differences++;
    }
  }
  /* Where rules could not run, a failure they would have found is missing
   * from the exit code as well. */
  /* A rule the sanitizer build could not run is untested: exit 3 for what
   * passed elsewhere, or 0 for the waived. */
  if (strcmp(argv[2], argv[3]) != 0 &&
      !(substituted && (strcmp(argv[2], "0") == 0 || strcmp(argv[2], "3") == 0))) {
    printf("exit code %s, expected %s\n", argv[2], argv[3]);
    differences++;
  }
  if (seen == 0 && !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(root, "error"))) {
    printf("the report has no results and no error\n");
    differences++;
  }
  cJSON_Delete(root);
  return differences ? 1 : 0;
}

# SPDX-License-Identifier: Apache-2.0
# Helpers for the end-to-end tests: TAP output for automake's tap-driver,
# and paths into the build tree.

: "${NC_BUILDDIR:?run through make check}"
: "${NC_SRCDIR:?run through make check}"
NC="$NC_BUILDDIR/nve-conform"
REFERENCE="$NC_BUILDDIR/plugins/hashmap/.libs/nve-plugin-hashmap.so"
FIXTURES="$NC_BUILDDIR/fixtures/.libs"
tap_count=0
tap_failed=0
WORK=$(mktemp -d "${TMPDIR:-/tmp}/nve-conform-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

ok() { tap_count=$((tap_count + 1)); echo "ok $tap_count - $*"; }
not_ok() { tap_count=$((tap_count + 1)); tap_failed=$((tap_failed + 1)); echo "not ok $tap_count - $*"; }
diag() { sed 's/^/# /'; }
finish() { echo "1..$tap_count"; [ "$tap_failed" -eq 0 ]; }

# check NAME COMMAND...: one TAP line from a command's status; its output
# becomes diagnostics when it fails.
check() {
  name=$1
  shift
  if out=$("$@" 2>&1); then
    ok "$name"
  else
    not_ok "$name"
    printf '%s\n' "$out" | diag
  fi
}

# run_nc ARGS...: runs nve-conform, keeping stdout, stderr and the status.
run_nc() {
  "$NC" "$@" >"$WORK/stdout" 2>"$WORK/stderr"
  status=$?
}

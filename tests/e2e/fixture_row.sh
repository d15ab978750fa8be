#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# One line of fixtures/expected.tsv (a tests/rows/NAME.row file that
# tests/e2e/gen-fixture-rows wrote): runs nve-conform on the line's plugin
# with its arguments and compares every verdict and the exit code with the
# line. make check runs one of these per line, side by side.
. "$NC_SRCDIR/tests/e2e/lib.sh"
CHECK="$NC_BUILDDIR/tests/check_verdicts"

IFS='|' read -r name file args code spec <"${1:?usage: fixture_row.sh NAME.row}"
name=$(echo $name); file=$(echo $file); code=$(echo $code)
case $name in
  *"[cxx]"*)
    name=$(echo ${name%\[cxx\]})
    if [ "$NC_HAVE_CXX" != yes ]; then echo "ok - $name # SKIP no C++ compiler"; echo "1..1"; exit 0; fi ;;
  *"[cuda]"*)
    name=$(echo ${name%\[cuda\]})
    if [ "$NC_HAVE_CUDA" != yes ]; then
      echo "ok - $name # SKIP no CUDA toolkit: the device plugin is not built"; echo "1..1"; exit 0
    fi ;;
  *"[valgrind]"*)
    name=$(echo ${name%\[valgrind\]})
    # valgrind cannot run a harness built with AddressSanitizer.
    if [ -n "$NC_NO_INTERPOSER" ] || ! command -v valgrind >/dev/null 2>&1; then
      echo "ok - $name # SKIP no valgrind, or a sanitizer build"; echo "1..1"; exit 0
    fi ;;
  *"[sandbox]"*)
    name=$(echo ${name%\[sandbox\]})
    if ! sandbox_available; then
      echo "ok - $name # SKIP the cases' sandbox cannot be set up here"; echo "1..1"; exit 0
    fi ;;
  *"[asan]"*)
    name=$(echo ${name%\[asan\]})
    if [ "$NC_HAVE_ASAN" != yes ]; then
      echo "ok - $name # SKIP the compiler cannot build AddressSanitizer plugins"; echo "1..1"; exit 0
    fi ;;
esac
case $file in
  gen:*) make_generated_plugins "$WORK/gen"; path="$WORK/gen/${file#gen:}" ;;
  *) path="$NC_BUILDDIR/staged/$file" ;;
esac
args=$(echo "$args" | sed "s|@SRC@|$NC_SRCDIR|g")
label="$name${args:+ ($(echo $args))}: exit $code, $(echo $spec)"
# shellcheck disable=SC2086 # args and spec are word lists
"$NC" $args --json "$WORK/report.json" "$path" >"$WORK/out" 2>&1
status=$?
# shellcheck disable=SC2086
if diffs=$("$CHECK" "$WORK/report.json" "$status" "$code" $spec 2>&1); then
  ok "$label"
else
  not_ok "$label"
  printf '%s\n' "$diffs" | diag
  diag <"$WORK/out"
fi
finish

# SPDX-License-Identifier: Apache-2.0
# Helpers for the end-to-end tests: TAP output for automake's tap-driver,
# and paths into the build tree.

: "${NC_BUILDDIR:?run through make check}"
: "${NC_SRCDIR:?run through make check}"
NC="$NC_BUILDDIR/nve-conform"
REFERENCE="$NC_BUILDDIR/staged/plugins/nve-plugin-hashmap.so"
FIXTURES="$NC_BUILDDIR/staged/fixtures"
tap_count=0
tap_failed=0
WORK=$(mktemp -d "${TMPDIR:-/tmp}/nve-conform-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# The runs of one test share a TMPDIR of their own, so that the test can
# tell whether nve-conform left anything behind (tmp_left).
mkdir "$WORK/tmp"
TMPDIR="$WORK/tmp"
export TMPDIR

ok() { tap_count=$((tap_count + 1)); echo "ok - $*"; }
not_ok() { tap_count=$((tap_count + 1)); tap_failed=$((tap_failed + 1)); echo "not ok - $*"; }
diag() { sed 's/^/# /'; }
# tmp_left: one TAP line saying whether the runs left files in TMPDIR.
tmp_left() {
  left=$(ls -A "$TMPDIR")
  if [ -z "$left" ]; then
    ok "no file left in TMPDIR"
  else
    not_ok "files left in TMPDIR: $(echo $left)"
  fi
}
finish() {
  tmp_left
  echo "1..$tap_count"
  [ "$tap_failed" -eq 0 ]
}

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

# make_generated_plugins DIR: the files of the fixture table that are not
# loadable plugins (gen:NAME), made here rather than committed.
make_generated_plugins() {
  mkdir -p "$1"
  : >"$1/empty.so"
  printf 'This is not a shared object.\n' >"$1/text.so"
  head -c 40 "$REFERENCE" >"$1/truncated.so"
  # The reference plugin with e_machine (offset 18) set to AArch64 (183), or
  # to x86-64 (62) when this host is AArch64.
  cp "$REFERENCE" "$1/foreign-machine.so"
  if [ "$(uname -m)" = aarch64 ]; then m='\076'; else m='\267'; fi
  printf "$m\000" | dd of="$1/foreign-machine.so" bs=1 seek=18 conv=notrunc 2>/dev/null
  # An ELF32 header.
  printf '\177ELF\001\001\001\000\000\000\000\000\000\000\000\000\003\000\003\000' >"$1/elf32.so"
  head -c 100 /dev/zero >>"$1/elf32.so"
}

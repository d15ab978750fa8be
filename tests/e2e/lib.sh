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

# sandbox_available: whether the cases' sandbox can be set up here (one
# rule run with --sandbox required).
sandbox_available() {
  "$NC" --sandbox required --rule SYM-01 "$REFERENCE" >/dev/null 2>&1
}

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

# install_build DEST: make install of this build into the staging directory
# DEST (DESTDIR), as a packager would. Sets prefix, root (DEST/prefix), lib,
# runner, cudasim, reference and docdir, and exports the variables that point
# the installed programs into DEST (installed with DESTDIR, they look for each
# other under the final prefix). Returns make's status; the log is DEST.log.
install_build() {
  env -u MAKEFLAGS -u MFLAGS ${MAKE:-make} -C "$NC_BUILDDIR" install DESTDIR="$1" >"$1.log" 2>&1
  install_status=$?
  prefix=$(sed -n 's/^prefix=//p' "$NC_BUILDDIR/nve-conform.pc")
  exec_prefix=$(sed -n 's/^exec_prefix=//p' "$NC_BUILDDIR/nve-conform.pc" | sed "s|\${prefix}|$prefix|")
  libdir=$(sed -n 's/^libdir=//p' "$NC_BUILDDIR/nve-conform.pc" | sed "s|\${exec_prefix}|$exec_prefix|")
  root=$1$prefix
  lib=$1$libdir
  runner=$(find "$1" -name nve-conform-case -type f | head -n 1)
  cudasim=$(find "$1" -path '*/cudasim/libcudart.so.*' -type f | head -n 1)
  reference=$(find "$1" -name nve-plugin-hashmap.so | head -n 1)
  docdir=$(find "$1" -type d -path '*/doc/nve-conform' | head -n 1)
  NVE_CONFORM_CASE_RUNNER=$runner NVE_CONFORM_CUDASIM=$cudasim
  LD_LIBRARY_PATH=$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export NVE_CONFORM_CASE_RUNNER NVE_CONFORM_CUDASIM LD_LIBRARY_PATH
  return $install_status
}

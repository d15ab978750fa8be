/* SPDX-License-Identifier: Apache-2.0 */
/* Parsing the memory-error reports of --sanitize: valgrind memcheck's XML
 * and AddressSanitizer's log, including what must not count (leaks) and
 * what must not break the parser (entities, missing parts, truncation). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "mem_errors.h"

static const char memcheck_xml[] =
    "<?xml version=\"1.0\"?>\n<valgrindoutput>\n"
    "<error>\n  <unique>0x0</unique>\n  <tid>1</tid>\n  <kind>InvalidRead</kind>\n"
    "  <what>Invalid read of size 8</what>\n  <stack>\n"
    "    <frame>\n      <ip>0x4851234</ip>\n      <obj>/p/plugin.so</obj>\n"
    "      <fn>probe&lt;int&gt;</fn>\n      <dir>/src</dir>\n      <file>plugin.c</file>\n"
    "      <line>42</line>\n    </frame>\n"
    "    <frame>\n      <ip>0x10abc</ip>\n      <obj>/usr/bin/nve-conform-case</obj>\n"
    "      <fn>nc_call_find</fn>\n    </frame>\n  </stack>\n"
    "  <auxwhat>Address 0x1 is 0 bytes after a block of size 64 alloc'd</auxwhat>\n"
    "  <stack>\n    <frame>\n      <obj>/lib/libc.so.6</obj>\n      <fn>malloc</fn>\n"
    "    </frame>\n  </stack>\n</error>\n"
    "<error>\n  <kind>Leak_DefinitelyLost</kind>\n  <xwhat><text>8 bytes lost</text></xwhat>\n"
    "</error>\n"
    "<error>\n  <kind>UninitCondition</kind>\n"
    "  <what>Conditional jump or move depends on uninitialised value(s)</what>\n"
    "  <stack>\n    <frame>\n      <obj>/p/plugin.so</obj>\n    </frame>\n  </stack>\n"
    "</error>\n</valgrindoutput>\n";

static void test_memcheck_errors_and_frames(void **state)
{
  (void)state;
  nc_mem_error e[4];
  int seen;
  assert_int_equal(nc_mem_parse_memcheck(memcheck_xml, e, 4, &seen), 2);
  assert_int_equal(seen, 2); /* the leak is not an error here */
  assert_string_equal(e[0].kind, "InvalidRead");
  assert_string_equal(e[0].what, "Invalid read of size 8");
  assert_int_equal(e[0].nframes, 2); /* the access's stack, not the allocation's */
  assert_string_equal(e[0].frames[0].fn, "probe<int>");
  assert_string_equal(e[0].frames[0].where, "plugin.c:42");
  assert_string_equal(e[0].frames[0].obj, "/p/plugin.so");
  assert_string_equal(e[0].frames[1].fn, "nc_call_find");
  assert_string_equal(e[0].frames[1].where, "");
  assert_string_equal(e[1].kind, "UninitCondition");
  assert_string_equal(e[1].frames[0].fn, "");
}

static void test_memcheck_bounds(void **state)
{
  (void)state;
  nc_mem_error e[1];
  int seen;
  /* Fewer slots than errors: the count still says how many. */
  assert_int_equal(nc_mem_parse_memcheck(memcheck_xml, e, 1, &seen), 1);
  assert_int_equal(seen, 2);
  /* Nothing, a cut report (the tool killed mid-write), no XML at all. */
  assert_int_equal(nc_mem_parse_memcheck(NULL, e, 1, &seen), 0);
  assert_int_equal(nc_mem_parse_memcheck("<error><kind>InvalidRead</kind><stack><frame>", e, 1,
                                         &seen),
                   0);
  assert_int_equal(nc_mem_parse_memcheck("==1== Invalid read", e, 1, &seen), 0);
}

static const char asan_log[] =
    "=================================================================\n"
    "==4242==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6020 at pc 0x7f bp "
    "0x7ffd sp 0x7ffd\n"
    "READ of size 8 at 0x602000000018 thread T0\n"
    "    #0 0x7f0000001189  (/p/plugin.so+0x1189)\n"
    "    #1 0x55550000aaaa  (/usr/bin/nve-conform-case+0xaaaa)\n"
    "    #2 0x7f00000babe0 in start_thread nptl/pthread_create.c:442\n"
    "\n"
    "0x602000000018 is located 0 bytes to the right of 8-byte region\n"
    "allocated by thread T0 here:\n"
    "    #0 0x7f0000099999  (/lib/libasan.so.8+0x99999)\n";

static void test_asan_report(void **state)
{
  (void)state;
  nc_mem_error e[2];
  int seen;
  assert_int_equal(nc_mem_parse_asan(asan_log, e, 2, &seen), 1);
  assert_int_equal(seen, 1);
  assert_string_equal(e[0].kind, "heap-buffer-overflow");
  assert_string_equal(e[0].what, "READ of size 8");
  assert_int_equal(e[0].nframes, 3); /* the access's stack only */
  assert_string_equal(e[0].frames[0].obj, "/p/plugin.so");
  assert_true(e[0].frames[0].has_offset);
  assert_int_equal(e[0].frames[0].offset, 0x1189);
  assert_string_equal(e[0].frames[1].obj, "/usr/bin/nve-conform-case");
  assert_string_equal(e[0].frames[2].fn, "start_thread");
  assert_false(e[0].frames[2].has_offset);
}

static void test_asan_without_access_line(void **state)
{
  (void)state;
  static const char log[] = "==1==ERROR: AddressSanitizer: SEGV on unknown address 0x0\n"
                            "    #0 0x1  (/p/plugin.so+0x10)\n";
  nc_mem_error e[1];
  int seen;
  assert_int_equal(nc_mem_parse_asan(log, e, 1, &seen), 1);
  assert_string_equal(e[0].kind, "SEGV");
  assert_string_equal(e[0].what, "SEGV"); /* no access line: the kind says it */
  assert_int_equal(e[0].nframes, 1);
  assert_int_equal(nc_mem_parse_asan("no report here", e, 1, &seen), 0);
  assert_int_equal(seen, 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_memcheck_errors_and_frames),
      cmocka_unit_test(test_memcheck_bounds),
      cmocka_unit_test(test_asan_report),
      cmocka_unit_test(test_asan_without_access_line),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: Apache-2.0 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <elf.h>
#include <string.h>

#include "elf_info.h"

/* A minimal ELF64 shared object image: header, one PT_LOAD covering the
 * file, one PT_DYNAMIC with DT_STRTAB, DT_NEEDED x2, DT_SONAME. */
typedef struct image {
  Elf64_Ehdr eh;
  Elf64_Phdr ph[2];
  Elf64_Dyn dyn[5];
  char strtab[64];
} image;

static void build(image *im)
{
  memset(im, 0, sizeof(*im));
  memcpy(im->eh.e_ident, ELFMAG, SELFMAG);
  im->eh.e_ident[EI_CLASS] = ELFCLASS64;
  im->eh.e_ident[EI_DATA] = ELFDATA2LSB;
  im->eh.e_ident[EI_VERSION] = EV_CURRENT;
  im->eh.e_type = ET_DYN;
  im->eh.e_machine = (Elf64_Half)nc_elf_host_machine();
  im->eh.e_phoff = offsetof(image, ph);
  im->eh.e_phentsize = sizeof(Elf64_Phdr);
  im->eh.e_phnum = 2;
  im->ph[0].p_type = PT_LOAD;
  im->ph[0].p_offset = 0;
  im->ph[0].p_vaddr = 0x1000;
  im->ph[0].p_filesz = sizeof(image);
  im->ph[1].p_type = PT_DYNAMIC;
  im->ph[1].p_offset = offsetof(image, dyn);
  im->ph[1].p_filesz = sizeof(im->dyn);
  /* strtab: "\0libc.so.6\0libnve-common.so\0libx.so\0" */
  memcpy(im->strtab, "\0libc.so.6\0libnve-common.so\0libx.so", 36);
  im->dyn[0].d_tag = DT_STRTAB;
  im->dyn[0].d_un.d_ptr = 0x1000 + offsetof(image, strtab);
  im->dyn[1].d_tag = DT_NEEDED;
  im->dyn[1].d_un.d_val = 1;
  im->dyn[2].d_tag = DT_NEEDED;
  im->dyn[2].d_un.d_val = 11;
  im->dyn[3].d_tag = DT_SONAME;
  im->dyn[3].d_un.d_val = 28;
  im->dyn[4].d_tag = DT_NULL;
}

static void test_reads_needed_and_soname(void **state)
{
  (void)state;
  image im;
  build(&im);
  nc_elf_info info;
  char err[256] = "";
  assert_int_equal(nc_elf_inspect_image((unsigned char *)&im, sizeof(im), &info, err, sizeof(err)),
                   0);
  assert_int_equal(info.needed_count, 2);
  assert_string_equal(info.needed[0], "libc.so.6");
  assert_string_equal(info.needed[1], "libnve-common.so");
  assert_string_equal(info.soname, "libx.so");
  assert_string_equal(info.class_name, "ELF64");
  nc_elf_info_clear(&info);
}

/* Each malformed image is refused with a reason that says what is wrong. */
static void expect_refusal(image *im, size_t size, const char *words)
{
  nc_elf_info info;
  char err[256] = "";
  assert_int_equal(nc_elf_inspect_image((unsigned char *)im, size, &info, err, sizeof(err)), -1);
  if (!strstr(err, words))
    fail_msg("reason '%s' does not mention '%s'", err, words);
  nc_elf_info_clear(&info);
}

static void test_refusals(void **state)
{
  (void)state;
  image im;
  build(&im);
  expect_refusal(&im, 0, "empty");
  build(&im);
  memcpy(&im, "#!/bin/sh\n", 10);
  expect_refusal(&im, sizeof(im), "not an ELF file");
  build(&im);
  expect_refusal(&im, 10, "truncated");
  build(&im);
  im.eh.e_ident[EI_CLASS] = ELFCLASS32;
  expect_refusal(&im, sizeof(im), "32-bit");
  build(&im);
  im.eh.e_machine = nc_elf_host_machine() == EM_AARCH64 ? EM_X86_64 : EM_AARCH64;
  expect_refusal(&im, sizeof(im), "built for");
  build(&im);
  im.eh.e_type = ET_EXEC;
  expect_refusal(&im, sizeof(im), "executable");
  build(&im);
  im.eh.e_phnum = 200;
  expect_refusal(&im, sizeof(im), "truncated");
  build(&im);
  im.dyn[1].d_un.d_val = 5000; /* a needed name past the end of the file */
  expect_refusal(&im, sizeof(im), "truncated");
  build(&im);
  im.ph[1].p_type = PT_NOTE;
  expect_refusal(&im, sizeof(im), "no dynamic section");
}

static void test_missing_file(void **state)
{
  (void)state;
  nc_elf_info info;
  char err[256];
  assert_int_equal(nc_elf_inspect_file("/nonexistent/x.so", &info, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "cannot open"));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reads_needed_and_soname),
      cmocka_unit_test(test_refusals),
      cmocka_unit_test(test_missing_file),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

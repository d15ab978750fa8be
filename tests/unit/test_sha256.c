/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sha256.h"

static void hex_of(const char *text, size_t len, char out[65])
{
  nc_sha256 s;
  nc_sha256_init(&s);
  nc_sha256_update(&s, text, len);
  nc_sha256_final_hex(&s, out);
}

static void test_known_vectors(void **state)
{
  (void)state;
  char hex[65];
  hex_of("", 0, hex);
  assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  hex_of("abc", 3, hex);
  assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const char *two_blocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  hex_of(two_blocks, strlen(two_blocks), hex);
  assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void test_split_updates_match_one_update(void **state)
{
  (void)state;
  char text[1000];
  for (size_t i = 0; i < sizeof(text); i++)
    text[i] = (char)(i * 7);
  char whole[65], pieces[65];
  hex_of(text, sizeof(text), whole);
  nc_sha256 s;
  nc_sha256_init(&s);
  for (size_t off = 0; off < sizeof(text); off += 37)
    nc_sha256_update(&s, text + off, sizeof(text) - off < 37 ? sizeof(text) - off : 37);
  nc_sha256_final_hex(&s, pieces);
  assert_string_equal(whole, pieces);
}

static void test_file(void **state)
{
  (void)state;
  char path[] = "/tmp/nc-sha-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, "abc", 3), 3);
  close(fd);
  char hex[65];
  assert_int_equal(nc_sha256_file(path, hex), 0);
  assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  unlink(path);
  assert_int_equal(nc_sha256_file(path, hex), -1);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_known_vectors),
      cmocka_unit_test(test_split_updates_match_one_update),
      cmocka_unit_test(test_file),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

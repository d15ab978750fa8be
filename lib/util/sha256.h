/* SPDX-License-Identifier: Apache-2.0 */
/* SHA-256 of a file, for the report header (FIPS 180-4). */
#ifndef NC_SHA256_H
#define NC_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct nc_sha256 {
  uint32_t h[8];
  uint64_t length; /* bytes hashed so far */
  uint8_t block[64];
  size_t fill;
} nc_sha256;

void nc_sha256_init(nc_sha256 *s);
void nc_sha256_update(nc_sha256 *s, const void *data, size_t len);
/* Writes 64 lowercase hex digits and a NUL into hex. */
void nc_sha256_final_hex(nc_sha256 *s, char hex[65]);
/* Hashes a whole file; returns 0, or -1 with errno set. */
int nc_sha256_file(const char *path, char hex[65]);

#endif

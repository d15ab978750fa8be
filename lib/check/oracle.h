/* SPDX-License-Identifier: Apache-2.0 */
/* The reference model a table is compared with (doc/rules.md "TBL").
 *
 * For every key it keeps what a conforming table may answer: the rows a
 * hit may return (several when the contract leaves a choice open: a
 * re-inserted key kept or overwritten, duplicate keys in one batch), or
 * "any bytes" after an op that failed part-way, and whether a miss is
 * allowed (always, unless the table is exact; doc/contract.md#insert). A find's answer is checked against it and then refines
 * it, so that the model stays as sharp as the table's observed state. */
#ifndef NC_ORACLE_H
#define NC_ORACLE_H

#include <stddef.h>
#include <stdint.h>

#include "nve_c_api.h"

typedef struct nc_oracle nc_oracle;

/* A model of a table with key_size 4 or 8 and rows of row_bytes (what the
 * harness writes per key) whose elements are of dtype (for accumulate).
 * exact: a stored key may not go missing. */
nc_oracle *nc_oracle_new(int key_size, int64_t row_bytes, nve_data_type_t dtype, int exact,
                         int64_t invalid_key);
void nc_oracle_free(nc_oracle *o);
/* Room for about keys entries at once, where it is known ahead (the
 * explorer's plan): the model then grows its slots once, not by doubling
 * (each doubling zeroes a new array and moves every entry). A hint: more
 * entries still fit. */
void nc_oracle_reserve(nc_oracle *o, size_t keys);

/* Key i of a batch, widened to 64 bits (4-byte keys are signed). */
int64_t nc_oracle_key(const nc_oracle *o, const void *keys, int64_t i);

/* What a successful op did. Rows are row_bytes long, stride bytes apart. */
void nc_oracle_insert(nc_oracle *o, int64_t n, const void *keys, int64_t stride,
                      const void *rows);
void nc_oracle_update(nc_oracle *o, int64_t n, const void *keys, int64_t stride,
                      const void *rows);
/* The same with size bytes (0 to row_bytes) of each row written: a hit
 * returns those bytes first; the rest of the row is open until the key's
 * next whole write, and value_sizes may say any size from size up to
 * row_bytes (doc/contract.md#open-points). */
void nc_oracle_insert_prefix(nc_oracle *o, int64_t n, const void *keys, int64_t stride,
                             int64_t size, const void *rows);
void nc_oracle_update_prefix(nc_oracle *o, int64_t n, const void *keys, int64_t stride,
                             int64_t size, const void *rows);
/* Adds size bytes of updates of dtype element-wise into the rows (element k
 * of an update into element k of the row, each in its own type; see
 * dtype.h). Returns -1 (and changes nothing) when either type is not
 * convertible. A sum the row's type cannot hold exactly leaves that key's
 * bytes unpredicted. */
int nc_oracle_accumulate(nc_oracle *o, int64_t n, const void *keys, int64_t stride,
                         int64_t size, const void *updates, nve_data_type_t dtype);
void nc_oracle_erase(nc_oracle *o, int64_t n, const void *keys);
void nc_oracle_clear(nc_oracle *o);
/* An op on these keys (or on the whole table) failed: anything goes for
 * them until they are written again (doc/contract.md#open-points). */
void nc_oracle_forget(nc_oracle *o, int64_t n, const void *keys);
void nc_oracle_forget_all(nc_oracle *o);
/* Keys the model holds an entry for (stored, erased or unknown): a bound
 * on what the table may hold. */
size_t nc_oracle_entries(const nc_oracle *o);

typedef enum {
  NC_ORACLE_OK = 0,
  NC_ORACLE_MISSING,     /* an exact table lost a stored key */
  NC_ORACLE_HIT_ABSENT,  /* a hit for a key that cannot be present */
  NC_ORACLE_WRONG_BYTES, /* a hit with bytes never written for the key */
  NC_ORACLE_WRONG_SIZE,  /* value_sizes[i] is not the row size written */
} nc_oracle_verdict;

/* Checks one find answer for key: hit or miss, the bytes (NULL when the
 * find was given no values buffer) and the reported size (-1: none). On
 * WRONG_BYTES, *offset is the first byte that differs from the nearest
 * expected row. */
nc_oracle_verdict nc_oracle_check(const nc_oracle *o, int64_t key, int hit, const void *bytes,
                                  int64_t size, int64_t *offset);
/* A hint from a loop at key i of n (keys as the model's key size): the
 * slot of a key a few ahead is fetched into the cache. */
void nc_oracle_prefetch_ahead(const nc_oracle *o, const void *keys, int64_t n, int64_t i);
/* Learns from an answer that passed the check: a hit pins the row to the
 * one returned (a miss changes nothing). */
void nc_oracle_observe(nc_oracle *o, int64_t key, int hit, const void *bytes);

/* What last changed a key in the model, so that a wrong answer is charged
 * to the op's rule. */
typedef enum {
  NC_ORACLE_OP_NONE = 0, /* never written since the model began */
  NC_ORACLE_OP_INSERT,
  NC_ORACLE_OP_UPDATE,
  NC_ORACLE_OP_ACCUMULATE,
  NC_ORACLE_OP_ERASE,
  NC_ORACLE_OP_CLEAR,
} nc_oracle_op;
nc_oracle_op nc_oracle_last_op(const nc_oracle *o, int64_t key);
/* The erase or clear that last removed key (NONE when none did, or an
 * insert stored it since): a hit for a key that should be absent may be
 * that op's fault as much as a later update's. */
nc_oracle_op nc_oracle_removed_by(const nc_oracle *o, int64_t key);

/* The first row a hit for key may return, or NULL (absent, or any bytes). */
const unsigned char *nc_oracle_expected(const nc_oracle *o, int64_t key);

const char *nc_oracle_verdict_text(nc_oracle_verdict v);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/* The call space of the table operations, in one place: the dimensions a
 * call has and the classes of each that the harness drives. A fixture
 * proves that a rule catches the defect someone thought of; sweeping every
 * class of every dimension is what catches the next one (a defect that
 * shows only above some batch size, only with a stride wider than the row,
 * only for keys with the high bit set, only on a large failing call).
 *
 * Each op's owner case sweeps its op (nc_space_sweep): find and insert in
 * TBL-02, update in TBL-06, update_accumulate in TBL-07, erase in TBL-08.
 * The table kit charges every disagreement to the rule it breaks, whichever
 * sweep made the call. The coverage, with what could not run and why, goes
 * into the case's evidence and, as data, into the report's coverage
 * section (nc_space_report). */
#ifndef NC_CALL_SPACE_H
#define NC_CALL_SPACE_H

#include <stdint.h>

#include "table_kit.h"

typedef enum {
  NC_SPACE_INSERT = 0, /* insert, read back by find */
  NC_SPACE_UPDATE,
  NC_SPACE_ACCUMULATE, /* in the table's own element type */
  NC_SPACE_ERASE,
  NC_SPACE_OPS /* as many as lib/rules/rules.h's NC_SWEPT_OPS names */
} nc_space_op;

/* Batch sizes: empty, one, a few, around a 64-bit mask word, both sides of
 * the sizes where plugins typically switch to a parallel path (128, 1024),
 * realistic (4096) and one above 4096 that is no multiple of 64. A class
 * larger than the table's rows allow (nc_tk_batch) does not run, and the
 * report says so. */
#define NC_SPACE_BATCHES 14
extern const int64_t nc_space_batches[NC_SPACE_BATCHES];

/* value_stride (update_stride): the row exactly, the row plus an odd gap,
 * twice the row plus a gap. */
typedef enum { NC_STRIDE_ROW = 0, NC_STRIDE_ODD_GAP, NC_STRIDE_WIDE, NC_STRIDES } nc_space_stride;

/* Keys: spread over the key's full width (high bit set, negative as
 * signed), the edges (0, 1, -1, the type's extremes, the invalid key's
 * neighbours), each key twice in the batch, half of them already stored. */
typedef enum {
  NC_KEYS_SPREAD = 0,
  NC_KEYS_EDGES,
  NC_KEYS_DUPLICATES,
  NC_KEYS_HALF_STORED,
  NC_KEY_CLASSES
} nc_space_keys;

/* The table when the op runs: empty, holding what the round stored,
 * holding thousands of other live keys, that deep table after an erase
 * and a clear. */
typedef enum {
  NC_DEPTH_EMPTY = 0,
  NC_DEPTH_SHALLOW,
  NC_DEPTH_DEEP,
  NC_DEPTH_CLEARED,
  NC_DEPTHS
} nc_space_depth;

/* The thread that makes the round's calls: the case's own, another one
 * (started for the round, joined after it), several at once (TBL-12's
 * case: concurrent finds, each thread with its own context). */
typedef enum { NC_THREAD_CALLER = 0, NC_THREAD_OTHER, NC_THREAD_SEVERAL, NC_THREADS } nc_space_thread;

/* The outputs of the find that reads the round's keys back: every one, a
 * NULL hit_mask, NULL values, NULL value_sizes, some keys resolved on
 * entry. A wrong answer that a plain find of the key does not repeat is
 * the rule's of those outputs (TBL-05, TBL-03). */
typedef enum {
  NC_FIND_ALL = 0,
  NC_FIND_NO_MASK,
  NC_FIND_NO_VALUES,
  NC_FIND_NO_SIZES,
  NC_FIND_RESOLVED,
  NC_FIND_OUTPUTS
} nc_space_find;

/* The dimensions of a call, as the coverage names them. "failing" is the
 * batch class of a call the table may refuse (value_size past
 * max_row_size), whose refusal must leave a message (ERR-02). */
typedef enum {
  NC_DIM_BATCH = 0,
  NC_DIM_STRIDE,
  NC_DIM_KEYS,
  NC_DIM_DEPTH,
  NC_DIM_FAILING,
  NC_DIM_THREAD,
  NC_DIM_FIND,
  NC_DIM_DTYPE, /* update_accumulate only: the updates' element type */
  NC_DIM_COUNTER, /* the lookup counter, reset before a read-back find and read after */
  NC_DIMS
} nc_space_dim;

/* The update dtypes of update_accumulate: float32 .. float64 (1 .. 6). The
 * sweep runs the table's own; TBL-07's case tries every one. */
#define NC_SPACE_DTYPES 6

typedef struct nc_space_coverage {
  int64_t cap;       /* the most keys per call the table's rows allow */
  int64_t row;       /* the table's row (the least stride), for the report */
  int64_t deep_keys; /* live keys behind the deep rounds */
  int64_t calls;     /* calls made */
  unsigned char ran[NC_DIMS][NC_SPACE_BATCHES]; /* [dimension][class] */
  int thinned;          /* wide rows: large batches ran at one depth each */
  int failing_possible; /* the op has a refusal to provoke, on this table */
  char failing_why[160]; /* why not, when it has none */
  char whole_op[200];   /* why the op did not run at all, or "" */
} nc_space_coverage;

/* Sweeps op over every class of every dimension, on tables that f produces
 * (fresh ones for the empty and shallow rounds, one deep one): every batch
 * class at every depth, keys and strides varying by round, so each class
 * comes up several times. k gives the geometry. Records nothing itself:
 * the kit checks every call and charges what it finds to its rule. */
void nc_space_sweep(nc_tk *k, const nve_ext_table_factory_t *f, nc_space_op op,
                    nc_space_coverage *cov);

/* The coverage in the case's evidence (one note) and as data for the
 * report (a COVER record per class of every dimension: ran, or why not). */
void nc_space_report(nc_case *c, nc_space_op op, const nc_space_coverage *cov);

/* "insert" for NC_SPACE_INSERT, ... */
const char *nc_space_op_name(nc_space_op op);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/* The explorer's sequences (explore.h): the actions, the key relations,
 * the features a swarm switches, and the steps, generated up front so that
 * any subsequence replays with the same keys and rows. */
#ifndef NC_EXPLORE_SEQ_H
#define NC_EXPLORE_SEQ_H

#include <stddef.h>
#include <stdint.h>

#include "table_kit.h"

typedef enum {
  NC_X_FIND,
  NC_X_INSERT,
  NC_X_UPDATE,
  NC_X_ACCUMULATE,
  NC_X_ERASE,
  NC_X_CLEAR,
  NC_X_COUNTER,      /* reset the lookup counter, or read it */
  NC_X_PRODUCE,      /* another table in a free slot (a new factory when it is gone) */
  NC_X_DESTROY,      /* destroy a table */
  NC_X_DROP_FACTORY, /* destroy the factory while its tables live */
  NC_X_ACTIONS
} nc_x_action;

/* Where a step's keys come from, relative to the table's state. */
typedef enum {
  NC_XK_STORED,    /* stored in this table now */
  NC_XK_ERASED,    /* erased or cleared from it */
  NC_XK_FRESH,     /* never seen by any table */
  NC_XK_RELATIVE,  /* a bit relative of a stored key: +-1, sign, a half changed */
  NC_XK_EDGE,      /* 0, -1, the extremes, the invalid key and its neighbours */
  NC_XK_ELSEWHERE, /* stored in another table, alive or destroyed */
  NC_XK_CLASSES
} nc_x_class;

/* The features of a sequence: one bit per action, per key class, and the
 * shapes of calls. */
#define NC_XF_ACTION(a) (1u << (a))
#define NC_XF_CLASS(k) (1u << (10 + (k)))
#define NC_XF_THREADS (1u << 16)    /* steps on another thread */
#define NC_XF_NULLS (1u << 17)      /* finds with NULL optional outputs */
#define NC_XF_MASK (1u << 18)       /* finds with keys resolved on entry */
#define NC_XF_STRIDE (1u << 19)     /* strides wider than the row */
#define NC_XF_DUPLICATES (1u << 20) /* a key twice in a batch */
#define NC_XF_DTYPES (1u << 21)     /* accumulates in dtypes other than the table's */
/* Before one write in eight (drawn from the step alone), the same call
 * with a value_size past max_row_size: a refusal must leave a message. */
#define NC_XF_OVERSIZE (1u << 22)
/* One insert or update in four (drawn from the step alone) writes fewer
 * bytes than the row (value_size in the step's size). */
#define NC_XF_SHORT (1u << 23)
/* One produce in two (drawn from the step alone) uses one of the
 * profile's more_table_configs, where it lists any. */
#define NC_XF_CONFIGS (1u << 24)
#define NC_XF_ALL 0x1ffffffu

/* Find outputs passed as NULL. */
#define NC_X_NULL_MASK 1
#define NC_X_NULL_VALUES 2
#define NC_X_NULL_SIZES 4

/* Table slots a sequence may keep alive at once. */
#define NC_X_SLOTS 3

typedef struct nc_x_step {
  uint8_t action, slot;
  uint8_t thread;      /* 1 or 2: run on that thread of the sequence (0: the case's) */
  uint8_t nulls;       /* find: NC_X_NULL_* */
  uint8_t read;        /* counter: 1 read, 0 reset */
  uint8_t classes;     /* the key classes its keys were drawn from (bits) */
  uint8_t config;      /* produce: 0 the table config, k the profile's k-th more one */
  int32_t resolved_every; /* find: every k-th key resolved on entry (0: none) */
  int32_t dtype;       /* accumulate: the updates' dtype */
  int64_t n, first;    /* its keys: arena[first .. first + n) */
  int64_t stride_pad;  /* bytes added to the least stride */
  int64_t size;        /* accumulate: update_size; insert, update: value_size (0: the row) */
  uint64_t tag;        /* which rows it writes */
} nc_x_step;

typedef struct nc_x_seq {
  nc_x_step *steps;
  size_t count, cap;
  int64_t *arena;
  size_t arena_len, arena_cap;
  uint32_t features;
  uint64_t seed; /* its keys, rows and probes follow from it */
  int even;      /* every action at its base weight (else a swarm's emphasis) */
  uint32_t favoured; /* actions a directed view weights up (NC_XF_ACTION bits) */
  int64_t depth_goal, batch_max;
  int64_t growth_max; /* the largest insert while the table grows to its goal */
  /* What generation reached: the deepest table (keys stored and not
   * removed since, as generated), the largest batch, keys per action and
   * class, steps on another thread, lifecycle events. */
  int64_t deepest, largest, work;
  int64_t slot_deepest[NC_X_SLOTS]; /* the deepest each slot's tables get */
  int64_t keys_by[NC_X_ACTIONS][NC_XK_CLASSES];
  int64_t threaded, drops_with_tables, produce_after_drop, destroys_with_others;
  int64_t other_configs; /* produces of another config */
} nc_x_seq;

/* What the generator needs to know of the table. */
typedef struct nc_x_table_shape {
  int key_size;
  int64_t invalid_key;
  int64_t row;            /* bytes written per key */
  int64_t stride;         /* the least stride */
  int64_t cap;            /* the most keys per call (nc_tk_batch) */
  int accumulate;         /* the table's dtype can be summed */
  nve_data_type_t dtype;
  int64_t update_size;    /* of an accumulate in the table's dtype */
  int64_t update_half;    /* about half of it */
  /* The same for updates of each dtype (0: none fits the row), by value. */
  int64_t dtype_update_size[NVE_DTYPE_QUINT8_ROWWISE_F16 + 1];
  int64_t dtype_update_half[NVE_DTYPE_QUINT8_ROWWISE_F16 + 1];
  int64_t depth_max;      /* the deepest table worth growing (0: no bound of its own) */
  int host;               /* the table's buffers are host memory */
  int64_t max_row_size;
  int oversize_possible;  /* the runner sends writes past max_row_size (explore_run.h) */
  int more_configs;       /* other table configs produce may use (the profile's) */
} nc_x_table_shape;

/* Generates sequence q (features, depth goal, batch ceilings set by the
 * caller in q before the call) of about work_goal checked keys, aiming
 * part of its steps at the cells cover lacks and adding its steps to it
 * (cover may be NULL). 0, or -1 when out of memory. */
struct nc_x_cover;
int nc_x_generate(nc_x_seq *q, const nc_x_table_shape *shape, uint64_t seed, int64_t work_goal,
                  struct nc_x_cover *cover);
void nc_x_seq_free(nc_x_seq *q);

extern const char *const nc_x_action_names[NC_X_ACTIONS];
extern const char *const nc_x_class_names[NC_XK_CLASSES];


/* One line describing a step (for the report and the reproducers). */
void nc_x_describe(const nc_x_seq *q, const nc_x_step *s, char *out, size_t len);

#endif

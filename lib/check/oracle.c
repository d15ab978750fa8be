/* SPDX-License-Identifier: Apache-2.0 */
#include "oracle.h"

#include <stdlib.h>
#include <string.h>

#include "big_alloc.h"
#include "dtype.h"

/* More rows than this for one key and the model gives up on its bytes. */
#define CANDIDATES 4

typedef struct entry {
  int64_t key;
  uint8_t used;
  uint8_t any;       /* any bytes may come back (an op failed part-way) */
  uint8_t absent_ok; /* a miss is allowed */
  uint8_t ncand;     /* rows a hit may return; 0 and !any: must be absent */
  uint8_t room;      /* rows allocated: 0, 1 (pooled), 2 or CANDIDATES */
  uint8_t pooled;    /* rows is one block of the model's row pool (room 1) */
  uint8_t last;      /* nc_oracle_op: what last changed it */
  uint8_t removed;   /* nc_oracle_op: the erase or clear that last removed it */
  uint32_t batch;    /* the op that last wrote it, for duplicate keys */
  uint32_t open_tail; /* bytes at the end of its rows any hit may differ in (a short write) */
  unsigned char *rows;
} entry;

struct nc_oracle {
  int key_size, exact;
  nve_data_type_t dtype;
  int64_t row, invalid_key;
  entry *slots;
  size_t capacity, used;
  int all_unknown; /* keys not in the map are unknown, not absent */
  int cleared;     /* keys not in the map were cleared away */
  uint32_t batch;
  uint64_t version; /* bumped by every change */
  /* Most keys hold one row: those come from chunks of blocks, so that a
   * key costs no malloc and a clear or the end of a table no free per key. */
  unsigned char **chunks;
  size_t nchunks, chunk_cap, block;
  size_t in_chunk;          /* blocks in the newest chunk */
  size_t cursor;            /* blocks handed out from it */
  unsigned char *free_list; /* blocks given back; the next one's address in the first bytes */
};

/* Chunks double from a few blocks (a small table stays on the heap) to
 * about this many bytes (or one block). */
#define POOL_FIRST_BLOCKS 16u
#define POOL_CHUNK_BYTES (256u << 10)

/* Whether this thread's latest nc_oracle_check found its answer equal to
 * the key's only row, the model unchanged since: nc_oracle_observe of that
 * answer then has nothing to learn (and no row to copy). Per thread, so
 * that checks stay reads of the model (readers share one, TBL-12). */
static _Thread_local struct {
  const nc_oracle *o;
  uint64_t version;
  int64_t key;
  const void *bytes;
} last_match;

static void changed(nc_oracle *o) { o->version++; }

nc_oracle *nc_oracle_new(int key_size, int64_t row_bytes, nve_data_type_t dtype, int exact,
                         int64_t invalid_key)
{
  nc_oracle *o = calloc(1, sizeof(*o));
  if (!o)
    return NULL;
  o->key_size = key_size;
  o->dtype = dtype;
  o->row = row_bytes;
  o->exact = exact;
  o->invalid_key = key_size == 4 ? (int64_t)(int32_t)invalid_key : invalid_key;
  o->block = (size_t)row_bytes > sizeof(void *) ? (size_t)row_bytes : sizeof(void *);
  o->capacity = 64;
  o->slots = nc_big_calloc(o->capacity, sizeof(entry));
  if (!o->slots) {
    free(o);
    return NULL;
  }
  return o;
}

static unsigned char *pool_take(nc_oracle *o)
{
  if (o->free_list) {
    unsigned char *b = o->free_list;
    memcpy(&o->free_list, b, sizeof(void *));
    return b;
  }
  if (o->nchunks == 0 || o->cursor == o->in_chunk) {
    size_t most = POOL_CHUNK_BYTES / o->block ? POOL_CHUNK_BYTES / o->block : 1;
    size_t blocks = o->nchunks == 0 ? POOL_FIRST_BLOCKS : o->in_chunk * 2;
    if (o->nchunks == o->chunk_cap) {
      size_t cap = o->chunk_cap ? o->chunk_cap * 2 : 16;
      unsigned char **chunks = realloc(o->chunks, cap * sizeof(*chunks));
      if (!chunks)
        abort();
      o->chunks = chunks;
      o->chunk_cap = cap;
    }
    o->in_chunk = blocks < most ? blocks : most;
    if (!(o->chunks[o->nchunks] = malloc(o->in_chunk * o->block)))
      abort();
    o->nchunks++;
    o->cursor = 0;
  }
  return o->chunks[o->nchunks - 1] + o->block * o->cursor++;
}

static void pool_give_back(nc_oracle *o, unsigned char *b)
{
  memcpy(b, &o->free_list, sizeof(void *));
  o->free_list = b;
}

/* Every block back at once (the entries that held them are gone);
 * release: the chunks too, else the newest (the largest) is kept. */
static void pool_reset(nc_oracle *o, int release)
{
  size_t keep = !release && o->nchunks > 0 ? o->nchunks - 1 : o->nchunks;
  for (size_t i = 0; i < o->nchunks; i++)
    if (i != keep)
      free(o->chunks[i]);
  if (keep < o->nchunks)
    o->chunks[0] = o->chunks[keep];
  o->nchunks = keep < o->nchunks ? 1 : 0;
  o->cursor = 0;
  o->free_list = NULL;
  if (release) {
    free(o->chunks);
    o->chunks = NULL;
    o->chunk_cap = 0;
  }
}

static void drop_rows(entry *slots, size_t capacity)
{
  for (size_t i = 0; i < capacity; i++)
    if (!slots[i].pooled)
      free(slots[i].rows);
}

/* The same, and the used entries zeroed: the array is then as calloc left
 * it (an unused entry is all zeros), having written only what was used,
 * so that a large reserved array's untouched pages stay untouched. */
static void clean_slots(entry *slots, size_t capacity)
{
  for (size_t i = 0; i < capacity; i++)
    if (slots[i].used) {
      if (!slots[i].pooled)
        free(slots[i].rows);
      memset(&slots[i], 0, sizeof(entry));
    }
}

void nc_oracle_free(nc_oracle *o)
{
  if (!o)
    return;
  if (last_match.o == o) /* a new model may come at this address */
    last_match.o = NULL;
  drop_rows(o->slots, o->capacity);
  nc_big_free(o->slots, o->capacity * sizeof(entry));
  pool_reset(o, 1);
  free(o);
}

size_t nc_oracle_entries(const nc_oracle *o) { return o->used; }

int64_t nc_oracle_key(const nc_oracle *o, const void *keys, int64_t i)
{
  if (o->key_size == 4) {
    int32_t k;
    memcpy(&k, (const char *)keys + 4 * i, 4);
    return k;
  }
  int64_t k;
  memcpy(&k, (const char *)keys + 8 * i, 8);
  return k;
}

static size_t hash(int64_t key)
{
  uint64_t k = (uint64_t)key * 0x9e3779b97f4a7c15ull;
  return (size_t)(k ^ (k >> 29));
}

/* Keys this far ahead of the one a batch loop is at have their slots
 * fetched into the cache: a large model is a cache miss per key. */
#define AHEAD 8

#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define PREFETCH(p) ((void)(p))
#endif

void nc_oracle_prefetch_ahead(const nc_oracle *o, const void *keys, int64_t n, int64_t i)
{
  if (i + AHEAD < n)
    PREFETCH(&o->slots[hash(nc_oracle_key(o, keys, i + AHEAD)) & (o->capacity - 1)]);
}

static entry *find_slot(entry *slots, size_t capacity, int64_t key)
{
  size_t mask = capacity - 1;
  for (size_t i = hash(key) & mask;; i = (i + 1) & mask)
    if (!slots[i].used || slots[i].key == key)
      return &slots[i];
}

static const entry *lookup(const nc_oracle *o, int64_t key)
{
  const entry *e = find_slot(o->slots, o->capacity, key);
  return e->used ? e : NULL;
}

/* The slots moved to a new array of capacity entries (a power of two).
 * The harness cannot go on without its model: out of memory aborts. */
static void resize(nc_oracle *o, size_t capacity)
{
  entry *slots = nc_big_calloc(capacity, sizeof(entry));
  if (!slots)
    abort();
  for (size_t i = 0; i < o->capacity; i++)
    if (o->slots[i].used)
      *find_slot(slots, capacity, o->slots[i].key) = o->slots[i];
  nc_big_free(o->slots, o->capacity * sizeof(entry));
  o->slots = slots;
  o->capacity = capacity;
}

/* At most this many slots reserved ahead (512 MiB of them): past it the
 * model grows as the keys come. */
#define RESERVE_MOST ((size_t)1 << 24)

void nc_oracle_reserve(nc_oracle *o, size_t keys)
{
  size_t capacity = o->capacity;
  while (capacity < RESERVE_MOST && keys * 2 > capacity)
    capacity *= 2;
  if (capacity > o->capacity)
    resize(o, capacity);
}

/* The entry for key, created in the default state when absent. */
static entry *entry_for(nc_oracle *o, int64_t key)
{
  entry *e = find_slot(o->slots, o->capacity, key);
  if (e->used)
    return e;
  if ((o->used + 1) * 2 > o->capacity) {
    resize(o, o->capacity * 2);
    e = find_slot(o->slots, o->capacity, key);
  }
  memset(e, 0, sizeof(*e));
  e->used = 1;
  e->key = key;
  e->any = (uint8_t)o->all_unknown;
  e->absent_ok = 1;
  e->removed = o->cleared ? NC_ORACLE_OP_CLEAR : NC_ORACLE_OP_NONE;
  o->used++;
  return e;
}

/* Room for candidate c in e. A key's first row comes from the pool (rows
 * are allocated as keys come: wide rows times many keys would not fit
 * otherwise); past it the room doubles (2, then CANDIDATES), so that a key
 * rewritten again and again is not a realloc and a copy per candidate,
 * while a key of two candidates holds no more than two rows. */
static unsigned char *row_slot(nc_oracle *o, entry *e, int c)
{
  if (c >= e->room && e->room == 0 && c == 0) {
    e->rows = pool_take(o);
    e->pooled = 1;
    e->room = 1;
  } else if (c >= e->room) {
    int room = e->room * 2 > c ? e->room * 2 : c + 1;
    room = room < CANDIDATES ? room : CANDIDATES;
    unsigned char *rows = malloc((size_t)o->row * (size_t)room);
    if (!rows)
      abort();
    if (e->room)
      memcpy(rows, e->rows, (size_t)o->row * e->room);
    if (e->pooled)
      pool_give_back(o, e->rows);
    else
      free(e->rows);
    e->pooled = 0;
    e->rows = rows;
    e->room = (uint8_t)room;
  }
  return e->rows + (size_t)c * (size_t)o->row;
}

static int present_possible(const entry *e) { return e->any || e->ncand > 0; }

static void set_row(nc_oracle *o, entry *e, const void *row)
{
  e->any = 0;
  e->ncand = 1;
  memcpy(row_slot(o, e, 0), row, (size_t)o->row);
}

/* Adds a row a hit may return; past CANDIDATES, any bytes are accepted. */
static void add_row(nc_oracle *o, entry *e, const void *row)
{
  if (e->any)
    return;
  for (int c = 0; c < e->ncand; c++)
    if (memcmp(e->rows + c * o->row, row, (size_t)o->row) == 0)
      return;
  if (e->ncand == CANDIDATES) {
    e->any = 1;
    e->ncand = 0;
    return;
  }
  memcpy(row_slot(o, e, e->ncand), row, (size_t)o->row);
  e->ncand++;
}

/* A write of size bytes per key leaves the rest of the row open: the
 * widest such tail among a key's candidates is its open tail. */
static void note_size(nc_oracle *o, entry *e, int64_t size, int replaced)
{
  uint32_t tail = (uint32_t)(o->row - size);
  e->open_tail = replaced || tail > e->open_tail ? tail : e->open_tail;
}

static void write_prefix(nc_oracle *o, int update, int64_t n, const void *keys, int64_t stride,
                         int64_t size, const void *rows)
{
  size = size < 0 ? 0 : size > o->row ? o->row : size;
  changed(o);
  o->batch++;
  for (int64_t i = 0; i < n; i++) {
    nc_oracle_prefetch_ahead(o, keys, n, i);
    entry *e = entry_for(o, nc_oracle_key(o, keys, i));
    const unsigned char *row = (const unsigned char *)rows + i * stride;
    if (update) {
      e->last = NC_ORACLE_OP_UPDATE;
      if (!present_possible(e))
        continue; /* update never inserts */
    }
    /* An existing key may be kept or overwritten by insert; duplicates in
     * one batch may leave any of their rows. An update replaces the row
     * (and a key that may be absent stays so). */
    int keep = e->batch == o->batch || (!update && present_possible(e));
    if (keep)
      add_row(o, e, row);
    else
      set_row(o, e, row);
    note_size(o, e, size, !keep);
    e->batch = o->batch;
    if (!update) {
      e->absent_ok = !o->exact;
      e->last = NC_ORACLE_OP_INSERT;
      e->removed = NC_ORACLE_OP_NONE;
    }
  }
}

void nc_oracle_insert(nc_oracle *o, int64_t n, const void *keys, int64_t stride,
                      const void *rows)
{
  write_prefix(o, 0, n, keys, stride, o->row, rows);
}

void nc_oracle_update(nc_oracle *o, int64_t n, const void *keys, int64_t stride,
                      const void *rows)
{
  write_prefix(o, 1, n, keys, stride, o->row, rows);
}

void nc_oracle_insert_prefix(nc_oracle *o, int64_t n, const void *keys, int64_t stride,
                             int64_t size, const void *rows)
{
  write_prefix(o, 0, n, keys, stride, size, rows);
}

void nc_oracle_update_prefix(nc_oracle *o, int64_t n, const void *keys, int64_t stride,
                             int64_t size, const void *rows)
{
  write_prefix(o, 1, n, keys, stride, size, rows);
}

/* Adds elements of src (of dtype) into row (of row_type), element by
 * element; 0 when a sum was not exact in row_type. */
static int add_into(nve_data_type_t row_type, unsigned char *row, nve_data_type_t dtype,
                    const unsigned char *src, int64_t elements)
{
  int exact = 1;
  if (row_type == NVE_DTYPE_FLOAT32 && dtype == NVE_DTYPE_FLOAT32) {
    /* nc_dtype_decode and _encode without their dispatch, for the common case. */
    for (int64_t k = 0; k < elements; k++) {
      float a, b;
      memcpy(&a, row + 4 * k, 4);
      memcpy(&b, src + 4 * k, 4);
      double sum = (double)a + (double)b;
      float x = (float)sum;
      memcpy(row + 4 * k, &x, 4);
      exact &= (double)x == sum;
    }
    return exact;
  }
  int64_t row_width = nc_dtype_width(row_type), width = nc_dtype_width(dtype);
  for (int64_t k = 0; k < elements; k++) {
    double sum = nc_dtype_decode(row_type, row + row_width * k) +
                 nc_dtype_decode(dtype, src + width * k);
    exact &= nc_dtype_encode(row_type, sum, row + row_width * k);
  }
  return exact;
}

int nc_oracle_accumulate(nc_oracle *o, int64_t n, const void *keys, int64_t stride,
                         int64_t size, const void *updates, nve_data_type_t dtype)
{
  int64_t row_width = nc_dtype_width(o->dtype), width = nc_dtype_width(dtype);
  if (!row_width || !width)
    return -1;
  int64_t elements = size / width;
  if (elements * row_width > o->row)
    elements = o->row / row_width;
  changed(o);
  o->batch++;
  for (int64_t i = 0; i < n; i++) {
    nc_oracle_prefetch_ahead(o, keys, n, i);
    entry *e = entry_for(o, nc_oracle_key(o, keys, i));
    if (e->batch == o->batch) { /* a duplicate: the order of the sums is open */
      e->any = 1;
      e->ncand = 0;
    }
    e->batch = o->batch;
    e->last = NC_ORACLE_OP_ACCUMULATE;
    const unsigned char *src = (const unsigned char *)updates + i * stride;
    /* Sums into an open tail are open too: only the known elements count,
     * and an element the tail cuts through is open from then on. */
    int64_t known = (o->row - (int64_t)e->open_tail) / row_width;
    int64_t summed = elements < known ? elements : known;
    if (elements > known && e->open_tail)
      e->open_tail = (uint32_t)(o->row - known * row_width);
    for (int c = 0; c < e->ncand; c++)
      if (!add_into(o->dtype, e->rows + c * o->row, dtype, src, summed)) {
        /* A sum the table's type cannot hold exactly may be rounded in
         * more than one reasonable way: its bytes are not predicted. */
        e->any = 1;
        e->ncand = 0;
      }
  }
  return 0;
}

void nc_oracle_erase(nc_oracle *o, int64_t n, const void *keys)
{
  changed(o);
  for (int64_t i = 0; i < n; i++) {
    nc_oracle_prefetch_ahead(o, keys, n, i);
    entry *e = entry_for(o, nc_oracle_key(o, keys, i));
    e->any = 0;
    e->ncand = 0;
    e->absent_ok = 1;
    e->last = NC_ORACLE_OP_ERASE;
    e->removed = NC_ORACLE_OP_ERASE;
  }
}

static void reset(nc_oracle *o, int all_unknown)
{
  changed(o);
  clean_slots(o->slots, o->capacity);
  pool_reset(o, 0);
  o->used = 0;
  o->all_unknown = all_unknown;
  o->cleared = !all_unknown;
}

void nc_oracle_clear(nc_oracle *o) { reset(o, 0); }
void nc_oracle_forget_all(nc_oracle *o) { reset(o, 1); }

void nc_oracle_forget(nc_oracle *o, int64_t n, const void *keys)
{
  changed(o);
  for (int64_t i = 0; i < n; i++) {
    nc_oracle_prefetch_ahead(o, keys, n, i);
    entry *e = entry_for(o, nc_oracle_key(o, keys, i));
    e->any = 1;
    e->ncand = 0;
    e->absent_ok = 1;
  }
}

nc_oracle_verdict nc_oracle_check(const nc_oracle *o, int64_t key, int hit, const void *bytes,
                                  int64_t size, int64_t *offset)
{
  last_match.o = NULL; /* it speaks of the latest check only */
  const entry *e = lookup(o, key);
  int any = e ? e->any : o->all_unknown;
  int ncand = e ? e->ncand : 0;
  int absent_ok = e ? e->absent_ok : 1;
  if (!hit) {
    if (!any && ncand == 0)
      return NC_ORACLE_OK;
    return absent_ok || key == o->invalid_key ? NC_ORACLE_OK : NC_ORACLE_MISSING;
  }
  if (!any && ncand == 0)
    return NC_ORACLE_HIT_ABSENT;
  /* After a short write a table may report any size from the bytes
   * written up to its row; a key whose bytes are unknown (an op failed
   * part-way, perhaps a short write), any size up to the row. */
  int64_t known = e ? o->row - (int64_t)e->open_tail : o->row;
  if (size >= 0 && (size > o->row || (!any && (size < known || (known == o->row && size != o->row)))))
    return NC_ORACLE_WRONG_SIZE;
  if (!bytes || any)
    return NC_ORACLE_OK;
  int64_t best = -1;
  for (int c = 0; c < ncand; c++) {
    const unsigned char *want = e->rows + (size_t)c * (size_t)o->row, *got = bytes;
    if (memcmp(want, got, (size_t)known) == 0) {
      if (ncand == 1) {
        last_match.o = o;
        last_match.version = o->version;
        last_match.key = key;
        last_match.bytes = bytes;
      }
      return NC_ORACLE_OK;
    }
    int64_t k = 0; /* where they part, for the report */
    while (k < known && want[k] == got[k])
      k++;
    if (k > best)
      best = k;
  }
  if (offset)
    *offset = best;
  return NC_ORACLE_WRONG_BYTES;
}

void nc_oracle_observe(nc_oracle *o, int64_t key, int hit, const void *bytes)
{
  /* A miss teaches nothing: a table may serve a key again that it once
   * missed (an insert still in flight, a second tier), as long as the
   * bytes are right. */
  if (!hit || !bytes || (!lookup(o, key) && !o->all_unknown))
    return;
  if (last_match.o == o && last_match.version == o->version && last_match.key == key &&
      last_match.bytes == bytes)
    return; /* the key's only row, just compared equal */
  changed(o);
  set_row(o, entry_for(o, key), bytes);
}

nc_oracle_op nc_oracle_last_op(const nc_oracle *o, int64_t key)
{
  const entry *e = lookup(o, key);
  if (e && e->last)
    return (nc_oracle_op)e->last;
  return o->cleared ? NC_ORACLE_OP_CLEAR : NC_ORACLE_OP_NONE;
}

nc_oracle_op nc_oracle_removed_by(const nc_oracle *o, int64_t key)
{
  const entry *e = lookup(o, key);
  if (e)
    return (nc_oracle_op)e->removed;
  return o->cleared ? NC_ORACLE_OP_CLEAR : NC_ORACLE_OP_NONE;
}

const unsigned char *nc_oracle_expected(const nc_oracle *o, int64_t key)
{
  const entry *e = lookup(o, key);
  return e && !e->any && e->ncand > 0 ? e->rows : NULL;
}

const char *nc_oracle_verdict_text(nc_oracle_verdict v)
{
  switch (v) {
  case NC_ORACLE_OK:
    return "as the model expects";
  case NC_ORACLE_MISSING:
    return "a miss for a stored key (the profile declares the table exact)";
  case NC_ORACLE_HIT_ABSENT:
    return "a hit for a key that was never stored, or was erased, cleared or never inserted by "
           "update";
  case NC_ORACLE_WRONG_BYTES:
    return "a hit with bytes that were never written for this key";
  case NC_ORACLE_WRONG_SIZE:
    return "value_sizes differs from the size written";
  }
  return "?";
}

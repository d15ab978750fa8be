/* SPDX-License-Identifier: Apache-2.0 */
#include "callback.h"

#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "alloc.h"

static _Thread_local char mine[NC_CALLBACK_NAME_MAX];
static char private_page[NC_CALLBACK_NAME_MAX];
static volatile char *page = private_page;

void nc_callback_share(char *shared)
{
  page = shared ? shared : private_page;
  page[0] = '\0';
}

/* Copies name into the shared page so that a reader never sees half of it:
 * the first byte goes last. */
static void publish(const char *name, size_t n)
{
  page[0] = '\0';
  for (size_t i = n; i-- > 1;)
    page[i] = name[i];
  page[n] = '\0';
  page[0] = name[0];
}

void nc_callback_enter(const char *name)
{
  size_t n = strlen(name);
  if (n >= NC_CALLBACK_NAME_MAX)
    n = NC_CALLBACK_NAME_MAX - 1;
  memcpy(mine, name, n);
  mine[n] = '\0';
  publish(name, n);
  nc_alloc_plugin_enter();
}

void nc_callbackf_enter(const char *fmt, ...)
{
  char name[NC_CALLBACK_NAME_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(name, sizeof(name), fmt, ap);
  va_end(ap);
  nc_callback_enter(name);
}

static void (*leave_hook)(void);

void nc_callback_set_leave_hook(void (*hook)(void)) { leave_hook = hook; }

void nc_callback_leave(void)
{
  if (leave_hook)
    leave_hook();
  mine[0] = '\0';
  page[0] = '\0';
  nc_alloc_plugin_leave();
}

int nc_callback_thread(void)
{
  static atomic_int next;
  static _Thread_local int mine_number;
  if (!mine_number)
    mine_number = atomic_fetch_add(&next, 1) + 1;
  return mine_number;
}

const char *nc_callback_current(void) { return mine[0] ? mine : NULL; }

const char *nc_callback_last(void) { return page[0] ? (const char *)page : NULL; }

static volatile sig_atomic_t op_owner = -1, claimed = -1;

void nc_callback_set_op_owner(int rule) { op_owner = rule; }
void nc_callback_claim(int rule) { claimed = rule; }
int nc_callback_owner(void) { return claimed >= 0 ? claimed : op_owner; }

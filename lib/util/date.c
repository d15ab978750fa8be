/* SPDX-License-Identifier: Apache-2.0 */
#include "date.h"

#include <time.h>

static int leap(long y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

static int month_days(long y, int m)
{
  static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap(y) ? 29 : days[m - 1];
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian), after Howard
 * Hinnant's days_from_civil. */
static long days_from_civil(long y, int m, int d)
{
  y -= m <= 2;
  long era = (y >= 0 ? y : y - 399) / 400;
  long yoe = y - era * 400;
  long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

/* Reads exactly n digits at *p; -1 when there are not n. */
static long digits(const char **p, int n)
{
  long v = 0;
  for (int i = 0; i < n; i++, (*p)++) {
    if (**p < '0' || **p > '9')
      return -1;
    v = v * 10 + (**p - '0');
  }
  return v;
}

int nc_date_parse(const char *text, long *days)
{
  if (!text)
    return -1;
  const char *p = text;
  long y = digits(&p, 4);
  if (y < 0 || *p++ != '-')
    return -1;
  long m = digits(&p, 2);
  if (m < 1 || m > 12 || *p++ != '-')
    return -1;
  long d = digits(&p, 2);
  if (d < 1 || d > month_days(y, (int)m) || *p != '\0')
    return -1;
  *days = days_from_civil(y, (int)m, (int)d);
  return 0;
}

long nc_date_today(void) { return (long)(time(NULL) / 86400); }

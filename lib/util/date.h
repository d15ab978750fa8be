/* SPDX-License-Identifier: Apache-2.0 */
/* Calendar dates as ISO 8601 writes them (YYYY-MM-DD), read strictly: a
 * waiver that expires on "garbage" or on 2027-02-30 is an error, never a
 * date that compares after every other. */
#ifndef NC_DATE_H
#define NC_DATE_H

/* Reads "YYYY-MM-DD" (nothing before or after) into *days, the days since
 * 1970-01-01. Returns 0, or -1 when it is not a real calendar date. */
int nc_date_parse(const char *text, long *days);
/* Today (UTC) in the same count. */
long nc_date_today(void);

#endif

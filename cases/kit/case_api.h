/* SPDX-License-Identifier: Apache-2.0 */
/* What a conformance case sees: the run's configuration and the plugin
 * (case_table.h), the calls that record evidence (evidence.h), and the
 * reading of text a plugin returns (text.h). */
#ifndef NC_CASE_API_H
#define NC_CASE_API_H

#include "case_table.h"
#include "evidence.h"
#include "text.h"

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/* SplitMix64: the harness's one small generator of pseudo-random numbers
 * (keys, orders, pauses), seeded from the run's seed so that one seed
 * gives one run. Not for secrets (lib/util has getrandom for those). */
#ifndef NC_SPLITMIX_H
#define NC_SPLITMIX_H

#include <stdint.h>

/* SplitMix64's finaliser: a bijection that spreads every input bit. */
static inline uint64_t nc_mix64(uint64_t z)
{
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* The next number of the sequence whose state is *s. */
static inline uint64_t nc_splitmix(uint64_t *s) { return nc_mix64(*s += 0x9e3779b97f4a7c15ull); }

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nve_c_api.h: the part of NVE's public C API that table plugins use --
 * status codes, data types, key types and the symbol-export macro.
 * Names and values follow the upstream header exactly, so plugin sources
 * written against upstream NVE compile unchanged against this file.
 */
#ifndef NVE_C_API_H
#define NVE_C_API_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#error "the NVE plugin ABI is defined for 64-bit ELF platforms only"
#else
#define NVE_C_API __attribute__((visibility("default")))
#endif

/* Version of the C API this subset mirrors. */
#define NVE_C_ABI_VERSION_MAJOR (1)
#define NVE_C_ABI_VERSION_MINOR (0)

#ifdef __cplusplus
extern "C" {
#endif

/* Fixed 32-bit status; any other value is "unknown" and a host maps it to
 * NVE_ERROR_RUNTIME. */
typedef int32_t nve_status_t;
enum {
  NVE_SUCCESS = 0,
  NVE_ERROR_INVALID_ARGUMENT = 1,
  NVE_ERROR_CUDA = 2,
  NVE_ERROR_RUNTIME = 3,
  NVE_ERROR_NOT_IMPLEMENTED = 4,
  NVE_ERROR_OUT_OF_MEMORY = 5,
};

/* Fixed 32-bit element type of a table row. */
typedef int32_t nve_data_type_t;
enum {
  NVE_DTYPE_UNKNOWN = 0,
  NVE_DTYPE_FLOAT32 = 1,
  NVE_DTYPE_BFLOAT16 = 2,
  NVE_DTYPE_FLOAT16 = 3,
  NVE_DTYPE_E4M3 = 4,
  NVE_DTYPE_E5M2 = 5,
  NVE_DTYPE_FLOAT64 = 6,
  NVE_DTYPE_QINT8_ROWWISE_F32 = 7,
  NVE_DTYPE_QINT8_ROWWISE_F16 = 8,
  NVE_DTYPE_QUINT8_ROWWISE_F32 = 9,
  NVE_DTYPE_QUINT8_ROWWISE_F16 = 10,
};

/* Key width of a C API table handle. */
typedef enum {
  NVE_KEY_INT32 = 0,
  NVE_KEY_INT64 = 1,
} nve_key_type_t;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* NVE_C_API_H */

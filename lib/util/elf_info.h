/* SPDX-License-Identifier: Apache-2.0 */
/* Static inspection of a plugin file: reads the ELF headers and the dynamic
 * section without running any of the file's code. */
#ifndef NC_ELF_INFO_H
#define NC_ELF_INFO_H

#include <stddef.h>
#include <stdint.h>

#define NC_ELF_MAX_NEEDED 64

typedef struct nc_elf_info {
  char class_name[16];   /* "ELF64" */
  char machine_name[32]; /* "x86-64" */
  char type_name[32];    /* "shared object" */
  char soname[256];      /* "" when absent */
  char *needed[NC_ELF_MAX_NEEDED];
  size_t needed_count;
  int loadable; /* class, byte order, machine and type fit this host */
} nc_elf_info;

/* Inspects an in-memory image. Returns 0 when the image is a shared object
 * this host can load, else -1 with a one-line reason in err (info still holds
 * whatever could be read). Call nc_elf_info_clear() in both cases. */
int nc_elf_inspect_image(const unsigned char *image, size_t size, nc_elf_info *info, char *err,
                         size_t errlen);
/* Same, for a file; also fails for unreadable files. */
int nc_elf_inspect_file(const char *path, nc_elf_info *info, char *err, size_t errlen);
void nc_elf_info_clear(nc_elf_info *info);

/* Names the function of the file at path that contains the load-relative
 * address offset (static functions too, when the file keeps its .symtab).
 * Returns 0 and writes "name+0xdelta", or -1. */
int nc_elf_symbolize_file(const char *path, uint64_t offset, char *out, size_t outlen);

/* The host's own ELF machine (EM_*) and a name for any machine number. */
unsigned nc_elf_host_machine(void);
const char *nc_elf_machine_name(unsigned machine);

#endif

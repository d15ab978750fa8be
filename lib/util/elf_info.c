/* SPDX-License-Identifier: Apache-2.0 */
#include "elf_info.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
  return -1;
}

unsigned nc_elf_host_machine(void)
{
#if defined(__x86_64__)
  return EM_X86_64;
#elif defined(__aarch64__)
  return EM_AARCH64;
#elif defined(__powerpc64__)
  return EM_PPC64;
#elif defined(__riscv) && __riscv_xlen == 64
  return EM_RISCV;
#elif defined(__s390x__)
  return EM_S390;
#else
  return EM_NONE;
#endif
}

const char *nc_elf_machine_name(unsigned machine)
{
  switch (machine) {
  case EM_386: return "i386";
  case EM_X86_64: return "x86-64";
  case EM_ARM: return "ARM";
  case EM_AARCH64: return "AArch64";
  case EM_PPC: return "PowerPC";
  case EM_PPC64: return "PowerPC64";
  case EM_RISCV: return "RISC-V";
  case EM_S390: return "s390";
  case EM_MIPS: return "MIPS";
  case EM_SPARCV9: return "SPARC V9";
  default: return "unknown machine";
  }
}

static const char *type_name(unsigned type)
{
  switch (type) {
  case ET_REL: return "relocatable object";
  case ET_EXEC: return "executable";
  case ET_DYN: return "shared object";
  case ET_CORE: return "core dump";
  default: return "unknown type";
  }
}

/* File offset of virtual address vaddr, through the PT_LOAD segments. */
static int vaddr_to_offset(const Elf64_Phdr *ph, size_t phnum, uint64_t vaddr, uint64_t *off)
{
  for (size_t i = 0; i < phnum; i++) {
    if (ph[i].p_type != PT_LOAD)
      continue;
    if (vaddr >= ph[i].p_vaddr && vaddr - ph[i].p_vaddr < ph[i].p_filesz) {
      *off = ph[i].p_offset + (vaddr - ph[i].p_vaddr);
      return 0;
    }
  }
  return -1;
}

/* Copies the NUL-terminated string at off, failing if it runs off the image. */
static int copy_string(const unsigned char *image, size_t size, uint64_t off, char *out,
                       size_t outlen)
{
  if (off >= size)
    return -1;
  const unsigned char *end = memchr(image + off, '\0', size - off);
  if (!end)
    return -1;
  snprintf(out, outlen, "%s", (const char *)image + off);
  return 0;
}

static int read_dynamic(const unsigned char *image, size_t size, const Elf64_Ehdr *eh,
                        nc_elf_info *info, char *err, size_t errlen)
{
  if (eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phnum == 0)
    return fail(err, errlen, "ELF file has no usable program headers");
  if (eh->e_phoff > size || (size - eh->e_phoff) / sizeof(Elf64_Phdr) < eh->e_phnum)
    return fail(err, errlen, "ELF file is truncated: program headers run past the end");
  Elf64_Phdr *ph = malloc(sizeof(Elf64_Phdr) * eh->e_phnum);
  if (!ph)
    return fail(err, errlen, "out of memory");
  memcpy(ph, image + eh->e_phoff, sizeof(Elf64_Phdr) * eh->e_phnum);

  const Elf64_Phdr *dyn = NULL;
  for (size_t i = 0; i < eh->e_phnum; i++)
    if (ph[i].p_type == PT_DYNAMIC)
      dyn = &ph[i];
  int rc = -1;
  if (!dyn) {
    fail(err, errlen, "ELF file has no dynamic section: not a shared library");
    goto out;
  }
  if (dyn->p_offset > size || dyn->p_filesz > size - dyn->p_offset) {
    fail(err, errlen, "ELF file is truncated: dynamic section runs past the end");
    goto out;
  }
  size_t count = dyn->p_filesz / sizeof(Elf64_Dyn);
  uint64_t strtab = 0, flags_1 = 0;
  int have_strtab = 0;
  for (size_t i = 0; i < count; i++) {
    Elf64_Dyn d;
    memcpy(&d, image + dyn->p_offset + i * sizeof(d), sizeof(d));
    if (d.d_tag == DT_NULL)
      break;
    if (d.d_tag == DT_STRTAB) {
      strtab = d.d_un.d_ptr;
      have_strtab = 1;
    } else if (d.d_tag == DT_FLAGS_1) {
      flags_1 = d.d_un.d_val;
    }
  }
  uint64_t stroff = 0;
  if (!have_strtab || vaddr_to_offset(ph, eh->e_phnum, strtab, &stroff) != 0) {
    fail(err, errlen, "ELF file's dynamic string table is missing or outside the file");
    goto out;
  }
  for (size_t i = 0; i < count; i++) {
    Elf64_Dyn d;
    memcpy(&d, image + dyn->p_offset + i * sizeof(d), sizeof(d));
    if (d.d_tag == DT_NULL)
      break;
    if (d.d_tag != DT_NEEDED && d.d_tag != DT_SONAME)
      continue;
    char name[256];
    if (copy_string(image, size, stroff + d.d_un.d_val, name, sizeof(name)) != 0) {
      fail(err, errlen, "ELF file is truncated: a dynamic string runs past the end");
      goto out;
    }
    if (d.d_tag == DT_SONAME) {
      snprintf(info->soname, sizeof(info->soname), "%s", name);
    } else if (info->needed_count < NC_ELF_MAX_NEEDED) {
      info->needed[info->needed_count] = strdup(name);
      if (info->needed[info->needed_count])
        info->needed_count++;
    }
  }
  if (flags_1 & DF_1_PIE) {
    fail(err, errlen, "ELF file is a position-independent executable, not a shared library");
    goto out;
  }
  rc = 0;
out:
  free(ph);
  return rc;
}

int nc_elf_inspect_image(const unsigned char *image, size_t size, nc_elf_info *info, char *err,
                         size_t errlen)
{
  memset(info, 0, sizeof(*info));
  if (size == 0)
    return fail(err, errlen, "file is empty, not an ELF shared object");
  if (size < SELFMAG || memcmp(image, ELFMAG, SELFMAG) != 0)
    return fail(err, errlen, "not an ELF file (no ELF magic number)");
  if (size < EI_NIDENT)
    return fail(err, errlen, "ELF file is truncated: %zu bytes", size);
  unsigned cls = image[EI_CLASS];
  snprintf(info->class_name, sizeof(info->class_name), "%s",
           cls == ELFCLASS64 ? "ELF64" : cls == ELFCLASS32 ? "ELF32" : "invalid class");
  if (cls != ELFCLASS64)
    return fail(err, errlen, "ELF file is %s; this host loads 64-bit (ELF64) plugins only",
                cls == ELFCLASS32 ? "32-bit (ELF32)" : "of an invalid class");
  unsigned host_data = ELFDATA2LSB;
  {
    const uint16_t probe = 1;
    if (*(const unsigned char *)&probe == 0)
      host_data = ELFDATA2MSB;
  }
  if (image[EI_DATA] != host_data)
    return fail(err, errlen, "ELF file has the wrong byte order for this host");
  if (size < sizeof(Elf64_Ehdr))
    return fail(err, errlen, "ELF file is truncated: %zu bytes, header needs %zu", size,
                sizeof(Elf64_Ehdr));
  Elf64_Ehdr eh;
  memcpy(&eh, image, sizeof(eh));
  snprintf(info->machine_name, sizeof(info->machine_name), "%s",
           nc_elf_machine_name(eh.e_machine));
  snprintf(info->type_name, sizeof(info->type_name), "%s", type_name(eh.e_type));
  if (eh.e_machine != nc_elf_host_machine())
    return fail(err, errlen, "ELF file is built for %s (machine %u); this host is %s",
                nc_elf_machine_name(eh.e_machine), (unsigned)eh.e_machine,
                nc_elf_machine_name(nc_elf_host_machine()));
  if (eh.e_type != ET_DYN)
    return fail(err, errlen, "ELF file is a %s, not a shared object", type_name(eh.e_type));
  if (read_dynamic(image, size, &eh, info, err, errlen) != 0)
    return -1;
  info->loadable = 1;
  return 0;
}

int nc_elf_inspect_file(const char *path, nc_elf_info *info, char *err, size_t errlen)
{
  memset(info, 0, sizeof(*info));
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return fail(err, errlen, "cannot open '%s': %s", path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return fail(err, errlen, "'%s' is not a regular file", path);
  }
  if (st.st_size == 0) {
    close(fd);
    return nc_elf_inspect_image((const unsigned char *)"", 0, info, err, errlen);
  }
  void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (map == MAP_FAILED)
    return fail(err, errlen, "cannot map '%s': %s", path, strerror(errno));
  int rc = nc_elf_inspect_image(map, (size_t)st.st_size, info, err, errlen);
  munmap(map, (size_t)st.st_size);
  return rc;
}

void nc_elf_info_clear(nc_elf_info *info)
{
  for (size_t i = 0; i < info->needed_count; i++)
    free(info->needed[i]);
  info->needed_count = 0;
}

/* Searches one symbol table section for a function containing offset. */
static int search_symbols(const unsigned char *image, size_t size, const Elf64_Shdr *sh,
                          size_t shnum, size_t table, uint64_t offset, char *out, size_t outlen)
{
  const Elf64_Shdr *symtab = &sh[table];
  if (symtab->sh_link >= shnum || symtab->sh_entsize != sizeof(Elf64_Sym) ||
      symtab->sh_offset > size || symtab->sh_size > size - symtab->sh_offset)
    return -1;
  const Elf64_Shdr *strtab = &sh[symtab->sh_link];
  if (strtab->sh_offset > size || strtab->sh_size > size - strtab->sh_offset)
    return -1;
  size_t count = symtab->sh_size / sizeof(Elf64_Sym);
  for (size_t i = 0; i < count; i++) {
    Elf64_Sym sym;
    memcpy(&sym, image + symtab->sh_offset + i * sizeof(sym), sizeof(sym));
    if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_value > offset ||
        offset - sym.st_value >= (sym.st_size ? sym.st_size : 1))
      continue;
    char name[256];
    if (sym.st_name >= strtab->sh_size ||
        copy_string(image, size, strtab->sh_offset + sym.st_name, name, sizeof(name)) != 0)
      return -1;
    snprintf(out, outlen, "%s+0x%lx", name, (unsigned long)(offset - sym.st_value));
    return 0;
  }
  return -1;
}

int nc_elf_symbolize_file(const char *path, uint64_t offset, char *out, size_t outlen)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  struct stat st;
  if (fstat(fd, &st) != 0 || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
    close(fd);
    return -1;
  }
  size_t size = (size_t)st.st_size;
  unsigned char *image = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (image == MAP_FAILED)
    return -1;
  int rc = -1;
  Elf64_Ehdr eh;
  memcpy(&eh, image, sizeof(eh));
  if (memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 && eh.e_ident[EI_CLASS] == ELFCLASS64 &&
      eh.e_shentsize == sizeof(Elf64_Shdr) && eh.e_shoff <= size &&
      (size - eh.e_shoff) / sizeof(Elf64_Shdr) >= eh.e_shnum) {
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(image + eh.e_shoff);
    /* The full symbol table first: it has the static functions. */
    for (unsigned want = SHT_SYMTAB; rc != 0 && want; want = want == SHT_SYMTAB ? SHT_DYNSYM : 0)
      for (size_t i = 0; rc != 0 && i < eh.e_shnum; i++)
        if (sh[i].sh_type == want)
          rc = search_symbols(image, size, sh, eh.e_shnum, i, offset, out, outlen);
  }
  munmap(image, size);
  return rc;
}

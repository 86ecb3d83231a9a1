/* A region for a bundle run from C, with GUARD bytes of a known pattern on
 * both sides so that writes outside it are caught: run_bundle_test's and
 * run_case_bundle_test's. C99 and malloc only, for every target (newlib's
 * aligned_alloc needs a posix_memalign it does not have, so the block is
 * rounded up by hand). Needs KILN_ALIGNMENT (kiln.h). */
#ifndef KILN_TESTS_E2E_GUARDED_REGION_H
#define KILN_TESTS_E2E_GUARDED_REGION_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GUARD 256
#define GUARD_BYTE 0xA5

typedef struct {
  uint8_t *block, *base;
  size_t size;
} region;

/* `size` bytes at a KILN_ALIGNMENT boundary between two guards. */
static region region_new(size_t size) {
  region r;
  uint8_t *raw = malloc(GUARD + size + GUARD + KILN_ALIGNMENT - 1);
  if (!raw) {
    fprintf(stderr, "out of memory for a region of %lu bytes\n", (unsigned long)size);
    exit(2);
  }
  r.size = size;
  r.base = raw + GUARD + (KILN_ALIGNMENT - (uintptr_t)(raw + GUARD) % KILN_ALIGNMENT) % KILN_ALIGNMENT;
  r.block = r.base - GUARD;
  memset(r.block, GUARD_BYTE, GUARD);
  memset(r.base + size, GUARD_BYTE, GUARD);
  return r;
}

static int region_guards_intact(const region *r) {
  size_t i;
  for (i = 0; i < GUARD; ++i)
    if (r->block[i] != GUARD_BYTE || r->base[r->size + i] != GUARD_BYTE)
      return 0;
  return 1;
}

#endif

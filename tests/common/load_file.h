/* Reads a whole file of known size into a buffer, for the C99 bundle tests.
 * Returns 1 on success; on a missing or short file, says so on stderr and
 * returns 0. */
#ifndef KILN_TESTS_COMMON_LOAD_FILE_H
#define KILN_TESTS_COMMON_LOAD_FILE_H

#include <stdint.h>
#include <stdio.h>

static int loadFile(const char *path, uint8_t *dst, size_t size) {
  FILE *f = fopen(path, "rb");
  size_t n = f ? fread(dst, 1, size, f) : 0;
  if (f)
    fclose(f);
  if (n != size) {
    fprintf(stderr, "%s: expected %zu bytes\n", path, size);
    return 0;
  }
  return 1;
}

#endif

/* One of ONNX's backend test cases, compiled by kiln_bundle (weights
 * embedded) and run from C on any target: the descriptor's tensors are found
 * by name, the run-time inputs filled from their files, and each output
 * compared with ONNX's recorded one, exactly for integer outputs and with
 * ONNX's tolerance (|got - want| <= 1e-7 + 1e-3 * |want|) for float ones.
 *
 * usage: run_case_bundle_test NAME FILE [NAME FILE ...]
 *   each NAME an input or an output of the bundle, FILE its raw
 *   little-endian bytes; every input and every output must be given.
 *
 * Built with kiln_bundle_defines (KILN_BUNDLE_NAME, KILN_BUNDLE_HEADER). */
#include KILN_BUNDLE_HEADER

#include "tests/e2e/guarded_region.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define BUNDLE CAT(KILN_BUNDLE_NAME, _bundle)

/* The file's bytes, which must be exactly `size`. */
static uint8_t *read_exactly(const char *path, size_t size) {
  FILE *f = fopen(path, "rb");
  uint8_t *data = malloc(size + 1);
  size_t n;
  if (!f || !data) {
    fprintf(stderr, "cannot open %s\n", path);
    exit(2);
  }
  n = fread(data, 1, size + 1, f);
  fclose(f);
  if (n != size) {
    fprintf(stderr, "%s: %lu bytes, the tensor has %lu\n", path,
            (unsigned long)n, (unsigned long)size);
    exit(2);
  }
  return data;
}

/* The number of elements of `t` that differ from `want`, printing the first. */
static size_t count_mismatches(const kiln_tensor *t, const uint8_t *got,
                               const uint8_t *want) {
  size_t i, bad = 0;
  if (t->dtype != KILN_F32) {
    for (i = 0; i < t->size; ++i)
      bad += got[i] != want[i];
    if (bad)
      fprintf(stderr, "output '%s': %lu of %lu bytes differ\n", t->name,
              (unsigned long)bad, (unsigned long)t->size);
    return bad;
  }
  for (i = 0; i < t->size / sizeof(float); ++i) {
    float g, w;
    memcpy(&g, got + i * sizeof g, sizeof g);
    memcpy(&w, want + i * sizeof w, sizeof w);
    if (!(fabsf(g - w) <= 1e-7f + 1e-3f * fabsf(w)) && !(isnan(g) && isnan(w))) {
      if (!bad)
        fprintf(stderr, "output '%s'[%lu]: %.9g, want %.9g\n", t->name,
                (unsigned long)i, g, w);
      ++bad;
    }
  }
  return bad;
}

int main(int argc, char **argv) {
  const kiln_bundle *b = &BUNDLE;
  const char *files[64] = {0};
  region io, scratch;
  uint32_t k, given = 0;
  size_t failures = 0;
  int a, status;
  if (argc % 2 != 1 || b->num_inputs + b->num_outputs > 64) {
    fprintf(stderr, "usage: %s NAME FILE [NAME FILE ...]\n", argv[0]);
    return 2;
  }
  /* files[k]: input k, then output k - num_inputs. */
  for (a = 1; a < argc; a += 2) {
    const kiln_tensor *t = kiln_find_tensor(b, argv[a]);
    if (!t) {
      fprintf(stderr, "the bundle has no tensor '%s'\n", argv[a]);
      return 2;
    }
    k = t >= b->inputs && t < b->inputs + b->num_inputs
            ? (uint32_t)(t - b->inputs)
            : b->num_inputs + (uint32_t)(t - b->outputs);
    files[k] = argv[a + 1];
    ++given;
  }
  if (given != b->num_inputs + b->num_outputs) {
    fprintf(stderr, "%lu files for %lu inputs and outputs\n",
            (unsigned long)given, (unsigned long)(b->num_inputs + b->num_outputs));
    return 2;
  }
  io = region_new(b->io_size);
  scratch = region_new(b->scratch_size);
  memset(io.base, 0, io.size);
  for (k = 0; k < b->num_inputs; ++k) {
    uint8_t *data = read_exactly(files[k], b->inputs[k].size);
    memcpy(io.base + b->inputs[k].offset, data, b->inputs[k].size);
    free(data);
  }
  status = kiln_run_checked(b, b->embedded_weights, b->weights_size, io.base,
                            io.size, scratch.base, scratch.size);
  if (status != KILN_OK) {
    fprintf(stderr, "run: status %d\n", status);
    return 1;
  }
  if (!region_guards_intact(&io) || !region_guards_intact(&scratch)) {
    fprintf(stderr, "the run wrote outside its io or scratch region\n");
    ++failures;
  }
  for (k = 0; k < b->num_outputs; ++k) {
    const kiln_tensor *t = &b->outputs[k];
    uint8_t *want = read_exactly(files[b->num_inputs + k], t->size);
    failures += count_mismatches(t, io.base + t->offset, want);
    free(want);
  }
  printf("%s: %s\n", b->name, failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
}

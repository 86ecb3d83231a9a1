/*
 * kiln.h - the kiln bundle ABI, version 1.
 *
 * A bundle is NAME.o + NAME.h (+ NAME.weights.bin unless built with
 * --embed-weights). The caller owns all memory, in three regions:
 *
 *   weights  read-only, NAME_WEIGHTS_SIZE bytes: the contents of
 *            NAME.weights.bin, or NAME_bundle.embedded_weights
 *   io       read-write, NAME_IO_SIZE bytes: every input and output tensor at
 *            its offset (kiln_tensor.offset, or NAME_<TENSOR>_OFFSET)
 *   scratch  read-write, NAME_SCRATCH_SIZE bytes: intermediate values; its
 *            contents need not survive between calls
 *
 * Each region's base address must be aligned to KILN_ALIGNMENT (=
 * kiln_bundle.alignment = NAME_ALIGNMENT). The generated code never allocates,
 * never calls libc, and touches no memory outside these three regions (and its
 * own stack). It keeps no state between calls, so one bundle may run on
 * several threads at once given separate io and scratch regions.
 *
 * C99; includes only <stdint.h> and <stddef.h>.
 */
#ifndef KILN_H
#define KILN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KILN_ABI_VERSION 1
#define KILN_ALIGNMENT 64

typedef enum {
  KILN_OK = 0,
  KILN_ERR_NULL = -1,  /* a region pointer is NULL */
  KILN_ERR_ALIGN = -2, /* a region is not aligned to kiln_bundle.alignment */
  KILN_ERR_ABI = -3,   /* the bundle was built for another ABI version */
  KILN_ERR_SIZE = -4   /* a caller-supplied region size is too small */
} kiln_status;

/* Element types; the numbering is stable across ABI versions. */
typedef enum {
  KILN_F32 = 1,
  KILN_I8,
  KILN_U8,
  KILN_I16,
  KILN_I32,
  KILN_I64,
  KILN_BOOL,
  KILN_F16,
  KILN_F64,
  KILN_U16,
  KILN_U32,
  KILN_U64
} kiln_dtype;

typedef struct {
  const char *name;      /* the model's tensor name */
  kiln_dtype dtype;
  uint32_t rank;
  const uint32_t *shape; /* rank entries, outermost first (row-major) */
  size_t offset;         /* byte offset in the I/O region */
  size_t size;           /* bytes */
  float scale;           /* quantized tensors; 1.0f otherwise */
  int32_t zero_point;    /* quantized tensors; 0 otherwise */
} kiln_tensor;

typedef struct {
  uint32_t abi_version;  /* KILN_ABI_VERSION the bundle was built for */
  const char *name;
  size_t weights_size, io_size, scratch_size, alignment; /* bytes */
  uint32_t num_inputs, num_outputs;
  const kiln_tensor *inputs, *outputs;
  /* Runs inference once. Returns a kiln_status: KILN_ERR_NULL or
   * KILN_ERR_ALIGN if a region is unusable, KILN_OK otherwise. */
  int (*run)(const uint8_t *weights, uint8_t *io, uint8_t *scratch);
  const uint8_t *embedded_weights; /* NULL unless built with --embed-weights */
} kiln_bundle;

/* The input or output tensor called `name`, or NULL. */
static inline const kiln_tensor *kiln_find_tensor(const kiln_bundle *b,
                                                  const char *name) {
  uint32_t i;
  const kiln_tensor *lists[2];
  uint32_t counts[2];
  int l;
  if (!b || !name)
    return NULL;
  lists[0] = b->inputs;
  counts[0] = b->num_inputs;
  lists[1] = b->outputs;
  counts[1] = b->num_outputs;
  for (l = 0; l < 2; ++l) {
    for (i = 0; i < counts[l]; ++i) {
      const char *a = lists[l][i].name, *c = name;
      while (*a && *a == *c) {
        ++a;
        ++c;
      }
      if (*a == *c)
        return &lists[l][i];
    }
  }
  return NULL;
}

/* Checks a call's regions before running: non-NULL (a region of size 0 may
 * be NULL), aligned, the ABI version this header describes, and (when the
 * caller passes its region sizes; 0 skips the check) large enough. */
static inline kiln_status kiln_check(const kiln_bundle *b,
                                     const uint8_t *weights, size_t weights_len,
                                     const uint8_t *io, size_t io_len,
                                     const uint8_t *scratch,
                                     size_t scratch_len) {
  const uint8_t *regions[3];
  size_t sizes[3], lens[3];
  int i;
  if (!b)
    return KILN_ERR_NULL;
  if (b->abi_version != KILN_ABI_VERSION)
    return KILN_ERR_ABI;
  regions[0] = weights;
  regions[1] = io;
  regions[2] = scratch;
  sizes[0] = b->weights_size;
  sizes[1] = b->io_size;
  sizes[2] = b->scratch_size;
  lens[0] = weights_len;
  lens[1] = io_len;
  lens[2] = scratch_len;
  for (i = 0; i < 3; ++i) {
    if (sizes[i] == 0)
      continue;
    if (!regions[i])
      return KILN_ERR_NULL;
    if (((uintptr_t)regions[i]) % b->alignment != 0)
      return KILN_ERR_ALIGN;
    if (lens[i] != 0 && lens[i] < sizes[i])
      return KILN_ERR_SIZE;
  }
  return KILN_OK;
}

/* Bundles compiled with `kilnc --profile-layers` call this before each
 * layer (index 0, 1, ...; name: its op, kernel and node) and once after the
 * last (index = number of layers, name NULL). The program defines it, e.g.
 * to read a cycle counter; other bundles never call it. */
void kiln_profile_layer(uint32_t index, const char *name);

/* kiln_check, then run. */
static inline int kiln_run_checked(const kiln_bundle *b, const uint8_t *weights,
                                   size_t weights_len, uint8_t *io,
                                   size_t io_len, uint8_t *scratch,
                                   size_t scratch_len) {
  kiln_status s =
      kiln_check(b, weights, weights_len, io, io_len, scratch, scratch_len);
  if (s != KILN_OK)
    return s;
  return b->run(weights, io, scratch);
}

#ifdef __cplusplus
}
#endif

#endif /* KILN_H */

/* End-to-end check of one compiled bundle, from C, the way a user calls it.
 *
 * usage: run_bundle_test WEIGHTS.bin INPUT.bin REFERENCE.bin [--embedded]
 *
 * With --embedded the bundle's linked-in weights are used (and must equal the
 * weights file kilnc wrote beside the object).
 *
 * Built once per model with KILN_BUNDLE_NAME=<bundle name>, KILN_BUNDLE_MACRO=<its
 * upper-case macro prefix>, KILN_BUNDLE_HEADER=<NAME.h>, and for its one input
 * and one output KILN_IN_NAME="<tensor name>", KILN_IN_MACRO=<the name as the
 * header's macros spell it>, KILN_IN_SHAPE=<d0,d1,...>, and for int8 tensors
 * KILN_IN_DTYPE=KILN_I8 (or KILN_U8), KILN_IN_SCALE, KILN_IN_ZERO_POINT (and
 * KILN_OUT_*).
 * Checks every field of the descriptor (kiln_bundle, kiln_tensor) against the
 * header's macros and those facts, runs the model on the reference input with
 * guard bytes around every region, compares with the reference output (float:
 * max abs error <= 1e-4 * max(1, max|ref|); int8 and uint8: within 1 step on at least
 * 99% of the elements and within 2 everywhere, as the reference may round
 * through float; with KILN_EXACT, equal to it), and checks kiln_check's and
 * the entry's error returns.
 *
 * On Linux (the host and qemu-aarch64) it then runs the bundle with each
 * region flush against PROT_NONE pages, once with every region's end at a
 * page end (a read or write past it faults) and once with its start at a page
 * start (one before it faults), the weights read-only, and io and scratch
 * filled with zeros and then with NaN patterns: the output must be the same
 * bytes every time. On the Cortex-M boards it runs it twice more with the MPU
 * on, io and scratch NaN-filled, only flash, the stack and the three regions
 * accessible: a stray access faults and fails the test.
 *
 * Also runs on the cross targets (targets/): under qemu-aarch64, and as
 * bare-metal firmware with newlib, whose printf has no %zu (sizes print as
 * %lu) and whose file I/O goes through semihosting. */
#if defined(__linux__)
#define _DEFAULT_SOURCE /* mmap's MAP_ANONYMOUS, sigaction */
#endif
#include KILN_BUNDLE_HEADER

#include "tests/e2e/guarded_region.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef KILN_IN_DTYPE
#define KILN_IN_DTYPE KILN_F32
#define KILN_IN_SCALE 1.0f
#define KILN_IN_ZERO_POINT 0
#endif
#ifndef KILN_OUT_DTYPE
#define KILN_OUT_DTYPE KILN_F32
#define KILN_OUT_SCALE 1.0f
#define KILN_OUT_ZERO_POINT 0
#endif

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define STR_(x) #x
#define STR(x) STR_(x)
#define BUNDLE CAT(KILN_BUNDLE_NAME, _bundle)
#define RUN CAT(KILN_BUNDLE_NAME, _run)
#define MACRO(suffix) CAT(KILN_BUNDLE_MACRO, suffix)
/* Whether a macro is defined as 1 (NAME_EMBEDDED_WEIGHTS is, when the weights
 * are embedded, and absent otherwise): 1 expands to "0," and moves the 1 into
 * second place. */
#define PLACEHOLDER_1 0,
#define IS_ONE(x) IS_ONE_(x)
#define IS_ONE_(value) IS_ONE__(PLACEHOLDER_##value)
#define IS_ONE__(zero_comma_or_junk) SECOND(zero_comma_or_junk 1, 0, ~)
#define SECOND(first, second, ...) second
/* NAME_IN_<TENSOR>_OFFSET and the like. */
#define TENSOR_MACRO(kind, tensor, suffix) MACRO(CAT(CAT(CAT(CAT(_, kind), _), tensor), suffix))

static int failures = 0;
#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                     \
      fprintf(stderr, __VA_ARGS__);                                            \
      fprintf(stderr, "\n");                                                   \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

#if defined(__linux__)
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

/* A region between two PROT_NONE pages. The region sits at the start of the
 * pages between them or, rounded up to KILN_ALIGNMENT, at their end; the slack
 * between the region and the far guard page holds GUARD_BYTE, checked after
 * each run. */
typedef struct {
  const char *name;
  uint8_t *map, *body, *base;
  size_t map_size, body_size, size;
} paged_region;

enum placement { AT_PAGE_END, AT_PAGE_START };

#define NUM_PAGED 3
static paged_region paged[NUM_PAGED]; /* weights, io, scratch; the fault handler reads them */

static size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

static paged_region paged_region_new(const char *name, size_t size, enum placement where) {
  paged_region r;
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  r.name = name;
  r.size = size;
  /* An empty region (a model without weights) still gets a page: mprotect
   * of no bytes fails under qemu-aarch64. */
  r.body_size = round_up(round_up(size ? size : 1, KILN_ALIGNMENT), page);
  r.map_size = page + r.body_size + page;
  r.map = mmap(NULL, r.map_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (r.map == MAP_FAILED || mprotect(r.map, page, PROT_NONE) != 0 ||
      mprotect(r.map + page + r.body_size, page, PROT_NONE) != 0) {
    fprintf(stderr, "cannot map a guarded region of %lu bytes\n", (unsigned long)size);
    exit(2);
  }
  r.body = r.map + page;
  r.base = where == AT_PAGE_START ? r.body
                                  : r.body + r.body_size - round_up(size, KILN_ALIGNMENT);
  memset(r.body, GUARD_BYTE, r.body_size);
  return r;
}

static int paged_slack_intact(const paged_region *r) {
  const uint8_t *p;
  for (p = r->body; p < r->base; ++p)
    if (*p != GUARD_BYTE)
      return 0;
  for (p = r->base + r->size; p < r->body + r->body_size; ++p)
    if (*p != GUARD_BYTE)
      return 0;
  return 1;
}

/* A fault names the region whose guard page (or read-only weights) was hit. */
static void on_fault(int sig, siginfo_t *info, void *context) {
  const uint8_t *at = info->si_addr;
  int k;
  (void)context;
  for (k = 0; k < NUM_PAGED; ++k) {
    const paged_region *r = &paged[k];
    if (r->map && at >= r->map && at < r->map + r->map_size) {
      long from_base = (long)(at - r->base);
      fprintf(stderr, "FAIL: signal %d at %ld bytes from the start of the %lu-byte %s region%s\n",
              sig, from_base, (unsigned long)r->size, r->name,
              at >= r->body && at < r->body + r->body_size ? " (read-only)" : " (guard page)");
      _exit(1);
    }
  }
  fprintf(stderr, "FAIL: signal %d at %p, outside the guarded regions\n", sig, info->si_addr);
  _exit(1);
}

/* Fills with a 32-bit pattern (a NaN for float tensors) or zeros. */
static void fill32(uint8_t *p, size_t n, uint32_t pattern) {
  size_t i;
  for (i = 0; i + 4 <= n; i += 4)
    memcpy(p + i, &pattern, 4);
  memcpy(p + i, &pattern, n - i);
}

/* Runs the bundle on paged regions placed `where`, io and scratch filled with
 * `pattern`, and compares its output with `expected_output`. */
static void run_paged(const kiln_bundle *b, const uint8_t *weights, const uint8_t *input,
                      const uint8_t *expected_output, enum placement where, uint32_t pattern) {
  const kiln_tensor *in = &b->inputs[0], *out = &b->outputs[0];
  const char *place = where == AT_PAGE_START ? "start" : "end";
  int status, k;
  paged[0] = paged_region_new("weights", b->weights_size, where);
  paged[1] = paged_region_new("io", b->io_size, where);
  paged[2] = paged_region_new("scratch", b->scratch_size, where);
  memcpy(paged[0].base, weights, b->weights_size);
  if (mprotect(paged[0].body, paged[0].body_size, PROT_READ) != 0) {
    fprintf(stderr, "cannot make the weights read-only\n");
    exit(2);
  }
  fill32(paged[1].base, b->io_size, pattern);
  fill32(paged[2].base, b->scratch_size, pattern);
  memcpy(paged[1].base + in->offset, input, in->size);
  status = RUN(paged[0].base, paged[1].base, paged[2].base);
  CHECK(status == KILN_OK, "run at the page %s, fill 0x%08lx, returned %d", place,
        (unsigned long)pattern, status);
  CHECK(memcmp(paged[1].base + out->offset, expected_output, out->size) == 0,
        "output at the page %s with io and scratch filled with 0x%08lx differs from the "
        "first run's",
        place, (unsigned long)pattern);
  for (k = 0; k < NUM_PAGED; ++k) {
    CHECK(paged_slack_intact(&paged[k]), "the bundle wrote outside its %s region (page %s)",
          paged[k].name, place);
    munmap(paged[k].map, paged[k].map_size);
    paged[k].map = NULL;
  }
}

/* Every placement and fill: zeros, then NaN patterns (all ones, a quiet NaN
 * with a payload, a signaling NaN). */
static void run_between_guard_pages(const kiln_bundle *b, const uint8_t *weights,
                                    const uint8_t *input, const uint8_t *expected_output) {
  static const uint32_t fills[] = {0, 0xFFFFFFFFu, 0x7FC00001u, 0x7F800001u};
  struct sigaction action;
  size_t f;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = on_fault;
  action.sa_flags = SA_SIGINFO;
  sigaction(SIGSEGV, &action, NULL);
  sigaction(SIGBUS, &action, NULL);
  for (f = 0; f < sizeof fills / sizeof fills[0]; ++f) {
    run_paged(b, weights, input, expected_output, AT_PAGE_END, fills[f]);
    run_paged(b, weights, input, expected_output, AT_PAGE_START, fills[f]);
  }
  printf("%s: same output between guard pages at both ends, weights read-only, io and "
         "scratch zero or NaN-filled (%lu runs)\n",
         b->name, (unsigned long)(2 * (sizeof fills / sizeof fills[0])));
}
#endif

#if defined(__arm__) && !defined(__linux__) && \
    (defined(__ARM_ARCH_7M__) || defined(__ARM_ARCH_7EM__))
#define TEST_IN_MPU_REGIONS 1
/* The ARMv7-M MPU (PMSAv7; QEMU's mps2 boards emulate it): during the run
 * only flash (code, read-only data, embedded weights), the stack and the
 * regions passed to the bundle are accessible, with no default map behind
 * them. A stray access is a MemManage fault, escalated to HardFault (MPU
 * off), whose handler (targets/cortex_m/startup.c) exits with 131. */
#define MPU_CTRL (*(volatile uint32_t *)0xE000ED94u)
#define MPU_RNR (*(volatile uint32_t *)0xE000ED98u)
#define MPU_RBAR (*(volatile uint32_t *)0xE000ED9Cu)
#define MPU_RASR (*(volatile uint32_t *)0xE000EDA0u)
#define RASR_XN (1u << 28)
#define RASR_RW (3u << 24)
#define RASR_RO (6u << 24)
#define RASR_NORMAL (1u << 19) /* TEX=1, C=B=0: normal, non-cacheable */

extern uint8_t __stack_limit[], __stack_top[]; /* mps2.ld */

/* A region in a block of its own of the next power of two (the MPU's sizes
 * and alignments), placed at the block's end or start. */
typedef struct {
  uint8_t *raw, *block, *base;
  unsigned log2_size;
} mpu_region;

static mpu_region mpu_region_new(size_t size, int at_start) {
  mpu_region r;
  size_t block = 32; /* the smallest MPU region */
  r.log2_size = 5;
  while (block < size) {
    block *= 2;
    ++r.log2_size;
  }
  r.raw = malloc(2 * block);
  if (!r.raw) {
    fprintf(stderr, "out of memory for an MPU region of %lu bytes\n", (unsigned long)block);
    exit(2);
  }
  r.block = r.raw + (block - (uintptr_t)r.raw % block) % block;
  r.base = at_start ? r.block : r.block + block - (size + KILN_ALIGNMENT - 1) / KILN_ALIGNMENT * KILN_ALIGNMENT;
  return r;
}

static void mpu_set(uint32_t index, uintptr_t base, unsigned log2_size, uint32_t attributes) {
  MPU_RNR = index;
  MPU_RBAR = (uint32_t)base;
  MPU_RASR = attributes | ((uint32_t)(log2_size - 1) << 1) | 1u;
}

static unsigned log2_of(uintptr_t n) {
  unsigned k = 0;
  while (((uintptr_t)1 << k) < n)
    ++k;
  return k;
}

/* Runs the bundle with the MPU on, io and scratch filled with a NaN pattern,
 * and compares the output with `expected_output`. */
static void run_in_mpu_regions(const kiln_bundle *b, const uint8_t *weights,
                               const uint8_t *input, const uint8_t *expected_output,
                               int at_start) {
  const kiln_tensor *in = &b->inputs[0], *out = &b->outputs[0];
  const char *place = at_start ? "start" : "end";
  mpu_region io = mpu_region_new(b->io_size, at_start);
  mpu_region scratch = mpu_region_new(b->scratch_size, at_start);
  mpu_region w = {NULL, NULL, NULL, 0};
  int status;
  memset(io.base, 0xFF, b->io_size);
  memset(scratch.base, 0xFF, b->scratch_size);
  memcpy(io.base + in->offset, input, in->size);
  mpu_set(0, 0x00000000u, 22, RASR_RO | RASR_NORMAL); /* flash: 4 MiB */
  mpu_set(1, (uintptr_t)__stack_limit, log2_of((uintptr_t)(__stack_top - __stack_limit)),
          RASR_RW | RASR_XN | RASR_NORMAL);
  mpu_set(2, (uintptr_t)io.block, io.log2_size, RASR_RW | RASR_XN | RASR_NORMAL);
  mpu_set(3, (uintptr_t)scratch.block, scratch.log2_size, RASR_RW | RASR_XN | RASR_NORMAL);
  /* Weights passed in from RAM get a read-only region of their own; they are
   * copied into it, so a region too small for them fails the run. */
  MPU_RNR = 4;
  MPU_RASR = 0;
  if ((uintptr_t)weights >= 0x20000000u) {
    w = mpu_region_new(b->weights_size, at_start);
    memcpy(w.base, weights, b->weights_size);
    weights = w.base;
    mpu_set(4, (uintptr_t)w.block, w.log2_size, RASR_RO | RASR_XN | RASR_NORMAL);
  }
  __asm__ volatile("dsb\n\tisb" ::: "memory");
  MPU_CTRL = 1; /* on; no default map for privileged code; off in HardFault */
  __asm__ volatile("dsb\n\tisb" ::: "memory");
  status = RUN(weights, io.base, scratch.base);
  MPU_CTRL = 0;
  __asm__ volatile("dsb\n\tisb" ::: "memory");
  CHECK(status == KILN_OK, "run in MPU regions (at their %s) returned %d", place, status);
  CHECK(memcmp(io.base + out->offset, expected_output, out->size) == 0,
        "output in MPU regions (at their %s, NaN-filled) differs from the first run's", place);
  free(io.raw);
  free(scratch.raw);
  free(w.raw);
}
#endif

static size_t read_file(const char *path, uint8_t **out) {
  FILE *f = fopen(path, "rb");
  long n;
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    exit(2);
  }
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  *out = malloc(n ? n : 1);
  if (fread(*out, 1, n, f) != (size_t)n) {
    fprintf(stderr, "cannot read %s\n", path);
    exit(2);
  }
  fclose(f);
  return (size_t)n;
}

/* Every field of `t` against what the header and the model say. */
static void check_tensor(const char *what, const kiln_tensor *t, size_t io_size,
                         const char *name, const uint32_t *shape, uint32_t rank,
                         size_t offset, size_t size, kiln_dtype dtype, float scale,
                         int32_t zero_point) {
  size_t elem_size = dtype == KILN_I8 || dtype == KILN_U8 ? 1 : 4;
  uint32_t d;
  size_t elements = 1;
  CHECK(t->name && strcmp(t->name, name) == 0, "%s name '%s', model '%s'", what,
        t->name ? t->name : "(null)", name);
  CHECK(t->dtype == dtype, "%s dtype %d, model %d", what, (int)t->dtype, (int)dtype);
  CHECK(t->rank == rank, "%s rank %u, model %u", what, (unsigned)t->rank, (unsigned)rank);
  for (d = 0; d < rank && d < t->rank; ++d) {
    CHECK(t->shape[d] == shape[d], "%s shape[%u] %u, model %u", what, (unsigned)d,
          (unsigned)t->shape[d], (unsigned)shape[d]);
    elements *= shape[d];
  }
  CHECK(t->offset == offset, "%s offset %lu, header %lu", what, (unsigned long)t->offset,
        (unsigned long)offset);
  CHECK(t->size == size, "%s size %lu, header %lu", what, (unsigned long)t->size,
        (unsigned long)size);
  CHECK(t->size == elements * elem_size, "%s size %lu for %lu elements", what,
        (unsigned long)t->size, (unsigned long)elements);
  CHECK(t->offset + t->size <= io_size, "%s outside the I/O region", what);
  CHECK(t->scale == scale && t->zero_point == zero_point,
        "%s quantization: scale %g, zero point %d; model %g, %d", what, (double)t->scale,
        (int)t->zero_point, (double)scale, (int)zero_point);
}

int main(int argc, char **argv) {
  const kiln_bundle *b = &BUNDLE;
  uint8_t *weights_file, *input, *expected;
  size_t weights_len, input_len, expected_len, i;
  const uint8_t *weights;
  region w, io, scratch;
  const kiln_tensor *in, *out;
  static const uint32_t in_shape[] = {KILN_IN_SHAPE}, out_shape[] = {KILN_OUT_SHAPE};
  kiln_bundle other_abi;
  double max_err = 0, max_ref = 0, tol;
  int status;

  if (argc != 4 && !(argc == 5 && strcmp(argv[4], "--embedded") == 0)) {
    fprintf(stderr, "usage: %s WEIGHTS.bin INPUT.bin REFERENCE.bin [--embedded]\n",
            argv[0]);
    return 2;
  }
#ifdef KILN_TEST_NEEDS_AVXVNNI
  /* A bundle of AVX-VNNI instructions runs only where the host has them. */
  if (!__builtin_cpu_supports("avxvnni")) {
    printf("skipped: the host has no AVX-VNNI\n");
    return 0;
  }
#endif
#ifdef KILN_TEST_NEEDS_AVX512VNNI
  /* A bundle for x86-64-v4 with AVX-512 VNNI runs only where the host has
     both. */
  if (!__builtin_cpu_supports("x86-64-v4") || !__builtin_cpu_supports("avx512vnni")) {
    printf("skipped: the host has no x86-64-v4 with AVX-512 VNNI\n");
    return 0;
  }
#endif

  /* The descriptor agrees with the header's macros and the model. */
  CHECK(b->abi_version == KILN_ABI_VERSION, "abi_version %u", (unsigned)b->abi_version);
  CHECK(strcmp(b->name, STR(KILN_BUNDLE_NAME)) == 0, "name '%s'", b->name);
  CHECK(b->weights_size == MACRO(_WEIGHTS_SIZE), "weights_size");
  CHECK(b->io_size == MACRO(_IO_SIZE), "io_size");
  CHECK(b->scratch_size == MACRO(_SCRATCH_SIZE), "scratch_size");
  CHECK(b->alignment == MACRO(_ALIGNMENT) && b->alignment == KILN_ALIGNMENT, "alignment");
  CHECK(b->num_inputs == MACRO(_NUM_INPUTS) && b->num_outputs == MACRO(_NUM_OUTPUTS),
        "num_inputs/num_outputs");
  CHECK(b->num_inputs == 1 && b->num_outputs == 1, "expected 1 input, 1 output");
  CHECK(b->run == RUN, "run pointer");
  in = &b->inputs[0];
  out = &b->outputs[0];
  check_tensor("input", in, b->io_size, KILN_IN_NAME, in_shape,
               sizeof in_shape / sizeof in_shape[0],
               TENSOR_MACRO(IN, KILN_IN_MACRO, _OFFSET), TENSOR_MACRO(IN, KILN_IN_MACRO, _SIZE),
               KILN_IN_DTYPE, KILN_IN_SCALE, KILN_IN_ZERO_POINT);
  check_tensor("output", out, b->io_size, KILN_OUT_NAME, out_shape,
               sizeof out_shape / sizeof out_shape[0],
               TENSOR_MACRO(OUT, KILN_OUT_MACRO, _OFFSET),
               TENSOR_MACRO(OUT, KILN_OUT_MACRO, _SIZE), KILN_OUT_DTYPE, KILN_OUT_SCALE,
               KILN_OUT_ZERO_POINT);
  CHECK(kiln_find_tensor(b, KILN_IN_NAME) == in, "kiln_find_tensor(input)");
  CHECK(kiln_find_tensor(b, KILN_OUT_NAME) == out, "kiln_find_tensor(output)");
  CHECK(kiln_find_tensor(b, "no such tensor") == NULL, "kiln_find_tensor(missing)");
  CHECK(kiln_find_tensor(NULL, KILN_IN_NAME) == NULL && kiln_find_tensor(b, NULL) == NULL,
        "kiln_find_tensor(NULL)");
#if IS_ONE(MACRO(_EMBEDDED_WEIGHTS))
  CHECK(b->embedded_weights == CAT(KILN_BUNDLE_NAME, _weights),
        "embedded_weights is not NAME_weights");
  CHECK(argc == 5, "the header says the weights are embedded: run with --embedded");
#else
  CHECK(b->embedded_weights == NULL, "embedded_weights set without NAME_EMBEDDED_WEIGHTS");
#endif

  weights_len = read_file(argv[1], &weights_file);
  CHECK(weights_len == b->weights_size, "weights file is %lu bytes, bundle says %lu",
        (unsigned long)weights_len, (unsigned long)b->weights_size);
  weights = weights_file;
  if (argc == 5) {
    CHECK(b->embedded_weights != NULL, "embedded_weights is NULL");
    if (b->embedded_weights) {
      CHECK(memcmp(b->embedded_weights, weights_file, weights_len) == 0,
            "embedded weights differ from the weights file");
      weights = b->embedded_weights;
    }
  } else {
    CHECK(b->embedded_weights == NULL, "embedded_weights set without --embed-weights");
  }
  input_len = read_file(argv[2], &input);
  expected_len = read_file(argv[3], &expected);
  CHECK(input_len == in->size, "input is %lu bytes, tensor %lu", (unsigned long)input_len,
        (unsigned long)in->size);
  CHECK(expected_len == out->size, "reference is %lu bytes, tensor %lu",
        (unsigned long)expected_len, (unsigned long)out->size);
  if (failures)
    return 1;

  /* Passed-in weights sit in a guarded region of their own; embedded ones are
   * used where they are linked, as firmware uses them. */
  w = region_new(b->weights_size);
  memcpy(w.base, weights, b->weights_size);
  if (argc != 5)
    weights = w.base;
  io = region_new(b->io_size);
  scratch = region_new(b->scratch_size);
  memset(io.base, 0x5A, b->io_size);
  memset(scratch.base, 0x5A, b->scratch_size); /* no zero-initialized scratch assumed */
  memcpy(io.base + in->offset, input, in->size);

  status = kiln_run_checked(b, weights, b->weights_size, io.base, b->io_size,
                            scratch.base, b->scratch_size);
  CHECK(status == KILN_OK, "run returned %d", status);
  CHECK(region_guards_intact(&w) && region_guards_intact(&io) &&
            region_guards_intact(&scratch),
        "the bundle wrote outside its regions");
  CHECK(memcmp(weights, weights_file, b->weights_size) == 0,
        "the bundle wrote to its weights");

  if (out->dtype == KILN_I8 || out->dtype == KILN_U8) {
    const uint8_t *got = io.base + out->offset;
    const uint8_t *ref = expected;
    size_t off_by_more_than_one = 0;
    for (i = 0; i < out->size; ++i) {
      int err = out->dtype == KILN_I8 ? abs((int)(int8_t)got[i] - (int)(int8_t)ref[i])
                                      : abs((int)got[i] - (int)ref[i]);
      if (err > max_err)
        max_err = err;
      off_by_more_than_one += err > 1;
    }
    printf("%s: max error %d steps, %lu of %lu elements off by more than 1, weights %lu B, "
           "io %lu B, scratch %lu B\n",
           b->name, (int)max_err, (unsigned long)off_by_more_than_one, (unsigned long)out->size,
           (unsigned long)b->weights_size, (unsigned long)b->io_size,
           (unsigned long)b->scratch_size);
#ifdef KILN_EXACT
    CHECK(max_err == 0, "output differs from the reference, which it must equal: max %d steps",
          (int)max_err);
#else
    CHECK(max_err <= 2 && off_by_more_than_one * 100 <= out->size,
          "output differs from the reference: max %d steps, %lu elements off by more than 1",
          (int)max_err, (unsigned long)off_by_more_than_one);
#endif
  } else {
    const float *got = (const float *)(io.base + out->offset);
    const float *ref = (const float *)expected;
    for (i = 0; i < out->size / 4; ++i) {
      double err = fabs((double)got[i] - ref[i]);
      if (!(err <= max_err)) /* NaN counts as an error */
        max_err = isnan(err) ? INFINITY : err;
      if (fabs(ref[i]) > max_ref)
        max_ref = fabs(ref[i]);
    }
    tol = 1e-4 * (max_ref > 1 ? max_ref : 1);
    printf("%s: max abs error %.3g (tolerance %.3g), weights %lu B, io %lu B, scratch %lu B\n",
           b->name, max_err, tol, (unsigned long)b->weights_size, (unsigned long)b->io_size,
           (unsigned long)b->scratch_size);
    CHECK(max_err <= tol, "output differs from the reference: %.3g > %.3g", max_err, tol);
  }

  /* A second run on regions poisoned with another pattern gives the same
   * bytes: no state kept between calls, no output element left unwritten. The
   * input is written again: a bundle built with --overwrite-inputs may have
   * overwritten it. */
  {
    uint8_t *first = malloc(out->size);
    memcpy(first, io.base + out->offset, out->size);
    memset(scratch.base, 0xC3, b->scratch_size);
    memset(io.base, 0xC3, b->io_size);
    memcpy(io.base + in->offset, input, in->size);
    status = RUN(weights, io.base, scratch.base);
    CHECK(status == KILN_OK, "second run returned %d", status);
    CHECK(memcmp(first, io.base + out->offset, out->size) == 0, "second run differs");
    CHECK(region_guards_intact(&w) && region_guards_intact(&io) &&
              region_guards_intact(&scratch),
          "the bundle wrote outside its regions on the second run");
    CHECK(memcmp(weights, weights_file, b->weights_size) == 0,
          "the bundle wrote to its weights on the second run");
#if defined(__linux__)
    run_between_guard_pages(b, weights, input, first);
#elif defined(TEST_IN_MPU_REGIONS)
    run_in_mpu_regions(b, weights, input, first, 0);
    run_in_mpu_regions(b, weights, input, first, 1);
    printf("%s: same output with the MPU on, regions at the end and at the start of theirs\n",
           b->name);
#endif
    free(first);
  }

  /* Good regions pass kiln_check, with or without their lengths; bad ones are
   * refused, by the helper and by the entry itself. */
  CHECK(kiln_check(b, w.base, b->weights_size, io.base, b->io_size, scratch.base,
                   b->scratch_size) == KILN_OK,
        "kiln_check refused good regions");
  CHECK(kiln_check(b, w.base, 0, io.base, 0, scratch.base, 0) == KILN_OK,
        "kiln_check refused good regions without lengths");
  CHECK(kiln_check(NULL, w.base, 0, io.base, 0, scratch.base, 0) == KILN_ERR_NULL,
        "NULL bundle accepted by kiln_check");
  CHECK(kiln_check(b, w.base, 0, NULL, 0, scratch.base, 0) == KILN_ERR_NULL,
        "NULL io accepted by kiln_check");
  if (b->weights_size)
    CHECK(kiln_check(b, w.base, b->weights_size - 1, io.base, 0, scratch.base, 0) ==
              KILN_ERR_SIZE,
          "short weights accepted by kiln_check");
  other_abi = *b;
  other_abi.abi_version = KILN_ABI_VERSION + 1;
  CHECK(kiln_check(&other_abi, w.base, 0, io.base, 0, scratch.base, 0) == KILN_ERR_ABI,
        "another ABI version accepted by kiln_check");
  CHECK(kiln_run_checked(&other_abi, w.base, 0, io.base, 0, scratch.base, 0) ==
            KILN_ERR_ABI,
        "another ABI version run by kiln_run_checked");
  CHECK(kiln_check(b, w.base, 0, io.base + 1, 0, scratch.base, 0) == KILN_ERR_ALIGN,
        "misaligned io accepted by kiln_check");
  CHECK(RUN(w.base, io.base + 1, scratch.base) == KILN_ERR_ALIGN,
        "misaligned io accepted by run");
  CHECK(RUN(w.base, NULL, scratch.base) == KILN_ERR_NULL, "NULL io accepted by run");
  CHECK(kiln_check(b, w.base, 0, io.base, b->io_size - 1, scratch.base, 0) == KILN_ERR_SIZE,
        "short io accepted by kiln_check");
  if (b->scratch_size)
    CHECK(RUN(w.base, io.base, NULL) == KILN_ERR_NULL, "NULL scratch accepted by run");
  CHECK(region_guards_intact(&io) && region_guards_intact(&scratch),
        "the bundle wrote outside its regions on a refused call");

  printf("%s\n", failures ? "FAILED" : "PASSED");
  return failures ? 1 : 0;
}

/* Measures how much stack one bundle's entry function uses: paints the stack
 * below the caller's frame with a pattern, runs the bundle once, and finds
 * the lowest byte that changed. Prints one line for benchmarks/footprint:
 *
 *   footprint NAME weights=BYTES io=BYTES scratch=BYTES stack=BYTES input=DTYPE
 *
 * The weights are embedded; io and scratch are static arrays (scratch in
 * .bss.kiln_scratch, as firmware would place it). Each input is set to the
 * value 0 in its own dtype, from the bundle's tensor descriptors: zero bytes
 * for float and wider integer types, and for int8/uint8 (quantized) tensors
 * the zero point, the byte that stands for the real value 0. Built per model with
 * KILN_BUNDLE_NAME=<bundle name>, KILN_BUNDLE_MACRO=<its macro prefix> and
 * KILN_BUNDLE_HEADER=<NAME.h>. Runs on every target: natively, under
 * qemu-aarch64, or as bare-metal firmware.
 *
 * A function that writes the pattern byte itself at its deepest point would
 * be measured short by those bytes; the pattern makes that unlikely.
 *
 * With KILN_CHECK_STACK_BOUND it is a test of the header's NAME_STACK_SIZE,
 * kilnc's bound from the compiler's frame sizes: the measurement must not
 * exceed it, and it must not exceed 4 x the measurement + 256 bytes (a bound
 * too loose to size a stack with). With KILN_STACK_SIZE_MAY_BE_UNKNOWN the
 * header may have no NAME_STACK_SIZE (soft float: float arithmetic calls the
 * toolchain's run-time library, whose stack use kilnc cannot see). */
#include KILN_BUNDLE_HEADER
#include "benchmarks/common/zero_inputs.h"

#include <stdio.h>

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define MACRO(suffix) CAT(KILN_BUNDLE_MACRO, suffix)
#define RUN CAT(KILN_BUNDLE_NAME, _run)
#define BUNDLE CAT(KILN_BUNDLE_NAME, _bundle)
#define WEIGHTS CAT(KILN_BUNDLE_NAME, _weights)
#define STR_(x) #x
#define STR(x) STR_(x)

/* Painted bytes below the caller's stack pointer: well above any kiln entry
 * so far, and within the bare-metal boards' 64 KiB stack. */
#define PAINT_BYTES (48 * 1024)
#define PAINT 0xA5

static uint8_t io[MACRO(_IO_SIZE)] __attribute__((aligned(MACRO(_ALIGNMENT))));
static uint8_t scratch[MACRO(_SCRATCH_SIZE)]
    __attribute__((aligned(MACRO(_ALIGNMENT)), section(".bss.kiln_scratch")));

/* The dtype's name as kilnc's header comments write it. */
static const char *dtype_name(kiln_dtype dtype) {
  switch (dtype) {
  case KILN_F32: return "f32";
  case KILN_I8: return "i8";
  case KILN_U8: return "u8";
  case KILN_I16: return "i16";
  case KILN_I32: return "i32";
  case KILN_I64: return "i64";
  case KILN_BOOL: return "bool";
  case KILN_F16: return "f16";
  case KILN_F64: return "f64";
  case KILN_U16: return "u16";
  case KILN_U32: return "u32";
  case KILN_U64: return "u64";
  }
  return "?";
}

static uintptr_t stack_pointer(void) {
  uintptr_t sp;
#if defined(__x86_64__)
  __asm__ volatile("mov %%rsp, %0" : "=r"(sp));
#elif defined(__aarch64__) || defined(__arm__)
  __asm__ volatile("mov %0, sp" : "=r"(sp));
#else
#error "stack_probe.c: no stack pointer access for this architecture"
#endif
  return sp;
}

/* noinline, so the stack pointer read here is the one the entry is called
 * with. Returns the bytes used below it, or 0 if the bundle failed. */
static __attribute__((noinline)) size_t probe(void) {
  volatile uint8_t *bottom = (volatile uint8_t *)(stack_pointer() - PAINT_BYTES);
  size_t i;
  for (i = 0; i < PAINT_BYTES; ++i)
    bottom[i] = PAINT;
  if (RUN(WEIGHTS, io, scratch) != KILN_OK)
    return 0;
  for (i = 0; i < PAINT_BYTES && bottom[i] == PAINT; ++i)
    ;
  return PAINT_BYTES - i;
}

int main(void) {
  size_t stack;
  kiln_zero_inputs(&BUNDLE, io);
  stack = probe();
  if (stack == 0) {
    fprintf(stderr, "stack_probe: %s_run failed\n", STR(KILN_BUNDLE_NAME));
    return 1;
  }
  if (stack == PAINT_BYTES) {
    fprintf(stderr, "stack_probe: %s uses more than the %d painted bytes\n",
            STR(KILN_BUNDLE_NAME), PAINT_BYTES);
    return 1;
  }
#ifdef KILN_CHECK_STACK_BOUND
#if MACRO(_STACK_SIZE) /* an undefined macro is 0 here */
  printf("%s: stack measured %lu B, NAME_STACK_SIZE %lu B\n", STR(KILN_BUNDLE_NAME),
         (unsigned long)stack, (unsigned long)MACRO(_STACK_SIZE));
  if (stack > MACRO(_STACK_SIZE) || MACRO(_STACK_SIZE) > 4 * stack + 256) {
    fprintf(stderr, "FAIL: NAME_STACK_SIZE %lu is not between the measured %lu B and 4x + 256\n",
            (unsigned long)MACRO(_STACK_SIZE), (unsigned long)stack);
    return 1;
  }
#elif !defined(KILN_STACK_SIZE_MAY_BE_UNKNOWN)
#error "the header has no NAME_STACK_SIZE"
#else
  printf("%s: stack measured %lu B, NAME_STACK_SIZE unknown (soft float)\n",
         STR(KILN_BUNDLE_NAME), (unsigned long)stack);
#endif
  return 0;
#endif
  printf("footprint %s weights=%lu io=%lu scratch=%lu stack=%lu input=%s\n",
         STR(KILN_BUNDLE_NAME), (unsigned long)MACRO(_WEIGHTS_SIZE),
         (unsigned long)MACRO(_IO_SIZE), (unsigned long)MACRO(_SCRATCH_SIZE),
         (unsigned long)stack, dtype_name(BUNDLE.inputs[0].dtype));
  return 0;
}

/* On-device benchmark: runs one bundle RUNS times as bare-metal firmware on
 * a QEMU MPS2 board and reports the instructions each run executes. Prints
 *
 *   bench NAME runs=RUNS instructions=MIN..MAX
 *
 * QEMU does not model cycle timing. Under -icount shift=0 (targets/
 * qemu_run.sh) every instruction advances virtual time by 1 ns, and SysTick,
 * clocked from the 25 MHz processor clock, ticks once every 40 instructions.
 * So these are instruction counts, repeatable from run to run, not cycle
 * counts; the firmware checks the 40 against a loop of known length first.
 * The SysTick interrupt counts the 24-bit counter's wraps, so runs of any
 * length are measured.
 *
 * The input is fixed, so every run does the same work: each input tensor
 * holds the value 0 in its own dtype, from the bundle's tensor descriptors
 * (zero bytes for float, the zero point for int8/uint8 tensors, as
 * benchmarks/footprint/stack_probe.c). The bundle writes only its outputs in
 * io, so the input stays the same from run to run.
 *
 * Built per model with KILN_BUNDLE_NAME=<bundle name>, KILN_BUNDLE_MACRO=<its
 * macro prefix> and KILN_BUNDLE_HEADER=<NAME.h>; the weights are embedded
 * (flash), io and scratch are static arrays. usage: bench [RUNS]
 *
 * With KILN_PROFILE_LAYERS (a bundle compiled with --profile-layers) it also
 * prints, from the last run, one line per layer:
 *
 *   layer INDEX instructions=N NAME
 *
 * counted from kiln_profile_layer's calls (kiln.h) before each layer. */
#include KILN_BUNDLE_HEADER
#include "benchmarks/common/zero_inputs.h"

#include <stdio.h>
#include <stdlib.h>

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define MACRO(suffix) CAT(KILN_BUNDLE_MACRO, suffix)
#define RUN CAT(KILN_BUNDLE_NAME, _run)
#define BUNDLE CAT(KILN_BUNDLE_NAME, _bundle)
#define WEIGHTS CAT(KILN_BUNDLE_NAME, _weights)
#define STR_(x) #x
#define STR(x) STR_(x)

#define INSTRUCTIONS_PER_TICK 40
#define DEFAULT_RUNS 10

static uint8_t io[MACRO(_IO_SIZE)] __attribute__((aligned(MACRO(_ALIGNMENT))));
static uint8_t scratch[MACRO(_SCRATCH_SIZE)]
    __attribute__((aligned(MACRO(_ALIGNMENT)), section(".bss.kiln_scratch")));

#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)
#define SYST_RELOAD 0xFFFFFFu

static volatile uint32_t wraps;

void SysTick_Handler(void) { ++wraps; }

static void systick_start(void) {
  SYST_RVR = SYST_RELOAD;
  SYST_CVR = 0;
  SYST_CSR = 7; /* processor clock, interrupt on wrap, enabled */
  while (SYST_CVR == 0) /* until the first reload: 0 reads as a full period */
    ;
}

/* Ticks since systick_start. The SysTick interrupt is taken at the
 * instruction where the counter wraps (-icount), so a wrap count read twice
 * the same brackets a consistent counter value. */
static uint64_t ticks(void) {
  uint32_t w, value;
  do {
    w = wraps;
    value = SYST_CVR;
  } while (w != wraps);
  return (uint64_t)w * (SYST_RELOAD + 1) + (SYST_RELOAD - value);
}

/* Executes 2 * n instructions (subs, bne). */
static void __attribute__((noinline)) spin(uint32_t n) {
  __asm__ volatile("1: subs %0, %0, #1\n\tbne 1b" : "+r"(n) : : "cc");
}

#ifdef KILN_PROFILE_LAYERS
#define MAX_LAYERS 512
static uint64_t layer_start[MAX_LAYERS + 1];
static const char *layer_names[MAX_LAYERS];
static uint32_t layers;

void kiln_profile_layer(uint32_t index, const char *name) {
  if (index > MAX_LAYERS) {
    layers = MAX_LAYERS; /* the table shows the first MAX_LAYERS */
    return;
  }
  layer_start[index] = ticks();
  if (name && index < MAX_LAYERS)
    layer_names[index] = name;
  else if (!name)
    layers = index;
}

static void print_layers(void) {
  uint32_t i;
  for (i = 0; i < layers; ++i)
    printf("layer %lu instructions=%llu %s\n", (unsigned long)i,
           (unsigned long long)((layer_start[i + 1] - layer_start[i]) * INSTRUCTIONS_PER_TICK),
           layer_names[i]);
}
#endif

int main(int argc, char **argv) {
  const uint32_t spins = 1000000;
  int runs = argc > 1 ? atoi(argv[1]) : DEFAULT_RUNS, i;
  uint64_t t0, t1, min = UINT64_MAX, max = 0;

  if (runs < 1) {
    fprintf(stderr, "usage: %s [RUNS]\n", argv[0]);
    return 2;
  }
  kiln_zero_inputs(&BUNDLE, io);
  systick_start();

  /* The calibration: 2,000,000 instructions, plus the call's few. */
  t0 = ticks();
  spin(spins);
  t1 = ticks();
  if ((t1 - t0) * INSTRUCTIONS_PER_TICK < 2 * spins ||
      (t1 - t0) * INSTRUCTIONS_PER_TICK > 2 * spins + 1000) {
    fprintf(stderr, "bench: %lu instructions took %llu SysTick ticks, not 1 per %d: "
                    "is QEMU running with -icount shift=0?\n",
            (unsigned long)(2 * spins), (unsigned long long)(t1 - t0), INSTRUCTIONS_PER_TICK);
    return 1;
  }

  for (i = 0; i < runs; ++i) {
    uint64_t instructions;
    t0 = ticks();
    if (RUN(WEIGHTS, io, scratch) != KILN_OK) {
      fprintf(stderr, "bench: %s_run failed\n", STR(KILN_BUNDLE_NAME));
      return 1;
    }
    t1 = ticks();
    instructions = (t1 - t0) * INSTRUCTIONS_PER_TICK;
    if (instructions < min)
      min = instructions;
    if (instructions > max)
      max = instructions;
  }
  printf("bench %s runs=%d instructions=%llu..%llu\n", STR(KILN_BUNDLE_NAME), runs,
         (unsigned long long)min, (unsigned long long)max);
#ifdef KILN_PROFILE_LAYERS
  print_layers();
#endif
  return 0;
}

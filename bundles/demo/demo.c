/* kiln demo: the lenet5 bundle on the shipped input digit. Prints the scores,
 * the predicted class, and the largest difference from PyTorch's output.
 *
 * usage: demo WEIGHTS.bin INPUT.bin REFERENCE.bin
 *
 * The three regions are static arrays sized by the generated header's
 * macros, as firmware would have them: nothing is allocated. Scratch goes to
 * the section that targets/cortex_m/mps2.ld places in RAM (on Linux it is
 * ordinary .bss). */
#include "lenet5.h"

#include <math.h>
#include <stdio.h>

static uint8_t weights[LENET5_WEIGHTS_SIZE] __attribute__((aligned(LENET5_ALIGNMENT)));
static uint8_t io[LENET5_IO_SIZE] __attribute__((aligned(LENET5_ALIGNMENT)));
static uint8_t scratch[LENET5_SCRATCH_SIZE]
    __attribute__((aligned(LENET5_ALIGNMENT), section(".bss.kiln_scratch")));

static int load(const char *path, uint8_t *dst, size_t size) {
  FILE *f = fopen(path, "rb");
  size_t n = f ? fread(dst, 1, size, f) : 0;
  int extra = f ? fgetc(f) : EOF;
  if (f)
    fclose(f);
  if (n != size || extra != EOF) {
    fprintf(stderr, "demo: %s: expected %zu bytes\n", path, size);
    return 0;
  }
  return 1;
}

int main(int argc, char **argv) {
  float reference[10];
  const float *scores = (const float *)(io + LENET5_OUT_OUTPUT_OFFSET);
  float max_err = 0;
  int i, best = 0, status;

  if (argc != 4) {
    fprintf(stderr, "usage: %s WEIGHTS.bin INPUT.bin REFERENCE.bin\n", argv[0]);
    return 2;
  }
  if (!load(argv[1], weights, sizeof weights) ||
      !load(argv[2], io + LENET5_IN_INPUT_OFFSET, LENET5_IN_INPUT_SIZE) ||
      !load(argv[3], (uint8_t *)reference, sizeof reference))
    return 1;

  status = lenet5_run(weights, io, scratch);
  if (status != KILN_OK) {
    fprintf(stderr, "demo: lenet5_run returned %d\n", status);
    return 1;
  }

  printf("kiln demo: %s (ABI %u) on a 1x1x28x28 input\n", lenet5_bundle.name,
         lenet5_bundle.abi_version);
  printf("regions: weights %d B, io %d B, scratch %d B\n", LENET5_WEIGHTS_SIZE,
         LENET5_IO_SIZE, LENET5_SCRATCH_SIZE);
  printf("scores:");
  for (i = 0; i < 10; ++i) {
    float err = fabsf(scores[i] - reference[i]);
    printf(" %.5f", scores[i]);
    if (scores[i] > scores[best])
      best = i;
    if (err > max_err)
      max_err = err;
  }
  printf("\npredicted class: %d\n", best);
  printf("max |kiln - PyTorch| = %.3g\n", max_err);
  return max_err <= 1e-4f ? 0 : 1;
}

/* The kiln_bundle rule's quantize = "int8": lenet5 quantized with its
 * calibration set (lenet5_int8), run from C on the shipped input, against
 * PyTorch's float output. The int8 result must be close (SQNR at least 20
 * dB, the same class) and must not be the float result itself (SQNR below
 * 80 dB), which would mean the rule compiled the float model.
 *
 * usage: int8_bundle_test WEIGHTS.bin INPUT.bin REFERENCE.bin */
#include "lenet5_int8.h"

#include "tests/common/load_file.h"

#include <math.h>
#include <stdio.h>

static uint8_t weights[LENET5_INT8_WEIGHTS_SIZE]
    __attribute__((aligned(LENET5_INT8_ALIGNMENT)));
static uint8_t io[LENET5_INT8_IO_SIZE] __attribute__((aligned(LENET5_INT8_ALIGNMENT)));
static uint8_t scratch[LENET5_INT8_SCRATCH_SIZE]
    __attribute__((aligned(LENET5_INT8_ALIGNMENT)));

int main(int argc, char **argv) {
  float reference[10];
  const float *scores = (const float *)(io + LENET5_INT8_OUT_OUTPUT_OFFSET);
  double signal = 0, noise = 0, sqnr;
  int i, best = 0, bestRef = 0;
  if (argc != 4) {
    fprintf(stderr, "usage: %s WEIGHTS.bin INPUT.bin REFERENCE.bin\n", argv[0]);
    return 2;
  }
  if (!loadFile(argv[1], weights, sizeof weights) ||
      !loadFile(argv[2], io + LENET5_INT8_IN_INPUT_OFFSET, LENET5_INT8_IN_INPUT_SIZE) ||
      !loadFile(argv[3], (uint8_t *)reference, sizeof reference))
    return 1;
  if (lenet5_int8_run(weights, io, scratch) != KILN_OK)
    return 1;
  for (i = 0; i < 10; ++i) {
    signal += (double)reference[i] * reference[i];
    noise += ((double)scores[i] - reference[i]) * ((double)scores[i] - reference[i]);
    if (scores[i] > scores[best])
      best = i;
    if (reference[i] > reference[bestRef])
      bestRef = i;
  }
  sqnr = noise > 0 ? 10 * log10(signal / noise) : INFINITY;
  printf("lenet5_int8: SQNR %.1f dB against float, class %d (float: %d)\n", sqnr, best,
         bestRef);
  return sqnr >= 20 && sqnr < 80 && best == bestRef ? 0 : 1;
}

/* kiln_bundle's int8_io = True (kilnc --int8-io): lenet5 quantized with int8
 * inputs and outputs, against the same quantization with float ones
 * (lenet5_int8: same calibration set and calibrator). The input, quantized as
 * the header says (ONNX QuantizeLinear's rounding, which the float-I/O bundle
 * applies to its input), and the int8 output, dequantized as the
 * header says, must give the float-I/O bundle's output bit for bit: the int8
 * arithmetic inside is the same. The descriptor must say int8 and carry the
 * header's scale and zero point.
 *
 * usage: int8_io_bundle_test FLOAT_IO_WEIGHTS.bin INT8_IO_WEIGHTS.bin INPUT.bin */
#include "lenet5_int8.h"
#include "lenet5_int8_io.h"

#include "tests/common/load_file.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define ALIGN __attribute__((aligned(LENET5_INT8_ALIGNMENT)))
#define INPUTS (LENET5_INT8_IN_INPUT_SIZE / 4)
#define CLASSES (LENET5_INT8_OUT_OUTPUT_SIZE / 4)

static uint8_t floatWeights[LENET5_INT8_WEIGHTS_SIZE] ALIGN;
static uint8_t floatIo[LENET5_INT8_IO_SIZE] ALIGN;
static uint8_t floatScratch[LENET5_INT8_SCRATCH_SIZE] ALIGN;
static uint8_t int8Weights[LENET5_INT8_IO_WEIGHTS_SIZE] ALIGN;
static uint8_t int8Io[LENET5_INT8_IO_IO_SIZE] ALIGN;
static uint8_t int8Scratch[LENET5_INT8_IO_SCRATCH_SIZE] ALIGN;

/* ONNX QuantizeLinear: x / scale rounded half to even. */
static int8_t quantize(float x, float scale, int32_t zeroPoint) {
  long q = lrintf(x / scale) + zeroPoint;
  return (int8_t)(q < -128 ? -128 : q > 127 ? 127 : q);
}

static int checkDescriptor(const kiln_tensor *t, float scale, int32_t zeroPoint,
                           size_t size) {
  if (t->dtype != KILN_I8 || t->scale != scale || t->zero_point != zeroPoint ||
      t->size != size) {
    fprintf(stderr, "descriptor of %s: dtype %d scale %g zero point %d size %zu\n",
            t->name, (int)t->dtype, t->scale, (int)t->zero_point, t->size);
    return 0;
  }
  return 1;
}

int main(int argc, char **argv) {
  const float *input = (const float *)(floatIo + LENET5_INT8_IN_INPUT_OFFSET);
  const float *expected = (const float *)(floatIo + LENET5_INT8_OUT_OUTPUT_OFFSET);
  int8_t *input8 = (int8_t *)(int8Io + LENET5_INT8_IO_IN_INPUT_OFFSET);
  const int8_t *scores8 = (const int8_t *)(int8Io + LENET5_INT8_IO_OUT_OUTPUT_OFFSET);
  int i, mismatches = 0;
  if (argc != 4) {
    fprintf(stderr, "usage: %s FLOAT_IO_WEIGHTS.bin INT8_IO_WEIGHTS.bin INPUT.bin\n",
            argv[0]);
    return 2;
  }
  if (LENET5_INT8_IO_IN_INPUT_SIZE != INPUTS || LENET5_INT8_IO_OUT_OUTPUT_SIZE != CLASSES) {
    fprintf(stderr, "the int8-io bundle's input and output are not one byte an element\n");
    return 1;
  }
  if (!checkDescriptor(&lenet5_int8_io_bundle.inputs[0], LENET5_INT8_IO_IN_INPUT_SCALE,
                       LENET5_INT8_IO_IN_INPUT_ZERO_POINT, INPUTS) ||
      !checkDescriptor(&lenet5_int8_io_bundle.outputs[0], LENET5_INT8_IO_OUT_OUTPUT_SCALE,
                       LENET5_INT8_IO_OUT_OUTPUT_ZERO_POINT, CLASSES))
    return 1;
  if (!loadFile(argv[1], floatWeights, sizeof floatWeights) ||
      !loadFile(argv[2], int8Weights, sizeof int8Weights) ||
      !loadFile(argv[3], floatIo + LENET5_INT8_IN_INPUT_OFFSET, LENET5_INT8_IN_INPUT_SIZE))
    return 1;
  for (i = 0; i < INPUTS; ++i)
    input8[i] = quantize(input[i], LENET5_INT8_IO_IN_INPUT_SCALE,
                         LENET5_INT8_IO_IN_INPUT_ZERO_POINT);
  if (lenet5_int8_run(floatWeights, floatIo, floatScratch) != KILN_OK ||
      lenet5_int8_io_run(int8Weights, int8Io, int8Scratch) != KILN_OK)
    return 1;
  for (i = 0; i < CLASSES; ++i) {
    float got = LENET5_INT8_IO_OUT_OUTPUT_SCALE *
                (float)(scores8[i] - LENET5_INT8_IO_OUT_OUTPUT_ZERO_POINT);
    if (memcmp(&got, &expected[i], sizeof got) != 0) {
      fprintf(stderr, "class %d: int8 %d -> %.9g, float-I/O bundle %.9g\n", i,
              scores8[i], got, expected[i]);
      ++mismatches;
    }
  }
  printf("lenet5_int8_io: %d of %d outputs differ from the float-I/O bundle\n",
         mismatches, CLASSES);
  return mismatches == 0 ? 0 : 1;
}

/* The input a benchmark or probe feeds a bundle: each input tensor holding
 * the value 0 in its dtype (for int8 and uint8, the zero point), so that no
 * measurement depends on data. */
#ifndef KILN_BENCHMARKS_ZERO_INPUTS_H
#define KILN_BENCHMARKS_ZERO_INPUTS_H

#include "kiln.h"

static void kiln_zero_inputs(const kiln_bundle *b, uint8_t *io) {
  uint32_t t;
  for (t = 0; t < b->num_inputs; ++t) {
    const kiln_tensor *input = &b->inputs[t];
    uint8_t byte = 0;
    size_t i;
    if (input->dtype == KILN_I8)
      byte = (uint8_t)(int8_t)input->zero_point;
    else if (input->dtype == KILN_U8)
      byte = (uint8_t)input->zero_point;
    for (i = 0; i < input->size; ++i)
      io[input->offset + i] = byte;
  }
}

#endif

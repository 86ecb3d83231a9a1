//===- SelectInt8Kernels.h - Choosing the int8 kernels ---------*- C++ -*-===//
//
// selectKernels' int8 half: for an op that computes TFLite's integer
// semantics, the kernel (GEMM blocks, depthwise rows or channel blocks, the
// LSTM's lanes, elementwise lanes) and the multiply-add instructions of the
// target (LIROptions::int8Dot), and how its weights are packed for them.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIR_SELECTINT8KERNELS_H
#define KILN_LIR_SELECTINT8KERNELS_H

#include "compiler/lir/SelectKernels.h"

namespace kiln {
namespace lir {

/// Chooses the kernel of int8 node `n` (an op of kInt8KernelTrait that takes
/// or makes quantized int8 tensors) into `sel`, and the packing of the
/// weights it reads packed.
void selectInt8Kernel(const Graph &g, const Node &n, const LIROptions &opts,
                      KernelSelection &sel);

/// Weights that int8 GEMMs share are stored once, in one packing: where the
/// readers' strategies want different ones (a Conv of VNNI's blocks and one
/// too small for any, say), every reader reads them as they are.
void unpackSharedInt8Weights(const Graph &g, KernelSelection &sel);

} // namespace lir
} // namespace kiln

#endif

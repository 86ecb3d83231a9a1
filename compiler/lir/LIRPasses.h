//===- LIRPasses.h - The LIR pipeline: translation, passes, layout -*- C++ -*-===//
//
// generateLIR is three steps. translateGraph makes one instruction per node,
// each result in a scratch buffer of its own. The passes below then fuse
// instructions and share buffers, each a small named unit that an option of
// LIROptions turns on. layOutBuffers drops the buffers no instruction uses,
// numbers the rest in order of first use and places the weights.
//
// Each pass reads the graph only through the instructions' nodes (their
// kinds, types and values), and the buffers through BufferReaders.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIR_LIRPASSES_H
#define KILN_LIR_LIRPASSES_H

#include "compiler/lir/LIR.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace kiln {
namespace lir {

/// One instruction per node of the lowered graph `g`, in node order, with
/// the kernel selectKernels chose and its temp; a Reshape is a view of its
/// input's buffer, and graph outputs that no kernel writes are copies at the
/// end. Weights offsets are left for layOutBuffers.
Function translateGraph(const Graph &g, const LIROptions &opts);

/// An int8 GEMM Conv that gathers its columns pixel by pixel
/// (Int8Columns::Gathered) from the result of a Transpose from NHWC to
/// NCHW that nothing else reads gathers them from the Transpose's input
/// instead (Int8Columns::GatheredChannelsLast), and the Transpose goes: a
/// TFLite model's first Conv then reads the caller's NHWC input in place.
void foldInputTransposes(Function &f);

/// A Conv (f32, not depthwise) whose result only an Add reads, as the Add's
/// one operand (or through a Reshape: a 1-D Conv's) and next to a residual
/// of as many elements of the same type, becomes one
/// instruction with that Add, and with the activation (activationOf) that
/// alone reads the sum; it takes the Add's place, where the residual exists.
/// The sum never makes a round trip through memory, as in ResNet blocks. An
/// int8 GEMM Conv (KernelStrategy::Kind::Int8Gemm) fuses an int8 Add of a
/// residual of its shape likewise, with no activation: the Add's output
/// range is its activation.
void fuseResidualAdds(Function &f);

/// An f32 Conv of one group on the register-tiled kernel without panels
/// (Direct or Pointwise) whose result only a DepthwiseRows Conv reads
/// becomes one instruction with it, in that Conv's place: band by band of
/// the depthwise's output rows, the Conv computes the rows the band's
/// windows read into the temp, then the depthwise runs over them
/// (DepthwiseBands, KernelStrategy::bandRows). This is MobileNetV2's
/// inverted residual block, and its stem: the expanded tensor, six times as
/// wide as the block's input, stays in cache and out of the memory plan. Bands hold kDepthwiseBandBytes of the 1x1's result at
/// most. Nothing fuses where the whole result fits in one band, nor where
/// so few rows fit that more than a quarter of a band's rows would be
/// computed twice. The 1x1 projection that alone reads the depthwise's
/// result (with its residual Add) joins, at its own place, where the bands
/// hold the depthwise's output rows too within that budget
/// (KernelStrategy::bandProjection): then neither wide tensor is planned.
void fuseDepthwiseBands(Function &f);

/// Most bytes of a band of fuseDepthwiseBands: half of a 1 MB L2 cache,
/// the rest for the depthwise's plane, output and weights.
constexpr uint64_t kDepthwiseBandBytes = 512 * 1024;

/// A chain of f32 elementwise instructions of one output type, each result
/// read only by the next, becomes one instruction at the chain's end that
/// evaluates the whole expression per element in registers.
void fuseElementwiseChains(Function &f);

/// A Concat whose inputs are contiguous slices of its output (every axis
/// before the concatenated one of extent 1, each slice 64-byte aligned) and
/// are intermediates of their own, each once, disappears: those buffers
/// become slices of its output, which their producers write in place and
/// their other readers read (YOLO's SPPF concatenates pools that the next
/// pool reads too; where inputs have other readers, only if the inputs are
/// made just before the Concat, so that the output lives no longer than
/// they did). Last Concat first, so that a Concat feeding another
/// writes into its slice of the outer one; an input already a slice of a
/// later Concat keeps this one.
void elideConcats(Function &f);

/// An elementwise instruction writes its result over the first operand
/// buffer that no later instruction reads and that has the result's dtype
/// and size (scratch only: the caller's tensors are never reused; nor a
/// slice of a Concat's output, which the Concat's readers read). Its
/// kernel reads every operand's element i before it writes element i.
void reuseBuffersInPlace(Function &f);

/// Drops the buffers that no instruction, I/O tensor or slice uses, numbers
/// the rest (I/O first, then in order of first use, a slice's parent before
/// it) and gives each weights buffer its offset in that order.
void layOutBuffers(Function &f);

struct LIRPass {
  llvm::StringRef name;
  /// The option of LIROptions that turns the pass on.
  bool LIROptions::*enabled;
  void (*run)(Function &f);
};

/// The passes generateLIR runs between translateGraph and layOutBuffers, in
/// order.
llvm::ArrayRef<LIRPass> lirPasses();

/// The pass called `name`, or nullptr.
const LIRPass *findLIRPass(llvm::StringRef name);

} // namespace lir
} // namespace kiln

#endif

//===- KernelBuilder.h - Building blocks for kernel emission ---*- C++ -*-===//
//
// Kernels are emitted as LLVM IR from C++, once per instruction, with every
// shape a constant; LLVM then unrolls, vectorizes and schedules them for the
// target's CPU and features. So there is one source per kernel family and no
// code compiled for one target is ever reused for another.
//
// Indices use the target's pointer-sized integer (32-bit on 32-bit targets).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_CODEGEN_KERNELBUILDER_H
#define KILN_CODEGEN_KERNELBUILDER_H

#include "compiler/graph/Graph.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/IR/IRBuilder.h"

namespace kiln {
namespace codegen {

/// Floats per cache line (64 bytes on every core kiln targets), the unit
/// of a prefetch.
constexpr int64_t kLineFloats = 16;

/// Merges each dimension of `extents` into the next inner one where every
/// stride set in `strides` walks the two as one (a broadcast operand's
/// strides are 0 in both), and drops dimensions of extent 1: a nest of
/// fewer, longer loops. A channel scale over [1,C,H,W] is then C loops of
/// H*W contiguous elements, and a Concat's input one run per channel block:
/// over rows of 28 or 56 the loop vectorizer had made EfficientNet's scales
/// and DenseNet's Concats and batch norms gathers and scatters, 5-10x slower.
void mergeDimensions(Shape &extents, llvm::SmallVectorImpl<Shape> &strides);

/// What register tiles can use on the target, from its TargetTransformInfo:
/// kernels size their vectors and tiles by it rather than by any one ISA.
struct VectorInfo {
  /// f32 lanes of the widest vector register; 1 where there are no vectors
  /// (Cortex-M), and the kernels then emit plain scalar code.
  unsigned lanes = 1;
  /// Registers available to hold tile accumulators and operands.
  unsigned registers = 8;
  /// The target multiplies the even i32 lanes of a vector into i64 lanes in
  /// one instruction (x86 PMULDQ): a vector's 32 x 32 -> 64-bit products
  /// then take its even and odd lanes apart instead of widening every lane.
  bool evenLaneMultiply = false;
  /// The target has a saturating rounding doubling high multiply of four
  /// i32 lanes (AArch64 SQRDMULH): gemmlowp's SRDHM in one instruction.
  bool roundingDoublingHighMul = false;
  /// Prefetches pay: the core reads memory through data caches. Not on an
  /// Arm M-profile core, whose memory is SRAM, flash or TCM, and where a
  /// PLD and its address arithmetic only add instructions (9% more in
  /// ds_cnn_kws' Convs on the Cortex-M4).
  bool prefetch = true;
};

class KernelBuilder {
public:
  KernelBuilder(llvm::IRBuilder<> &b, llvm::Type *idxTy, VectorInfo vec = {})
      : b(b), idxTy(idxTy), vec(vec) {}

  llvm::IRBuilder<> &b;
  llvm::Type *idxTy;
  VectorInfo vec;

  llvm::Value *idx(int64_t v) { return llvm::ConstantInt::get(idxTy, v); }
  llvm::Value *f32(float v) {
    return llvm::ConstantFP::get(b.getFloatTy(), v);
  }
  llvm::Type *elemType(DType t);

  /// for (iv = begin; iv < end; ++iv) body(iv); leaves the builder after it.
  void loop(llvm::Value *begin, llvm::Value *end,
            llvm::function_ref<void(llvm::Value *)> body,
            const llvm::Twine &name = "i");
  void loop(int64_t count, llvm::function_ref<void(llvm::Value *)> body,
            const llvm::Twine &name = "i") {
    if (count > 0)
      loop(idx(0), idx(count), body, name);
    else
      lastLatch_ = nullptr;
  }
  /// Emits `then` where `cond` holds and `otherwise` where it does not, and
  /// continues after both.
  void ifElse(llvm::Value *cond, llvm::function_ref<void()> then,
              llvm::function_ref<void()> otherwise);
  /// Loop nest over `extents` (outermost first); body gets the induction
  /// variables. Extent-1 dimensions get a constant 0, not a loop.
  void nest(llvm::ArrayRef<int64_t> extents,
            llvm::function_ref<void(llvm::ArrayRef<llvm::Value *>)> body);
  /// nest() for a body that walks memory along the innermost dimension: with
  /// rows of 8 elements or more, LLVM's loop vectorizer is kept off the outer
  /// loops. Otherwise, where the inner loop is short enough to unroll fully
  /// (a 7x7 plane), it vectorizes the next loop out, across rows, with
  /// gathers and scatters (6x slower on 7x7 planes); the SLP vectorizer
  /// makes vectors of the unrolled row instead. Shorter rows keep LLVM's
  /// choice: there its interleaved loads across rows win.
  void innerNest(llvm::ArrayRef<int64_t> extents,
                 llvm::function_ref<void(llvm::ArrayRef<llvm::Value *>)> body);

  /// sum(ivs[i] * strides[i]) + base
  llvm::Value *linear(llvm::ArrayRef<llvm::Value *> ivs,
                      llvm::ArrayRef<int64_t> strides, llvm::Value *base = nullptr);

  llvm::Value *load(llvm::Type *ty, llvm::Value *base, llvm::Value *index);
  void store(llvm::Value *v, llvm::Value *base, llvm::Value *index);
  llvm::Value *gep(llvm::Type *ty, llvm::Value *base, llvm::Value *index);
  /// Asks the cache for the line of float base[index], to be read soon
  /// (llvm.prefetch: a hint that never faults), where vec.prefetch says it
  /// pays; otherwise nothing, and the index's arithmetic is dead code.
  void prefetch(llvm::Value *base, llvm::Value *index);

  /// Like loop(), with loop-carried values: `body` gets the induction
  /// variable and this iteration's values and returns the next ones; the
  /// result is the values after the last iteration (`init` when count <= 0).
  llvm::SmallVector<llvm::Value *, 32>
  loopCarried(int64_t count, llvm::ArrayRef<llvm::Value *> init,
              llvm::function_ref<llvm::SmallVector<llvm::Value *, 32>(
                  llvm::Value *, llvm::ArrayRef<llvm::Value *>)>
                  body,
              const llvm::Twine &name = "k");

  /// loopCarried over [begin, end), bounds known at run time: `init` when
  /// begin >= end.
  llvm::SmallVector<llvm::Value *, 32>
  loopCarried(llvm::Value *begin, llvm::Value *end, llvm::ArrayRef<llvm::Value *> init,
              llvm::function_ref<llvm::SmallVector<llvm::Value *, 32>(
                  llvm::Value *, llvm::ArrayRef<llvm::Value *>)>
                  body,
              const llvm::Twine &name = "k");

  /// Keeps LICM from hoisting the loop-invariant loads of the loop built
  /// last out of it: a body that reads a block's buffer again each iteration
  /// would otherwise hold all of it in registers, and spill on a core with
  /// few.
  void keepLoadsInLoop();
  /// Unrolls the loop built last (by loop() or loopCarried(); a constant
  /// count of 1 builds none) `count` times: LLVM's own choice for a register
  /// tile's body is a guess that differs by core (llvm.loop.unroll.count).
  void unrollLoop(unsigned count);
  /// Keeps LLVM's loop vectorizer off the loop built last
  /// (llvm.loop.vectorize.enable false): where its iterations stride
  /// memory, it makes gathers and scatters, slower than scalar code.
  void noLoopVectorize();

  /// `values` (i32 scalars), passed through an empty inline asm: every one
  /// is computed before what follows, which keeps a core's scheduling model
  /// from interleaving them with the code after it. On the Cortex-M7, LLVM's
  /// model put an int8 GEMM block's requantization of one row between the
  /// last sums of the other, which spilled.
  llvm::SmallVector<llvm::Value *, 4> computedHere(llvm::ArrayRef<llvm::Value *> values);

  /// `init` as a private constant global of the kernel's module: read-only
  /// data of the code (tables of multipliers, reciprocals, lookups).
  llvm::Value *constantTable(llvm::Constant *init, const llvm::Twine &name);

  /// <lanes x float>, or float for one lane.
  llvm::Type *vecType(unsigned lanes);
  /// `x` in every one of `lanes` lanes.
  llvm::Value *splat(llvm::Value *x, unsigned lanes);
  /// Loads `lanes` consecutive floats at base[index]; only the first
  /// `valid` are read (a masked load, the rest 0) when valid < lanes, so a
  /// partial vector never touches memory past its last element.
  llvm::Value *loadVec(llvm::Value *base, llvm::Value *index, unsigned lanes,
                       unsigned valid);
  /// Stores the first `valid` lanes of `v` at base[index].
  void storeVec(llvm::Value *v, llvm::Value *base, llvm::Value *index,
                unsigned valid);
  /// <lanes x i1>: the first `valid` lanes set.
  llvm::Constant *laneMask(unsigned lanes, unsigned valid);
  /// Combines the lanes of `v` with `op` (a shuffle tree; `op` must be
  /// associative and commutative) into a scalar.
  llvm::Value *reduceLanes(
      llvm::Value *v,
      llvm::function_ref<llvm::Value *(llvm::Value *, llvm::Value *)> op);
  /// a * b + c, fused where the target has FMA (llvm.fmuladd: never a call).
  llvm::Value *fma(llvm::Value *a, llvm::Value *b, llvm::Value *c);

  /// A stack slot in the function's entry block (promoted to a register by
  /// SROA), for loop-carried scalars such as reductions.
  llvm::AllocaInst *scalarSlot(llvm::Type *ty, const llvm::Twine &name);

  /// e^x for f32 (scalar or vector), without libm: range reduction to
  /// [-ln2/2, ln2/2], a degree-5 polynomial, and exponent bits for 2^n.
  /// Branch-free so loops around it vectorize; within 1.8e-7 relative over
  /// the clamped range. 15 instructions a vector with FMA: it is most of a
  /// SiLU or Sigmoid epilogue.
  llvm::Value *exp(llvm::Value *x);
  llvm::Value *maxF(llvm::Value *a, llvm::Value *c);
  llvm::Value *minF(llvm::Value *a, llvm::Value *c);
  /// Copies a tensor of `shape` between two strided layouts (element strides).
  void stridedCopy(llvm::Type *elemTy, llvm::ArrayRef<int64_t> shape,
                   llvm::Value *src, llvm::ArrayRef<int64_t> srcStrides,
                   int64_t srcOffset, llvm::Value *dst,
                   llvm::ArrayRef<int64_t> dstStrides, int64_t dstOffset);

private:
  /// The back edge of the loop built last (unrollLoop, keepLoadsInLoop).
  llvm::BranchInst *lastLatch_ = nullptr;
  /// The loops of loopCarried from `begin` to `end`; `guarded`: a test
  /// first, for bounds that may leave it empty.
  llvm::SmallVector<llvm::Value *, 32>
  carriedLoop(llvm::Value *begin, llvm::Value *end, bool guarded,
              llvm::ArrayRef<llvm::Value *> init,
              llvm::function_ref<llvm::SmallVector<llvm::Value *, 32>(
                  llvm::Value *, llvm::ArrayRef<llvm::Value *>)>
                  body,
              const llvm::Twine &name);
  /// Adds `property` to the loop metadata of lastLatch_'s loop.
  void addLoopProperty(llvm::ArrayRef<llvm::Metadata *> property);
};


} // namespace codegen
} // namespace kiln

#endif

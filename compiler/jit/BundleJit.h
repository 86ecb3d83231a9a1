//===- BundleJit.h - Compiled bundles, run in-process ----------*- C++ -*-===//
//
// Tests of the generated code need to run it without a C toolchain, a link
// step or files. A JitBundle is the object kilnc would write for the host
// (same LIR, memory plan, target machine and optimization), linked into
// memory with LLVM ORC and called through its NAME_run entry point, with the
// weights, I/O and scratch regions laid out as the bundle's header says.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_JIT_BUNDLEJIT_H
#define KILN_JIT_BUNDLEJIT_H

#include "compiler/backend/CompileGraph.h"
#include "compiler/graph/Graph.h"
#include "compiler/graph/Tensor.h"
#include "compiler/lir/LIR.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace llvm {
namespace orc {
class LLJIT;
} // namespace orc
} // namespace llvm

namespace kiln {

/// A bundle compiled for the host and loaded in memory.
class JitBundle {
public:
  /// Compiles `loweredGraph` (primitive ops only) as kilnc would, without
  /// embedded weights, and links the object in memory. The graph is only
  /// read during the call. `name` must be a C identifier, as for kilnc.
  /// `lirOptions` choose kernel strategies as kilnc's do; vectorLanes is
  /// always the target's, vectorRegisters the target's at most. `target`
  /// must describe a CPU the host can run: the host itself by default, or
  /// an older one of its architecture (x86-64 without AVX: narrower
  /// vectors, no FMA).
  static llvm::Expected<std::unique_ptr<JitBundle>>
  compile(const Graph &loweredGraph, llvm::StringRef name = "jit",
          lir::LIROptions lirOptions = {}, const TargetOptions &target = {});

  ~JitBundle();
  JitBundle(const JitBundle &) = delete;
  JitBundle &operator=(const JitBundle &) = delete;

  /// Runs the bundle: inputs in graph-input order (types must match exactly;
  /// an error names the input), returns outputs in graph-output order. It
  /// runs twice, on I/O and scratch regions filled first with one byte
  /// pattern, then another (finite floats, so that no NaN compares equal to
  /// a NaN reference), every region between guard bytes: the two outputs
  /// must be identical, so an element never written or a read of memory
  /// never written is an error naming the output and element, as are a
  /// write outside a region (naming it), into the weights, or (unless the
  /// bundle may overwrite its inputs) into the I/O region's inputs or the
  /// padding between its tensors.
  llvm::Expected<std::vector<Tensor>> run(llvm::ArrayRef<Tensor> inputs);

  uint64_t weightsSize() const { return weightsSize_; }
  uint64_t ioSize() const { return ioSize_; }
  uint64_t scratchSize() const { return scratchSize_; }
  /// What the bundle was compiled for (CPU, vector lanes, capabilities).
  const TargetInfo &targetInfo() const { return targetInfo_; }

  /// A region of `size` bytes, 64-byte aligned as NAME_run requires, between
  /// kGuard bytes of a known pattern on either side, so that a write just
  /// outside it shows.
  class GuardedRegion {
  public:
    static constexpr uint64_t kGuard = lir::kBufferAlignment;
    static constexpr uint8_t kGuardByte = 0xA7;
    /// base() is null when the allocation failed.
    explicit GuardedRegion(uint64_t size);
    uint8_t *base() const { return block_ ? block_.get() + kGuard : nullptr; }
    uint64_t size() const { return size_; }
    /// Success if both guards are intact, else an error saying which bytes
    /// around the region called `what` changed.
    llvm::Error checkGuards(llvm::StringRef what) const;

  private:
    struct FreeDeleter {
      void operator()(uint8_t *p) const { std::free(p); }
    };
    std::unique_ptr<uint8_t[], FreeDeleter> block_;
    uint64_t size_;
  };

private:
  JitBundle();
  /// One run on regions poisoned with `poison`: the outputs.
  llvm::Expected<std::vector<Tensor>> runOnce(llvm::ArrayRef<Tensor> inputs,
                                              uint8_t poison);
  /// Success if the bytes of `io` outside the outputs are as `before` (the
  /// region before the run), else an error naming the first changed byte.
  llvm::Error checkOnlyOutputsWritten(llvm::ArrayRef<uint8_t> before,
                                      const uint8_t *io) const;

  using RunFn = int (*)(const uint8_t *weights, uint8_t *io, uint8_t *scratch);

  std::string name_;
  TargetInfo targetInfo_;
  /// Whether the I/O region also holds the intermediates (LIROptions).
  bool overwriteInputs_ = false;
  /// The compile's TargetMachine, the JIT's compiler: it outlives jit_.
  std::unique_ptr<llvm::TargetMachine> targetMachine_;
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  RunFn runFn_ = nullptr;
  std::unique_ptr<GuardedRegion> weights_;
  /// The weights as compiled, to check that a run leaves them unchanged.
  std::vector<uint8_t> weightsImage_;
  uint64_t weightsSize_ = 0, ioSize_ = 0, scratchSize_ = 0;
  std::vector<BundleTensor> inputs_, outputs_;
};

/// Convenience: run the default pipeline (compiler/pipeline/Pipeline.h) on `g`
/// (mutates it), then compile.
llvm::Expected<std::unique_ptr<JitBundle>> compileGraphForJit(Graph &g);

} // namespace kiln

#endif

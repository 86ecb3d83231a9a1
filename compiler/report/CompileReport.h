//===- CompileReport.h - What a compilation made, layer by layer -*- C++ -*-===//
//
// The data of kilnc --report, filled from the planned LIR and the object:
// every instruction as a layer (op, shapes, work, weights, the kernel chosen,
// what was fused into it), the scratch plan with its live ranges, the
// footprint, and warnings. ReportJson.h and ReportHtml.h render it; nothing
// here is recomputed from text.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_REPORT_COMPILEREPORT_H
#define KILN_REPORT_COMPILEREPORT_H

#include "compiler/codegen/StackBound.h"
#include "compiler/codegen/Target.h"
#include "compiler/lir/LIR.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln::report {

/// One LIR instruction.
struct LayerReport {
  /// The graph node the instruction runs, and its op ("copy" for a Copy).
  std::string name, op;
  /// Types of the operands that are not weights, and of the results.
  std::vector<TensorType> inputs, outputs;
  /// Multiply-accumulates of a Conv, ConvTranspose or MatMul (the direct
  /// algorithm's count, also under Winograd); 0 for other ops.
  uint64_t macs = 0;
  /// 2 per MAC, plus an estimate for everything else: one per output
  /// element of an elementwise op, a fused node or a fused activation, one
  /// per input element of a reduction or softmax, one per window element of
  /// a pooling; 0 for data movement.
  uint64_t flops = 0;
  /// Bytes of the weights buffers the instruction reads, as stored (packed);
  /// a buffer shared by several layers counts at the first.
  uint64_t weightBytes = 0;
  /// The kernel strategy as --print-lir prints it; empty for an op's only
  /// kernel.
  std::string strategy;
  /// Graph-level fusion: the activation folded into the node (kiln.activation),
  /// "" for none.
  std::string activation;
  /// LIR-level fusion: "Op 'node'" of every node this kernel also runs.
  std::vector<std::string> fused;
  /// Why the kernel is a slow fallback, or "" when it is not.
  std::string slowFallback;
  /// Where each non-weight operand comes from: the index of the layer that
  /// last wrote its buffer, or kGraphInput; the edges of the layer graph.
  std::vector<int> producers;
};

/// A producer that is a graph input (or a buffer no layer writes).
constexpr int kGraphInput = -1;

/// One buffer of the planned region: where it sits and when it is live
/// (instruction indices, inclusive).
struct PlacedBuffer {
  std::string name;
  uint64_t offset, size;
  unsigned begin, end;
};

struct MemoryPlan {
  /// The region the planner laid out: scratch, or io with overwriteInputs.
  lir::Region region = lir::Region::Scratch;
  /// The region's size, as the plan sets it.
  uint64_t size = 0;
  /// The highest byte any buffer reaches: the region's size but for the
  /// alignment of its end.
  uint64_t highWater = 0;
  std::vector<PlacedBuffer> buffers;
  /// The instruction where the most bytes are live, and how many.
  unsigned peakLayer = 0;
  uint64_t peakLiveBytes = 0;
  /// Buffers live at the peak, largest first (indices into buffers).
  std::vector<unsigned> liveAtPeak;
};

struct Footprint {
  /// Executable sections of the object.
  uint64_t codeBytes = 0;
  uint64_t weightsBytes = 0, scratchBytes = 0, ioBytes = 0;
  /// The entry's stack bound (NAME_STACK_SIZE), or why it is not known.
  StackBound stack;
};

struct Warning {
  enum class Kind { SlowFallback, DominantTensor };
  Kind kind;
  /// The layer or buffer it is about.
  std::string subject;
  std::string message;
};

struct CompileReport {
  std::string bundleName, triple, cpu;
  std::vector<LayerReport> layers;
  MemoryPlan plan;
  Footprint footprint;
  std::vector<Warning> warnings;
  uint64_t totalMacs() const;
};

/// A buffer held across the peak layer (made before it, read after it: a skip
/// connection, a Concat input waiting for its partners)
/// that takes at least this share of the planned region is worth a warning:
/// reordering or recomputing it shrinks the region. The peak layer's own
/// operands are not: every plan holds them.
constexpr double kDominantShare = 0.25;

/// The report of `f` (planned) compiled for `target` into `object`, whose
/// entry needs at most `stack`.
llvm::Expected<CompileReport> buildCompileReport(const lir::Function &f,
                                                 const TargetInfo &target,
                                                 llvm::ArrayRef<char> object,
                                                 const StackBound &stack);

/// "warning" names for the JSON and HTML.
llvm::StringRef warningKindName(Warning::Kind kind);

} // namespace kiln::report

#endif

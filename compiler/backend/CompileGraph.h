//===- CompileGraph.h - The back half of the pipeline ----------*- C++ -*-===//
//
// From a lowered graph to a bundle in memory: LIR, memory plan, its check,
// the object, the header and the weights image. kilnc's driver and the JIT
// both call compileGraph, so the code under test is the code users link.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_BACKEND_COMPILEGRAPH_H
#define KILN_BACKEND_COMPILEGRAPH_H

#include "compiler/bundle/BundleWriter.h"
#include "compiler/codegen/StackBound.h"
#include "compiler/codegen/Target.h"
#include "compiler/graph/Graph.h"
#include "compiler/lir/LIR.h"
#include "compiler/report/CompileReport.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln {

/// What the back end needs besides the graph and the target.
struct BackendOptions {
  /// The prefix of NAME_run, NAME_bundle and the header's macros; must be a
  /// C identifier.
  std::string bundleName;
  /// Kernel strategies; vectorLanes is always the target's, vectorRegisters
  /// the target's at most.
  lir::LIROptions lir;
  /// Link the weights into the object as read-only data (section
  /// ".rodata.kiln_weights", symbol NAME_weights) as well as returning
  /// them as the weights file.
  bool embedWeights = false;
  /// NAME_run calls kiln_profile_layer before each layer (kiln.h).
  bool profileLayers = false;
  /// Fill CompiledBundle::report, from the LIR while it exists.
  bool report = false;
};

/// Where one input or output tensor lives in the bundle's I/O region.
struct BundleTensor {
  std::string name;
  TensorType type;
  uint64_t offset;
};

/// A compiled bundle: the files kilnc writes, what the JIT needs to lay out
/// the regions, and what kilnc reports.
struct CompiledBundle {
  BundleFiles files;
  uint64_t weightsSize = 0, ioSize = 0, scratchSize = 0;
  /// Scratch bytes without buffer reuse (the sum of all intermediates).
  uint64_t unplannedScratchSize = 0;
  size_t numKernels = 0;
  /// NAME_run's stack use at most (NAME_STACK_SIZE), or why it is unknown.
  StackBound stack;
  std::vector<BundleTensor> inputs, outputs;
  /// The LIR with its memory plan, as text (kilnc --print-lir).
  std::string lirText;
  /// With BackendOptions::report.
  std::optional<report::CompileReport> report;
};

/// An error unless `name` is a valid bundle name (isValidBundleName), for
/// callers that want to reject a name before any work.
llvm::Error checkBundleName(llvm::StringRef name);

/// The LIR of `lowered` (primitive ops only) with its memory planned and the
/// plan checked. The Function points into the graph's constants.
llvm::Expected<lir::Function> planGraph(const Graph &lowered,
                                        const lir::LIROptions &opts);

/// Compiles `lowered` for `target` (resolved once by the caller, its
/// TargetMachine reused here). The graph is only read during the call.
llvm::Expected<CompiledBundle> compileGraph(const Graph &lowered,
                                            const ResolvedTarget &target,
                                            const BackendOptions &opts);

} // namespace kiln

#endif

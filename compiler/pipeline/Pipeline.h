//===- Pipeline.h - Running a list of passes -------------------*- C++ -*-===//
//
// A pipeline is a list of registered pass names, so the driver and tests can
// print, edit and compare it like any other data.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_PIPELINE_PIPELINE_H
#define KILN_PIPELINE_PIPELINE_H

#include "compiler/graph/Graph.h"
#include "compiler/passes/Pass.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln {

struct PipelineOptions {
  /// Verify the graph before the first pass and after every pass, so that a
  /// pass that breaks the graph is named in the error.
  bool verifyEach = true;
};

/// Runs the passes named in `passNames` in order. Every name is checked
/// before any pass runs. A pass's error is prefixed with the pass name.
llvm::Error runPipeline(Graph &g, llvm::ArrayRef<std::string> passNames,
                        const PipelineOptions &opts);

/// Runs already created passes the same way (what runPipeline does after
/// looking the names up); tests use it to run passes of their own.
llvm::Error runPasses(Graph &g, llvm::ArrayRef<std::unique_ptr<Pass>> passes,
                      const PipelineOptions &opts);

/// The passes `kilnc` runs by default; `winograd`: the code generator may
/// take Winograd's convolutions (lir::LIROptions::winograd).
std::vector<std::string> defaultPipeline(bool winograd = true);

} // namespace kiln

#endif

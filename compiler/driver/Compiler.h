//===- Compiler.h - The compilation pipeline, end to end -------*- C++ -*-===//
#ifndef KILN_DRIVER_COMPILER_H
#define KILN_DRIVER_COMPILER_H

#include "compiler/bundle/BundleWriter.h"
#include "compiler/codegen/Target.h"
#include "compiler/frontend/onnx/OnnxImporter.h"
#include "compiler/lir/LIR.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln {

/// The target and how the object holds the weights.
struct CodegenOptions {
  TargetOptions target;
  /// Put the weights image in the object (read-only, section
  /// ".rodata.kiln_weights"), exported as NAME_weights and pointed to by
  /// NAME_bundle.embedded_weights.
  bool embedWeights = false;
};

/// Everything one compilation needs; the CLI and the Bazel rule fill it in.
struct CompileOptions {
  std::string modelPath;
  /// Where NAME.o, NAME.h and NAME.weights.bin go.
  std::string outputDir;
  /// A C identifier; empty means derived from the model file's stem.
  std::string bundleName;
  OnnxImportOptions import;
  CodegenOptions codegen;
  /// Kernel strategies; vectorLanes is taken from the target.
  lir::LIROptions lir;
  /// Graph passes by registry name; empty means the default pipeline.
  std::vector<std::string> passes;
  bool verifyEachPass = true;
  /// Debug outputs, written only when the compilation succeeds.
  std::string dumpGraphDotPath;
  std::string dumpGraphTextPath;
  std::string dumpLIRPath;
};

/// What the compilation produced, for the CLI to report.
struct CompileResult {
  BundleFiles files;
  uint64_t weightsSize = 0, ioSize = 0, scratchSize = 0;
  /// Scratch bytes without buffer reuse (the sum of all intermediates).
  uint64_t unplannedScratchSize = 0;
  size_t numKernels = 0;
  /// The optimized, lowered graph and its LIR, as text.
  std::string graphText, graphDot, lirText;
};

/// Import, optimize, lower, plan and generate code; nothing is written.
llvm::Expected<CompileResult> compileToMemory(const CompileOptions &opts);

/// compileToMemory, then write the bundle (and any dumps) atomically.
llvm::Expected<CompileResult> compileModel(const CompileOptions &opts);

} // namespace kiln

#endif

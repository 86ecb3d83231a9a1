//===- Compiler.h - The compilation pipeline, end to end -------*- C++ -*-===//
#ifndef KILN_DRIVER_COMPILER_H
#define KILN_DRIVER_COMPILER_H

#include "compiler/backend/CompileGraph.h"
#include "compiler/codegen/Target.h"
#include "compiler/frontend/ModelImporter.h"
#include "compiler/lir/LIR.h"
#include "compiler/quantize/Quantizer.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kiln {

/// The target and how the object holds the weights.
struct CodegenOptions {
  TargetOptions target;
  /// See BackendOptions::embedWeights.
  bool embedWeights = false;
  /// See BackendOptions::profileLayers.
  bool profileLayers = false;
};

/// Everything one compilation needs; the CLI and the Bazel rule fill it in.
struct CompileOptions {
  std::string modelPath;
  /// Where NAME.o, NAME.h and NAME.weights.bin go.
  std::string outputDir;
  /// A C identifier; empty means derived from the model file's stem.
  std::string bundleName;
  OnnxImportOptions import;
  /// Graph inputs bound to constants (--const-input NAME=FILE.npy): each
  /// file is read into import.constantInputs before the import.
  std::map<std::string, std::string> constantInputFiles;
  CodegenOptions codegen;
  /// Kernel strategies; vectorLanes is the target's, vectorRegisters the
  /// target's at most.
  lir::LIROptions lir;
  /// Graph passes by registry name; empty means the default pipeline.
  std::vector<std::string> passes;
  bool verifyEachPass = true;
  /// Post-training quantization to int8 (a float model and a calibration
  /// directory); the report goes to NAME.accuracy.json in outputDir.
  bool quantizeInt8 = false;
  QuantizeOptions quantize;
  /// With quantizeInt8: where the quantized model is written as QDQ ONNX.
  std::string saveQdqPath;
  /// Write the compile report, NAME.report.html and NAME.report.json, in
  /// outputDir.
  bool report = false;
  /// Debug outputs, written only when the compilation succeeds.
  std::string dumpGraphDotPath;
  std::string dumpGraphTextPath;
  std::string dumpLIRPath;
};

/// What the compilation produced, for the CLI to report: the bundle, and
/// the optimized, lowered graph as text.
struct CompileResult : CompiledBundle {
  std::string graphText, graphDot;
  /// With quantizeInt8: the accuracy report, as data and as JSON, and the
  /// QDQ ONNX model.
  std::optional<AccuracyReport> accuracy;
  std::string accuracyJson, qdqModel;
  /// With CompileOptions::report: the report rendered (CompiledBundle::report
  /// holds its data).
  std::string reportHtml, reportJson;
};

/// A file of the bundle's beside NAME.o: outputDir/NAME`suffix`, e.g.
/// ".accuracy.json".
std::string outputPath(const CompileOptions &opts, llvm::StringRef bundleName,
                       llvm::StringRef suffix);

/// Resolve the target, import, optimize and lower, then compileGraph;
/// nothing is written.
llvm::Expected<CompileResult> compileToMemory(const CompileOptions &opts);

/// compileToMemory, then write the bundle (and any dumps) atomically.
llvm::Expected<CompileResult> compileModel(const CompileOptions &opts);

} // namespace kiln

#endif

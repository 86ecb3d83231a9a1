//===- FuzzStages.cpp - How far one fuzz input goes through kiln ----------===//

#include "tests/fuzz/FuzzStages.h"

#include "compiler/backend/CompileGraph.h"
#include "compiler/frontend/ModelImporter.h"
#include "compiler/frontend/tflite/TFLiteImporter.h"
#include "compiler/graph/Verifier.h"
#include "compiler/lowering/Lowering.h"
#include "compiler/pipeline/Pipeline.h"

#include "llvm/ADT/StringSwitch.h"

namespace kiln {

namespace {

constexpr llvm::StringLiteral kModelName = "fuzz";

/// kilnc's limits, scaled to the fuzzers' 2 GB memory limit (run_fuzzers.sh):
/// a model within them that still exhausts memory is a finding, not a big
/// model.
OnnxImportOptions fuzzImportOptions() {
  OnnxImportOptions opts;
  opts.limits.maxTensorBytes = 64 << 20;
  opts.limits.maxConstantBytes = 256 << 20;
  opts.limits.maxPlanBytes = 512 << 20;
  opts.limits.maxNodes = 100000;
  opts.limits.maxUnrolledSteps = 128;
  return opts;
}

llvm::Expected<std::unique_ptr<Graph>> importAndLower(llvm::StringRef bytes) {
  auto graph = importModelBuffer(bytes, kModelName, fuzzImportOptions());
  if (!graph)
    return graph.takeError();
  Graph &g = **graph;
  if (auto err = runPipeline(g, defaultPipeline(), PipelineOptions()))
    return std::move(err);
  if (auto err = verifyGraph(g))
    return std::move(err);
  if (auto err = checkLowered(g))
    return std::move(err);
  return graph;
}

llvm::Error compileForHost(const Graph &lowered) {
  // Resolved once: detecting the host and creating a TargetMachine per
  // input would dominate the run.
  static llvm::Expected<ResolvedTarget> host = resolveTarget(TargetOptions());
  if (!host)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "no host target");
  BackendOptions opts;
  opts.bundleName = kModelName.str();
  auto bundle = compileGraph(lowered, *host, opts);
  return bundle ? llvm::Error::success() : bundle.takeError();
}

} // namespace

llvm::StringRef fuzzStageName(FuzzStage stage) {
  switch (stage) {
  case FuzzStage::ImportOnnx:
    return "import_onnx";
  case FuzzStage::ImportTFLite:
    return "import_tflite";
  case FuzzStage::FrontHalf:
    return "front_half";
  case FuzzStage::Codegen:
    return "codegen";
  }
  llvm_unreachable("unknown fuzz stage");
}

std::optional<FuzzStage> parseFuzzStage(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<FuzzStage>>(name)
      .Case("import_onnx", FuzzStage::ImportOnnx)
      .Case("import_tflite", FuzzStage::ImportTFLite)
      .Case("front_half", FuzzStage::FrontHalf)
      .Case("codegen", FuzzStage::Codegen)
      .Default(std::nullopt);
}

llvm::Error runFuzzStage(FuzzStage stage, llvm::StringRef bytes) {
  switch (stage) {
  case FuzzStage::ImportOnnx:
    return importOnnxBuffer(bytes, kModelName, fuzzImportOptions()).takeError();
  case FuzzStage::ImportTFLite:
    return importTFLiteBuffer(bytes, kModelName, fuzzImportOptions().limits).takeError();
  case FuzzStage::FrontHalf: {
    auto graph = importAndLower(bytes);
    if (!graph)
      return graph.takeError();
    return planGraph(**graph, lir::LIROptions()).takeError();
  }
  case FuzzStage::Codegen: {
    auto graph = importAndLower(bytes);
    if (!graph)
      return graph.takeError();
    return compileForHost(**graph);
  }
  }
  llvm_unreachable("unknown fuzz stage");
}

} // namespace kiln

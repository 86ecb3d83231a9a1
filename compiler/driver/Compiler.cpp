#include "compiler/driver/Compiler.h"

#include "compiler/frontend/Npy.h"
#include "compiler/graph/Printer.h"
#include "compiler/graph/Verifier.h"
#include "compiler/lowering/Lowering.h"
#include "compiler/pipeline/Pipeline.h"
#include "compiler/quantize/QDQModelWriter.h"
#include "compiler/report/ReportHtml.h"
#include "compiler/report/ReportJson.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace kiln {

llvm::Expected<CompileResult> compileToMemory(const CompileOptions &opts) {
  BackendOptions backend;
  backend.bundleName =
      opts.bundleName.empty()
          ? bundleNameFromStem(llvm::sys::path::stem(opts.modelPath))
          : opts.bundleName;
  backend.lir = opts.lir;
  backend.embedWeights = opts.codegen.embedWeights;
  backend.profileLayers = opts.codegen.profileLayers;
  backend.report = opts.report;
  if (auto err = checkBundleName(backend.bundleName))
    return std::move(err);
  auto target = resolveTarget(opts.codegen.target);
  if (!target)
    return target.takeError();

  OnnxImportOptions importOpts = opts.import;
  for (const auto &[inputName, path] : opts.constantInputFiles) {
    auto value = readNpyFile(path);
    if (!value)
      return value.takeError();
    importOpts.constantInputs[inputName] = std::move(*value);
  }
  auto importGraph = [&] { return importModelFile(opts.modelPath, importOpts); };
  std::optional<QuantizedModel> quantized;
  std::unique_ptr<Graph> graph;
  if (opts.quantizeInt8) {
    auto q = quantizeModel(importGraph, opts.quantize);
    if (!q)
      return q.takeError();
    quantized = std::move(*q);
    graph = std::move(quantized->qdqGraph);
  } else {
    auto imported = importGraph();
    if (!imported)
      return imported.takeError();
    graph = std::move(*imported);
  }
  Graph &g = *graph;
  std::string qdqModel;
  if (!opts.saveQdqPath.empty()) {
    auto bytes = writeQDQModel(g);
    if (!bytes)
      return bytes.takeError();
    qdqModel = std::move(*bytes);
  }
  PipelineOptions pipelineOpts;
  pipelineOpts.verifyEach = opts.verifyEachPass;
  std::vector<std::string> passes =
      opts.passes.empty() ? defaultPipeline(opts.lir.winograd) : opts.passes;
  if (auto err = runPipeline(g, passes, pipelineOpts))
    return std::move(err);
  if (auto err = verifyGraph(g))
    return std::move(err);
  if (auto err = checkLowered(g))
    return std::move(err);

  auto bundle = compileGraph(g, *target, backend);
  if (!bundle)
    return bundle.takeError();
  CompileResult result{std::move(*bundle)};
  if (quantized) {
    result.accuracy = std::move(quantized->report);
    result.accuracyJson = accuracyReportJson(*result.accuracy);
    result.qdqModel = std::move(qdqModel);
  }
  if (result.report) {
    auto html = report::reportHtml(*result.report);
    if (!html)
      return html.takeError();
    result.reportHtml = std::move(*html);
    result.reportJson = report::reportJson(*result.report);
  }
  llvm::raw_string_ostream text(result.graphText), dot(result.graphDot);
  printGraph(g, text);
  printGraphDot(g, dot);
  return std::move(result);
}

std::string outputPath(const CompileOptions &opts, llvm::StringRef bundleName,
                       llvm::StringRef suffix) {
  llvm::SmallString<128> path(opts.outputDir);
  llvm::sys::path::append(path, bundleName + suffix);
  return path.str().str();
}

llvm::Expected<CompileResult> compileModel(const CompileOptions &opts) {
  auto result = compileToMemory(opts);
  if (!result)
    return result.takeError();
  // Files beside the bundle's: the directory must exist before they are
  // written, ahead of the bundle.
  auto besideBundle = [&](bool wanted, llvm::StringRef suffix) {
    return wanted ? outputPath(opts, result->files.name, suffix) : "";
  };
  std::string accuracyPath = besideBundle(bool(result->accuracy), ".accuracy.json");
  std::string htmlPath = besideBundle(opts.report, ".report.html");
  std::string jsonPath = besideBundle(opts.report, ".report.json");
  if (result->accuracy || opts.report)
    if (std::error_code ec = llvm::sys::fs::create_directories(opts.outputDir))
      return llvm::createStringError(ec, "cannot create '" + opts.outputDir +
                                             "': " + ec.message());
  std::pair<const std::string *, const std::string *> dumps[] = {
      {&opts.dumpGraphDotPath, &result->graphDot},
      {&opts.dumpGraphTextPath, &result->graphText},
      {&opts.dumpLIRPath, &result->lirText},
      {&opts.saveQdqPath, &result->qdqModel},
      {&accuracyPath, &result->accuracyJson},
      {&htmlPath, &result->reportHtml},
      {&jsonPath, &result->reportJson}};
  std::vector<std::string> written;
  auto removeWritten = [&] {
    for (const std::string &p : written)
      llvm::sys::fs::remove(p);
  };
  for (auto &[path, text] : dumps) {
    if (path->empty())
      continue;
    if (auto err = writeFileAtomically(*path, *text)) {
      removeWritten();
      return std::move(err);
    }
    written.push_back(*path);
  }
  if (auto err = writeBundle(opts.outputDir, result->files)) {
    removeWritten();
    return std::move(err);
  }
  return result;
}

} // namespace kiln

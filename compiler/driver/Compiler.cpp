#include "compiler/driver/Compiler.h"

#include "compiler/graph/Printer.h"
#include "compiler/graph/Verifier.h"
#include "compiler/lowering/Lowering.h"
#include "compiler/pipeline/Pipeline.h"

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
  if (auto err = checkBundleName(backend.bundleName))
    return std::move(err);
  auto target = resolveTarget(opts.codegen.target);
  if (!target)
    return target.takeError();

  auto graph = importModelFile(opts.modelPath, opts.import);
  if (!graph)
    return graph.takeError();
  Graph &g = **graph;
  PipelineOptions pipelineOpts;
  pipelineOpts.verifyEach = opts.verifyEachPass;
  std::vector<std::string> passes =
      opts.passes.empty() ? defaultPipeline() : opts.passes;
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
  llvm::raw_string_ostream text(result.graphText), dot(result.graphDot);
  printGraph(g, text);
  printGraphDot(g, dot);
  return std::move(result);
}

llvm::Expected<CompileResult> compileModel(const CompileOptions &opts) {
  auto result = compileToMemory(opts);
  if (!result)
    return result.takeError();
  std::pair<const std::string *, const std::string *> dumps[] = {
      {&opts.dumpGraphDotPath, &result->graphDot},
      {&opts.dumpGraphTextPath, &result->graphText},
      {&opts.dumpLIRPath, &result->lirText}};
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

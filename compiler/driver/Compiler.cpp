#include "compiler/driver/Compiler.h"

#include "compiler/codegen/Codegen.h"
#include "compiler/graph/Printer.h"
#include "compiler/graph/Verifier.h"
#include "compiler/lir/MemoryPlanner.h"
#include "compiler/lowering/Lowering.h"
#include "compiler/passes/Pipeline.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace kiln {

llvm::Expected<CompileResult> compileToMemory(const CompileOptions &opts) {
  std::string name = opts.bundleName.empty()
                         ? bundleNameFromStem(llvm::sys::path::stem(opts.modelPath))
                         : opts.bundleName;
  if (!isValidBundleName(name))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "bundle name '" + name +
                                       "' is not a C identifier");

  auto graph = importOnnxFile(opts.modelPath, opts.import);
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

  auto target = resolveTarget(opts.codegen.target);
  if (!target)
    return target.takeError();
  lir::LIROptions lirOpts = opts.lir;
  lirOpts.vectorLanes = target->info.vectorLanes;
  auto lirOrErr = lir::generateLIR(g, lirOpts);
  if (!lirOrErr)
    return lirOrErr.takeError();
  lir::Function &f = *lirOrErr;
  f.name = name;
  lir::planMemory(f);
  if (auto err = lir::verifyMemoryPlan(f))
    return std::move(err);

  CompileResult result;
  result.files.weights = lir::buildWeightsImage(f);
  auto object = generateBundleObject(
      f, name, *target->machine,
      opts.codegen.embedWeights ? llvm::ArrayRef<uint8_t>(result.files.weights)
                                : llvm::ArrayRef<uint8_t>());
  if (!object)
    return object.takeError();
  result.files.name = name;
  result.files.object = std::move(*object);
  result.files.header = generateHeader(f, name, opts.codegen.embedWeights);
  result.weightsSize = f.weightsSize;
  result.ioSize = f.ioSize;
  result.scratchSize = f.scratchSize;
  result.unplannedScratchSize = lir::unplannedScratchSize(f);
  result.numKernels = f.instrs.size();
  llvm::raw_string_ostream text(result.graphText), dot(result.graphDot),
      lirText(result.lirText);
  printGraph(g, text);
  printGraphDot(g, dot);
  lir::printLIR(f, lirText);
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

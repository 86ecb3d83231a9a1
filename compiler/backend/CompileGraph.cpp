//===- CompileGraph.cpp - The back half of the pipeline -------------------===//

#include "compiler/backend/CompileGraph.h"

#include "compiler/codegen/Codegen.h"
#include "compiler/lir/MemoryPlanner.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

namespace kiln {

llvm::Error checkBundleName(llvm::StringRef name) {
  if (isValidBundleName(name))
    return llvm::Error::success();
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "bundle name '" + name +
                                     "' is not a C identifier");
}

llvm::Expected<lir::Function> planGraph(const Graph &lowered,
                                        const lir::LIROptions &opts) {
  auto f = lir::generateLIR(lowered, opts);
  if (!f)
    return f.takeError();
  lir::planMemory(*f, opts);
  if (auto err = lir::verifyMemoryPlan(*f))
    return std::move(err);
  uint64_t limit = lowered.getLimits().maxPlanBytes;
  if (f->ioSize + f->scratchSize <= limit)
    return f;
  // The largest buffer, for the user to find the layer to blame.
  const lir::Buffer *largest = nullptr;
  for (const auto &b : f->buffers)
    if (b->region != lir::Region::Weights && (!largest || b->size > largest->size))
      largest = b.get();
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      llvm::formatv("the memory plan needs {0} bytes of io and {1} bytes of scratch, "
                    "over the limit of {2} bytes (--max-plan-bytes); the largest "
                    "tensor is '{3}' ({4} bytes)",
                    f->ioSize, f->scratchSize, limit, largest->name, largest->size));
}

llvm::Expected<CompiledBundle> compileGraph(const Graph &lowered,
                                            const ResolvedTarget &target,
                                            const BackendOptions &opts) {
  const std::string &name = opts.bundleName;
  if (auto err = checkBundleName(name))
    return std::move(err);
  lir::LIROptions lirOpts = opts.lir;
  lirOpts.vectorLanes = target.info.vectorLanes;
  // Tiles may be held to fewer registers than the target has (tests of
  // the kernels' tile shapes), never to more.
  lirOpts.vectorRegisters = std::min(opts.lir.vectorRegisters, target.info.vectorRegisters);
  lirOpts.int8Dot = target.info.int8Dot;
  auto f = planGraph(lowered, lirOpts);
  if (!f)
    return f.takeError();
  f->name = name;

  CompiledBundle result;
  result.files.name = name;
  // Built once: the weights file, and the object's copy when embedded.
  result.files.weights = lir::buildWeightsImage(*f);
  BundleObjectOptions objectOpts;
  objectOpts.embedWeights = opts.embedWeights;
  if (opts.embedWeights)
    objectOpts.embeddedWeights = result.files.weights;
  objectOpts.profileLayers = opts.profileLayers;
  auto object = generateBundleObject(*f, name, *target.machine, objectOpts);
  if (!object)
    return object.takeError();
  result.files.object = std::move(object->bytes);
  result.stack = object->stack;
  result.files.header = generateHeader(*f, name, opts.embedWeights, result.stack);
  result.weightsSize = f->weightsSize;
  result.ioSize = f->ioSize;
  result.scratchSize = f->scratchSize;
  result.unplannedScratchSize = lir::unplannedScratchSize(*f);
  result.numKernels = f->instrs.size();
  for (const lir::IOTensor &t : f->inputs)
    result.inputs.push_back({t.name, t.type, t.buffer->offset});
  for (const lir::IOTensor &t : f->outputs)
    result.outputs.push_back({t.name, t.type, t.buffer->offset});
  llvm::raw_string_ostream lirText(result.lirText);
  lir::printLIR(*f, lirText);
  if (opts.report) {
    auto report = report::buildCompileReport(*f, target.info, result.files.object,
                                             result.stack);
    if (!report)
      return report.takeError();
    result.report = std::move(*report);
  }
  return std::move(result);
}

} // namespace kiln

//===- BundleJit.cpp - Compiled bundles, run in-process -------------------===//
//
// The object comes from compileGraph, the call kilnc's driver makes, so the
// machine code under test is byte for byte what a user would link. ORC only
// links it: the JIT exposes no process symbols, so a bundle that came to
// call libc (memcpy, expf, ...) fails here as it would on bare metal.
//
//===----------------------------------------------------------------------===//

#include "compiler/jit/BundleJit.h"

#include "compiler/backend/CompileGraph.h"
#include "compiler/pipeline/Pipeline.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cstring>

namespace kiln {

namespace {
llvm::Error jitError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

struct LinkedObject {
  std::unique_ptr<llvm::orc::LLJIT> jit;
  llvm::orc::ExecutorAddr run;
};

/// Links `object` into a JIT of its own and finds NAME_run. The JIT is set
/// up from `target` (host CPU and TargetMachine resolved by the caller): it
/// neither detects the host again nor creates a TargetMachine of its own.
llvm::Expected<LinkedObject> linkInMemory(llvm::ArrayRef<char> object,
                                          llvm::StringRef name,
                                          const ResolvedTarget &target) {
  llvm::TargetMachine *tm = target.machine.get();
  llvm::orc::JITTargetMachineBuilder jtmb(tm->getTargetTriple());
  jtmb.setCPU(target.info.cpu);
  jtmb.getFeatures() = llvm::SubtargetFeatures(target.info.features);
  auto jit = llvm::orc::LLJITBuilder()
                 .setJITTargetMachineBuilder(std::move(jtmb))
                 .setDataLayout(tm->createDataLayout())
                 // Only objects are added; nothing is compiled, but ORC wants
                 // a compiler.
                 .setCompileFunctionCreator(
                     [tm](llvm::orc::JITTargetMachineBuilder)
                         -> llvm::Expected<std::unique_ptr<
                             llvm::orc::IRCompileLayer::IRCompiler>> {
                       return std::make_unique<llvm::orc::SimpleCompiler>(*tm);
                     })
                 .setLinkProcessSymbolsByDefault(false)
                 // A bundle has no static constructors to run.
                 .setPlatformSetUp(llvm::orc::setUpInactivePlatform)
                 .create();
  if (!jit)
    return jit.takeError();
  // ORC hands link failures (an unresolved symbol) to the session's error
  // reporter, which prints by default; keep them for the returned error.
  auto reported = std::make_shared<std::string>();
  (*jit)->getExecutionSession().setErrorReporter([reported](llvm::Error e) {
    *reported += (reported->empty() ? "" : "; ") + llvm::toString(std::move(e));
  });
  if (auto err = (*jit)->addObjectFile(llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(object.data(), object.size()), name + ".o")))
    return std::move(err);
  auto run = (*jit)->lookup((name + "_run").str());
  if (!run)
    return jitError(llvm::toString(run.takeError()) +
                    (reported->empty() ? "" : ": " + *reported));
  return LinkedObject{std::move(*jit), *run};
}
} // namespace

JitBundle::JitBundle() = default;
JitBundle::~JitBundle() = default;

JitBundle::GuardedRegion::GuardedRegion(uint64_t size) : size_(size) {
  // aligned_alloc wants a size that is a multiple of the alignment.
  uint64_t bytes = 2 * kGuard + llvm::alignTo(size, lir::kBufferAlignment);
  block_.reset(static_cast<uint8_t *>(std::aligned_alloc(lir::kBufferAlignment, bytes)));
  if (block_)
    std::memset(block_.get(), kGuardByte, bytes);
}

llvm::Error JitBundle::GuardedRegion::checkGuards(llvm::StringRef what) const {
  auto changed = [](const uint8_t *guard, uint64_t &first, uint64_t &last) {
    first = kGuard;
    for (uint64_t k = 0; k < kGuard; ++k)
      if (guard[k] != kGuardByte) {
        first = std::min(first, k);
        last = k;
      }
    return first < kGuard;
  };
  uint64_t first = 0, last = 0;
  if (changed(block_.get(), first, last))
    return jitError(llvm::formatv("wrote {0} byte(s) before the start of its {1} "
                                  "region (from {2} bytes before it)",
                                  last - first + 1, what, kGuard - first));
  if (changed(base() + size_, first, last))
    return jitError(llvm::formatv("wrote past the end of its {0} region of {1} "
                                  "bytes (bytes {2} to {3} after it)",
                                  what, size_, first, last));
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<JitBundle>>
JitBundle::compile(const Graph &loweredGraph, llvm::StringRef name,
                   lir::LIROptions lirOpts, const TargetOptions &targetOpts) {
  auto target = resolveTarget(targetOpts);
  if (!target)
    return target.takeError();
  BackendOptions backend;
  backend.bundleName = name.str();
  backend.lir = lirOpts;
  auto compiled = compileGraph(loweredGraph, *target, backend);
  if (!compiled)
    return compiled.takeError();

  std::unique_ptr<JitBundle> bundle(new JitBundle());
  bundle->name_ = name.str();
  bundle->overwriteInputs_ = lirOpts.overwriteInputs;
  bundle->weightsSize_ = compiled->weightsSize;
  bundle->ioSize_ = compiled->ioSize;
  bundle->scratchSize_ = compiled->scratchSize;
  bundle->inputs_ = std::move(compiled->inputs);
  bundle->outputs_ = std::move(compiled->outputs);
  const std::vector<uint8_t> &image = compiled->files.weights;
  bundle->weights_ = std::make_unique<GuardedRegion>(image.size());
  if (!bundle->weights_->base())
    return jitError("cannot allocate the weights region");
  llvm::copy(image, bundle->weights_->base());
  bundle->weightsImage_ = image;

  auto linked = linkInMemory(compiled->files.object, name, *target);
  if (!linked)
    return linked.takeError();
  bundle->targetInfo_ = target->info;
  bundle->targetMachine_ = std::move(target->machine);
  bundle->jit_ = std::move(linked->jit);
  bundle->runFn_ = linked->run.toPtr<RunFn>();
  return std::move(bundle);
}

llvm::Expected<std::vector<Tensor>>
JitBundle::run(llvm::ArrayRef<Tensor> inputs) {
  if (inputs.size() != inputs_.size())
    return jitError(llvm::formatv("bundle '{0}' takes {1} inputs, got {2}",
                                  name_, inputs_.size(), inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].getType() != inputs_[i].type)
      return jitError("input '" + inputs_[i].name + "': expected " +
                      inputs_[i].type.str() + ", got " +
                      inputs[i].getType().str());

  auto first = runOnce(inputs, 0x5A);
  if (!first)
    return first.takeError();
  auto second = runOnce(inputs, 0xC3);
  if (!second)
    return second.takeError();
  for (size_t o = 0; o < outputs_.size(); ++o) {
    const uint8_t *a = (*first)[o].rawData(), *b = (*second)[o].rawData();
    uint64_t bytes = (*first)[o].sizeInBytes();
    uint64_t at = std::mismatch(a, a + bytes, b).first - a;
    if (at != bytes)
      return jitError(llvm::formatv(
          "output '{0}' element {1} depends on what the regions held before the "
          "run: an element never written, or a read of bytes never written",
          outputs_[o].name, at / dtypeSize(outputs_[o].type.dtype)));
  }
  return std::move(*first);
}

llvm::Expected<std::vector<Tensor>>
JitBundle::runOnce(llvm::ArrayRef<Tensor> inputs, uint8_t poison) {
  GuardedRegion io(ioSize_), scratch(scratchSize_);
  if (!io.base() || !scratch.base())
    return jitError("cannot allocate the I/O and scratch regions");
  std::memset(io.base(), poison, ioSize_);
  std::memset(scratch.base(), poison, scratchSize_);
  for (size_t i = 0; i < inputs.size(); ++i)
    llvm::copy(inputs[i].raw(), io.base() + inputs_[i].offset);

  std::vector<uint8_t> ioBefore(io.base(), io.base() + ioSize_);
  if (int status = runFn_(weights_->base(), io.base(), scratch.base()))
    return jitError(llvm::formatv("{0}_run returned status {1}", name_, status));
  if (!overwriteInputs_)
    if (llvm::Error err = checkOnlyOutputsWritten(ioBefore, io.base()))
      return std::move(err);
  for (auto [region, what] : {std::pair(&io, "I/O"), std::pair(&scratch, "scratch"),
                              std::pair(weights_.get(), "weights")})
    if (llvm::Error err = region->checkGuards(what))
      return jitError(name_ + "_run " + llvm::toString(std::move(err)));
  if (!llvm::equal(llvm::ArrayRef<uint8_t>(weights_->base(), weightsImage_.size()), weightsImage_))
    return jitError(name_ + "_run wrote to its weights");

  std::vector<Tensor> outputs;
  for (const BundleTensor &o : outputs_)
    outputs.emplace_back(
        o.type, llvm::ArrayRef<uint8_t>(io.base() + o.offset, o.type.sizeInBytes()));
  return std::move(outputs);
}

llvm::Error JitBundle::checkOnlyOutputsWritten(llvm::ArrayRef<uint8_t> before,
                                               const uint8_t *io) const {
  std::vector<bool> output(ioSize_, false);
  for (const BundleTensor &o : outputs_)
    std::fill_n(output.begin() + o.offset, o.type.sizeInBytes(), true);
  for (uint64_t k = 0; k < ioSize_; ++k) {
    if (output[k] || io[k] == before[k])
      continue;
    std::string where = "padding between its tensors";
    for (const BundleTensor &in : inputs_)
      if (k >= in.offset && k < in.offset + in.type.sizeInBytes())
        where = "input '" + in.name + "'";
    return jitError(llvm::formatv("{0}_run wrote to byte {1} of its I/O region, "
                                  "in the {2}",
                                  name_, k, where));
  }
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<JitBundle>> compileGraphForJit(Graph &g) {
  if (auto err = runPipeline(g, defaultPipeline(), PipelineOptions{}))
    return std::move(err);
  return JitBundle::compile(g);
}

} // namespace kiln

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

JitBundle::Region JitBundle::allocateRegion(uint64_t size) {
  // aligned_alloc wants a size that is a multiple of the alignment, and a
  // zero-sized region still gets a valid pointer.
  uint64_t bytes = llvm::alignTo(std::max<uint64_t>(size, 1), lir::kBufferAlignment);
  return Region(static_cast<uint8_t *>(std::aligned_alloc(lir::kBufferAlignment, bytes)));
}

llvm::Expected<std::unique_ptr<JitBundle>>
JitBundle::compile(const Graph &loweredGraph, llvm::StringRef name,
                   lir::LIROptions lirOpts) {
  auto target = resolveTarget(TargetOptions{});
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
  bundle->weightsSize_ = compiled->weightsSize;
  bundle->ioSize_ = compiled->ioSize;
  bundle->scratchSize_ = compiled->scratchSize;
  bundle->inputs_ = std::move(compiled->inputs);
  bundle->outputs_ = std::move(compiled->outputs);
  const std::vector<uint8_t> &image = compiled->files.weights;
  bundle->weights_ = allocateRegion(image.size());
  if (!bundle->weights_)
    return jitError("cannot allocate the weights region");
  std::memcpy(bundle->weights_.get(), image.data(), image.size());
  bundle->weightsImage_ = image;

  auto linked = linkInMemory(compiled->files.object, name, *target);
  if (!linked)
    return linked.takeError();
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
  for (size_t o = 0; o < outputs_.size(); ++o)
    if (std::memcmp((*first)[o].rawData(), (*second)[o].rawData(),
                    (*first)[o].sizeInBytes()) != 0)
      return jitError("output '" + outputs_[o].name +
                      "' depends on what the regions held before the run: an "
                      "element never written, or a read of bytes never written");
  if (std::memcmp(weights_.get(), weightsImage_.data(), weightsImage_.size()) != 0)
    return jitError(name_ + "_run wrote to its weights");
  return std::move(*first);
}

llvm::Expected<std::vector<Tensor>>
JitBundle::runOnce(llvm::ArrayRef<Tensor> inputs, uint8_t poison) {
  // Each region sits between guard bytes of its own pattern.
  constexpr uint64_t kGuard = lir::kBufferAlignment;
  constexpr uint8_t kGuardByte = 0xA7;
  Region io = allocateRegion(ioSize_ + 2 * kGuard),
         scratch = allocateRegion(scratchSize_ + 2 * kGuard);
  if (!io || !scratch)
    return jitError("cannot allocate the I/O and scratch regions");
  std::memset(io.get(), kGuardByte, ioSize_ + 2 * kGuard);
  std::memset(scratch.get(), kGuardByte, scratchSize_ + 2 * kGuard);
  uint8_t *ioBase = io.get() + kGuard, *scratchBase = scratch.get() + kGuard;
  std::memset(ioBase, poison, ioSize_);
  std::memset(scratchBase, poison, scratchSize_);
  for (size_t i = 0; i < inputs.size(); ++i)
    std::memcpy(ioBase + inputs_[i].offset, inputs[i].rawData(),
                inputs[i].sizeInBytes());

  if (int status = runFn_(weights_.get(), ioBase, scratchBase))
    return jitError(llvm::formatv("{0}_run returned status {1}", name_, status));
  auto guardsIntact = [&](const uint8_t *base, uint64_t size) {
    for (uint64_t k = 0; k < kGuard; ++k)
      if (base[k] != kGuardByte || base[kGuard + size + k] != kGuardByte)
        return false;
    return true;
  };
  if (!guardsIntact(io.get(), ioSize_) || !guardsIntact(scratch.get(), scratchSize_))
    return jitError(name_ + "_run wrote outside its I/O or scratch region");

  std::vector<Tensor> outputs;
  for (const BundleTensor &o : outputs_)
    outputs.emplace_back(
        o.type, llvm::ArrayRef<uint8_t>(ioBase + o.offset, o.type.sizeInBytes()));
  return std::move(outputs);
}

llvm::Expected<std::unique_ptr<JitBundle>> compileGraphForJit(Graph &g) {
  if (auto err = runPipeline(g, defaultPipeline(), PipelineOptions{}))
    return std::move(err);
  return JitBundle::compile(g);
}

} // namespace kiln

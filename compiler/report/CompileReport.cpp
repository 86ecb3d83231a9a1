//===- CompileReport.cpp - What a compilation made, layer by layer --------===//

#include "compiler/report/CompileReport.h"

#include "compiler/graph/Activation.h"
#include "compiler/lir/MemoryPlanner.h"
#include "compiler/ops/OpViews.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

namespace kiln::report {

namespace {

uint64_t elements(const Value *v) { return v->getType().numElements(); }

/// Weights of a convolution's filter: all but the first dimension of input 1.
uint64_t filterSize(const Node &conv) {
  const TensorType &w = conv.getInput(1)->getType();
  return w.shape[0] ? w.numElements() / w.shape[0] : 0;
}

/// Multiply-accumulates of `n` by the direct algorithm.
uint64_t macsOf(const Node &n) {
  switch (n.getDef().kernel) {
  case KernelFamily::Conv: // weights [OC][IC/G][K...]: each output reads a filter
    return elements(n.getOutput()) * filterSize(n);
  case KernelFamily::ConvTranspose: // weights [IC][OC/G][K...]: each input scatters a filter
    return elements(n.getInput(0)) * filterSize(n);
  case KernelFamily::MatMul:
    return elements(n.getOutput()) * n.getInput(0)->getType().shape.back();
  default:
    return 0;
  }
}

/// The estimate of LayerReport::flops for `n` alone.
uint64_t flopsOf(const Node &n) {
  switch (n.getDef().kernel) {
  case KernelFamily::Conv:
  case KernelFamily::ConvTranspose:
  case KernelFamily::MatMul:
    return 2 * macsOf(n);
  case KernelFamily::Elementwise:
  case KernelFamily::Resize:
    return elements(n.getOutput());
  case KernelFamily::Reduce:
  case KernelFamily::Softmax:
  case KernelFamily::LayerNorm:
  case KernelFamily::TopK:
    return elements(n.getInput(0));
  case KernelFamily::Pool: {
    // A global pool has no kernel_shape: its window is the whole plane.
    uint64_t window = 1;
    if (PoolView::accepts(n))
      for (int64_t k : PoolView(n).kernelShape())
        window *= k;
    else
      window = elements(n.getInput(0)) / std::max<uint64_t>(elements(n.getOutput()), 1);
    return elements(n.getOutput()) * window;
  }
  default:
    return 0;
  }
}

/// Why `in`'s kernel is slower than the op's usual one, or "".
std::string slowFallbackOf(const lir::Instr &in) {
  using Kind = lir::KernelStrategy::Kind;
  const lir::KernelStrategy &s = in.strategy;
  if (s.is(Kind::GenericPool))
    return "generic scalar pooling: the windows do not fit the vectorized plane "
           "kernel (not f32, not two spatial dimensions, or a window too large to "
           "unroll)";
  if (s.is(Kind::Direct) && !s.packedWeights)
    return "direct convolution reading unpacked weights (another reader shares "
           "them, or they are computed at run time)";
  if (s.is(Kind::Int8Gemm) && !s.packedWeights)
    return "int8 GEMM reading unpacked weights with scalar multiply-adds "
           "(another reader shares them, or they are computed at run time)";
  if (s.is(Kind::Int8) && in.node && macsOf(*in.node))
    return "portable int8 kernel: not a 2-D convolution or a product of matrices";
  return "";
}

std::string strategyText(const lir::KernelStrategy &s) {
  std::string text;
  llvm::raw_string_ostream os(text);
  lir::printStrategy(s, os);
  return text;
}

LayerReport layerOf(const lir::Instr &in, llvm::DenseSet<const lir::Buffer *> &seenWeights) {
  LayerReport layer;
  for (const lir::Buffer *b : in.inputs)
    if (b && b->region == lir::Region::Weights && seenWeights.insert(b->root()).second)
      layer.weightBytes += b->size;
  if (in.kind == lir::Instr::Kind::Copy) {
    layer.name = in.outputs.front()->name;
    layer.op = "copy";
    return layer;
  }
  const Node &n = *in.node;
  layer.name = n.getName().str();
  layer.op = n.getOpName().str();
  for (const Value *v : n.getInputs())
    if (v && !v->isConstant())
      layer.inputs.push_back(v->getType());
  const Node &last = in.fused.empty() ? n : *in.fused.back();
  for (const Value *v : last.getOutputs())
    layer.outputs.push_back(v->getType());
  layer.macs = macsOf(n);
  layer.flops = flopsOf(n);
  for (const Node *f : in.fused) {
    layer.fused.push_back(llvm::formatv("{0} '{1}'", f->getOpName(), f->getName()));
    layer.flops += elements(f->getOutput());
  }
  if (n.hasAttr(kActivationAttr)) {
    const Activation &a = n.getActivation(kActivationAttr);
    if (!a.isNone()) {
      layer.activation = a.str();
      layer.flops += elements(n.getOutput());
    }
  }
  layer.strategy = strategyText(in.strategy);
  layer.slowFallback = slowFallbackOf(in);
  return layer;
}

MemoryPlan planOf(const lir::Function &f) {
  MemoryPlan plan;
  std::vector<lir::LiveRange> ranges = lir::computeLiveRanges(f);
  auto used = [&](const lir::Buffer &b) {
    return !b.parent && ranges[b.id].begin <= ranges[b.id].end;
  };
  // With overwriteInputs the planner moved the intermediates to the io
  // region and planned them with the inputs and outputs there.
  llvm::DenseSet<const lir::Buffer *> interface;
  for (const lir::IOTensor &t : f.inputs)
    interface.insert(t.buffer);
  for (const lir::IOTensor &t : f.outputs)
    interface.insert(t.buffer);
  bool oneArena = llvm::any_of(f.buffers, [&](const auto &b) {
    return b->region == lir::Region::IO && !b->parent && !interface.count(b.get());
  });
  plan.region = oneArena ? lir::Region::IO : lir::Region::Scratch;
  plan.size = oneArena ? f.ioSize : f.scratchSize;
  for (const auto &b : f.buffers)
    if (b->region == plan.region && used(*b)) {
      plan.buffers.push_back(
          {b->name, b->offset, b->size, ranges[b->id].begin, ranges[b->id].end});
      plan.highWater = std::max(plan.highWater, b->offset + b->size);
    }
  for (unsigned i = 0; i < f.instrs.size(); ++i) {
    uint64_t live = 0;
    for (const PlacedBuffer &b : plan.buffers)
      if (b.begin <= i && i <= b.end)
        live += llvm::alignTo(b.size, lir::kBufferAlignment);
    if (live > plan.peakLiveBytes) {
      plan.peakLiveBytes = live;
      plan.peakLayer = i;
    }
  }
  for (unsigned i = 0; i < plan.buffers.size(); ++i)
    if (plan.buffers[i].begin <= plan.peakLayer && plan.peakLayer <= plan.buffers[i].end)
      plan.liveAtPeak.push_back(i);
  llvm::stable_sort(plan.liveAtPeak, [&](unsigned a, unsigned b) {
    return plan.buffers[a].size > plan.buffers[b].size;
  });
  return plan;
}

llvm::Expected<uint64_t> codeBytes(llvm::ArrayRef<char> object) {
  llvm::MemoryBufferRef ref(llvm::StringRef(object.data(), object.size()), "bundle");
  auto obj = llvm::object::ObjectFile::createObjectFile(ref);
  if (!obj)
    return obj.takeError();
  uint64_t total = 0;
  for (const llvm::object::SectionRef &s : (*obj)->sections())
    if (s.isText())
      total += s.getSize();
  return total;
}

} // namespace

uint64_t CompileReport::totalMacs() const {
  uint64_t total = 0;
  for (const LayerReport &l : layers)
    total += l.macs;
  return total;
}

llvm::StringRef warningKindName(Warning::Kind kind) {
  switch (kind) {
  case Warning::Kind::SlowFallback: return "slow-fallback";
  case Warning::Kind::DominantTensor: return "dominant-tensor";
  }
  llvm_unreachable("unknown warning kind");
}

llvm::Expected<CompileReport> buildCompileReport(const lir::Function &f,
                                                 const TargetInfo &target,
                                                 llvm::ArrayRef<char> object,
                                                 const StackBound &stack) {
  CompileReport r;
  r.bundleName = f.name;
  r.triple = target.triple;
  r.cpu = target.cpu;
  llvm::DenseSet<const lir::Buffer *> seenWeights;
  // The last writer of each buffer (by its root, so views and in-place
  // results count), as the instructions run in order.
  llvm::DenseMap<const lir::Buffer *, int> writer;
  for (const lir::Instr &in : f.instrs) {
    LayerReport layer = layerOf(in, seenWeights);
    for (const lir::Buffer *b : in.inputs)
      if (b && b->region != lir::Region::Weights) {
        auto it = writer.find(b->root());
        int from = it == writer.end() ? kGraphInput : it->second;
        if (!llvm::is_contained(layer.producers, from))
          layer.producers.push_back(from);
      }
    for (const lir::Buffer *b : in.outputs)
      writer[b->root()] = int(r.layers.size());
    r.layers.push_back(std::move(layer));
  }
  r.plan = planOf(f);
  auto code = codeBytes(object);
  if (!code)
    return code.takeError();
  r.footprint = {*code, f.weightsSize, f.scratchSize, f.ioSize, stack};

  for (const LayerReport &l : r.layers)
    if (!l.slowFallback.empty())
      r.warnings.push_back({Warning::Kind::SlowFallback, l.name,
                            llvm::formatv("{0} '{1}': {2}", l.op, l.name, l.slowFallback)});
  for (unsigned i : r.plan.liveAtPeak) {
    const PlacedBuffer &b = r.plan.buffers[i];
    if (b.size < kDominantShare * r.plan.size)
      break;
    // The peak layer's own operands are what any plan must hold there.
    if (b.begin >= r.plan.peakLayer || b.end <= r.plan.peakLayer)
      continue;
    r.warnings.push_back(
        {Warning::Kind::DominantTensor, b.name,
         llvm::formatv("'{0}' ({1} B, {2:P0} of {3}) is held across layer {4} "
                       "('{5}'), where the plan peaks, from layer {6} to its "
                       "last reader at layer {7}",
                       b.name, b.size, double(b.size) / r.plan.size,
                       lir::regionName(r.plan.region), r.plan.peakLayer,
                       r.layers[r.plan.peakLayer].name, b.begin, b.end)});
  }
  return std::move(r);
}

} // namespace kiln::report

#include "compiler/graph/OpDef.h"
#include "compiler/ops/ActivationOps.h"
#include "compiler/ops/OpFamilies.h"

#include "llvm/Support/ErrorHandling.h"

namespace kiln {
namespace {

constexpr unsigned kNumOps = 0
#define KILN_OP(Name) +1
#include "compiler/graph/OpKinds.def"
    ;

struct Registry {
  std::vector<OpDef> defs;
  const OpDef *byKind[kNumOps] = {};
  std::vector<const OpDef *> ordered;

  Registry() {
    registerConvOps(defs);
    registerMatMulOps(defs);
    registerElementwiseOps(defs);
    registerActivationOps(defs);
    registerPoolOps(defs);
    registerNormOps(defs);
    registerShapeOps(defs);
    registerMathOps(defs);
    registerBroadcastOps(defs);
    registerReduceOps(defs);
    registerMovementOps(defs);
    registerIndexOps(defs);
    registerTopKOps(defs);
    registerGeneratorOps(defs);
    registerLossOps(defs);
    registerResizeOps(defs);
    registerRoiAlignOps(defs);
    registerQuantOps(defs);
    registerRecurrentOps(defs);
    registerScanOps(defs);
    for (OpDef &d : defs) {
      if (isElementwise(d.kind)) {
        d.kernel = KernelFamily::Elementwise;
        d.traits |= kElementwiseTrait;
      }
      if (isReduction(d.kind)) {
        d.kernel = KernelFamily::Reduce;
        d.traits |= kReductionTrait;
      }
      if (activationKindOf(d.kind))
        d.traits |= kActivationTrait;
      unsigned k = static_cast<unsigned>(d.kind);
      if (byKind[k])
        llvm::report_fatal_error(llvm::Twine("op registered twice: ") + d.name);
      byKind[k] = &d;
    }
    for (unsigned k = 0; k < kNumOps; ++k) {
      if (!byKind[k])
        llvm::report_fatal_error("an op in OpKinds.def has no OpDef");
      ordered.push_back(byKind[k]);
    }
  }
};

const Registry &registry() {
  static const Registry r;
  return r;
}

} // namespace

const OpDef &getOpDef(OpKind kind) {
  return *registry().byKind[static_cast<unsigned>(kind)];
}

const OpDef *lookupOpDef(llvm::StringRef name) {
  for (const OpDef *d : registry().ordered)
    if (name == d->name)
      return d;
  return nullptr;
}

llvm::ArrayRef<const OpDef *> allOpDefs() { return registry().ordered; }

llvm::StringRef kernelFamilyName(KernelFamily f) {
  switch (f) {
  case KernelFamily::None: return "";
  case KernelFamily::View: return "view";
  case KernelFamily::Conv: return "conv";
  case KernelFamily::ConvTranspose: return "conv-transpose";
  case KernelFamily::MatMul: return "matmul";
  case KernelFamily::Elementwise: return "elementwise";
  case KernelFamily::Reduce: return "reduce";
  case KernelFamily::Pool: return "pool";
  case KernelFamily::Softmax: return "softmax";
  case KernelFamily::LayerNorm: return "layer-norm";
  case KernelFamily::Gather: return "gather";
  case KernelFamily::Scatter: return "scatter";
  case KernelFamily::Expand: return "expand";
  case KernelFamily::Slice: return "slice";
  case KernelFamily::Transpose: return "transpose";
  case KernelFamily::Concat: return "concat";
  case KernelFamily::Pad: return "pad";
  case KernelFamily::Resize: return "resize";
  case KernelFamily::TopK: return "top-k";
  case KernelFamily::RoiAlign: return "roi-align";
  case KernelFamily::Recurrent: return "recurrent";
  }
  return "?";
}

} // namespace kiln

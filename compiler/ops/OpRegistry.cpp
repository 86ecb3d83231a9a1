#include "compiler/graph/OpDef.h"
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
    registerGeneratorOps(defs);
    registerLossOps(defs);
    registerResizeOps(defs);
    registerQuantOps(defs);
    registerRecurrentOps(defs);
    registerScanOps(defs);
    for (const OpDef &d : defs) {
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

} // namespace kiln

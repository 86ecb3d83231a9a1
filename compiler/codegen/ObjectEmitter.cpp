//===- ObjectEmitter.cpp - Optimization and object emission ---------------===//

#include "compiler/codegen/Codegen.h"

#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/IPO/MergeFunctions.h"

namespace kiln {

void optimizeModule(llvm::Module &m, llvm::TargetMachine &tm) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions pto;
  pto.LoopVectorization = true;
  pto.SLPVectorization = true;
  pto.LoopUnrolling = true;
  llvm::PassBuilder pb(&tm, pto);
  llvm::TargetLibraryInfoImpl tlii(llvm::Triple(m.getTargetTriple()));
  tlii.disableAllFunctions();
  fam.registerPass([&] { return llvm::TargetLibraryAnalysis(tlii); });
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm;
  // Layers of the same op, shapes and kernel strategy (an unrolled
  // recurrence's steps, a transformer's blocks) are the same function of
  // their buffers: one copy, optimized and compiled once.
  mpm.addPass(llvm::MergeFunctionsPass());
  mpm.addPass(pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3));
  mpm.run(m, mam);
}

llvm::Expected<llvm::SmallVector<char, 0>>
emitObject(llvm::Module &m, llvm::TargetMachine &tm) {
  optimizeModule(m, tm);
  llvm::SmallVector<char, 0> bytes;
  llvm::raw_svector_ostream os(bytes);
  llvm::legacy::PassManager pm;
  llvm::TargetLibraryInfoImpl tlii(llvm::Triple(m.getTargetTriple()));
  tlii.disableAllFunctions();
  pm.add(new llvm::TargetLibraryInfoWrapperPass(tlii));
  if (tm.addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::ObjectFile))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "target '" + m.getTargetTriple() +
                                       "' cannot emit object files");
  pm.run(m);
  return std::move(bytes);
}

llvm::Expected<BundleObject>
generateBundleObject(const lir::Function &f, llvm::StringRef bundleName,
                     llvm::TargetMachine &tm, const BundleObjectOptions &opts) {
  llvm::LLVMContext ctx;
  auto m = buildBundleModule(ctx, f, bundleName, tm, opts);
  if (!m)
    return m.takeError();
  auto bytes = emitObject(**m, tm);
  if (!bytes)
    return bytes.takeError();
  auto stack = boundStack(**m, (bundleName + "_run").str(), *bytes);
  if (!stack)
    return stack.takeError();
  return BundleObject{std::move(*bytes), std::move(*stack)};
}

} // namespace kiln

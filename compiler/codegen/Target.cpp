#include "compiler/codegen/Target.h"
#include "compiler/codegen/Codegen.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/TargetParser/Triple.h"

#include <map>
#include <mutex>

namespace kiln {

std::optional<FloatABIKind> parseFloatABI(llvm::StringRef s) {
  if (s == "soft") return FloatABIKind::Soft;
  if (s == "softfp") return FloatABIKind::SoftFP;
  if (s == "hard") return FloatABIKind::Hard;
  if (s == "default") return FloatABIKind::Default;
  return std::nullopt;
}

std::optional<RelocModelKind> parseRelocModel(llvm::StringRef s) {
  if (s == "static") return RelocModelKind::Static;
  if (s == "pic") return RelocModelKind::PIC;
  if (s == "default") return RelocModelKind::Default;
  return std::nullopt;
}

namespace {

/// The triple of `opts`, the host's if none. Normalized, as clang and llc do:
/// Triple's constructor reads components by position, so "aarch64-linux-gnu"
/// would have OS "gnu" (unknown: taken for bare metal) and
/// "thumbv7em-none-eabihf" no EABIHF environment (soft-float default, GNU
/// instead of __aeabi_* helper names).
llvm::Triple targetTriple(const TargetOptions &opts) {
  return llvm::Triple(llvm::Triple::normalize(
      opts.triple.empty() ? llvm::sys::getDefaultTargetTriple() : opts.triple));
}

} // namespace

std::optional<std::string> detectedHostCPU(const TargetOptions &opts) {
  if (!opts.cpu.empty() ||
      targetTriple(opts).getTriple() !=
          llvm::Triple(llvm::sys::getDefaultTargetTriple()).getTriple())
    return std::nullopt;
  return llvm::sys::getHostCPUName().str();
}

namespace {

/// Registers LLVM's targets once (thread-safe).
void initializeLLVMTargets() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
  });
}

/// Creates the TargetMachine for `opts`, with every default resolved; the
/// resolved triple, CPU and features go to `info`.
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(const TargetOptions &opts, TargetInfo &info) {
  initializeLLVMTargets();
  llvm::Triple triple = targetTriple(opts);
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple.getTriple(), error);
  if (!target)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "target '" + triple.getTriple() +
                                       "': " + error);

  std::string cpu = opts.cpu;
  std::string features = opts.features;
  if (std::optional<std::string> host = detectedHostCPU(opts)) {
    cpu = *host;
    if (features.empty()) {
      llvm::SubtargetFeatures f;
      // Sorted, so the feature string (and the object) is deterministic.
      std::map<std::string, bool> sorted;
      for (const auto &kv : llvm::sys::getHostCPUFeatures())
        sorted[kv.getKey().str()] = kv.getValue();
      for (const auto &kv : sorted)
        f.AddFeature(kv.first, kv.second);
      features = f.getString();
    }
  }
  if (cpu.empty())
    cpu = "generic";

  llvm::TargetOptions to;
  // Every function's frame size in the object (.stack_sizes, not loaded):
  // what boundStack adds up into NAME_STACK_SIZE.
  to.EmitStackSizeSection = true;
  switch (opts.floatABI) {
  case FloatABIKind::Default: break;
  case FloatABIKind::Soft: to.FloatABIType = llvm::FloatABI::Soft; break;
  case FloatABIKind::SoftFP: to.FloatABIType = llvm::FloatABI::Soft; break;
  case FloatABIKind::Hard: to.FloatABIType = llvm::FloatABI::Hard; break;
  }
  // Soft float on Arm also means no FP instructions at all (clang's
  // -mfloat-abi=soft); softfp keeps them and only passes floats in integer
  // registers.
  if (opts.floatABI == FloatABIKind::Soft && (triple.isARM() || triple.isThumb()))
    features += features.empty() ? "+soft-float" : ",+soft-float";

  bool bareMetal = triple.getOS() == llvm::Triple::UnknownOS;
  llvm::Reloc::Model reloc =
      opts.relocModel == RelocModelKind::Static ? llvm::Reloc::Static
      : opts.relocModel == RelocModelKind::PIC  ? llvm::Reloc::PIC_
      : bareMetal                               ? llvm::Reloc::Static
                                                : llvm::Reloc::PIC_;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple.getTriple(), cpu, features, to, reloc, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!tm)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot create a target machine for '" +
                                       triple.getTriple() + "'");
  if (!tm->getMCSubtargetInfo()->isCPUStringValid(cpu))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "unknown CPU '" + cpu + "' for target '" +
                                       triple.getTriple() + "'");
  info.triple = triple.getTriple();
  info.cpu = cpu;
  info.features = features;
  return std::move(tm);
}

/// Whether `sti` has the feature `name`. Features of another architecture
/// are simply absent: MCSubtargetInfo::checkFeatures would warn on stderr
/// about them.
bool hasFeature(const llvm::MCSubtargetInfo &sti, llvm::StringRef name) {
  for (const llvm::SubtargetFeatureKV &kv : sti.getAllProcessorFeatures())
    if (name == kv.Key)
      return sti.getFeatureBits().test(kv.Value);
  return false;
}

/// Fills the capabilities of `info` from the subtarget of `tm` (and
/// int8Dot from its vectorLanes, read before).
void readCapabilities(const llvm::TargetMachine &tm, TargetInfo &info) {
  const llvm::MCSubtargetInfo &sti = *tm.getMCSubtargetInfo();
  const llvm::Triple &triple = tm.getTargetTriple();
  auto has = [&](llvm::StringRef name) { return hasFeature(sti, name); };
  bool softFloat = has("soft-float");
  if (triple.isX86()) {
    info.hardFloat = !softFloat;
    info.fma = info.hardFloat && has("fma");
    info.avx2 = has("avx2");
    info.avx512Vnni = has("avx512vnni");
    info.avxVnni = has("avxvnni");
  } else if (triple.isAArch64()) {
    info.hardFloat = has("fp-armv8");
    info.fma = info.hardFloat;
    info.neon = has("neon");
    info.dotProd = has("dotprod");
    info.i8mm = has("i8mm");
  } else if (triple.isARM() || triple.isThumb()) {
    info.hardFloat = !softFloat && has("fpregs");
    info.fma = info.hardFloat && has("vfp4d16sp");
    info.neon = info.hardFloat && has("neon");
    info.dotProd = info.neon && has("dotprod");
    info.dsp = has("dsp");
    info.mve = has("mve");
    info.mveFloat = info.hardFloat && has("mve.fp");
  }
  // SMLAD pairs the low and high halves of words: little-endian order.
  if (info.dsp && triple.isLittleEndian())
    info.int8Dot = lir::Int8Dot::ArmDsp;
  // zmm VPDPBUSD where the cost model uses 512-bit vectors (not where LLVM
  // prefers 256 bits, as on Skylake-AVX512's successors); its Convs of
  // fewer pixels take ymm VPDPBUSD (AVX512VL).
  else if (info.avx2 && info.avx512Vnni && has("avx512vl") && info.vectorLanes == 16)
    info.int8Dot = lir::Int8Dot::Vnni512;
  else if (info.avx2 && (info.avxVnni || (info.avx512Vnni && has("avx512vl"))))
    info.int8Dot = lir::Int8Dot::Vnni;
  else if (info.avx2)
    info.int8Dot = lir::Int8Dot::Pmaddwd;
  // SMMLA's Convs with fewer pixels than its block take SDOT (every core
  // with i8mm, Armv8.6 on, has dotprod too). All three read a broadcast
  // word as its int8 or int16 lanes, in little-endian order.
  else if (triple.isAArch64() && triple.isLittleEndian() && info.dotProd && info.i8mm)
    info.int8Dot = lir::Int8Dot::Smmla;
  else if (triple.isAArch64() && triple.isLittleEndian() && info.dotProd)
    info.int8Dot = lir::Int8Dot::Sdot;
  else if (triple.isAArch64() && triple.isLittleEndian() && info.neon)
    info.int8Dot = lir::Int8Dot::Smlal;
}

} // namespace

llvm::Expected<ResolvedTarget> resolveTarget(const TargetOptions &opts) {
  ResolvedTarget target;
  auto tm = createTargetMachine(opts, target.info);
  if (!tm)
    return tm.takeError();
  target.machine = std::move(*tm);
  codegen::VectorInfo vec = targetVectorInfo(*target.machine);
  target.info.vectorLanes = vec.lanes;
  target.info.vectorRegisters = vec.registers;
  readCapabilities(*target.machine, target.info);
  return std::move(target);
}

} // namespace kiln

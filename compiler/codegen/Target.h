//===- Target.h - Code generation target selection -------------*- C++ -*-===//
#ifndef KILN_CODEGEN_TARGET_H
#define KILN_CODEGEN_TARGET_H

#include "compiler/lir/KernelStrategy.h"

#include "llvm/Support/Error.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>
#include <string>

namespace kiln {

enum class FloatABIKind { Default, Soft, SoftFP, Hard };
enum class RelocModelKind { Default, Static, PIC };

/// What to generate code for. Empty fields take the defaults: the host triple,
/// and for the host the host CPU and its features; PIC relocation on hosted
/// targets, static on bare metal.
struct TargetOptions {
  std::string triple;
  std::string cpu;
  std::string features;
  FloatABIKind floatABI = FloatABIKind::Default;
  RelocModelKind relocModel = RelocModelKind::Default;
};

/// The build machine's CPU where resolveTarget detects it for `opts` (the
/// host target and no CPU given), or nullopt. Such a bundle may not run on
/// another machine, so the CLI says so.
std::optional<std::string> detectedHostCPU(const TargetOptions &opts);

std::optional<FloatABIKind> parseFloatABI(llvm::StringRef s);
std::optional<RelocModelKind> parseRelocModel(llvm::StringRef s);

/// The target of one compile with every default resolved, and what the
/// back end's choices depend on, read once from LLVM's description of the
/// CPU and features so that no later stage detects or guesses again.
struct TargetInfo {
  /// Normalized (Triple::normalize), as the object records it.
  std::string triple;
  /// The host CPU when the target is the host and none was given; "generic"
  /// for another target without one.
  std::string cpu;
  /// The feature string the TargetMachine was created with (the host's
  /// features, sorted, when the CPU was the detected host CPU).
  std::string features;
  /// f32 lanes of the widest vector registers the kernels use, from the
  /// target's cost model (1 on a scalar core such as Cortex-M): what
  /// lir::LIROptions::vectorLanes wants, so that the LIR's choices and the
  /// kernels agree.
  unsigned vectorLanes = 1;
  /// Registers that hold a register tile's accumulators and operands: the
  /// vector registers, or on a scalar core 8 of its general ones
  /// (lir::LIROptions::vectorRegisters).
  unsigned vectorRegisters = 8;
  /// f32 arithmetic in FPU instructions: the core has an FPU and the float
  /// ABI is not "soft" (softfp still uses it).
  bool hardFloat = false;
  /// Fused f32 multiply-add instructions (x86 FMA3, AArch64 FP, Arm VFPv4).
  bool fma = false;
  /// Arm Advanced SIMD (AArch64, or A-profile 32-bit Arm).
  bool neon = false;
  /// Arm SDOT/UDOT: int8 dot products into i32 lanes.
  bool dotProd = false;
  /// AArch64 SMMLA (+i8mm): int8 2x8 by 8x2 matrix products into 2x2 i32.
  bool i8mm = false;
  /// Arm M-profile DSP extension (Cortex-M4/M7/M33...): SIMD in general
  /// registers, such as SMLAD.
  bool dsp = false;
  /// Arm M-profile Vector Extension (Helium), integer; mveFloat adds f32.
  bool mve = false, mveFloat = false;
  /// x86 AVX2: 256-bit integer vectors (VPMADDWD).
  bool avx2 = false;
  /// x86 int8 dot products: AVX-512 VNNI (zmm) and AVX-VNNI (VEX, ymm).
  bool avx512Vnni = false, avxVnni = false;
  /// The int8 kernels' multiply-add instructions, decided here once from
  /// the features above and vectorLanes (lir::LIROptions::int8Dot takes it
  /// as it is).
  lir::Int8Dot int8Dot = lir::Int8Dot::Scalar;
};

/// A resolved target: its TargetInfo and the one TargetMachine of the
/// compile, which code generation (and the JIT) reuse rather than create
/// again.
struct ResolvedTarget {
  TargetInfo info;
  std::unique_ptr<llvm::TargetMachine> machine;
};

/// Resolves `opts`: detects the host CPU and features if needed (once),
/// creates the TargetMachine and reads the TargetInfo from it. An unknown
/// triple or CPU is an error.
llvm::Expected<ResolvedTarget> resolveTarget(const TargetOptions &opts);

} // namespace kiln

#endif

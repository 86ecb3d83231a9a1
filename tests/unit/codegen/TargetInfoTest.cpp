//===- TargetInfoTest.cpp - The resolved target and its capabilities ------===//
//
// resolveTarget for explicit triples and CPUs: the lanes the LIR is planned
// for and the capabilities read from LLVM's subtarget, which must follow the
// CPU (Cortex-M3 has no DSP extension, Cortex-M4 does) and the float ABI.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/Target.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

TargetInfo resolved(llvm::StringRef triple, llvm::StringRef cpu,
                    FloatABIKind floatABI = FloatABIKind::Default,
                    llvm::StringRef features = "") {
  TargetOptions opts;
  opts.triple = triple.str();
  opts.cpu = cpu.str();
  opts.features = features.str();
  opts.floatABI = floatABI;
  auto target = resolveTarget(opts);
  EXPECT_TRUE(static_cast<bool>(target)) << llvm::toString(target.takeError());
  EXPECT_NE(target->machine, nullptr);
  return target->info;
}

TEST(TargetInfoTest, X86Skylake512) {
  TargetInfo t = resolved("x86_64-linux-gnu", "skylake-avx512");
  EXPECT_EQ(t.triple, "x86_64-unknown-linux-gnu");
  EXPECT_EQ(t.cpu, "skylake-avx512");
  EXPECT_TRUE(t.hardFloat);
  EXPECT_TRUE(t.fma);
  EXPECT_FALSE(t.avx512Vnni);
  EXPECT_FALSE(t.avxVnni);
  EXPECT_EQ(t.int8Dot, lir::Int8Dot::Pmaddwd);
  EXPECT_FALSE(t.neon);
  // LLVM prefers 256-bit vectors on Skylake-AVX512 (frequency drops on zmm),
  // and the kernels follow the target's cost model; AVX-512's 32 registers
  // hold the tiles all the same.
  EXPECT_EQ(t.vectorLanes, 8u);
  EXPECT_EQ(t.vectorRegisters, 32u);
}

TEST(TargetInfoTest, X86CascadeLakeHasAvx512Vnni) {
  TargetInfo t = resolved("x86_64-linux-gnu", "cascadelake");
  EXPECT_TRUE(t.avx512Vnni);
  EXPECT_EQ(t.int8Dot, lir::Int8Dot::Vnni);
  EXPECT_EQ(t.vectorLanes, 8u);
}

/// Zen 4 and 5 run zmm at full speed, and LLVM's cost model uses it: zmm
/// VPDPBUSD.
TEST(TargetInfoTest, X86Zen5HasZmmVnni) {
  for (llvm::StringRef cpu : {"znver4", "znver5"}) {
    TargetInfo t = resolved("x86_64-linux-gnu", cpu);
    EXPECT_TRUE(t.avx512Vnni) << cpu.str();
    EXPECT_EQ(t.vectorLanes, 16u) << cpu.str();
    EXPECT_EQ(t.int8Dot, lir::Int8Dot::Vnni512) << cpu.str();
  }
}

TEST(TargetInfoTest, X86WithoutAvx2HasScalarInt8) {
  TargetInfo t = resolved("x86_64-linux-gnu", "x86-64-v2");
  EXPECT_FALSE(t.avx2);
  EXPECT_EQ(t.vectorLanes, 4u);
  EXPECT_EQ(t.vectorRegisters, 16u);
  EXPECT_EQ(t.int8Dot, lir::Int8Dot::Scalar);
}

TEST(TargetInfoTest, X86KnightsLandingUsesZmm) {
  TargetInfo t = resolved("x86_64-linux-gnu", "knl");
  EXPECT_TRUE(t.fma);
  EXPECT_FALSE(t.avx512Vnni);
  EXPECT_EQ(t.vectorLanes, 16u);
}

TEST(TargetInfoTest, X86AlderLakeHasAvxVnni) {
  TargetInfo t = resolved("x86_64-linux-gnu", "alderlake");
  EXPECT_TRUE(t.avxVnni);
  EXPECT_FALSE(t.avx512Vnni);
  EXPECT_EQ(t.int8Dot, lir::Int8Dot::Vnni);
  EXPECT_EQ(t.vectorLanes, 8u);
}

TEST(TargetInfoTest, AArch64CortexA76) {
  TargetInfo t = resolved("aarch64-linux-gnu", "cortex-a76");
  EXPECT_EQ(t.triple, "aarch64-unknown-linux-gnu");
  EXPECT_TRUE(t.neon);
  EXPECT_TRUE(t.dotProd);
  EXPECT_TRUE(t.fma);
  EXPECT_TRUE(t.hardFloat);
  EXPECT_FALSE(t.dsp);
  EXPECT_FALSE(t.i8mm);
  EXPECT_EQ(t.int8Dot, lir::Int8Dot::Sdot);
  EXPECT_EQ(t.vectorLanes, 4u);
  EXPECT_EQ(t.vectorRegisters, 32u);
}

TEST(TargetInfoTest, AArch64I8mmCoresTakeSmmla) {
  for (llvm::StringRef cpu : {"cortex-a710", "neoverse-v1"}) {
    TargetInfo t = resolved("aarch64-linux-gnu", cpu);
    EXPECT_TRUE(t.dotProd) << cpu.str();
    EXPECT_TRUE(t.i8mm) << cpu.str();
    EXPECT_EQ(t.int8Dot, lir::Int8Dot::Smmla) << cpu.str();
  }
}

TEST(TargetInfoTest, AArch64CortexA76WithI8mmTakesSmmla) {
  TargetInfo t = resolved("aarch64-linux-gnu", "cortex-a76", FloatABIKind::Default, "+i8mm");
  EXPECT_TRUE(t.i8mm);
  EXPECT_EQ(t.int8Dot, lir::Int8Dot::Smmla);
}

TEST(TargetInfoTest, AArch64GenericHasNoDotProd) {
  TargetInfo t = resolved("aarch64-linux-gnu", "");
  EXPECT_EQ(t.cpu, "generic");
  EXPECT_TRUE(t.neon);
  EXPECT_FALSE(t.dotProd);
  EXPECT_EQ(t.int8Dot, lir::Int8Dot::Smlal);
}

/// Armv8.0 cores (Raspberry Pi 3 and 4) multiply int8 with NEON's SMLAL;
/// without NEON, the portable kernels.
TEST(TargetInfoTest, AArch64WithoutDotProdTakesSmlal) {
  for (const char *cpu : {"cortex-a53", "cortex-a72"})
    EXPECT_EQ(resolved("aarch64-linux-gnu", cpu).int8Dot, lir::Int8Dot::Smlal) << cpu;
  TargetInfo t = resolved("aarch64-linux-gnu", "generic", FloatABIKind::Default, "-neon");
  EXPECT_FALSE(t.neon);
  EXPECT_EQ(t.int8Dot, lir::Int8Dot::Scalar);
}

/// Big-endian AArch64 has the same instructions, but SDOT's, SMMLA's and
/// SMLAL's kernels read a broadcast word as lanes in little-endian order.
TEST(TargetInfoTest, BigEndianAArch64TakesScalarInt8) {
  TargetInfo t = resolved("aarch64_be-linux-gnu", "cortex-a76", FloatABIKind::Default, "+i8mm");
  EXPECT_TRUE(t.dotProd);
  EXPECT_EQ(t.int8Dot, lir::Int8Dot::Scalar);
  EXPECT_EQ(resolved("aarch64_be-linux-gnu", "generic").int8Dot, lir::Int8Dot::Scalar);
}

TEST(TargetInfoTest, CortexM4) {
  TargetInfo t = resolved("thumbv7em-none-eabihf", "cortex-m4", FloatABIKind::Hard);
  EXPECT_EQ(t.triple, "thumbv7em-unknown-none-eabihf");
  EXPECT_TRUE(t.dsp);
  EXPECT_EQ(t.int8Dot, lir::Int8Dot::ArmDsp);
  EXPECT_TRUE(t.hardFloat);
  EXPECT_TRUE(t.fma);
  EXPECT_FALSE(t.neon);
  EXPECT_FALSE(t.mve);
  EXPECT_EQ(t.vectorLanes, 1u);
  EXPECT_EQ(t.vectorRegisters, 8u);
}

TEST(TargetInfoTest, CortexM4SoftFloatHasNoFPU) {
  TargetInfo t = resolved("thumbv7em-none-eabi", "cortex-m4", FloatABIKind::Soft);
  EXPECT_TRUE(t.dsp);
  EXPECT_FALSE(t.hardFloat);
  EXPECT_FALSE(t.fma);
}

TEST(TargetInfoTest, CortexM3HasNoDsp) {
  TargetInfo t = resolved("thumbv7m-none-eabi", "cortex-m3");
  EXPECT_FALSE(t.dsp);
  EXPECT_EQ(t.int8Dot, lir::Int8Dot::Scalar);
  EXPECT_FALSE(t.hardFloat);
  EXPECT_FALSE(t.fma);
  EXPECT_EQ(t.vectorLanes, 1u);
}

TEST(TargetInfoTest, CortexM55HasHelium) {
  TargetInfo t = resolved("thumbv8.1m.main-none-eabihf", "cortex-m55", FloatABIKind::Hard);
  EXPECT_TRUE(t.dsp);
  EXPECT_TRUE(t.mve);
  EXPECT_TRUE(t.mveFloat);
  EXPECT_FALSE(t.neon);
}

TEST(TargetInfoTest, UnknownCpuIsAnError) {
  TargetOptions opts;
  opts.triple = "aarch64-linux-gnu";
  opts.cpu = "no-such-cpu";
  auto target = resolveTarget(opts);
  ASSERT_FALSE(static_cast<bool>(target));
  EXPECT_NE(llvm::toString(target.takeError()).find("unknown CPU 'no-such-cpu'"),
            std::string::npos);
}

} // namespace
} // namespace kiln

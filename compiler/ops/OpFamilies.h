//===- OpFamilies.h - Per-family op registration ---------------*- C++ -*-===//
//
// Each *Ops.cpp file describes one family of ops and appends its OpDefs here.
// Registration is explicit (no static initializers), so the table's order and
// contents are deterministic.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_OPS_OPFAMILIES_H
#define KILN_OPS_OPFAMILIES_H

#include "compiler/graph/OpDef.h"

#include <vector>

namespace kiln {
void registerConvOps(std::vector<OpDef> &defs);
void registerMatMulOps(std::vector<OpDef> &defs);
void registerElementwiseOps(std::vector<OpDef> &defs);
void registerActivationOps(std::vector<OpDef> &defs);
void registerPoolOps(std::vector<OpDef> &defs);
void registerNormOps(std::vector<OpDef> &defs);
void registerShapeOps(std::vector<OpDef> &defs);
void registerMathOps(std::vector<OpDef> &defs);
void registerBroadcastOps(std::vector<OpDef> &defs);
void registerReduceOps(std::vector<OpDef> &defs);
void registerMovementOps(std::vector<OpDef> &defs);
void registerIndexOps(std::vector<OpDef> &defs);
void registerTopKOps(std::vector<OpDef> &defs);
void registerGeneratorOps(std::vector<OpDef> &defs);
void registerLossOps(std::vector<OpDef> &defs);
void registerResizeOps(std::vector<OpDef> &defs);
void registerRoiAlignOps(std::vector<OpDef> &defs);
void registerQuantOps(std::vector<OpDef> &defs);
void registerRecurrentOps(std::vector<OpDef> &defs);
void registerScanOps(std::vector<OpDef> &defs);
} // namespace kiln

#endif

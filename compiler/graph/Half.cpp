//===- Half.cpp - IEEE half floats ----------------------------------------===//

#include "compiler/graph/Half.h"

#include "llvm/ADT/APFloat.h"

namespace kiln {

float halfToFloat(uint16_t h) {
  llvm::APFloat f(llvm::APFloat::IEEEhalf(), llvm::APInt(16, h));
  bool losesInfo;
  f.convert(llvm::APFloat::IEEEsingle(), llvm::APFloat::rmNearestTiesToEven,
            &losesInfo);
  return f.convertToFloat();
}

uint16_t floatToHalf(float v) {
  llvm::APFloat f(v);
  bool losesInfo;
  f.convert(llvm::APFloat::IEEEhalf(), llvm::APFloat::rmNearestTiesToEven,
            &losesInfo);
  return static_cast<uint16_t>(f.bitcastToAPInt().getZExtValue());
}

} // namespace kiln

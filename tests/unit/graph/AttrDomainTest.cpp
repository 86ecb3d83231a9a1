// addNode rejects attribute values outside their AttrDomain (OpDef.h): ONNX
// flags other than 0 and 1, and NaN or infinite floats, naming the node.

#include "compiler/graph/Graph.h"

#include <gtest/gtest.h>

#include <limits>

namespace kiln {
namespace {

TensorType f32(llvm::ArrayRef<int64_t> shape) { return TensorType(DType::F32, shape); }

/// The error addNode gives, or "" when it accepts the node.
std::string addError(OpKind kind, AttrMap attrs) {
  Graph g;
  Value *a = g.addInput("a", f32({2, 3}));
  Value *b = g.addInput("b", f32({3, 2}));
  std::vector<Value *> inputs{a, b};
  if (kind == OpKind::MaxPool)
    inputs = {g.addInput("x", f32({1, 1, 4, 4}))};
  auto n = g.addNode(kind, "node", inputs, std::move(attrs));
  return n ? "" : llvm::toString(n.takeError());
}

TEST(AttrDomain, FlagsAreZeroOrOne) {
  EXPECT_EQ(addError(OpKind::Gemm, {{"transA", Attr::ofInt(1)}, {"transB", Attr::ofInt(1)}}), "");
  EXPECT_NE(addError(OpKind::Gemm, {{"transA", Attr::ofInt(2)}})
                .find("node 'node' (Gemm): attribute 'transA' must be 0 or 1, got 2"),
            std::string::npos);
  EXPECT_NE(addError(OpKind::Gemm, {{"transB", Attr::ofInt(INT64_MIN)}}).find("'transB' must be 0 or 1"),
            std::string::npos);
  EXPECT_NE(addError(OpKind::MaxPool, {{"kernel_shape", Attr::ofInts({2, 2})},
                                       {"ceil_mode", Attr::ofInt(7)}})
                .find("attribute 'ceil_mode' must be 0 or 1, got 7"),
            std::string::npos);
}

TEST(AttrDomain, FloatsAreFinite) {
  EXPECT_NE(addError(OpKind::Gemm, {{"alpha", Attr::ofFloat(std::numeric_limits<float>::quiet_NaN())}})
                .find("attribute 'alpha' must be finite, got nan"),
            std::string::npos);
  EXPECT_NE(addError(OpKind::Gemm,
                     {{"beta", Attr::ofFloat(std::numeric_limits<float>::infinity())}})
                .find("attribute 'beta' must be finite"),
            std::string::npos);
}

} // namespace
} // namespace kiln

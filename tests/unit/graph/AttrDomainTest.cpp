// addNode rejects attribute values outside their AttrDomain (OpDef.h): ONNX
// flags other than 0 and 1, ints out of range, NaN or infinite floats and
// strings outside an enum, naming the node and the op.

#include "compiler/graph/Graph.h"

#include <gtest/gtest.h>

#include <cmath>
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
  if (kind == OpKind::MaxPool || kind == OpKind::LRN || kind == OpKind::Clip)
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

TEST(AttrDomain, ClipBoundsMayBeInfiniteButNotNaN) {
  float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(addError(OpKind::Clip, {{"min", Attr::ofFloat(-inf)}, {"max", Attr::ofFloat(6)}}), "");
  EXPECT_NE(addError(OpKind::Clip, {{"max", Attr::ofFloat(std::numeric_limits<float>::quiet_NaN())}})
                .find("node 'node' (Clip): attribute 'max' must be a number, got nan"),
            std::string::npos);
}

TEST(AttrDomain, IntsAreInRange) {
  EXPECT_EQ(addError(OpKind::LRN, {{"size", Attr::ofInt(3)}}), "");
  EXPECT_NE(addError(OpKind::LRN, {{"size", Attr::ofInt(0)}})
                .find("node 'node' (LRN): attribute 'size' must be in [1, 9223372036854775807], "
                      "got 0"),
            std::string::npos);
}

TEST(AttrDomain, StringsAreAmongTheEnum) {
  std::string err = addError(OpKind::MaxPool, {{"kernel_shape", Attr::ofInts({2, 2})},
                                               {"auto_pad", Attr::ofString("same_upper")}});
  EXPECT_NE(err.find("node 'node' (MaxPool): attribute 'auto_pad' must be one of \"NOTSET\", "
                     "\"VALID\", \"SAME_UPPER\", \"SAME_LOWER\", got \"same_upper\""),
            std::string::npos)
      << err;
  EXPECT_EQ(addError(OpKind::MaxPool, {{"kernel_shape", Attr::ofInts({2, 2})},
                                       {"auto_pad", Attr::ofString("SAME_UPPER")}}),
            "");
}

/// Every declared domain admits the attribute's default: a record cannot
/// reject the nodes it builds itself.
TEST(AttrDomain, DefaultsAreInTheirDomains) {
  for (const OpDef *def : allOpDefs())
    for (const AttrSpec &spec : def->attrs) {
      if (!spec.defaultValue)
        continue;
      const Attr &v = *spec.defaultValue;
      const AttrDomain &d = spec.domain;
      switch (d.kind) {
      case AttrDomain::Kind::Any:
        break;
      case AttrDomain::Kind::IntRange:
        EXPECT_TRUE(v.getInt() >= d.min && v.getInt() <= d.max) << def->name << "." << spec.name;
        break;
      case AttrDomain::Kind::NotNaN:
      case AttrDomain::Kind::Finite:
        EXPECT_TRUE(std::isfinite(v.getFloat())) << def->name << "." << spec.name;
        break;
      case AttrDomain::Kind::OneOf:
        EXPECT_TRUE(llvm::is_contained(d.strings, v.getString())) << def->name << "." << spec.name;
        break;
      }
    }
}

} // namespace
} // namespace kiln

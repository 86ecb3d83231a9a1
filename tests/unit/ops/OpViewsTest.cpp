//===- OpViewsTest.cpp - Every view of OpViews.def agrees with the records -===//
//
// A view reads by the names and kinds OpViews.def gives; these tests check
// each against the OpDef of each op the view covers, so a renamed, retyped or
// removed attribute, or an operand the op may lack, fails here and not in a
// compiled model.
//
//===----------------------------------------------------------------------===//
#include "compiler/graph/Graph.h"
#include "compiler/graph/OpDef.h"
#include "compiler/ops/OpViews.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace kiln {
namespace {

enum class ItemKind { Operand, OptionalOperand, Attr, OptionalAttr, IntsAttr };

struct Item {
  ItemKind what;
  const char *name;
  unsigned index;
  const char *key;
  AttrKind kind;
};

struct ViewEntry {
  const char *name;
  std::vector<OpKind> kinds;
  std::vector<Item> items;
};

const std::vector<ViewEntry> &views() {
  static const std::vector<ViewEntry> table = {
#define KILN_VIEW(Name, ...) {#Name, {__VA_ARGS__}, {
#define KILN_OPERAND(name, index)                                              \
  {ItemKind::Operand, #name, index, nullptr, AttrKind::Int},
#define KILN_OPTIONAL_OPERAND(name, index)                                     \
  {ItemKind::OptionalOperand, #name, index, nullptr, AttrKind::Int},
#define KILN_ATTR(name, key, Kind)                                             \
  {ItemKind::Attr, #name, 0, key, AttrKind::Kind},
#define KILN_OPTIONAL_ATTR(name, key, Kind)                                    \
  {ItemKind::OptionalAttr, #name, 0, key, AttrKind::Kind},
#define KILN_INTS_ATTR(name, key, dflt)                                        \
  {ItemKind::IntsAttr, #name, 0, key, AttrKind::Ints},
#define KILN_END_VIEW(Name)                                                    \
  }                                                                            \
  }                                                                            \
  ,
#include "compiler/ops/OpViews.def"
  };
  return table;
}

TEST(OpViews, EveryItemMatchesEachOpsRecord) {
  ASSERT_FALSE(views().empty());
  for (const ViewEntry &v : views()) {
    SCOPED_TRACE(std::string(v.name) + "View");
    ASSERT_FALSE(v.kinds.empty());
    std::set<std::string> names;
    for (const Item &item : v.items) {
      SCOPED_TRACE(item.name);
      EXPECT_TRUE(names.insert(item.name).second) << "named twice";
      unsigned opsWithAttr = 0;
      for (OpKind k : v.kinds) {
        const OpDef &def = getOpDef(k);
        SCOPED_TRACE(def.name);
        switch (item.what) {
        case ItemKind::Operand:
          EXPECT_LT(item.index, def.minInputs) << "the op may lack this operand";
          continue;
        case ItemKind::OptionalOperand:
          EXPECT_LT(item.index, def.maxInputs) << "the op has no such operand";
          EXPECT_GE(item.index, def.minInputs)
              << "always present: KILN_OPERAND, not optional";
          continue;
        default:
          break;
        }
        const AttrSpec *spec = def.findAttr(item.key);
        if (!spec) {
          EXPECT_EQ(item.what, ItemKind::IntsAttr)
              << "the op has no attribute " << item.key;
          continue;
        }
        ++opsWithAttr;
        EXPECT_EQ(spec->kind, item.kind) << item.key << " is of another kind";
        bool alwaysPresent = spec->defaultValue || spec->required;
        if (item.what == ItemKind::Attr) {
          EXPECT_TRUE(alwaysPresent)
              << item.key << " may be absent: KILN_OPTIONAL_ATTR";
        }
      }
      if (item.what == ItemKind::IntsAttr) {
        EXPECT_GT(opsWithAttr, 0u) << "no op of the view has " << item.key;
      }
    }
  }
}

TEST(OpViews, AViewReadsItsNode) {
  Graph g;
  Value *x = g.addInput("x", TensorType(DType::F32, {1, 2, 5, 5}));
  Tensor w(TensorType(DType::F32, {4, 1, 3, 3}));
  Value *wv = g.addConstant("w", std::move(w));
  auto conv = g.addNode(OpKind::Conv, "conv", {x, wv},
                        {{"group", Attr::ofInt(2)},
                         {"strides", Attr::ofInts({2, 1})},
                         {"pads", Attr::ofInts({1, 0, 1, 0})}});
  ASSERT_TRUE(bool(conv)) << llvm::toString(conv.takeError());
  ConvView v(**conv);
  EXPECT_EQ(v.input(), x);
  EXPECT_EQ(v.weights(), wv);
  EXPECT_EQ(v.bias(), nullptr);
  EXPECT_EQ(v.group(), 2);
  EXPECT_EQ(v.autoPad(), "NOTSET");
  EXPECT_EQ(v.strides(0), 2);
  EXPECT_EQ(v.strides(1), 1);
  EXPECT_EQ(v.dilations(1), 1) << "absent: the default";
  EXPECT_EQ(v.pads(2), 1);
  EXPECT_TRUE(v.dilations().empty());
  EXPECT_TRUE(v.activation().isNone());
  EXPECT_TRUE(WindowView::accepts(**conv));
  EXPECT_FALSE(PoolView::accepts(**conv));

  auto pool = g.addNode(OpKind::MaxPool, "pool", {(*conv)->getOutput()},
                        {{"kernel_shape", Attr::ofInts({2, 2})}});
  ASSERT_TRUE(bool(pool)) << llvm::toString(pool.takeError());
  EXPECT_EQ(PoolView(**pool).kernelShape(), llvm::ArrayRef<int64_t>({2, 2}));
  EXPECT_EQ(WindowView(**pool).kernelShape(1), 2);
  EXPECT_EQ(WindowView(**pool).autoPad(), "NOTSET");
  EXPECT_FALSE(WindowView(**pool).stridesIfGiven().has_value());

  auto reduce = g.addNode(OpKind::ReduceSum, "sum", {(*pool)->getOutput()});
  ASSERT_TRUE(bool(reduce)) << llvm::toString(reduce.takeError());
  EXPECT_FALSE(ReduceView(**reduce).axes().has_value());
  EXPECT_EQ(ReduceView(**reduce).keepdims(), 1);
}

/// A misread view is a bug: it stops the compiler in every build (these
/// tests run -c opt, with NDEBUG), where an assert would read garbage.
TEST(OpViewsDeathTest, AMisreadIsFatalInReleaseBuilds) {
  Graph g;
  Value *x = g.addInput("x", TensorType(DType::F32, {1, 2, 5, 5}));
  Tensor w(TensorType(DType::F32, {2, 2, 3, 3}));
  Value *wv = g.addConstant("w", std::move(w));
  auto conv = g.addNode(OpKind::Conv, "conv", {x, wv});
  ASSERT_TRUE(bool(conv)) << llvm::toString(conv.takeError());
  EXPECT_DEATH(PoolView{**conv}, "Conv node 'conv': not an op of PoolView");
  (*conv)->removeAttr("group");
  EXPECT_DEATH(ConvView(**conv).group(),
               "Conv node 'conv': attribute 'group' missing");
  (*conv)->setAttr("auto_pad", Attr::ofInt(0));
  EXPECT_DEATH(ConvView(**conv).autoPad(),
               "attribute 'auto_pad' missing or of another kind");
  (*conv)->setInput(1, nullptr);
  EXPECT_DEATH(ConvView(**conv).weights(), "required operand weights absent");
}

} // namespace
} // namespace kiln

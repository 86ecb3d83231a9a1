//===- OpRegistryTest.cpp - The op table is complete and consistent --------===//

#include "compiler/graph/OpDef.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace kiln {
namespace {

const char *const kOpNames[] = {
#define KILN_OP(Name) #Name,
#include "compiler/graph/OpKinds.def"
};

TEST(OpRegistry, EveryKindHasItsDefInOrder) {
  llvm::ArrayRef<const OpDef *> defs = allOpDefs();
  ASSERT_EQ(defs.size(), std::size(kOpNames));
  for (size_t k = 0; k < defs.size(); ++k) {
    OpKind kind = static_cast<OpKind>(k);
    EXPECT_EQ(defs[k], &getOpDef(kind)) << kOpNames[k];
    EXPECT_EQ(defs[k]->kind, kind) << kOpNames[k];
    // An ONNX op is named as in ONNX; a kiln-internal one (TFLite's
    // QUANTIZE) has a "kiln." prefix, which no ONNX op type has.
    std::string name = defs[k]->name;
    EXPECT_TRUE(name == kOpNames[k] || name == std::string("kiln.") + kOpNames[k])
        << name;
  }
}

TEST(OpRegistry, NamesAreUniqueAndLookupRoundTrips) {
  std::set<std::string> seen;
  for (const OpDef *d : allOpDefs()) {
    EXPECT_TRUE(seen.insert(d->name).second) << "duplicate " << d->name;
    EXPECT_EQ(lookupOpDef(d->name), d) << d->name;
  }
  EXPECT_EQ(lookupOpDef("NoSuchOp"), nullptr);
  EXPECT_EQ(lookupOpDef("conv"), nullptr) << "lookup is case-sensitive";
}

TEST(OpRegistry, DefsAreWellFormed) {
  for (const OpDef *d : allOpDefs()) {
    SCOPED_TRACE(d->name);
    EXPECT_NE(d->infer, nullptr);
    EXPECT_NE(d->eval, nullptr);
    EXPECT_LE(d->minInputs, d->maxInputs);
    // Only generators whose shape the importer folds into attributes
    // (ConstantOfShape, Range, the window functions) take no inputs.
    if (d->minInputs == 0) {
      EXPECT_TRUE(llvm::StringRef(d->name) == "ConstantOfShape" ||
                  llvm::StringRef(d->name) == "Range" ||
                  llvm::StringRef(d->name).ends_with("Window"))
          << d->name;
    }
    EXPECT_LE(d->minOutputs, d->maxOutputs);
    EXPECT_GE(d->minOutputs, 1u);
    std::set<std::string> attrNames;
    for (const AttrSpec &a : d->attrs) {
      EXPECT_TRUE(attrNames.insert(a.name).second) << "duplicate " << a.name;
      EXPECT_EQ(d->findAttr(a.name), &a);
      if (a.defaultValue) {
        EXPECT_EQ(a.defaultValue->getKind(), a.kind) << a.name;
        EXPECT_FALSE(a.required) << a.name << " has a default and is required";
      }
    }
    EXPECT_EQ(d->findAttr("no_such_attr"), nullptr);
  }
}

/// Spot checks of the attribute contract other stages rely on.
TEST(OpRegistry, AttributeDefaultsFollowOnnx) {
  const OpDef &conv = getOpDef(OpKind::Conv);
  ASSERT_NE(conv.findAttr("auto_pad"), nullptr);
  EXPECT_EQ(conv.findAttr("auto_pad")->defaultValue->getString(), "NOTSET");
  EXPECT_EQ(conv.findAttr("group")->defaultValue->getInt(), 1);
  EXPECT_FALSE(conv.findAttr("kernel_shape")->defaultValue.has_value());
  EXPECT_FALSE(conv.findAttr("kernel_shape")->required);
  EXPECT_TRUE(
      conv.findAttr("kiln.activation")->defaultValue->getActivation().isNone());
  EXPECT_NE(getOpDef(OpKind::MatMul).findAttr("kiln.activation"), nullptr);
  EXPECT_EQ(getOpDef(OpKind::MatMul).maxInputs, 3u);
  EXPECT_TRUE(getOpDef(OpKind::MaxPool).findAttr("kernel_shape")->required);
  EXPECT_TRUE(getOpDef(OpKind::Pad).findAttr("pads")->required);
  EXPECT_EQ(getOpDef(OpKind::Pad).findAttr("mode")->defaultValue->getString(),
            "constant");
  EXPECT_TRUE(getOpDef(OpKind::Reshape).findAttr("shape")->required);
  EXPECT_TRUE(getOpDef(OpKind::Unsqueeze).findAttr("axes")->required);
  EXPECT_FALSE(getOpDef(OpKind::Squeeze).findAttr("axes")->required);
  EXPECT_EQ(getOpDef(OpKind::Softmax).findAttr("axis")->defaultValue->getInt(),
            -1);
  EXPECT_FLOAT_EQ(
      getOpDef(OpKind::Clip).findAttr("min")->defaultValue->getFloat(),
      -3.4028234663852886e38f);
  EXPECT_FLOAT_EQ(
      getOpDef(OpKind::Clip).findAttr("max")->defaultValue->getFloat(),
      3.4028234663852886e38f);
  EXPECT_FLOAT_EQ(getOpDef(OpKind::BatchNormalization)
                      .findAttr("epsilon")
                      ->defaultValue->getFloat(),
                  1e-5f);
  EXPECT_TRUE(getOpDef(OpKind::Cast).findAttr("to")->required);
  EXPECT_EQ(getOpDef(OpKind::Dropout).maxOutputs, 2u);
}

} // namespace
} // namespace kiln

// The activation records against independent definitions: each formula of
// compiler/ops/Activations.def, as the interpreter evaluates it, is compared
// with the function written here from ONNX's operator documentation.
#include "compiler/graph/Graph.h"
#include "compiler/ops/ActivationFormula.h"
#include "compiler/ops/ActivationOps.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>

using namespace kiln;

namespace {

/// ONNX's definitions, in long double, with the records' default params.
const std::map<std::string, std::function<long double(long double)>> &
onnxDefinitions() {
  using L = long double;
  static const std::map<std::string, std::function<L(L)>> defs = {
      {"Relu", [](L x) { return x > 0 ? x : 0; }},
      {"LeakyRelu", [](L x) { return x >= 0 ? x : 0.01L * x; }},
      {"Clip", [](L x) { return x; }},
      {"Sigmoid", [](L x) { return 1 / (1 + std::exp(-x)); }},
      {"Tanh", [](L x) { return std::tanh(x); }},
      {"Abs", [](L x) { return std::fabs(x); }},
      {"Neg", [](L x) { return -x; }},
      {"Sign", [](L x) { return L(x > 0) - L(x < 0); }},
      {"Exp", [](L x) { return std::exp(x); }},
      {"Log", [](L x) { return std::log(x); }},
      {"Sqrt", [](L x) { return std::sqrt(x); }},
      {"Reciprocal", [](L x) { return 1 / x; }},
      {"Floor", [](L x) { return std::floor(x); }},
      {"Ceil", [](L x) { return std::ceil(x); }},
      {"Round", [](L x) { return std::nearbyint(x); }},
      {"Erf", [](L x) { return std::erf(x); }},
      {"Sin", [](L x) { return std::sin(x); }},
      {"Cos", [](L x) { return std::cos(x); }},
      {"Tan", [](L x) { return std::tan(x); }},
      {"Asin", [](L x) { return std::asin(x); }},
      {"Acos", [](L x) { return std::acos(x); }},
      {"Atan", [](L x) { return std::atan(x); }},
      {"Sinh", [](L x) { return std::sinh(x); }},
      {"Cosh", [](L x) { return std::cosh(x); }},
      {"Asinh", [](L x) { return std::asinh(x); }},
      {"Acosh", [](L x) { return std::acosh(x); }},
      {"Atanh", [](L x) { return std::atanh(x); }},
      {"Softplus", [](L x) { return std::log(1 + std::exp(x)); }},
      {"Softsign", [](L x) { return x / (1 + std::fabs(x)); }},
      {"Elu", [](L x) { return x < 0 ? std::exp(x) - 1 : x; }},
      {"Selu",
       [](L x) {
         L alpha = 1.67326319217681884765625L, gamma = 1.05070102214813232421875L;
         return x > 0 ? gamma * x : gamma * (alpha * std::exp(x) - alpha);
       }},
      {"Celu",
       [](L x) { return std::max<L>(0, x) + std::min<L>(0, std::exp(x) - 1); }},
      {"HardSigmoid",
       [](L x) { return std::max<L>(0, std::min<L>(1, 0.2L * x + 0.5L)); }},
      {"HardSwish",
       [](L x) { return x * std::max<L>(0, std::min<L>(1, x / 6 + 0.5L)); }},
      {"ThresholdedRelu", [](L x) { return x > 1 ? x : 0; }},
      {"Shrink",
       [](L x) { return x < -0.5L ? x : x > 0.5L ? x : 0; }},
      {"Mish", [](L x) { return x * std::tanh(std::log1p(std::exp(x))); }},
      {"SiLU", [](L x) { return x / (1 + std::exp(-x)); }},
      {"Gelu", [](L x) { return x / 2 * (1 + std::erf(x / std::sqrt(2.0L))); }},
      {"GeluTanh",
       [](L x) {
         return x / 2 * (1 + std::tanh(std::sqrt(2 / 3.14159265358979323846L) *
                                       (x + 0.044715L * x * x * x)));
       }},
  };
  return defs;
}

std::vector<float> defaultParams(ActivationKind k) {
  std::vector<float> p;
  for (const ActivationParam &param : activationParams(k))
    p.push_back(param.defaultValue);
  return p;
}

} // namespace

TEST(Activations, EveryRecordMatchesOnnxDefinition) {
  const float points[] = {-30.0f, -6.5f, -3.0f, -1.0f, -0.5f, -0.25f, -1e-3f,
                          0.0f,   1e-3f, 0.3f,  0.5f,  0.75f, 1.0f,   2.5f,
                          6.0f,   7.5f,  30.0f};
  unsigned checked = 0;
  for (unsigned k = 1; k < kNumActivationKinds; ++k) {
    auto kind = static_cast<ActivationKind>(k);
    llvm::StringRef name = activationName(kind);
    EXPECT_EQ(activationByName(name), kind);
    auto def = onnxDefinitions().find(name.str());
    ASSERT_NE(def, onnxDefinitions().end())
        << "no independent definition for the record " << name.str();
    Activation a = *Activation::make(kind, defaultParams(kind));
    for (float x : points) {
      long double want = def->second(x);
      double got = applyActivation(a, x);
      if (std::isnan(want) || std::isinf(want)) {
        EXPECT_EQ(std::isnan(got), std::isnan(want)) << name.str() << "(" << x << ")";
        if (std::isinf(want))
          EXPECT_EQ(got, double(want)) << name.str() << "(" << x << ")";
        continue;
      }
      // The params are floats (0.01f, not 0.01): agreement to float precision.
      EXPECT_NEAR(got, double(want), 1e-6 * std::max(1.0L, std::fabs(want)))
          << name.str() << "(" << x << ")";
    }
    ++checked;
  }
  EXPECT_EQ(checked, onnxDefinitions().size());
}

TEST(Activations, ParamsFollowTheRecord) {
  Activation clip = *Activation::make(ActivationKind::Clip, {0.0f, 6.0f});
  EXPECT_EQ(applyActivation(clip, 7.0), 6.0);
  EXPECT_EQ(applyActivation(clip, -1.0), 0.0);
  // ONNX: with min > max every value becomes max.
  EXPECT_EQ(applyActivation(*Activation::make(ActivationKind::Clip, {2.0f, 1.0f}), 0.0),
            1.0);
  EXPECT_FLOAT_EQ(
      applyActivation(*Activation::make(ActivationKind::LeakyRelu, {0.1f}), -2.0),
      -0.2f);
  EXPECT_EQ(clip.str(), "Clip(0,6)");
  EXPECT_EQ(Activation().str(), "none");
  EXPECT_EQ(applyActivation(Activation(), -2.5), -2.5);
}

TEST(Activations, MakeRejectsWrongParamCounts) {
  EXPECT_FALSE(Activation::make(ActivationKind::Relu, {1.0f}));
  EXPECT_FALSE(Activation::make(ActivationKind::LeakyRelu, {}));
  EXPECT_FALSE(Activation::make(ActivationKind::Clip, {0.0f}));
  EXPECT_TRUE(Activation::make(ActivationKind::Clip, {-1.0f, 1.0f}));
  EXPECT_FALSE(activationByName("relu"));
  EXPECT_EQ(activationByName("HardSwish"), ActivationKind::HardSwish);
}

TEST(Activations, OpsTakeTheirRecordsAttributes) {
  // Every op record has an OpDef whose float attributes are its params, and
  // the fused-only SiLU has no op.
  const OpDef &selu = getOpDef(OpKind::Selu);
  ASSERT_NE(selu.findAttr("gamma"), nullptr);
  EXPECT_FLOAT_EQ(selu.findAttr("gamma")->defaultValue->getFloat(),
                  1.05070102214813232421875f);
  EXPECT_EQ(lookupOpDef("SiLU"), nullptr);
  EXPECT_EQ(activationKindOf(OpKind::HardSwish), ActivationKind::HardSwish);
  EXPECT_FALSE(activationKindOf(OpKind::Conv));
  EXPECT_FALSE(activationKindOf(OpKind::IsNaN));
}

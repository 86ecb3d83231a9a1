// The TFLite frontend on models written here with the flatbuffers builder:
// a valid one (imported and run against plain arithmetic), and each kind of
// bad input the importer must reject with a clear error rather than read.

#include "compiler/frontend/tflite/TFLiteImporter.h"
#include "compiler/frontend/tflite/TFLiteSchema_generated.h"
#include "compiler/interpreter/Interpreter.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace kiln {
namespace {

/// What to spoil in the model: a FULLY_CONNECTED [1,4] x [2,4]^T + [2].
struct Spoil {
  int32_t opCode = tflite::BuiltinOperator_FULLY_CONNECTED;
  std::string customCode;
  /// A second operator with this code, reading the first one's output.
  int32_t secondOpCode = -1;
  size_t weightBytes = 8 * 4;
  tflite::TensorType activationType = tflite::TensorType_FLOAT32;
  uint32_t opcodeIndex = 0;
  int32_t weightsTensor = 1;
  /// Per-channel int8 weights with this many scales (0: float weights).
  int weightScales = 0;
  /// The fused activation in the FULLY_CONNECTED options.
  int8_t fusedActivation = tflite::ActivationFunctionType_NONE;
  /// Pool2DOptions with this padding on the first op instead.
  std::optional<int8_t> poolPadding;
};

const float kWeights[8] = {1, 2, 3, 4, -1, 0.5f, 0, 2};
const float kBias[2] = {0.25f, -1};

std::string buildModel(const Spoil &s) {
  flatbuffers::FlatBufferBuilder b;
  auto floatBuffer = [&](const float *v, size_t bytes) {
    return tflite::CreateBuffer(
        b, b.CreateVector(reinterpret_cast<const uint8_t *>(v), bytes));
  };
  std::vector<int8_t> int8Weights = {1, 2, 3, 4, -1, 5, 0, 2};
  std::vector<flatbuffers::Offset<tflite::Buffer>> buffers = {
      tflite::CreateBuffer(b),
      s.weightScales ? tflite::CreateBuffer(
                           b, b.CreateVector(reinterpret_cast<const uint8_t *>(
                                                 int8Weights.data()),
                                             std::min<size_t>(8, s.weightBytes)))
                     : floatBuffer(kWeights, s.weightBytes),
      floatBuffer(kBias, sizeof kBias)};
  flatbuffers::Offset<tflite::QuantizationParameters> wq = 0;
  if (s.weightScales) {
    std::vector<float> scales(s.weightScales, 0.5f);
    std::vector<int64_t> zps(s.weightScales, 0);
    wq = tflite::CreateQuantizationParameters(b, 0, 0, b.CreateVector(scales),
                                              b.CreateVector(zps),
                                              tflite::QuantizationDetails_NONE,
                                              0, 0);
  }
  std::vector<flatbuffers::Offset<tflite::Tensor>> tensors = {
      tflite::CreateTensor(b, b.CreateVector(std::vector<int32_t>{1, 4}),
                           s.activationType, 0, b.CreateString("x")),
      tflite::CreateTensor(b, b.CreateVector(std::vector<int32_t>{2, 4}),
                           s.weightScales ? tflite::TensorType_INT8
                                          : tflite::TensorType_FLOAT32,
                           1, b.CreateString("w"), wq),
      tflite::CreateTensor(b, b.CreateVector(std::vector<int32_t>{2}),
                           tflite::TensorType_FLOAT32, 2, b.CreateString("b")),
      tflite::CreateTensor(b, b.CreateVector(std::vector<int32_t>{1, 2}),
                           s.activationType, 0, b.CreateString("y")),
      tflite::CreateTensor(b, b.CreateVector(std::vector<int32_t>{1, 2}),
                           s.activationType, 0, b.CreateString("z"))};
  std::vector<flatbuffers::Offset<tflite::OperatorCode>> codes = {
      tflite::CreateOperatorCode(
          b, int8_t(std::min(s.opCode, 127)),
          s.customCode.empty() ? 0 : b.CreateString(s.customCode), 1, s.opCode)};
  std::vector<flatbuffers::Offset<tflite::Operator>> ops = {tflite::CreateOperator(
      b, s.opcodeIndex, b.CreateVector(std::vector<int32_t>{0, s.weightsTensor, 2}),
      b.CreateVector(std::vector<int32_t>{3}),
      s.poolPadding ? tflite::BuiltinOptions_Pool2DOptions
                    : tflite::BuiltinOptions_FullyConnectedOptions,
      s.poolPadding
          ? tflite::CreatePool2DOptions(b, tflite::Padding(*s.poolPadding), 1, 1, 1, 1).Union()
          : tflite::CreateFullyConnectedOptions(
                b, tflite::ActivationFunctionType(s.fusedActivation))
                .Union())};
  int32_t output = 3;
  if (s.secondOpCode >= 0) {
    codes.push_back(tflite::CreateOperatorCode(
        b, int8_t(std::min(s.secondOpCode, 127)), 0, 1, s.secondOpCode));
    ops.push_back(tflite::CreateOperator(
        b, 1, b.CreateVector(std::vector<int32_t>{3}),
        b.CreateVector(std::vector<int32_t>{4})));
    output = 4;
  }
  auto graph = tflite::CreateSubGraph(
      b, b.CreateVector(tensors), b.CreateVector(std::vector<int32_t>{0}),
      b.CreateVector(std::vector<int32_t>{output}), b.CreateVector(ops));
  auto model = tflite::CreateModel(b, 3, b.CreateVector(codes),
                                   b.CreateVector(std::vector{graph}), 0,
                                   b.CreateVector(buffers));
  tflite::FinishModelBuffer(b, model);
  return std::string(reinterpret_cast<const char *>(b.GetBufferPointer()),
                     b.GetSize());
}

std::string importError(const std::string &bytes) {
  auto g = importTFLiteBuffer(bytes, "m", ResourceLimits());
  if (g)
    return "";
  return llvm::toString(g.takeError());
}

TEST(TFLiteImporter, ValidModelComputesTheFullyConnectedLayer) {
  std::string bytes = buildModel({});
  ASSERT_TRUE(isTFLiteModel(bytes));
  auto g = importTFLiteBuffer(bytes, "m", ResourceLimits());
  ASSERT_TRUE(static_cast<bool>(g)) << llvm::toString(g.takeError());
  Tensor x = Tensor::fromValues<float>(DType::F32, {1, 4}, {0.5f, -1, 2, 3});
  auto out = runGraph(**g, {x});
  ASSERT_TRUE(static_cast<bool>(out)) << llvm::toString(out.takeError());
  for (int o = 0; o < 2; ++o) {
    float want = kBias[o];
    for (int i = 0; i < 4; ++i)
      want += kWeights[o * 4 + i] * x.data<float>()[i];
    EXPECT_FLOAT_EQ((*out)[0].data<float>()[o], want) << o;
  }
}

TEST(TFLiteImporter, RejectsTruncatedFilesAndOtherFormats) {
  std::string bytes = buildModel({});
  for (size_t len : {size_t(0), size_t(4), size_t(7), bytes.size() / 2,
                     bytes.size() - 1}) {
    std::string cut = bytes.substr(0, len);
    EXPECT_NE(importError(cut), "") << len;
  }
  std::string other = bytes;
  other[4] = 'X';
  EXPECT_FALSE(isTFLiteModel(other));
  EXPECT_NE(importError(other).find("not a TFLite model"), std::string::npos);
  // Offsets pointing outside the file: the verifier, not a crash.
  std::string scrambled = bytes;
  for (size_t i = 8; i < scrambled.size(); i += 7)
    scrambled[i] = char(0xFF);
  EXPECT_NE(importError(scrambled), "");
}

TEST(TFLiteImporter, RejectsABufferShorterThanItsTensor) {
  Spoil s;
  s.weightBytes = 7 * 4;
  EXPECT_NE(importError(buildModel(s)).find("buffer holds 28 bytes"),
            std::string::npos)
      << importError(buildModel(s));
}

TEST(TFLiteImporter, ListsEveryUnsupportedOpAtOnce) {
  Spoil s;
  s.opCode = tflite::BuiltinOperator_CUSTOM;
  s.customCode = "MyOp";
  s.secondOpCode = tflite::BuiltinOperator_LSTM;
  std::string err = importError(buildModel(s));
  EXPECT_NE(err.find("unsupported ops"), std::string::npos) << err;
  EXPECT_NE(err.find("(CUSTOM MyOp): custom ops are not supported"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("node 'z' (LSTM)"), std::string::npos) << err;
  s.secondOpCode = 250; // newer than the schema kiln reads
  err = importError(buildModel(s));
  EXPECT_NE(err.find("(BUILTIN_250)"), std::string::npos) << err;
}

TEST(TFLiteImporter, RejectsInt16Activations) {
  Spoil s;
  s.activationType = tflite::TensorType_INT16;
  std::string err = importError(buildModel(s));
  EXPECT_NE(err.find("int16 activations are not supported"), std::string::npos)
      << err;
}

TEST(TFLiteImporter, RejectsIndicesOutOfRange) {
  Spoil s;
  s.opcodeIndex = 5;
  EXPECT_NE(importError(buildModel(s)).find("opcode index 5"), std::string::npos);
  s = {};
  s.weightsTensor = 99;
  EXPECT_NE(importError(buildModel(s)).find("refers to tensor 99"),
            std::string::npos);
}

// Enum options outside the schema's values are errors naming the node and the
// op, not read as a default.
TEST(TFLiteImporter, RejectsEnumOptionsOutsideTheSchema) {
  Spoil s;
  s.fusedActivation = 42;
  EXPECT_EQ(importError(buildModel(s)),
            "m: node 'y' (FULLY_CONNECTED): fused activation 42 is not a TFLite activation");
  s.fusedActivation = tflite::ActivationFunctionType_SIGN_BIT;
  EXPECT_EQ(importError(buildModel(s)),
            "m: node 'y' (FULLY_CONNECTED): fused activation SIGN_BIT is not supported");
  s = {};
  s.opCode = tflite::BuiltinOperator_AVERAGE_POOL_2D;
  s.poolPadding = 7;
  EXPECT_EQ(importError(buildModel(s)),
            "m: node 'y' (AVERAGE_POOL_2D): padding 7 is neither SAME nor VALID");
}

TEST(TFLiteImporter, RejectsInconsistentQuantization) {
  Spoil s;
  s.weightScales = 3; // 2 output channels
  std::string err = importError(buildModel(s));
  EXPECT_NE(err.find("3 per-channel scales for 2 channels"), std::string::npos)
      << err;
}

/// The model of one UNIDIRECTIONAL_SEQUENCE_LSTM (TANH, cell_clip `clip`)
/// over `tensors`, input in[0], output `out`, as bytes.
std::string finishLSTMModel(flatbuffers::FlatBufferBuilder &b,
                            const std::vector<flatbuffers::Offset<tflite::Tensor>> &tensors,
                            const std::vector<flatbuffers::Offset<tflite::Buffer>> &buffers,
                            const std::vector<int32_t> &in, int32_t out, float clip) {
  std::vector<flatbuffers::Offset<tflite::OperatorCode>> codes = {tflite::CreateOperatorCode(
      b, tflite::BuiltinOperator_UNIDIRECTIONAL_SEQUENCE_LSTM, 0, 1,
      tflite::BuiltinOperator_UNIDIRECTIONAL_SEQUENCE_LSTM)};
  std::vector<flatbuffers::Offset<tflite::Operator>> ops = {tflite::CreateOperator(
      b, 0, b.CreateVector(in), b.CreateVector(std::vector<int32_t>{out}),
      tflite::BuiltinOptions_UnidirectionalSequenceLSTMOptions,
      tflite::CreateUnidirectionalSequenceLSTMOptions(b, tflite::ActivationFunctionType_TANH, clip)
          .Union())};
  auto graph = tflite::CreateSubGraph(b, b.CreateVector(tensors),
                                      b.CreateVector(std::vector<int32_t>{in[0]}),
                                      b.CreateVector(std::vector<int32_t>{out}),
                                      b.CreateVector(ops));
  auto model = tflite::CreateModel(b, 3, b.CreateVector(codes),
                                   b.CreateVector(std::vector{graph}), 0, b.CreateVector(buffers));
  tflite::FinishModelBuffer(b, model);
  return std::string(reinterpret_cast<const char *>(b.GetBufferPointer()), b.GetSize());
}

/// A float UNIDIRECTIONAL_SEQUENCE_LSTM of one input feature and 2 cells
/// over 3 steps, its state in variable tensors without data, cell_clip
/// `clip`; each gate's weights distinct, so a gate taken for another shows.
std::string buildLSTM(float clip) {
  flatbuffers::FlatBufferBuilder b;
  const int64_t H = 2;
  std::vector<flatbuffers::Offset<tflite::Buffer>> buffers = {tflite::CreateBuffer(b)};
  std::vector<flatbuffers::Offset<tflite::Tensor>> tensors;
  auto tensor = [&](std::vector<int32_t> shape, const std::vector<float> *data,
                    bool variable = false) {
    uint32_t buffer = 0;
    if (data) {
      buffers.push_back(tflite::CreateBuffer(
          b, b.CreateVector(reinterpret_cast<const uint8_t *>(data->data()),
                            data->size() * sizeof(float))));
      buffer = buffers.size() - 1;
    }
    tensors.push_back(tflite::CreateTensor(b, b.CreateVector(shape), tflite::TensorType_FLOAT32,
                                           buffer, b.CreateString("t" + std::to_string(tensors.size())),
                                           0, variable));
    return int32_t(tensors.size() - 1);
  };
  // Element i of gate k's tensor of `kind` (input weights, recurrent
  // weights, bias); referenceLSTM computes the same values.
  auto gate = [&](int k, int kind, std::vector<int32_t> shape) {
    std::vector<float> v;
    int64_t n = 1;
    for (int32_t d : shape)
      n *= d;
    for (int64_t i = 0; i < n; ++i)
      v.push_back((i % 2 ? -0.3f : 0.2f) * float(k + 1) + 0.1f * float(kind) + 0.05f * float(i));
    return tensor(shape, &v);
  };
  std::vector<int32_t> in(24, -1);
  in[0] = tensor({1, 3, 1}, nullptr);
  for (int k = 0; k < 4; ++k) {
    in[1 + k] = gate(k, 0, {H, 1});
    in[5 + k] = gate(k, 1, {H, H});
    in[12 + k] = gate(k, 2, {H});
  }
  in[18] = tensor({1, H}, nullptr, true);
  in[19] = tensor({1, H}, nullptr, true);
  int32_t out = tensor({1, 3, H}, nullptr);
  return finishLSTMModel(b, tensors, buffers, in, out, clip);
}

/// TFLite's LSTM step (lstm_eval.cc), with buildLSTM's weights: gates input,
/// forget, cell, output; the cell state clipped after its update.
std::vector<double> referenceLSTM(llvm::ArrayRef<float> x, float clip) {
  auto w = [](int k, int kind, int64_t i) {
    return (i % 2 ? -0.3 : 0.2) * (k + 1) + 0.1 * kind + 0.05 * i;
  };
  double h[2] = {0, 0}, c[2] = {0, 0};
  std::vector<double> out;
  for (float xt : x) {
    double pre[4][2];
    for (int k = 0; k < 4; ++k)
      for (int j = 0; j < 2; ++j)
        pre[k][j] = w(k, 0, j) * xt + w(k, 1, 2 * j) * h[0] + w(k, 1, 2 * j + 1) * h[1] +
                    w(k, 2, j);
    auto sigmoid = [](double v) { return 1 / (1 + std::exp(-v)); };
    for (int j = 0; j < 2; ++j) {
      c[j] = sigmoid(pre[1][j]) * c[j] + sigmoid(pre[0][j]) * std::tanh(pre[2][j]);
      if (clip > 0)
        c[j] = std::clamp(c[j], -double(clip), double(clip));
    }
    for (int j = 0; j < 2; ++j) {
      h[j] = sigmoid(pre[3][j]) * std::tanh(c[j]);
      out.push_back(h[j]);
    }
  }
  return out;
}

TEST(TFLiteImporter, SequenceLSTMComputesTFLitesSteps) {
  const std::vector<float> x = {1.5f, -2, 3};
  for (float clip : {0.0f, 0.3f}) {
    auto g = importTFLiteBuffer(buildLSTM(clip), "m", ResourceLimits());
    ASSERT_TRUE(static_cast<bool>(g)) << llvm::toString(g.takeError());
    auto out = runGraph(**g, {Tensor::fromValues<float>(DType::F32, {1, 3, 1}, x)});
    ASSERT_TRUE(static_cast<bool>(out)) << llvm::toString(out.takeError());
    std::vector<double> want = referenceLSTM(x, clip);
    ASSERT_EQ((*out)[0].numElements(), int64_t(want.size()));
    for (size_t i = 0; i < want.size(); ++i)
      EXPECT_NEAR((*out)[0].data<float>()[i], want[i], 1e-6) << "clip " << clip << ", element " << i;
  }
  // The clip changes the result: the test sees it.
  EXPECT_NE(referenceLSTM(x, 0), referenceLSTM(x, 0.3f));
}

/// How buildInt8LSTM departs from a well-formed integer LSTM.
struct Int8LSTMSpoil {
  /// The input-to-forget weights with a scale per row.
  bool perChannelWeights = false;
  tflite::TensorType cellType = tflite::TensorType_INT16;
  float cellScale = 1.0f / 4096;
  bool peepholes = false;
};

/// An integer UNIDIRECTIONAL_SEQUENCE_LSTM (TFLM's 8x8_16 kernel) of 2 input
/// features and 2 cells over 3 steps: int8 weights, int32 biases, the int8
/// hidden state (zero point -3) and the int16 cell state in variable tensors.
std::string buildInt8LSTM(const Int8LSTMSpoil &s) {
  flatbuffers::FlatBufferBuilder b;
  const int32_t H = 2, I = 2;
  std::vector<flatbuffers::Offset<tflite::Buffer>> buffers = {tflite::CreateBuffer(b)};
  std::vector<flatbuffers::Offset<tflite::Tensor>> tensors;
  auto tensor = [&](std::vector<int32_t> shape, tflite::TensorType type,
                    const std::vector<uint8_t> *data, std::vector<float> scales,
                    std::vector<int64_t> zeroPoints, bool variable = false) {
    uint32_t buffer = 0;
    if (data) {
      buffers.push_back(tflite::CreateBuffer(b, b.CreateVector(*data)));
      buffer = buffers.size() - 1;
    }
    auto q = tflite::CreateQuantizationParameters(b, 0, 0, b.CreateVector(scales),
                                                  b.CreateVector(zeroPoints));
    tensors.push_back(tflite::CreateTensor(b, b.CreateVector(shape), type, buffer,
                                           b.CreateString("t" + std::to_string(tensors.size())),
                                           q, variable));
    return int32_t(tensors.size() - 1);
  };
  auto bytes = [](int64_t n, int elementBytes, int seed) {
    std::vector<uint8_t> v(n * elementBytes);
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = uint8_t((i * 7 + seed * 13) % 11 - 5);
    return v;
  };
  std::vector<int32_t> in(24, -1);
  in[0] = tensor({1, 3, I}, tflite::TensorType_INT8, nullptr, {0.05f}, {3});
  for (int k = 0; k < 4; ++k) {
    std::vector<uint8_t> w = bytes(H * I, 1, k), r = bytes(H * H, 1, k + 4),
                         bias = bytes(H, 4, k + 8);
    bool perRow = s.perChannelWeights && k == 1;
    in[1 + k] = tensor({H, I}, tflite::TensorType_INT8, &w,
                       perRow ? std::vector<float>{0.02f, 0.03f} : std::vector<float>{0.02f},
                       perRow ? std::vector<int64_t>{0, 0} : std::vector<int64_t>{0});
    in[5 + k] = tensor({H, H}, tflite::TensorType_INT8, &r, {0.01f}, {0});
    in[12 + k] = tensor({H}, tflite::TensorType_INT32, &bias, {0.001f}, {0});
  }
  if (s.peepholes)
    for (int k = 0; k < 3; ++k) {
      std::vector<uint8_t> p = bytes(H, 2, k);
      in[9 + k] = tensor({H}, tflite::TensorType_INT16, &p, {0.001f}, {0});
    }
  in[18] = tensor({1, H}, tflite::TensorType_INT8, nullptr, {1.0f / 128}, {-3}, true);
  in[19] = tensor({1, H}, s.cellType, nullptr, {s.cellScale}, {0}, true);
  int32_t out = tensor({1, 3, H}, tflite::TensorType_INT8, nullptr, {1.0f / 128}, {-3});
  return finishLSTMModel(b, tensors, buffers, in, out, 4.0f);
}

/// Its values are checked against TFLM's kernel in numpy (tests/tflite,
/// refs/layers/int8_lstm); here, what it imports as and what it refuses.
TEST(TFLiteImporter, Int8SequenceLSTMIsTheLSTMsInt8Form) {
  auto g = importTFLiteBuffer(buildInt8LSTM({}), "m", ResourceLimits());
  ASSERT_TRUE(static_cast<bool>(g)) << llvm::toString(g.takeError());
  const Node *lstm = nullptr;
  for (const Node *n : (*g)->getNodes())
    if (n->is(OpKind::LSTM))
      lstm = n;
  ASSERT_TRUE(lstm);
  // The hidden state starts at its zero point, as TFLM resets an int8
  // variable tensor; the cell state at 0.
  // (initial_h is a Reshape of the state tensor to [batch, 1, hidden].)
  ASSERT_TRUE(lstm->getInput(5)->getProducer());
  const Value *h0 = lstm->getInput(5)->getProducer()->getInput(0);
  ASSERT_TRUE(h0->isConstant());
  for (int8_t v : h0->getConstant().values<int8_t>())
    EXPECT_EQ(v, -3);
  EXPECT_EQ(lstm->getInput(6)->getType().dtype, DType::I16);
  // Each gate keeps its weights' scale on its rows, in ONNX's gate order.
  EXPECT_EQ(lstm->getInput(1)->getType().quant.axis, 1);
  auto out = runGraph(**g, {Tensor(TensorType(lstm->getInput(0)->getType()))});
  ASSERT_TRUE(static_cast<bool>(out)) << llvm::toString(out.takeError());
  EXPECT_EQ((*out)[0].getType().str(), "i8[1,3,2]{q:0.0078125,-3}");

  Int8LSTMSpoil s;
  s.perChannelWeights = true;
  EXPECT_EQ(importError(buildInt8LSTM(s)),
            "m: node 't15' (UNIDIRECTIONAL_SEQUENCE_LSTM): input 2 must be int8 [2,2] with one "
            "scale and zero point 0, got i8[2,2]{q:0.02,0;0.03,0@0}");
  s = {};
  s.cellScale = 0.0003f;
  EXPECT_NE(importError(buildInt8LSTM(s)).find("initial_c must be int16 with a power-of-two scale"),
            std::string::npos);
  s = {};
  s.cellType = tflite::TensorType_INT8;
  EXPECT_NE(importError(buildInt8LSTM(s)).find("state input 19 must be quantized i16 [1, 2]"),
            std::string::npos);
  s = {};
  s.peepholes = true;
  EXPECT_EQ(importError(buildInt8LSTM(s)),
            "m: node 't18' (UNIDIRECTIONAL_SEQUENCE_LSTM): peepholes are not supported in an "
            "int8 LSTM");
}

} // namespace
} // namespace kiln

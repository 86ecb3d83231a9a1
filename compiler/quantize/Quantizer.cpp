#include "compiler/quantize/Quantizer.h"

#include "compiler/graph/AxisIndex.h"
#include "compiler/jit/BundleJit.h"
#include "compiler/pipeline/Pipeline.h"
#include "compiler/quantize/CalibrationSet.h"
#include "compiler/quantize/QDQInsertion.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <limits>

#include <algorithm>
#include <cmath>

namespace kiln {
namespace {

/// The target of the calibration and accuracy runs: the host's architecture
/// at its baseline CPU, not the host CPU. Float sums follow the vector width
/// (their order, FMA or not), so on the host CPU the ranges, and with them
/// the scales, the QDQ model and the report, would depend on the machine.
TargetOptions calibrationTarget() {
  TargetOptions target;
  target.cpu = llvm::Triple(llvm::sys::getProcessTriple()).isX86() ? "x86-64" : "generic";
  return target;
}

llvm::Expected<std::unique_ptr<Graph>> preparedGraph(GraphImporter importGraph) {
  auto g = importGraph();
  if (!g)
    return g.takeError();
  if (auto err = runPipeline(**g, quantizationPreparePipeline(), PipelineOptions{}))
    return std::move(err);
  return g;
}

/// The float bundle with observers: its outputs are the model's, then every
/// quantization point that is not a graph input or output already.
class ObserverBundle {
public:
  static llvm::Expected<ObserverBundle>
  compile(GraphImporter importGraph, llvm::ArrayRef<std::string> points) {
    auto g = preparedGraph(importGraph);
    if (!g)
      return g.takeError();
    llvm::StringMap<Value *> byName;
    for (Value *in : (*g)->getInputs())
      byName[in->getName()] = in;
    for (Node *n : (*g)->getNodes())
      for (Value *r : n->getOutputs())
        byName[r->getName()] = r;
    ObserverBundle b;
    b.numModelOutputs = (*g)->getOutputs().size();
    for (const std::string &name : points) {
      Value *v = byName.lookup(name);
      llvm::ArrayRef<Value *> inputs = (*g)->getInputs();
      llvm::ArrayRef<GraphOutput> outputs = (*g)->getOutputs();
      if (const auto *in = llvm::find(inputs, v); in != inputs.end()) {
        b.sources.push_back({true, size_t(in - inputs.begin())});
        continue;
      }
      const auto *out = llvm::find_if(
          outputs, [&](const GraphOutput &o) { return o.value == v; });
      if (out == outputs.end()) {
        (*g)->addOutput(name, v);
        out = &(*g)->getOutputs().back();
      }
      b.sources.push_back({false, size_t(out - (*g)->getOutputs().begin())});
    }
    if (auto err = runPipeline(**g, defaultPipeline(), PipelineOptions{}))
      return std::move(err);
    auto jit = JitBundle::compile(**g, "observer", {}, calibrationTarget());
    if (!jit)
      return jit.takeError();
    b.jit = std::move(*jit);
    return std::move(b);
  }

  /// Runs `sample`: the model's outputs, then the value of every point.
  llvm::Expected<std::pair<std::vector<Tensor>, std::vector<Tensor>>>
  run(const Sample &sample) {
    auto outs = jit->run(sample);
    if (!outs)
      return outs.takeError();
    std::vector<Tensor> points;
    for (const Source &s : sources)
      points.push_back(s.isInput ? sample[s.index] : (*outs)[s.index]);
    outs->resize(numModelOutputs);
    return std::make_pair(std::move(*outs), std::move(points));
  }

private:
  struct Source {
    bool isInput;
    size_t index;
  };
  std::unique_ptr<JitBundle> jit;
  size_t numModelOutputs = 0;
  std::vector<Source> sources;
};

/// `x` through int8 with `q` and back.
float fakeQuantized(float x, const QuantParams &q) {
  float s = q.scales[0];
  int32_t zp = q.zeroPoints[0];
  double v = std::clamp<double>(std::nearbyint(x / s) + zp, -128, 127);
  return float((v - zp) * s);
}

/// Counts finished samples against the total for the progress callback.
class ProgressCounter {
public:
  explicit ProgressCounter(const QuantizeOptions &opts) : opts(opts) {}
  void start(llvm::StringRef phase, size_t total) {
    current = {phase, 0, total};
    report();
  }
  void step() {
    ++current.done;
    report();
  }

private:
  void report() {
    if (opts.progress)
      opts.progress(current);
  }
  const QuantizeOptions &opts;
  QuantizeProgress current;
};

/// Per point, the range its calibrator gives over the calibration samples.
llvm::Expected<std::vector<ValueRange>>
calibrate(ObserverBundle &observer, llvm::ArrayRef<const Sample *> samples,
          size_t numPoints, const QuantizeOptions &opts, ProgressCounter &progress) {
  std::vector<ValueRange> minMax(
      numPoints, {std::numeric_limits<float>::infinity(),
                  -std::numeric_limits<float>::infinity()});
  progress.start("calibrating", samples.size());
  for (const Sample *s : samples) {
    auto run = observer.run(*s);
    if (!run)
      return run.takeError();
    for (size_t p = 0; p < numPoints; ++p)
      for (float x : run->second[p].values<float>()) {
        minMax[p].min = std::min(minMax[p].min, x);
        minMax[p].max = std::max(minMax[p].max, x);
      }
    progress.step();
  }
  if (opts.calibrator == CalibratorKind::MinMax)
    return std::move(minMax);

  bool magnitudes = opts.calibrator == CalibratorKind::Entropy;
  std::vector<Histogram> histograms;
  for (const ValueRange &r : minMax)
    histograms.emplace_back(
        magnitudes ? 0.0 : r.min,
        magnitudes ? std::max(std::fabs(r.min), std::fabs(r.max)) : r.max);
  progress.start("histograms", samples.size());
  for (const Sample *s : samples) {
    auto run = observer.run(*s);
    if (!run)
      return run.takeError();
    for (size_t p = 0; p < numPoints; ++p)
      histograms[p].add(run->second[p].values<float>(), magnitudes);
    progress.step();
  }
  std::vector<ValueRange> ranges;
  for (size_t p = 0; p < numPoints; ++p) {
    if (!magnitudes) {
      ranges.push_back(percentileRange(histograms[p], opts.percentile));
      continue;
    }
    // A histogram with fewer values than bins shows no distribution to fit.
    uint64_t seen = 0;
    for (uint64_t c : histograms[p].counts())
      seen += c;
    if (seen < kHistogramBins) {
      ranges.push_back(minMax[p]);
      continue;
    }
    float t = entropyThreshold(histograms[p]);
    ranges.push_back({std::max(minMax[p].min, -t), std::min(minMax[p].max, t)});
  }
  return std::move(ranges);
}

/// Per node of `inputs`, the mean of each channel of its input over the
/// calibration samples, from a float bundle that observes those inputs.
llvm::Expected<llvm::StringMap<std::vector<double>>>
inputChannelMeans(GraphImporter importGraph,
                  llvm::ArrayRef<BiasCorrectionInput> inputs,
                  llvm::ArrayRef<const Sample *> samples,
                  ProgressCounter &progress) {
  std::vector<std::string> names;
  for (const BiasCorrectionInput &in : inputs)
    names.push_back(in.input->getName().str());
  auto observer = ObserverBundle::compile(importGraph, names);
  if (!observer)
    return observer.takeError();
  std::vector<std::vector<double>> sums(inputs.size());
  std::vector<int64_t> counts(inputs.size(), 0);
  progress.start("bias correction", samples.size());
  for (const Sample *s : samples) {
    auto run = observer->run(*s);
    if (!run)
      return run.takeError();
    for (size_t k = 0; k < inputs.size(); ++k) {
      const Tensor &x = run->second[k];
      llvm::ArrayRef<int64_t> shape = x.getShape();
      AxisIndex channelOf(shape, inputs[k].channelAxis);
      sums[k].resize(channelOf.extent(), 0.0);
      llvm::ArrayRef<float> values = x.values<float>();
      for (int64_t i = 0; i < x.numElements(); ++i)
        sums[k][channelOf(i)] += values[i];
      counts[k] += x.numElements() / channelOf.extent();
    }
    progress.step();
  }
  llvm::StringMap<std::vector<double>> means;
  for (size_t k = 0; k < inputs.size(); ++k) {
    for (double &sum : sums[k])
      sum /= double(counts[k]);
    means[inputs[k].node->getName()] = std::move(sums[k]);
  }
  return std::move(means);
}

/// The int8 bundle of `importGraph` quantized with `params`.
llvm::Expected<std::unique_ptr<JitBundle>>
compileInt8(GraphImporter importGraph, const llvm::StringMap<QuantParams> &params,
            const WeightQuantization &weights) {
  auto g = preparedGraph(importGraph);
  if (!g)
    return g.takeError();
  if (auto err = insertQDQ(**g, params, weights))
    return std::move(err);
  if (auto err = runPipeline(**g, defaultPipeline(), PipelineOptions{}))
    return std::move(err);
  return JitBundle::compile(**g, "int8", {}, calibrationTarget());
}

} // namespace

llvm::Expected<QuantizedModel> quantizeModel(GraphImporter importGraph,
                                             const QuantizeOptions &opts) {
  auto g = preparedGraph(importGraph);
  if (!g)
    return g.takeError();
  auto pointValues = quantizationPoints(**g);
  if (!pointValues)
    return pointValues.takeError();
  llvm::StringSet<> keepFloat;
  for (const std::string &name : opts.keepFloat) {
    bool found = llvm::any_of((*g)->getNodes(), [&](const Node *n) {
      return n->getName() == name && hasQuantizableWeights(*n);
    });
    if (!found)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "keep-float: the model has no Conv, Gemm or MatMul with constant "
          "weights named '" + name + "'");
    keepFloat.insert(name);
  }
  std::vector<std::string> points;
  for (const Value *v : *pointValues)
    points.push_back(v->getName().str());
  llvm::SmallVector<const Value *, 2> inputs((*g)->getInputs().begin(),
                                             (*g)->getInputs().end());
  auto samples = loadCalibrationSet(opts.calibrationDir, inputs);
  if (!samples)
    return samples.takeError();
  std::vector<const Sample *> calibration, heldOut;
  for (size_t k = 0; k < samples->size(); ++k)
    (isHeldOut(k, samples->size()) ? heldOut : calibration)
        .push_back(&(*samples)[k]);

  auto observer = ObserverBundle::compile(importGraph, points);
  if (!observer)
    return observer.takeError();
  ProgressCounter progress(opts);
  auto ranges = calibrate(*observer, calibration, points.size(), opts, progress);
  if (!ranges)
    return ranges.takeError();
  llvm::StringMap<QuantParams> params;
  std::vector<QuantParams> pointParams;
  for (size_t p = 0; p < points.size(); ++p) {
    pointParams.push_back(asymmetricInt8((*ranges)[p]));
    params[points[p]] = pointParams.back();
  }

  WeightQuantization weights;
  weights.keepFloat = keepFloat;
  if (opts.biasCorrection) {
    auto means = inputChannelMeans(
        importGraph, biasCorrectionInputs(**g, keepFloat), calibration, progress);
    if (!means)
      return means.takeError();
    weights.inputChannelMeans = std::move(*means);
  }

  QuantizedModel result;
  result.qdqGraph = std::move(*g);
  if (auto err = insertQDQ(*result.qdqGraph, params, weights))
    return std::move(err);

  auto int8 = compileInt8(importGraph, params, weights);
  if (!int8)
    return int8.takeError();
  AccuracyReport &report = result.report;
  report.calibrator = opts.calibrator;
  report.percentile = opts.percentile;
  report.calibrationSamples = calibration.size();
  report.heldOutSamples = heldOut.size();
  report.floatNodes = opts.keepFloat;
  report.biasCorrection = opts.biasCorrection;
  llvm::ArrayRef<GraphOutput> outputs = result.qdqGraph->getOutputs();
  std::vector<SqnrAccumulator> outputSqnr(outputs.size()), pointSqnr(points.size());
  std::vector<size_t> top1Agree(outputs.size(), 0);
  progress.start("accuracy", heldOut.size());
  for (const Sample *s : heldOut) {
    auto floatRun = observer->run(*s);
    if (!floatRun)
      return floatRun.takeError();
    auto int8Run = (*int8)->run(*s);
    if (!int8Run)
      return int8Run.takeError();
    for (size_t o = 0; o < outputs.size(); ++o) {
      const Tensor &f = floatRun->first[o], &q = (*int8Run)[o];
      if (f.getDType() != DType::F32)
        continue;
      outputSqnr[o].add(f.values<float>(), q.values<float>());
      top1Agree[o] += argmax(f.values<float>()) == argmax(q.values<float>());
    }
    for (size_t p = 0; p < points.size(); ++p) {
      llvm::ArrayRef<float> x = floatRun->second[p].values<float>();
      std::vector<float> xq;
      for (float v : x)
        xq.push_back(fakeQuantized(v, pointParams[p]));
      pointSqnr[p].add(x, xq);
    }
    progress.step();
  }
  for (size_t o = 0; o < outputs.size(); ++o) {
    const TensorType &t = outputs[o].value->getType();
    if (t.dtype != DType::F32)
      continue;
    OutputAccuracy a{outputs[o].name, outputSqnr[o].decibels(), std::nullopt};
    if (isClassVector(t))
      a.top1Agreement = double(top1Agree[o]) / heldOut.size();
    report.outputs.push_back(std::move(a));
  }
  for (size_t p = 0; p < points.size(); ++p)
    report.worstTensors.push_back({points[p], pointSqnr[p].decibels()});
  llvm::stable_sort(report.worstTensors, [](const TensorError &a, const TensorError &b) {
    return a.sqnrDb < b.sqnrDb;
  });
  if (report.worstTensors.size() > kReportedTensors)
    report.worstTensors.resize(kReportedTensors);
  if (opts.int8IO)
    makeIOInt8(*result.qdqGraph);
  return std::move(result);
}

} // namespace kiln

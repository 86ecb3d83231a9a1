//===- SpeedBench.cc - Single-thread speed of the kiln bundles ------------===//
//
// For every bundle linked in (models.cc): the latency of NAME_run on one
// thread (median over repetitions), its GFLOP/s (FLOPs from the model's
// manifest.json), that as a share of this core's FMA peak measured in the
// same run, the time kilnc takes to compile the model, and the weights and
// scratch sizes. Google Benchmark prints each measurement as it runs; a
// summary table follows, and --json=FILE writes it for compare.js.
//
//   bazel run //benchmarks/speed:speed_bench -- [--reps=10] [--min_time=0.1]
//       [--compile_reps=3] [--models=a,b] [--json=FILE] [--benchmark_...]
//
//===----------------------------------------------------------------------===//

#include "benchmarks/speed/BenchModels.h"
#include "benchmarks/speed/FmaPeak.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

namespace fs = std::filesystem;

struct Options {
  std::string kilnc, json;
  std::map<std::string, std::pair<std::string, std::string>> files; // onnx, weights
  std::vector<std::string> only;
  int reps = 10;
  double minTime = 0.1;
  int compileReps = 3;
};

[[noreturn]] void fail(const std::string &msg) {
  std::fprintf(stderr, "speed_bench: %s\n", msg.c_str());
  std::exit(1);
}

std::vector<std::string> split(const std::string &s, char sep) {
  std::vector<std::string> parts;
  std::stringstream ss(s);
  for (std::string p; std::getline(ss, p, sep);)
    parts.push_back(p);
  return parts;
}

Options parseArgs(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char *flag) -> const char * {
      size_t n = std::strlen(flag);
      return a.compare(0, n, flag) == 0 ? a.c_str() + n : nullptr;
    };
    if (const char *v = value("--kilnc="))
      o.kilnc = v;
    else if (const char *v = value("--json="))
      o.json = v;
    else if (const char *v = value("--reps="))
      o.reps = std::atoi(v);
    else if (const char *v = value("--min_time="))
      o.minTime = std::atof(v);
    else if (const char *v = value("--compile_reps="))
      o.compileReps = std::atoi(v);
    else if (const char *v = value("--models="))
      o.only = split(v, ',');
    else if (const char *v = value("--model=")) {
      std::vector<std::string> p = split(v, ':');
      if (p.size() != 3)
        fail("--model wants NAME:MODEL.onnx:WEIGHTS.bin, got " + a);
      o.files[p[0]] = {p[1], p[2]};
    } else
      fail("unknown argument " + a);
  }
  return o;
}

std::vector<char> readFile(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  if (!f)
    fail("cannot read " + path);
  return std::vector<char>(std::istreambuf_iterator<char>(f), {});
}

/// The "flops" of model `name` in the manifest.json next to the model file
/// (the file itself, not its runfiles link: the shared models' manifest is
/// not a build input). A scan, not a JSON parser: the manifests are flat.
double manifestFlops(const std::string &onnxPath, const std::string &name) {
  std::error_code ec;
  fs::path real = fs::canonical(onnxPath, ec);
  fs::path manifest = (ec ? fs::path(onnxPath) : real).parent_path() / "manifest.json";
  std::vector<char> bytes = readFile(manifest.string());
  std::string text(bytes.begin(), bytes.end());
  size_t at = text.find("\"" + name + "\":");
  if (at == std::string::npos)
    at = text.find("\"" + name + "\" :");
  size_t flops = at == std::string::npos ? at : text.find("\"flops\"", at);
  if (flops == std::string::npos)
    fail(manifest.string() + " has no flops for " + name);
  return std::atof(text.c_str() + text.find(':', flops) + 1);
}

struct AlignedFree {
  void operator()(uint8_t *p) const { std::free(p); }
};
using Region = std::unique_ptr<uint8_t[], AlignedFree>;

Region allocate(size_t size) {
  size_t rounded = (size + KILN_ALIGNMENT - 1) / KILN_ALIGNMENT * KILN_ALIGNMENT;
  auto *p = static_cast<uint8_t *>(std::aligned_alloc(KILN_ALIGNMENT, std::max<size_t>(rounded, KILN_ALIGNMENT)));
  std::memset(p, 0, rounded);
  return Region(p);
}

/// A bundle with its regions filled: weights from the file, the input from
/// the model's reference input.
struct LoadedModel {
  const BenchModel *model;
  std::string onnx;
  double flops;
  Region weights, io, scratch;
  double maxError = 0; ///< vs the reference output, scaled by max(1, max|ref|)
  double compileSeconds = NAN;
  double medianSeconds = NAN;
  double cpuSeconds = NAN; ///< median CPU time: less disturbed by other load
};

std::string sibling(const std::string &onnx, const char *suffix) {
  return onnx.substr(0, onnx.size() - std::strlen(".onnx")) + suffix;
}

void load(LoadedModel &m, const std::string &weightsPath) {
  const kiln_bundle *b = m.model->bundle;
  m.weights = allocate(b->weights_size);
  m.io = allocate(b->io_size);
  m.scratch = allocate(b->scratch_size);
  std::vector<char> w = readFile(weightsPath);
  if (w.size() != b->weights_size)
    fail(weightsPath + ": size does not match the bundle");
  std::memcpy(m.weights.get(), w.data(), w.size());
  std::vector<char> in = readFile(sibling(m.onnx, ".input.bin"));
  if (b->num_inputs != 1 || b->num_outputs != 1 || in.size() != b->inputs[0].size)
    fail(std::string(b->name) + ": expected one input of the reference's size");
  std::memcpy(m.io.get() + b->inputs[0].offset, in.data(), in.size());
  if (b->run(m.weights.get(), m.io.get(), m.scratch.get()) != KILN_OK)
    fail(std::string(b->name) + ": run failed");
  std::vector<char> ref = readFile(sibling(m.onnx, ".output.bin"));
  if (ref.size() != b->outputs[0].size)
    fail(std::string(b->name) + ": reference output size differs");
  const float *y = reinterpret_cast<const float *>(m.io.get() + b->outputs[0].offset);
  const float *r = reinterpret_cast<const float *>(ref.data());
  double refMax = 1, err = 0;
  for (size_t i = 0; i < ref.size() / 4; ++i) {
    refMax = std::max(refMax, std::fabs(static_cast<double>(r[i])));
    err = std::max(err, std::fabs(static_cast<double>(y[i]) - r[i]));
  }
  m.maxError = err / refMax;
}

/// Median wall time of `reps` runs of kilnc on the model (compiled to a
/// temporary directory that is removed afterwards).
double timeCompile(const Options &o, const LoadedModel &m) {
  fs::path dir = fs::temp_directory_path() / ("kiln_speed_" + std::to_string(::getpid()));
  std::vector<double> times;
  for (int i = 0; i < o.compileReps; ++i) {
    std::string cmd = "'" + o.kilnc + "' '" + m.onnx + "' -o '" + dir.string() +
                      "' --name " + m.model->name + " > /dev/null";
    auto t0 = std::chrono::steady_clock::now();
    if (std::system(cmd.c_str()) != 0)
      fail("kilnc failed: " + cmd);
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  fs::remove_all(dir);
  std::sort(times.begin(), times.end());
  return times.empty() ? NAN : times[times.size() / 2];
}

/// Google Benchmark's console output, keeping each benchmark's median.
class MedianReporter : public benchmark::ConsoleReporter {
public:
  void ReportRuns(const std::vector<Run> &runs) override {
    for (const Run &r : runs)
      if (r.run_type == Run::RT_Aggregate && r.aggregate_name == "median") {
        double unit = benchmark::GetTimeUnitMultiplier(r.time_unit);
        medians[r.run_name.function_name] = {r.GetAdjustedRealTime() / unit,
                                             r.GetAdjustedCPUTime() / unit, r.counters};
      }
    ConsoleReporter::ReportRuns(runs);
  }
  struct Median {
    double realSeconds, cpuSeconds;
    benchmark::UserCounters counters;
  };
  std::map<std::string, Median> medians;
};

void printTable(const std::vector<LoadedModel> &models, double peak, FILE *out) {
  std::fprintf(out, "\nFMA peak, one core: %.1f GFLOP/s\n\n", peak / 1e9);
  std::fprintf(out, "| model | GFLOP | kiln ms (median) | cpu ms | GFLOP/s | %% of peak "
                    "| compile s | weights B | scratch B | max err |\n");
  std::fprintf(out, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const LoadedModel &m : models) {
    double rate = m.flops / m.medianSeconds;
    std::fprintf(out, "| %s | %.4f | %.4f | %.4f | %.1f | %.1f | %.2f | %zu | %zu | %.1e |\n",
                 m.model->name, m.flops / 1e9, m.medianSeconds * 1e3, m.cpuSeconds * 1e3,
                 rate / 1e9,
                 100 * rate / peak, m.compileSeconds, m.model->bundle->weights_size,
                 m.model->bundle->scratch_size, m.maxError);
  }
}

void writeJson(const std::string &path, const std::vector<LoadedModel> &models, double peak) {
  std::ofstream f(path);
  if (!f)
    fail("cannot write " + path);
  f << "{\n \"peak_gflops\": " << peak / 1e9 << ",\n \"models\": {";
  for (size_t i = 0; i < models.size(); ++i) {
    const LoadedModel &m = models[i];
    f << (i ? "," : "") << "\n  \"" << m.model->name << "\": {\"median_ms\": "
      << m.medianSeconds * 1e3 << ", \"cpu_ms\": " << m.cpuSeconds * 1e3 << ", \"gflop\": " << m.flops / 1e9
      << ", \"compile_s\": " << (std::isnan(m.compileSeconds) ? 0 : m.compileSeconds)
      << ", \"weights_bytes\": " << m.model->bundle->weights_size
      << ", \"scratch_bytes\": " << m.model->bundle->scratch_size
      << ", \"max_err\": " << m.maxError << "}";
  }
  f << "\n }\n}\n";
}

} // namespace

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  Options o = parseArgs(argc, argv);

  std::vector<LoadedModel> models;
  models.reserve(kNumBenchModels);
  for (size_t i = 0; i < kNumBenchModels; ++i) {
    const BenchModel &bm = kBenchModels[i];
    if (!o.only.empty() && std::find(o.only.begin(), o.only.end(), bm.name) == o.only.end())
      continue;
    auto files = o.files.find(bm.name);
    if (files == o.files.end())
      fail(std::string("no --model for ") + bm.name);
    LoadedModel m;
    m.model = &bm;
    m.onnx = files->second.first;
    m.flops = manifestFlops(m.onnx, bm.name);
    load(m, files->second.second);
    models.push_back(std::move(m));
  }

  auto configure = [&](benchmark::internal::Benchmark *b) {
    b->Repetitions(o.reps)->MinTime(o.minTime)->ReportAggregatesOnly(true)
        ->UseRealTime()->Unit(benchmark::kMicrosecond);
  };
  configure(benchmark::RegisterBenchmark("fma_peak", [](benchmark::State &state) {
    float sink = 0;
    double flops = 0;
    for (auto _ : state)
      flops += runFmaPeak(1 << 18, 1.0f, &sink);
    benchmark::DoNotOptimize(sink);
    state.counters["GFLOP/s"] = benchmark::Counter(flops / 1e9, benchmark::Counter::kIsRate);
  }));
  for (LoadedModel &m : models)
    configure(benchmark::RegisterBenchmark(m.model->name, [&m](benchmark::State &state) {
      const kiln_bundle *b = m.model->bundle;
      for (auto _ : state)
        b->run(m.weights.get(), m.io.get(), m.scratch.get());
      state.counters["GFLOP/s"] = benchmark::Counter(
          m.flops * state.iterations() / 1e9, benchmark::Counter::kIsRate);
    }));

  MedianReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();

  auto peakIt = reporter.medians.find("fma_peak");
  double peak = peakIt == reporter.medians.end() ? NAN
                                                 : peakIt->second.counters["GFLOP/s"].value * 1e9;
  for (LoadedModel &m : models) {
    auto it = reporter.medians.find(m.model->name);
    if (it != reporter.medians.end()) {
      m.medianSeconds = it->second.realSeconds;
      m.cpuSeconds = it->second.cpuSeconds;
    }
    if (o.compileReps > 0 && !o.kilnc.empty())
      m.compileSeconds = timeCompile(o, m);
  }
  printTable(models, peak, stdout);
  if (!o.json.empty())
    writeJson(o.json, models, peak);
  return 0;
}

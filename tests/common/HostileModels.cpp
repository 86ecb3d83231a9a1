//===- HostileModels.cpp - Small models that ask for too much -------------===//

#include "tests/common/HostileModels.h"

#include "tests/common/OnnxNodeProto.h"

#include "onnx/onnx_pb.h"

#include <cstdint>

namespace kiln::test {
namespace {

/// The default limit of --max-tensor-bytes, as its messages spell it.
const std::string kTensorLimit =
    "would exceed the limit of 1073741824 bytes per tensor (--max-tensor-bytes)";

void setType(onnx::ValueInfoProto *vi, const std::string &name,
             std::vector<int64_t> dims, int elemType = onnx::TensorProto::FLOAT) {
  vi->set_name(name);
  auto *tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elemType);
  for (int64_t d : dims)
    tt->mutable_shape()->add_dim()->set_dim_value(d);
}

void addInt64s(onnx::GraphProto *g, const std::string &name, std::vector<int64_t> values) {
  auto *t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  t->add_dims(values.size());
  for (int64_t v : values)
    t->add_int64_data(v);
}

/// A model of opset 13 with input x of f32[1,2] (f32[1,1] for `shape1x1`)
/// and output y, for `build` to fill in.
template <typename Build>
std::string model(bool shape1x1, Build build) {
  onnx::ModelProto m;
  m.set_ir_version(7);
  auto *op = m.add_opset_import();
  op->set_domain("");
  op->set_version(13);
  onnx::GraphProto *g = m.mutable_graph();
  g->set_name("g");
  setType(g->add_input(), "x", {1, shape1x1 ? 1 : 2});
  g->add_output()->set_name("y");
  build(g);
  std::string bytes;
  m.SerializeToString(&bytes);
  return bytes;
}

/// A graph at nesting `depth` of `levels`: an If on the outer input c whose
/// then_branch nests one level deeper, down to an Identity.
void nestIfs(onnx::GraphProto *g, int depth, int levels) {
  g->set_name("level" + std::to_string(depth));
  g->add_output()->set_name("y");
  if (depth == levels) {
    addNodeProto(g, "Identity", "innermost", {"x"}, {"y"});
    return;
  }
  onnx::NodeProto *n = addNodeProto(g, "If", "if_" + std::to_string(depth), {"c"}, {"y"});
  for (const char *branch : {"then_branch", "else_branch"}) {
    onnx::AttributeProto *a = n->add_attribute();
    a->set_name(branch);
    a->set_type(onnx::AttributeProto::GRAPH);
    if (branch == std::string("then_branch")) {
      nestIfs(a->mutable_g(), depth + 1, levels);
    } else {
      a->mutable_g()->set_name("else" + std::to_string(depth));
      addNodeProto(a->mutable_g(), "Identity", "else_" + std::to_string(depth), {"x"}, {"y"});
      a->mutable_g()->add_output()->set_name("y");
    }
  }
}

/// A graph at nesting `depth` of `levels`: a Loop of M (the outer
/// initializer) iterations whose body nests one level deeper, down to a body
/// that passes its values through: no node at all, however many iterations.
void nestLoops(onnx::GraphProto *g, int depth, int levels) {
  g->set_name("loops" + std::to_string(depth));
  std::string v = depth ? "v" + std::to_string(depth) : "x";
  if (depth) {
    for (std::string in : {"i", "c"})
      g->add_input()->set_name(in + std::to_string(depth));
    g->add_input()->set_name(v);
    g->add_output()->set_name("c" + std::to_string(depth));
  }
  std::string out = depth ? "out" + std::to_string(depth) : "y";
  g->add_output()->set_name(depth == levels ? v : out);
  if (depth == levels)
    return;
  onnx::NodeProto *n = addNodeProto(g, "Loop", "loop_" + std::to_string(depth),
                                    {"M", "", v}, {out});
  onnx::AttributeProto *a = n->add_attribute();
  a->set_name("body");
  a->set_type(onnx::AttributeProto::GRAPH);
  nestLoops(a->mutable_g(), depth + 1, levels);
}

std::string nestedIfs(int levels) {
  return model(false, [&](onnx::GraphProto *g) {
    setType(g->add_input(), "c", {}, onnx::TensorProto::BOOL);
    g->clear_output();
    nestIfs(g, 0, levels);
  });
}

} // namespace

std::vector<HostileModel> hostileModels() {
  std::vector<HostileModel> models;
  // 25000 x 1000000 floats: 100 GB declared in a few bytes.
  models.push_back({"initializer_100gb", model(false, [](onnx::GraphProto *g) {
                      auto *w = g->add_initializer();
                      w->set_name("W");
                      w->set_data_type(onnx::TensorProto::FLOAT);
                      w->add_dims(25000);
                      w->add_dims(1000000);
                      addNodeProto(g, "Add", "add", {"x", "W"}, {"y"});
                    }),
                    "initializer 'W' needs 100000000000 bytes, over the limit of "
                    "1073741824 bytes per tensor (--max-tensor-bytes)"});
  // 4 MB declared, 16 bytes of data.
  models.push_back({"initializer_short_data", model(false, [](onnx::GraphProto *g) {
                      auto *w = g->add_initializer();
                      w->set_name("W");
                      w->set_data_type(onnx::TensorProto::FLOAT);
                      w->add_dims(1000);
                      w->add_dims(1000);
                      w->set_raw_data(std::string(16, '\0'));
                      addNodeProto(g, "Add", "add", {"x", "W"}, {"y"});
                    }),
                    "tensor 'W': raw_data holds 16 bytes, the dims need 4000000"});
  models.push_back({"resize_1x2e9", model(false, [](onnx::GraphProto *g) {
                      addInt64s(g, "sizes", {1, 2000000000});
                      addNodeProto(g, "Resize", "resize", {"x", "", "", "sizes"}, {"y"});
                    }),
                    "node 'resize' (Resize): a result of f32[1,2000000000] (8000000000 "
                    "bytes) " + kTensorLimit});
  // A result within the limit (800 MB) whose cubic taps would take 12.8 GB.
  models.push_back({"resize_cubic_1x2e8", model(false, [](onnx::GraphProto *g) {
                      addInt64s(g, "sizes", {1, 200000000});
                      onnx::NodeProto *n =
                          addNodeProto(g, "Resize", "resize", {"x", "", "", "sizes"}, {"y"});
                      onnx::AttributeProto *mode = n->add_attribute();
                      mode->set_name("mode");
                      mode->set_type(onnx::AttributeProto::STRING);
                      mode->set_s("cubic");
                    }),
                    "node 'resize' (Resize): its interpolation tables for sizes "
                    "[1,200000000] would take 12800000064 bytes, over the limit of "
                    "1073741824 bytes per tensor (--max-tensor-bytes)"});
  models.push_back({"expand_1x2e9", model(true, [](onnx::GraphProto *g) {
                      addInt64s(g, "shape", {1, 2000000000});
                      addNodeProto(g, "Expand", "expand", {"x", "shape"}, {"y"});
                    }),
                    "node 'expand' (Expand): a result of f32[1,2000000000] (8000000000 "
                    "bytes) " + kTensorLimit});
  models.push_back({"constant_of_shape_2e9", model(false, [](onnx::GraphProto *g) {
                      addInt64s(g, "shape", {2000000000});
                      addNodeProto(g, "ConstantOfShape", "fill", {"shape"}, {"big"});
                      addNodeProto(g, "Add", "add", {"x", "big"}, {"y"});
                    }),
                    "node 'fill' (ConstantOfShape): a result of f32[2000000000] "
                    "(8000000000 bytes) " + kTensorLimit});
  models.push_back({"tile_1x2e9", model(false, [](onnx::GraphProto *g) {
                      addInt64s(g, "repeats", {1, 1000000000});
                      addNodeProto(g, "Tile", "tile", {"x", "repeats"}, {"y"});
                    }),
                    "node 'tile' (Tile): a result of f32[1,2000000000] (8000000000 "
                    "bytes) " + kTensorLimit});
  models.push_back({"pad_1x2e9", model(false, [](onnx::GraphProto *g) {
                      addInt64s(g, "pads", {0, 0, 0, 1999999998});
                      addNodeProto(g, "Pad", "pad", {"x", "pads"}, {"y"});
                    }),
                    "node 'pad' (Pad): a result of f32[1,2000000000] (8000000000 "
                    "bytes) " + kTensorLimit});
  models.push_back({"if_nested_20", nestedIfs(20),
                    "node 'if_16' (If): subgraph 'then_branch' nests deeper than the "
                    "limit of 16 levels (--max-subgraph-depth)"});
  // 1000^4 iterations of bodies that add no node.
  models.push_back({"loops_nested_1000x4", model(false, [](onnx::GraphProto *g) {
                      auto *m = g->add_initializer();
                      m->set_name("M");
                      m->set_data_type(onnx::TensorProto::INT64);
                      m->add_int64_data(1000);
                      g->clear_output();
                      nestLoops(g, 0, 4);
                    }),
                    "node 'loop_0/0/loop_1/0/loop_2/1/loop_3' (Loop): the model's Loops run "
                    "more than 1024 iterations in all (--max-unrolled-steps): kiln unrolls "
                    "them"});
  // Deeper than the protobuf parser goes: refused while parsing.
  models.push_back({"if_nested_1000", nestedIfs(1000),
                    "not a valid ONNX model (failed to parse protobuf: malformed, or "
                    "messages nested more than 100 deep)"});
  return models;
}

} // namespace kiln::test

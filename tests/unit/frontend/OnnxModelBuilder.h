//===- OnnxModelBuilder.h - Small ONNX models for frontend tests -*- C++
//-*-===//
//
// Builds ModelProtos in a few lines so each test states only the graph it is
// about. Deliberately independent of the importer: it writes protobufs the
// way the ONNX spec describes them, not the way kiln reads them.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TESTS_FRONTEND_ONNXMODELBUILDER_H
#define KILN_TESTS_FRONTEND_ONNXMODELBUILDER_H

#include "onnx/onnx_pb.h"

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace kiln {
namespace test {

/// A dimension of a declared type: a value or a symbolic name.
struct Dim {
  Dim(int64_t v) : value(v) {}
  Dim(const char *p) : param(p) {}
  int64_t value = -1;
  std::string param;
};

class ModelBuilder {
public:
  explicit ModelBuilder(int64_t opset, int64_t irVersion = 8) {
    model_.set_ir_version(irVersion);
    model_.set_producer_name("kiln-test");
    onnx::OperatorSetIdProto *id = model_.add_opset_import();
    id->set_domain("");
    id->set_version(opset);
    model_.mutable_graph()->set_name("test");
  }

  ModelBuilder &input(const std::string &name, std::vector<Dim> dims,
                      int32_t elemType = onnx::TensorProto::FLOAT) {
    setType(model_.mutable_graph()->add_input(), name, dims, elemType);
    return *this;
  }
  /// A graph output with a declared type.
  ModelBuilder &output(const std::string &name, std::vector<Dim> dims,
                       int32_t elemType = onnx::TensorProto::FLOAT) {
    setType(model_.mutable_graph()->add_output(), name, dims, elemType);
    return *this;
  }
  /// A graph output without a declared type (nothing to check it against).
  ModelBuilder &output(const std::string &name) {
    model_.mutable_graph()->add_output()->set_name(name);
    return *this;
  }

  ModelBuilder &initializer(const std::string &name, std::vector<int64_t> dims,
                            const std::vector<float> &values) {
    onnx::TensorProto *t = model_.mutable_graph()->add_initializer();
    *t = floatTensor(dims, values);
    t->set_name(name);
    return *this;
  }
  ModelBuilder &int64Initializer(const std::string &name,
                                 std::vector<int64_t> dims,
                                 const std::vector<int64_t> &values) {
    onnx::TensorProto *t = model_.mutable_graph()->add_initializer();
    *t = int64Tensor(dims, values);
    t->set_name(name);
    return *this;
  }

  onnx::NodeProto &node(const std::string &op,
                        std::initializer_list<const char *> inputs,
                        std::initializer_list<const char *> outputs,
                        const std::string &name = "") {
    onnx::NodeProto *n = model_.mutable_graph()->add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const char *i : inputs)
      n->add_input(i);
    for (const char *o : outputs)
      n->add_output(o);
    return *n;
  }

  onnx::ModelProto &proto() { return model_; }
  std::string bytes() const {
    std::string s;
    model_.SerializeToString(&s);
    return s;
  }

  static onnx::TensorProto floatTensor(const std::vector<int64_t> &dims,
                                       const std::vector<float> &values) {
    onnx::TensorProto t;
    t.set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims)
      t.add_dims(d);
    for (float v : values)
      t.add_float_data(v);
    return t;
  }
  static onnx::TensorProto int64Tensor(const std::vector<int64_t> &dims,
                                       const std::vector<int64_t> &values) {
    onnx::TensorProto t;
    t.set_data_type(onnx::TensorProto::INT64);
    for (int64_t d : dims)
      t.add_dims(d);
    for (int64_t v : values)
      t.add_int64_data(v);
    return t;
  }

private:
  static void setType(onnx::ValueInfoProto *vi, const std::string &name,
                      const std::vector<Dim> &dims, int32_t elemType) {
    vi->set_name(name);
    onnx::TypeProto::Tensor *tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elemType);
    onnx::TensorShapeProto *shape = tt->mutable_shape();
    for (const Dim &d : dims) {
      onnx::TensorShapeProto::Dimension *dim = shape->add_dim();
      if (!d.param.empty())
        dim->set_dim_param(d.param);
      else if (d.value >= 0)
        dim->set_dim_value(d.value);
    }
  }

  onnx::ModelProto model_;
};

inline void setInt(onnx::NodeProto &n, const std::string &name, int64_t v) {
  onnx::AttributeProto *a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}
inline void setFloat(onnx::NodeProto &n, const std::string &name, float v) {
  onnx::AttributeProto *a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(v);
}
inline void setString(onnx::NodeProto &n, const std::string &name,
                      const std::string &v) {
  onnx::AttributeProto *a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}
inline void setInts(onnx::NodeProto &n, const std::string &name,
                    std::vector<int64_t> v) {
  onnx::AttributeProto *a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v)
    a->add_ints(x);
}
inline void setTensor(onnx::NodeProto &n, const std::string &name,
                      const onnx::TensorProto &t) {
  onnx::AttributeProto *a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::TENSOR);
  *a->mutable_t() = t;
}

} // namespace test
} // namespace kiln

#endif

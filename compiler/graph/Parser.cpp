#include "compiler/graph/Parser.h"

#include "compiler/graph/CheckedMath.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <random>
#include <type_traits>

namespace kiln {
namespace {

bool isNameChar(char c) {
  return !std::isspace(static_cast<unsigned char>(c)) && c != ',' &&
         c != '(' && c != ')';
}

bool isNumberChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '+' ||
         c == '-';
}

class Parser {
public:
  Parser(llvm::StringRef text, llvm::StringRef bufferName)
      : text_(text), bufferName_(bufferName) {}

  llvm::Expected<std::vector<std::unique_ptr<Graph>>> parseAll() {
    std::vector<std::unique_ptr<Graph>> graphs;
    skipSpace();
    while (pos_ < text_.size()) {
      auto g = parseGraph();
      if (!g)
        return g.takeError();
      graphs.push_back(std::move(*g));
      skipSpace();
    }
    if (graphs.empty())
      return error("expected 'graph'");
    return std::move(graphs);
  }

private:
  llvm::Error error(const llvm::Twine &msg) const { return errorAt(pos_, msg); }

  llvm::Error errorAt(size_t at, const llvm::Twine &msg) const {
    llvm::StringRef before = text_.take_front(at);
    size_t line = before.count('\n') + 1;
    size_t lineStart = before.rfind('\n');
    size_t column = at - (lineStart == llvm::StringRef::npos ? 0 : lineStart + 1) + 1;
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("{0}:{1}:{2}: {3}", bufferName_, line, column, msg.str()));
  }

  void skipSpace() {
    while (pos_ < text_.size()) {
      if (std::isspace(static_cast<unsigned char>(text_[pos_]))) {
        ++pos_;
      } else if (text_.substr(pos_).starts_with("//")) {
        size_t end = text_.find('\n', pos_);
        pos_ = end == llvm::StringRef::npos ? text_.size() : end;
      } else {
        return;
      }
    }
  }

  /// Skips space, then consumes `token` if it comes next.
  bool consume(llvm::StringRef token) {
    skipSpace();
    if (!text_.substr(pos_).starts_with(token))
      return false;
    pos_ += token.size();
    return true;
  }

  llvm::Error expect(llvm::StringRef token) {
    if (consume(token))
      return llvm::Error::success();
    return error("expected '" + token + "'");
  }

  llvm::StringRef takeWhile(bool (*pred)(char)) {
    size_t start = pos_;
    while (pos_ < text_.size() && pred(text_[pos_]))
      ++pos_;
    return text_.slice(start, pos_);
  }

  llvm::Expected<std::string> parseValueName() {
    if (auto err = expect("%"))
      return std::move(err);
    llvm::StringRef name = takeWhile(isNameChar);
    if (name.empty())
      return error("expected a value name after '%'");
    return name.str();
  }

  /// The next number token, converted by `convert` (strtoll-like), which
  /// must take all of it; `checkRange` also rejects an ERANGE result (floats
  /// underflow to denormals legitimately).
  template <typename T, typename Convert>
  llvm::Expected<T> parseNumber(Convert convert, llvm::StringRef what,
                                bool checkRange) {
    skipSpace();
    size_t start = pos_;
    std::string token = takeWhile(isNumberChar).str();
    char *end = nullptr;
    errno = 0;
    T v = convert(token.c_str(), &end);
    if (token.empty() || *end || (checkRange && errno == ERANGE))
      return errorAt(start, "expected " + what + ", got '" + token + "'");
    return v;
  }

  llvm::Expected<int64_t> parseInt() {
    return parseNumber<int64_t>(
        [](const char *s, char **end) -> int64_t { return std::strtoll(s, end, 10); },
        "an integer", true);
  }

  /// A u64 element, returned with its bits in an int64.
  llvm::Expected<int64_t> parseU64() {
    return parseNumber<int64_t>(
        [](const char *s, char **end) -> int64_t {
          if (*s == '-') {
            *end = const_cast<char *>(s);
            return 0;
          }
          return static_cast<int64_t>(std::strtoull(s, end, 10));
        },
        "an unsigned integer", true);
  }

  llvm::Expected<double> parseDouble() {
    return parseNumber<double>(
        [](const char *s, char **end) { return std::strtod(s, end); },
        "a number", false);
  }

  llvm::Expected<float> parseFloat() {
    return parseNumber<float>(
        [](const char *s, char **end) { return std::strtof(s, end); },
        "a number", false);
  }

  /// `[a,b,...]` of elements read by `element`.
  template <typename T, typename ReadFn>
  llvm::Expected<std::vector<T>> parseList(ReadFn element) {
    if (auto err = expect("["))
      return std::move(err);
    std::vector<T> out;
    if (consume("]"))
      return out;
    do {
      auto v = (this->*element)();
      if (!v)
        return v.takeError();
      out.push_back(*v);
    } while (consume(","));
    if (auto err = expect("]"))
      return std::move(err);
    return out;
  }

  llvm::Expected<std::string> parseQuoted() {
    if (auto err = expect("\""))
      return std::move(err);
    std::string out;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      char c = text_[pos_++];
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= text_.size())
        break;
      char e = text_[pos_++];
      if (e == 'n') {
        out += '\n';
      } else if (e == 't') {
        out += '\t';
      } else if (e >= '0' && e <= '7') {
        // write_escaped's octal form: three digits.
        unsigned v = e - '0';
        for (int i = 0; i < 2 && pos_ < text_.size() && text_[pos_] >= '0' &&
                        text_[pos_] <= '7';
             ++i)
          v = v * 8 + (text_[pos_++] - '0');
        out += static_cast<char>(v);
      } else {
        out += e;
      }
    }
    if (pos_ >= text_.size())
      return error("unterminated string");
    ++pos_;
    return out;
  }

  /// `q:scale,zp` with `;scale,zp` per further channel and `@axis`.
  llvm::Expected<QuantParams> parseQuant() {
    if (auto err = expect("q:"))
      return std::move(err);
    QuantParams q;
    do {
      auto scale = parseFloat();
      if (!scale)
        return scale.takeError();
      if (auto err = expect(","))
        return std::move(err);
      auto zp = parseInt();
      if (!zp)
        return zp.takeError();
      q.scales.push_back(*scale);
      q.zeroPoints.push_back(static_cast<int32_t>(*zp));
    } while (consume(";"));
    if (consume("@")) {
      auto axis = parseInt();
      if (!axis)
        return axis.takeError();
      q.axis = static_cast<int32_t>(*axis);
    }
    return q;
  }

  llvm::Expected<TensorType> parseType() {
    skipSpace();
    size_t start = pos_;
    llvm::StringRef name = takeWhile([](char c) {
      return static_cast<bool>(std::isalnum(static_cast<unsigned char>(c)));
    });
    std::optional<DType> dtype = parseDType(name);
    if (!dtype)
      return errorAt(start, "unknown element type '" + name + "'");
    auto shape = parseList<int64_t>(&Parser::parseInt);
    if (!shape)
      return shape.takeError();
    TensorType type(*dtype, *shape);
    if (!checkedElementCount(type.shape, kMaxTensorElements))
      return errorAt(start, "negative dimension or too many elements in " +
                                type.str());
    if (consume("{")) {
      auto quant = parseQuant();
      if (!quant)
        return quant.takeError();
      type.quant = std::move(*quant);
      if (auto err = expect("}"))
        return std::move(err);
    }
    return type;
  }

  /// `[v,...]`, flat, one value per element of `type`.
  llvm::Expected<Tensor> parseData(const TensorType &type) {
    if (type.dtype == DType::F16)
      return error("f16 data cannot be written in the text form");
    bool isFloat = type.dtype == DType::F32 || type.dtype == DType::F64;
    return isFloat ? parseElements<double>(type, &Parser::parseDouble)
                   : parseElements<int64_t>(type, type.dtype == DType::U64
                                                      ? &Parser::parseU64
                                                      : &Parser::parseInt);
  }

  template <typename T, typename ReadFn>
  llvm::Expected<Tensor> parseElements(const TensorType &type, ReadFn element) {
    size_t start = pos_;
    auto values = parseList<T>(element);
    if (!values)
      return values.takeError();
    Tensor t(type);
    if (int64_t(values->size()) != t.numElements())
      return errorAt(start, llvm::formatv("{0} values for {1}", values->size(),
                                          type.str()));
    for (size_t i = 0; i < values->size(); ++i) {
      if constexpr (std::is_floating_point_v<T>)
        t.setFromDouble(i, (*values)[i]);
      else
        t.setFromInt(i, (*values)[i]);
    }
    return t;
  }

  llvm::Expected<Attr> parseAttrValue(AttrKind kind) {
    skipSpace();
    switch (kind) {
    case AttrKind::Int: {
      auto v = parseInt();
      if (!v)
        return v.takeError();
      return Attr::ofInt(*v);
    }
    case AttrKind::Float: {
      auto v = parseFloat();
      if (!v)
        return v.takeError();
      return Attr::ofFloat(*v);
    }
    case AttrKind::String: {
      auto v = parseQuoted();
      if (!v)
        return v.takeError();
      return Attr::ofString(*v);
    }
    case AttrKind::Ints: {
      auto v = parseList<int64_t>(&Parser::parseInt);
      if (!v)
        return v.takeError();
      return Attr::ofInts(*v);
    }
    case AttrKind::Floats: {
      auto v = parseList<float>(&Parser::parseFloat);
      if (!v)
        return v.takeError();
      return Attr::ofFloats(*v);
    }
    case AttrKind::Tensor: {
      if (auto err = expect("tensor<"))
        return std::move(err);
      auto type = parseType();
      if (!type)
        return type.takeError();
      if (auto err = expect(">"))
        return std::move(err);
      if (pos_ < text_.size() && text_[pos_] == '[') {
        auto data = parseData(*type);
        if (!data)
          return data.takeError();
        return Attr::ofTensor(std::move(*data));
      }
      return Attr::ofTensor(generatedConstantData(*type, "tensor"));
    }
    case AttrKind::Activation: {
      size_t start = pos_;
      llvm::StringRef name = takeWhile([](char c) {
        return static_cast<bool>(std::isalnum(static_cast<unsigned char>(c)));
      });
      if (name == "none")
        return Attr::ofActivation(Activation());
      std::optional<ActivationKind> act = activationByName(name);
      if (!act)
        return errorAt(start, "unknown activation '" + name + "'");
      std::vector<float> params;
      if (pos_ < text_.size() && text_[pos_] == '(') {
        ++pos_;
        do {
          auto v = parseFloat();
          if (!v)
            return v.takeError();
          params.push_back(*v);
        } while (consume(","));
        if (auto err = expect(")"))
          return std::move(err);
      }
      std::optional<Activation> a = Activation::make(*act, params);
      if (!a)
        return errorAt(start, llvm::formatv("{0} takes {1} parameters, got {2}",
                                            name, activationParams(*act).size(),
                                            params.size()));
      return Attr::ofActivation(std::move(*a));
    }
    case AttrKind::Quant: {
      auto q = parseQuant();
      if (!q)
        return q.takeError();
      return Attr::ofQuant(std::move(*q));
    }
    }
    return error("unknown attribute kind");
  }

  /// Records a new value name; a name defined twice is an error.
  llvm::Error define(size_t at, llvm::StringRef name, Value *v) {
    if (!values_.insert({name, v}).second)
      return errorAt(at, "value %" + name + " is defined twice");
    return llvm::Error::success();
  }

  llvm::Expected<Value *> parseOperand() {
    if (consume("none"))
      return nullptr;
    skipSpace();
    size_t at = pos_;
    auto name = parseValueName();
    if (!name)
      return name.takeError();
    auto it = values_.find(*name);
    if (it == values_.end())
      return errorAt(at, "value %" + *name + " is not defined");
    return it->second;
  }

  /// `%name : TYPE`, and for a constant optionally `= [data]`.
  llvm::Error parseDeclaration(Graph &g, Value::Kind kind) {
    skipSpace();
    size_t at = pos_;
    auto name = parseValueName();
    if (!name)
      return name.takeError();
    if (auto err = expect(":"))
      return err;
    auto type = parseType();
    if (!type)
      return type.takeError();
    if (kind == Value::Kind::Input)
      return define(at, *name, g.addInput(*name, std::move(*type)));
    Tensor data;
    if (consume("=")) {
      skipSpace();
      auto parsed = parseData(*type);
      if (!parsed)
        return parsed.takeError();
      data = std::move(*parsed);
    } else {
      data = generatedConstantData(*type, *name);
    }
    return define(at, *name, g.addConstant(*name, std::move(data)));
  }

  llvm::Error parseOutput(Graph &g) {
    skipSpace();
    auto name = parseQuoted();
    if (!name)
      return name.takeError();
    if (auto err = expect("="))
      return err;
    auto v = parseOperand();
    if (!v)
      return v.takeError();
    g.addOutput(*name, *v);
    return llvm::Error::success();
  }

  /// `%r[, %r2...] = Op(operands) [{attrs}] : types`
  llvm::Error parseNode(Graph &g) {
    size_t lineStart = pos_;
    llvm::SmallVector<std::string, 2> results;
    do {
      auto name = parseValueName();
      if (!name)
        return name.takeError();
      results.push_back(std::move(*name));
    } while (consume(","));
    if (auto err = expect("="))
      return err;
    skipSpace();
    size_t opAt = pos_;
    llvm::StringRef opName = takeWhile([](char c) {
      return static_cast<bool>(std::isalnum(static_cast<unsigned char>(c))) ||
             c == '_';
    });
    const OpDef *def = lookupOpDef(opName);
    if (!def)
      return errorAt(opAt, "unknown op '" + opName + "'");
    if (auto err = expect("("))
      return err;
    llvm::SmallVector<Value *, 4> operands;
    if (!consume(")")) {
      do {
        auto v = parseOperand();
        if (!v)
          return v.takeError();
        operands.push_back(*v);
      } while (consume(","));
      if (auto err = expect(")"))
        return err;
    }
    AttrMap attrs;
    if (consume("{")) {
      do {
        skipSpace();
        size_t at = pos_;
        llvm::StringRef attrName = takeWhile([](char c) {
          return static_cast<bool>(std::isalnum(static_cast<unsigned char>(c))) ||
                 c == '_' || c == '.';
        });
        const AttrSpec *spec = def->findAttr(attrName);
        if (!spec)
          return errorAt(at, def->name + llvm::Twine(" has no attribute '") +
                                 attrName + "'");
        if (auto err = expect("="))
          return err;
        auto value = parseAttrValue(spec->kind);
        if (!value)
          return value.takeError();
        attrs[attrName.str()] = std::move(*value);
      } while (consume(","));
      if (auto err = expect("}"))
        return err;
    }
    if (auto err = expect(":"))
      return err;
    skipSpace();
    size_t typesAt = pos_;
    llvm::SmallVector<TensorType, 2> types;
    do {
      auto type = parseType();
      if (!type)
        return type.takeError();
      types.push_back(std::move(*type));
    } while (consume(","));
    if (types.size() != results.size())
      return errorAt(typesAt, llvm::formatv("{0} results but {1} types",
                                            results.size(), types.size()));

    // The printer names a node's results NODE or NODE:i.
    std::string nodeName = results[0];
    llvm::StringRef stem = llvm::StringRef(results[0]).rsplit(':').first;
    if (results.size() > 1 && stem != results[0])
      nodeName = stem.str();
    auto node = g.addNode(def->kind, nodeName, operands, std::move(attrs));
    if (!node)
      return errorAt(lineStart, llvm::toString(node.takeError()));
    if ((*node)->getNumOutputs() != results.size())
      return errorAt(lineStart, llvm::formatv("{0} has {1} results, the text {2}",
                                              def->name, (*node)->getNumOutputs(),
                                              results.size()));
    for (unsigned i = 0; i < results.size(); ++i) {
      Value *out = (*node)->getOutput(i);
      if (out->getType() != types[i])
        return errorAt(typesAt, llvm::formatv(
                                    "result {0} of {1}: the type rule gives {2}, "
                                    "the text says {3}",
                                    i, def->name, out->getType().str(),
                                    types[i].str()));
      g.renameValue(out, results[i]);
      if (out->getName() != results[i])
        return errorAt(lineStart, "value %" + results[i] + " is defined twice");
      if (auto err = define(lineStart, results[i], out))
        return err;
    }
    return llvm::Error::success();
  }

  llvm::Expected<std::unique_ptr<Graph>> parseGraph() {
    values_.clear();
    if (auto err = expect("graph"))
      return std::move(err);
    skipSpace();
    llvm::StringRef name = takeWhile([](char c) {
      return !std::isspace(static_cast<unsigned char>(c)) && c != '{';
    });
    if (name.empty())
      return error("expected a graph name");
    auto g = std::make_unique<Graph>(name);
    if (auto err = expect("{"))
      return std::move(err);
    while (!consume("}")) {
      if (pos_ >= text_.size())
        return error("expected '}' at the end of graph " + name);
      llvm::Error err = llvm::Error::success();
      if (consume("input "))
        err = parseDeclaration(*g, Value::Kind::Input);
      else if (consume("const "))
        err = parseDeclaration(*g, Value::Kind::Constant);
      else if (consume("output "))
        err = parseOutput(*g);
      else if (text_[pos_] == '%')
        err = parseNode(*g);
      else
        err = error("expected 'input', 'const', 'output', a node or '}'");
      if (err)
        return std::move(err);
    }
    return std::move(g);
  }

  llvm::StringRef text_;
  llvm::StringRef bufferName_;
  size_t pos_ = 0;
  llvm::StringMap<Value *> values_;
};

} // namespace

Tensor generatedConstantData(const TensorType &type, llvm::StringRef name) {
  // FNV-1a: a seed that depends on the name only.
  uint64_t seed = 1469598103934665603ull;
  for (char c : name)
    seed = (seed ^ uint8_t(c)) * 1099511628211ull;
  std::mt19937_64 rng(seed);
  Tensor t(type);
  switch (type.dtype) {
  case DType::F16:
    return t;
  case DType::F32:
  case DType::F64: {
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    for (int64_t i = 0; i < t.numElements(); ++i)
      t.setFromDouble(i, dist(rng));
    return t;
  }
  default: {
    bool isSigned = type.dtype == DType::I8 || type.dtype == DType::I16 ||
                    type.dtype == DType::I32 || type.dtype == DType::I64;
    int64_t lo = isSigned ? -8 : 0;
    int64_t hi = type.dtype == DType::Bool ? 1 : 7;
    std::uniform_int_distribution<int64_t> dist(lo, hi);
    for (int64_t i = 0; i < t.numElements(); ++i)
      t.setFromInt(i, dist(rng));
    return t;
  }
  }
}

llvm::Expected<std::vector<std::unique_ptr<Graph>>>
parseGraphs(llvm::StringRef text, llvm::StringRef bufferName) {
  return Parser(text, bufferName).parseAll();
}

} // namespace kiln

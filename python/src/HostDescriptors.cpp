//===- HostDescriptors.cpp - TMA descriptors on the warm launch path ------===//
//
// Recipes follow tile.runtime.host_values exactly: every intermediate wraps
// to its IR integer type, division truncates toward zero. Whatever this file
// cannot evaluate (division by zero, shifts past the width, a parameter that
// is neither an integer nor a tensor) falls back to that Python code, which
// either computes it or raises the error.
//
//===----------------------------------------------------------------------===//

#include "HostDescriptors.h"

#include "tile/Runtime/Runtime.h"

#include <cstring>
#include <string>
#include <unordered_map>

using namespace tile::python;

namespace {

uint64_t wrap(uint64_t v, unsigned bits, bool isSigned) {
  if (bits >= 64)
    return v;
  uint64_t mask = (uint64_t(1) << bits) - 1;
  v &= mask;
  if (isSigned && (v >> (bits - 1)) & 1)
    v |= ~mask;
  return v;
}

/// `list[i]` as a long long; false if it is not an int.
bool itemAsLong(PyObject *list, Py_ssize_t i, long long &out) {
  PyObject *item = PyList_GetItem(list, i);
  if (!item || !PyLong_Check(item)) {
    PyErr_Clear();
    return false;
  }
  out = PyLong_AsLongLong(item);
  if (PyErr_Occurred()) {
    PyErr_Clear();
    return false;
  }
  return true;
}

} // namespace

int HostDescriptorRecipe::parseNode(PyObject *expr, PyObject *argNames) {
  if (!PyList_Check(expr) || PyList_GET_SIZE(expr) < 2)
    return -1;
  PyObject *kindObj = PyList_GET_ITEM(expr, 0);
  if (!PyUnicode_Check(kindObj))
    return -1;
  std::string kind = PyUnicode_AsUTF8(kindObj);
  Py_ssize_t size = PyList_GET_SIZE(expr);
  Node node;
  long long a = 0, b = 0;
  if (kind == "arg" && size == 2) {
    node.kind = Node::Arg;
    PyObject *name = PyList_GET_ITEM(expr, 1);
    Py_ssize_t index = -1;
    for (Py_ssize_t i = 0, e = PyTuple_GET_SIZE(argNames); i < e; ++i)
      if (PyUnicode_Compare(PyTuple_GET_ITEM(argNames, i), name) == 0)
        index = i;
    if (PyErr_Occurred() || index < 0) {
      PyErr_Clear();
      return -1;
    }
    node.value = static_cast<uint64_t>(index);
  } else if (kind == "const" && size == 2) {
    node.kind = Node::Const;
    PyObject *v = PyList_GET_ITEM(expr, 1);
    if (!PyLong_Check(v))
      return -1;
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    node.value =
        overflow > 0 ? PyLong_AsUnsignedLongLong(v) : static_cast<uint64_t>(x);
    if (overflow < 0 || PyErr_Occurred()) {
      PyErr_Clear();
      return -1;
    }
  } else if (kind == "int" && size == 6) {
    node.kind = Node::Int;
    PyObject *op = PyList_GET_ITEM(expr, 1);
    if (!PyUnicode_Check(op))
      return -1;
    std::string text = PyUnicode_AsUTF8(op);
    static const char *known[] = {"+", "-", "*", "//", "%",
                                  "&", "|", "^", "<<", ">>"};
    static const char codes[] = "+-*/%&|^<>";
    for (int i = 0; i < 10; ++i)
      if (text == known[i])
        node.op = codes[i];
    if (!node.op || !itemAsLong(expr, 2, a) || !itemAsLong(expr, 3, b))
      return -1;
    node.bits = static_cast<uint8_t>(a);
    node.isSigned = b != 0;
    node.lhs = parseNode(PyList_GET_ITEM(expr, 4), argNames);
    node.rhs = parseNode(PyList_GET_ITEM(expr, 5), argNames);
    if (node.lhs < 0 || node.rhs < 0)
      return -1;
  } else if (kind == "cast" && size == 4) {
    node.kind = Node::Cast;
    if (!itemAsLong(expr, 1, a) || !itemAsLong(expr, 2, b))
      return -1;
    node.bits = static_cast<uint8_t>(a);
    node.isSigned = b != 0;
    if ((node.lhs = parseNode(PyList_GET_ITEM(expr, 3), argNames)) < 0)
      return -1;
  } else if (kind == "addptr" && size == 4) {
    node.kind = Node::AddPtr;
    if (!itemAsLong(expr, 1, a))
      return -1;
    node.value = static_cast<uint64_t>(a);
    node.lhs = parseNode(PyList_GET_ITEM(expr, 2), argNames);
    node.rhs = parseNode(PyList_GET_ITEM(expr, 3), argNames);
    if (node.lhs < 0 || node.rhs < 0)
      return -1;
  } else {
    return -1;
  }
  if (node.bits == 0 || node.bits > 64)
    return -1;
  nodes.push_back(node);
  return static_cast<int>(nodes.size()) - 1;
}

bool HostDescriptorRecipe::parse(PyObject *recipe, PyObject *argNames) {
  if (!PyDict_Check(recipe))
    return false;
  PyObject *baseExpr = PyDict_GetItemString(recipe, "base");
  PyObject *shapeList = PyDict_GetItemString(recipe, "shape");
  PyObject *strideList = PyDict_GetItemString(recipe, "strides");
  PyObject *blockList = PyDict_GetItemString(recipe, "block_shape");
  PyObject *dtype = PyDict_GetItemString(recipe, "dtype");
  if (!baseExpr || !shapeList || !strideList || !blockList || !dtype ||
      !PyList_Check(shapeList) || !PyList_Check(strideList) ||
      !PyList_Check(blockList))
    return false;
  Py_ssize_t rank = PyList_GET_SIZE(blockList);
  if (rank < 1 || rank > 5 || PyList_GET_SIZE(shapeList) != rank ||
      PyList_GET_SIZE(strideList) != rank)
    return false;
  if ((base = parseNode(baseExpr, argNames)) < 0)
    return false;
  PyObject *storedFlag = PyDict_GetItemString(recipe, "stored");
  stored = storedFlag && PyObject_IsTrue(storedFlag) == 1;
  for (Py_ssize_t i = 0; i < rank; ++i) {
    long long dim;
    int s = parseNode(PyList_GET_ITEM(shapeList, i), argNames);
    int t = parseNode(PyList_GET_ITEM(strideList, i), argNames);
    if (s < 0 || t < 0 || !itemAsLong(blockList, i, dim))
      return false;
    shape.push_back(s);
    strides.push_back(t);
    blockShape.push_back(dim);
  }
  // (bytes, CUtensorMapDataType) from the table the Python path uses.
  PyObject *module = PyImport_ImportModule("tile.tools.tensor_descriptor");
  PyObject *element =
      module ? PyObject_CallMethod(module, "tma_element", "O", dtype) : nullptr;
  Py_XDECREF(module);
  int bytes = 0, code = 0;
  bool ok = element && PyArg_ParseTuple(element, "ii", &bytes, &code);
  Py_XDECREF(element);
  if (!ok) {
    PyErr_Clear();
    return false;
  }
  elementBytes = static_cast<unsigned>(bytes);
  dataType = code;
  return true;
}

bool HostDescriptorRecipe::eval(int index, const RecipeArguments &args,
                                uint64_t &out) const {
  const Node &node = nodes[index];
  uint64_t x = 0, y = 0;
  switch (node.kind) {
  case Node::Arg: {
    PyObject *v = args.values[node.value];
    if (args.isPointer[node.value]) {
      out = args.pointers[node.value];
      return true;
    }
    if (!PyLong_Check(v))
      return false;
    int overflow = 0;
    long long s = PyLong_AsLongLongAndOverflow(v, &overflow);
    out =
        overflow > 0 ? PyLong_AsUnsignedLongLong(v) : static_cast<uint64_t>(s);
    if (overflow < 0 || PyErr_Occurred()) {
      PyErr_Clear();
      return false;
    }
    return true;
  }
  case Node::Const:
    out = node.value;
    return true;
  case Node::Cast:
    if (!eval(node.lhs, args, x))
      return false;
    out = wrap(x, node.bits, node.isSigned);
    return true;
  case Node::AddPtr:
    if (!eval(node.lhs, args, x) || !eval(node.rhs, args, y))
      return false;
    out = x + node.value * y;
    return true;
  case Node::Int:
    break;
  }
  if (!eval(node.lhs, args, x) || !eval(node.rhs, args, y))
    return false;
  int64_t sx = static_cast<int64_t>(x), sy = static_cast<int64_t>(y);
  uint64_t r;
  switch (node.op) {
  case '+':
    r = x + y;
    break;
  case '-':
    r = x - y;
    break;
  case '*':
    r = x * y;
    break;
  case '/':
  case '%':
    if (y == 0 || (node.isSigned && sy == -1 && sx == INT64_MIN))
      return false;
    if (node.isSigned)
      r = static_cast<uint64_t>(node.op == '/' ? sx / sy : sx % sy);
    else
      r = node.op == '/' ? x / y : x % y;
    break;
  case '&':
    r = x & y;
    break;
  case '|':
    r = x | y;
    break;
  case '^':
    r = x ^ y;
    break;
  case '<':
    if (y >= node.bits)
      return false;
    r = x << y;
    break;
  default: // '>'
    if (y >= node.bits)
      return false;
    r = node.isSigned ? static_cast<uint64_t>(sx >> y)
                      : wrap(x, node.bits, false) >> y;
    break;
  }
  out = wrap(r, node.bits, node.isSigned);
  return true;
}

bool HostDescriptorRecipe::evaluate(const RecipeArguments &args,
                                    uint64_t &address,
                                    std::vector<int64_t> &dims,
                                    std::vector<int64_t> &steps) const {
  if (!eval(base, args, address) || address % 16)
    return false;
  size_t rank = shape.size();
  dims.assign(rank, 0);
  steps.assign(rank, 0);
  for (size_t i = 0; i < rank; ++i) {
    uint64_t d, s;
    if (!eval(shape[i], args, d) || !eval(strides[i], args, s))
      return false;
    dims[i] = static_cast<int64_t>(d);
    steps[i] = static_cast<int64_t>(s);
    if (dims[i] <= 0 || steps[i] <= 0)
      return false;
    if (i + 1 < rank && steps[i] * elementBytes % 16)
      return false;
  }
  if (stored && dims[rank - 1] * elementBytes % 16)
    return false; // Python names the argument and says why
  return steps[rank - 1] == 1;
}

bool HostDescriptorRecipe::encode(const RecipeArguments &args,
                                  TensorMapBytes &out) const {
  uint64_t address;
  std::vector<int64_t> dims, steps;
  if (!evaluate(args, address, dims, steps))
    return false;
  std::string error;
  const TensorMapBytes *map = encodeTensorMapCached(
      dataType, elementBytes, address, dims, steps, blockShape, error);
  if (!map)
    return false;
  out = *map;
  return true;
}

const TensorMapBytes *tile::python::encodeTensorMapCached(
    int dataType, unsigned elementBytes, uint64_t address,
    const std::vector<int64_t> &shape, const std::vector<int64_t> &strides,
    const std::vector<int64_t> &block, std::string &error) {
  static std::unordered_map<std::vector<uint64_t>, TensorMapBytes, WordsHash>
      cache;
  std::vector<uint64_t> key = {static_cast<uint64_t>(dataType), elementBytes,
                               address, shape.size()};
  for (const auto *dims : {&shape, &strides, &block})
    for (int64_t d : *dims)
      key.push_back(static_cast<uint64_t>(d));
  auto it = cache.find(key);
  if (it != cache.end())
    return &it->second;
  TensorMapBytes map;
  if (!tile::encodeTensorMap(map.bytes, dataType, elementBytes, address, shape,
                             strides, block, error))
    return nullptr;
  if (cache.size() >= 4096)
    cache.clear();
  return &cache.emplace(std::move(key), map).first->second;
}

//===- HostDescriptors.h - TMA descriptors on the warm launch path -*- C++
//-*-===//
//
// The dispatcher's side of tensor descriptors: a process-wide cache of
// encoded CUtensorMaps, and the recipes of descriptors that kernels make with
// tl.make_tensor_descriptor (tile.runtime.host_values), compiled once per
// specialization and evaluated in C++ at each launch.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_PYTHON_SRC_HOSTDESCRIPTORS_H
#define TILE_PYTHON_SRC_HOSTDESCRIPTORS_H

#include <Python.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tile {
namespace python {

/// FNV-1a over a key of 64-bit words (the dispatcher's tables).
struct WordsHash {
  size_t operator()(const std::vector<uint64_t> &key) const {
    uint64_t h = 1469598103934665603ull;
    for (uint64_t v : key)
      h = (h ^ v) * 1099511628211ull;
    return h;
  }
};

/// A CUtensorMap as the kernel parameter holds it.
struct alignas(64) TensorMapBytes {
  unsigned char bytes[128];
};

/// The launch arguments a recipe reads: Python values by parameter index,
/// and the addresses of the tensor-like ones.
struct RecipeArguments {
  PyObject *const *values;
  const uint64_t *pointers;
  const bool *isPointer;
};

/// How one descriptor made in a kernel follows from its launch arguments.
class HostDescriptorRecipe {
public:
  /// Compiles a metadata recipe (a dict). False, with no Python error set,
  /// for anything it does not know: the launch then stays in Python.
  bool parse(PyObject *recipe, PyObject *argNames);

  /// The encoded map for one launch. False (no Python error set) when the
  /// values are not what TMA needs or cannot be evaluated here: the Python
  /// path then raises the error that names the argument.
  bool encode(const RecipeArguments &args, TensorMapBytes &out) const;

  /// The base address, shape and strides for one launch, checked as
  /// `encode` checks them (exposed for tests).
  bool evaluate(const RecipeArguments &args, uint64_t &address,
                std::vector<int64_t> &dims, std::vector<int64_t> &steps) const;

private:
  struct Node {
    enum Kind : uint8_t { Arg, Const, Int, Cast, AddPtr } kind;
    char op = 0; // '+', '-', '*', '/', '%', '&', '|', '^', '<', '>'
    uint8_t bits = 64;
    bool isSigned = true;
    uint64_t value = 0; // constant bits, parameter index or element bytes
    int lhs = -1, rhs = -1;
  };
  int parseNode(PyObject *expr, PyObject *argNames);
  bool eval(int node, const RecipeArguments &args, uint64_t &out) const;

  std::vector<Node> nodes;
  int base = -1;
  /// The kernel stores through it: rows must be whole 16-byte units (a TMA
  /// store writes up to the next 16 bytes past a row's end).
  bool stored = false;
  std::vector<int> shape, strides;
  std::vector<int64_t> blockShape;
  int dataType = 0;
  unsigned elementBytes = 0;
};

/// The map of a tiled descriptor from a process-wide cache (a CUtensorMap is
/// plain data; encoding one is a driver call), shared by the dispatcher and
/// `_C.encode_tensor_map`. Null, with `error` set, when the driver refuses
/// it.
const TensorMapBytes *encodeTensorMapCached(int dataType, unsigned elementBytes,
                                            uint64_t address,
                                            const std::vector<int64_t> &shape,
                                            const std::vector<int64_t> &strides,
                                            const std::vector<int64_t> &block,
                                            std::string &error);

} // namespace python
} // namespace tile

#endif // TILE_PYTHON_SRC_HOSTDESCRIPTORS_H

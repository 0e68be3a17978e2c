//===- Dispatcher.h - The C++ launch path of tile._C ------------*- C++ -*-===//

#ifndef TILE_PYTHON_SRC_DISPATCHER_H
#define TILE_PYTHON_SRC_DISPATCHER_H

#include <pybind11/pybind11.h>

namespace tile {
namespace python {

/// Adds tile._C.Dispatcher: `Dispatcher(...)[grid](*args, **kwargs)`.
void registerDispatcher(pybind11::module_ &m);

} // namespace python
} // namespace tile

#endif // TILE_PYTHON_SRC_DISPATCHER_H

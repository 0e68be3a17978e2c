//===- TunedLaunch.h - Warm launches of an autotuned kernel -----*- C++ -*-===//

#ifndef TILE_PYTHON_SRC_TUNEDLAUNCH_H
#define TILE_PYTHON_SRC_TUNEDLAUNCH_H

#include <pybind11/pybind11.h>

namespace tile {
namespace python {

/// Adds tile._C.TunedChoices: the configs an Autotuner chose, by tuning key,
/// and `choices.bind(grid, inner)`, a callable that launches `inner` (the
/// kernel's `fn[grid]`) with the chosen config of its arguments' key.
void registerTunedLaunch(pybind11::module_ &m);

} // namespace python
} // namespace tile

#endif // TILE_PYTHON_SRC_TUNEDLAUNCH_H

//===- TileModule.cpp - tile._C, the Python bindings of libtile -----------===//
//
// Binds only tile/API/Compiler.h. Rebuild for another interpreter with:
//   g++ -O2 -shared -fPIC -std=c++17 $(python3 -m pybind11 --includes) \
//     -Iinclude python/src/TileModule.cpp -L<prefix>/lib -ltile \
//     -Wl,-rpath,'$ORIGIN' -o tile/_C$(python3-config --extension-suffix)
//
//===----------------------------------------------------------------------===//

#include "tile/API/Compiler.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

PYBIND11_MODULE(_C, m) {
  m.doc() = "Bindings of libtile, the tile compiler";

  py::enum_<tile::Diagnostic::Severity>(m, "Severity")
      .value("error", tile::Diagnostic::Severity::Error)
      .value("warning", tile::Diagnostic::Severity::Warning)
      .value("remark", tile::Diagnostic::Severity::Remark)
      .value("note", tile::Diagnostic::Severity::Note);

  py::class_<tile::Diagnostic>(m, "Diagnostic")
      .def_readonly("severity", &tile::Diagnostic::severity)
      .def_readonly("file", &tile::Diagnostic::file)
      .def_readonly("line", &tile::Diagnostic::line)
      .def_readonly("column", &tile::Diagnostic::column)
      .def_readonly("message", &tile::Diagnostic::message)
      .def("__repr__", [](const tile::Diagnostic &d) {
        return d.file + ":" + std::to_string(d.line) + ":" +
               std::to_string(d.column) + ": " + d.message;
      });

  py::class_<tile::Result>(m, "Result")
      .def_readonly("ok", &tile::Result::ok)
      .def_readonly("ir", &tile::Result::ir)
      .def_readonly("diagnostics", &tile::Result::diagnostics);

  m.def("version", &tile::version);
  // Compiling holds no Python state, so other Python threads may run.
  m.def("parse_and_verify", &tile::parseAndVerify, py::arg("source"),
        py::arg("buffer_name") = "<tile>",
        py::call_guard<py::gil_scoped_release>());
  m.def("run_pipeline", &tile::runPipeline, py::arg("source"),
        py::arg("buffer_name"), py::arg("pipeline"),
        py::call_guard<py::gil_scoped_release>());
}

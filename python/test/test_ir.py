"""The Python side of libtile: parsing, verification, diagnostics, pipelines."""

import pytest

import tile

VECTOR_ADD = """
func.func @add(%x: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32> loc("add.py":5:10)
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %q = tile.addptr %p, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %v = tile.load %q : tensor<128x!tile.ptr<f32>>
  tile.store %q, %v : tensor<128x!tile.ptr<f32>>
  return
}
"""


def test_verify_returns_ir_with_locations():
    ir = tile.verify_ir(VECTOR_ADD, "add.mlir")
    assert "tile.load" in ir
    assert 'loc("add.py":5:10)' in ir


def test_verifier_error_maps_to_source_line():
    bad = VECTOR_ADD.replace("end = 128", "end = 100")
    with pytest.raises(tile.IRError) as info:
        tile.verify_ir(bad, "add.mlir")
    (diag,) = info.value.diagnostics
    assert (diag.file, diag.line, diag.column) == ("add.py", 5, 10)
    assert "result length 128 must equal end - start = 100" in diag.message
    assert str(info.value).startswith("add.py:5:10: error:")


def test_syntax_error_points_into_buffer():
    with pytest.raises(tile.IRError) as info:
        tile.verify_ir("func.func @f(", "broken.mlir")
    diag = info.value.diagnostics[0]
    assert diag.file == "broken.mlir" and diag.line == 1


@pytest.mark.parametrize("text", ["", "\x00\xff", "module {", "}}}", "%0 = tile.load"])
def test_garbage_never_crashes(text):
    try:
        tile.verify_ir(text)
    except tile.IRError:
        pass


def test_canonicalize_pipeline():
    folded = tile.run_pipeline(
        VECTOR_ADD.replace("%v = tile.load %q", "%z = arith.constant 0 : i32\n"
                           "  %q2 = tile.addptr %x, %z : !tile.ptr<f32>, i32\n"
                           "  %v = tile.load %q"),
        "builtin.module(canonicalize)")
    assert "%z" not in folded and folded.count("tile.addptr") == 1


def test_bad_pipeline_is_an_error():
    with pytest.raises(tile.IRError, match="no-such-pass"):
        tile.run_pipeline(VECTOR_ADD, "builtin.module(no-such-pass)")

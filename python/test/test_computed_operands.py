"""Compiled without a GPU: loops whose dots read loads only after computing
on them in registers are pipelined at their stage count (their buffers grow
with it), not when too short for the copies to run ahead, and not when
register-load staging is off (the over-the-limit retry). The values are
test_gpu_computed_operands.py's."""

import tile
from kernels import computed_operands as k

SMALL_ROWS = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32",
              "K": "i32"}
SIZES = {"BM": 16, "BN": 16, "BK": 16}


def _aligned(kernel, signature, constants, **options):
    """`kernel` compiled with every argument 16-byte divisible."""
    return tile.compile(kernel, signature, constants,
                        divisibility=list(signature), **options)


def _small_rows(stages, constants=None, **options):
    signature = dict(SMALL_ROWS)
    if constants:
        for name in constants:
            signature.pop(name)
    return _aligned(k.small_rows_kernel, signature,
                    dict(SIZES, **(constants or {})), num_stages=stages,
                    **options)


def test_mma_sync_operands_are_copied_ahead():
    plain = _small_rows(1)
    assert "cp.async" not in plain.asm["ptx"]
    shared = []
    for stages in (2, 3, 4):
        kernel = _small_rows(stages)
        assert "cp.async" in kernel.asm["ptx"]
        assert kernel.metadata["register_loads_staged"]
        shared.append(kernel.metadata["shared"])
    # One 16x16 fp16 buffer per operand and stage.
    assert shared[1] - shared[0] == shared[2] - shared[1] == 2 * 16 * 16 * 2


def test_a_loop_shorter_than_its_stages_is_left_alone():
    # K = 32 in steps of 16: two steps, three stages.
    kernel = _small_rows(3, constants={"K": 32})
    assert "cp.async" not in kernel.asm["ptx"]
    longer = _small_rows(3, constants={"K": 48})
    assert "cp.async" in longer.asm["ptx"]


def test_scaled_tf32_operands_are_copied_ahead():
    kernel = _aligned(k.scaled_operands_kernel,
                      {"a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*fp32",
                       "count_ptr": "*i32", "K": "i32"},
                      {"BM": 64, "BN": 64, "BK": 32}, num_stages=3)
    assert kernel.metadata["register_loads_staged"]
    assert "cp.async" in kernel.asm["ptx"]


def test_offsets_in_two_layouts_compile():
    # The IR's shape is lit's (@offsets_in_two_layouts); here the whole
    # pipeline must accept the loop carrying the offsets in two layouts.
    kernel = _aligned(k.offsets_two_ways_kernel,
                      {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32",
                       "n": "i32"}, {"BLOCK": 64, "STEPS": 4})
    assert "ld.global" in kernel.asm["ptx"]


def test_chained_tf32_reads_each_layout_from_its_buffer():
    # Lightning's forward shape: q is read from its staged buffer into the
    # two dots' operand layouts and k^T into one and as loaded, so only
    # the accumulator that feeds the next dot changes layout, by shuffles.
    kernel = _aligned(k.chained_tf32_kernel,
                      {"q_ptr": "*bf16", "k_ptr": "*bf16", "v_ptr": "*bf16",
                       "o_ptr": "*fp32", "n": "i32"},
                      {"D": 128, "E": 32, "BLOCK": 64}, num_stages=3)
    assert kernel.metadata["register_loads_staged"]
    ptx = kernel.asm["ptx"]
    assert "shfl.sync.idx" in ptx
    # The loop's barriers: before the copies refill a buffer, after each
    # local_alloc of a B operand (k^T, v, kv) and around the output's
    # conversion to the store's layout.
    assert ptx.count("bar.sync") <= 6, ptx.count("bar.sync")


def test_a_tile_and_its_transpose_share_one_copy():
    # x^T is stored once for x^T e; x c reads its A through a transposed
    # view of that copy instead of holding x in registers.
    signature = {name: "*fp16" for name in
                 ("a_ptr", "b_ptr", "c_ptr", "e_ptr")}
    signature.update(y_ptr="*fp32", z_ptr="*fp32")
    kernel = _aligned(k.transposed_twice_kernel, signature,
                      {"M": 64, "N": 128, "K": 64}, num_warps=8)
    ir = kernel.asm["tilegpu"]
    # Loaded tiles arrive in blocked layouts; x is computed.
    copies_of_computed = [line for line in ir.splitlines()
                          if "tilegpu.local_alloc %" in line
                          and "#blocked" not in line.split("->")[0]]
    assert len(copies_of_computed) == 1, copies_of_computed
    assert "#dot_op" not in ir

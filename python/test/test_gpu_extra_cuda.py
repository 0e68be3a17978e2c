"""tl.extra.cuda's special registers, counts and programmatic dependent
launch on the GPU (issue 17)."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

from kernels import extra_cuda as ec

pytestmark = pytest.mark.gpu


def test_registers_and_counts():
    programs = 512
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    sm = torch.full((programs,), -1, device="cuda", dtype=torch.int32)
    elapsed = torch.full((programs,), -1, device="cuda", dtype=torch.int64)
    counts = torch.full((2 * programs,), -1, device="cuda", dtype=torch.int32)
    ec.registers[(programs,)](sm, elapsed, counts, num_warps=8)
    torch.cuda.synchronize()
    assert ((sm >= 0) & (sm < sms)).all()
    assert len(set(sm.tolist())) > 1        # spread over several SMs
    assert (elapsed >= 0).all()
    assert counts.view(programs, 2).tolist() == [[8, 256]] * programs


@pytest.mark.parametrize("pdl", [False, True])
def test_programmatic_dependent_launch(pdl):
    n = 10000
    x = torch.randn(n, device="cuda")
    y = torch.full_like(x, float("nan"))
    z = torch.full_like(x, float("nan"))
    grid = ((n + 127) // 128,)
    # The second launch reads what the first wrote.
    ec.scaled_after_previous[grid](x, y, n, BLOCK=128, launch_pdl=pdl)
    ec.scaled_after_previous[grid](y, z, n, BLOCK=128, launch_pdl=pdl)
    torch.cuda.synchronize()
    torch.testing.assert_close(z, 4 * x, rtol=0, atol=0)

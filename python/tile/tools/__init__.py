"""Host-side helpers kernels take as arguments (Triton's triton.tools)."""

"""Where tile's drivers live (triton.backends): only CUDA."""

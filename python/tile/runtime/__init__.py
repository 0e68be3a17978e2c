"""Loading and launching compiled kernels."""

"""The compiler: Python kernels to Tile IR, and Tile IR onwards."""

func.func @f() {
  tile.frobnicate
  return
}

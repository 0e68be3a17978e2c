// out[i] = x[i] + y[i] for i < n, one 1024-element block per program.
func.func @add_kernel(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                      %y: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                      %out: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                      %n: i32) attributes {tile.kernel} {
  %block = arith.constant 1024 : i32
  %pid = tile.get_program_id x
  %start = arith.muli %pid, %block : i32
  %range = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  %starts = tile.splat %start : i32 -> tensor<1024xi32>
  %offsets = arith.addi %starts, %range : tensor<1024xi32>
  %ns = tile.splat %n : i32 -> tensor<1024xi32>
  %mask = arith.cmpi slt, %offsets, %ns : tensor<1024xi32>
  %zero = arith.constant 0.0 : f32
  %zeros = tile.splat %zero : f32 -> tensor<1024xf32>

  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %offsets : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %xv = tile.load %xp, %mask : tensor<1024x!tile.ptr<f32>>
  // Folded into the load's `other` by -canonicalize.
  %xm = arith.select %mask, %xv, %zeros : tensor<1024xi1>, tensor<1024xf32>

  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %offsets : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %yv = tile.load %yp, %mask : tensor<1024x!tile.ptr<f32>>

  %sum = arith.addf %xm, %yv : tensor<1024xf32>
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %op = tile.addptr %os, %offsets : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  tile.store %op, %sum, %mask : tensor<1024x!tile.ptr<f32>>
  return
}

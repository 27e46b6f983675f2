// The module test/Package/aot-consumer compiles with the installed
// fnc-compile: an unknown dim, several dtypes, variables bound to
// fnc.global_variables and one unbound, several results and a run-time
// error.
fnc.global_variable @w = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
fnc.global_variable @count = dense<0> : tensor<i64>

// The seed function: reduce_mean(x*x*3+y).
func.func @seed(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<f32> {
  %three = fnc.constant dense<3.0> : tensor<f32>
  %sq = fnc.mul %x, %x : tensor<?xf32>, tensor<?xf32>
  %t = fnc.mul %sq, %three : tensor<?xf32>, tensor<f32>
  %s = fnc.add %t, %y : tensor<?xf32>, tensor<?xf32>
  %m = fnc.mean %s axes [0] : tensor<?xf32>
  return %m : tensor<f32>
}

// w += x; count += 1; returns w * x and the count.
func.func @step(%v: !fnc.variable<tensor<3xf32>> {fnc.bind = @w},
                %c: !fnc.variable<tensor<i64>> {fnc.bind = @count},
                %x: tensor<3xf32>) -> (tensor<3xf32>, tensor<i64>) {
  fnc.var_assign_add %v, %x : !fnc.variable<tensor<3xf32>>
  %one = fnc.constant dense<1> : tensor<i64>
  fnc.var_assign_add %c, %one : !fnc.variable<tensor<i64>>
  %w = fnc.var_read %v : !fnc.variable<tensor<3xf32>>
  %p = fnc.mul %w, %x : tensor<3xf32>, tensor<3xf32>
  %n = fnc.var_read %c : !fnc.variable<tensor<i64>>
  return %p, %n : tensor<3xf32>, tensor<i64>
}

// Column sums and maxima of a matrix of f64, and whether each sum is
// positive.
func.func @stats(%m: tensor<?x3xf64>)
    -> (tensor<3xf64>, tensor<3xf64>, tensor<3xi1>) {
  %s = fnc.sum %m axes [0] : tensor<?x3xf64>
  %x = fnc.max %m axes [0] : tensor<?x3xf64>
  %zero = fnc.constant dense<0.0> : tensor<f64>
  %pos = fnc.compare gt, %s, %zero : tensor<3xf64>, tensor<f64>
  return %s, %x, %pos : tensor<3xf64>, tensor<3xf64>, tensor<3xi1>
}

// Integer arithmetic on i32, and a gather that fails for an index out of
// range at run time.
func.func @ints(%a: tensor<?xi32>, %b: tensor<?xi32>) -> tensor<?xi32> {
  %p = fnc.mul %a, %b : tensor<?xi32>, tensor<?xi32>
  %d = fnc.sub %p, %a : tensor<?xi32>, tensor<?xi32>
  return %d : tensor<?xi32>
}

func.func @pick(%p: tensor<5xf32>, %i: tensor<?xi32>) -> tensor<?xf32> {
  %r = fnc.gather %p, %i axis 0 : tensor<5xf32>, tensor<?xi32>
  return %r : tensor<?xf32>
}

// An unbound variable: the caller's tensor is scaled in place.
func.func @scale(%v: !fnc.variable<tensor<?xf64>>, %k: tensor<f64>) {
  %x = fnc.var_read %v : !fnc.variable<tensor<?xf64>>
  %y = fnc.mul %x, %k : tensor<?xf64>, tensor<f64>
  fnc.var_assign %v, %y : !fnc.variable<tensor<?xf64>>
  return
}

// The seed function of the tf.function guide, as fnc::function records it:
//
//   auto f = fnc::function([](fnc::Tensor x, fnc::Tensor y) {
//     return fnc::reduce_mean(fnc::pow(x, 2) * 3 + y);
//   });
//
// plus a branch on a value known when tracing and a loop that never runs;
// canonicalization folds both away.
func.func @seed(%x: tensor<4x4xf32>, %y: tensor<4x4xf32>) -> tensor<f32> {
  %two = fnc.constant dense<2.0> : tensor<f32>
  %three = fnc.constant dense<3.0> : tensor<f32>
  %one = fnc.constant dense<1.0> : tensor<f32>
  %sq = fnc.pow %x, %two : tensor<4x4xf32>, tensor<f32>
  %scaled = fnc.mul %sq, %three : tensor<4x4xf32>, tensor<f32>
  %unit = fnc.mul %scaled, %one : tensor<4x4xf32>, tensor<f32>
  %sum = fnc.add %unit, %y : tensor<4x4xf32>, tensor<4x4xf32>
  %training = fnc.constant dense<false> : tensor<i1>
  %picked = fnc.cond %training : tensor<i1> -> tensor<4x4xf32> {
    %noisy = fnc.random_normal mean 0.0 stddev 1.0 : tensor<4x4xf32>
    %n = fnc.add %sum, %noisy : tensor<4x4xf32>, tensor<4x4xf32>
    fnc.yield %n : tensor<4x4xf32>
  } else {
    fnc.yield %sum : tensor<4x4xf32>
  }
  %t = fnc.transpose %picked perm [1, 0] : tensor<4x4xf32>
  %tt = fnc.transpose %t perm [1, 0] : tensor<4x4xf32>
  %mean = fnc.mean %tt axes [] : tensor<4x4xf32>
  return %mean : tensor<f32>
}

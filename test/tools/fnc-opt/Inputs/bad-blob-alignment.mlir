// A dense resource whose first 4 bytes (the alignment) are 0.
module {
  func.func @f() -> tensor<2xf32> {
    %c = arith.constant dense_resource<blob> : tensor<2xf32>
    return %c : tensor<2xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      blob: "0x000000000000803F00000040"
    }
  }
#-}

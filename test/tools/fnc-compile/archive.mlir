// An output ending in .a is a static library holding the object.
// RUN: rm -rf %t && mkdir %t
// RUN: fnc-compile %s -o %t/libsquare.a --header=%t/square.h
// RUN: llvm-ar t %t/libsquare.a | FileCheck %s --check-prefix=MEMBERS
// RUN: llvm-nm --print-armap %t/libsquare.a | FileCheck %s --check-prefix=ARMAP
// RUN: FileCheck %s --check-prefix=HEADER < %t/square.h

// MEMBERS: libsquare.o
// ARMAP: fnc_aot_libsquare_square in libsquare.o
// HEADER: class libsquare {

func.func @square(%x: tensor<?xi64>) -> tensor<?xi64> {
  %y = fnc.mul %x, %x : tensor<?xi64>, tensor<?xi64>
  return %y : tensor<?xi64>
}

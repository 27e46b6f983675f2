//===- Passes.td - fnc code generation passes --------------*- tablegen -*-===//
//
// Passes on the upstream dialects after -fnc-lower-to-linalg (linalg,
// tensor, memref, scf, arith, math): fusion, reductions, buffer reuse, loop
// order, the parallel threshold. None of them sees an fnc op.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_CODEGEN_PASSES
#define FNC_CODEGEN_PASSES

include "mlir/Pass/PassBase.td"

def FncScalarize : Pass<"fnc-scalarize", "::mlir::func::FuncOp"> {
  let summary = "Compute 0-d tensors of loops and branches as scalars";
  let description = [{
    Loop counters, loop conditions and branch predicates are 0-d tensors in
    the fnc dialect, and lower to 0-d `linalg.generic` ops on 0-d tensors
    carried by `scf.while`. Bufferized, each is a heap buffer allocated and
    freed on every iteration. This pass, run on the linalg form before
    bufferization:

    - carries every 0-d tensor of an `scf.while` (inits, `scf.condition`
      operands, `scf.yield` operands) as its scalar, wrapping it back with
      `tensor.from_elements` inside the regions and after the loop;
    - rewrites `tensor.extract` of a 0-d `linalg.generic` into the
      generic's scalar body applied to the extracted inputs.

    Folding `tensor.extract(tensor.from_elements)` then leaves scalar
    arithmetic where the loop counter and the predicate were buffers. A
    counted loop (a compare of a scalar counter before, its increment by a
    constant > 0 after: a staged `for_range`) then becomes an `scf.for`
    (upstream's uplift),
    which bufferizes without copying its carried tensors every iteration;
    loops whose counter is used after the loop stay `scf.while`.

    Before:
    ```mlir
    %r:2 = scf.while (%i = %c0, %x = %x0) : (tensor<i32>, tensor<4xf32>) -> ... {
      %p = linalg.generic {...} ins(%i : tensor<i32>) outs(%e : tensor<i1>) {
        ^bb0(%in: i32, %out: i1):
          %lt = arith.cmpi slt, %in, %c1000 : i32
          linalg.yield %lt : i1
      } -> tensor<i1>
      %b = tensor.extract %p[] : tensor<i1>
      scf.condition(%b) %i, %x : tensor<i32>, tensor<4xf32>
    } do { ... }
    ```
    After:
    ```mlir
    %r:2 = scf.while (%i = %c0_i32, %x = %x0) : (i32, tensor<4xf32>) -> ... {
      %lt = arith.cmpi slt, %i, %c1000 : i32
      scf.condition(%lt) %i, %x : i32, tensor<4xf32>
    } do { ... }
    ```
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def FncParallelThreshold : Pass<"fnc-parallel-threshold", "::mlir::func::FuncOp"> {
  let summary = "Keep loop nests below a work threshold sequential";
  let description = [{
    Runs before `convert-scf-to-openmp`, which turns every `scf.parallel`
    into an OpenMP region whose fork/join costs microseconds. For each
    outermost `scf.parallel`, this pass estimates the work of its loop nest
    (the product of the trip counts of the parallel loop and of the nested
    loops whose bounds do not depend on it):

    - known and below `grain`: the nest becomes sequential `scf.for`s;
    - known and at least `grain`: it stays parallel;
    - only known at run time: the nest is versioned,
      `scf.if (work >= grain) { parallel } else { sequential }`, marked
      `fnc.parallel_version` for `fnc-parallel-if`.

    A nest that stays parallel keeps only its leading dims parallel, the
    fewest whose known trip counts give 64 iterations (a dim known only at
    run time counts as enough); its other dims, and the `scf.parallel` ops
    nested in it, become `scf.for` loops inside. OpenMP linearizes the
    parallel dims of a loop into one loop that recomputes every index from
    the linear one, which LLVM does not vectorize; an inner `scf.for` over
    contiguous elements it does.

    Upstream has the rewrite (`parallelForToNestedFors`) but no cost gate;
    this pass is the gate.

    Before (grain = 1024):
    ```mlir
    scf.parallel (%i) = (%c0) to (%c16) step (%c1) { ... }
    ```
    After:
    ```mlir
    scf.for %i = %c0 to %c16 step %c1 { ... }
    ```
  }];
  let options = [
    Option<"grain", "grain", "int64_t", /*default=*/"65536",
           "Minimum number of loop iterations of a nest to run it in parallel">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

def FncFuseElementwise : Pass<"fnc-fuse-elementwise", "::mlir::func::FuncOp"> {
  let summary = "Elementwise fusion, including cheap multi-use producers";
  let description = [{
    Upstream's elementwise fusion patterns (`populateElementwiseOpsFusionPatterns`,
    which also fold producers into reductions) with fnc's profitability
    rule: a producer is fused into a consumer when it has one use, as
    upstream's `linalg-fuse-elementwise-ops` does, and also when it has
    several uses, all of them elementwise `linalg.generic`s it can fuse into,
    and a cheap body (at most `max-recompute` ops), as long as the fused
    body stays small (at most 4 x `max-recompute` ops, which bounds the
    growth when shared values feed each other). Then every consumer
    recomputes it, the producer dies, and its intermediate tensor is never
    written to memory: recomputing a few arithmetic ops costs less than a
    round trip through memory. A producer is never fused into a consumer
    with reduction loops that reads it along fewer loops than it has (a
    matmul's operand): its body would run again on every step of the
    missing loops, and the contraction would no longer be one the matmul
    kernels recognize.

    An `extract_slice` of a single-use linalg result is moved above the op
    (as upstream's `populateBubbleUpExtractSliceOpPatterns` does, but with
    the body's `linalg.index` reads offset by the slice's start, so that an
    op computing values from indices keeps them): the lowering views operands
    whose unknown dims must agree at the smallest size, and moved up to the
    arguments these views no longer separate producers from consumers.

    Last, each elementwise op's scalar work moves out of its body: a 0-d
    tensor input is read once before the op (`tensor.extract`), and the
    body ops that depend only on such reads and on values from above (a
    bias correction `pow(beta, t)`, a learning-rate schedule) run before
    it, once, instead of once per element. LLVM cannot hoist them: the
    reads become loads it cannot prove unaliased by the op's stores, and
    `powf` may set errno.
  }];
  let options = [
    Option<"maxRecompute", "max-recompute", "unsigned", /*default=*/"8",
           "Largest producer body (ops) recomputed by several consumers">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::affine::AffineDialect"];
}

def FncMathToIntrinsics : Pass<"fnc-math-to-intrinsics", "::mlir::func::FuncOp"> {
  let summary = "Lower rounding math ops to LLVM intrinsics, not libm calls";
  let description = [{
    `convert-math-to-libm` turns `math.floor`, `math.ceil`, `math.trunc`,
    `math.round` and `math.roundeven` into calls of `floorf`, `ceilf`...,
    which LLVM must assume may write `errno`: a loop holding one is not
    vectorized. The polynomial `exp` of `fnc-approximate-math` holds a
    `math.floor`, so a fused loop of `exp` stayed scalar with a call per
    element. This pass replaces those five ops (on floats and vectors of
    floats) with the LLVM intrinsics `llvm.floor`, `llvm.ceil`,
    `llvm.trunc`, `llvm.round` and `llvm.roundeven`: the same results bit
    for bit, one `vroundps` instruction each on x86, and vectorizable. It
    runs right before `convert-math-to-libm`, with or without fast-math.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def FncApproximateMath : Pass<"fnc-approximate-math", "::mlir::func::FuncOp"> {
  let summary = "Replace f32 transcendental math ops with polynomials";
  let description = [{
    Without this pass `convert-math-to-libm` turns every `math.exp`,
    `math.log`, `math.tanh`, `math.erf`, `math.expm1` and `math.log1p` on
    f32 into a scalar libm call, which no loop vectorizer can widen and
    which dominates compute-bound loops (16 `tanhf` calls cost about 250 ns;
    `exp` of 2^20 floats 1.5-3.2 ms against 0.19 ms). This pass applies
    upstream's polynomial approximations
    (`populateMathPolynomialApproximationPatterns`): plain arith ops that
    LLVM vectorizes; `tanh` is upstream's rational with its polynomials
    evaluated by Estrin's scheme (a shorter dependency chain). Before
    that, a subnormal input of `log` is scaled by 2^24 (upstream's
    polynomial reads the exponent of a normal number), and `exp` (and
    `expm1` above 80) of |x| > 80 becomes exp(x / 2)^2 (upstream
    flushes results below FLT_MIN to zero and loses 5 ulp near overflow).
    The approximations' `math.fma`s become a contractable `arith.mulf` +
    `arith.addf` (one FMA instruction), since `convert-math-to-libm` would
    otherwise call `fmaf`. The error against the correctly rounded result
    is at most 1-5 ulp (docs/Pipeline.md has the table, measured by
    ApproximateMathTest); zeros, subnormals, infinities and NaN agree with
    libm. The pipeline runs it under `fast-math` only, so `fast-math=false`
    keeps libm's results bit for bit.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect"];
}

def FncSplitReductions : Pass<"fnc-split-reductions", "::mlir::func::FuncOp"> {
  let summary = "Make full reductions parallel: partial results, then a "
                "small final reduction";
  let description = [{
    `convert-linalg-to-parallel-loops` keeps reduction dimensions
    sequential, so a reduction to a scalar (or to a few values) would run on
    one core. On linalg on tensors, this pass rewrites a `linalg.generic`
    with little parallel work (fewer than 64 parallel iterations) whose
    outermost reduction dimension has a static size of at least 64, and
    whose body combines into its accumulator with one associative op
    (add, mul, max, min), into two generics: the first makes that dimension
    parallel and writes one partial result per index of it (initialized to
    the combiner's identity), the second reduces the partials into the
    original accumulator. Float reductions are only split under
    `fast-math`, since the order of the additions changes.

    Upstream's `linalg::splitReduction` needs the split factor to divide
    the dimension and inserts reshapes; splitting a whole dimension is
    simpler and enough here.
  }];
  let options = [
    Option<"fastMath", "fast-math", "bool", /*default=*/"true",
           "Allow reassociating float reductions">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
}

def FncParallelIf : Pass<"fnc-parallel-if", "::mlir::func::FuncOp"> {
  let summary = "One OpenMP region with an if clause per versioned nest";
  let description = [{
    Runs after `convert-scf-to-openmp`. A nest that `fnc-parallel-threshold`
    versioned (`scf.if` marked `fnc.parallel_version`, an OpenMP region in
    its then-branch and the same loops sequential in its else-branch)
    becomes that one OpenMP region with the condition as its `if` clause:
    below the grain OpenMP runs it on the calling thread, as a serialized
    region that costs about 0.5 us more than plain loops (`fnc-run
    --benchmark` of four fused elementwise ops on an 8x16 input of unknown
    rows: 0.55 us before, 1.04 us after). Compiled code then holds each
    loop nest once, not twice: functions traced with an unknown batch dim,
    whose every nest is versioned, compile in about 60% of the time (a CNN
    train step: 2.7-2.9 s instead of 4.7-5.0 s).

    Before:
    ```mlir
    scf.if %big {
      omp.parallel { ... }
    } else {
      scf.for ... { ... }
    } {fnc.parallel_version}
    ```
    After:
    ```mlir
    omp.parallel if(%big) { ... }
    ```
  }];
  let dependentDialects = ["::mlir::omp::OpenMPDialect"];
}

def FncKeepInnerLoops : Pass<"fnc-keep-inner-loops", "::mlir::func::FuncOp"> {
  let summary = "Keep innermost loops rolled for LLVM's loop vectorizer";
  let description = [{
    LLVM fully unrolls an innermost loop with a small known trip count
    (the 16 channels of an NHWC tensor) before its loop vectorizer runs,
    which then widens the loop around it instead: every access becomes a
    gather or a scatter with a stride of the channel count. This pass
    marks each innermost `scf.for` that runs at least `min-trips` times (a
    count known while compiling) with a loop annotation that disables
    unrolling, so that the vectorizer widens it along its contiguous
    elements. The inner loops of the register-blocked kernels, already
    vector code, measured faster rolled too (CNN train step: about 10%).
    `scf-to-cf` carries the annotation to the loop's back edge and
    `cf-to-llvm` to the `llvm.br`, which translates it to `!llvm.loop`
    metadata.

    A shorter innermost loop (4 to `min-trips` - 1 known trips) whose body
    is straight-line scalar code with a math op and heavy, at least 32 ops
    with each math op counted as 16 (it becomes a polynomial), gets an
    annotation that enables vectorization instead (a body that branches or
    is vector code already is left alone: LLVM would warn that it cannot):
    LLVM's vectorizer skips loops of fewer than 16 known trips, and such a
    body is too big for its unroller, so a fused chain of `tanh` and `exp`
    on [8] ran as a scalar loop. Vectorized, 32 such ops on [8] went from
    13.4x to 2.2-2.6x Eigen's fixed-size arrays (`fnc-bench-peers chain`).

    Before:
    ```mlir
    scf.for %c = %c0 to %c16 step %c1 { ... }
    ```
    After:
    ```mlir
    scf.for %c = %c0 to %c16 step %c1 { ... }
        {loop_annotation = #llvm.loop_annotation<unroll = <disable = true>,
                                                 parallelAccesses = ...>}
    ```
  }];
  let options = [
    Option<"minTrips", "min-trips", "int64_t", /*default=*/"16",
           "Fewest iterations of a loop to keep it rolled">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def FncLowerToOrderedLoops
    : Pass<"fnc-lower-to-ordered-loops", "::mlir::func::FuncOp"> {
  let summary = "Lower linalg ops with reductions before parallel dims to "
                "loops in dimension order";
  let description = [{
    `convert-linalg-to-parallel-loops` hoists every parallel dimension into
    one outer `scf.parallel` and nests the reductions inside it. For a
    matmul written as loops (m, k, n) that turns the cache-friendly order
    (innermost loop walking rows of B and C contiguously, so it vectorizes)
    into (m, n, k), whose innermost loop strides down columns of B.

    This pass lowers, on buffers, each linalg op whose iterators have a
    reduction dimension before a parallel one to loops in dimension order,
    and turns the leading parallel loops into one `scf.parallel`; other
    ops are left to `convert-linalg-to-parallel-loops`. A 2-D f32 matmul
    with more than one column gets a register-blocked kernel instead: rows
    of C are computed 8 at a time (in parallel) in blocks of 3 vectors of
    16 lanes that stay in registers across the k loop (`vector.fma` of a
    broadcast element of A and a row segment of B), stored once; the
    columns 48 does not divide take a tile whose last vector is masked,
    and the rows 8 does not divide (a row count known only at run time,
    such as a batch, included) follow one at a time. Where B has 2 MiB or
    more (static k, at least 8 blocks of columns), it is packed: for each
    block of at most 256 of its rows (k in equal blocks), each column
    block, in parallel, copies its slab into a contiguous panel and runs
    the tiles of every row on it. A B that only a 2-D transpose of a W of
    1 MiB or more wrote is gathered from W by the packing, and the
    transpose is not written. A batched f32 matmul takes the same kernel:
    with one B for all entries as a single matmul of batch x rows (A and
    C collapsed), with a B per entry as a parallel loop over the entries,
    each the kernel on 2-D views with its rows in sequence.
    An NHWC
    f32 conv2d with static shapes (the batch, the filter size and the input
    channels may be dynamic) and a filter count that is a multiple of 16
    gets the same treatment: a tile of up to 4 output pixels times up to 4
    vectors of filters stays in registers across the (kh, kw, c) loops.
    Under `fast-math`, a 2-D f32 matrix-vector product (C is M x 1) whose K
    is a static multiple of 16 becomes one dot product per row: 16-lane
    FMAs of a row segment of A and a segment of B, reduced once (the
    order of the additions changes, hence fast-math only); with C
    contiguous, rows go in blocks of 16 whose 16 accumulators one tree of
    shuffles and adds reduces into one vector of their sums (1000 x
    `x = tanh(W @ x + b)` on 16 dims: 41.6 -> 33.6 us). A small one (up
    to 1024 elements of A, M a multiple of 16, K of 8) inside a loop that
    reads A unchanged (A, a view of an argument, an allocation or a
    constant, is written by nothing in the loop) takes the column form
    instead: A is transposed once before the loop into a stack buffer
    allocated at the function's entry, and each block of 16 rows of C is
    the sum of A's columns scaled by broadcasts of B's elements, in 8 FMA
    chains: no horizontal sums on the step's critical path (the same loop,
    29.3 -> 21.6 us).

    Two more rewrites prepare the ops that `convert-linalg-to-parallel-loops`
    lowers. A transpose (an all-parallel op whose input walks its
    contiguous dim on another loop than the output) gets that loop second
    innermost, so that each cache line of the input is read from L1 by the
    next steps of the innermost loop instead of missed on every read. A
    `memref.copy` with a strided side (the interior of a padded buffer)
    becomes a `linalg.copy`, loops LLVM vectorizes, instead of a call of the
    runner utilities' element-by-element `memrefCopy`.

    Before: `linalg.generic` with iterators [parallel, reduction, parallel].
    After:
    ```mlir
    scf.parallel (%m) = ... {
      scf.for %k = ... {
        scf.for %n = ... { ... }
      }
    }
    ```
  }];
  let options = [
    Option<"fastMath", "fast-math", "bool", /*default=*/"true",
           "Allow the matrix-vector kernel to reassociate its sums">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect"];
}

def FncBufferReuse : Pass<"fnc-buffer-reuse", "::mlir::func::FuncOp"> {
  let summary = "Let elementwise ops write into the buffer of a dead input";
  let description = [{
    Runs on linalg on tensors, before One-Shot Bufferize. An elementwise
    `linalg.generic` whose destination is a fresh `tensor.empty` gets, as
    its destination instead, an input of the same type that is read through
    the identity map and has no other use: the input dies at this op, so
    One-Shot Bufferize writes the result in place into its buffer and
    allocates nothing. Function arguments (the caller's data) and constants
    are never chosen.

    Upstream One-Shot Bufferize decides in-place writes for the destinations
    it is given but never picks a different destination; this pass does.

    First, a `tensor.extract_slice` whose result has a dim of static size 0
    becomes a `tensor.empty` of its shape: it has no elements to view, and
    as a `memref.subview` whose source a later canonicalization makes
    static it would not verify (offset 0 into a dim of size 0). And a
    loop terminator (`scf.yield` of an `scf.for` or `scf.while`,
    `scf.condition`) that passes one tensor, or views of one, at two
    positions passes a `bufferization.alloc_tensor` copy at each repeat:
    One-Shot Bufferize assumes that loop results and the next iteration's
    arguments never share a buffer, so an in-place write into one would
    change the other.

    Before:
    ```mlir
    %e = tensor.empty() : tensor<4xf32>
    %r = linalg.generic ... ins(%t, %u : ...) outs(%e : tensor<4xf32>)
    ```
    After (`%t` has no other use):
    ```mlir
    %r = linalg.generic ... ins(%t, %u : ...) outs(%t : tensor<4xf32>)
    ```
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def FncElideLoopConditionCopies
    : Pass<"fnc-elide-loop-condition-copies", "::mlir::func::FuncOp"> {
  let summary = "Pass a loop's carried buffers on without copying them";
  let description = [{
    Runs on bufferized code, before the deallocation pipeline. One-Shot
    Bufferize makes the condition block of an `scf.while` pass on a copy of
    each carried buffer (`memref.copy %arg, %alloc`, then `scf.condition`
    passes `%alloc`) unless the body updates that buffer in place: a new
    state every iteration (`x = tanh(W @ x)`), a buffer that grows when it is
    full (the rows a gradient keeps of a `while_loop`'s random draws, the
    flat history of a loop whose shapes change) is copied whole on every
    iteration, O(T^2) for a buffer that grows with T.

    The condition passes the argument itself where the buffer is the loop's
    alone in every iteration: the loop's initial value is an allocation
    that nothing uses after the loop starts (and the loop takes once); the
    condition block only reads the argument; and what the body yields for it
    is the body argument that received it or buffers allocated in the body,
    which no other yielded value shares. Then no other value can see the
    buffer the body writes in place, and the copy only protected what no
    one reads.
  }];
}

def FncElideSnapshotCopies
    : Pass<"fnc-elide-snapshot-copies", "::mlir::func::FuncOp"> {
  let summary = "Read a variable in place where its snapshot copy is not needed";
  let description = [{
    Runs on bufferized code, before the deallocation pipeline. A
    `fnc.var_read` lowers to a copy of the variable into a fresh buffer (a
    snapshot: later assignments must not change what was read). In a train
    step most snapshots are not needed: the value is used before the
    variable is next written. For each `memref.copy %var, %alloc` into a
    `memref.alloc` of the same block:

    - **A read-only snapshot** (no use writes `%alloc` or a view of it)
      whose uses all come before any op that may write `%var`: its uses
      read `%var` instead, and the copy and the allocation go. An
      elementwise `linalg.generic` (parallel loops, identity maps for both)
      may be the last use and write `%var` itself: each element is read
      before it is written.
    - **A snapshot overwritten first**: when the first use is an elementwise
      `linalg.generic` writing all of `%alloc` without reading its old
      values (the update `m + (g - m) * c` bufferizes this way), that
      generic reads `%var` where it read `%alloc`, and the copy goes.

    Writes are found through `MemoryEffectOpInterface`; a `func.call`
    writes at most the buffers it is passed (fnc modules have no mutable
    globals, and the runtime touches only its arguments); any other op
    without the interface, or a use through anything but views,
    `memref.load`, `memref.copy`, linalg ops and the return, keeps the
    copy. Distinct function arguments are taken not to alias (fnc passes
    each variable's own buffer). The MLP train step of
    the main job copied 6 weight matrices of 784 x 256 per step.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def FncShareBuffers : Pass<"fnc-share-buffers", "::mlir::func::FuncOp"> {
  let summary = "Let a new buffer take the place of a dead one of its type";
  let description = [{
    Runs on bufferized code, before the deallocation pipeline. Walking the
    function body in order, each statically shaped `memref.alloc` reuses a
    buffer allocated earlier in the same block, of the same element type and
    at least as many elements, whose last use (through every view of it,
    found with `BufferViewFlowAnalysis`) comes before the new allocation:
    the same buffer for the same type, else a `memref.reinterpret_cast` view
    of its first elements (the smallest such buffer is chosen). Buffers
    that escape (returned) are never given away. The ownership-based
    deallocation then frees the shared buffer after its last use.

    This complements `-fnc-buffer-reuse` (elementwise ops writing in place)
    for ops that cannot update in place, such as a chain of matmuls, whose
    results otherwise each get a fresh buffer. Upstream has no such pass
    for the default (non-static) memory planning.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def FncDoubleBufferLoops
    : Pass<"fnc-double-buffer-loops", "::mlir::func::FuncOp"> {
  let summary = "Give a loop-carried buffer two buffers allocated once";
  let description = [{
    Runs on bufferized code, before the deallocation pipeline. An `scf.for`
    whose body allocates a buffer (`memref.alloc`, sizes defined outside
    the loop) and yields it as iteration argument `k` allocates, writes,
    frees and allocates it again on every iteration: the next iteration
    reads it (argument `k`) while writing its own. Two buffers allocated
    before the loop serve instead, taking turns: each iteration writes the
    one argument `k` is not (an `arith.select` on their addresses; the
    first iteration, which reads the loop's initial value, writes the
    first). That is sound when neither the new buffer nor argument `k`
    escapes its iteration other than through that yield: every user is in
    the loop body and has no memref result (views are followed to their
    users), is no call, and no other terminator passes them on. The
    ownership-based deallocation then frees both buffers after the loop,
    except the one it returns.

    A staged loop over a small state (`x = tanh(W @ x + b)` on 16 values)
    spends a malloc, a memset of the new buffer and a free per iteration
    otherwise.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def FncCheckAllocations : Pass<"fnc-check-allocations", "::mlir::ModuleOp"> {
  let summary = "Check the byte size of every dynamically sized allocation";
  let description = [{
    Runs on bufferized code whose functions take the call's runtime context
    first (as `-fnc-lower-to-linalg` makes them). Before each `memref.alloc`
    with dynamic sizes, computes its byte size with 64-bit overflow checks
    (`arith.mului_extended`); on overflow, calls the runtime's
    `fncSizeOverflow(ctx, dim)`, which reports the error and abandons the
    call, so the allocation never happens with a wrapped-around size. A
    statically sized allocation whose byte size overflows is a compile-time
    error. (Allocation failures themselves are caught by the runtime's
    `malloc`, see docs/Runtime.md.) Upstream has no such check.

    Before:
    ```mlir
    %m = memref.alloc(%n, %k) : memref<?x?xf32>
    ```
    After (schematically):
    ```mlir
    %lo, %hi = arith.mului_extended %c4, %n : i64   // and so on per dim
    scf.if %overflow { func.call @fncSizeOverflow(%ctx, %dim) }
    %m = memref.alloc(%n, %k) : memref<?x?xf32>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::scf::SCFDialect"];
}

def FncCheckTypes : Pass<"fnc-check-types", "::mlir::ModuleOp"> {
  let summary = "Refuse the types fnc does not compile: strings, wide vectors";
  let description = [{
    The first pass of `-fnc-pipeline`. A string tensor (`!fnc.string`
    elements) is an error naming the op: strings run on the interpreter
    (`fnc-run --interpret`, the graph executor of `fnc::function`) and are
    never compiled. A vector type of more than
    `max-lanes` elements in any op's operands, results or block arguments
    is an error naming it. Upstream's lowerings unroll a vector op lane by
    lane, so `math.tanh` of a `vector<65536xf32>` already takes seconds to
    compile, and a `vector<4611686018427387904xf32>` never finishes. fnc's
    own lowering makes vectors of at most 64 lanes; more elements belong in
    a tensor or memref.
  }];
  let options = [
    Option<"maxLanes", "max-lanes", "int64_t", /*default=*/"4096",
           "Most elements a vector type may have">,
  ];
}

def FncOutlineKernels : Pass<"fnc-outline-kernels", "::mlir::ModuleOp"> {
  let summary = "Move each loop nest into a function of its own";
  let description = [{
    Runs on bufferized loops, before `scf-to-cf`. Each loop nest of a
    function (`scf.for`, `scf.parallel`, `omp.parallel`, ...) whose results
    are not buffers becomes a private function (internal linkage in LLVM)
    that the nest's place calls, with the `no_inline` call attribute. The
    values the nest uses from above are its arguments, except constants,
    which are cloned into it, so trip counts stay known. Loops that carry
    buffers (`fnc.while`, `fnc.for_range`) and `scf.if` (`fnc.cond`) stay
    where they are; the nests inside them are outlined. Nests that do the
    same (equal text of the function but its name and locations) call one
    function: the 40 residual blocks of a deep model share their kernels.

    A traced train step is one function holding every kernel. LLVM's
    optimizations cost more than linearly in the size of a function, and
    one function cannot be compiled on several threads: a 3723-op step
    spent 33 s in LLVM. As functions of their own, the kernels are
    optimized one by one and each once, and the JIT splits the module
    across cores (`compileInParts`). A function with fewer than
    `min-nests` nests is left alone.

    Before:
    ```mlir
    func.func @f(%a: memref<16xf32>) {
      %c16 = arith.constant 16 : index
      scf.for %i = %c0 to %c16 step %c1 { ... %a ... }
      scf.for %i = %c0 to %c16 step %c1 { ... %a ... }
    }
    ```
    After:
    ```mlir
    func.func @f(%a: memref<16xf32>) {
      call @f_nest0(%a) {no_inline} : (memref<16xf32>) -> ()
      call @f_nest1(%a) {no_inline} : (memref<16xf32>) -> ()
    }
    func.func private @f_nest0(%a: memref<16xf32>)
        attributes {llvm.linkage = #llvm.linkage<internal>} {
      %c16 = arith.constant 16 : index
      scf.for %i = %c0 to %c16 step %c1 { ... %a ... }
      return
    }
    ```
  }];
  let options = [
    Option<"minNests", "min-nests", "int64_t", /*default=*/"2",
           "Fewest loop nests a function must have to be split">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def FncPrintBufferPlan : Pass<"fnc-print-buffer-plan", "::mlir::func::FuncOp"> {
  let summary = "Print the buffers a bufferized function allocates and reuses";
  let description = [{
    An analysis printer for tests and for users tuning memory: on a
    bufferized function it prints each `memref.alloc`/`memref.alloca` with
    its shape and size in bytes, then, for every linalg op, the buffer each
    of its outputs writes (`arg N`, `alloc N`, or a view of one), so in-place
    reuse is visible. Ends with the total number of bytes allocated.
  }];
}

def FncProfileKernels : Pass<"fnc-profile-kernels", "::mlir::ModuleOp"> {
  let summary = "Time each loop nest on the profiler's timeline";
  let description = [{
    Runs on bufferized loops, before `-fnc-outline-kernels`. Around each
    loop nest (what that pass outlines: a loop or an OpenMP region that
    carries no buffer) it calls the runtime's `fncProfileKernelBegin()`,
    which returns the time, and `fncProfileKernelEnd(name, start)`, which
    records a span named by the fnc ops the nest came from: the name
    locations `-fnc-name-op-locations` put on them (`fnc.matmul`,
    `fnc.sub+fnc.exp+fnc.mul`), then the function's name. For
    `fnc::profiler::Options::kernels` (fnc/Profiler.h).

    Before:
    ```mlir
    scf.for %i = %c0 to %c16 step %c1 { ... }
    ```
    After:
    ```mlir
    %t = call @fncProfileKernelBegin() : () -> i64
    scf.for %i = %c0 to %c16 step %c1 { ... }
    %name = llvm.mlir.addressof @__fnc_kernel_name0 : !llvm.ptr
    call @fncProfileKernelEnd(%name, %t) : (!llvm.ptr, i64) -> ()
    ```
  }];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

#endif // FNC_CODEGEN_PASSES

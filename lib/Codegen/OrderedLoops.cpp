//===- OrderedLoops.cpp - Loops in the order the lowering chose -----------===//
//
// -fnc-lower-to-ordered-loops: see Passes.td.
//
//===----------------------------------------------------------------------===//

#include "fnc/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include <functional>

namespace mlir::fnc {
#define GEN_PASS_DEF_FNCLOWERTOORDEREDLOOPS
#include "fnc/Codegen/Passes.h.inc"
} // namespace mlir::fnc

using namespace mlir;

namespace {

/// An index constant.
Value constIndex(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value).getResult();
}

/// The indices row0, row0 + 1, ..., row0 + count - 1.
SmallVector<Value> rowRange(OpBuilder &b, Location loc, Value row0,
                            int64_t count) {
  SmallVector<Value> rows;
  for (int64_t r = 0; r < count; ++r)
    rows.push_back(arith::AddIOp::create(b, loc, row0, constIndex(b, loc, r)));
  return rows;
}

/// True if a reduction dimension comes before a parallel one.
bool reductionBeforeParallel(linalg::LinalgOp op) {
  bool seenReduction = false;
  for (utils::IteratorType it : op.getIteratorTypesArray()) {
    if (it == utils::IteratorType::reduction)
      seenReduction = true;
    else if (seenReduction)
      return true;
  }
  return false;
}

/// Replaces the perfectly nested scf.for loops `loops` (outermost first, no
/// iteration arguments) by one scf.parallel with the same bounds and body.
void parallelize(RewriterBase &rewriter, ArrayRef<scf::ForOp> loops) {
  scf::ForOp outer = loops.front(), inner = loops.back();
  SmallVector<Value> lbs, ubs, steps;
  for (scf::ForOp loop : loops) {
    lbs.push_back(loop.getLowerBound());
    ubs.push_back(loop.getUpperBound());
    steps.push_back(loop.getStep());
  }
  rewriter.setInsertionPoint(outer);
  auto parallel =
      scf::ParallelOp::create(rewriter, outer.getLoc(), lbs, ubs, steps);
  Block *body = parallel.getBody();
  for (auto [loop, iv] :
       llvm::zip(loops.drop_back(), parallel.getInductionVars()))
    rewriter.replaceAllUsesWith(scf::ForOp(loop).getInductionVar(), iv);
  // Move the innermost body (without its yield) into the parallel loop.
  Block *innerBody = inner.getBody();
  rewriter.eraseOp(innerBody->getTerminator());
  rewriter.inlineBlockBefore(innerBody, body->getTerminator(),
                             parallel.getInductionVars().back());
  for (scf::ForOp loop : llvm::reverse(loops))
    rewriter.eraseOp(loop);
}

bool hasMulAddBody(linalg::GenericOp generic);

/// A 2-D f32 matmul C += A * B as a linalg.generic with loops (m, k, n)
/// and a body `c + a * b`, whose B and C rows are contiguous.
bool isMatmulF32(linalg::LinalgOp op) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || generic.getNumDpsInputs() != 2 ||
      generic.getNumDpsInits() != 1 || generic.getNumLoops() != 3)
    return false;
  MLIRContext *ctx = op->getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineMap> expected = {AffineMap::get(3, 0, {d(0), d(1)}, ctx),
                                     AffineMap::get(3, 0, {d(1), d(2)}, ctx),
                                     AffineMap::get(3, 0, {d(0), d(2)}, ctx)};
  if (generic.getIndexingMapsArray() != ArrayRef(expected))
    return false;
  for (Value v : op->getOperands()) {
    auto type = dyn_cast<MemRefType>(v.getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    if (!type || !type.getElementType().isF32() ||
        failed(type.getStridesAndOffset(strides, offset)) || strides[1] != 1)
      return false;
  }
  return hasMulAddBody(generic);
}

/// How a batched f32 matmul (loops (batch, m, k, n), A (d0, d1, d2), C
/// (d0, d1, d3), body `c + a * b`, all three row-major) reads B: one
/// matrix per batch entry (d0, d2, d3), or one for all (d2, d3).
enum class BatchedB { None, PerEntry, Shared };
BatchedB batchedMatmulF32(linalg::LinalgOp op) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || generic.getNumDpsInputs() != 2 ||
      generic.getNumDpsInits() != 1 || generic.getNumLoops() != 4 ||
      !hasMulAddBody(generic))
    return BatchedB::None;
  MLIRContext *ctx = op->getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  if (maps[0] != AffineMap::get(4, 0, {d(0), d(1), d(2)}, ctx) ||
      maps[2] != AffineMap::get(4, 0, {d(0), d(1), d(3)}, ctx))
    return BatchedB::None;
  BatchedB kind;
  if (maps[1] == AffineMap::get(4, 0, {d(0), d(2), d(3)}, ctx))
    kind = BatchedB::PerEntry;
  else if (maps[1] == AffineMap::get(4, 0, {d(2), d(3)}, ctx))
    kind = BatchedB::Shared;
  else
    return BatchedB::None;
  for (Value v : op->getOperands()) {
    auto type = dyn_cast<MemRefType>(v.getType());
    if (!type || !type.getElementType().isF32() ||
        !type.getLayout().isIdentity())
      return BatchedB::None;
  }
  return kind;
}

/// True if the body of `generic` is yield(c + a * b), in either operand
/// order.
bool hasMulAddBody(linalg::GenericOp generic) {
  Block &body = generic.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getValues()[0].getDefiningOp<arith::AddFOp>();
  if (!add || body.getOperations().size() != 3)
    return false;
  Value acc = body.getArgument(2);
  Value product = add.getLhs() == acc ? add.getRhs() : add.getLhs();
  auto mul = product.getDefiningOp<arith::MulFOp>();
  return mul && (add.getLhs() == acc || add.getRhs() == acc) &&
         ((mul.getLhs() == body.getArgument(0) &&
           mul.getRhs() == body.getArgument(1)) ||
          (mul.getLhs() == body.getArgument(1) &&
           mul.getRhs() == body.getArgument(0)));
}

/// The register tile of the matmul kernel: kRows rows of C by kVectors
/// vectors of kLanes f32, 24 accumulators of AVX-512's 32 registers (with
/// the 3 row segments of B and a broadcast). Against 4 x 4 (16), it made
/// 256x512 @ 512x784 go from 1.33-1.49 to 1.06-1.13 ms and x @ W.T
/// (256x784 . (512x784)^T) from 1.53-1.57 to 1.22-1.29 ms
/// (`fnc-bench-compiler shapes`); 6 x 4 was no better.
constexpr int64_t kRows = 8, kVectors = 3, kLanes = 16;

/// The packed path of the matmul kernel (static k and n, big enough): for
/// each block of at most kPackK rows of B (k in equal blocks), each column
/// block of C is a task of the parallel loop that copies its slab of B
/// ([k block, kVectors * kLanes], 48 KiB) into a contiguous panel and runs
/// every row of C on it. Read in place, B's rows are a row stride apart,
/// and with a power-of-two stride they fall into a few cache sets and
/// evict each other: 1024^3 ran at 219 GFLOP/s against 322 for 1000^3 and
/// 1040^3; packed, 1024^3 runs at 350-356 and 2048^3 at 365 GFLOP/s. The
/// core that packs a slab is the one that reads it: with row blocks in
/// parallel instead, every core read every slab, half of them packed by
/// the other core, which cost 256x784 @ 784x512 a third more.
constexpr int64_t kPackK = 256;
/// B is packed from this size on: a smaller one stays in the L2 cache
/// anyway, and its packing costs more than it saves (256x784 @ 784x512:
/// 0.53 ms in place, 0.59-0.62 packed).
constexpr int64_t kPackMinBytes = int64_t(2) << 20;
/// A transposed B (x @ W.T) is gathered into the panels from this size of
/// W on, instead of written transposed first: for the MLP's 256x784 .
/// (512x784)^T both take 0.67-0.68 ms, and the gather writes no transpose.
constexpr int64_t kFoldMinBytes = int64_t(1) << 20;
/// And only with this many column blocks, the tasks of the parallel loop.
constexpr int64_t kPackMinBlocks = 8;

/// The matmul as a register-blocked kernel: for each block of kRows rows
/// (in parallel) and kVectors x kLanes columns, the tile of C lives in
/// vector registers across the whole k loop: per k, kRows broadcasts of A
/// and kVectors row segments of B feed kRows x kVectors FMAs. The rows
/// kRows does not divide (a row count known only at run time, such as a
/// batch, included) run one by one with a one-row tile after the parallel
/// loop. The columns the block does not divide (any column count, known
/// or not, as the 10 classes of a classifier or 784 = 16 x 48 + 16 pixels)
/// take a tile of up to kVectors vectors per row (a vector at a time when
/// the count is known only at run time) whose last vector is masked. A
/// matrix-vector product (n = 1) is left to the dot-product kernel.
LogicalResult emitMatmulKernel(RewriterBase &rewriter, linalg::LinalgOp op,
                               Value transposedB = Value(),
                               bool sequentialRows = false) {
  Value a = op.getDpsInputs()[0], b = op.getDpsInputs()[1];
  Value c = op.getDpsInits()[0];
  auto cType = cast<MemRefType>(c.getType());
  int64_t m = cType.getDimSize(0), n = cType.getDimSize(1);
  int64_t block = kVectors * kLanes;
  if (n == 1)
    return failure();
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value zero = constIndex(rewriter, loc, 0), one = constIndex(rewriter, loc, 1);
  Value k = memref::DimOp::create(rewriter, loc, a, 1);
  Type f32 = rewriter.getF32Type();
  auto vectorType = VectorType::get({kLanes}, f32);
  auto laneType = VectorType::get({kLanes}, rewriter.getI64Type());
  // Columns [0, nBlocked) take whole blocks, [nBlocked, n) the masked tile.
  bool dynamicN = ShapedType::isDynamic(n);
  Value nAll = dynamicN ? memref::DimOp::create(rewriter, loc, c, 1).getResult()
                        : constIndex(rewriter, loc, n);
  Value nBlocked =
      dynamicN ? arith::SubIOp::create(
                     rewriter, loc, nAll,
                     arith::RemUIOp::create(rewriter, loc, nAll,
                                            constIndex(rewriter, loc, block)))
                     .getResult()
               : constIndex(rewriter, loc, n - n % block);
  bool columnTail = dynamicN || n % block != 0;
  // The lane numbers, for masks, and the zeros masked loads fill in.
  SmallVector<int64_t> iota(kLanes);
  for (int64_t i = 0; i < kLanes; ++i)
    iota[i] = i;
  Value lanes = arith::ConstantOp::create(
      rewriter, loc, DenseElementsAttr::get(laneType, ArrayRef(iota)));
  Value zeros = arith::ConstantOp::create(
      rewriter, loc, DenseElementsAttr::get(vectorType, 0.0f));
  // A tile of C: `rows`, and `width` vectors from column `col`; with
  // `mask`, the last vector of each row is masked. Its k loop runs over
  // [kBegin, kEnd) (all of k when null), reading B's row segments with
  // `loadB` (B itself when null).
  using LoadB = std::function<Value(OpBuilder &, Location, Value, int64_t)>;
  auto emitTile = [&](OpBuilder &nb, Location nl, ArrayRef<Value> rows,
                      Value col, int64_t width, Value mask,
                      Value kBegin = Value(), Value kEnd = Value(),
                      const LoadB &loadB = nullptr) {
    SmallVector<Value> cols, accs;
    for (int64_t u = 0; u < width; ++u)
      cols.push_back(
          arith::AddIOp::create(nb, nl, col, constIndex(nb, loc, u * kLanes)));
    auto load = [&](OpBuilder &lb, Location ll, Value from, Value row,
                    int64_t u) -> Value {
      Value column = cols[u];
      if (mask && u == width - 1)
        return vector::MaskedLoadOp::create(lb, ll, vectorType, from,
                                            ValueRange{row, column}, mask,
                                            zeros);
      return vector::LoadOp::create(lb, ll, vectorType, from,
                                    ValueRange{row, column});
    };
    for (Value row : rows)
      for (int64_t u = 0; u < width; ++u)
        accs.push_back(load(nb, nl, c, row, u));
    auto kLoop = scf::ForOp::create(
        nb, nl, kBegin ? kBegin : zero, kEnd ? kEnd : k, one, accs,
        [&](OpBuilder &kb, Location kl, Value kk, ValueRange acc) {
          SmallVector<Value> bv, next;
          for (int64_t u = 0; u < width; ++u)
            bv.push_back(loadB ? loadB(kb, kl, kk, u) : load(kb, kl, b, kk, u));
          for (auto [r, row] : llvm::enumerate(rows)) {
            Value av = vector::BroadcastOp::create(
                kb, kl, vectorType,
                memref::LoadOp::create(kb, kl, a, ValueRange{row, kk}));
            for (int64_t u = 0; u < width; ++u)
              next.push_back(vector::FMAOp::create(kb, kl, av, bv[u],
                                                   acc[r * width + u]));
          }
          scf::YieldOp::create(kb, kl, next);
        });
    for (auto [r, row] : llvm::enumerate(rows))
      for (int64_t u = 0; u < width; ++u) {
        Value value = kLoop.getResult(r * width + u);
        if (mask && u == width - 1)
          vector::MaskedStoreOp::create(nb, nl, c, ValueRange{row, cols[u]},
                                        mask, value);
        else
          vector::StoreOp::create(nb, nl, value, c, ValueRange{row, cols[u]});
      }
  };
  // Rows [row0, row0 + rowCount) of C, every column.
  auto emitRows = [&](OpBuilder &pb, Location pl, Value row0,
                      int64_t rowCount) {
    SmallVector<Value> rows = rowRange(pb, pl, row0, rowCount);
    scf::ForOp::create(
        pb, pl, zero, nBlocked, constIndex(pb, loc, block), ValueRange{},
        [&](OpBuilder &nb, Location nl, Value col, ValueRange) {
          emitTile(nb, nl, rows, col, kVectors, Value());
          scf::YieldOp::create(nb, nl);
        });
    if (!columnTail)
      return;
    if (!dynamicN) {
      // The last n % block columns: one tile, its last vector masked
      // unless kLanes divides them.
      int64_t left = n % block, width = llvm::divideCeil(left, kLanes);
      Value mask;
      if (left % kLanes)
        mask = arith::CmpIOp::create(
            pb, pl, arith::CmpIPredicate::slt, lanes,
            arith::ConstantOp::create(
                pb, pl,
                DenseElementsAttr::get(laneType,
                                       static_cast<int64_t>(left % kLanes))));
      emitTile(pb, pl, rows, nBlocked, width, mask);
      return;
    }
    // The last columns, a vector at a time: lanes [0, n - col) are C's.
    scf::ForOp::create(
        pb, pl, nBlocked, nAll, constIndex(pb, loc, kLanes), ValueRange{},
        [&](OpBuilder &nb, Location nl, Value col, ValueRange) {
          Value left = arith::IndexCastOp::create(
              nb, nl, nb.getI64Type(),
              arith::SubIOp::create(nb, nl, nAll, col));
          Value mask = arith::CmpIOp::create(
              nb, nl, arith::CmpIPredicate::slt, lanes,
              vector::BroadcastOp::create(nb, nl, laneType, left));
          emitTile(nb, nl, rows, col, 1, mask);
          scf::YieldOp::create(nb, nl);
        });
  };
  bool tail = ShapedType::isDynamic(m) || m % kRows != 0;
  Value rowsAll = ShapedType::isDynamic(m)
                      ? memref::DimOp::create(rewriter, loc, c, 0).getResult()
                      : constIndex(rewriter, loc, m);
  Value rowsBlocked =
      !tail ? rowsAll
            : arith::SubIOp::create(
                  rewriter, loc, rowsAll,
                  arith::RemUIOp::create(rewriter, loc, rowsAll,
                                         constIndex(rewriter, loc, kRows)))
                  .getResult();
  int64_t kStatic = cast<MemRefType>(a.getType()).getDimSize(1);
  bool pack =
      transposedB ||
      (!sequentialRows && !dynamicN && !ShapedType::isDynamic(kStatic) &&
       kStatic * n * 4 >= kPackMinBytes && n >= kPackMinBlocks * block &&
       (ShapedType::isDynamic(m) || m >= 4 * kRows));
  if (!pack) {
    Value rowStep = constIndex(rewriter, loc, kRows);
    if (sequentialRows)
      scf::ForOp::create(
          rewriter, loc, zero, rowsBlocked, rowStep, ValueRange{},
          [&](OpBuilder &fb, Location fl, Value row0, ValueRange) {
            emitRows(fb, fl, row0, kRows);
            scf::YieldOp::create(fb, fl);
          });
    else
      scf::ParallelOp::create(rewriter, loc, ValueRange{zero},
                              ValueRange{rowsBlocked}, ValueRange{rowStep},
                              [&](OpBuilder &pb, Location pl, ValueRange ivs) {
                                emitRows(pb, pl, ivs[0], kRows);
                                scf::ReduceOp::create(pb, pl);
                              });
    if (tail)
      scf::ForOp::create(
          rewriter, loc, rowsBlocked, rowsAll, one, ValueRange{},
          [&](OpBuilder &fb, Location fl, Value row, ValueRange) {
            emitRows(fb, fl, row, 1);
            scf::YieldOp::create(fb, fl);
          });
    rewriter.eraseOp(op);
    return success();
  }

  // The packed path (static k and n; see kPackK): per block of B's rows,
  // each column block, in parallel, packs its slab (the last block zero
  // past n) and runs the tiles of every row on it. A transposed B is
  // gathered from its source W [n, k]: no transpose is written.
  int64_t blocksAll = llvm::divideCeil(n, block), fullBlocks = n / block;
  int64_t left = n % block;
  // k in equal blocks of at most kPackK rows (784: 4 x 196, not 3 x 256
  // and 16, whose tiles would load and store C for 16 steps).
  int64_t kBlock = llvm::divideCeil(kStatic, llvm::divideCeil(kStatic, kPackK));
  auto panelType = MemRefType::get({blocksAll, kBlock, block}, f32);
  Value panel = memref::AllocOp::create(rewriter, loc, panelType,
                                        rewriter.getI64IntegerAttr(64));
  Value kAll = constIndex(rewriter, loc, kStatic);
  Value nAllI64 = arith::ConstantOp::create(
      rewriter, loc, DenseElementsAttr::get(laneType, n));
  // W flattened, for the gathers of a transposed B.
  Value flatW;
  if (transposedB)
    flatW = memref::CollapseShapeOp::create(
        rewriter, loc, transposedB, SmallVector<ReassociationIndices>{{0, 1}});
  // The tile width and last-vector mask of the last, partial block.
  int64_t leftWidth = llvm::divideCeil(left, kLanes);
  auto leftMask = [&](OpBuilder &b, Location l) -> Value {
    if (left % kLanes == 0)
      return Value();
    return arith::CmpIOp::create(
        b, l, arith::CmpIPredicate::slt, lanes,
        arith::ConstantOp::create(
            b, l,
            DenseElementsAttr::get(laneType,
                                   static_cast<int64_t>(left % kLanes))));
  };

  scf::ForOp::create(
      rewriter, loc, zero, kAll, constIndex(rewriter, loc, kBlock),
      ValueRange{}, [&](OpBuilder &kb, Location kl, Value k0, ValueRange) {
        Value k1 = arith::MinUIOp::create(
            kb, kl, kAll,
            arith::AddIOp::create(kb, kl, k0, constIndex(kb, kl, kBlock)));
        Value kCount = arith::SubIOp::create(kb, kl, k1, k0);
        scf::ParallelOp::create(
            kb, kl, ValueRange{zero}, ValueRange{constIndex(kb, kl, blocksAll)},
            ValueRange{one}, [&](OpBuilder &pb, Location pl, ValueRange ivs) {
              Value t = ivs[0];
              Value col0 =
                  arith::MulIOp::create(pb, pl, t, constIndex(pb, pl, block));
              // Pack this block's slab of B: rows [k0, k1).
              scf::ForOp::create(
                  pb, pl, zero, kCount, one, ValueRange{},
                  [&](OpBuilder &cb, Location cl, Value i, ValueRange) {
                    Value kk = arith::AddIOp::create(cb, cl, k0, i);
                    for (int64_t u = 0; u < kVectors; ++u) {
                      Value col = arith::AddIOp::create(
                          cb, cl, col0, constIndex(cb, cl, u * kLanes));
                      Value columns = arith::AddIOp::create(
                          cb, cl,
                          vector::BroadcastOp::create(
                              cb, cl, laneType,
                              arith::IndexCastOp::create(cb, cl,
                                                         cb.getI64Type(), col)),
                          lanes);
                      Value inside = arith::CmpIOp::create(
                          cb, cl, arith::CmpIPredicate::slt, columns, nAllI64);
                      Value v;
                      if (transposedB) {
                        // W[col + lane][kk] = flatW[(col + lane) * k + kk].
                        Value at = arith::AddIOp::create(
                            cb, cl,
                            arith::MulIOp::create(
                                cb, cl, columns,
                                arith::ConstantOp::create(
                                    cb, cl,
                                    DenseElementsAttr::get(laneType, kStatic))),
                            vector::BroadcastOp::create(
                                cb, cl, laneType,
                                arith::IndexCastOp::create(
                                    cb, cl, cb.getI64Type(), kk)));
                        v = vector::GatherOp::create(cb, cl, vectorType, flatW,
                                                     ValueRange{zero}, at,
                                                     inside, zeros);
                      } else {
                        v = vector::MaskedLoadOp::create(cb, cl, vectorType, b,
                                                         ValueRange{kk, col},
                                                         inside, zeros);
                      }
                      vector::StoreOp::create(
                          cb, cl, v, panel,
                          ValueRange{t, i, constIndex(cb, cl, u * kLanes)});
                    }
                    scf::YieldOp::create(cb, cl);
                  });
              // Every row of C on the slab: the tiles of `width` vectors.
              LoadB fromPanel = [&](OpBuilder &lb, Location ll, Value kk,
                                    int64_t u) {
                return vector::LoadOp::create(
                           lb, ll, vectorType, panel,
                           ValueRange{t, arith::SubIOp::create(lb, ll, kk, k0),
                                      constIndex(lb, ll, u * kLanes)})
                    .getResult();
              };
              auto emitColumn = [&](OpBuilder &rb, Location rl, int64_t width,
                                    Value mask) {
                scf::ForOp::create(
                    rb, rl, zero, rowsBlocked, constIndex(rb, rl, kRows),
                    ValueRange{},
                    [&](OpBuilder &tb, Location tl, Value row0, ValueRange) {
                      emitTile(tb, tl, rowRange(tb, tl, row0, kRows), col0,
                               width, mask, k0, k1, fromPanel);
                      scf::YieldOp::create(tb, tl);
                    });
                if (tail)
                  scf::ForOp::create(
                      rb, rl, rowsBlocked, rowsAll, one, ValueRange{},
                      [&](OpBuilder &tb, Location tl, Value row, ValueRange) {
                        emitTile(tb, tl, {row}, col0, width, mask, k0, k1,
                                 fromPanel);
                        scf::YieldOp::create(tb, tl);
                      });
              };
              if (left == 0) {
                emitColumn(pb, pl, kVectors, Value());
              } else {
                Value whole =
                    arith::CmpIOp::create(pb, pl, arith::CmpIPredicate::ult, t,
                                          constIndex(pb, pl, fullBlocks));
                scf::IfOp::create(
                    pb, pl, whole,
                    [&](OpBuilder &ib, Location il) {
                      emitColumn(ib, il, kVectors, Value());
                      scf::YieldOp::create(ib, il);
                    },
                    [&](OpBuilder &ib, Location il) {
                      emitColumn(ib, il, leftWidth, leftMask(ib, il));
                      scf::YieldOp::create(ib, il);
                    });
              }
              scf::ReduceOp::create(pb, pl);
            });
        scf::YieldOp::create(kb, kl);
      });
  memref::DeallocOp::create(rewriter, loc, panel);
  rewriter.eraseOp(op);
  return success();
}

/// A 2-D matmul generic C += A * B on `a`, `b`, `c`.
linalg::GenericOp createMatmul(OpBuilder &builder, Location loc, Value a,
                               Value b, Value c) {
  MLIRContext *ctx = builder.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineMap> maps = {AffineMap::get(3, 0, {d(0), d(1)}, ctx),
                                 AffineMap::get(3, 0, {d(1), d(2)}, ctx),
                                 AffineMap::get(3, 0, {d(0), d(2)}, ctx)};
  SmallVector<utils::IteratorType> iterators = {utils::IteratorType::parallel,
                                                utils::IteratorType::reduction,
                                                utils::IteratorType::parallel};
  return linalg::GenericOp::create(
      builder, loc, TypeRange{}, ValueRange{a, b}, ValueRange{c}, maps,
      iterators, [](OpBuilder &bb, Location bl, ValueRange args) {
        Value product = arith::MulFOp::create(bb, bl, args[0], args[1]);
        linalg::YieldOp::create(
            bb, bl,
            ValueRange{arith::AddFOp::create(bb, bl, args[2], product)});
      });
}

/// A batched matmul on the 2-D kernel. With one B for all entries, the
/// batch and the rows of A and C are one dim: a single matmul of
/// (batch * m) rows. With a B per entry, the entries run in parallel,
/// each a 2-D kernel on views of its matrices, rows in sequence. (64
/// entries of 64^3: 0.61 ms in loops.)
/// A product with one column is left to the matrix-vector loops.
LogicalResult emitBatchedMatmulKernel(RewriterBase &rewriter,
                                      linalg::LinalgOp op, BatchedB kind) {
  Value a = op.getDpsInputs()[0], b = op.getDpsInputs()[1];
  Value c = op.getDpsInits()[0];
  if (cast<MemRefType>(c.getType()).getDimSize(2) == 1)
    return failure();
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  if (kind == BatchedB::Shared) {
    SmallVector<ReassociationIndices> rows = {{0, 1}, {2}};
    Value a2 = memref::CollapseShapeOp::create(rewriter, loc, a, rows);
    Value c2 = memref::CollapseShapeOp::create(rewriter, loc, c, rows);
    linalg::GenericOp matmul = createMatmul(rewriter, loc, a2, b, c2);
    rewriter.eraseOp(op);
    return emitMatmulKernel(rewriter, matmul);
  }
  Value zero = constIndex(rewriter, loc, 0), one = constIndex(rewriter, loc, 1);
  Value batch = memref::DimOp::create(rewriter, loc, c, 0);
  auto parallel = scf::ParallelOp::create(
      rewriter, loc, ValueRange{zero}, ValueRange{batch}, ValueRange{one},
      [&](OpBuilder &pb, Location pl, ValueRange ivs) {
        // Entry ivs[0] of a [batch, r, s] buffer, as a 2-D view.
        auto entry = [&](Value buffer) -> Value {
          auto type = cast<MemRefType>(buffer.getType());
          SmallVector<OpFoldResult> offsets = {ivs[0], pb.getIndexAttr(0),
                                               pb.getIndexAttr(0)};
          SmallVector<OpFoldResult> sizes = {pb.getIndexAttr(1)};
          for (int64_t i = 1; i < 3; ++i)
            sizes.push_back(
                type.isDynamicDim(i)
                    ? OpFoldResult(
                          memref::DimOp::create(pb, pl, buffer, i).getResult())
                    : OpFoldResult(pb.getIndexAttr(type.getDimSize(i))));
          SmallVector<OpFoldResult> strides(3, pb.getIndexAttr(1));
          auto viewType = memref::SubViewOp::inferRankReducedResultType(
              {type.getDimSize(1), type.getDimSize(2)}, type, offsets, sizes,
              strides);
          return memref::SubViewOp::create(pb, pl, viewType, buffer, offsets,
                                           sizes, strides);
        };
        createMatmul(pb, pl, entry(a), entry(b), entry(c));
        scf::ReduceOp::create(pb, pl);
      });
  rewriter.eraseOp(op);
  auto matmul = *parallel.getBody()->getOps<linalg::GenericOp>().begin();
  return emitMatmulKernel(rewriter, matmul, Value(), /*sequentialRows=*/true);
}

/// The transpose that alone writes `matmul`'s B, when the kernel can read
/// its input W instead (gathered into the packed panels): a 2-D
/// `linalg.transpose` of a row-major W with static shape into a buffer
/// that only the matmul reads (and a dealloc frees), with nothing between
/// the two that may write memory. Null otherwise.
linalg::TransposeOp foldableTranspose(linalg::LinalgOp matmul) {
  Value b = matmul.getDpsInputs()[1];
  auto alloc = b.getDefiningOp<memref::AllocOp>();
  if (!alloc || alloc->getBlock() != matmul->getBlock())
    return {};
  linalg::TransposeOp transpose;
  for (Operation *user : alloc->getUsers()) {
    if (user == matmul.getOperation() || isa<memref::DeallocOp>(user))
      continue;
    auto t = dyn_cast<linalg::TransposeOp>(user);
    if (!t || t.getInit() != b || transpose)
      return {};
    transpose = t;
  }
  if (!transpose || transpose->getBlock() != matmul->getBlock() ||
      !transpose->isBeforeInBlock(matmul) ||
      transpose.getPermutation() != ArrayRef<int64_t>{1, 0})
    return {};
  // Static, row-major, and big enough for the packed path.
  auto wType = dyn_cast<MemRefType>(transpose.getInput().getType());
  if (!wType || !wType.hasStaticShape() || !wType.getLayout().isIdentity() ||
      wType.getDimSize(0) < kPackMinBlocks * kVectors * kLanes ||
      wType.getNumElements() * 4 < kFoldMinBytes)
    return {};
  for (Operation *between = transpose->getNextNode(); between != matmul;
       between = between->getNextNode()) {
    if (isMemoryEffectFree(between) || isa<memref::AllocOp>(between))
      continue;
    // The fill of the matmul's own output.
    auto fill = dyn_cast<linalg::FillOp>(between);
    if (fill && fill.getOutputs()[0] == matmul.getDpsInits()[0] &&
        fill.getOutputs()[0].getDefiningOp<memref::AllocOp>())
      continue;
    return {};
  }
  return transpose;
}

/// The strides of an f32 conv2d generic with loops (n, oh, ow, kh, kw, c, f)
/// as the lowering builds it (input (n, oh*sh + kh, ow*sw + kw, c), filter
/// (kh, kw, c, f), output (n, oh, ow, f), a `out + in * w` body, rows of the
/// filter and the output contiguous), or nullopt.
std::optional<std::pair<int64_t, int64_t>> conv2DStrides(linalg::LinalgOp op) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || generic.getNumDpsInputs() != 2 || generic.getNumLoops() != 7)
    return std::nullopt;
  MLIRContext *ctx = op->getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  if (maps[1] != AffineMap::get(7, 0, {d(3), d(4), d(5), d(6)}, ctx) ||
      maps[2] != AffineMap::get(7, 0, {d(0), d(1), d(2), d(6)}, ctx) ||
      maps[0].getNumResults() != 4 || maps[0].getResult(0) != d(0) ||
      maps[0].getResult(3) != d(5))
    return std::nullopt;
  // `d(i) * s + d(j)` (or `d(i) + d(j)` for s = 1): the stride s.
  auto strideOf = [&](AffineExpr e, unsigned i, unsigned j) -> int64_t {
    for (int64_t s = 1; s <= 8; ++s)
      if (e == d(i) * s + d(j))
        return s;
    return 0;
  };
  int64_t sh = strideOf(maps[0].getResult(1), 1, 3);
  int64_t sw = strideOf(maps[0].getResult(2), 2, 4);
  if (!sh || !sw)
    return std::nullopt;
  for (Value v : op->getOperands()) {
    auto type = dyn_cast<MemRefType>(v.getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    if (!type || !type.getElementType().isF32() ||
        failed(type.getStridesAndOffset(strides, offset)) ||
        strides.back() != 1)
      return std::nullopt;
  }
  Block &body = generic.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getValues()[0].getDefiningOp<arith::AddFOp>();
  if (!add || body.getOperations().size() != 3 ||
      add.getLhs() != body.getArgument(2))
    return std::nullopt;
  auto mul = add.getRhs().getDefiningOp<arith::MulFOp>();
  if (!mul || mul.getLhs() != body.getArgument(0) ||
      mul.getRhs() != body.getArgument(1))
    return std::nullopt;
  return std::make_pair(sh, sw);
}

/// The register tile of the conv2d kernel: output pixels along a row (the
/// most that divide the row) by up to kVectors vectors of kLanes output
/// channels, at most kConvAccumulators vectors in all. With the filter's
/// vectors and a broadcast that leaves a few of the 32 registers of
/// AVX-512 spare, and enough independent FMAs to hide their latency.
constexpr int64_t kConvAccumulators = 24;

/// conv2d as a register-blocked kernel: for each (n, oh) and block of
/// output pixels (in parallel) and each block of channels, the
/// tile of the output stays in vector registers across (kh, kw, c): per
/// step, the filter's row segments are loaded once and each of the pixels'
/// input values is broadcast into the FMAs. The channel block is the
/// widest of up to kVectors vectors that divides the channels; if none
/// does (100 channels, or 10), blocks of kVectors vectors take what they
/// divide and one tile of the rest follows, its last vector masked. The
/// batch may be dynamic (a function traced with an unknown batch), and so
/// may the filter's size and input channels (the filter gradient convolves
/// by the output gradient, whose channels are the batch); the other dims
/// of the output and the filter's output channels must be static.
LogicalResult emitConv2DKernel(RewriterBase &rewriter, linalg::LinalgOp op,
                               int64_t sh, int64_t sw) {
  Value input = op.getDpsInputs()[0], filter = op.getDpsInputs()[1];
  Value out = op.getDpsInits()[0];
  auto outType = cast<MemRefType>(out.getType());
  auto filterType = cast<MemRefType>(filter.getType());
  if (filterType.isDynamicDim(3) ||
      llvm::any_of(outType.getShape().drop_front(), ShapedType::isDynamic))
    return failure();
  int64_t ow = outType.getDimSize(2), f = outType.getDimSize(3);
  // The widest block of up to kVectors vectors that divides the channels
  // (64 and 128 channels: blocks of 2); else blocks of kVectors vectors
  // (as many as the channels fill) and a tail.
  int64_t vectors = std::min<int64_t>(kVectors, f / kLanes);
  while (vectors > 0 && f % (vectors * kLanes) != 0)
    --vectors;
  if (vectors == 0)
    vectors = std::min<int64_t>(kVectors, llvm::divideCeil(f, kLanes));
  int64_t block = vectors * kLanes;
  int64_t blocked = f - f % block, left = f - blocked;
  int64_t tile = std::min(ow, kConvAccumulators / vectors);
  while (ow % tile != 0)
    --tile;
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value zero = constIndex(rewriter, loc, 0), one = constIndex(rewriter, loc, 1);
  auto vectorType = VectorType::get({kLanes}, rewriter.getF32Type());
  // The tail's last vector: lanes [0, left % kLanes) are channels.
  Value mask, zeros;
  if (left % kLanes) {
    auto laneType = VectorType::get({kLanes}, rewriter.getI64Type());
    SmallVector<int64_t> iota(kLanes);
    for (int64_t i = 0; i < kLanes; ++i)
      iota[i] = i;
    mask = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::slt,
        arith::ConstantOp::create(
            rewriter, loc, DenseElementsAttr::get(laneType, ArrayRef(iota))),
        arith::ConstantOp::create(
            rewriter, loc,
            DenseElementsAttr::get(laneType,
                                   static_cast<int64_t>(left % kLanes))));
    zeros = arith::ConstantOp::create(
        rewriter, loc, DenseElementsAttr::get(vectorType, 0.0f));
  }
  auto size = [&](Value v, MemRefType type, int64_t dim) -> Value {
    if (type.isDynamicDim(dim))
      return memref::DimOp::create(rewriter, loc, v, dim);
    return constIndex(rewriter, loc, type.getDimSize(dim));
  };
  Value batch = size(out, outType, 0);
  Value kernelRows = size(filter, filterType, 0);
  Value kernelCols = size(filter, filterType, 1);
  Value inChannels = size(filter, filterType, 2);
  scf::ParallelOp::create(
      rewriter, loc, ValueRange{zero, zero, zero},
      ValueRange{batch, constIndex(rewriter, loc, outType.getDimSize(1)),
                 constIndex(rewriter, loc, ow)},
      ValueRange{one, one, constIndex(rewriter, loc, tile)},
      [&](OpBuilder &pb, Location pl, ValueRange ivs) {
        Value n = ivs[0], oh = ivs[1];
        SmallVector<Value> pixels;
        for (int64_t p = 0; p < tile; ++p)
          pixels.push_back(
              arith::AddIOp::create(pb, pl, ivs[2], constIndex(pb, loc, p)));
        // The output channels [f0, f0 + width * kLanes) of the tile; with
        // `last` masked, the last vector covers only the mask's lanes.
        auto emitBlock = [&](OpBuilder &fb, Location fl, Value f0,
                             int64_t width, Value last) {
          SmallVector<Value> channels, accs;
          for (int64_t v = 0; v < width; ++v)
            channels.push_back(arith::AddIOp::create(
                fb, fl, f0, constIndex(fb, loc, v * kLanes)));
          auto load = [&](OpBuilder &lb, Value from, ValueRange at,
                          int64_t v) -> Value {
            if (last && v == width - 1)
              return vector::MaskedLoadOp::create(lb, fl, vectorType, from, at,
                                                  last, zeros);
            return vector::LoadOp::create(lb, fl, vectorType, from, at);
          };
          for (Value pixel : pixels)
            for (auto [v, ch] : llvm::enumerate(channels))
              accs.push_back(load(fb, out, ValueRange{n, oh, pixel, ch}, v));
          // (kh, kw, c) loops carrying the tile.
          auto loop = [&](OpBuilder &b, Value ub, ValueRange init,
                          function_ref<SmallVector<Value>(OpBuilder &, Value,
                                                          ValueRange)>
                              body) {
            return scf::ForOp::create(
                b, fl, zero, ub, one, init,
                [&](OpBuilder &lb, Location ll, Value iv, ValueRange acc) {
                  scf::YieldOp::create(lb, ll, body(lb, iv, acc));
                });
          };
          auto khLoop = loop(
              fb, kernelRows, accs,
              [&](OpBuilder &b1, Value kh, ValueRange a1) {
                Value row = arith::AddIOp::create(
                    b1, fl,
                    arith::MulIOp::create(b1, fl, oh, constIndex(b1, loc, sh)),
                    kh);
                auto kwLoop = loop(
                    b1, kernelCols, a1,
                    [&](OpBuilder &b2, Value kw, ValueRange a2) {
                      SmallVector<Value> cols;
                      for (Value pixel : pixels)
                        cols.push_back(arith::AddIOp::create(
                            b2, fl,
                            arith::MulIOp::create(b2, fl, pixel,
                                                  constIndex(b2, loc, sw)),
                            kw));
                      auto cLoop = loop(
                          b2, inChannels, a2,
                          [&](OpBuilder &b3, Value c, ValueRange a3) {
                            SmallVector<Value> ws, next;
                            for (auto [v, ch] : llvm::enumerate(channels))
                              ws.push_back(load(
                                  b3, filter, ValueRange{kh, kw, c, ch}, v));
                            for (auto [p, col] : llvm::enumerate(cols)) {
                              Value x = memref::LoadOp::create(
                                  b3, fl, input, ValueRange{n, row, col, c});
                              Value bx = vector::BroadcastOp::create(
                                  b3, fl, vectorType, x);
                              for (int64_t v = 0; v < width; ++v)
                                next.push_back(vector::FMAOp::create(
                                    b3, fl, bx, ws[v], a3[p * width + v]));
                            }
                            return next;
                          });
                      return SmallVector<Value>(cLoop.getResults());
                    });
                return SmallVector<Value>(kwLoop.getResults());
              });
          int64_t i = 0;
          for (Value pixel : pixels)
            for (auto [v, ch] : llvm::enumerate(channels)) {
              Value value = khLoop.getResult(i++);
              SmallVector<Value, 4> at{n, oh, pixel, ch};
              if (last && int64_t(v) == width - 1)
                vector::MaskedStoreOp::create(fb, fl, out, at, last, value);
              else
                vector::StoreOp::create(fb, fl, value, out, at);
            }
        };
        if (blocked > 0)
          scf::ForOp::create(
              pb, pl, zero, constIndex(pb, loc, blocked),
              constIndex(pb, loc, block), ValueRange{},
              [&](OpBuilder &fb, Location fl, Value f0, ValueRange) {
                emitBlock(fb, fl, f0, vectors, Value());
                scf::YieldOp::create(fb, fl);
              });
        if (left > 0)
          emitBlock(pb, pl, constIndex(pb, loc, blocked),
                    llvm::divideCeil(left, kLanes), mask);
        scf::ReduceOp::create(pb, pl);
      });
  rewriter.eraseOp(op);
  return success();
}

/// Adds the vector `sums` to the kLanes elements of the contiguous C
/// `flatC` from `row0`. nsz: C is usually the zeros of a fill, and LLVM
/// drops the add of a known zero only if the sign of a zero may change.
void addToC(OpBuilder &b, Location loc, Value flatC, Value row0, Value sums) {
  Value old = vector::LoadOp::create(b, loc, cast<VectorType>(sums.getType()),
                                     flatC, ValueRange{row0});
  vector::StoreOp::create(b, loc,
                          arith::AddFOp::create(b, loc, old, sums,
                                                arith::FastMathFlags::reassoc |
                                                    arith::FastMathFlags::nsz),
                          flatC, ValueRange{row0});
}

/// The loop around `op` in which `a` is read unchanged: `a` is defined
/// outside it, is a view of a function argument, an allocation or a
/// constant, and nothing in the loop may write that memory through any
/// memref computed from it (a view, a select): one handed to a region or a
/// call, or used by an op of unknown effects, counts as written. Null if
/// there is none (or the loop runs inside a parallel one, whose iterations
/// would all write A's transpose).
Operation *loopReadingUnchanged(Operation *op, Value a) {
  auto loop = op->getParentOfType<LoopLikeOpInterface>();
  if (!loop || loop->isAncestor(a.getParentBlock()->getParentOp()) ||
      loop->getParentOfType<scf::ParallelOp>())
    return nullptr;
  Value root = a;
  while (auto view = root.getDefiningOp<ViewLikeOpInterface>())
    root = view.getViewSource();
  // Memory that nothing but the memrefs computed from it reaches: an
  // argument (the caller's), an allocation, a constant.
  auto constantGlobal = [&](memref::GetGlobalOp get) {
    auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
        get, get.getNameAttr());
    return global && global.getConstant();
  };
  auto arg = dyn_cast<BlockArgument>(root);
  auto get = root.getDefiningOp<memref::GetGlobalOp>();
  if (arg ? !isa<FunctionOpInterface>(arg.getOwner()->getParentOp())
          : !root.getDefiningOp<memref::AllocOp>() &&
                !root.getDefiningOp<memref::AllocaOp>() &&
                !(get && constantGlobal(get)))
    return nullptr;
  SmallVector<Value> derived{root};
  for (size_t i = 0; i < derived.size(); ++i) {
    Value v = derived[i];
    for (Operation *user : v.getUsers()) {
      if (isa<RegionBranchOpInterface, CallOpInterface>(user) ||
          (user->hasTrait<OpTrait::IsTerminator>() &&
           !isa<func::ReturnOp>(user)))
        return nullptr;
      for (Value r : user->getResults())
        if (isa<BaseMemRefType>(r.getType()) && !llvm::is_contained(derived, r))
          derived.push_back(r);
      if (!loop->isAncestor(user))
        continue;
      auto effects = dyn_cast<MemoryEffectOpInterface>(user);
      if (!effects)
        return nullptr;
      SmallVector<MemoryEffects::EffectInstance> onValue;
      effects.getEffectsOnValue(v, onValue);
      for (const MemoryEffects::EffectInstance &e : onValue)
        if (!isa<MemoryEffects::Read>(e.getEffect()))
          return nullptr;
    }
  }
  // Nor may anything write memory it does not name. (A call reaches A only
  // through its operands, checked above.)
  WalkResult blind = loop->walk([](Operation *nested) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(nested);
    if (!effects)
      return WalkResult::advance();
    SmallVector<MemoryEffects::EffectInstance> all;
    effects.getEffects(all);
    for (const MemoryEffects::EffectInstance &e : all)
      if (isa<MemoryEffects::Write>(e.getEffect()) && !e.getValue())
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return blind.wasInterrupted() ? nullptr : loop.getOperation();
}

/// A small matrix-vector product (C is M x 1, M a multiple of kLanes) in a
/// loop that reads A unchanged, in column form: A is transposed once,
/// before the loop, into a stack buffer, and each block of kLanes rows of
/// C is the sum of A's columns scaled by the elements of B, in
/// kColumnSums FMA chains added at the end. No horizontal sums, and LLVM
/// keeps A's columns in registers across the iterations: a loop such as
/// x = tanh(W @ x + b) on 16 values waits for two FMAs and three adds
/// per step instead of a 4-level tree of shuffles.
constexpr int64_t kColumnSums = 8;
constexpr int64_t kMaxColumnMatvec = 1024; // elements of A
LogicalResult emitColumnMatvec(RewriterBase &rewriter, linalg::LinalgOp op) {
  Value a = op.getDpsInputs()[0], b = op.getDpsInputs()[1];
  Value c = op.getDpsInits()[0];
  auto aType = cast<MemRefType>(a.getType());
  auto cType = cast<MemRefType>(c.getType());
  int64_t m = aType.getDimSize(0), k = aType.getDimSize(1);
  if (cType.getDimSize(1) != 1 || ShapedType::isDynamic(m) ||
      ShapedType::isDynamic(k) || m % kLanes != 0 || k % kColumnSums != 0 ||
      m * k > kMaxColumnMatvec || !cType.getLayout().isIdentity() ||
      !cast<MemRefType>(b.getType()).getLayout().isIdentity())
    return failure();
  Operation *loop = loopReadingUnchanged(op, a);
  auto func = op->getParentOfType<func::FuncOp>();
  if (!loop || !func)
    return failure();
  Location loc = op.getLoc();
  Type f32 = rewriter.getF32Type();

  // At the function's entry (an alloca in a loop would grow the stack per
  // iteration), the K x M buffer; before the loop, A's transpose.
  rewriter.setInsertionPointToStart(&func.getBody().front());
  Value transposed =
      memref::AllocaOp::create(rewriter, loc, MemRefType::get({k, m}, f32),
                               rewriter.getI64IntegerAttr(64));
  rewriter.setInsertionPoint(loop);
  Value zero = constIndex(rewriter, loc, 0), one = constIndex(rewriter, loc, 1);
  scf::ForOp::create(
      rewriter, loc, zero, constIndex(rewriter, loc, m), one, ValueRange{},
      [&](OpBuilder &ib, Location il, Value i, ValueRange) {
        scf::ForOp::create(
            ib, il, zero, constIndex(ib, il, k), one, ValueRange{},
            [&](OpBuilder &jb, Location jl, Value j, ValueRange) {
              Value v = memref::LoadOp::create(jb, jl, a, ValueRange{i, j});
              memref::StoreOp::create(jb, jl, v, transposed, ValueRange{j, i});
              scf::YieldOp::create(jb, jl);
            });
        scf::YieldOp::create(ib, il);
      });

  rewriter.setInsertionPoint(op);
  zero = constIndex(rewriter, loc, 0);
  Value column = memref::CollapseShapeOp::create(
      rewriter, loc, b, SmallVector<ReassociationIndices>{{0, 1}});
  Value flatC = memref::CollapseShapeOp::create(
      rewriter, loc, c, SmallVector<ReassociationIndices>{{0, 1}});
  auto vectorType = VectorType::get({kLanes}, f32);
  Value zeros = arith::ConstantOp::create(
      rewriter, loc, DenseElementsAttr::get(vectorType, 0.0f));
  scf::ParallelOp::create(
      rewriter, loc, ValueRange{zero}, ValueRange{constIndex(rewriter, loc, m)},
      ValueRange{constIndex(rewriter, loc, kLanes)},
      [&](OpBuilder &pb, Location pl, ValueRange ivs) {
        Value row0 = ivs[0];
        SmallVector<Value> init(kColumnSums, zeros);
        auto kLoop = scf::ForOp::create(
            pb, pl, zero, constIndex(pb, pl, k),
            constIndex(pb, pl, kColumnSums), init,
            [&](OpBuilder &kb, Location kl, Value j0, ValueRange acc) {
              SmallVector<Value> next;
              for (auto [g, j] :
                   llvm::enumerate(rowRange(kb, kl, j0, kColumnSums))) {
                Value col = vector::LoadOp::create(
                    kb, kl, vectorType, transposed, ValueRange{j, row0});
                Value x = vector::BroadcastOp::create(
                    kb, kl, vectorType,
                    memref::LoadOp::create(kb, kl, column, ValueRange{j}));
                next.push_back(vector::FMAOp::create(kb, kl, col, x, acc[g]));
              }
              scf::YieldOp::create(kb, kl, next);
            });
        SmallVector<Value> sums(kLoop.getResults());
        while (sums.size() > 1) {
          SmallVector<Value> half;
          for (size_t i = 0; i < sums.size(); i += 2)
            half.push_back(arith::AddFOp::create(
                pb, pl, sums[i], sums[i + 1], arith::FastMathFlags::reassoc));
          sums = std::move(half);
        }
        addToC(pb, pl, flatC, row0, sums[0]);
        scf::ReduceOp::create(pb, pl);
      });
  rewriter.eraseOp(op);
  return success();
}

/// A matrix-vector product (C is M x 1) as dot products: for each row of A
/// (in parallel), kLanes-wide FMAs of a row segment of A and a segment of B
/// accumulate in one vector across k, reduced once and added to C. The loop
/// order (m, k, n) would instead walk a column of A per lane. Needs K to be
/// a static multiple of kLanes.
LogicalResult emitMatvecKernel(RewriterBase &rewriter, linalg::LinalgOp op) {
  Value a = op.getDpsInputs()[0], b = op.getDpsInputs()[1];
  Value c = op.getDpsInits()[0];
  auto aType = cast<MemRefType>(a.getType());
  auto bType = cast<MemRefType>(b.getType());
  auto cType = cast<MemRefType>(c.getType());
  int64_t k = aType.getDimSize(1);
  if (cType.getDimSize(1) != 1 || ShapedType::isDynamic(k) || k % kLanes != 0 ||
      !bType.getLayout().isIdentity())
    return failure();
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value zero = constIndex(rewriter, loc, 0), one = constIndex(rewriter, loc, 1);
  Value m = memref::DimOp::create(rewriter, loc, c, 0);
  // B is K x 1 and contiguous: read it as a vector of K.
  Value column = memref::CollapseShapeOp::create(
      rewriter, loc, b, SmallVector<ReassociationIndices>{{0, 1}});
  auto vectorType = VectorType::get({kLanes}, rewriter.getF32Type());
  Value zeros = arith::ConstantOp::create(
      rewriter, loc, DenseElementsAttr::get(vectorType, 0.0f));
  // Rows in blocks of kLanes when C is contiguous: the block's kLanes
  // accumulators are reduced together, by a tree of shuffles and adds
  // whose last level holds the kLanes sums in order, one vector added to
  // C. Reduced one by one, each row took a reduction of its own and a
  // scalar store, and a vector read of C then waited for all of them.
  Value blocked = zero;
  if (cType.getLayout().isIdentity()) {
    Value step = constIndex(rewriter, loc, kLanes);
    blocked = arith::SubIOp::create(
        rewriter, loc, m, arith::RemUIOp::create(rewriter, loc, m, step));
    Value flatC = memref::CollapseShapeOp::create(
        rewriter, loc, c, SmallVector<ReassociationIndices>{{0, 1}});
    scf::ParallelOp::create(
        rewriter, loc, ValueRange{zero}, ValueRange{blocked}, ValueRange{step},
        [&](OpBuilder &pb, Location pl, ValueRange ivs) {
          Value row0 = ivs[0];
          SmallVector<Value> rows = rowRange(pb, pl, row0, kLanes);
          SmallVector<Value> init(kLanes, zeros);
          auto kLoop = scf::ForOp::create(
              pb, pl, zero, constIndex(pb, pl, k), step, init,
              [&](OpBuilder &kb, Location kl, Value kk, ValueRange acc) {
                Value bv = vector::LoadOp::create(kb, kl, vectorType, column,
                                                  ValueRange{kk});
                SmallVector<Value> next;
                for (int64_t r = 0; r < kLanes; ++r)
                  next.push_back(vector::FMAOp::create(
                      kb, kl,
                      vector::LoadOp::create(kb, kl, vectorType, a,
                                             ValueRange{rows[r], kk}),
                      bv, acc[r]));
                scf::YieldOp::create(kb, kl, next);
              });
          // Each level pairs neighbours: of two vectors whose lanes hold
          // groups of `width` partial sums (one group per row), it makes
          // one whose groups are half as wide, the first's groups first.
          SmallVector<Value> level(kLoop.getResults());
          for (int64_t width = kLanes; width > 1; width /= 2) {
            SmallVector<int64_t> low, high;
            for (int64_t side = 0; side < 2; ++side)
              for (int64_t g = 0; g < kLanes; g += width)
                for (int64_t j = 0; j < width / 2; ++j) {
                  low.push_back(side * kLanes + g + j);
                  high.push_back(side * kLanes + g + width / 2 + j);
                }
            SmallVector<Value> next;
            for (size_t i = 0; i < level.size(); i += 2)
              next.push_back(arith::AddFOp::create(
                  pb, pl,
                  vector::ShuffleOp::create(pb, pl, level[i], level[i + 1],
                                            low),
                  vector::ShuffleOp::create(pb, pl, level[i], level[i + 1],
                                            high),
                  arith::FastMathFlags::reassoc));
            level = std::move(next);
          }
          addToC(pb, pl, flatC, row0, level[0]);
          scf::ReduceOp::create(pb, pl);
        });
  }
  scf::ParallelOp::create(
      rewriter, loc, ValueRange{blocked}, ValueRange{m}, ValueRange{one},
      [&](OpBuilder &pb, Location pl, ValueRange ivs) {
        Value row = ivs[0];
        auto kLoop = scf::ForOp::create(
            pb, pl, zero, constIndex(pb, loc, k), constIndex(pb, loc, kLanes),
            ValueRange{zeros},
            [&](OpBuilder &kb, Location kl, Value kk, ValueRange acc) {
              Value av = vector::LoadOp::create(kb, kl, vectorType, a,
                                                ValueRange{row, kk});
              Value bv = vector::LoadOp::create(kb, kl, vectorType, column,
                                                ValueRange{kk});
              scf::YieldOp::create(
                  kb, kl,
                  ValueRange{vector::FMAOp::create(kb, kl, av, bv, acc[0])});
            });
        Value old = memref::LoadOp::create(pb, pl, c, ValueRange{row, zero});
        Value sum = vector::ReductionOp::create(
            pb, pl, vector::CombiningKind::ADD, kLoop.getResult(0), old,
            arith::FastMathFlags::reassoc);
        memref::StoreOp::create(pb, pl, sum, c, ValueRange{row, zero});
        scf::ReduceOp::create(pb, pl);
      });
  rewriter.eraseOp(op);
  return success();
}

/// True if `type` describes one contiguous row-major block of memory, so
/// that a copy of it is a memcpy.
bool isContiguous(MemRefType type) {
  return type.getLayout().isIdentity() ||
         memref::isStaticShapeAndContiguousRowMajor(type);
}

/// A memref.copy with a strided side (the interior of a padded buffer, a
/// slice with steps) becomes a linalg.copy, which lowers to parallel loops
/// whose innermost one LLVM vectorizes, instead of a call of the runner
/// utilities' generic element-by-element copy.
void copyStridedAsLoops(RewriterBase &rewriter, memref::CopyOp copy) {
  auto source = cast<MemRefType>(copy.getSource().getType());
  auto target = cast<MemRefType>(copy.getTarget().getType());
  if (isContiguous(source) && isContiguous(target))
    return;
  rewriter.setInsertionPoint(copy);
  linalg::CopyOp::create(rewriter, copy.getLoc(),
                         ValueRange{copy.getSource()},
                         ValueRange{copy.getTarget()});
  rewriter.eraseOp(copy);
}

/// The loop dim that the innermost (contiguous) dim of `map` walks, if it
/// is a plain loop dim.
std::optional<unsigned> innermostDim(AffineMap map) {
  if (map.getNumResults() == 0)
    return std::nullopt;
  if (auto dim = dyn_cast<AffineDimExpr>(map.getResults().back()))
    return dim.getPosition();
  return std::nullopt;
}

/// A transpose (an all-parallel op with an input indexed by a permutation
/// of the loops whose contiguous dim is walked by another loop than the
/// output's) gets that loop second innermost: the
/// innermost loop writes the output contiguously, and the input's cache
/// lines, one per step of it, are reused from L1 by the next steps of the
/// loop around it. In the output's order that loop would be outermost and
/// every read a cache miss.
void orderTransposeLoops(RewriterBase &rewriter, linalg::LinalgOp op) {
  if (op.getNumLoops() < 3 || op.getNumReductionLoops() != 0 ||
      op.getNumDpsInits() != 1 || !op.hasPureBufferSemantics())
    return;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  std::optional<unsigned> out = innermostDim(maps.back());
  unsigned last = op.getNumLoops() - 1;
  if (!out || *out != last)
    return;
  std::optional<unsigned> in;
  for (OpOperand *input : op.getDpsInputOperands()) {
    auto type = dyn_cast<MemRefType>(input->get().getType());
    if (!type || type.getRank() == 0)
      continue;
    // A transposed read; a broadcast (fewer dims) reads one element per
    // loop nest it is not indexed by and gains nothing from another order.
    AffineMap map = op.getMatchingIndexingMap(input);
    std::optional<unsigned> dim = innermostDim(map);
    if (map.isPermutation() && dim && *dim != last) {
      in = dim;
      break;
    }
  }
  if (!in || *in == last - 1)
    return;
  rewriter.setInsertionPoint(op);
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic) {
    FailureOr<linalg::GenericOp> generalized =
        linalg::generalizeNamedOp(rewriter, op);
    if (failed(generalized))
      return;
    generic = *generalized;
  }
  // New loop i runs old loop order[i].
  SmallVector<unsigned> order;
  for (unsigned i = 0; i < last; ++i)
    if (i != *in)
      order.push_back(i);
  order.push_back(*in);
  order.push_back(last);
  (void)linalg::interchangeGenericOp(rewriter, generic, order);
}

struct OrderedLoopsPass
    : public fnc::impl::FncLowerToOrderedLoopsBase<OrderedLoopsPass> {
  using FncLowerToOrderedLoopsBase::FncLowerToOrderedLoopsBase;
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) { copies.push_back(copy); });
    for (memref::CopyOp copy : copies)
      copyStridedAsLoops(rewriter, copy);
    SmallVector<linalg::LinalgOp> parallel;
    getOperation().walk([&](linalg::LinalgOp op) { parallel.push_back(op); });
    for (linalg::LinalgOp op : parallel)
      orderTransposeLoops(rewriter, op);

    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.hasPureBufferSemantics() && reductionBeforeParallel(op))
        ops.push_back(op);
    });
    for (linalg::LinalgOp op : ops) {
      if (BatchedB kind = batchedMatmulF32(op);
          kind != BatchedB::None &&
          succeeded(emitBatchedMatmulKernel(rewriter, op, kind)))
        continue;
      if (isMatmulF32(op)) {
        // x @ W.T with a big W: the kernel gathers W into its panels, and
        // the transpose is never written.
        if (linalg::TransposeOp transpose = foldableTranspose(op)) {
          Value buffer = transpose.getInit();
          (void)emitMatmulKernel(rewriter, op, transpose.getInput());
          rewriter.eraseOp(transpose);
          for (Operation *user : llvm::make_early_inc_range(buffer.getUsers()))
            rewriter.eraseOp(user); // the dealloc
          rewriter.eraseOp(buffer.getDefiningOp());
          continue;
        }
        if (succeeded(emitMatmulKernel(rewriter, op)) ||
            (fastMath && (succeeded(emitColumnMatvec(rewriter, op)) ||
                          succeeded(emitMatvecKernel(rewriter, op)))))
          continue;
      }
      if (auto strides = conv2DStrides(op))
        if (succeeded(emitConv2DKernel(rewriter, op, strides->first,
                                       strides->second)))
          continue;
      int64_t leading = 0;
      for (utils::IteratorType it : op.getIteratorTypesArray()) {
        if (it != utils::IteratorType::parallel)
          break;
        ++leading;
      }
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::LinalgLoops> loops =
          linalg::linalgOpToLoops(rewriter, op);
      if (failed(loops))
        return signalPassFailure();
      rewriter.eraseOp(op);
      SmallVector<scf::ForOp> outer;
      for (int64_t i = 0; i < leading; ++i)
        outer.push_back(cast<scf::ForOp>((*loops)[i]));
      // linalgOpToLoops nests the loops perfectly: each leading loop holds
      // just the next one.
      if (!outer.empty())
        parallelize(rewriter, outer);
    }
  }
};
} // namespace

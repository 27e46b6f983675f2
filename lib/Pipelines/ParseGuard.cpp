//===- ParseGuard.cpp - Refuses text MLIR's own parsers crash on ----------===//
//
// fnc/Pipelines/ParseGuard.h. A scan of the text, not a parse: it finds the
// custom form of the ops whose parsers crash (their names outside strings
// and comments), follows the op to its `permutation` / `dimensions`
// keyword at the op's own nesting level, and checks the integer list after
// it as DenseI64ArrayAttr's parser reads it (decimal or hexadecimal
// integers, true and false). Anything it does not recognize ends the scan
// of that op: the parser then reports it without crashing. In the file
// metadata (`{-# ... #-}`) it reads the alignment that starts each hex
// blob: MLIR accepts 0 there and then fails to allocate the blob.
//
//===----------------------------------------------------------------------===//

#include "fnc/Pipelines/ParseGuard.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cctype>
#include <limits>

using namespace mlir;

namespace {

bool idStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool idChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
         c == '$' || c == '.';
}

/// A cursor over the text that skips what cannot hold an op name.
struct Cursor {
  llvm::StringRef text;
  size_t i = 0;

  bool done() const { return i >= text.size(); }
  char peek() const { return done() ? '\0' : text[i]; }
  const char *here() const { return text.data() + i; }

  /// Skips white space and `//` comments.
  void skipSpace() {
    while (!done()) {
      if (std::isspace(static_cast<unsigned char>(text[i]))) {
        ++i;
      } else if (text.substr(i).starts_with("//")) {
        size_t eol = text.find('\n', i);
        i = eol == llvm::StringRef::npos ? text.size() : eol + 1;
      } else {
        return;
      }
    }
  }
  /// Skips a string literal (at its opening quote).
  void skipString() {
    for (++i; !done() && text[i] != '"'; ++i)
      if (text[i] == '\\')
        ++i;
    ++i;
  }
  llvm::StringRef word() {
    size_t begin = i;
    while (!done() && idChar(text[i]))
      ++i;
    return text.slice(begin, i);
  }
};

/// Checks the integer list after `keyword =` (the cursor after keyword).
std::optional<fnc::ParserHazard> checkList(Cursor c, llvm::StringRef op,
                                           llvm::StringRef keyword) {
  c.skipSpace();
  if (c.peek() != '=')
    return std::nullopt; // the parser reports the missing `=`
  ++c.i;
  c.skipSpace();
  const char *at = c.here();
  auto bad = [&] {
    return fnc::ParserHazard{at, "custom op '" + op.str() +
                                     "' expected a list of integers such "
                                     "as [1, 0] after `" +
                                     keyword.str() + " =`"};
  };
  if (c.peek() != '[')
    return bad();
  ++c.i;
  c.skipSpace();
  if (c.peek() == ']')
    return std::nullopt;
  for (;;) {
    c.skipSpace();
    bool negative = c.peek() == '-';
    if (negative)
      ++c.i;
    if (!std::isalnum(static_cast<unsigned char>(c.peek())))
      return bad();
    llvm::StringRef token = c.word();
    if (!negative && (token == "true" || token == "false")) {
      // i1 literals, read as 1 and 0
    } else {
      unsigned radix = token.starts_with("0x") ? 16 : 10;
      llvm::StringRef digits = radix == 16 ? token.drop_front(2) : token;
      uint64_t value;
      uint64_t limit = std::numeric_limits<int64_t>::max();
      if (digits.empty() || digits.getAsInteger(radix, value) ||
          value > limit + (negative ? 1 : 0))
        return bad();
    }
    c.skipSpace();
    if (c.peek() == ']')
      return std::nullopt;
    if (c.peek() != ',')
      return bad();
    ++c.i;
  }
}

/// Follows the op whose name the cursor has just passed to its keyword:
/// `ins(...)`, `outs(...)`, an attribute dictionary and properties may
/// come first; anything else at the op's level ends the scan.
std::optional<fnc::ParserHazard> checkOp(Cursor c, llvm::StringRef op,
                                         llvm::StringRef keyword) {
  int depth = 0;
  for (;;) {
    c.skipSpace();
    if (c.done())
      return std::nullopt;
    char ch = c.peek();
    if (ch == '"') {
      c.skipString();
    } else if (ch == '(' || ch == '[' || ch == '{') {
      ++depth;
      ++c.i;
    } else if (ch == ')' || ch == ']' || ch == '}') {
      if (--depth < 0)
        return std::nullopt;
      ++c.i;
    } else if (idChar(ch)) {
      llvm::StringRef w = c.word();
      if (depth > 0 || w == "ins" || w == "outs")
        continue;
      if (w != keyword)
        return std::nullopt;
      return checkList(c, op, keyword);
    } else if (depth == 0 && (ch == '%' || ch == '^' || ch == '=' ||
                              ch == ':')) {
      return std::nullopt; // another op, or a block
    } else {
      ++c.i;
    }
  }
}

/// Checks the hex blobs of the file metadata that starts at `c`: each
/// `"0x..."` string begins with its alignment, a little-endian 32-bit
/// integer that MLIR's parser rejects unless it is a power of two -- except
/// 0, which it passes on to the allocator (an out-of-memory abort).
std::optional<fnc::ParserHazard> checkBlobs(Cursor c) {
  while (!c.done()) {
    c.skipSpace();
    if (c.peek() != '"') {
      ++c.i;
      continue;
    }
    const char *at = c.here();
    c.skipString();
    llvm::StringRef literal(at, c.here() - at);
    if (!literal.starts_with("\"0x") || literal.size() < 2 + 2 + 8)
      continue;
    llvm::StringRef align = literal.substr(3, 8);
    if (llvm::all_of(align, [](char ch) { return ch == '0'; }))
      return fnc::ParserHazard{
          at, "resource blob starts with alignment 0; its first 4 bytes "
              "must hold a power of two such as 0x04000000 (4, little "
              "endian)"};
  }
  return std::nullopt;
}

} // namespace

std::optional<fnc::ParserHazard>
fnc::findParserHazard(llvm::StringRef text) {
  static const struct {
    llvm::StringRef op, keyword;
  } crashing[] = {{"linalg.transpose", "permutation"},
                  {"linalg.broadcast", "dimensions"},
                  {"linalg.reduce", "dimensions"}};
  Cursor c{text};
  while (!c.done()) {
    c.skipSpace();
    char ch = c.peek();
    if (ch == '"') {
      c.skipString();
    } else if (c.text.substr(c.i).starts_with("{-#")) {
      return checkBlobs(c);
    } else if (idStart(ch)) {
      llvm::StringRef w = c.word();
      for (const auto &k : crashing)
        if (w == k.op)
          if (auto hazard = checkOp(c, k.op, k.keyword))
            return hazard;
    } else if (idChar(ch)) {
      c.word(); // a number, or a name after % # ! ^ @
    } else if (!c.done()) {
      ++c.i;
    }
  }
  return std::nullopt;
}

namespace {
std::optional<fnc::ParserHazard> mainHazard(const llvm::SourceMgr &sources) {
  if (sources.getNumBuffers() == 0)
    return std::nullopt;
  const llvm::MemoryBuffer *buffer =
      sources.getMemoryBuffer(sources.getMainFileID());
  return fnc::findParserHazard(buffer->getBuffer());
}
} // namespace

bool fnc::checkParserHazards(const llvm::SourceMgr &sources,
                             llvm::raw_ostream &os) {
  std::optional<ParserHazard> hazard = mainHazard(sources);
  if (!hazard)
    return true;
  sources.PrintMessage(os, llvm::SMLoc::getFromPointer(hazard->at),
                       llvm::SourceMgr::DK_Error, hazard->message);
  return false;
}

OwningOpRef<ModuleOp> fnc::parseModule(llvm::SourceMgr &sources,
                                       const ParserConfig &config) {
  if (std::optional<ParserHazard> hazard = mainHazard(sources)) {
    auto [line, column] = sources.getLineAndColumn(
        llvm::SMLoc::getFromPointer(hazard->at), sources.getMainFileID());
    llvm::StringRef name =
        sources.getMemoryBuffer(sources.getMainFileID())->getBufferIdentifier();
    emitError(FileLineColLoc::get(config.getContext(), name, line, column),
              hazard->message);
    return nullptr;
  }
  return parseSourceFile<ModuleOp>(sources, config);
}

OwningOpRef<ModuleOp>
fnc::parseModule(const std::shared_ptr<llvm::SourceMgr> &sources,
                 const ParserConfig &config) {
  if (mainHazard(*sources))
    return parseModule(*sources, config);
  return parseSourceFile<ModuleOp>(sources, config);
}

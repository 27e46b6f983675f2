//===- Strings.h - String tensors: tf.strings in C++ ------------*- C++ -*-===//
//
// Tensors of dtype string (DType::str) hold byte strings, UTF-8 by
// convention, as TensorFlow's tf.string:
//
//   fnc::Tensor s("a");                         // a string scalar
//   fnc::Tensor names = {"ada", "grace"};       // shape (2,)
//   fnc::strings::join({names, "!"}, " ")       // [b'ada !' b'grace !']
//   names == "ada"                              // [ True False]
//
// They run eagerly and staged (a fnc::function that uses strings runs on
// fnc's graph executor, never compiled: docs/Strings.md) and are not
// differentiable. What accepts them: ==, != and + (concatenation, as
// tf.add; with a string tensor of the same shape or a broadcast one), the
// functions below, fnc::print, fnc::cond
// (as a predicate through ==, and as branch results), function arguments
// and results, .npy/.npz files (numpy's `<U` dtype). Every other op throws
// InvalidArgument naming itself.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_STRINGS_H
#define FNC_STRINGS_H

#include "fnc/Tensor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fnc::strings {

/// tf.strings.join: the elementwise concatenation of `inputs` (string
/// tensors broadcast together, numpy's rule) with `separator` between
/// them. At least one input.
Tensor join(const std::vector<Tensor> &inputs,
            const std::string &separator = "");

/// tf.strings.format: `format` with each `placeholder` replaced by the
/// printed values of the next input (as fnc::print writes them: a string
/// scalar bare, `[1 2]`, `3.5`); a string scalar. The number of
/// placeholders must equal the number of inputs.
Tensor format(const std::string &format, const std::vector<Tensor> &inputs,
              const std::string &placeholder = "{}");

/// The unit of length(): bytes, or UTF-8 characters (code points).
enum class Unit { Byte, UTF8Char };

/// tf.strings.length: the length of each element, int32, of the input's
/// shape. UTF8Char counts code points and throws InvalidArgument for a
/// string that is not valid UTF-8.
Tensor length(const Tensor &input, Unit unit = Unit::Byte);

/// tf.strings.upper / lower: ASCII letters changed, other bytes kept.
Tensor upper(const Tensor &input);
Tensor lower(const Tensor &input);

/// tf.strings.split, made dense: a scalar gives the 1-D tensor of its
/// parts; a 1-D tensor of n strings gives an [n, m] tensor, row i holding
/// the parts of element i followed by empty strings up to m, the most parts
/// of any element (TensorFlow returns a RaggedTensor; this is its
/// to_tensor()). An empty `separator` splits on runs of whitespace and
/// drops empty parts (TensorFlow's sep=None); otherwise every occurrence
/// splits (`"a,,b"` by `","`: "a", "", "b"). `maxsplit` >= 0 limits the
/// splits per element (the rest stays in the last part). Rank > 1 throws
/// InvalidArgument.
Tensor split(const Tensor &input, const std::string &separator = "",
             int64_t maxsplit = -1);

} // namespace fnc::strings

#endif // FNC_STRINGS_H

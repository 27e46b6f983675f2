//===- Checkpoint.h - Saving and restoring named variables ------*- C++ -*-===//
//
// Checkpoints of a model's variables as .npz archives (fnc/IO.h), one
// array per variable, keyed by name:
//
//   std::vector<std::pair<std::string, fnc::Variable>> vars = {
//       {"dense_1/kernel", w}, {"dense_1/bias", b}};
//   fnc::save_variables("/tmp/model.npz", vars);
//   ...
//   fnc::restore_variables("/tmp/model.npz", vars);  // w, b as saved
//
// In Python, np.load("/tmp/model.npz")["dense_1/kernel"] reads a variable.
//
// restore_variables is all or nothing: it reads the whole file, compares it
// with `vars` (names missing from the file, names the file has that `vars`
// lacks, different dtypes or shapes) and throws one InvalidArgument that
// lists every difference, having assigned nothing; only when file and list
// agree does it assign every variable. The file's element types are read
// as fnc::load_npz reads them (a uint8 array restores an int32 variable).
//
// Both are eager operations: calling them while a fnc::function traces
// throws FailedPrecondition (save or restore before or after the staged
// calls; the variables the function captures see the restored values on
// its next call, without retracing). Other errors are those of
// fnc::save_npz / fnc::load_npz (a missing or corrupt file, an unwritable
// directory), plus InvalidArgument for a null variable, an empty name or a
// name given twice in `vars`.
//
// Writes are atomic (a previous checkpoint at `path` survives a failed
// save). Thread-safety: as tf.Variable, assignments are not synchronized
// with concurrent readers or writers of the same variables.
//
// It includes only the C++ standard library. See docs/Data.md.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_CHECKPOINT_H
#define FNC_CHECKPOINT_H

#include "fnc/Variable.h"

#include <string>
#include <utility>
#include <vector>

namespace fnc {

/// Writes the current value of every variable in `vars` to the .npz file
/// `path`, as the array named by its name.
void save_variables(const std::string &path,
                    const std::vector<std::pair<std::string, Variable>> &vars);

/// Assigns every variable in `vars` the array of its name in the .npz file
/// `path`; see the file comment for what must agree.
void restore_variables(
    const std::string &path,
    const std::vector<std::pair<std::string, Variable>> &vars);

} // namespace fnc

#endif // FNC_CHECKPOINT_H

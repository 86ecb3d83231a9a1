#include "compiler/passes/Pass.h"

namespace kiln {

// Out of line so the vtable has one home.
Pass::~Pass() = default;

} // namespace kiln

// SPDX-License-Identifier: MIT
#pragma once

#include "PythonModule.h"

#include <memory>
#include <string>
#include <vector>

namespace splitscope::importer {

// The Python modules read together (one file, or every file of a pipelines folder)
// and name resolution across them, the way Python would find a name used in a
// module: its own definitions first, then what it imports (`from .qwen_image import
// QwenImageUnit_X as X`, `import diffsynth.diffusion.base_pipeline as bp` then
// `bp.PipelineUnit`), following re-exports a bounded number of times. A name that is
// imported from a module outside the set is not found. A class or function name that
// is neither defined nor imported (`from .units import *` brought it) resolves to the
// one definition of that name in the set, if there is exactly one. Module paths match
// files by their last component (the folder's files are siblings), which is how
// DiffSynth's relative imports read.
class ModuleSet {
public:
    template <typename T>
    struct Found {
        const PythonModule *module = nullptr;
        const T *item = nullptr;
        explicit operator bool() const { return item != nullptr; }
    };

    void add(std::unique_ptr<PythonModule> module);
    const std::vector<std::unique_ptr<PythonModule>> &modules() const { return m_modules; }

    Found<ClassDef> findClass(const PythonModule &from, const std::string &dottedName) const;
    Found<FunctionDef> findFunction(const PythonModule &from, const std::string &dottedName) const;
    Found<Constant> findConstant(const PythonModule &from, const std::string &dottedName) const;

    // The last component of what `dottedName` names in `from` after import aliases:
    // "PipelineUnit" for `PU` after `from ..base_pipeline import PipelineUnit as PU`.
    std::string originalName(const PythonModule &from, const std::string &dottedName) const;

private:
    // Re-exports are followed at most this many times (and cycles end there).
    static constexpr int kMaxImportHops = 8;

    template <typename T, typename Lookup>
    Found<T> find(const PythonModule &from, const std::string &dottedName, Lookup lookup, bool globalFallback,
        int hops) const;
    const PythonModule *moduleForImport(const std::string &modulePath, const std::string &name) const;

    std::vector<std::unique_ptr<PythonModule>> m_modules;
};

} // namespace splitscope::importer

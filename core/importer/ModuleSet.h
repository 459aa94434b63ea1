// SPDX-License-Identifier: MIT
#pragma once

#include "PythonModule.h"

#include <memory>
#include <string>
#include <vector>

namespace splitscope::importer {

// The Python modules read together and name resolution across them, as Python finds a name: a module's own
// definitions, then its imports (matched to files by their last component), following re-exports a bounded number
// of times. A class or function neither defined nor imported (a star import) is the one of that name in the set.
class ModuleSet {
public:
    template <typename T>
    struct Found {
        const PythonModule *module = nullptr;
        const T *item = nullptr;
        explicit operator bool() const { return item != nullptr; }
    };

    void add(std::unique_ptr<PythonModule> module) { m_modules.push_back(std::move(module)); }
    const std::vector<std::unique_ptr<PythonModule>> &modules() const { return m_modules; }

    Found<ClassDef> findClass(const PythonModule &from, const std::string &dottedName) const;
    Found<FunctionDef> findFunction(const PythonModule &from, const std::string &dottedName) const;
    Found<Constant> findConstant(const PythonModule &from, const std::string &dottedName) const;

    // The last component of what `dottedName` names after import aliases: "PipelineUnit" for `PU` after
    // `from ..base_pipeline import PipelineUnit as PU`.
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

// "c" for "a.b.c".
std::string lastComponent(const std::string &dotted);

} // namespace splitscope::importer

// SPDX-License-Identifier: MIT
#include "ModuleSet.h"

namespace splitscope::importer {

std::string lastComponent(const std::string &dotted)
{
    return dotted.substr(dotted.find_last_of('.') + 1); // npos + 1 is 0
}

const PythonModule *ModuleSet::moduleForImport(const std::string &modulePath, const std::string &name) const
{
    // `from . import qwen_image` names the module by `name`; `import a.b.qwen_image`
    // and `from ..a.qwen_image import X` by the path's last component.
    const std::string byPath = lastComponent(modulePath);
    for (const auto &m : m_modules) {
        if (!name.empty() && m->stem() == name && (modulePath.empty() || modulePath.back() == '.'))
            return m.get();
    }
    for (const auto &m : m_modules) {
        if (!byPath.empty() && m->stem() == byPath)
            return m.get();
    }
    return nullptr;
}

template <typename T, typename Lookup>
ModuleSet::Found<T> ModuleSet::find(const PythonModule &from, const std::string &dottedName, Lookup lookup,
    bool globalFallback, int hops) const
{
    if (dottedName.empty() || hops > kMaxImportHops)
        return {};
    const std::size_t dot = dottedName.find('.');
    const std::string head = dottedName.substr(0, dot);
    const auto imported = from.imports().find(head);
    if (dot == std::string::npos) {
        if (const T *local = lookup(from, dottedName))
            return {&from, local};
        if (imported != from.imports().end()) {
            // Imported by name: found in that module when it is in the set, and nowhere else.
            if (imported->second.name.empty())
                return {};
            const PythonModule *target = moduleForImport(imported->second.module, std::string());
            if (!target || target == &from)
                return {};
            return find<T>(*target, imported->second.name, lookup, false, hops + 1);
        }
    } else {
        // `alias.Name`: alias is an imported module; anything else (self.x) is not a definition.
        if (imported == from.imports().end())
            return {};
        const std::string rest = dottedName.substr(dot + 1);
        const PythonModule *target = moduleForImport(imported->second.module, imported->second.name);
        if (!target && imported->second.name.empty())
            target = moduleForImport(imported->second.module + "." + rest.substr(0, rest.find('.')), std::string());
        if (!target || target == &from)
            return {};
        return find<T>(*target, lastComponent(rest), lookup, false, hops + 1);
    }
    // A name neither defined nor imported here (a star import brought it): the one
    // definition of that name in the set, if there is exactly one.
    if (!globalFallback)
        return {};
    Found<T> unique;
    for (const auto &m : m_modules) {
        if (const T *item = lookup(*m, dottedName)) {
            if (unique)
                return {}; // ambiguous
            unique = {m.get(), item};
        }
    }
    return unique;
}

ModuleSet::Found<ClassDef> ModuleSet::findClass(const PythonModule &from, const std::string &dottedName) const
{
    return find<ClassDef>(from, dottedName,
        [](const PythonModule &m, const std::string &n) { return m.findClass(n); }, true, 0);
}

ModuleSet::Found<FunctionDef> ModuleSet::findFunction(const PythonModule &from, const std::string &dottedName) const
{
    return find<FunctionDef>(from, dottedName,
        [](const PythonModule &m, const std::string &n) { return m.findFunction(n); }, true, 0);
}

ModuleSet::Found<Constant> ModuleSet::findConstant(const PythonModule &from, const std::string &dottedName) const
{
    // No global fallback for constants: an unrelated module's `PARAMS` is not this one's.
    return find<Constant>(from, dottedName,
        [](const PythonModule &m, const std::string &n) {
            const auto it = m.constants().find(n);
            return it == m.constants().end() ? nullptr : &it->second;
        },
        false, 0);
}

std::string ModuleSet::originalName(const PythonModule &from, const std::string &dottedName) const
{
    if (dottedName.find('.') != std::string::npos)
        return lastComponent(dottedName);
    const auto imported = from.imports().find(dottedName);
    return imported != from.imports().end() && !imported->second.name.empty() ? imported->second.name : dottedName;
}

} // namespace splitscope::importer

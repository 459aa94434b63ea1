// SPDX-License-Identifier: MIT
#include "ModuleSet.h"

namespace splitscope::importer {

namespace {

std::string lastComponent(const std::string &dotted)
{
    const std::size_t dot = dotted.find_last_of('.');
    return dot == std::string::npos ? dotted : dotted.substr(dot + 1);
}

} // namespace

void ModuleSet::add(std::unique_ptr<PythonModule> module)
{
    m_modules.push_back(std::move(module));
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
    if (dot == std::string::npos) {
        if (const T *local = lookup(from, dottedName))
            return {&from, local};
        const auto imported = from.imports().find(dottedName);
        if (imported != from.imports().end() && !imported->second.name.empty()) {
            if (const PythonModule *target = moduleForImport(imported->second.module, std::string())) {
                if (target != &from) {
                    if (auto found = find<T>(*target, imported->second.name, lookup, false, hops + 1))
                        return found;
                }
            }
        }
    } else {
        // `alias.Name`: alias is an imported module.
        const std::string head = dottedName.substr(0, dot);
        const auto imported = from.imports().find(head);
        if (imported != from.imports().end()) {
            const std::string rest = dottedName.substr(dot + 1);
            const PythonModule *target = moduleForImport(imported->second.module, imported->second.name);
            if (!target && imported->second.name.empty())
                target = moduleForImport(imported->second.module + "." + rest.substr(0, rest.find('.')), std::string());
            if (target && target != &from) {
                if (auto found = find<T>(*target, lastComponent(rest), lookup, false, hops + 1))
                    return found;
            }
        }
    }
    if (!globalFallback)
        return {};
    // Last resort: the one definition of that name anywhere in the set.
    const std::string name = lastComponent(dottedName);
    Found<T> unique;
    for (const auto &m : m_modules) {
        if (const T *item = lookup(*m, name)) {
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
    const std::string head = dottedName.substr(0, dottedName.find('.'));
    if (head == dottedName) {
        const auto imported = from.imports().find(dottedName);
        if (imported != from.imports().end() && !imported->second.name.empty())
            return imported->second.name;
        return dottedName;
    }
    return lastComponent(dottedName);
}

} // namespace splitscope::importer

// SPDX-License-Identifier: MIT
#include "PipelineSource.h"

#include "resources/Examples.h"

#include <QFileInfo>

namespace splitscope {

QString PipelineSource::displayName() const
{
    if (!exampleName.isEmpty())
        return QStringLiteral("%1 (example)").arg(exampleName);
    if (path.isEmpty() && !importedFrom.isEmpty())
        return QStringLiteral("imported from %1").arg(QFileInfo(importedFrom).fileName());
    return QFileInfo(path).fileName();
}

SourcedLoad loadPipelineFromFile(const QString &path)
{
    SourcedLoad load;
    load.source.path = QFileInfo(path).absoluteFilePath();
    load.result = loadPipelineFile(load.source.path.toStdString());
    return load;
}

SourcedLoad loadBuiltinExample(const QString &name)
{
    SourcedLoad load;
    load.source.exampleName = name;
    if (const BuiltinExample *example = findBuiltinExample(name.toStdString())) {
        load.result = parsePipeline(example->json, "<built-in " + example->name + ">");
        return load;
    }
    Diagnostic d;
    d.code = "io";
    d.file = name.toStdString();
    d.message = "no built-in example has this name";
    load.result.diagnostics.push_back(d);
    return load;
}

SourcedLoad loadPipelineSource(const QString &argument)
{
    const QFileInfo info(argument);
    // A folder is not a pipeline file, so one named like a built-in does not hide it
    // (as in splitscope-cli); "./NAME" is always the path.
    if ((!info.exists() || info.isDir()) && !argument.contains(QLatin1Char('/'))
        && findBuiltinExample(argument.toStdString()) != nullptr)
        return loadBuiltinExample(argument);
    SourcedLoad load = loadPipelineFromFile(argument);
    if (!info.exists() && !load.result.diagnostics.empty()) {
        std::string names;
        for (const BuiltinExample &e : builtinExamples())
            names += (names.empty() ? "" : ", ") + e.name;
        load.result.diagnostics.front().message
            += " (and no built-in example has that name; built-in: " + names + ")";
    }
    return load;
}

} // namespace splitscope

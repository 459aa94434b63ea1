// SPDX-License-Identifier: MIT
#include "EngineTestSupport.h"

#include "core/engine/Safetensors.h"
#include "core/engine/SyntheticDataset.h"

#include <QFile>
#include <QJsonDocument>
#include <QProcess>

#include <cmath>
#include <cstring>

namespace enginetest {

const char *const kModelSpecs = "Qwen/Qwen-Image:transformer/diffusion_pytorch_model*.safetensors,"
                                "Qwen/Qwen-Image:text_encoder/model*.safetensors,"
                                "Qwen/Qwen-Image:vae/diffusion_pytorch_model.safetensors";
const char *const kLoraTargets = "to_q,to_k,to_v,add_q_proj,add_k_proj,add_v_proj,to_out.0,to_add_out,img_mlp.net.2,"
                                 "img_mod.1,txt_mlp.net.2,txt_mod.1";

bool Fixture::setUp(QString *error, int count)
{
    m_dir = std::make_unique<QTemporaryDir>();
    if (!m_dir->isValid()) {
        *error = "no temporary folder";
        return false;
    }
    engine::InitModelsParams init;
    init.root = models().toStdString();
    init.preset = "small";
    std::string e;
    if (!engine::initModels(init, nullptr, &e)) {
        *error = QString::fromStdString(e);
        return false;
    }
    engine::SyntheticDatasetOptions plain;
    plain.directory = data().toStdString();
    plain.count = count;
    plain.width = 32;
    plain.height = 32;
    engine::SyntheticDatasetOptions edit = plain;
    edit.directory = editData().toStdString();
    edit.edit = true;
    edit.editWidth = 48;
    edit.editHeight = 32;
    if (!engine::makeSyntheticDataset(plain, &e) || !engine::makeSyntheticDataset(edit, &e)) {
        *error = QString::fromStdString(e);
        return false;
    }
    return true;
}

engine::TrainParams Fixture::params(const QString &task, const QString &output, const QString &dataset) const
{
    engine::TrainParams p;
    p.task = task.toStdString();
    p.datasetBasePath = (dataset.isEmpty() ? data() : dataset).toStdString();
    p.modelRoot = models().toStdString();
    p.modelIdWithOriginPaths = kModelSpecs;
    p.outputPath = output.toStdString();
    p.training.loraBase = "dit";
    p.loraTargetModules = kLoraTargets;
    p.loraRank = 4;
    p.learningRate = 1e-3;
    p.numThreads = 1;
    p.removePrefixInCkpt = "pipe.dit.";
    return p;
}

QList<QJsonObject> Run::all(const QString &name) const
{
    QList<QJsonObject> out;
    for (const auto &e : events) {
        if (e.value("event").toString() == name)
            out.append(e);
    }
    return out;
}

QJsonObject Run::last(const QString &name) const
{
    const auto list = all(name);
    return list.isEmpty() ? QJsonObject() : list.last();
}

QString Run::errors() const
{
    QString out;
    for (const auto &e : all("error"))
        out += e.value("message").toString() + "\n";
    return out;
}

Run runTraining(const engine::TrainParams &params, const std::function<bool(const QJsonObject &)> &abortWhen)
{
    Run run;
    bool stop = false;
    engine::TrainCallbacks callbacks;
    callbacks.onEvent = [&](const engine::EventRecord &record) {
        const QJsonObject object = QJsonDocument::fromJson(QByteArray::fromStdString(record.json)).object();
        run.events.append(object);
        if (abortWhen && abortWhen(object))
            stop = true;
    };
    callbacks.shouldAbort = [&] { return stop; };
    run.result = engine::train(params, callbacks);
    return run;
}

double maxAbsDiff(const QString &a, const QString &b, QString *error)
{
    engine::SafetensorsFile fa;
    engine::SafetensorsFile fb;
    std::string e;
    if (!fa.open(a.toStdString(), &e) || !fb.open(b.toStdString(), &e)) {
        *error = QString::fromStdString(e);
        return -1;
    }
    if (fa.tensors().size() != fb.tensors().size() || fa.tensors().empty()) {
        *error = "different or no tensors";
        return -1;
    }
    double worst = 0;
    for (const auto &ta : fa.tensors()) {
        const auto *tb = fb.find(ta.name);
        if (!tb || tb->shape != ta.shape || ta.dtype != engine::DType::F32 || tb->dtype != engine::DType::F32) {
            *error = QString::fromStdString("tensor " + ta.name + " differs in presence, shape or dtype");
            return -1;
        }
        const auto count = static_cast<std::size_t>(ta.numel());
        for (std::size_t i = 0; i < count; ++i) {
            float x = 0;
            float y = 0;
            std::memcpy(&x, fa.data(ta) + 4 * i, 4);
            std::memcpy(&y, fb.data(*tb) + 4 * i, 4);
            worst = std::max(worst, static_cast<double>(std::fabs(x - y)));
        }
    }
    return worst;
}

int runCli(const QStringList &arguments, QString *out, QString *err, int timeoutMs)
{
    QProcess process;
    process.start(QStringLiteral(SPLITSCOPE_CLI), arguments);
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished();
        return -1;
    }
    if (out)
        *out = QString::fromUtf8(process.readAllStandardOutput());
    if (err)
        *err = QString::fromUtf8(process.readAllStandardError());
    return process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
}

} // namespace enginetest

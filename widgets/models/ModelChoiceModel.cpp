// SPDX-License-Identifier: MIT
#include "ModelChoiceModel.h"

#include "widgets/document/SplitDocument.h"
#include "widgets/common/WidgetHelpers.h"

#include <QFont>
#include <QLocale>

namespace splitscope {

ModelChoiceModel::ModelChoiceModel(SplitDocument *document, QObject *parent)
    : QAbstractTableModel(parent), m_document(document)
{
    connect(document, &SplitDocument::pipelineReset, this, &ModelChoiceModel::reset);
    connect(document, &SplitDocument::trainingChanged, this, &ModelChoiceModel::trainingChanged);
    connect(document, &SplitDocument::analysisChanged, this, &ModelChoiceModel::trainingChanged);
    reset();
}

void ModelChoiceModel::reset()
{
    beginResetModel();
    m_models = m_document->modelNames();
    endResetModel();
}

void ModelChoiceModel::trainingChanged()
{
    if (!m_models.empty())
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

int ModelChoiceModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_models.size());
}

int ModelChoiceModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ModelChoiceModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const std::string &model = m_models[index.row()];
    const PipelineGraph &graph = m_document->graph();
    const ModelId id = graph.findModel(model);
    const auto analysis = m_document->analysis();
    switch (index.column()) {
    case ModelColumn:
        // The LoRA base is not checked (trainable_models), yet it needs gradients: said
        // beside its name, where bold alone left a newcomer thinking it is not trained.
        if (role == Qt::DisplayRole) {
            return m_document->training().loraBase == model ? tr("%1 · LoRA base").arg(nameText(model))
                                                            : nameText(model);
        }
        if (role == Qt::CheckStateRole)
            return m_document->training().isTrainable(model) ? Qt::Checked : Qt::Unchecked;
        if (role == Qt::ToolTipRole) {
            if (m_document->training().loraBase == model)
                return tr("%1 is the LoRA base model: it needs gradients.").arg(nameText(model));
            return tr("Check to train %1 fully (trainable_models).").arg(nameText(model));
        }
        if (role == Qt::FontRole && m_document->training().loraBase == model) {
            QFont font;
            font.setBold(true);
            return font;
        }
        break;
    case UnitsColumn: {
        if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
            break;
        int calls = 0, trained = 0;
        for (UnitId u = 0; id >= 0 && u < graph.unitCount(); ++u) {
            for (const ModelId m : graph.unitModels(u)) {
                if (m == id) {
                    ++calls;
                    trained += analysis && analysis->split.isTrained(u) ? 1 : 0;
                    break;
                }
            }
        }
        // A model no unit calls is not unused: DiffSynth's denoising model (dit) is
        // called by model_fn inside the loss, which always runs in stage two.
        if (role == Qt::ToolTipRole) {
            if (calls == 0)
                return tr("No unit calls %1: if it runs, it runs inside the loss (as DiffSynth's denoising model "
                          "does in model_fn), which is always in stage two.")
                    .arg(nameText(model));
            if (calls == 1)
                return trained == 1 ? tr("1 unit calls this model; it runs in stage two.")
                                    : tr("1 unit calls this model; it runs in stage one.");
            return tr("%1 units call this model; %2 in stage two.")
                .arg(QString::number(calls), countText(trained, tr("%n of them runs"), tr("%n of them run")));
        }
        return calls == 0 ? tr("no unit") : QStringLiteral("%1 / %2").arg(trained).arg(calls);
    }
    case SizeColumn:
        if (role == Qt::DisplayRole) {
            for (const ModelSpec &spec : m_document->pipeline().models) {
                if (spec.name == model && spec.params)
                    return QStringLiteral("%1 B").arg(QLocale().toString(*spec.params / 1e9, 'f', 1));
            }
            return QString();
        }
        break;
    default: break;
    }
    if (role == Qt::TextAlignmentRole && index.column() != ModelColumn)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

bool ModelChoiceModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (!index.isValid() || !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)
        || index.column() != ModelColumn || role != Qt::CheckStateRole)
        return false;
    const bool on = value.toInt() == Qt::Checked;
    // The document re-splits and trainingChanged() refreshes every row.
    m_document->setModelTrainable(m_models[index.row()], on);
    return true;
}

Qt::ItemFlags ModelChoiceModel::flags(const QModelIndex &index) const
{
    if (!index.isValid() || !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemNeverHasChildren;
    if (index.column() == ModelColumn)
        f |= Qt::ItemIsUserCheckable;
    return f;
}

QVariant ModelChoiceModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || (role != Qt::DisplayRole && role != Qt::ToolTipRole))
        return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case ModelColumn:
            return tr("Check a model to train it in full (trainable_models). The model marked LoRA base "
                      "(lora_base_model) is trained through a LoRA. Both need gradients.");
        case UnitsColumn:
            return tr("Stage two / calls: of the units that call the model, how many run in stage two (at every training step), "
                      "and how many call it in all. \"no unit\": no unit calls it (a denoising model runs inside "
                      "the loss). The LoRA base needs gradients too.");
        case SizeColumn: return tr("The model's parameters, in billions (B)");
        default: return {};
        }
    }
    switch (section) {
    case ModelColumn: return tr("Trainable model");
    case UnitsColumn: return tr("Stage two / calls");
    case SizeColumn: return tr("Params");
    default: return {};
    }
}

} // namespace splitscope

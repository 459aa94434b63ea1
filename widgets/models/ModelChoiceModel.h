// SPDX-License-Identifier: MIT
#pragma once

#include <QAbstractTableModel>

#include <string>
#include <vector>

namespace splitscope {

class SplitDocument;

// The pipeline's models for the training panel: one row per model, a check box
// (column Model) that makes it trainable (trainable_models), and how many units
// call it and how many of those run in stage two. Checking writes through to the
// document, which re-splits at once.
class ModelChoiceModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { ModelColumn, UnitsColumn, SizeColumn, ColumnCount };

    explicit ModelChoiceModel(SplitDocument *document, QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    const std::string &modelName(int row) const { return m_models[row]; }

private:
    void reset();
    void trainingChanged();

    SplitDocument *m_document;
    std::vector<std::string> m_models;
};

} // namespace splitscope

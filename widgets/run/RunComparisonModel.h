// SPDX-License-Identifier: MIT
#pragma once

#include <QAbstractTableModel>

#include <memory>
#include <vector>

namespace splitscope {

class RunSession;

// Two launches side by side (typically the one-stage baseline as A and the split
// as B): time as waited, time per stage and per epoch, training speed, peak memory
// (whole launch and while training), final loss and steps, with B relative to A.
// Lower is better for times and memory, higher for speed.
class RunComparisonModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { MetricColumn, AColumn, BColumn, RatioColumn, ColumnCount };
    enum class Better { Lower, Higher, Neither };

    struct Row {
        QString metric;
        double a = 0; // NaN: not applicable to that launch
        double b = 0;
        QString aText;
        QString bText;
        Better better = Better::Neither;
        QString relation; // the last column's text
    };

    explicit RunComparisonModel(QObject *parent = nullptr);

    void setRuns(std::shared_ptr<const RunSession> a, std::shared_ptr<const RunSession> b);
    std::shared_ptr<const RunSession> runA() const { return m_a; }
    std::shared_ptr<const RunSession> runB() const { return m_b; }
    const std::vector<Row> &rows() const { return m_rows; }
    // One sentence for people, every ratio B / A as in the table, named as its rows:
    // "B / A: time per epoch 0.27× (−73 %), 10.3 ms vs 38.2 ms: B's epochs are 3.7×
    // faster; peak memory while training 0.63× (−37 %); ...". Empty without two runs.
    QString summary() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    void rebuild();

    std::shared_ptr<const RunSession> m_a;
    std::shared_ptr<const RunSession> m_b;
    std::vector<Row> m_rows;
};

} // namespace splitscope

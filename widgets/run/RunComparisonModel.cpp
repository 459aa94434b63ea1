// SPDX-License-Identifier: MIT
#include "RunComparisonModel.h"

#include "RunFormat.h"
#include "RunSession.h"

#include <QBrush>
#include <QColor>

#include <cmath>

namespace splitscope {

namespace {

constexpr double kNaN = StageRun::kNaN;
constexpr double kSameLoss = 1e-6; // relative difference below which two final losses are "equal"

double stageSeconds(const StageRun *stage)
{
    if (!stage)
        return kNaN;
    return stage->processSeconds >= 0 ? stage->processSeconds : stage->wallSeconds;
}

bool sameLoss(double a, double b)
{
    return std::isfinite(a) && std::isfinite(b) && std::fabs(a - b) <= kSameLoss * std::max(1.0, std::fabs(a));
}

} // namespace

RunComparisonModel::RunComparisonModel(QObject *parent) : QAbstractTableModel(parent) {}

void RunComparisonModel::setRuns(std::shared_ptr<const RunSession> a, std::shared_ptr<const RunSession> b)
{
    beginResetModel();
    m_a = std::move(a);
    m_b = std::move(b);
    rebuild();
    endResetModel();
}

void RunComparisonModel::rebuild()
{
    m_rows.clear();
    if (!m_a || !m_b)
        return;
    auto add = [this](const QString &metric, double a, double b, Better better, QString (*format)(double)) {
        Row row;
        row.metric = metric;
        row.a = a;
        row.b = b;
        row.better = better;
        row.aText = format(a);
        row.bText = format(b);
        row.relation = better == Better::Neither ? QString() : formatRatio(a, b);
        m_rows.push_back(row);
    };
    auto seconds = [](double s) { return formatSeconds(s); };
    auto bytes = [](double b) { return formatBytes(std::isfinite(b) && b > 0 ? static_cast<qint64>(b) : -1); };
    auto rate = [](double r) { return std::isfinite(r) ? QStringLiteral("%1").arg(r, 0, 'f', 1) : QStringLiteral("—"); };
    auto count = [](double n) { return std::isfinite(n) ? QString::number(static_cast<qint64>(n)) : QStringLiteral("—"); };

    const RunSession &a = *m_a;
    const RunSession &b = *m_b;
    const StageRun *ta = a.trainingStage();
    const StageRun *tb = b.trainingStage();
    add(tr("Time, as waited"), a.totalSeconds(), b.totalSeconds(), Better::Lower, seconds);
    add(tr("Stage one (caching)"), stageSeconds(a.stage(RunStage::StageOne)), stageSeconds(b.stage(RunStage::StageOne)),
        Better::Neither, seconds);
    add(tr("Training (stage two or one-stage)"), stageSeconds(ta), stageSeconds(tb), Better::Lower, seconds);
    add(tr("Time per epoch"), ta ? ta->meanEpochSeconds() : kNaN, tb ? tb->meanEpochSeconds() : kNaN, Better::Lower,
        seconds);
    add(tr("Training speed (samples/s)"), ta ? ta->samplesPerSecond : kNaN, tb ? tb->samplesPerSecond : kNaN,
        Better::Higher, rate);
    add(tr("Peak memory"), static_cast<double>(a.peakMemory()), static_cast<double>(b.peakMemory()), Better::Lower, bytes);
    add(tr("Peak memory while training"), ta ? static_cast<double>(ta->peakMemory()) : kNaN,
        tb ? static_cast<double>(tb->peakMemory()) : kNaN, Better::Lower, bytes);
    add(tr("Final loss"), a.finalLoss(), b.finalLoss(), Better::Neither, formatLoss);
    if (std::isfinite(a.finalLoss()) && std::isfinite(b.finalLoss()))
        m_rows.back().relation = sameLoss(a.finalLoss(), b.finalLoss())
            ? tr("equal")
            : QStringLiteral("%1%2").arg(b.finalLoss() >= a.finalLoss() ? QStringLiteral("+") : QString::fromUtf8("−"))
                  .arg(formatLoss(std::fabs(b.finalLoss() - a.finalLoss())));
    add(tr("Optimizer steps"), ta ? static_cast<double>(ta->steps) : kNaN, tb ? static_cast<double>(tb->steps) : kNaN,
        Better::Neither, count);
}

QString RunComparisonModel::summary() const
{
    if (!m_a || !m_b)
        return {};
    const StageRun *ta = m_a->trainingStage();
    const StageRun *tb = m_b->trainingStage();
    // Every ratio is said one way, B / A as in the table's last column, with the
    // difference in percent; "faster" or "slower" only explains the epoch's ratio.
    QStringList parts;
    const double epochA = ta ? ta->meanEpochSeconds() : kNaN;
    const double epochB = tb ? tb->meanEpochSeconds() : kNaN;
    if (epochA > 0 && epochB > 0 && std::isfinite(epochA) && std::isfinite(epochB)) {
        const double ratio = epochB / epochA;
        const QString speed = ratio <= 1 ? tr("B's epochs are %1× faster").arg(1.0 / ratio, 0, 'f', 1)
                                         : tr("B's epochs are %1× slower").arg(ratio, 0, 'f', 1);
        parts << tr("time per epoch %1, %2 vs %3: %4")
                     .arg(formatRatio(epochA, epochB), formatSeconds(epochB), formatSeconds(epochA), speed);
    }
    const double peakA = ta ? static_cast<double>(ta->peakMemory()) : kNaN;
    const double peakB = tb ? static_cast<double>(tb->peakMemory()) : kNaN;
    if (peakA > 0 && peakB > 0)
        parts << tr("peak memory while training %1").arg(formatRatio(peakA, peakB));
    const double totalA = m_a->totalSeconds();
    const double totalB = m_b->totalSeconds();
    if (totalA > 0 && totalB > 0)
        parts << tr("time as waited %1, %2 vs %3")
                     .arg(formatRatio(totalA, totalB), formatSeconds(totalB), formatSeconds(totalA));
    if (sameLoss(m_a->finalLoss(), m_b->finalLoss()))
        parts << tr("the same final loss");
    if (parts.isEmpty())
        return {};
    return tr("B / A: %1.").arg(parts.join(QStringLiteral("; ")));
}

int RunComparisonModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int RunComparisonModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunComparisonModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const Row &row = m_rows[static_cast<std::size_t>(index.row())];
    if (role == Qt::TextAlignmentRole && index.column() != MetricColumn)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole && index.column() == RatioColumn && row.better != Better::Neither
        && std::isfinite(row.a) && std::isfinite(row.b) && row.a > 0 && row.b > 0 && row.a != row.b) {
        const bool better = row.better == Better::Lower ? row.b < row.a : row.b > row.a;
        return QBrush(better ? QColor(0x2b, 0x8a, 0x3e) : QColor(0xc2, 0x25, 0x5c));
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (static_cast<Column>(index.column())) {
    case MetricColumn:
        return row.metric;
    case AColumn:
        return row.aText;
    case BColumn:
        return row.bText;
    case RatioColumn:
        return row.relation;
    case ColumnCount:
        break;
    }
    return {};
}

QVariant RunComparisonModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || (role != Qt::DisplayRole && role != Qt::ToolTipRole))
        return {};
    // Short headers keep the ratio column in view; the panel's summary line and the
    // tooltip say which launch A and B are.
    const bool tip = role == Qt::ToolTipRole;
    switch (static_cast<Column>(section)) {
    case MetricColumn:
        return QString();
    case AColumn:
        return m_a && tip ? tr("A: %1").arg(runKindTitle(m_a->kind())) : tr("A");
    case BColumn:
        return m_b && tip ? tr("B: %1").arg(runKindTitle(m_b->kind())) : tr("B");
    case RatioColumn:
        return tip ? tr("B / A, and the difference in percent (green: B is better)") : tr("B / A");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace splitscope

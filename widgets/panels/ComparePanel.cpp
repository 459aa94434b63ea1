// SPDX-License-Identifier: MIT
#include "ComparePanel.h"

#include "widgets/common/ThemeColors.h"
#include "widgets/common/WidgetHelpers.h"
#include "widgets/document/SplitDocument.h"
#include "widgets/models/MovedUnitsModel.h"

#include <QButtonGroup>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QRadioButton>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

namespace splitscope {

namespace {

enum KindButton { kOff, kOtherMode, kConfiguration };
enum DisplayButton { kOverlay, kSideBySide };

} // namespace

ComparePanel::ComparePanel(SplitDocument *document, QWidget *parent)
    : QWidget(parent), m_document(document), m_model(new MovedUnitsModel(document, this)),
      m_kind(new QButtonGroup(this)), m_editor(new QWidget(this)), m_preset(new QComboBox(m_editor)),
      m_models(new QToolButton(m_editor)), m_lora(new QComboBox(m_editor)), m_mode(new QComboBox(m_editor)),
      m_display(new QButtonGroup(this)), m_summary(new QLabel(this)), m_tree(new QTreeView(this))
{
    auto *kinds = new QHBoxLayout;
    kinds->addWidget(new QLabel(tr("<b>Compare with:</b>"), this));
    const std::pair<KindButton, QString> kindButtons[] = {{kOff, tr("Nothing")},
        {kOtherMode, tr("Seed vs safe")}, {kConfiguration, tr("Another configuration")}};
    for (const auto &[id, text] : kindButtons) {
        auto *radio = new QRadioButton(text, this);
        m_kind->addButton(radio, id);
        kinds->addWidget(radio);
    }
    kinds->addStretch(1);
    m_kind->button(kOff)->setChecked(true);
    m_kind->button(kOtherMode)->setToolTip(tr("Split B: the same models with the other split algorithm"));

    auto *editor = new QHBoxLayout(m_editor);
    editor->setContentsMargins(16, 0, 0, 0);
    editor->addWidget(new QLabel(tr("Split B:"), m_editor));
    m_preset->setToolTip(tr("Start from a training configuration named in the file"));
    editor->addWidget(m_preset);
    m_models->setText(tr("Trainable…"));
    m_models->setPopupMode(QToolButton::InstantPopup);
    m_models->setMenu(new QMenu(m_models));
    m_models->setToolTip(tr("trainable_models of split B"));
    editor->addWidget(m_models);
    editor->addWidget(new QLabel(tr("LoRA:"), m_editor));
    editor->addWidget(m_lora);
    m_mode->addItem(tr("seed"), static_cast<int>(SplitMode::Seed));
    m_mode->addItem(tr("safe"), static_cast<int>(SplitMode::Safe));
    editor->addWidget(m_mode);
    editor->addStretch(1);
    m_editor->setEnabled(false);

    auto *display = new QHBoxLayout;
    display->addWidget(new QLabel(tr("Show B:"), this));
    auto *overlay = new QToolButton(this);
    overlay->setText(tr("Overlaid"));
    overlay->setToolTip(tr("One graph: each box shows A's stage on the left and B's on the right"));
    auto *side = new QToolButton(this);
    side->setText(tr("Side by side"));
    side->setToolTip(tr("Two graphs with the same layout, zoom and scroll: A left, B right"));
    for (QToolButton *b : {overlay, side}) {
        b->setCheckable(true);
        b->setToolButtonStyle(Qt::ToolButtonTextOnly);
        display->addWidget(b);
    }
    m_display->addButton(overlay, kOverlay);
    m_display->addButton(side, kSideBySide);
    m_display->setExclusive(true);
    overlay->setChecked(true);
    display->addStretch(1);

    m_summary->setTextFormat(Qt::RichText);
    m_summary->setWordWrap(true);
    m_tree->setModel(m_model);
    m_tree->setAlternatingRowColors(true);
    m_tree->setWordWrap(true);
    m_tree->header()->setStretchLastSection(false);
    m_tree->header()->setSectionResizeMode(MovedUnitsModel::UnitColumn, QHeaderView::Stretch);
    m_tree->header()->setSectionResizeMode(MovedUnitsModel::StageAColumn, QHeaderView::ResizeToContents);
    m_tree->header()->setSectionResizeMode(MovedUnitsModel::StageBColumn, QHeaderView::ResizeToContents);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addLayout(kinds);
    layout->addWidget(m_editor);
    layout->addLayout(display);
    layout->addWidget(m_summary);
    layout->addWidget(m_tree, 1);

    connect(m_kind, &QButtonGroup::idClicked, this, [this](int id) {
        switch (id) {
        case kOff: compareOff(); break;
        case kOtherMode: compareOtherMode(); break;
        default: compareConfiguration(m_b); break;
        }
    });
    connect(m_display, &QButtonGroup::idClicked, this, [this](int id) { setSideBySide(id == kSideBySide); });
    connect(m_preset, qOverload<int>(&QComboBox::activated), this, [this](int index) {
        const auto presets = m_document->presets();
        if (index < 0 || index >= static_cast<int>(presets.size()))
            return;
        const SplitMode mode = m_b.mode;
        m_b = presets[index];
        m_b.mode = mode;
        compareConfiguration(m_b);
    });
    connect(m_lora, qOverload<int>(&QComboBox::activated), this, [this](int) { configurationEdited(); });
    connect(m_mode, qOverload<int>(&QComboBox::activated), this, [this](int) { configurationEdited(); });
    connect(m_tree->selectionModel(), &QItemSelectionModel::currentChanged, this, [this](const QModelIndex &index) {
        if (index.isValid())
            m_document->setCurrentUnit(index.data(MovedUnitsModel::kUnitRole).toInt());
    });
    // An empty list under "Identical splits" looked unfinished: it shows only with rows.
    const auto showTree = [this]() { m_tree->setVisible(m_model->rowCount() > 0); };
    connect(m_model, &QAbstractItemModel::modelReset, this, showTree);
    showTree();
    connect(document, &SplitDocument::pipelineReset, this, &ComparePanel::pipelineReset);
    connect(document, &SplitDocument::comparisonChanged, this, &ComparePanel::comparisonChanged);
    connect(document, &SplitDocument::analysisChanged, this, &ComparePanel::comparisonChanged);
    pipelineReset();
}

void ComparePanel::pipelineReset()
{
    m_syncing = true;
    const auto models = m_document->modelNames();
    m_lora->clear();
    m_lora->addItem(tr("(none)"), QString());
    QMenu *menu = m_models->menu();
    menu->clear();
    for (const std::string &m : models) {
        const QString name = QString::fromStdString(m);
        m_lora->addItem(nameText(m), name);
        QAction *action = menu->addAction(nameText(m));
        action->setData(name);
        action->setCheckable(true);
        connect(action, &QAction::toggled, this, [this]() { configurationEdited(); });
    }
    m_preset->clear();
    for (const TrainingChoice &p : m_document->presets())
        m_preset->addItem(nameText(p.modelsLabel()));
    // A sensible B to start from: the second preset (the file's first alternative), else A in the other mode.
    const auto presets = m_document->presets();
    m_b = presets.size() > 1 ? presets[1] : m_document->training();
    if (presets.size() <= 1)
        m_b.mode = m_b.mode == SplitMode::Seed ? SplitMode::Safe : SplitMode::Seed;
    m_syncing = false;
    syncEditor(m_b);
    comparisonChanged();
}

void ComparePanel::syncEditor(const TrainingChoice &shown)
{
    m_syncing = true;
    for (QAction *action : m_models->menu()->actions())
        action->setChecked(shown.isTrainable(action->data().toString().toStdString()));
    const int lora = shown.loraBase ? m_lora->findData(QString::fromStdString(*shown.loraBase)) : 0;
    m_lora->setCurrentIndex(lora < 0 ? 0 : lora);
    m_mode->setCurrentIndex(m_mode->findData(static_cast<int>(shown.mode)));
    const auto presets = m_document->presets();
    int preset = -1;
    for (std::size_t i = 0; i < presets.size(); ++i) {
        TrainingChoice same = presets[i];
        same.mode = shown.mode;
        if (same == shown)
            preset = static_cast<int>(i);
    }
    m_preset->setCurrentIndex(preset);
    m_syncing = false;
}

void ComparePanel::configurationEdited()
{
    if (m_syncing)
        return;
    TrainingChoice b;
    for (QAction *action : m_models->menu()->actions()) {
        if (action->isChecked())
            b.trainable.push_back(action->data().toString().toStdString());
    }
    const QString lora = m_lora->currentData().toString();
    if (!lora.isEmpty())
        b.loraBase = lora.toStdString();
    b.mode = static_cast<SplitMode>(m_mode->currentData().toInt());
    compareConfiguration(b);
}

void ComparePanel::compareOff()
{
    m_kind->button(kOff)->setChecked(true);
    m_editor->setEnabled(false);
    m_document->setComparison(SplitDocument::CompareKind::None);
}

void ComparePanel::compareOtherMode()
{
    m_kind->button(kOtherMode)->setChecked(true);
    m_editor->setEnabled(false);
    m_document->setComparison(SplitDocument::CompareKind::OtherMode);
}

void ComparePanel::compareConfiguration(const TrainingChoice &b)
{
    m_b = b;
    m_kind->button(kConfiguration)->setChecked(true);
    m_editor->setEnabled(true);
    syncEditor(m_b);
    m_document->setComparison(SplitDocument::CompareKind::Configuration, b);
}

void ComparePanel::setSideBySide(bool on)
{
    m_display->button(on ? kSideBySide : kOverlay)->setChecked(true);
    if (on == m_sideBySide)
        return;
    m_sideBySide = on;
    Q_EMIT sideBySideChanged(on);
}

void ComparePanel::comparisonChanged()
{
    // The comparison can start elsewhere (the Split menu, the command line).
    switch (m_document->compareKind()) {
    case SplitDocument::CompareKind::None: m_kind->button(kOff)->setChecked(true); break;
    case SplitDocument::CompareKind::OtherMode: m_kind->button(kOtherMode)->setChecked(true); break;
    case SplitDocument::CompareKind::Configuration:
        m_kind->button(kConfiguration)->setChecked(true);
        if (m_document->comparisonChoice() != m_b) {
            m_b = m_document->comparisonChoice();
            syncEditor(m_b);
        }
        break;
    }
    // The greyed row of the other mode shows what B is (A's models under the other
    // algorithm), not the configuration last edited, which stays for "Another configuration".
    if (m_document->compareKind() == SplitDocument::CompareKind::OtherMode)
        syncEditor(m_document->comparisonChoice());
    else if (m_document->compareKind() == SplitDocument::CompareKind::None)
        syncEditor(m_b);
    m_editor->setEnabled(m_document->compareKind() == SplitDocument::CompareKind::Configuration);
    m_tree->expandToDepth(-1);
    const auto a = m_document->analysis();
    const auto b = m_document->comparison();
    const auto diff = m_document->diff();
    if (!a || !b || !diff) {
        m_summary->setText(tr("<span style='color:%1'>Pick what to compare with: the same models under the "
                              "other algorithm, or another training configuration. Units that change stage are "
                              "marked in the graph and explained here.</span>")
                               .arg(theme::css(theme::Tone::Muted, palette())));
        return;
    }
    const QString labelA = nameText(m_document->training().label()).toHtmlEscaped();
    const QString labelB = nameText(m_document->comparisonChoice().label()).toHtmlEscaped();
    int toTwo = 0;
    for (const MovedUnit &m : diff->moved)
        toTwo += m.trainedInB ? 1 : 0;
    const int toOne = static_cast<int>(diff->moved.size()) - toTwo;
    QString text = tr("<b>A</b>: %1<br><b>B</b>: %2<br>").arg(labelA, labelB);
    if (diff->identical())
        text += tr("<b style='color:%1'>Identical splits</b>: ").arg(theme::css(theme::Tone::Success, palette()));
    else
        text += tr("<b style='color:%1'>%2</b>: ")
                    .arg(theme::css(theme::Tone::Moved, palette()),
                        countText(static_cast<qint64>(diff->moved.size()), tr("%n unit moves"), tr("%n units move")))
            + tr("%1 to stage two, %2 to stage one; ").arg(toTwo).arg(toOne);
    text += tr("%1, %2.")
                .arg(countText(static_cast<qint64>(diff->sameTrained), tr("%n stays in stage two"), tr("%n stay in stage two")),
                    countText(static_cast<qint64>(diff->sameCached), tr("%n stays cached"), tr("%n stay cached")));
    const auto params = [this](std::size_t count) {
        return countText(static_cast<qint64>(count), tr("%n param"), tr("%n params"));
    };
    text += tr("<br>Hazards: A %1, B %2. Cache: A %3, B %4.")
                .arg(QString::number(a->verification.hazardCount()), QString::number(b->verification.hazardCount()),
                    params(a->cacheSet.size()), params(b->cacheSet.size()));
    m_summary->setText(text);
}

QString ComparePanel::summaryText() const
{
    return plainTextOf(m_summary->text());
}

} // namespace splitscope

// SPDX-License-Identifier: MIT
#include "TrainingPanel.h"

#include "core/Explain.h"
#include "widgets/document/SplitDocument.h"
#include "widgets/models/ModelChoiceModel.h"
#include "widgets/common/ThemeColors.h"
#include "widgets/common/WidgetHelpers.h"

#include <QButtonGroup>
#include <QComboBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QRadioButton>
#include <QTableView>
#include <QVBoxLayout>

namespace splitscope {

TrainingPanel::TrainingPanel(SplitDocument *document, QWidget *parent)
    : QWidget(parent), m_document(document), m_models(new ModelChoiceModel(document, this)),
      m_presets(new QComboBox(this)), m_table(new QTableView(this)), m_lora(new QComboBox(this)),
      m_mode(new QButtonGroup(this)), m_summary(new QLabel(this)), m_lock(new QLabel(this)),
      m_controls(new QWidget(this))
{
    auto *outer = new QVBoxLayout(this);
    m_lock->setWordWrap(true);
    m_lock->setTextFormat(Qt::RichText);
    m_lock->setFrameShape(QFrame::StyledPanel);
    m_lock->setMargin(6);
    const theme::NoticeColors notice = theme::noticeColors(theme::Notice::Warning, palette());
    m_lock->setStyleSheet(QStringLiteral("QLabel { background:%1; color:%2; }")
                              .arg(notice.background.name(), notice.text.name()));
    m_lock->hide();
    outer->addWidget(m_lock);
    outer->addWidget(m_controls, 1);
    auto *layout = new QVBoxLayout(m_controls);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_presets->setToolTip(tr("Training configurations named in the pipeline file"));
    form->addRow(tr("&Preset:"), m_presets);
    m_lora->setToolTip(tr("lora_base_model: the model that carries the LoRA; it needs gradients"));
    form->addRow(tr("&LoRA base:"), m_lora);
    layout->addLayout(form);

    m_table->setModel(m_models);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(ModelChoiceModel::ModelColumn, QHeaderView::Stretch);
    m_table->horizontalHeader()->setSectionResizeMode(ModelChoiceModel::UnitsColumn, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(ModelChoiceModel::SizeColumn, QHeaderView::ResizeToContents);
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 8);
    layout->addWidget(m_table, 1);

    auto *seed = new QRadioButton(tr("Seed: DiffSynth's fixed point"), this);
    seed->setToolTip(tr("X ← F(X); X ← U(X) until nothing changes, exactly as DiffSynth-Studio splits (Alt+1)"));
    auto *safe = new QRadioButton(tr("Safe: hazard-free closure"), this);
    safe->setToolTip(tr("The least split containing X0 that reproduces one-stage training: a unit runs in stage two "
                       "too when it reads a stage-two value (C1), rewrites a param after a stage-two read of it "
                       "(R1), or writes the value a stage-two read must see (R2) (Alt+2)"));
    m_mode->addButton(seed, static_cast<int>(SplitMode::Seed));
    m_mode->addButton(safe, static_cast<int>(SplitMode::Safe));
    auto *modeBox = new QVBoxLayout;
    modeBox->setSpacing(2);
    modeBox->addWidget(new QLabel(tr("<b>Split algorithm</b>"), this));
    modeBox->addWidget(seed);
    modeBox->addWidget(safe);
    layout->addLayout(modeBox);

    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setFrameShape(QFrame::StyledPanel);
    m_summary->setMargin(6);
    outer->addWidget(m_summary);
    // Tab leaves the table (the arrows move between its rows, Space checks a box).
    m_table->setTabKeyNavigation(false);
    // The keyboard's current cell stays in the model column, where Space checks the box:
    // Right moved it to the counts, and Space there did nothing.
    connect(m_table->selectionModel(), &QItemSelectionModel::currentChanged, this, [this](const QModelIndex &current) {
        if (current.isValid() && current.column() != ModelChoiceModel::ModelColumn)
            m_table->setCurrentIndex(current.siblingAtColumn(ModelChoiceModel::ModelColumn));
    });
    QWidget::setTabOrder(m_presets, m_lora); // as they read, not as they were made
    QWidget::setTabOrder(m_lora, m_table);

    connect(m_presets, qOverload<int>(&QComboBox::activated), this, [this](int index) {
        const auto presets = m_document->presets();
        if (index < 0 || index >= static_cast<int>(presets.size()))
            return;
        TrainingChoice choice = presets[index];
        choice.mode = m_document->training().mode;
        m_document->setTraining(choice);
    });
    connect(m_lora, qOverload<int>(&QComboBox::activated), this, [this](int index) {
        const QString model = m_lora->itemData(index).toString();
        m_document->setLoraBase(model.isEmpty() ? std::nullopt : std::optional<std::string>(model.toStdString()));
    });
    connect(m_mode, &QButtonGroup::idClicked, this,
        [this](int id) { m_document->setSplitMode(static_cast<SplitMode>(id)); });
    connect(document, &SplitDocument::pipelineReset, this, &TrainingPanel::pipelineReset);
    connect(document, &SplitDocument::trainingChanged, this, &TrainingPanel::trainingChanged);
    connect(document, &SplitDocument::analysisChanged, this, &TrainingPanel::analysisChanged);
    pipelineReset();
}

void TrainingPanel::setLocked(const QString &reason)
{
    m_lockReason = reason;
    m_lock->setVisible(!reason.isEmpty());
    m_lock->setText(tr("<b>Locked while the launch runs</b><br>%1").arg(reason.toHtmlEscaped()));
    m_controls->setEnabled(reason.isEmpty());
    m_controls->setToolTip(reason.isEmpty() ? QString() : tr("Locked while the launch runs: %1").arg(reason));
}

void TrainingPanel::pipelineReset()
{
    setEnabled(m_document->hasPipeline());
    // Sizes are optional in the format; a column of blanks says nothing.
    bool sizes = false;
    if (m_document->hasPipeline()) {
        for (const ModelSpec &m : m_document->pipeline().models)
            sizes = sizes || m.params.has_value();
    }
    m_table->setColumnHidden(ModelChoiceModel::SizeColumn, !sizes);
    m_lora->clear();
    m_lora->addItem(tr("(none)"), QString());
    for (const std::string &m : m_document->modelNames())
        m_lora->addItem(nameText(m), QString::fromStdString(m));
    trainingChanged();
    analysisChanged();
}

void TrainingPanel::trainingChanged()
{
    const TrainingChoice &choice = m_document->training();
    const int lora = choice.loraBase ? m_lora->findData(QString::fromStdString(*choice.loraBase)) : 0;
    m_lora->setCurrentIndex(lora < 0 ? 0 : lora);
    if (QAbstractButton *button = m_mode->button(static_cast<int>(choice.mode)))
        button->setChecked(true);

    m_presets->clear();
    if (!m_document->hasPipeline())
        return;
    const auto presets = m_document->presets();
    int current = -1;
    for (std::size_t i = 0; i < presets.size(); ++i) {
        const QString label = nameText(presets[i].modelsLabel());
        m_presets->addItem(i == 0 ? tr("%1 (file)").arg(label) : label);
        TrainingChoice same = presets[i];
        same.mode = choice.mode;
        if (same == choice)
            current = static_cast<int>(i);
    }
    if (current < 0) {
        m_presets->addItem(tr("custom: %1").arg(nameText(choice.modelsLabel())));
        current = m_presets->count() - 1;
    }
    m_presets->setCurrentIndex(current);
    // A long preset is cut at the box's edge: the tooltip has it whole.
    m_presets->setToolTip(tr("%1\n\nTraining configurations named in the pipeline file")
                              .arg(m_presets->currentText()));
}

void TrainingPanel::analysisChanged()
{
    const auto analysis = m_document->hasPipeline() ? m_document->analysis() : nullptr;
    if (!analysis) {
        m_summary->setText(m_document->isSplitting() ? tr("Splitting…") : tr("No pipeline open."));
        return;
    }
    const std::size_t trained = analysis->split.trainedCount();
    const std::size_t cached = analysis->split.trained.size() - trained;
    const std::size_t hazards = analysis->verification.hazardCount();
    const std::size_t frozen = analysis->verification.frozenRandomness.size();
    // "12 units" stays on one line in a narrow dock.
    const auto units = [this](std::size_t count) {
        return countText(static_cast<qint64>(count), tr("%n unit"), tr("%n units"))
            .replace(QLatin1Char(' '), QStringLiteral("&nbsp;"));
    };
    QString text = tr("<b>Stage two</b> (every step): %1 &nbsp;·&nbsp; <b>Stage one</b> (cached): %2"
                      "<br>Cache: %3 read by stage two")
                       .arg(units(trained), units(cached),
                           countText(static_cast<qint64>(analysis->cacheSet.size()), tr("%n param"), tr("%n params")));
    // "dit" for LoRA and 0 units in stage two puzzles a newcomer: the denoiser runs in the loss.
    const std::vector<std::string> idle = modelsNoUnitCalls(m_document->graph(), analysis->split.models);
    for (const std::string &model : idle) {
        text += tr("<br>%1 needs gradients but no unit calls it: only the loss runs it, so it puts no unit in stage two")
                    .arg(nameText(model).toHtmlEscaped());
    }
    if (hazards == 0)
        text += tr("<br><span style='color:%1'>✔ no hazards: two-stage equals one-stage training</span>")
                    .arg(theme::css(theme::Tone::Success, palette()));
    else
        text += tr("<br><span style='color:%2'><b>⚠ %1</b>: see the Verifier</span>")
                    .arg(countText(static_cast<qint64>(hazards), tr("%n hazard"), tr("%n hazards")),
                        theme::css(theme::Tone::Hazard, palette()));
    if (frozen > 0)
        text += tr("<br><span style='color:%2'>⚠ %1 cached: randomness frozen</span>")
                    .arg(countText(static_cast<qint64>(frozen), tr("%n stochastic unit"), tr("%n stochastic units")),
                        theme::css(theme::Tone::Warning, palette()));
    m_summary->setText(text);
}

QString TrainingPanel::summaryText() const
{
    return plainTextOf(m_summary->text());
}

} // namespace splitscope

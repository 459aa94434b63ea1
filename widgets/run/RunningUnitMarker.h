// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>
#include <QPointer>
#include <QString>

class QGraphicsObject;
class QTimer;

namespace splitscope {

class RunController;
class SplitDocument;
class SplitGraphScene;

// Lights up, in the unit graph, the unit the worker runs now (its `unit` events,
// stage one and one-stage runs): a slowly pulsing ring around the box with a "running"
// tag, drawn as a child of the scene's node item so that it follows layouts and
// goes away with the items. It marks only the pipeline that is running (the open
// document must be the launch's pipeline) and leaves the user's selection alone.
class RunningUnitMarker : public QObject {
    Q_OBJECT
public:
    RunningUnitMarker(RunController *controller, SplitDocument *document, SplitGraphScene *scene,
        QObject *parent = nullptr);
    ~RunningUnitMarker() override;

    // The unit marked now ("" none), for tests and status lines.
    QString markedUnit() const { return m_unit; }
    bool isShown() const { return !m_halo.isNull(); }

public Q_SLOTS:
    void setRunningUnit(const QString &unit);

private:
    void attach();

    RunController *m_controller;
    SplitDocument *m_document;
    SplitGraphScene *m_scene;
    QString m_unit;
    QPointer<QGraphicsObject> m_halo;
    QTimer *m_pulse;
    int m_phase = 0;
};

} // namespace splitscope

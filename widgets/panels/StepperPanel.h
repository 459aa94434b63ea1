// SPDX-License-Identifier: MIT
#pragma once

#include <QWidget>

#include <vector>

class QAction;
class QComboBox;
class QHBoxLayout;
class QLabel;
class QSlider;
class QTextBrowser;
class QTimer;
class QToolButton;

namespace splitscope {

class SplitDocument;
class TraceCursor;

// The fixed-point stepper: X0, F1, U1, F2, ... up to the fixed point, then "split"
// (everything applied). First / previous / play / next / last, a slider, one chip
// per step, a play speed, and the plain-language explanation of the position
// (describeStep's lines). The graph scene follows the same TraceCursor and colors
// the set so far, halos what the step added and draws what caused it.
//
// Shortcuts (window-wide): Ctrl+Home first, Ctrl+Left or ',' previous, Ctrl+Right
// or '.' next, Ctrl+End last, P play/pause. In presentation mode the text is large
// and Left, Right, Space, Page Up and Page Down step too (as in slides).
class StepperPanel : public QWidget {
    Q_OBJECT
public:
    StepperPanel(SplitDocument *document, TraceCursor *cursor, QWidget *parent = nullptr);

    TraceCursor *cursor() const { return m_cursor; }
    bool isPlaying() const;
    bool presentationMode() const { return m_presentation; }
    QString explanationText() const; // the explanation as plain text (tests, exports)
    QList<QAction *> stepActions() const; // first, previous, play, next, last (for menus)
    QSlider *slider() const { return m_slider; }
    double secondsPerStep() const;
    // The panel's height at `width` that shows the longest step's explanation without
    // scrolling (in the current font: large in presentation mode).
    int heightForWholeExplanation(int width) const;

public Q_SLOTS:
    void setPlaying(bool playing);
    void setPresentationMode(bool on);
    void setSecondsPerStep(double seconds);

Q_SIGNALS:
    void presentationModeChanged(bool on);

private:
    void rebuildChips();
    void fitChips(); // the chips shown only where all of them fit
    void fitPositionLabel();
    QString positionText(int position) const; // "U1  (3 of 5)", "Split"
    void positionChanged(int position);
    void tick();
    void updateExplanation();
    QString explanationHtml(int position) const; // position stepCount(): the split
    void applyFonts();
    void orderTabStops(); // the controls as they read: buttons, slider, chips, speed, text

    SplitDocument *m_document;
    TraceCursor *m_cursor;
    QAction *m_first;
    QAction *m_previous;
    QAction *m_play;
    QAction *m_next;
    QAction *m_last;
    QAction *m_presentationAction;
    std::vector<QAction *> m_slideKeys; // active in presentation mode only
    std::vector<QToolButton *> m_transport; // first, previous, play, next, last
    QToolButton *m_presentationButton = nullptr;
    QSlider *m_slider;
    QLabel *m_position;
    QComboBox *m_speed;
    QWidget *m_chipBox;
    QHBoxLayout *m_chips;
    QTextBrowser *m_text;
    QTimer *m_timer;
    bool m_presentation = false;
};

} // namespace splitscope

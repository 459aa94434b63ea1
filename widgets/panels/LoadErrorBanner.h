// SPDX-License-Identifier: MIT
#pragma once

#include <QFrame>

class QLabel;

namespace splitscope {

class SplitDocument;

// A bar over the graph that appears when a file fails to load: which file, how
// many errors, the first one with its line and JSON path, and that the previous
// pipeline is still the one shown. "Details" asks for the Problems panel.
class LoadErrorBanner : public QFrame {
    Q_OBJECT
public:
    explicit LoadErrorBanner(SplitDocument *document, QWidget *parent = nullptr);

    QString text() const; // plain text, for tests

Q_SIGNALS:
    void detailsRequested();

private:
    void refresh();

    SplitDocument *m_document;
    QLabel *m_label;
};

} // namespace splitscope

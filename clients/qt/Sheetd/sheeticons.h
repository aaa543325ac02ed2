// The rows' icons from the freedesktop icon theme, as the other renderers draw them: a
// symbolic icon in the row's ink, any other in its own colours
// (`image://sheetd-icons/NAME?ink=#rrggbb`). A name is what the daemon let through
// (letters, digits, -, _ and ., never a path); one the theme lacks draws nothing.
#pragma once

#include <QQuickImageProvider>

namespace Sheetd {

class SheetIcons : public QQuickImageProvider {
public:
    static constexpr const char *name = "sheetd-icons";
    SheetIcons();
    QPixmap requestPixmap(const QString &id, QSize *size, const QSize &requestedSize) override;
};

} // namespace Sheetd

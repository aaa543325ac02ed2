#include "sheeticons.h"

#include <QDir>
#include <QIcon>
#include <QPainter>
#include <QRegularExpression>
#include <QUrlQuery>

namespace Sheetd {

SheetIcons::SheetIcons() : QQuickImageProvider(QQuickImageProvider::Pixmap) {
    // A platform with no desktop (eglfs, linuxfb, offscreen) knows neither the icon themes'
    // folders nor a theme: the freedesktop folders ($XDG_DATA_HOME and $XDG_DATA_DIRS, icons/)
    // and the theme every desktop's icons fall back on in Debian, as the other renderers take them.
    QStringList paths = QIcon::themeSearchPaths();
    QStringList data{qEnvironmentVariable("XDG_DATA_HOME", QDir::homePath() + QStringLiteral("/.local/share"))};
    data += qEnvironmentVariable("XDG_DATA_DIRS", QStringLiteral("/usr/local/share:/usr/share")).split(QLatin1Char(':'), Qt::SkipEmptyParts);
    for (const QString &folder : std::as_const(data)) {
        const QString icons = folder + QStringLiteral("/icons");
        if (!paths.contains(icons) && QDir(icons).exists()) paths.append(icons);
    }
    QIcon::setThemeSearchPaths(paths);
    if (QIcon::themeName().isEmpty() || QIcon::themeName() == QLatin1String("hicolor")) {
        for (const char *theme : {"Adwaita", "hicolor"}) {
            if (std::any_of(paths.cbegin(), paths.cend(), [theme](const QString &path) {
                    return QDir(path + QLatin1Char('/') + QLatin1String(theme)).exists();
                })) {
                QIcon::setThemeName(QLatin1String(theme));
                break;
            }
        }
    }
}

QPixmap SheetIcons::requestPixmap(const QString &id, QSize *size, const QSize &requestedSize) {
    const QString name = id.section(QLatin1Char('?'), 0, 0);
    const QUrlQuery query(id.section(QLatin1Char('?'), 1));
    const QSize want = requestedSize.isValid() && !requestedSize.isEmpty() ? requestedSize : QSize(24, 24);
    if (size) *size = want;
    static const QRegularExpression valid(QStringLiteral("^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$"));
    if (!valid.match(name).hasMatch()) return {};
    QPixmap pixmap = QIcon::fromTheme(name).pixmap(want);
    if (pixmap.isNull()) return {};
    const QColor ink(query.queryItemValue(QStringLiteral("ink")));
    if (name.endsWith(QLatin1String("-symbolic")) && ink.isValid()) {
        // A symbolic icon is a shape: drawn in the text's colour, as GTK draws one.
        QPainter painter(&pixmap);
        painter.setCompositionMode(QPainter::CompositionMode_SourceIn);
        painter.fillRect(pixmap.rect(), ink);
    }
    return pixmap;
}

} // namespace Sheetd

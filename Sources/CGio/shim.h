// GLib's GIO from Debian (libglib2.0-dev, already under Pango): GDBus, for the session's
// accessibility bus (AT-SPI 2) and the desktop's settings portal.
#include <gio/gio.h>

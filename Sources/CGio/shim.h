// GLib's GIO from Debian (libglib2.0-dev, already under Pango): GDBus, for the session's
// accessibility bus (AT-SPI 2) and the desktop's settings portal.
#include <gio/gio.h>

// The flags the renderer passes, as constants of their flag types. GLib 2.84 and later mark
// these enums G_GNUC_FLAG_ENUM, which Swift imports as option sets whose members have other
// names than the enumerators of earlier GLibs; a constant made here in C has the same name
// and type against every GLib.
static const GDBusConnectionFlags sheetd_bus_connection_flags =
    G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION;
static const GDBusCallFlags sheetd_call_flags_none = G_DBUS_CALL_FLAGS_NONE;
static const GDBusSignalFlags sheetd_signal_flags_none = G_DBUS_SIGNAL_FLAGS_NONE;
static const GDBusSubtreeFlags sheetd_subtree_flags_dispatch_to_unenumerated_nodes =
    G_DBUS_SUBTREE_FLAGS_DISPATCH_TO_UNENUMERATED_NODES;

"""A stand-in for the freedesktop settings portal on the session bus DBUS_SESSION_BUS_ADDRESS
names, for a test: org.freedesktop.portal.Desktop with org.freedesktop.portal.Settings
(version 1, as Debian 12's xdg-desktop-portal: ReadAll and Read), holding
org.freedesktop.appearance's color-scheme and contrast and, as GNOME's and GTK's backends pass
it on, org.gnome.desktop.interface's text-scaling-factor.

Usage: python_portal_standin.py COLOR_SCHEME CONTRAST TEXT_SCALING_FACTOR
Prints "ready" once it holds its name; each line "KEY VALUE" on standard input (color-scheme 2,
contrast 1, text-scaling-factor 1.25) sets a value and sends SettingChanged, then prints
"sent KEY".
"""
import sys

from gi.repository import Gio, GLib

XML = """
<node>
  <interface name="org.freedesktop.portal.Settings">
    <method name="ReadAll"><arg type="as" name="namespaces" direction="in"/><arg type="a{sa{sv}}" direction="out"/></method>
    <method name="Read"><arg type="s" name="namespace" direction="in"/><arg type="s" name="key" direction="in"/><arg type="v" direction="out"/></method>
    <signal name="SettingChanged"><arg type="s"/><arg type="s"/><arg type="v"/></signal>
    <property name="version" type="u" access="read"/>
  </interface>
</node>
"""
values = {"color-scheme": int(sys.argv[1]), "contrast": int(sys.argv[2])}
gnome = {"text-scaling-factor": float(sys.argv[3])}


def namespace_of(key):
    return "org.gnome.desktop.interface" if key in gnome else "org.freedesktop.appearance"


def boxed(key):
    return GLib.Variant("d", gnome[key]) if key in gnome else GLib.Variant("u", values[key])
loop = GLib.MainLoop()
state = {}


def call(connection, sender, path, interface, method, parameters, invocation):
    if method == "ReadAll":
        wanted = parameters.unpack()[0]
        found = {}
        if not wanted or "org.freedesktop.appearance" in wanted or "" in wanted:
            found["org.freedesktop.appearance"] = {k: GLib.Variant("u", v) for k, v in values.items()}
        if not wanted or "org.gnome.desktop.interface" in wanted or "" in wanted:
            found["org.gnome.desktop.interface"] = {k: GLib.Variant("d", v) for k, v in gnome.items()}
        invocation.return_value(GLib.Variant("(a{sa{sv}})", (found,)))
    elif method == "Read":
        namespace, key = parameters.unpack()
        if namespace == namespace_of(key) and (key in values or key in gnome):
            invocation.return_value(GLib.Variant("(v)", (GLib.Variant("v", boxed(key)),)))
        else:
            invocation.return_dbus_error("org.freedesktop.portal.Error.NotFound", "Requested setting not found")


def get_property(connection, sender, path, interface, name):
    return GLib.Variant("u", 1)


def acquired(connection, name):
    state["connection"] = connection
    print("ready", flush=True)


def bus_acquired(connection, name):
    info = Gio.DBusNodeInfo.new_for_xml(XML).interfaces[0]
    connection.register_object("/org/freedesktop/portal/desktop", info, call, get_property, None)


def line_came(channel, condition):
    line = sys.stdin.readline()
    if not line:
        loop.quit()
        return False
    key, value = line.split()
    if key in gnome:
        gnome[key] = float(value)
    else:
        values[key] = int(value)
    state["connection"].emit_signal(None, "/org/freedesktop/portal/desktop", "org.freedesktop.portal.Settings",
                                    "SettingChanged", GLib.Variant("(ssv)", (namespace_of(key), key, boxed(key))))
    state["connection"].flush_sync(None)
    print("sent " + key, flush=True)
    return True


Gio.bus_own_name(Gio.BusType.SESSION, "org.freedesktop.portal.Desktop", Gio.BusNameOwnerFlags.NONE,
                 bus_acquired, acquired, lambda *a: loop.quit())
GLib.io_add_watch(GLib.IOChannel.unix_new(sys.stdin.fileno()), GLib.PRIORITY_DEFAULT, GLib.IO_IN | GLib.IO_HUP, line_came)
loop.run()

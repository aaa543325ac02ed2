// libxkbcommon from Debian (libxkbcommon-dev): the compositor's keymap under Wayland, so that a
// key is known by what it types (Tab, Escape, Return) whichever keyboard sent it, an on-screen
// or virtual keyboard's own keymap included.
#include <xkbcommon/xkbcommon.h>

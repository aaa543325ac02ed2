// libevdev from Debian (libevdev-dev): the kernel's event code names (KEY_TAB, BTN_0, REL_DIAL)
// to numbers and back, as the key map in sheetd.yaml names them.
#include <libevdev/libevdev.h>

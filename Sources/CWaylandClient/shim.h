// libwayland-client from Debian (libwayland-dev), through pkg-config.
#include <wayland-client.h>

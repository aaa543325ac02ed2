// libmtdev from Debian (libmtdev-dev): multitouch protocol A turned into protocol B, with the
// contact tracking libinput relies on for such devices. The plumbing API takes events one by
// one, so recordings and fed devices go through it without a device node.
#include <mtdev-plumbing.h>

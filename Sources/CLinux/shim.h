// The kernel's own interfaces that Glibc does not carry (linux-libc-dev's uapi headers):
// sock_diag, which tells who owns a socket on this machine.
#include <stdint.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/inet_diag.h>

// One SOCK_DIAG_BY_FAMILY request as it goes to the kernel: the netlink header, then the
// inet_diag request (both multiples of 4 bytes, so nothing pads between them).
struct sheet_inet_diag_request {
    struct nlmsghdr header;
    struct inet_diag_req_v2 request;
};

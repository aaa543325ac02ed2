#include <libinput.h>
#include <libudev.h>
#include <linux/input.h>
#include <sys/timerfd.h>
#include <sys/eventfd.h>
#include <sys/epoll.h>
#include <sys/prctl.h>

/* prctl is variadic, which Swift cannot call. */
static inline int sheetd_set_timer_slack(unsigned long nanoseconds) {
    return prctl(PR_SET_TIMERSLACK, nanoseconds, 0, 0, 0);
}

/* EVIOCGBIT and EVIOCGABS are function-like macros: a device node's absolute axes and ranges. */
#include <sys/ioctl.h>
static inline int sheetd_evdev_abs_bits(int fd, unsigned long *bits, unsigned int bytes) {
    return ioctl(fd, EVIOCGBIT(EV_ABS, bytes), bits);
}
static inline int sheetd_evdev_abs_info(int fd, unsigned int code, struct input_absinfo *info) {
    return ioctl(fd, EVIOCGABS(code), info);
}

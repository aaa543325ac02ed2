#include <libinput.h>
#include <libudev.h>
#include <linux/input.h>
#include <sys/timerfd.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>

/* prctl is variadic, which Swift cannot call. */
static inline int sheetd_set_timer_slack(unsigned long nanoseconds) {
    return prctl(PR_SET_TIMERSLACK, nanoseconds, 0, 0, 0);
}

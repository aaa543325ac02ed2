#include <libinput.h>
#include <libudev.h>
#include <linux/input.h>
#include <sys/timerfd.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>

// glibc's gettext (libintl.h) and per-thread locales (locale.h): the sheet's own words read
// from the catalogs in po/, built by msgfmt.
#include <libintl.h>
#include <locale.h>

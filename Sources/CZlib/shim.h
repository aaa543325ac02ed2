// zlib from Debian (zlib1g-dev): deflate for PNG files, gzip for the console fonts.
#include <zlib.h>

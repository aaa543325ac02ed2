// librsvg (librsvg2-dev): SVG icons from the freedesktop icon theme, drawn with Cairo.
#include <librsvg/rsvg.h>
#include <cairo.h>

// Text and shapes from Debian's libraries (libpango1.0-dev, libcairo2-dev): fontconfig finds
// fonts and falls back per glyph, HarfBuzz shapes, FriBidi orders right-to-left runs, FreeType
// rasterises, Pango lays out and elides, Cairo draws into memory.
#include <pango/pangocairo.h>
#include <cairo.h>


// Text and shapes from Debian's libraries (libpango1.0-dev, libcairo2-dev): fontconfig finds
// fonts and falls back per glyph, HarfBuzz shapes, FriBidi orders right-to-left runs, FreeType
// rasterises, Pango lays out and elides, Cairo draws into memory.
#include <pango/pangocairo.h>
#include <cairo.h>

// FriBidi (libfribidi-dev, which Pango depends on): a terminal has no bidirectional layout of
// its own, so right-to-left text is put in visual order before it is written.
#include <fribidi.h>

// The paragraph directions are macros of expressions; Swift sees these instead.
static inline FriBidiParType sheet_fribidi_paragraph(int right_to_left) {
    return right_to_left ? FRIBIDI_PAR_RTL : FRIBIDI_PAR_LTR;
}

// glibc declares wcwidth only for X/Open; this is its prototype. The cells a character takes
// on a terminal (2 for East Asian wide ones, 0 for a combining mark, -1 for a control), in the
// calling thread's locale.
#include <wchar.h>
extern int wcwidth(wchar_t c);
static inline int sheet_wcwidth(uint32_t c) { return wcwidth((wchar_t)c); }

// librsvg: the items' SVG icons, drawn with the same Cairo. The renderer opens it with dlopen
// the first time it draws an SVG icon (SheetRenderKit's SVGLibrary), so a program that draws
// none never loads it. Its header would bring a second copy of Cairo's into another module;
// these are the two calls made, as librsvg 2.46 and later declare them (Debian 12 ships 2.54),
// as the types of the pointers dlsym gives.
typedef struct _RsvgHandle RsvgHandle;
typedef struct {
    double x;
    double y;
    double width;
    double height;
} RsvgRectangle;
typedef RsvgHandle *(*sheet_rsvg_handle_new_from_file)(const char *filename, GError **error);
typedef gboolean (*sheet_rsvg_handle_render_document)(RsvgHandle *handle, cairo_t *cr, const RsvgRectangle *viewport,
                                                       GError **error);

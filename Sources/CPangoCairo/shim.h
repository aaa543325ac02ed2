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

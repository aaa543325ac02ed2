import CLazyLibraries
import Foundation
@testable import SheetRenderKit
import SheetTestSupport
import Testing

/// The renderer's libraries open at the first call of one of their functions, through the
/// stubs of CLazyLibraries: every drawing test goes through them, these check the edges.
@Suite struct LazyLibrariesTests {
    @Test func aLibraryIsOpenOnceTextIsSet() throws {
        let typesetter = try Typesetter(font: "Noto Sans")
        let image = typesetter.image("Wi-Fi", style: TypesetTextTests.style("Wi-Fi"))
        #expect(image.width > 0)
        #expect(sheet_lazy_library_is_open("libpango-1.0.so.0") == 1)
        #expect(sheet_lazy_library_is_open("libpangocairo-1.0.so.0") == 1)
        #expect(sheet_lazy_library_is_open("libcairo.so.2") == 1)
    }

    @Test func onlyTheListedLibrariesAreOpened() {
        var message = [CChar](repeating: 0, count: 256)
        #expect(sheet_lazy_library_open("libc.so.6", &message, message.count) == -1)
        #expect(String(cString: message) == "libc.so.6 is not one of the libraries opened on first use")
        #expect(sheet_lazy_library_is_open("libc.so.6") == 0)
        #expect(sheet_lazy_library_open("libdrm.so.2", &message, message.count) == 0)
        #expect(sheet_lazy_library_is_open("libdrm.so.2") == 1)
    }

    /// The stubs over a list of the test's own (libm, GLib and a library no system has), built
    /// with the toolchain's clang into a small program: the first call of each library, which
    /// opens it, reaches the function with its arguments whole (floating point in registers,
    /// integers past the sixth on the stack, a variadic call's count of vector registers), and
    /// a library that cannot be opened is named with the function that needed it. The same on
    /// aarch64 (every argument register, x0–x7 and q0–q7), under qemu-user.
    @Test func theFirstCallKeepsEveryArgumentAndAMissingLibraryIsNamed() throws {
        let folder = try temporaryFolder()
        let list = folder.appendingPathComponent("probe.def").path
        try """
        LIBRARY(M, "libm.so.6")
        LIBRARY(GLIB, "libglib-2.0.so.0")
        LIBRARY(NONE, "libsheetd-none.so.0")
        FUNCTION(M, fma)
        FUNCTION(M, ldexp)
        FUNCTION(GLIB, g_strdup_printf)
        FUNCTION(NONE, sheet_none)

        """.write(toFile: list, atomically: false, encoding: .utf8)
        let main = folder.appendingPathComponent("main.c").path
        try """
        #include <stdio.h>
        double fma(double, double, double);
        double ldexp(double, int);
        char *g_strdup_printf(const char *, ...);
        void sheet_none(void);
        int main(int argc, char **argv) {
            (void)argv;
            if (argc > 1) { sheet_none(); return 0; }
            printf("%g %g %g\\n", fma(2.0, 3.0, 4.0), ldexp(1.5, 3), fma(0.5, 4.0, 1.0));
            printf("%s\\n", g_strdup_printf("%d %d %d %d %d %d %d %d %d %.1f %s", 1, 2, 3, 4, 5, 6, 7, 8, 9, 2.5, "end"));
            return 0;
        }

        """.write(toFile: main, atomically: false, encoding: .utf8)
        let sources = examples.deletingLastPathComponent().appendingPathComponent("Sources/CLazyLibraries")
        let probe = folder.appendingPathComponent("probe").path
        // The toolchain's clang; where there is none (a Debian arm64 tree running the aarch64
        // build under qemu-user), the system's C compiler, GCC.
        let compiler = (try? runProgram("/usr/bin/env", ["clang", "--version"]).status) == 0 ? "clang" : "cc"
        let built = try runProgram("/usr/bin/env", [
            compiler, "-O1", "-fno-builtin", "-I", sources.appendingPathComponent("include").path,
            "-DSHEET_LAZY_FUNCTIONS=\"\(list)\"", main, sources.appendingPathComponent("LazyLibraries.c").path,
            "-ldl", "-lpthread", "-o", probe,
        ])
        try #require(built.status == 0, "\(built.output)")
        let called = try runProgram(probe, [])
        #expect(called.status == 0)
        #expect(called.output == "10 12 3\n1 2 3 4 5 6 7 8 9 2.5 end\n")
        let missing = try runProgram(probe, ["none"])
        #expect(missing.status == 127)
        #expect(missing.output.hasPrefix("probe: libsheetd-none.so.0: cannot open shared object file"), "\(missing.output)")
        #expect(missing.output.hasSuffix("(needed for sheet_none)\n"), "\(missing.output)")
    }
}

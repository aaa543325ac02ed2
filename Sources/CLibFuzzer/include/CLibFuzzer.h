#ifndef SHEETD_CLIBFUZZER_H
#define SHEETD_CLIBFUZZER_H

#include <stddef.h>
#include <stdint.h>

// libFuzzer's entry for programs with their own main (compiler-rt, FuzzerInterface.h): it
// parses libFuzzer's flags from argv and calls `callback` with each input. Present only in
// binaries linked with -sanitize=fuzzer.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif

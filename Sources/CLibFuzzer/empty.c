// The declaration in include/ is all there is: libFuzzer itself comes with -sanitize=fuzzer.

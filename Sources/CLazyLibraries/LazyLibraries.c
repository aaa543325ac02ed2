// Stubs for the functions of the libraries in functions.def, each opening its library on first call
// (see include/LazyLibraries.h). Each stub is one indirect jump through its slot; an empty
// slot sends the call, with its arguments untouched, to `sheet_lazy_slow`, which opens the
// library, fills the slots of all its functions and jumps to the one asked for.
#define _GNU_SOURCE
#include "LazyLibraries.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

// The list of libraries and functions; a test builds these stubs over a list of its own.
#ifndef SHEET_LAZY_FUNCTIONS
#define SHEET_LAZY_FUNCTIONS "functions.def"
#endif

enum {
#define LIBRARY(key, soname) SHEET_LAZY_##key,
#define FUNCTION(key, name)
#include SHEET_LAZY_FUNCTIONS
#undef LIBRARY
#undef FUNCTION
    SHEET_LAZY_LIBRARY_COUNT
};

static const char *const library_names[] = {
#define LIBRARY(key, soname) soname,
#define FUNCTION(key, name)
#include SHEET_LAZY_FUNCTIONS
#undef LIBRARY
#undef FUNCTION
};

static const char *const function_names[] = {
#define LIBRARY(key, soname)
#define FUNCTION(key, name) #name,
#include SHEET_LAZY_FUNCTIONS
#undef LIBRARY
#undef FUNCTION
};

static const unsigned char function_libraries[] = {
#define LIBRARY(key, soname)
#define FUNCTION(key, name) SHEET_LAZY_##key,
#include SHEET_LAZY_FUNCTIONS
#undef LIBRARY
#undef FUNCTION
};

#define FUNCTION_COUNT (sizeof function_names / sizeof function_names[0])

// The slot each stub jumps through: empty until its library is open; read by the stubs
// without a lock, written once (release order) while `lock` is held.
#define LIBRARY(key, soname)
#define FUNCTION(key, name) __attribute__((visibility("hidden"))) void *sheet_lazy_slot_##name;
#include SHEET_LAZY_FUNCTIONS
#undef LIBRARY
#undef FUNCTION

static void **const slots[] = {
#define LIBRARY(key, soname)
#define FUNCTION(key, name) &sheet_lazy_slot_##name,
#include SHEET_LAZY_FUNCTIONS
#undef LIBRARY
#undef FUNCTION
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void *handles[SHEET_LAZY_LIBRARY_COUNT];

static int open_library(unsigned library, char *message, size_t size) {
    pthread_mutex_lock(&lock);
    int result = 0;
    if (handles[library] == NULL) {
        void *handle = dlopen(library_names[library], RTLD_NOW | RTLD_LOCAL);
        if (handle == NULL) {
            snprintf(message, size, "%s", dlerror());
            result = -1;
        } else {
            // All or nothing: a library without one of the functions is not the one built against.
            void *found[FUNCTION_COUNT] = {0};
            for (size_t i = 0; i < FUNCTION_COUNT && result == 0; i++) {
                if (function_libraries[i] != library) continue;
                found[i] = dlsym(handle, function_names[i]);
                if (found[i] == NULL) {
                    snprintf(message, size, "%s has no %s", library_names[library], function_names[i]);
                    result = -1;
                }
            }
            if (result == 0) {
                for (size_t i = 0; i < FUNCTION_COUNT; i++) {
                    if (found[i] != NULL) __atomic_store_n(slots[i], found[i], __ATOMIC_RELEASE);
                }
                handles[library] = handle;
            } else {
                dlclose(handle);
            }
        }
    }
    pthread_mutex_unlock(&lock);
    return result;
}

static int library_named(const char *soname) {
    for (unsigned i = 0; i < SHEET_LAZY_LIBRARY_COUNT; i++) {
        if (strcmp(library_names[i], soname) == 0) return (int)i;
    }
    return -1;
}

int sheet_lazy_library_open(const char *soname, char *message, size_t size) {
    int library = library_named(soname);
    if (library < 0) {
        snprintf(message, size, "%s is not one of the libraries opened on first use", soname);
        return -1;
    }
    return open_library((unsigned)library, message, size);
}

int sheet_lazy_library_is_open(const char *soname) {
    int library = library_named(soname);
    if (library < 0) return 0;
    pthread_mutex_lock(&lock);
    int open = handles[library] != NULL;
    pthread_mutex_unlock(&lock);
    return open;
}

// Called by `sheet_lazy_slow` with the slot of the function called. A library that cannot be
// opened is a broken installation (the package depends on each): said with the function's
// name, and the process ends, as the dynamic loader would have ended it at start.
__attribute__((visibility("hidden"), used)) void sheet_lazy_resolve(void **slot) {
    size_t index = 0;
    while (index < FUNCTION_COUNT && slots[index] != slot) index++;
    char message[512] = "no such function";
    if (index < FUNCTION_COUNT && open_library(function_libraries[index], message, sizeof message) == 0) return;
    char line[640];
    int length = snprintf(line, sizeof line, "%s: %s (needed for %s)\n", program_invocation_short_name, message,
                          index < FUNCTION_COUNT ? function_names[index] : "?");
    if (length > 0) (void)!write(2, line, (size_t)length < sizeof line ? (size_t)length : sizeof line - 1);
    _exit(127);
}

// The stubs: hidden, so that a library opened later binds to its own dependencies, never to
// these. On an architecture without stubs the libraries are linked as usual.
#if defined(__x86_64__)
// r11 is free at a call (neither an argument nor kept across calls). The slow path keeps
// every register that can carry an argument (rdi, rsi, rdx, rcx, r8, r9; rax, the vector count
// of a variadic call; xmm0-7) and leaves the stack as it found it.
#define LIBRARY(key, soname)
#define FUNCTION(key, name)                                                                      \
    __asm__(".text\n.p2align 4\n.globl " #name "\n.hidden " #name "\n.type " #name ",@function\n" \
            #name ":\n"                                                                          \
            "\tmovq sheet_lazy_slot_" #name "(%rip), %r11\n"                                     \
            "\ttestq %r11, %r11\n"                                                               \
            "\tjz 1f\n"                                                                          \
            "\tjmpq *%r11\n"                                                                     \
            "1:\tleaq sheet_lazy_slot_" #name "(%rip), %r11\n"                                   \
            "\tjmp sheet_lazy_slow\n"                                                            \
            ".size " #name ", .-" #name "\n");
#include SHEET_LAZY_FUNCTIONS
#undef LIBRARY
#undef FUNCTION
__asm__(".text\n.p2align 4\n.type sheet_lazy_slow,@function\nsheet_lazy_slow:\n"
        "\tpushq %rdi\n\tpushq %rsi\n\tpushq %rdx\n\tpushq %rcx\n"
        "\tpushq %r8\n\tpushq %r9\n\tpushq %rax\n\tpushq %r11\n"
        // Eight pushes after the caller's call: 136 more bytes align the stack to 16 for the call.
        "\tsubq $136, %rsp\n"
        "\tmovdqu %xmm0, 0(%rsp)\n\tmovdqu %xmm1, 16(%rsp)\n\tmovdqu %xmm2, 32(%rsp)\n\tmovdqu %xmm3, 48(%rsp)\n"
        "\tmovdqu %xmm4, 64(%rsp)\n\tmovdqu %xmm5, 80(%rsp)\n\tmovdqu %xmm6, 96(%rsp)\n\tmovdqu %xmm7, 112(%rsp)\n"
        "\tmovq %r11, %rdi\n"
        "\tcall sheet_lazy_resolve\n"
        "\tmovdqu 0(%rsp), %xmm0\n\tmovdqu 16(%rsp), %xmm1\n\tmovdqu 32(%rsp), %xmm2\n\tmovdqu 48(%rsp), %xmm3\n"
        "\tmovdqu 64(%rsp), %xmm4\n\tmovdqu 80(%rsp), %xmm5\n\tmovdqu 96(%rsp), %xmm6\n\tmovdqu 112(%rsp), %xmm7\n"
        "\taddq $136, %rsp\n"
        "\tpopq %r11\n\tpopq %rax\n\tpopq %r9\n\tpopq %r8\n"
        "\tpopq %rcx\n\tpopq %rdx\n\tpopq %rsi\n\tpopq %rdi\n"
        "\tjmpq *(%r11)\n"
        ".size sheet_lazy_slow, .-sheet_lazy_slow\n");
#elif defined(__aarch64__)
// x9 and x10 are free at a call; the slot is read with acquire order (ldar), pairing with the
// release that filled it; the last branch is through x16, which a function's BTI landing pad
// accepts. The slow path keeps x0-x8 (x8: where a large result goes) and q0-q7.
#define LIBRARY(key, soname)
#define FUNCTION(key, name)                                                                      \
    __asm__(".text\n.p2align 2\n.globl " #name "\n.hidden " #name "\n.type " #name ",%function\n" \
            #name ":\n"                                                                          \
            "\tadrp x9, sheet_lazy_slot_" #name "\n"                                             \
            "\tadd x9, x9, :lo12:sheet_lazy_slot_" #name "\n"                                    \
            "\tldar x16, [x9]\n"                                                                 \
            "\tcbz x16, 1f\n"                                                                    \
            "\tbr x16\n"                                                                         \
            "1:\tb sheet_lazy_slow\n"                                                            \
            ".size " #name ", .-" #name "\n");
#include SHEET_LAZY_FUNCTIONS
#undef LIBRARY
#undef FUNCTION
__asm__(".text\n.p2align 2\n.type sheet_lazy_slow,%function\nsheet_lazy_slow:\n"
        "\tstp x29, x30, [sp, #-224]!\n\tmov x29, sp\n"
        "\tstp x0, x1, [sp, #16]\n\tstp x2, x3, [sp, #32]\n\tstp x4, x5, [sp, #48]\n\tstp x6, x7, [sp, #64]\n"
        "\tstp x8, x9, [sp, #80]\n"
        "\tstp q0, q1, [sp, #96]\n\tstp q2, q3, [sp, #128]\n\tstp q4, q5, [sp, #160]\n\tstp q6, q7, [sp, #192]\n"
        "\tmov x0, x9\n"
        "\tbl sheet_lazy_resolve\n"
        "\tldp q0, q1, [sp, #96]\n\tldp q2, q3, [sp, #128]\n\tldp q4, q5, [sp, #160]\n\tldp q6, q7, [sp, #192]\n"
        "\tldp x8, x9, [sp, #80]\n"
        "\tldp x0, x1, [sp, #16]\n\tldp x2, x3, [sp, #32]\n\tldp x4, x5, [sp, #48]\n\tldp x6, x7, [sp, #64]\n"
        "\tldp x29, x30, [sp], #224\n"
        "\tldr x16, [x9]\n"
        "\tbr x16\n"
        ".size sheet_lazy_slow, .-sheet_lazy_slow\n");
#endif

/* SPDX-License-Identifier: Apache-2.0 */
// System calls and glibc functions the Glibc module does not import: GNU extensions,
// declared only under _GNU_SOURCE, which must not be defined here (glibc's types would
// then differ from the Glibc module's: "different definitions in different modules"),
// malloc.h's tuning, and variadic calls (prctl). This header includes no system header at all: a [system]
// module that includes <sys/socket.h> (or <stdio.h>, through malloc.h) takes over its
// macros and types, and in a clean build files that import only Glibc lose
// SOCK_CLOEXEC and the like. Header only: this module links nothing.
#ifndef PATHD_CSYSTEMCALLS_SHIM_H
#define PATHD_CSYSTEMCALLS_SHIM_H

struct sockaddr;

/// accept4(2). `length` is a socklen_t, an unsigned int on Linux.
extern int accept4(int fd, struct sockaddr *address, unsigned int *length, int flags);

/// glibc's malloc tuning (malloc.h). `pad` is a size_t, an unsigned long on Linux.
extern int mallopt(int parameter, int value);
extern int malloc_trim(unsigned long pad);

/// mallopt(M_ARENA_MAX, count): at most `count` malloc arenas; 0 on failure.
static inline int pathd_limit_malloc_arenas(int count) { return mallopt(-8 /* M_ARENA_MAX */, count); }

/// eventfd(2) (<sys/eventfd.h>, not in the Glibc module), closed on exec and non-blocking.
extern int eventfd(unsigned int initial, int flags);
static inline int pathd_eventfd(void) { return eventfd(0, 02000000 /* EFD_CLOEXEC */ | 04000 /* EFD_NONBLOCK */); }

/// prctl(2), variadic, so not imported into Swift.
extern int prctl(int option, ...);

/// prctl(PR_SET_NAME): the calling thread's name (the first 15 bytes), as `ps -L` shows it.
static inline int pathd_set_thread_name(const char *name) { return prctl(15 /* PR_SET_NAME */, name, 0, 0, 0); }

/// prctl(PR_SET_PDEATHSIG, signal): the calling process gets `signal` when the thread that
/// created it ends. Async-signal-safe (a system call), for a child between fork and exec.
static inline int pathd_set_parent_death_signal(int signal) {
    return prctl(1 /* PR_SET_PDEATHSIG */, (unsigned long)signal, 0UL, 0UL, 0UL);
}

#endif

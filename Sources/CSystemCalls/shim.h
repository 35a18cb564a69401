// System calls the Glibc module does not import: GNU extensions, declared only under
// _GNU_SOURCE, which must not be defined here (glibc's types would then differ from the
// Glibc module's: "different definitions in different modules"). This header includes
// no system header at all: a [system] module that includes <sys/socket.h> takes over its
// macros, and in a clean build files that import only Glibc lose SOCK_CLOEXEC and the
// like. Header only: this module links nothing.
#ifndef PATHD_CSYSTEMCALLS_SHIM_H
#define PATHD_CSYSTEMCALLS_SHIM_H

struct sockaddr;

/// accept4(2). `length` is a socklen_t, an unsigned int on Linux.
extern int accept4(int fd, struct sockaddr *address, unsigned int *length, int flags);

#endif

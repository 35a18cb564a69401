// System calls (and glibc functions) the Glibc module does not import: GNU extensions that need
// _GNU_SOURCE, which must not be defined here (glibc's types would then differ from
// the Glibc module's and a clean build fails with "different definitions in different
// modules"). Header only: this module links nothing.
#ifndef PATHD_CSYSTEMCALLS_SHIM_H
#define PATHD_CSYSTEMCALLS_SHIM_H

#include <sys/socket.h>
#include <stddef.h>
#include <sys/types.h>

extern int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);

/// accept4(2) without the peer address, non-blocking and close-on-exec.
static inline int pathd_accept(int fd) { return accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK); }

/// The credentials of a Unix socket's peer (SO_PEERCRED, unix(7)); -1 on failure.
/// struct ucred is a GNU extension; its layout (pid, uid, gid) is the kernel's.
static inline int pathd_peer_credentials(int fd, pid_t *pid, uid_t *uid, gid_t *gid) {
    struct { pid_t pid; uid_t uid; gid_t gid; } credentials;
    socklen_t length = sizeof(credentials);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *pid = credentials.pid;
    *uid = credentials.uid;
    *gid = credentials.gid;
    return 0;
}

/// glibc's malloc tuning (malloc.h, which is not included: its <stdio.h> would then
/// belong to this module rather than to Glibc's).
extern int mallopt(int parameter, int value);
extern int malloc_trim(size_t pad);

/// mallopt(M_ARENA_MAX, count): at most `count` malloc arenas; 0 on failure.
static inline int pathd_limit_malloc_arenas(int count) { return mallopt(-8 /* M_ARENA_MAX */, count); }

#endif

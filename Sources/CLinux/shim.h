// The single C entry point of pathd: libnl-3, libnl-route-3, libsystemd and the
// kernel headers whose macros Swift needs. Function-like macros and variadic C
// functions are not imported into Swift; the static inline helpers below stand in.
#ifndef PATHD_CLINUX_SHIM_H
#define PATHD_CLINUX_SHIM_H


#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <arpa/inet.h>
#include <net/if_arp.h>

#include <linux/if.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/fib_rules.h>
#include <linux/filter.h>

#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <netlink/msg.h>
#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/route/rtnl.h>
#include <netlink/route/link.h>
#include <netlink/route/addr.h>
#include <netlink/route/route.h>
#include <netlink/route/rule.h>

#include <systemd/sd-daemon.h>

/// NLMSG_DATA for Swift (function-like macro).
static inline void *pathd_nlmsg_data(struct nlmsghdr *nlh) { return NLMSG_DATA(nlh); }

/// The payload of a route attribute (RTA_DATA).
static inline void *pathd_rta_data(struct rtattr *rta) { return RTA_DATA(rta); }

// accept4(2) and struct ucred are GNU extensions. Defining _GNU_SOURCE here would
// make glibc's types differ from the Glibc module's (a clean build then fails with
// "has different definitions in different modules"), so declare what is needed.
extern int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);

/// accept4(2) without the peer address, non-blocking and close-on-exec.
static inline int pathd_accept(int fd) { return accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK); }

/// The uid of a Unix socket's peer (SO_PEERCRED, unix(7)); -1 when unknown.
static inline int pathd_peer_uid(int fd, uid_t *uid) {
    struct { pid_t pid; uid_t uid; gid_t gid; } credentials;
    socklen_t length = sizeof(credentials);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *uid = credentials.uid;
    return 0;
}

/// sd_notify with a fixed string; sd_notifyf is variadic and not imported.
static inline int pathd_sd_notify(const char *state) { return sd_notify(0, state); }

/// The size of sockaddr_un.sun_path, which Swift sees only as a tuple.
static inline size_t pathd_sun_path_size(void) {
    return sizeof(((struct sockaddr_un *)0)->sun_path);
}

/// NLMSG_OK for Swift (function-like macro): whether a complete message starts at nlh
/// within the `len` bytes left of a receive buffer.
static inline int pathd_nlmsg_ok(const struct nlmsghdr *nlh, int len) { return NLMSG_OK(nlh, len); }

/// NLMSG_NEXT for Swift (function-like macro): the next message; decrements *len.
static inline struct nlmsghdr *pathd_nlmsg_next(struct nlmsghdr *nlh, int *len) {
    return NLMSG_NEXT(nlh, *len);
}

#endif

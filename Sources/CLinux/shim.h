/* SPDX-License-Identifier: Apache-2.0 */
// The C entry point of the Netlink module: libnl-3 and the kernel headers whose macros
// Swift needs. Function-like macros and variadic C functions are not imported into
// Swift; the static inline helpers below stand in. libnl-route-3 is not here: pathd
// decodes rtnetlink itself (docs/ARCHITECTURE.md, "Why not libnl-route's objects").
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


/// recvmmsg(2) and its message vector, which <sys/socket.h> declares only under
/// _GNU_SOURCE (not defined here: see CSystemCalls' header). The layout is glibc's
/// `struct mmsghdr`.
struct pathd_mmsghdr {
    struct msghdr msg_hdr;
    unsigned int msg_len;
};
struct timespec;
extern int recvmmsg(int fd, struct pathd_mmsghdr *vector, unsigned int length, int flags, struct timespec *timeout);
/// MSG_WAITFORONE (GNU): block for the first datagram only, then take what is queued.
static const int pathd_msg_waitforone = 0x10000;

/// NLMSG_DATA for Swift (function-like macro).
static inline void *pathd_nlmsg_data(struct nlmsghdr *nlh) { return NLMSG_DATA(nlh); }

/// The payload of a route attribute (RTA_DATA).
static inline void *pathd_rta_data(struct rtattr *rta) { return RTA_DATA(rta); }

/// NLMSG_OK for Swift (function-like macro): whether a complete message starts at nlh
/// within the `len` bytes left of a receive buffer.
static inline int pathd_nlmsg_ok(const struct nlmsghdr *nlh, int len) { return NLMSG_OK(nlh, len); }

/// NLMSG_NEXT for Swift (function-like macro): the next message; decrements *len.
static inline struct nlmsghdr *pathd_nlmsg_next(struct nlmsghdr *nlh, int *len) {
    return NLMSG_NEXT(nlh, *len);
}

#endif

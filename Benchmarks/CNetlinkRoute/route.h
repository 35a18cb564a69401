/* SPDX-License-Identifier: Apache-2.0 */
// libnl-route-3's objects, for pathd-decode-bench only (Benchmarks/decodebench.py): pathd
// itself decodes rtnetlink with its own decoders and does not link libnl-route-3.
#ifndef PATHD_CNETLINKROUTE_ROUTE_H
#define PATHD_CNETLINKROUTE_ROUTE_H

#include <malloc.h>
#include <netlink/netlink.h>
#include <netlink/msg.h>
#include <netlink/addr.h>
#include <netlink/cache.h>
#include <netlink/object.h>
#include <netlink/route/link.h>
#include <netlink/route/addr.h>
#include <netlink/route/neighbour.h>
#include <netlink/route/route.h>
#include <netlink/route/rule.h>

#endif

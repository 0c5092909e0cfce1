/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_VPK_H
#define VPK_VPK_H

/**
 * @file
 * Every public header of libvpk, for programs that would rather include one.
 * Each header also stands alone (and compiles as C11 and as C++).
 */
#include <vpk/version.h>
#include <vpk/error.h>
#include <vpk/isa.h>
#include <vpk/buf.h>
#include <vpk/pkt.h>
#include <vpk/rss.h>
#include <vpk/qsbr.h>
#include <vpk/acl.h>
#include <vpk/acl_file.h>
#include <vpk/fib.h>
#include <vpk/fib6.h>
#include <vpk/fib_file.h>
#include <vpk/graph.h>
#include <vpk/nodes.h>
#include <vpk/io.h>
#include <vpk/pcap.h>
#include <vpk/tunnel.h>
#include <vpk/wide.h>

#endif /* VPK_VPK_H */

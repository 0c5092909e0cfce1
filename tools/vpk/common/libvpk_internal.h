/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_TOOL_LIBVPK_INTERNAL_H
#define VPK_TOOL_LIBVPK_INTERNAL_H
/*
 * The one place where the vpk tool takes helpers of libvpk that are not
 * its public API: the number parser (core/num.h), the capped line reader
 * (core/lines.h) and error formatting (core/errf.h). The tool links the
 * static libvpk, where these symbols exist (hidden in libvpk.so), so that
 * every number and file the tool reads follows the same rules as the
 * library's own parsers (docs/design.md, "Bad input"). Code outside
 * tools/ does not include this header.
 */
#include "core/errf.h"
#include "core/lines.h"
#include "core/num.h"

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Splitting the command lines of PROGRAM, IMPORT{program}, RUN and builtins into argv, the
 * way udev does: whitespace separates words, '…' and "…" group words (quotes dropped, nothing
 * escaped inside them).
 */
#pragma once

/* *ret is a new strv (possibly empty). 0, -EINVAL for an unterminated quote, -ENOMEM. */
int cmdline_split(const char *s, char ***ret);

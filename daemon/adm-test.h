/* SPDX-License-Identifier: MIT */
/* devmanadm test [--action=ACTION] [--sysfs DIR] [--rules-dir DIR]... [--root DIR] [--debug] DEVPATH
 * A dry run of the rules for one device: prints the rules that matched (file:line) and the
 * results (name, links, mode, owner, group, tags, properties, RUN list). Writes nothing:
 * no node, link, database, ATTR or SYSCTL write; PROGRAM and IMPORT{program} do run. */
#pragma once

int verb_test(int argc, char **argv);

/* SPDX-License-Identifier: MIT */
/*
 * File-system helpers every layer uses: path joining, whole-file reads, directory creation and
 * listing. Functions return 0 or -errno unless said otherwise; strings they return are new and
 * owned by the caller.
 */
#pragma once

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Joins a and b with exactly one '/' between them; new string or NULL. */
char *path_join(const char *a, const char *b);
/* path (absolute) below root: root with its trailing slashes dropped, then path; path itself
 * when root is NULL, "" or "/". New string or NULL. */
char *fs_root_join(const char *root, const char *path);

/* Reads a whole file into a new NUL-terminated string (*ret_len without the NUL).
 * -EISDIR for a directory, -ENOENT, -EACCES (write-only attributes), -EFBIG past 64 MiB, … */
int read_full_file(const char *path, char **ret, size_t *ret_len);
/* The same for dirfd/path (openat semantics: AT_FDCWD, or path relative to dirfd). */
int read_full_file_at(int dirfd, const char *path, char **ret, size_t *ret_len);

/* Creates the directories leading to path, not path itself (mkdir -p of its parent). */
int fs_mkdir_parents(const char *path, mode_t mode);
/* Creates path and the directories leading to it (mkdir -p). */
int fs_mkdir_p(const char *path, mode_t mode);
/* Opens the directory path (O_DIRECTORY, O_CLOEXEC) into *ret, first creating it (not its
 * parents) when create is set. */
int fs_open_dir(const char *path, bool create, int *ret);

/* True when a configuration file masks its name: it is empty or (a link to) /dev/null. */
bool fs_is_masked(const char *path);

/* A directory stream on a duplicate of fd (fd stays the caller's); NULL with errno set. */
DIR *fs_opendir_dup(int fd);
/* True for the directory entries "." and "..". */
bool fs_dot_or_dotdot(const char *name);
/* readdir() without "." and ".."; with skip_hidden, without any name starting with '.'.
 * NULL at the end (errno unchanged) or on error (errno set), as readdir(). */
struct dirent *fs_readdir(DIR *d, bool skip_hidden);

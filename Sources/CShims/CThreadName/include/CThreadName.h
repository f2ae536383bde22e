#ifndef SCANPICK_CTHREADNAME_H
#define SCANPICK_CTHREADNAME_H

/// Names the calling thread as `top -H`, `ps -L` and `perf` show it (the kernel keeps 15 bytes).
/// Foundation's `Thread.name` does not reliably reach the kernel on Linux. Returns 0 on success.
int scanpick_name_this_thread(const char *name);

#endif

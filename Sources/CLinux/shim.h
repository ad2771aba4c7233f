#ifndef CLINUX_SHIM_H
#define CLINUX_SHIM_H
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netdb.h>
#include <fcntl.h>
#include <errno.h>

// Macros Swift cannot import as functions.
static inline int rt_errno(void) { return errno; }
static inline int rt_fcntl_setfl(int fd, int flags) { return fcntl(fd, F_SETFL, flags); }
static inline int rt_fcntl_getfl(int fd) { return fcntl(fd, F_GETFL); }

// Thread naming without _GNU_SOURCE (pthread_setname_np needs it): prctl names the caller.
#include <sys/prctl.h>
static inline int rt_set_thread_name(const char *name) { return prctl(PR_SET_NAME, name, 0, 0, 0); }

// Moves the calling thread into the network namespace open at `fd` (setns(2) with
// CLONE_NEWNET; the glibc wrapper needs _GNU_SOURCE). Tests use it on a private loop thread.
#include <unistd.h>
#include <sys/syscall.h>
static inline int rt_setns_net(int fd) { return (int)syscall(SYS_setns, fd, 0x40000000); }

// Heap figures for benchmarks and diagnostics (glibc): bytes handed out and not freed, over
// every arena and the chunks mapped on their own; and giving free pages back to the kernel.
#include <malloc.h>
static inline size_t rt_heap_in_use(void) {
    struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
}
static inline int rt_malloc_trim(void) { return malloc_trim(0); }

// Child processes for tests and tools (glibc >= 2.34 declares these only under _GNU_SOURCE):
// closing every inherited descriptor from 3 up, and changing directory, as spawn actions.
#include <spawn.h>
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *, int);
extern int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *, const char *);
extern int pipe2(int fds[2], int flags);
extern char **environ;
static inline char **rt_environ(void) { return environ; }

#endif

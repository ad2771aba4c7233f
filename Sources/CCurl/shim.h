#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H
#include <curl/curl.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/socket.h>

// Swift cannot call C variadics: one typed wrapper per argument kind.
static inline CURLcode rt_easy_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode rt_easy_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode rt_easy_setopt_ptr(CURL *h, CURLoption o, const void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode rt_easy_setopt_str(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode rt_easy_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode rt_easy_setopt_write(CURL *h, CURLoption o, size_t (*f)(char *, size_t, size_t, void *)) { return curl_easy_setopt(h, o, f); }
static inline CURLcode rt_easy_setopt_xferinfo(CURL *h, curl_xferinfo_callback f) { return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, f); }
static inline CURLcode rt_easy_setopt_sockopt(CURL *h, curl_sockopt_callback f) { return curl_easy_setopt(h, CURLOPT_SOCKOPTFUNCTION, f); }
static inline CURLcode rt_easy_setopt_prereq(CURL *h, curl_prereq_callback f) { return curl_easy_setopt(h, CURLOPT_PREREQFUNCTION, f); }
static inline CURLcode rt_easy_setopt_ssl_ctx(CURL *h, curl_ssl_ctx_callback f) { return curl_easy_setopt(h, CURLOPT_SSL_CTX_FUNCTION, f); }

// Connection sockets are close-on-exec from the start (libcurl 7.88 opens them without it),
// so a process the application spawns does not inherit, and keep open, its connections.
static curl_socket_t rt_open_socket_cloexec(void *clientp, curlsocktype purpose, struct curl_sockaddr *address) {
    (void)clientp; (void)purpose;
    return socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}
static inline CURLcode rt_easy_setopt_cloexec_sockets(CURL *h) {
    return curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, rt_open_socket_cloexec);
}
// Marks a descriptor close-on-exec (libcurl's own, made before the application sees them).
static inline int rt_set_cloexec(int fd) {
    int flags = fcntl(fd, F_GETFD);
    return flags < 0 ? -1 : fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
}

// The descriptors open now (the listing's own excepted), from /proc/self/fd, each with its
// inode (a number closed and reused in between is another descriptor); *count set.
struct rt_descriptor { int fd; unsigned long inode; };
static inline struct rt_descriptor *rt_open_descriptors(size_t *count) {
    *count = 0;
    DIR *d = opendir("/proc/self/fd");
    if (!d) return NULL;
    size_t cap = 64;
    struct rt_descriptor *fds = malloc(cap * sizeof *fds);
    struct dirent *e;
    int own = dirfd(d);
    struct stat st;
    while (fds && (e = readdir(d)) != NULL) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        int fd = atoi(e->d_name);
        if (fd == own || fstat(fd, &st) != 0) continue;
        if (*count == cap) {
            cap *= 2;
            struct rt_descriptor *g = realloc(fds, cap * sizeof *fds);
            if (!g) break;
            fds = g;
        }
        fds[(*count)++] = (struct rt_descriptor){ fd, (unsigned long)st.st_ino };
    }
    closedir(d);
    return fds;
}
// curl_multi_init, with the descriptors it opens (libcurl's wake-up socket pair) made
// close-on-exec: listed before and after, and every new one marked.
static inline CURLM *rt_multi_init_cloexec(void) {
    size_t nb = 0, na = 0;
    struct rt_descriptor *before = rt_open_descriptors(&nb);
    CURLM *m = curl_multi_init();
    struct rt_descriptor *after = rt_open_descriptors(&na);
    for (size_t i = 0; after && i < na; i++) {
        int known = 0;
        for (size_t j = 0; before && j < nb; j++) {
            if (before[j].fd == after[i].fd && before[j].inode == after[i].inode) { known = 1; break; }
        }
        if (!known) rt_set_cloexec(after[i].fd);
    }
    free(before);
    free(after);
    return m;
}

static inline CURLcode rt_easy_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode rt_easy_getinfo_str(CURL *h, CURLINFO i, char **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode rt_easy_getinfo_ptr(CURL *h, CURLINFO i, void **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode rt_easy_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }

static inline CURLMcode rt_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }
static inline CURLMcode rt_multi_setopt_ptr(CURLM *m, CURLMoption o, void *v) { return curl_multi_setopt(m, o, v); }
static inline CURLMcode rt_multi_setopt_socketfn(CURLM *m, curl_socket_callback f) { return curl_multi_setopt(m, CURLMOPT_SOCKETFUNCTION, f); }
static inline CURLMcode rt_multi_setopt_timerfn(CURLM *m, curl_multi_timer_callback f) { return curl_multi_setopt(m, CURLMOPT_TIMERFUNCTION, f); }

// Macros built from other macros (Swift imports only simple literals).
static inline long rt_curl_global_default(void) { return CURL_GLOBAL_DEFAULT; }
static inline curl_version_info_data *rt_curl_version_info(void) { return curl_version_info(CURLVERSION_NOW); }
static inline curl_socket_t rt_curl_socket_timeout(void) { return CURL_SOCKET_TIMEOUT; }
static inline int rt_curlpause_cont(void) { return CURLPAUSE_CONT; }
static inline int rt_curlpause_recv(void) { return CURLPAUSE_RECV; }
static inline size_t rt_curl_writefunc_pause(void) { return CURL_WRITEFUNC_PAUSE; }
// CURLMsg.data is a union; read its result member.
static inline CURLcode rt_curl_msg_result(const CURLMsg *m) { return m->data.result; }

#endif

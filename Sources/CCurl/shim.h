#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H
#include <curl/curl.h>

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

#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/sha.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/pem.h>
#include <openssl/bio.h>
#include <openssl/buffer.h>
#include <openssl/rand.h>

// OpenSSL exposes these as macros, which Swift cannot import.
static inline long rt_SSL_set_tlsext_host_name(SSL *s, const char *name) { return SSL_set_tlsext_host_name(s, name); }
static inline long rt_SSL_CTX_set_mode(SSL_CTX *c, long mode) { return SSL_CTX_set_mode(c, mode); }
static inline long rt_SSL_CTX_set_min_proto_version(SSL_CTX *c, int v) { return SSL_CTX_set_min_proto_version(c, v); }
static inline size_t rt_BIO_pending(BIO *b) { return BIO_pending(b); }
static inline size_t rt_BIO_ctrl_pending(BIO *b) { return BIO_ctrl_pending(b); }
static inline int rt_BIO_should_retry(BIO *b) { return BIO_should_retry(b); }
static inline long rt_BIO_set_mem_eof_return(BIO *b, long v) { return BIO_set_mem_eof_return(b, v); }
// Bytes a memory BIO has allocated (it grows to its largest content and never shrinks).
static inline size_t rt_BIO_mem_capacity(BIO *b) {
    BUF_MEM *m = NULL;
    BIO_get_mem_ptr(b, &m);
    return m ? m->max : 0;
}

#endif

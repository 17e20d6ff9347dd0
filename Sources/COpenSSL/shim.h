// Bridges the system OpenSSL (libssl/libcrypto) into Swift. Many OpenSSL "functions" are
// function-like macros over *_ctrl calls, which Swift cannot import: each one we use gets a
// static inline wrapper here so the Swift side stays free of magic numbers.
#ifndef HERALD_COPENSSL_SHIM_H
#define HERALD_COPENSSL_SHIM_H

#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/pkcs12.h>
#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/ec.h>
#include <openssl/rsa.h>
#include <openssl/obj_mac.h>
#include <openssl/core_names.h>
#include <openssl/param_build.h>

static inline int herald_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}

static inline long herald_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_mode(ctx, mode);
}

static inline long herald_SSL_CTX_set_options(SSL_CTX *ctx, long options) {
    return (long)SSL_CTX_set_options(ctx, options);
}

static inline int herald_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

static inline int herald_SSL_CTX_add_extra_chain_cert(SSL_CTX *ctx, X509 *cert) {
    return (int)SSL_CTX_add_extra_chain_cert(ctx, cert);
}

static inline long herald_BIO_pending(BIO *bio) {
    return (long)BIO_pending(bio);
}

static inline int herald_BIO_set_mem_eof_return(BIO *bio, long value) {
    return (int)BIO_set_mem_eof_return(bio, value);
}

static inline void herald_OPENSSL_free(void *ptr) {
    OPENSSL_free(ptr);
}

static inline void herald_X509_pop_free_stack(STACK_OF(X509) *stack) {
    sk_X509_pop_free(stack, X509_free);
}

static inline int herald_X509_stack_count(STACK_OF(X509) *stack) {
    return sk_X509_num(stack);
}

static inline X509 *herald_X509_stack_value(STACK_OF(X509) *stack, int index) {
    return sk_X509_value(stack, index);
}

/// SSL_get_peer_certificate became a macro in OpenSSL 3; this wrapper returns a new reference.
static inline X509 *herald_SSL_get_peer_certificate(const SSL *ssl) {
#if OPENSSL_VERSION_NUMBER >= 0x30000000L
    return SSL_get1_peer_certificate(ssl);
#else
    return SSL_get_peer_certificate(ssl);
#endif
}

/// Option and flag values below are composite macros (casts, ORs) that Swift cannot import.
static inline long herald_SSL_OP_NO_COMPRESSION_AND_RENEGOTIATION(void) {
    return (long)(SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
}
static inline unsigned long herald_XN_FLAG_RFC2253(void) { return XN_FLAG_RFC2253; }

static inline int herald_SSL_TLSEXT_ERR_OK(void) { return SSL_TLSEXT_ERR_OK; }
static inline int herald_SSL_TLSEXT_ERR_NOACK(void) { return SSL_TLSEXT_ERR_NOACK; }
static inline int herald_SSL_TLSEXT_ERR_ALERT_FATAL(void) { return SSL_TLSEXT_ERR_ALERT_FATAL; }

/// Key selections for EVP_PKEY_fromdata: ORs of other macros.
static inline int herald_EVP_PKEY_PUBLIC_KEY(void) { return EVP_PKEY_PUBLIC_KEY; }
static inline int herald_EVP_PKEY_KEYPAIR(void) { return EVP_PKEY_KEYPAIR; }

/// OSSL_PARAM names. An OSSL_PARAM (and OSSL_PARAM_BLD) keeps the name pointer it is given
/// rather than a copy, so Swift must pass these static strings, never a bridged temporary.
static inline const char *herald_OSSL_PKEY_PARAM_GROUP_NAME(void) { return OSSL_PKEY_PARAM_GROUP_NAME; }
static inline const char *herald_OSSL_PKEY_PARAM_PUB_KEY(void) { return OSSL_PKEY_PARAM_PUB_KEY; }
static inline const char *herald_OSSL_PKEY_PARAM_PRIV_KEY(void) { return OSSL_PKEY_PARAM_PRIV_KEY; }
static inline const char *herald_OSSL_PKEY_PARAM_EC_PUB_X(void) { return OSSL_PKEY_PARAM_EC_PUB_X; }
static inline const char *herald_OSSL_PKEY_PARAM_EC_PUB_Y(void) { return OSSL_PKEY_PARAM_EC_PUB_Y; }
/// The P-256 group's OpenSSL name, "prime256v1", as a static string for OSSL_PARAM_BLD.
static inline const char *herald_P256_GROUP_NAME(void) { return SN_X9_62_prime256v1; }

/// Client session resumption: OpenSSL hands each new session to our callback and keeps no
/// copy of its own (the Swift TLSSessionCache owns what it stores).
static inline long herald_SSL_CTX_enable_client_session_callback(SSL_CTX *ctx) {
    return SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
}
static inline int herald_SSL_set_app_data(SSL *ssl, void *data) { return SSL_set_app_data(ssl, data); }
static inline void *herald_SSL_get_app_data(const SSL *ssl) { return SSL_get_app_data(ssl); }

#endif

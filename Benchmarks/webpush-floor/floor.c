/* The reference for the Web Push encryption benchmark: a bare OpenSSL loop doing, per message,
 * exactly what RFC 8291 asks and Herald does: a new P-256 key pair, the subscriber's point
 * imported, ECDH, the HKDF steps (HMAC-SHA256), and AES-128-GCM over the padded plaintext.
 * No allocation pooling or other tricks a library could not use.
 *
 *   cc -O2 -o webpush-floor floor.c -lcrypto && ./webpush-floor 20000
 * prints "encryptions/s <rate>".
 */
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/param_build.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void fail(const char *what) { fprintf(stderr, "webpush-floor: %s failed\n", what); exit(1); }

static EVP_PKEY *import_point(const unsigned char *point) {
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0);
    OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, point, 65);
    OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(bld);
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    EVP_PKEY *key = NULL;
    if (!ctx || EVP_PKEY_fromdata_init(ctx) != 1 || EVP_PKEY_fromdata(ctx, &key, EVP_PKEY_PUBLIC_KEY, params) != 1) fail("import");
    EVP_PKEY_CTX_free(ctx);
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(bld);
    return key;
}

static void hmac(const unsigned char *key, size_t key_len, const unsigned char *data, size_t len, unsigned char out[32]) {
    unsigned int out_len = 32;
    if (!HMAC(EVP_sha256(), key, (int)key_len, data, len, out, &out_len)) fail("HMAC");
}

int main(int argc, char **argv) {
    long count = argc > 1 ? atol(argv[1]) : 10000;
    EVP_PKEY *subscriber = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    unsigned char ua_public[65], auth[16], plaintext[200];
    size_t length = 0;
    if (!subscriber || EVP_PKEY_get_octet_string_param(subscriber, OSSL_PKEY_PARAM_PUB_KEY, ua_public, 65, &length) != 1) fail("subscriber");
    RAND_bytes(auth, 16);
    size_t plaintext_len = 120;
    memset(plaintext, 'x', plaintext_len);
    unsigned long long checksum = 0;
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (long i = 0; i < count; i++) {
        EVP_PKEY *peer = import_point(ua_public);
        EVP_PKEY *ephemeral = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
        unsigned char as_public[65], secret[32], salt[16];
        if (!ephemeral || EVP_PKEY_get_octet_string_param(ephemeral, OSSL_PKEY_PARAM_PUB_KEY, as_public, 65, &length) != 1) fail("keygen");
        EVP_PKEY_CTX *derive = EVP_PKEY_CTX_new(ephemeral, NULL);
        size_t secret_len = 32;
        if (EVP_PKEY_derive_init(derive) != 1 || EVP_PKEY_derive_set_peer(derive, peer) != 1
            || EVP_PKEY_derive(derive, secret, &secret_len) != 1) fail("ECDH");
        EVP_PKEY_CTX_free(derive);
        RAND_bytes(salt, 16);
        /* RFC 8291 §3.4: PRK_key, IKM, PRK, CEK, NONCE. */
        unsigned char prk_key[32], ikm[32], prk[32], cek[32], nonce[32];
        hmac(auth, 16, secret, 32, prk_key);
        unsigned char key_info[14 + 65 + 65 + 1];
        memcpy(key_info, "WebPush: info", 14);
        memcpy(key_info + 14, ua_public, 65);
        memcpy(key_info + 79, as_public, 65);
        key_info[144] = 1;
        hmac(prk_key, 32, key_info, sizeof key_info, ikm);
        hmac(salt, 16, ikm, 32, prk);
        static const unsigned char cek_info[] = "Content-Encoding: aes128gcm\0\1";
        static const unsigned char nonce_info[] = "Content-Encoding: nonce\0\1";
        hmac(prk, 32, cek_info, sizeof cek_info - 1, cek);
        hmac(prk, 32, nonce_info, sizeof nonce_info - 1, nonce);
        unsigned char padded[201], ciphertext[201], tag[16];
        memcpy(padded, plaintext, plaintext_len);
        padded[plaintext_len] = 2;
        EVP_CIPHER_CTX *cipher = EVP_CIPHER_CTX_new();
        int out_len = 0, final_len = 0;
        if (EVP_EncryptInit_ex(cipher, EVP_aes_128_gcm(), NULL, cek, nonce) != 1
            || EVP_EncryptUpdate(cipher, ciphertext, &out_len, padded, (int)plaintext_len + 1) != 1
            || EVP_EncryptFinal_ex(cipher, ciphertext + out_len, &final_len) != 1
            || EVP_CIPHER_CTX_ctrl(cipher, EVP_CTRL_GCM_GET_TAG, 16, tag) != 1) fail("AES-GCM");
        EVP_CIPHER_CTX_free(cipher);
        checksum += tag[0];
        EVP_PKEY_free(ephemeral);
        EVP_PKEY_free(peer);
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    double seconds = (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9;
    printf("encryptions/s %.1f (checksum %llu)\n", (double)count / seconds, checksum);
    EVP_PKEY_free(subscriber);
    return 0;
}

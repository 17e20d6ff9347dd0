// Bridges the system libnghttp2 into Swift. Everything Swift can import directly is used as is;
// only what it cannot (function-like macros, C unions it handles awkwardly) gets a helper here.
#ifndef HERALD_CNGHTTP2_SHIM_H
#define HERALD_CNGHTTP2_SHIM_H

#include <nghttp2/nghttp2.h>
#include <string.h>

/// Installs a data provider whose source is opaque; Swift cannot build the C union inline.
static inline nghttp2_data_provider herald_nghttp2_data_provider(nghttp2_data_source_read_callback cb) {
    nghttp2_data_provider provider;
    memset(&provider, 0, sizeof(provider));
    provider.source.ptr = NULL;
    provider.read_callback = cb;
    return provider;
}

#endif

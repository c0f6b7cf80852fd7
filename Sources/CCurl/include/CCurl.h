#ifndef IAP_CCURL_H
#define IAP_CCURL_H

#include <curl/curl.h>

// curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic, which Swift
// cannot call; these typed wrappers are the whole shim.
CURLcode iap_curl_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode iap_curl_easy_setopt_ptr(CURL *handle, CURLoption option, const void *value);
CURLcode iap_curl_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value);
CURLcode iap_curl_easy_setopt_write_function(CURL *handle, CURLoption option,
                                             size_t (*fn)(char *, size_t, size_t, void *));
CURLcode iap_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode iap_curl_easy_getinfo_ptr(CURL *handle, CURLINFO info, void **value);
CURLMcode iap_curl_multi_setopt_long(CURLM *handle, CURLMoption option, long value);

#endif

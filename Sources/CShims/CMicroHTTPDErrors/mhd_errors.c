// libmicrohttpd 0.9.75 answers what it refuses itself (HTTP/9.9, a malformed header line, bad
// chunked encoding, a request line or head too big: 400, 413, 414, 431, 505) with HTML bodies
// compiled into it, and has no option to replace them. It queues each through its own exported
// `MHD_queue_response`, called through its PLT, so the definition below, in the program, is the one
// it calls: a call that did not come from `scanpick_mhd_queue_own` (the server's own answers) is one
// of libmicrohttpd's refusals, and is answered with the same status and a JSON body as the API's
// other errors. libmicrohttpd's own response is left unsent (the caller destroys it).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <microhttpd.h>
#include "mhd_errors.h"

typedef enum MHD_Result (*queue_function)(struct MHD_Connection *, unsigned int, struct MHD_Response *);

/// Set while the server queues its own answer on this thread.
static _Thread_local bool queuing_own = false;

static queue_function real_queue(void) {
    static queue_function real = NULL;
    queue_function found = __atomic_load_n(&real, __ATOMIC_ACQUIRE);
    if (found == NULL) {
        found = (queue_function)dlsym(RTLD_NEXT, "MHD_queue_response");
        __atomic_store_n(&real, found, __ATOMIC_RELEASE);
    }
    return found;
}

/// The JSON body for one of libmicrohttpd's refusals.
static const char *json_body(unsigned int status) {
    switch (status) {
    case 400:
        return "{\"error\":\"bad_request\",\"message\":\"the request is not valid HTTP (a malformed request "
               "line, header line or chunked body)\"}";
    case 413:
        return "{\"error\":\"payload_too_large\",\"message\":\"the request body is too large\"}";
    case 414:
        return "{\"error\":\"uri_too_long\",\"message\":\"the request line is too long\"}";
    case 431:
        return "{\"error\":\"headers_too_large\",\"message\":\"the request's headers are too large\"}";
    case 501:
        return "{\"error\":\"not_implemented\",\"message\":\"the server does not support this request\"}";
    case 505:
        return "{\"error\":\"http_version_not_supported\",\"message\":\"send HTTP/1.1 or HTTP/1.0\"}";
    default:
        if (status >= 500) {
            return "{\"error\":\"internal_error\",\"message\":\"the server could not answer this request\"}";
        }
        return "{\"error\":\"bad_request\",\"message\":\"the server could not read this request\"}";
    }
}

enum MHD_Result MHD_queue_response(struct MHD_Connection *connection, unsigned int status, struct MHD_Response *response) {
    queue_function real = real_queue();
    if (real == NULL) return MHD_NO;
    if (queuing_own || status < 400) return real(connection, status, response);
    const char *body = json_body(status);
    struct MHD_Response *json = MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_PERSISTENT);
    if (json == NULL) return real(connection, status, response);
    MHD_add_response_header(json, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
    enum MHD_Result queued = real(connection, status, json);
    MHD_destroy_response(json);  // the connection holds it until it is sent
    return queued;
}

int scanpick_mhd_queue_own(void *connection, unsigned int status, void *response) {
    queuing_own = true;
    enum MHD_Result queued = MHD_queue_response(connection, status, response);
    queuing_own = false;
    return (int)queued;
}

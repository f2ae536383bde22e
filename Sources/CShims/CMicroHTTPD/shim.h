#ifndef SCANPICK_CMICROHTTPD_SHIM_H
#define SCANPICK_CMICROHTTPD_SHIM_H
#include <stdint.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// `MHD_start_daemon` is variadic, which Swift cannot call: this fixes the options ScanPick uses.
/// One thread per connection (handlers may block on the database), bound to `address`.
static inline struct MHD_Daemon *scanpick_mhd_start(
    const struct sockaddr *address, MHD_AccessHandlerCallback handler, void *handler_context,
    MHD_RequestCompletedCallback completed, void *completed_context, unsigned int connection_limit,
    unsigned int timeout_seconds) {
    return MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_ERROR_LOG, 0, NULL, NULL,
        handler, handler_context,
        MHD_OPTION_SOCK_ADDR, address,
        MHD_OPTION_NOTIFY_COMPLETED, completed, completed_context,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
        MHD_OPTION_END);
}

/// The port the daemon is bound to (`MHD_get_daemon_info` is variadic too); 0 if unknown.
static inline uint16_t scanpick_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/// libmicrohttpd copies the response body (Swift's buffer does not outlive the call).
static inline struct MHD_Response *scanpick_mhd_response_copying(size_t size, const void *bytes) {
    return MHD_create_response_from_buffer(size, (void *)bytes, MHD_RESPMEM_MUST_COPY);
}
#endif

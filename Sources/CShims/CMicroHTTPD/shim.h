#ifndef SCANPICK_CMICROHTTPD_SHIM_H
#define SCANPICK_CMICROHTTPD_SHIM_H
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// Receives one of libmicrohttpd's own messages ("Server reached connection limit…"), formatted.
typedef void (*scanpick_mhd_message_function)(void *context, const char *message);

/// What `scanpick_mhd_log` forwards to: a Swift function and its context.
struct scanpick_mhd_logger {
    scanpick_mhd_message_function function;
    void *context;
};

/// libmicrohttpd's logger callback takes a `va_list`, which Swift cannot format: this formats the
/// message and hands the text to the Swift function.
static inline void scanpick_mhd_log(void *context, const char *format, va_list arguments) {
    const struct scanpick_mhd_logger *logger = (const struct scanpick_mhd_logger *)context;
    char message[512];
    vsnprintf(message, sizeof message, format, arguments);
    logger->function(logger->context, message);
}

static inline int scanpick_hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/// Percent-decodes a URL path or query value in place, like libmicrohttpd's own decoder, except that
/// `%00` stays as it is (a decoded NUL would end the C string there, so `/api/batches/b1%00x` would
/// be read as `/api/batches/b1`), and so do `%2F` and `%25`: a decoded slash would split a path
/// segment in two (`DELETE /api/stations/st-5%2F` read as station `st-5`). The router splits the
/// path first and then decodes those two in each segment. Returns the new length.
static inline size_t scanpick_mhd_unescape(void *context, struct MHD_Connection *connection, char *text) {
    (void)context;
    (void)connection;
    char *read = text;
    char *write = text;
    while (*read != '\0') {
        if (read[0] == '%' && read[1] != '\0' && read[2] != '\0') {
            int high = scanpick_hex_digit(read[1]);
            int low = scanpick_hex_digit(read[2]);
            int byte = high * 16 + low;
            if (high >= 0 && low >= 0 && byte != 0 && byte != '/' && byte != '%') {
                *write++ = (char)byte;
                read += 3;
                continue;
            }
        }
        *write++ = *read++;
    }
    *write = '\0';
    return (size_t)(write - text);
}

/// The settings `scanpick_mhd_start` passes on (Swift cannot call the variadic `MHD_start_daemon`).
struct scanpick_mhd_settings {
    const struct sockaddr *address;
    unsigned int polling_threads;
    unsigned int connection_limit;
    unsigned int per_address_connection_limit;
    /// Seconds without any traffic after which a connection is closed (a client that stops reading).
    unsigned int idle_timeout_seconds;
    /// Bytes a connection may use for its request line and headers (over it: 431/414).
    size_t connection_memory_limit;
    /// PEM text of the TLS private key and certificate chain; both NULL for plain HTTP.
    const char *tls_key;
    const char *tls_certificate;
};

/// Starts a daemon in epoll mode with a pool of polling threads: an idle or slow connection costs
/// memory, not a thread, and a handler may suspend its connection while a worker thread answers.
static inline struct MHD_Daemon *scanpick_mhd_start(
    const struct scanpick_mhd_settings *settings, MHD_AcceptPolicyCallback admit, MHD_AccessHandlerCallback handler,
    void *handler_context, MHD_RequestCompletedCallback completed, MHD_NotifyConnectionCallback notify, void *context,
    struct scanpick_mhd_logger *logger) {
    unsigned int flags = MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
    if (settings->address->sa_family == AF_INET6) flags |= MHD_USE_IPv6;
    struct MHD_OptionItem tls[] = {
        {MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)settings->tls_key},
        {MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)settings->tls_certificate},
        {MHD_OPTION_END, 0, NULL},
    };
    if (settings->tls_key != NULL && settings->tls_certificate != NULL) {
        flags |= MHD_USE_TLS;
    } else {
        tls[0].option = MHD_OPTION_END;
    }
    // A pool of one thread (or none) is no pool: given at all, libmicrohttpd warns at every start.
    struct MHD_OptionItem pool[] = {
        {MHD_OPTION_THREAD_POOL_SIZE, (intptr_t)settings->polling_threads, NULL},
        {MHD_OPTION_END, 0, NULL},
    };
    if (settings->polling_threads <= 1) pool[0].option = MHD_OPTION_END;
    return MHD_start_daemon(
        flags, 0, admit, context, handler, handler_context,
        MHD_OPTION_EXTERNAL_LOGGER, scanpick_mhd_log, logger,  // first, or earlier options log to stderr
        MHD_OPTION_SOCK_ADDR, settings->address,
        MHD_OPTION_ARRAY, pool,
        MHD_OPTION_NOTIFY_COMPLETED, completed, context,
        MHD_OPTION_NOTIFY_CONNECTION, notify, context,
        MHD_OPTION_CONNECTION_LIMIT, settings->connection_limit,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, settings->per_address_connection_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, settings->idle_timeout_seconds,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, settings->connection_memory_limit,
        MHD_OPTION_UNESCAPE_CALLBACK, scanpick_mhd_unescape, NULL,
        MHD_OPTION_ARRAY, tls,
        MHD_OPTION_END);
}

/// A descriptor another thread's poll can be woken through (`eventfd`'s flags are macros, and the
/// server's own threads poll beside libmicrohttpd's): close-on-exec, non-blocking; -1 on failure.
static inline int scanpick_wake_up_descriptor(void) {
    return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

/// The port the daemon is bound to (`MHD_get_daemon_info` is variadic too); 0 if unknown.
static inline uint16_t scanpick_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/// A connection's socket (`MHD_get_connection_info` is variadic); -1 if unknown.
static inline int scanpick_mhd_connection_socket(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/// The per-connection pointer set when the connection was accepted; NULL if none.
static inline void *scanpick_mhd_socket_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

/// A response of unknown size read from `reader` (chunked over HTTP/1.1) in blocks of up to `block`
/// bytes; `free_reader` is called once libmicrohttpd is done with it (`MHD_SIZE_UNKNOWN` is a macro
/// Swift cannot import).
static inline struct MHD_Response *scanpick_mhd_response_streaming(
    size_t block, MHD_ContentReaderCallback reader, void *context, MHD_ContentReaderFreeCallback free_reader) {
    return MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, block, reader, context, free_reader);
}

/// libmicrohttpd copies the response body (Swift's buffer does not outlive the call).
static inline struct MHD_Response *scanpick_mhd_response_copying(size_t size, const void *bytes) {
    return MHD_create_response_from_buffer(size, (void *)bytes, MHD_RESPMEM_MUST_COPY);
}
#endif

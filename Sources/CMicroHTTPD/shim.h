#ifndef DIARY_CMICROHTTPD_SHIM_H
#define DIARY_CMICROHTTPD_SHIM_H

// microhttpd.h uses these types without including their headers itself.
#include <sys/types.h>
#include <sys/socket.h>
#include <stdint.h>
#include <stdarg.h>
#include <microhttpd.h>

/// The client's address of a connection: `MHD_get_connection_info` is variadic, which Swift cannot call.
static inline const struct sockaddr *diary_connection_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info ? info->client_addr : NULL;
}

#endif

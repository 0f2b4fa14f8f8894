#ifndef DIARY_CMICROHTTPD_SHIM_H
#define DIARY_CMICROHTTPD_SHIM_H

// microhttpd.h uses these types without including their headers itself.
#include <sys/types.h>
#include <sys/socket.h>
#include <stdint.h>
#include <stdarg.h>
#include <microhttpd.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

// glibc declares memfd_create and the seals only with _GNU_SOURCE, which the system module
// imported here is not built with: the kernel's values (<linux/memfd.h>, <linux/fcntl.h>).
extern int memfd_create(const char *name, unsigned int flags);
#define DIARY_MFD_CLOEXEC 0x0001U
#define DIARY_MFD_ALLOW_SEALING 0x0002U
#define DIARY_F_ADD_SEALS 1033
#define DIARY_F_SEAL_SEAL 0x0001
#define DIARY_F_SEAL_SHRINK 0x0002
#define DIARY_F_SEAL_GROW 0x0004
#define DIARY_F_SEAL_WRITE 0x0008

// A memory file (memfd) holding `count` bytes, sealed so that nobody can change them or its
// size again while libmicrohttpd sends it with sendfile; or -1 with errno set.
static inline int diary_sealed_memory_file(const void *bytes, size_t count) {
    int descriptor = memfd_create("diary-kept-answer", DIARY_MFD_CLOEXEC | DIARY_MFD_ALLOW_SEALING);
    if (descriptor < 0) return -1;
    const char *next = (const char *)bytes;
    size_t left = count;
    while (left > 0) {
        ssize_t written = write(descriptor, next, left);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) {
            int error = written < 0 ? errno : EIO;
            close(descriptor);
            errno = error;
            return -1;
        }
        next += written;
        left -= (size_t)written;
    }
    int seals = DIARY_F_SEAL_SHRINK | DIARY_F_SEAL_GROW | DIARY_F_SEAL_WRITE | DIARY_F_SEAL_SEAL;
    if (fcntl(descriptor, DIARY_F_ADD_SEALS, seals) != 0) {
        int error = errno;
        close(descriptor);
        errno = error;
        return -1;
    }
    return descriptor;
}

// fcntl is variadic, which Swift cannot call: a second descriptor of the same open file,
// closed on exec, or -1.
static inline int diary_duplicate_descriptor(int descriptor) {
    return fcntl(descriptor, F_DUPFD_CLOEXEC, 0);
}

// MHD_get_connection_info is variadic, which Swift cannot call: the client's address, or NULL.
static inline const struct sockaddr *diary_mhd_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info ? info->client_addr : NULL;
}

// The connection's socket, or -1: for `shutdown` when its stream fails (see StreamedBody).
static inline int diary_mhd_connection_socket(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? info->connect_fd : -1;
}

#endif

#ifndef DIARY_CMICROHTTPD_SHIM_H
#define DIARY_CMICROHTTPD_SHIM_H

// microhttpd.h uses these types without including their headers itself.
#include <sys/types.h>
#include <sys/socket.h>
#include <stdint.h>
#include <stdarg.h>
#include <microhttpd.h>

#endif

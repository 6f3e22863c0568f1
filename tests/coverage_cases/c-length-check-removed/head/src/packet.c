#include <string.h>

int read_name(char *dst, const char *src, size_t len) {
    char buf[64];
    memcpy(buf, src, len);
    buf[len] = 0;
    strcpy(dst, buf);
    return 0;
}

// Linux's epoll, which Swift's Glibc module does not export.
#include <sys/epoll.h>

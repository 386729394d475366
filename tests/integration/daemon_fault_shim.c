/* LD_PRELOAD fault injection for the watch-daemon tests: while the file named by
 * MSIT_FAULT_FLAG exists, write(), fsync() and rename() on paths containing MSIT_FAULT_MATCH
 * (default ".msit-tmp.", our summary temp files) fail with MSIT_FAULT_ERRNO (default ENOSPC).
 * dlsym results are stored through void** (the POSIX idiom) to stay -Wpedantic clean. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static int fault_active(const char* path) {
  const char* flag = getenv("MSIT_FAULT_FLAG");
  if (flag == NULL || path == NULL || access(flag, F_OK) != 0) return 0;
  const char* match = getenv("MSIT_FAULT_MATCH");
  return strstr(path, match != NULL ? match : ".msit-tmp.") != NULL;
}

static int fault_errno(void) {
  const char* e = getenv("MSIT_FAULT_ERRNO");
  if (e == NULL || strcmp(e, "ENOSPC") == 0) return ENOSPC;
  if (strcmp(e, "EIO") == 0) return EIO;
  if (strcmp(e, "EROFS") == 0) return EROFS;
  return atoi(e);
}

static int fd_faulty(int fd) {
  if (fd <= 2) return 0;
  char link[64], path[PATH_MAX];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, path, sizeof path - 1);
  if (n <= 0) return 0;
  path[n] = '\0';
  return fault_active(path);
}

ssize_t write(int fd, const void* buf, size_t count) {
  static ssize_t (*real)(int, const void*, size_t);
  if (real == NULL) *(void**)(&real) = dlsym(RTLD_NEXT, "write");
  if (fd_faulty(fd)) {
    errno = fault_errno();
    return -1;
  }
  return real(fd, buf, count);
}

int fsync(int fd) {
  static int (*real)(int);
  if (real == NULL) *(void**)(&real) = dlsym(RTLD_NEXT, "fsync");
  if (fd_faulty(fd)) {
    errno = fault_errno();
    return -1;
  }
  return real(fd);
}

int rename(const char* from, const char* to) {
  static int (*real)(const char*, const char*);
  if (real == NULL) *(void**)(&real) = dlsym(RTLD_NEXT, "rename");
  if (fault_active(from)) {
    errno = fault_errno();
    return -1;
  }
  return real(from, to);
}

/* LD_PRELOAD test hook for restore_safety.sh: widens race windows deterministically.
 * Before the first publish of a temp file (renameat2 or linkat from a ".msit-tmp." name whose
 * target contains MSIT_SHIM_MATCH, default any), runs the shell command MSIT_SHIM_HOOK once
 * and waits for it (posix_spawn: unlike system() it leaves SIGINT/SIGTERM handling alone, so
 * the hook may signal the process). MSIT_SHIM_NOREPLACE_EINVAL=1 makes renameat2 with
 * RENAME_NOREPLACE fail with EINVAL, as filesystems without the flag do. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

static int is_publish(const char* from, const char* to) {
  if (from == NULL || to == NULL || strstr(from, ".msit-tmp.") == NULL) return 0;
  if (strstr(from, ".msit-tmp.claim.") != NULL) return 0;
  if (strstr(to, ".msit-compact.lock") != NULL) return 0; /* the tree lock, published at start */
  const char* match = getenv("MSIT_SHIM_MATCH");
  return match == NULL || strstr(to, match) != NULL;
}

static void run_hook_once(const char* from, const char* to) {
  static int done;
  const char* hook = getenv("MSIT_SHIM_HOOK");
  if (done || hook == NULL || !is_publish(from, to)) return;
  done = 1;
  char* argv[] = {"/bin/sh", "-c", (char*)hook, NULL};
  pid_t pid;
  if (posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ) != 0) return;
  int status;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

int renameat2(int olddirfd, const char* oldpath, int newdirfd, const char* newpath, unsigned int flags) {
  static int (*real)(int, const char*, int, const char*, unsigned int);
  if (real == NULL) *(void**)(&real) = dlsym(RTLD_NEXT, "renameat2");
  run_hook_once(oldpath, newpath);
  const char* einval = getenv("MSIT_SHIM_NOREPLACE_EINVAL");
  if (einval != NULL && strcmp(einval, "1") == 0 && (flags & RENAME_NOREPLACE) != 0) {
    errno = EINVAL;
    return -1;
  }
  return real(olddirfd, oldpath, newdirfd, newpath, flags);
}

int linkat(int olddirfd, const char* oldpath, int newdirfd, const char* newpath, int flags) {
  static int (*real)(int, const char*, int, const char*, int);
  if (real == NULL) *(void**)(&real) = dlsym(RTLD_NEXT, "linkat");
  run_hook_once(oldpath, newpath);
  return real(olddirfd, oldpath, newdirfd, newpath, flags);
}

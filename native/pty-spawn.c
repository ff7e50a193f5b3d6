/*
 * teamux_pty_spawn: start a pane's process on a new pseudo-terminal with posix_spawn, in place of
 * node-pty's forkpty() on Linux. glibc's posix_spawn is clone(CLONE_VM|CLONE_VFORK): the child borrows
 * the parent's memory until it execs, so the parent's page tables are neither copied nor
 * write-protected. After a fork(), every page of a ~100 MB Node heap that the parent writes to next
 * takes a copy-on-write fault; on a virtual machine that is ~20 µs a page, and starting four panes cost
 * the screen tens of milliseconds, most of it after the forks.
 *
 * fork(file, args, env, cwd, cols, rows, uid, gid, utf8, helperPath, onexit) takes node-pty's
 * arguments and returns what node-pty's does ({fd, pid, pty}); onexit(exitCode, signal) is called once
 * the process has ended. It returns null, and the caller uses node-pty's own fork, for what it does
 * not do the same way: a uid or gid to switch to, a program not found on the member's PATH (node-pty's
 * child prints execvp's error in the pane), a relative PATH entry, or any error from posix_spawn. The
 * child is what forkpty + node-pty's child code make: a session leader whose controlling terminal is
 * the pty (opened without O_NOCTTY after setsid), stdin/stdout/stderr on it, node-pty's termios and
 * window size, every signal at its default and none blocked, the working folder `cwd`, and `env`.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <node_api.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#define CHECK(call) do { if ((call) != napi_ok) goto bad_args; } while (0)

/* A JavaScript string as a malloc'd C string, or NULL. */
static char *string_arg(napi_env env, napi_value v) {
  size_t len = 0;
  if (napi_get_value_string_utf8(env, v, NULL, 0, &len) != napi_ok) return NULL;
  char *s = malloc(len + 1);
  if (s == NULL) return NULL;
  if (napi_get_value_string_utf8(env, v, s, len + 1, &len) != napi_ok) {
    free(s);
    return NULL;
  }
  return s;
}

static void free_strings(char **list) {
  if (list == NULL) return;
  for (char **p = list; *p != NULL; p++) free(*p);
  free(list);
}

/* A JavaScript array of strings as a NULL-terminated list, `first` (copied) before them when given. */
static char **string_list(napi_env env, napi_value arr, const char *first) {
  uint32_t n = 0;
  if (napi_get_array_length(env, arr, &n) != napi_ok) return NULL;
  size_t lead = first != NULL ? 1 : 0;
  char **list = calloc(n + lead + 1, sizeof(char *));
  if (list == NULL) return NULL;
  if (first != NULL && (list[0] = strdup(first)) == NULL) goto fail;
  for (uint32_t i = 0; i < n; i++) {
    napi_value item;
    if (napi_get_element(env, arr, i, &item) != napi_ok || (list[lead + i] = string_arg(env, item)) == NULL) goto fail;
  }
  return list;
fail:
  free_strings(list);
  return NULL;
}

/*
 * The program execvp() would run for `file` with the member's PATH (not this process's, which is
 * what posix_spawnp would search), or NULL when it is not found or the answer depends on the working
 * folder (a relative PATH entry): the caller then leaves it to node-pty.
 */
static char *resolve_program(const char *file, char **envp) {
  if (strchr(file, '/') != NULL) return strdup(file);
  if (*file == '\0') return NULL;
  const char *path = "/bin:/usr/bin";
  for (char **e = envp; *e != NULL; e++)
    if (strncmp(*e, "PATH=", 5) == 0) path = *e + 5;
  size_t flen = strlen(file);
  for (const char *dir = path;; ) {
    const char *end = strchrnul(dir, ':');
    size_t dlen = (size_t)(end - dir);
    if (dlen == 0 || dir[0] != '/') return NULL;
    if (dlen + 1 + flen < PATH_MAX) {
      char candidate[PATH_MAX];
      memcpy(candidate, dir, dlen);
      candidate[dlen] = '/';
      memcpy(candidate + dlen + 1, file, flen + 1);
      struct stat st;
      if (stat(candidate, &st) == 0 && S_ISREG(st.st_mode) && access(candidate, X_OK) == 0) return strdup(candidate);
    }
    if (*end == '\0') return NULL;
    dir = end + 1;
  }
}

/* node-pty's termios for a new pane (src/unix/pty.cc, PtyFork). */
static void pane_termios(struct termios *t, int utf8) {
  memset(t, 0, sizeof *t);
  t->c_iflag = ICRNL | IXON | IXANY | IMAXBEL | BRKINT;
  if (utf8) t->c_iflag |= IUTF8;
  t->c_oflag = OPOST | ONLCR;
  t->c_cflag = CREAD | CS8 | HUPCL;
  t->c_lflag = ICANON | ISIG | IEXTEN | ECHO | ECHOE | ECHOK | ECHOKE | ECHOCTL;
  static const struct { int at; cc_t value; } chars[] = {
    { VEOF, 4 }, { VEOL, (cc_t)-1 }, { VEOL2, (cc_t)-1 }, { VERASE, 0x7f }, { VWERASE, 23 }, { VKILL, 21 },
    { VREPRINT, 18 }, { VINTR, 3 }, { VQUIT, 0x1c }, { VSUSP, 26 }, { VSTART, 17 }, { VSTOP, 19 },
    { VLNEXT, 22 }, { VDISCARD, 15 }, { VMIN, 1 }, { VTIME, 0 },
  };
  for (size_t i = 0; i < sizeof chars / sizeof chars[0]; i++) t->c_cc[chars[i].at] = chars[i].value;
  cfsetispeed(t, B38400);
  cfsetospeed(t, B38400);
}

/* One process being waited for: a thread blocks in waitpid() and hands the status to JavaScript. */
typedef struct {
  pid_t pid;
  napi_threadsafe_function tsfn;
} Watch;

static void call_onexit(napi_env env, napi_value cb, void *context, void *data) {
  (void)context;
  int *codes = data;
  if (env != NULL && cb != NULL) {
    napi_value args[2], undefined;
    napi_create_int32(env, codes[0], &args[0]);
    napi_create_int32(env, codes[1], &args[1]);
    napi_get_undefined(env, &undefined);
    napi_call_function(env, undefined, cb, 2, args, NULL);
  }
  free(codes);
}

static void *wait_for_exit(void *arg) {
  Watch *w = arg;
  int status = 0;
  pid_t r;
  do r = waitpid(w->pid, &status, 0);
  while (r == -1 && errno == EINTR);
  int *codes = calloc(2, sizeof(int));
  if (codes != NULL) {
    /* ECHILD (reaped elsewhere) reads as exit code 0, as in node-pty. */
    if (r == w->pid && WIFEXITED(status)) codes[0] = WEXITSTATUS(status);
    if (r == w->pid && WIFSIGNALED(status)) codes[1] = WTERMSIG(status);
    /* Refused only while Node shuts down: then nobody is waiting for it. */
    if (napi_call_threadsafe_function(w->tsfn, codes, napi_tsfn_blocking) != napi_ok) free(codes);
  }
  napi_release_threadsafe_function(w->tsfn, napi_tsfn_release);
  free(w);
  return NULL;
}

/* Start the thread that waits for `pid`, with every signal blocked in it (they are the main thread's). */
static int watch_exit(napi_env env, napi_value onexit, pid_t pid) {
  Watch *w = calloc(1, sizeof *w);
  if (w == NULL) return -1;
  w->pid = pid;
  napi_value name;
  napi_create_string_utf8(env, "teamux_pty_spawn_exit", NAPI_AUTO_LENGTH, &name);
  if (napi_create_threadsafe_function(env, onexit, NULL, name, 0, 1, NULL, NULL, NULL, call_onexit, &w->tsfn) != napi_ok) {
    free(w);
    return -1;
  }
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  pthread_t th;
  int err = pthread_create(&th, &attr, wait_for_exit, w);
  pthread_attr_destroy(&attr);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (err != 0) {
    napi_release_threadsafe_function(w->tsfn, napi_tsfn_release);
    free(w);
    return -1;
  }
  return 0;
}

/* The pty pair: master (non-blocking, close-on-exec) and the slave's path; -1 on failure. */
static int open_pty(char *slave_name, size_t size) {
  int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (master < 0) return -1;
  if (grantpt(master) != 0 || unlockpt(master) != 0 || ptsname_r(master, slave_name, size) != 0) {
    close(master);
    return -1;
  }
  return master;
}

static napi_value Fork(napi_env env, napi_callback_info info) {
  size_t argc = 11;
  napi_value argv[11], result;
  napi_get_null(env, &result);
  char *file = NULL, *cwd = NULL, *program = NULL;
  char **args = NULL, **envp = NULL;
  int master = -1, slave = -1;
  int32_t cols = 80, rows = 24, uid = -1, gid = -1;
  bool utf8 = true;
  napi_valuetype cb_type;
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 11) goto bad_args;
  CHECK(napi_typeof(env, argv[10], &cb_type));
  if (cb_type != napi_function) goto bad_args;
  CHECK(napi_get_value_int32(env, argv[4], &cols));
  CHECK(napi_get_value_int32(env, argv[5], &rows));
  CHECK(napi_get_value_int32(env, argv[6], &uid));
  CHECK(napi_get_value_int32(env, argv[7], &gid));
  CHECK(napi_get_value_bool(env, argv[8], &utf8));
  if ((file = string_arg(env, argv[0])) == NULL || (cwd = string_arg(env, argv[3])) == NULL) goto bad_args;
  if ((args = string_list(env, argv[1], file)) == NULL || (envp = string_list(env, argv[2], NULL)) == NULL) goto bad_args;
  /* A user to switch to, or a program found only by execvp's own rules: node-pty does it. */
  if (uid != -1 || gid != -1 || (program = resolve_program(file, envp)) == NULL) goto done;

  char slave_name[128];
  if ((master = open_pty(slave_name, sizeof slave_name)) < 0) goto done;
  if ((slave = open(slave_name, O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0) goto done;
  struct termios t;
  pane_termios(&t, utf8);
  struct winsize ws = { .ws_row = (unsigned short)(rows > 0 ? rows : 1), .ws_col = (unsigned short)(cols > 0 ? cols : 1) };
  if (tcsetattr(slave, TCSANOW, &t) != 0 || ioctl(slave, TIOCSWINSZ, &ws) != 0) goto done;

  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attrs;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attrs);
  sigset_t all, none;
  sigfillset(&all);
  /*
   * sigfillset leaves out the C library's own signals (the kernel's first real-time signals, below
   * SIGRTMIN: glibc's SIGCANCEL and SIGSETXID, 32 and 33), and glibc's posix_spawn then starts the
   * child with them ignored: set in the mask by hand, the child gets them at their default, as
   * forkpty's child does (sigset_t holds signal n at bit n - 1).
   */
  for (int sig = 32; sig < SIGRTMIN; sig++)
    ((unsigned long *)&all)[(sig - 1) / (8 * sizeof(unsigned long))] |= 1UL << ((sig - 1) % (8 * sizeof(unsigned long)));
  sigemptyset(&none);
  /* glibc runs setsid before the file actions: the open below makes the pty its controlling terminal. */
  int err = posix_spawnattr_setflags(&attrs, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  if (err == 0) err = posix_spawnattr_setsigdefault(&attrs, &all);
  if (err == 0) err = posix_spawnattr_setsigmask(&attrs, &none);
  if (err == 0) err = posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, slave_name, O_RDWR, 0);
  if (err == 0) err = posix_spawn_file_actions_adddup2(&actions, STDIN_FILENO, STDOUT_FILENO);
  if (err == 0) err = posix_spawn_file_actions_adddup2(&actions, STDIN_FILENO, STDERR_FILENO);
  if (err == 0 && cwd[0] != '\0') err = posix_spawn_file_actions_addchdir_np(&actions, cwd);
  pid_t pid = -1;
  if (err == 0) {
    do err = posix_spawn(&pid, program, &actions, &attrs, args, envp);
    while (err == EINTR);
  }
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attrs);
  if (err != 0) goto done;

  int flags = fcntl(master, F_GETFL);
  if (flags != -1) fcntl(master, F_SETFL, flags | O_NONBLOCK);
  if (watch_exit(env, argv[10], pid) != 0) {
    /* Nobody would ever hear of its end: stop it, and let node-pty start it instead. */
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    goto done;
  }
  napi_value fd_v, pid_v, pty_v;
  napi_create_object(env, &result);
  napi_create_int32(env, master, &fd_v);
  napi_create_int32(env, pid, &pid_v);
  napi_create_string_utf8(env, slave_name, NAPI_AUTO_LENGTH, &pty_v);
  napi_set_named_property(env, result, "fd", fd_v);
  napi_set_named_property(env, result, "pid", pid_v);
  napi_set_named_property(env, result, "pty", pty_v);
  master = -1;
  goto done;

bad_args:
  napi_throw_type_error(env, NULL, "teamux_pty_spawn.fork(file, args, env, cwd, cols, rows, uid, gid, utf8, helperPath, onexit)");
  napi_get_undefined(env, &result);
done:
  if (slave >= 0) close(slave);
  if (master >= 0) close(master);
  free(file);
  free(cwd);
  free(program);
  free_strings(args);
  free_strings(envp);
  return result;
}

static napi_value Init(napi_env env, napi_value exports) {
  napi_value fn;
  napi_create_function(env, "fork", NAPI_AUTO_LENGTH, Fork, NULL, &fn);
  napi_set_named_property(env, exports, "fork", fn);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)

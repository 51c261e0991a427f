/*
 * headroom's socket reactor: the client side of every terminal's connection, without Node's
 * stream machinery in between.
 *
 * Why: on a machine where client and server share the cores, every microsecond the client spends
 * per round trip is taken from the database. Node's net.Socket costs about 4-9 us of user time
 * per request and answer (Writable and Readable streams, a write request object per write, one
 * JavaScript callback with its own microtask checkpoint per socket read). Here each socket is a
 * bare libuv poll handle: in the loop's poll phase every readable socket is read into one shared
 * buffer, and in the check phase that follows, ONE call into JavaScript hands over the whole
 * batch. A write is a send(2) straight from the caller's buffer. (A first version watched its own
 * epoll set through one poll handle; that cost an extra epoll_wait per wake-up.)
 *
 * The protocol (PostgreSQL, MariaDB) stays in TypeScript; this file only moves bytes. One reactor
 * per Node environment (the main thread and each worker thread of -j), via instance data.
 *
 * Events go to JavaScript as int32 quadruples (id, kind, a, b) in a shared Int32Array:
 *   DATA      a = offset in the shared input buffer, b = length
 *   CONNECTED (a non-blocking connect finished)
 *   ERROR     a = errno (connect, read or write failed; the connection is dead)
 *   EOF       the peer closed the connection
 *   DRAINED   bytes that had to wait are all sent
 */
#define _GNU_SOURCE
#include <node_api.h>
#include <uv.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

enum { EV_DATA = 0, EV_CONNECTED = 1, EV_ERROR = 2, EV_EOF = 3, EV_DRAINED = 4 };

/* One socket read takes at most this much of the shared buffer, so that one connection's large
 * result cannot starve the others in a batch; the rest is read on the next round. */
#define READ_SLICE (256 * 1024)
/* Below this much free space the batch is delivered before reading more. */
#define READ_MIN (16 * 1024)

typedef struct Reactor Reactor;

typedef struct {
  uv_poll_t poll; /* first: the handle's address is the connection's */
  Reactor *reactor;
  int32_t id;
  int fd;
  int connecting;
  /* Watching: set once the poll handle is started; dead: an error or EOF was reported. */
  int watching;
  int dead;
  /* closed: close() was called; the handle is closing and freed by libuv's close callback. */
  int closed;
  /* Bytes a send(2) could not take yet, sent when the socket is writable again. */
  uint8_t *pending;
  size_t pending_start, pending_end, pending_cap;
} Conn;

struct Reactor {
  napi_env env;
  uv_check_t check;
  napi_ref on_events;
  napi_ref input_ref;
  napi_ref events_ref;
  napi_async_context async;
  uint8_t *input;
  size_t input_cap;
  size_t input_used;
  int32_t *events;
  size_t events_cap; /* in quadruples */
  size_t event_count;
  Conn **conns;
  int32_t conns_cap;
  /* Slots freed while JavaScript handles a batch are reused only after it: a later event of the
   * same batch must not reach a new connection that took the old one's id. */
  int32_t *free_ids;
  int32_t free_count, free_cap;
  int32_t *freed_later;
  int32_t freed_later_count, freed_later_cap;
  int delivering;
  /* Handles being closed at the environment's end; the reactor is freed when the last is. */
  int closing;
  int shutting_down;
  napi_async_cleanup_hook_handle cleanup;
};

#define CHECK(env, call)                                                                    \
  do {                                                                                      \
    if ((call) != napi_ok) {                                                                \
      napi_throw_error((env), NULL, "headroom reactor: N-API call failed: " #call);         \
      return NULL;                                                                          \
    }                                                                                       \
  } while (0)

static Reactor *reactor_of(napi_env env) {
  void *data = NULL;
  if (napi_get_instance_data(env, &data) != napi_ok || data == NULL) {
    napi_throw_error(env, NULL, "headroom reactor: init() was not called in this thread");
    return NULL;
  }
  return (Reactor *)data;
}

static int push_id(int32_t **list, int32_t *count, int32_t *cap, int32_t id) {
  if (*count == *cap) {
    int32_t grown = *cap ? *cap * 2 : 64;
    int32_t *bigger = realloc(*list, (size_t)grown * sizeof(int32_t));
    if (!bigger) return -1;
    *list = bigger;
    *cap = grown;
  }
  (*list)[(*count)++] = id;
  return 0;
}

static void deliver(Reactor *r);

/* on_io makes room for its events before it adds any (see there), so this never overflows. */
static void add_event(Reactor *r, int32_t id, int32_t kind, int32_t a, int32_t b) {
  int32_t *e = r->events + r->event_count * 4;
  e[0] = id;
  e[1] = kind;
  e[2] = a;
  e[3] = b;
  r->event_count++;
}

static void on_io(uv_poll_t *handle, int status, int events);

/* What the poll handle waits for: writability while connecting or while bytes wait, readability
 * once connected; nothing once the connection is dead. */
static void watch(Conn *c) {
  if (c->closed) return;
  if (c->dead) {
    if (c->watching) uv_poll_stop(&c->poll);
    c->watching = 0;
    return;
  }
  int events = c->connecting ? UV_WRITABLE : UV_READABLE | UV_DISCONNECT;
  if (c->pending_end > c->pending_start) events |= UV_WRITABLE;
  uv_poll_start(&c->poll, events, on_io);
  c->watching = 1;
}

static void mark_dead(Conn *c, int32_t kind, int32_t error) {
  if (c->dead) return;
  add_event(c->reactor, c->id, kind, error, 0);
  c->dead = 1;
  watch(c);
}

/* Sends what waits; returns 0 when all is sent, 1 when some still waits, -errno on failure. */
static int flush_pending(Conn *c) {
  while (c->pending_end > c->pending_start) {
    ssize_t n = send(c->fd, c->pending + c->pending_start, c->pending_end - c->pending_start, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) return 1;
      if (errno == EINTR) continue;
      return -errno;
    }
    c->pending_start += (size_t)n;
  }
  c->pending_start = c->pending_end = 0;
  return 0;
}

static int queue_bytes(Conn *c, const uint8_t *bytes, size_t length) {
  size_t waiting = c->pending_end - c->pending_start;
  if (c->pending_start > 0 && waiting > 0) memmove(c->pending, c->pending + c->pending_start, waiting);
  c->pending_start = 0;
  c->pending_end = waiting;
  if (waiting + length > c->pending_cap) {
    size_t grown = c->pending_cap ? c->pending_cap : 4096;
    while (grown < waiting + length) grown *= 2;
    uint8_t *bigger = realloc(c->pending, grown);
    if (!bigger) return -ENOMEM;
    c->pending = bigger;
    c->pending_cap = grown;
  }
  memcpy(c->pending + c->pending_end, bytes, length);
  c->pending_end += length;
  return 0;
}

static void deliver(Reactor *r) {
  if (r->event_count == 0 || r->shutting_down) return;
  napi_env env = r->env;
  napi_handle_scope scope;
  if (napi_open_handle_scope(env, &scope) != napi_ok) return;
  napi_value callback, argv[1], ignored;
  napi_get_reference_value(env, r->on_events, &callback);
  napi_create_uint32(env, (uint32_t)r->event_count, &argv[0]);
  r->delivering = 1;
  /* make_callback, not call_function: once the batch is handled Node runs the microtasks it
   * queued (the terminals' next steps) and reports an exception as uncaught, as for its own I/O. */
  /* `this` must be an object: the callback itself serves (fetching the global object costs more). */
  napi_status status = napi_make_callback(env, r->async, callback, callback, 1, argv, &ignored);
  r->delivering = 0;
  r->event_count = 0;
  r->input_used = 0;
  for (int32_t i = 0; i < r->freed_later_count; i++) push_id(&r->free_ids, &r->free_count, &r->free_cap, r->freed_later[i]);
  r->freed_later_count = 0;
  if (status != napi_ok) {
    /* A throw in the handler is a bug: report it as Node reports one from its own I/O. */
    napi_value error;
    bool pending = false;
    napi_is_exception_pending(env, &pending);
    if (pending && napi_get_and_clear_last_exception(env, &error) == napi_ok) napi_fatal_exception(env, error);
  }
  napi_close_handle_scope(env, scope);
}

static void on_io(uv_poll_t *handle, int status, int events) {
  Conn *c = (Conn *)handle;
  Reactor *r = c->reactor;
  /* Room first: a socket adds at most two events here (CONNECTED then ERROR, DRAINED then DATA)
   * and one read. Delivering runs JavaScript, which may close this very connection. */
  if (r->event_count + 2 > r->events_cap || r->input_cap - r->input_used < READ_MIN) deliver(r);
  if (c->closed || c->dead) return;
  if (status < 0) {
    /* libuv reports POLLERR as UV_EBADF: the socket itself says what went wrong. */
    int error = 0;
    socklen_t length = sizeof error;
    if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &error, &length) < 0 || error == 0) error = -status;
    mark_dead(c, EV_ERROR, error);
    return;
  }
  if (c->connecting) {
    int error = 0;
    socklen_t length = sizeof error;
    if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &error, &length) < 0) error = errno;
    if (error != 0) { mark_dead(c, EV_ERROR, error); return; }
    c->connecting = 0;
    add_event(r, c->id, EV_CONNECTED, 0, 0);
    int flushed = flush_pending(c);
    if (flushed < 0) { mark_dead(c, EV_ERROR, -flushed); return; }
    watch(c);
    return;
  }
  if ((events & UV_WRITABLE) && c->pending_end > c->pending_start) {
    int flushed = flush_pending(c);
    if (flushed < 0) { mark_dead(c, EV_ERROR, -flushed); return; }
    if (flushed == 0) {
      watch(c);
      add_event(r, c->id, EV_DRAINED, 0, 0);
    }
  }
  if (events & (UV_READABLE | UV_DISCONNECT)) {
    size_t room = r->input_cap - r->input_used;
    if (room > READ_SLICE) room = READ_SLICE;
    ssize_t got = recv(c->fd, r->input + r->input_used, room, MSG_DONTWAIT);
    if (got > 0) {
      add_event(r, c->id, EV_DATA, (int32_t)r->input_used, (int32_t)got);
      r->input_used += (size_t)got;
    } else if (got == 0) {
      mark_dead(c, EV_EOF, 0);
    } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      mark_dead(c, EV_ERROR, errno);
    }
  }
}

/* After the poll phase: what it read goes to JavaScript in one call. */
static void on_check(uv_check_t *handle) {
  deliver((Reactor *)handle->data);
}

static int32_t new_id(Reactor *r, Conn *c) {
  if (r->free_count > 0) {
    int32_t id = r->free_ids[--r->free_count];
    r->conns[id] = c;
    return id;
  }
  if (r->conns_cap >= INT32_MAX / 2) return -1;
  int32_t grown = r->conns_cap ? r->conns_cap * 2 : 64;
  Conn **bigger = realloc(r->conns, (size_t)grown * sizeof(Conn *));
  if (!bigger) return -1;
  for (int32_t i = r->conns_cap; i < grown; i++) bigger[i] = NULL;
  r->conns = bigger;
  for (int32_t i = grown - 1; i > r->conns_cap; i--) push_id(&r->free_ids, &r->free_count, &r->free_cap, i);
  int32_t id = r->conns_cap;
  r->conns_cap = grown;
  r->conns[id] = c;
  return id;
}

static void free_reactor(Reactor *r) {
  free(r->conns);
  free(r->free_ids);
  free(r->freed_later);
  napi_remove_async_cleanup_hook(r->cleanup);
  free(r);
}

static void on_conn_closed(uv_handle_t *handle) {
  Conn *c = (Conn *)handle;
  Reactor *r = c->reactor;
  free(c->pending);
  free(c);
  if (r->shutting_down && --r->closing == 0) free_reactor(r);
}

static void on_check_closed(uv_handle_t *handle) {
  Reactor *r = (Reactor *)handle->data;
  if (--r->closing == 0) free_reactor(r);
}

/* The poll handle is stopped before the descriptor is closed (libuv's rule), and freed once
 * libuv has closed it. */
static void destroy_conn(Reactor *r, int32_t id) {
  Conn *c = r->conns[id];
  if (!c) return;
  if (c->watching) uv_poll_stop(&c->poll);
  c->watching = 0;
  c->closed = 1;
  close(c->fd);
  r->conns[id] = NULL;
  if (r->delivering) push_id(&r->freed_later, &r->freed_later_count, &r->freed_later_cap, id);
  else push_id(&r->free_ids, &r->free_count, &r->free_cap, id);
  uv_close((uv_handle_t *)&c->poll, on_conn_closed);
}

/* The environment is going away (process exit, worker thread end): close every socket and
 * handle; the reactor is freed once libuv has closed the last of them. */
static void cleanup_hook(napi_async_cleanup_hook_handle handle, void *data) {
  (void)handle;
  Reactor *r = (Reactor *)data;
  r->shutting_down = 1;
  r->closing = 1; /* the check handle */
  for (int32_t id = 0; id < r->conns_cap; id++) {
    Conn *c = r->conns[id];
    if (!c) continue;
    if (c->watching) uv_poll_stop(&c->poll);
    close(c->fd);
    r->conns[id] = NULL;
    r->closing++;
    uv_close((uv_handle_t *)&c->poll, on_conn_closed);
  }
  uv_check_stop(&r->check);
  uv_close((uv_handle_t *)&r->check, on_check_closed);
}

/* init(onEvents(count), input: Buffer, events: Int32Array): once per thread. */
static napi_value init(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  void *existing = NULL;
  napi_get_instance_data(env, &existing);
  if (existing != NULL) {
    napi_throw_error(env, NULL, "headroom reactor: init() was already called in this thread");
    return NULL;
  }
  void *data;
  size_t length;
  size_t events_length;
  void *events_data;
  napi_typedarray_type type;
  napi_value arraybuffer;
  size_t offset;
  CHECK(env, napi_get_buffer_info(env, argv[1], &data, &length));
  CHECK(env, napi_get_typedarray_info(env, argv[2], &type, &events_length, &events_data, &arraybuffer, &offset));
  if (type != napi_int32_array || events_length < 8 || length < 2 * READ_MIN) {
    napi_throw_error(env, NULL, "headroom reactor: init(onEvents, Buffer of 32 KiB or more, Int32Array)");
    return NULL;
  }
  Reactor *r = calloc(1, sizeof(Reactor));
  if (!r) {
    napi_throw_error(env, NULL, "headroom reactor: out of memory");
    return NULL;
  }
  r->env = env;
  r->input = data;
  r->input_cap = length;
  r->events = events_data;
  r->events_cap = events_length / 4;
  CHECK(env, napi_create_reference(env, argv[0], 1, &r->on_events));
  CHECK(env, napi_create_reference(env, argv[1], 1, &r->input_ref));
  CHECK(env, napi_create_reference(env, argv[2], 1, &r->events_ref));
  napi_value resource, name;
  CHECK(env, napi_create_object(env, &resource));
  CHECK(env, napi_create_string_utf8(env, "HeadroomReactor", NAPI_AUTO_LENGTH, &name));
  CHECK(env, napi_async_init(env, resource, name, &r->async));
  uv_loop_t *loop;
  CHECK(env, napi_get_uv_event_loop(env, &loop));
  uv_check_init(loop, &r->check);
  r->check.data = r;
  uv_check_start(&r->check, on_check);
  /* The check handle alone must not keep the process alive; open sockets' poll handles do. */
  uv_unref((uv_handle_t *)&r->check);
  CHECK(env, napi_set_instance_data(env, r, NULL, NULL));
  CHECK(env, napi_add_async_cleanup_hook(env, cleanup_hook, r, &r->cleanup));
  return NULL;
}

static napi_value errno_value(napi_env env, int error) {
  napi_value code;
  napi_create_int32(env, -error, &code);
  return code;
}

static napi_value open_socket(napi_env env, Reactor *r, int fd, const struct sockaddr *address, socklen_t address_length, int tcp) {
  if (tcp) {
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  int result = connect(fd, address, address_length);
  int error = result == 0 ? 0 : errno;
  if (error != 0 && error != EINPROGRESS && error != EAGAIN) {
    close(fd);
    return errno_value(env, error);
  }
  Conn *c = calloc(1, sizeof(Conn));
  if (!c) {
    close(fd);
    napi_throw_error(env, NULL, "headroom reactor: out of memory");
    return NULL;
  }
  uv_loop_t *loop;
  napi_get_uv_event_loop(env, &loop);
  int init_error = uv_poll_init_socket(loop, &c->poll, fd);
  if (init_error != 0) {
    free(c);
    close(fd);
    return errno_value(env, -init_error);
  }
  int32_t id = new_id(r, c);
  if (id < 0) {
    c->fd = fd;
    c->reactor = r;
    uv_close((uv_handle_t *)&c->poll, on_conn_closed);
    close(fd);
    napi_throw_error(env, NULL, "headroom reactor: too many connections");
    return NULL;
  }
  c->reactor = r;
  c->id = id;
  c->fd = fd;
  /* Even a connect that finished at once reports CONNECTED from the loop, so that JavaScript
   * sees one order of events whatever the kernel did. */
  c->connecting = 1;
  watch(c);
  napi_value out;
  napi_create_int32(env, id, &out);
  return out;
}

/* connectTcp(address: string, port: number, ipv6: boolean) -> id, or -errno at once. */
static napi_value connect_tcp(napi_env env, napi_callback_info info) {
  Reactor *r = reactor_of(env);
  if (!r) return NULL;
  size_t argc = 3;
  napi_value argv[3];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  char host[64];
  size_t host_length;
  int32_t port;
  bool ipv6;
  CHECK(env, napi_get_value_string_utf8(env, argv[0], host, sizeof host, &host_length));
  CHECK(env, napi_get_value_int32(env, argv[1], &port));
  CHECK(env, napi_get_value_bool(env, argv[2], &ipv6));
  struct sockaddr_storage address;
  memset(&address, 0, sizeof address);
  socklen_t length;
  if (ipv6) {
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)&address;
    a->sin6_family = AF_INET6;
    a->sin6_port = htons((uint16_t)port);
    if (inet_pton(AF_INET6, host, &a->sin6_addr) != 1) goto bad_address;
    length = sizeof *a;
  } else {
    struct sockaddr_in *a = (struct sockaddr_in *)&address;
    a->sin_family = AF_INET;
    a->sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, host, &a->sin_addr) != 1) goto bad_address;
    length = sizeof *a;
  }
  int fd = socket(ipv6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return errno_value(env, errno);
  return open_socket(env, r, fd, (struct sockaddr *)&address, length, 1);
bad_address:
  napi_throw_error(env, NULL, "headroom reactor: connectTcp takes a numeric address");
  return NULL;
}

/* connectUnix(path: string) -> id, or -errno at once. */
static napi_value connect_unix(napi_env env, napi_callback_info info) {
  Reactor *r = reactor_of(env);
  if (!r) return NULL;
  size_t argc = 1;
  napi_value argv[1];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  struct sockaddr_un address;
  memset(&address, 0, sizeof address);
  address.sun_family = AF_UNIX;
  size_t length;
  CHECK(env, napi_get_value_string_utf8(env, argv[0], address.sun_path, sizeof address.sun_path, &length));
  if (length >= sizeof address.sun_path - 1) {
    napi_throw_error(env, NULL, "headroom reactor: socket path too long");
    return NULL;
  }
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return errno_value(env, errno);
  return open_socket(env, r, fd, (struct sockaddr *)&address, sizeof address, 0);
}

/* write(id, buffer, start, end) -> bytes still waiting (0: all sent), or -errno. The caller may
 * reuse its buffer as soon as this returns: what the socket could not take is copied. */
static napi_value write_bytes(napi_env env, napi_callback_info info) {
  Reactor *r = reactor_of(env);
  if (!r) return NULL;
  size_t argc = 4;
  napi_value argv[4];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  int32_t id, start, end;
  void *data;
  size_t length;
  CHECK(env, napi_get_value_int32(env, argv[0], &id));
  CHECK(env, napi_get_buffer_info(env, argv[1], &data, &length));
  CHECK(env, napi_get_value_int32(env, argv[2], &start));
  CHECK(env, napi_get_value_int32(env, argv[3], &end));
  if (id < 0 || id >= r->conns_cap || r->conns[id] == NULL || r->conns[id]->dead) return errno_value(env, EBADF);
  if (start < 0 || end < start || (size_t)end > length) {
    napi_throw_range_error(env, NULL, "headroom reactor: write range outside the buffer");
    return NULL;
  }
  Conn *c = r->conns[id];
  const uint8_t *bytes = (const uint8_t *)data + start;
  size_t count = (size_t)(end - start);
  int was_waiting = c->connecting || c->pending_end > c->pending_start;
  if (!was_waiting) {
    while (count > 0) {
      ssize_t n = send(c->fd, bytes, count, MSG_DONTWAIT | MSG_NOSIGNAL);
      if (n < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) break;
        return errno_value(env, errno);
      }
      bytes += n;
      count -= (size_t)n;
    }
  }
  if (count > 0) {
    int queued = queue_bytes(c, bytes, count);
    if (queued < 0) return errno_value(env, -queued);
    if (!was_waiting) watch(c);
  }
  size_t waiting = c->pending_end - c->pending_start;
  napi_value out;
  napi_create_int32(env, waiting > INT32_MAX ? INT32_MAX : (int32_t)waiting, &out);
  return out;
}

/* close(id): closes the socket at once; events of it still in the batch being handled are
 * for JavaScript to ignore. */
static napi_value close_socket(napi_env env, napi_callback_info info) {
  Reactor *r = reactor_of(env);
  if (!r) return NULL;
  size_t argc = 1;
  napi_value argv[1];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  int32_t id;
  CHECK(env, napi_get_value_int32(env, argv[0], &id));
  if (id >= 0 && id < r->conns_cap && r->conns[id] != NULL) destroy_conn(r, id);
  return NULL;
}

static napi_value module_init(napi_env env, napi_value exports) {
  napi_property_descriptor methods[] = {
      {"init", NULL, init, NULL, NULL, NULL, napi_default, NULL},
      {"connectTcp", NULL, connect_tcp, NULL, NULL, NULL, napi_default, NULL},
      {"connectUnix", NULL, connect_unix, NULL, NULL, NULL, napi_default, NULL},
      {"write", NULL, write_bytes, NULL, NULL, NULL, napi_default, NULL},
      {"close", NULL, close_socket, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof methods / sizeof methods[0], methods);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, module_init)

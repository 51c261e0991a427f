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
 * A small write made while JavaScript handles a batch (each terminal's next request, written as
 * its answer is handled) is copied and sent once the batch's JavaScript and microtasks are done,
 * all of the batch's together: in one io_uring_enter where io_uring can be used (send-ring.c),
 * else one send(2) after another. Sent at once, each send(2) ran the loopback's TCP path and the
 * wake-up of a server thread between two answers' JavaScript, which then ran on caches the kernel
 * had just taken over; and the woken server thread often took the client's core at the call's
 * return, before the next answer was handled. Measured against MariaDB (8 clients, point selects,
 * a 2-core machine shared with the server), the client's CPU per transaction fell by about a
 * third, its system calls per transaction from 2.3 to 1.5 and its context switches from 0.7 to
 * 0.2 (io_uring's share: about a quarter of the CPU, measured against the same sends one by
 * one). A request waits at most for the rest of its batch, and never for more than
 * DEFER_CONNECTIONS connections' JavaScript.
 *
 * Once a batch is handled, the loop polls its sockets a little before it sleeps (spin.c): where
 * answers come within tens of microseconds, a sleep and its wake-up cost more than the poll.
 *
 * The protocol (PostgreSQL, MariaDB) stays in TypeScript; this file only moves bytes. One reactor
 * per Node environment (the main thread and each worker thread of -j), via instance data.
 *
 * TLS lives here too, for the same reason. Node's tls module would put a TLSWrap and its streams
 * back between the client and the socket, and with them a JavaScript call per read and a write
 * request per write: measured against pgbench with sslmode=require, headroom's client cost per
 * transaction went from 1.27x pgbench's in plaintext to 1.8-1.9x. So once a protocol has asked
 * for TLS in plaintext (PostgreSQL's SSLRequest, MariaDB's SSL request packet, both in
 * TypeScript), startTls() hands the socket to OpenSSL: the handshake runs in the loop, and then
 * SSL_read fills the same shared buffer and SSL_write sends from the caller's, so encrypted
 * connections keep the batching. OpenSSL is the copy inside Node (Node exports its symbols and
 * its headers tarball ships OpenSSL's; the addon is not linked against a system libssl, whose
 * state would not be Node's). The symbols are bound lazily, so the addon loads in a Node without
 * them, and tlsAvailable() says before any call whether this process has OpenSSL 3; where it has
 * not, TLS stays on Node's tls module (transport/tls-transport.ts). What the certificate
 * checks decide stays in TypeScript (transport/native-tls.ts): this file reports OpenSSL's
 * verification result and the server's certificate, and the caller refuses, with the same lines
 * as Node's tls path gives.
 *
 * Events go to JavaScript as int32 quadruples (id, kind, a, b) in a shared Int32Array:
 *   DATA      a = offset in the shared input buffer, b = length (decrypted, for TLS)
 *   CONNECTED (a non-blocking connect finished)
 *   ERROR     a = errno (connect, read or write failed; the connection is dead); EPROTO when TLS
 *             failed, with the reason in tlsError(id)
 *   EOF       the peer closed the connection
 *   DRAINED   bytes that had to wait are all sent
 *   TLS_READY the handshake startTls() began is done; tlsSession(id) tells what it negotiated
 *   TIMER     (id 0) the time timerArm() set has come
 *
 * The timer is for -R's schedule: Node's timers count whole milliseconds of a clock cached once
 * per loop turn, so a transaction due at 10.3 ms starts at 11 or 12 (pgbench's wait is a select(2)
 * to the microsecond). One timerfd per reactor, CLOCK_MONOTONIC (Node's performance.now() and
 * process.hrtime() clock) with an absolute expiry, watched by one more poll handle: its expiry
 * wakes the loop's epoll_wait at the due time, without spinning, and rides the next batch as one
 * TIMER event, so a due time and the sockets' answers that came with it cost one call into
 * JavaScript. The due times themselves (several terminals' at once) stay in JavaScript, which
 * arms this one timer for the earliest (native-transport.ts).
 */
#define _GNU_SOURCE
#include <node_api.h>
#include <uv.h>

#include "send-ring.h"
#include "spin.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <unistd.h>

enum { EV_DATA = 0, EV_CONNECTED = 1, EV_ERROR = 2, EV_EOF = 3, EV_DRAINED = 4, EV_TLS_READY = 5, EV_TIMER = 6 };

/* One socket read takes at most this much of the shared buffer, so that one connection's large
 * result cannot starve the others in a batch; the rest is read on the next round. */
#ifndef READ_SLICE /* a test build may make it small, to exercise the TLS backlog */
#define READ_SLICE (256 * 1024)
#endif
/* Below this much free space the batch is delivered before reading more. */
#define READ_MIN (16 * 1024)
/* The most plaintext one TLS record carries (RFC 8446, 5.1): an SSL_read is only started with
 * this much room, so that it takes a whole record. */
#define TLS_RECORD_MAX (16 * 1024)
/* A write made while a batch is handled waits for the batch's end when it is this small (a
 * request; bulk loads' large writes go at once), and until this many connections wait. */
#define DEFER_MAX (4 * 1024)
#define DEFER_CONNECTIONS 64

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
  /* Bytes a send(2) could not take yet, sent when the socket is writable again. With TLS, the
   * plaintext SSL_write could not take yet (OpenSSL allows the retry from a moved buffer). */
  uint8_t *pending;
  size_t pending_start, pending_end, pending_cap;
  /* The poll events last asked for: uv_poll_start again only when they change. */
  int watched_events;
  /* TLS (startTls): the session; handshaking until it is done. OpenSSL may need the other
   * direction than the call's own: a handshake or SSL_read that wants to write (wants_write),
   * an SSL_write that wants to read first (write_wants_read: writability would not help). */
  SSL *ssl;
  int handshaking;
  int wants_write;
  int write_wants_read;
  /* OpenSSL reads ahead (one recv(2) for a whole answer, not two per record): what it holds once
   * the shared buffer is full no poll will announce, so the connection waits in the backlog. */
  int in_backlog;
  /* deferred: the bytes in `pending` wait for the end of the batch being handled (see
   * write_bytes); deferred_error: sending them failed while the batch was still being handled,
   * kept to be reported after it; listed: the id is in the reactor's `deferred` list (once). */
  int deferred;
  int deferred_error;
  int listed;
  char tls_error[256];
} Conn;

struct Reactor {
  napi_env env;
  uv_check_t check;
  /* Polls a little before the loop sleeps between batches (spin.c). */
  Spin spin;
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
  /* TLS connections with bytes read ahead inside OpenSSL, read again after the next delivery. */
  int32_t *backlog;
  int32_t backlog_count, backlog_cap;
  /* Connections whose writes wait for the end of the batch; the first `deferred_kept` only to
   * report the failure of an early flush. */
  int32_t *deferred;
  int32_t deferred_count, deferred_cap, deferred_kept;
  /* Where those are sent together (send-ring.c): opened at the first batch with two; RING_OFF
   * where io_uring cannot be used, or sendRing(false) said not to. */
  SendRing *ring;
  int ring_state;
  int delivering;
  /* timerArm()'s timerfd and its poll handle, made at the first arming (-1 until then). The handle
   * keeps the loop alive only while a time is set: as a pending setTimeout does, no longer. */
  int timer_fd;
  uv_poll_t timer_poll;
  int timer_refed;
  /* A TIMER event was added for the expiry, and timerArm() has not been called since. */
  int timer_told;
  /* Handles whose uv_close has not called back yet: every one, those of connections closed before
   * the environment's end too (their callbacks may come after it). At the end, the reactor is freed
   * when the last has called back, not before: libuv still holds the ones pending. */
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
  int waiting = c->pending_end > c->pending_start;
  if (c->ssl ? c->wants_write || (waiting && !c->write_wants_read) : waiting) events |= UV_WRITABLE;
  if (c->watching && events == c->watched_events) return;
  uv_poll_start(&c->poll, events, on_io);
  c->watching = 1;
  c->watched_events = events;
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

/* ---- TLS: OpenSSL on the same non-blocking socket ---- */

/* Why OpenSSL gave up, kept for tlsError(): its error queue's reason, else what happened. */
static void tls_note(Conn *c, int ssl_error, const char *during) {
  unsigned long code = ERR_get_error();
  if (code != 0) {
    ERR_error_string_n(code, c->tls_error, sizeof c->tls_error);
  } else if (ssl_error == SSL_ERROR_SYSCALL || ssl_error == SSL_ERROR_ZERO_RETURN) {
    snprintf(c->tls_error, sizeof c->tls_error, "the server closed the connection during the TLS %s", during);
  } else {
    snprintf(c->tls_error, sizeof c->tls_error, "TLS %s failed (SSL_get_error %d)", during, ssl_error);
  }
  ERR_clear_error();
}

/* The errno an OpenSSL failure is reported with: the socket's own when the socket failed, else
 * EPROTO with the reason in tls_error. `saved` is errno right after the OpenSSL call. */
static int tls_error_code(Conn *c, int ssl_error, int saved, const char *during) {
  if (ssl_error == SSL_ERROR_SYSCALL && saved != 0 && ERR_peek_error() == 0) return saved;
  tls_note(c, ssl_error, during);
  return EPROTO;
}

/* One handshake step; 1 once it is done (TLS_READY added), 0 while it waits or when it failed. */
static int tls_handshake(Conn *c) {
  ERR_clear_error();
  int rc = SSL_do_handshake(c->ssl);
  int saved = errno;
  if (rc == 1) {
    c->handshaking = 0;
    c->wants_write = 0;
    add_event(c->reactor, c->id, EV_TLS_READY, 0, 0);
    return 1;
  }
  int e = SSL_get_error(c->ssl, rc);
  if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
    c->wants_write = e == SSL_ERROR_WANT_WRITE;
    return 0;
  }
  mark_dead(c, EV_ERROR, tls_error_code(c, e, saved, "handshake"));
  return 0;
}

/* SSL_write of what waits; as flush_pending: 0 all sent, 1 some waits, -errno failed. The retry
 * starts at the same bytes, maybe moved (SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER) and never shorter. */
static int tls_flush(Conn *c) {
  c->write_wants_read = 0;
  while (c->pending_end > c->pending_start) {
    size_t left = c->pending_end - c->pending_start;
    ERR_clear_error();
    int n = SSL_write(c->ssl, c->pending + c->pending_start, left > INT_MAX ? INT_MAX : (int)left);
    int saved = errno;
    if (n > 0) {
      c->pending_start += (size_t)n;
      continue;
    }
    int e = SSL_get_error(c->ssl, n);
    if (e == SSL_ERROR_WANT_WRITE) return 1;
    if (e == SSL_ERROR_WANT_READ) {
      c->write_wants_read = 1;
      return 1;
    }
    return -tls_error_code(c, e, saved, "write");
  }
  c->pending_start = c->pending_end = 0;
  return 0;
}

/* Decrypts what the socket has into the shared buffer, whole records at a time, as one DATA
 * event. Records that are not data (TLS 1.3's NewSessionTicket, KeyUpdate) OpenSSL handles
 * inside SSL_read. close_notify, or a peer that just closes, is EOF as for a plaintext socket. */
static void tls_read(Conn *c) {
  Reactor *r = c->reactor;
  size_t start = r->input_used, got = 0;
  int end_kind = -1, end_error = 0, full = 0;
  c->wants_write = 0;
  for (;;) {
    size_t room = r->input_cap - start - got;
    if (got >= READ_SLICE || room < TLS_RECORD_MAX) {
      full = 1;
      break;
    }
    ERR_clear_error();
    int n = SSL_read(c->ssl, r->input + start + got, room > INT_MAX ? INT_MAX : (int)room);
    int saved = errno;
    if (n > 0) {
      got += (size_t)n;
      /* Nothing more read ahead: the socket's next bytes are the poll's to announce (a read now
       * would most often be one more recv(2) that finds nothing). */
      if (!SSL_has_pending(c->ssl)) break;
      continue;
    }
    int e = SSL_get_error(c->ssl, n);
    if (e == SSL_ERROR_WANT_READ) break;
    if (e == SSL_ERROR_WANT_WRITE) {
      c->wants_write = 1;
      break;
    }
    if (e == SSL_ERROR_ZERO_RETURN || (e == SSL_ERROR_SYSCALL && saved == 0 && ERR_peek_error() == 0)) {
      end_kind = EV_EOF;
    } else {
      end_kind = EV_ERROR;
      end_error = tls_error_code(c, e, saved, "read");
    }
    break;
  }
  if (got > 0) {
    add_event(r, c->id, EV_DATA, (int32_t)start, (int32_t)got);
    r->input_used += got;
  }
  if (end_kind >= 0) {
    mark_dead(c, end_kind, end_error);
  } else if (full && !c->in_backlog && SSL_has_pending(c->ssl) && push_id(&r->backlog, &r->backlog_count, &r->backlog_cap, c->id) == 0) {
    c->in_backlog = 1;
  }
}

/* A TLS socket's turn in the poll phase: the handshake, then waiting writes, then reads. */
static void tls_io(Conn *c, int events) {
  Reactor *r = c->reactor;
  int read_now = (events & (UV_READABLE | UV_DISCONNECT)) || c->wants_write;
  if (c->handshaking) {
    if (!tls_handshake(c)) {
      watch(c);
      return;
    }
    read_now = 1; /* records after the server's Finished may already sit in OpenSSL's buffer */
  }
  if (c->pending_end > c->pending_start) {
    int flushed = tls_flush(c);
    if (flushed < 0) {
      mark_dead(c, EV_ERROR, -flushed);
      return;
    }
    if (flushed == 0) add_event(r, c->id, EV_DRAINED, 0, 0);
  }
  if (read_now) tls_read(c);
  watch(c);
}

/* Ends a TLS session before its socket closes: close_notify when the session is up (as far as
 * the socket takes it now; nothing waits for the server's), then OpenSSL's state is freed. */
static void tls_end(Conn *c, int notify) {
  if (!c->ssl) return;
  ERR_clear_error();
  if (notify && !c->dead && !c->handshaking) SSL_shutdown(c->ssl);
  ERR_clear_error();
  SSL_free(c->ssl);
  c->ssl = NULL;
}

enum { RING_UNTRIED = 0, RING_ON = 1, RING_OFF = 2 };

/* The ring's answer for one connection's deferred bytes, as flush_pending would have had it. */
static void ring_sent(void *context, uint64_t tag, int result) {
  Reactor *r = context;
  Conn *c = r->conns[(int32_t)tag];
  if (!c) return;
  if (result >= 0) {
    c->pending_start += (size_t)result;
    if (c->pending_start == c->pending_end) {
      c->pending_start = c->pending_end = 0;
      c->deferred = 0;
    }
  } else if (result == -EINVAL || result == -EOPNOTSUPP) {
    /* The ring cannot send on this socket after all: send(2) does, and from now on every time. */
    r->ring_state = RING_OFF;
  } else if (result != -EAGAIN && result != -EINTR) {
    c->deferred_error = -result;
  }
}

/* The plaintext connections' deferred bytes in one io_uring_enter (TLS ones go through OpenSSL in
 * flush_deferred). What the ring did not send stays deferred, for send(2). */
static void ring_flush(Reactor *r) {
  int32_t ready = 0;
  for (int32_t i = 0; i < r->deferred_count; i++) {
    Conn *c = r->conns[r->deferred[i]];
    if (c && c->deferred && !c->closed && !c->dead && !c->ssl && c->deferred_error == 0) ready++;
  }
  if (ready < 2) return;
  if (r->ring_state == RING_UNTRIED) {
    r->ring = send_ring_open(DEFER_CONNECTIONS);
    r->ring_state = r->ring ? RING_ON : RING_OFF;
  }
  if (r->ring_state != RING_ON) return;
  for (int32_t i = 0; i < r->deferred_count; i++) {
    int32_t id = r->deferred[i];
    Conn *c = r->conns[id];
    if (!c || !c->deferred || c->closed || c->dead || c->ssl || c->deferred_error != 0) continue;
    if (send_ring_add(r->ring, c->fd, c->pending + c->pending_start, c->pending_end - c->pending_start, (uint64_t)id) < 0) break;
  }
  if (send_ring_submit(r->ring, ring_sent, r) < 0) r->ring_state = RING_OFF;
  if (r->ring_state == RING_OFF) {
    send_ring_close(r->ring);
    r->ring = NULL;
  }
}

static int send_pending(Conn *c) {
  return c->ssl ? tls_flush(c) : flush_pending(c);
}

/* Sends the writes that waited for the batch. While the batch is still being handled (an early
 * flush: too many connections waited), or while the events are full, a failure is kept: the
 * events are JavaScript's until the batch is over. Otherwise it is reported as ERROR, which
 * deliver() hands over at once. */
static void flush_deferred(Reactor *r) {
  int32_t kept = 0;
  if (r->ring_state != RING_OFF) ring_flush(r);
  for (int32_t i = 0; i < r->deferred_count; i++) {
    int32_t id = r->deferred[i];
    Conn *c = r->conns[id];
    if (!c) continue;
    c->listed = 0;
    if (!c->deferred && c->deferred_error == 0) continue;
    if (c->closed || c->dead) {
      c->deferred = 0;
      continue;
    }
    int error = c->deferred_error;
    if (error == 0) {
      int flushed = send_pending(c);
      if (flushed < 0) error = -flushed;
      else if (flushed > 0) watch(c);
    }
    if (error == 0) {
      c->deferred = 0;
      continue;
    }
    if (r->delivering || r->event_count >= r->events_cap) {
      c->deferred_error = error;
      c->listed = 1;
      r->deferred[kept++] = id;
      continue;
    }
    c->deferred = 0;
    c->deferred_error = 0;
    mark_dead(c, EV_ERROR, error);
  }
  r->deferred_count = kept;
  r->deferred_kept = kept;
}

static void deliver(Reactor *r) {
  if (r->event_count == 0 || r->shutting_down) return;
  spin_wait_ended(&r->spin, (uint32_t)r->event_count);
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
  flush_deferred(r);
  if (status != napi_ok) {
    /* A throw in the handler is a bug: report it as Node reports one from its own I/O. */
    napi_value error;
    bool pending = false;
    napi_is_exception_pending(env, &pending);
    if (pending && napi_get_and_clear_last_exception(env, &error) == napi_ok) napi_fatal_exception(env, error);
  }
  napi_close_handle_scope(env, scope);
  /* A deferred write failed: its ERROR goes to JavaScript now, not at some later wake-up. */
  if (r->event_count > 0) deliver(r);
}

static void on_io(uv_poll_t *handle, int status, int events) {
  Conn *c = (Conn *)handle;
  Reactor *r = c->reactor;
  /* Room first: a socket adds at most four events here (CONNECTED then ERROR, DRAINED then DATA;
   * with TLS TLS_READY, DRAINED, DATA, then EOF or ERROR) and one read. Delivering runs
   * JavaScript, which may close this very connection. */
  if (r->event_count + 4 > r->events_cap || r->input_cap - r->input_used < READ_MIN) deliver(r);
  if (c->closed || c->dead) return;
  if (status < 0) {
    /* libuv reports POLLERR as UV_EBADF: the socket itself says what went wrong. */
    int error = 0;
    socklen_t length = sizeof error;
    if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &error, &length) < 0 || error == 0) error = -status;
    mark_dead(c, EV_ERROR, error);
    return;
  }
  if (c->ssl) {
    tls_io(c, events);
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

/* After the poll phase: what it read goes to JavaScript in one call. Then TLS connections that
 * stopped on a full buffer with bytes read ahead are read on, delivered batch by batch. */
static void on_check(uv_check_t *handle) {
  Reactor *r = (Reactor *)handle->data;
  deliver(r);
  while (r->backlog_count > 0 && !r->shutting_down) {
    int32_t count = r->backlog_count;
    for (int32_t i = 0; i < count; i++) {
      int32_t id = r->backlog[i];
      Conn *c = r->conns[id];
      if (!c || !c->in_backlog) continue;
      c->in_backlog = 0;
      if (r->event_count + 4 > r->events_cap || r->input_cap - r->input_used < READ_MIN) deliver(r);
      /* Delivering may have closed it, or given its id to a new connection. */
      if (r->conns[id] != c || c->closed || c->dead) continue;
      tls_read(c);
      watch(c);
    }
    memmove(r->backlog, r->backlog + count, (size_t)(r->backlog_count - count) * sizeof(int32_t));
    r->backlog_count -= count;
    deliver(r);
  }
  spin_wait_begins(&r->spin);
}

/* The time timerArm() set has come: one TIMER event in this turn's batch, delivered in the check
 * phase with the sockets' data. JavaScript answers every TIMER with timerArm() (the next due time,
 * or 0), and setting the timer takes back the expiry it holds, so the expiry is not read here: one
 * system call per wake-up, not two. Should the timer be readable again without that answer, the
 * expiry is read then, and not told twice. */
static void on_timer(uv_poll_t *handle, int status, int events) {
  Reactor *r = (Reactor *)handle->data;
  if (r->timer_told) {
    uint64_t expirations;
    ssize_t ignored = read(r->timer_fd, &expirations, sizeof expirations);
    (void)ignored;
    return;
  }
  r->timer_told = 1;
  /* One-shot: nothing holds the loop until JavaScript sets the next due time. */
  if (r->timer_refed) {
    uv_unref((uv_handle_t *)&r->timer_poll);
    r->timer_refed = 0;
  }
  if (r->event_count + 1 > r->events_cap) deliver(r);
  add_event(r, 0, EV_TIMER, 0, 0);
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
  free(r->backlog);
  free(r->deferred);
  send_ring_close(r->ring);
  napi_remove_async_cleanup_hook(r->cleanup);
  free(r);
}

static void handle_closed(Reactor *r) {
  if (--r->closing == 0 && r->shutting_down) free_reactor(r);
}

static void on_conn_closed(uv_handle_t *handle) {
  Conn *c = (Conn *)handle;
  Reactor *r = c->reactor;
  free(c->pending);
  free(c);
  handle_closed(r);
}

/* The check handle's, the spin's idle handle's and the timer's poll handle's (all have the reactor as data). */
static void on_check_closed(uv_handle_t *handle) {
  handle_closed((Reactor *)handle->data);
}

/* The poll handle is stopped before the descriptor is closed (libuv's rule), and freed once
 * libuv has closed it. */
static void destroy_conn(Reactor *r, int32_t id) {
  Conn *c = r->conns[id];
  if (!c) return;
  if (c->watching) uv_poll_stop(&c->poll);
  c->watching = 0;
  /* What waited for the batch goes before the close, as a write does outside a batch. */
  if (c->deferred && !c->dead && c->deferred_error == 0) send_pending(c);
  c->deferred = 0;
  c->closed = 1;
  tls_end(c, 1);
  close(c->fd);
  r->conns[id] = NULL;
  if (r->delivering) push_id(&r->freed_later, &r->freed_later_count, &r->freed_later_cap, id);
  else push_id(&r->free_ids, &r->free_count, &r->free_cap, id);
  r->closing++;
  uv_close((uv_handle_t *)&c->poll, on_conn_closed);
}

/* The environment is going away (process exit, worker thread end): close every socket and
 * handle; the reactor is freed once libuv has closed the last of them. */
static void cleanup_hook(napi_async_cleanup_hook_handle handle, void *data) {
  (void)handle;
  Reactor *r = (Reactor *)data;
  r->shutting_down = 1;
  r->closing++; /* the check handle, closed last below */
  for (int32_t id = 0; id < r->conns_cap; id++) {
    Conn *c = r->conns[id];
    if (!c) continue;
    if (c->watching) uv_poll_stop(&c->poll);
    tls_end(c, 0);
    close(c->fd);
    r->conns[id] = NULL;
    r->closing++;
    uv_close((uv_handle_t *)&c->poll, on_conn_closed);
  }
  if (r->timer_fd >= 0) {
    uv_poll_stop(&r->timer_poll);
    close(r->timer_fd);
    r->timer_fd = -1;
    r->closing++;
    uv_close((uv_handle_t *)&r->timer_poll, on_check_closed);
  }
  r->closing++;
  spin_close(&r->spin, on_check_closed);
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
  r->timer_fd = -1;
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
  spin_init(&r->spin, loop, r);
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

/* timerArm(at: CLOCK_MONOTONIC milliseconds) -> 0, or -errno: a TIMER event once the clock reads
 * `at` (at once when it already does), replacing any time set before; at <= 0 unsets it.
 * The expiry is rounded up to the nanosecond: never before `at`. */
static napi_value timer_arm(napi_env env, napi_callback_info info) {
  Reactor *r = reactor_of(env);
  if (!r) return NULL;
  size_t argc = 1;
  napi_value argv[1];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  double at;
  CHECK(env, napi_get_value_double(env, argv[0], &at));
  if (r->timer_fd < 0) {
    if (!(at > 0)) return errno_value(env, 0);
    int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (fd < 0) return errno_value(env, errno);
    uv_loop_t *loop;
    CHECK(env, napi_get_uv_event_loop(env, &loop));
    int init_error = uv_poll_init(loop, &r->timer_poll, fd);
    if (init_error != 0) {
      close(fd);
      return errno_value(env, -init_error);
    }
    r->timer_poll.data = r;
    r->timer_fd = fd;
    uv_poll_start(&r->timer_poll, UV_READABLE, on_timer);
    r->timer_refed = 1;
  }
  struct itimerspec spec;
  memset(&spec, 0, sizeof spec);
  if (at > 0) {
    /* A double holds whole nanoseconds exactly up to 2^53 ns (104 days of uptime), 2 ns after. */
    double ns = at * 1e6;
    int64_t whole = (int64_t)ns;
    if ((double)whole < ns) whole++;
    if (whole < 1) whole = 1; /* all zero would unset the timer */
    spec.it_value.tv_sec = (time_t)(whole / 1000000000);
    spec.it_value.tv_nsec = (long)(whole % 1000000000);
  }
  if (timerfd_settime(r->timer_fd, at > 0 ? TFD_TIMER_ABSTIME : 0, &spec, NULL) < 0) return errno_value(env, errno);
  r->timer_told = 0;
  if (at > 0 && !r->timer_refed) {
    uv_ref((uv_handle_t *)&r->timer_poll);
    r->timer_refed = 1;
  } else if (!(at > 0) && r->timer_refed) {
    uv_unref((uv_handle_t *)&r->timer_poll);
    r->timer_refed = 0;
  }
  return errno_value(env, 0);
}

/* monotonicNow() -> CLOCK_MONOTONIC in milliseconds: timerArm()'s clock, for the caller to relate
 * its own (performance.now()) to it once. */
static napi_value monotonic_now(napi_env env, napi_callback_info info) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  napi_value out;
  napi_create_double(env, (double)now.tv_sec * 1e3 + (double)now.tv_nsec / 1e6, &out);
  return out;
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
    r->closing++;
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

/* The connection of id, unless it is closed or dead. */
static Conn *live_conn(Reactor *r, int32_t id) {
  if (id < 0 || id >= r->conns_cap || r->conns[id] == NULL || r->conns[id]->dead) return NULL;
  return r->conns[id];
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
  Conn *c = live_conn(r, id);
  if (!c) return errno_value(env, EBADF);
  if (start < 0 || end < start || (size_t)end > length) {
    napi_throw_range_error(env, NULL, "headroom reactor: write range outside the buffer");
    return NULL;
  }
  const uint8_t *bytes = (const uint8_t *)data + start;
  size_t count = (size_t)(end - start);
  int was_waiting = c->connecting || c->handshaking || c->pending_end > c->pending_start;
  if (r->delivering && (c->deferred || !was_waiting)) {
    size_t waiting = c->pending_end - c->pending_start;
    if (waiting + count <= DEFER_MAX && (c->listed || push_id(&r->deferred, &r->deferred_count, &r->deferred_cap, id) == 0)) {
      /* JavaScript is handling a batch: sent at its end (see deliver), as if sent now. */
      c->listed = 1;
      c->deferred = 1;
      int queued = queue_bytes(c, bytes, count);
      if (queued < 0) return errno_value(env, -queued);
      if (r->deferred_count - r->deferred_kept >= DEFER_CONNECTIONS) flush_deferred(r);
      napi_value zero;
      napi_create_int32(env, 0, &zero);
      return zero;
    }
    if (c->deferred && c->deferred_error == 0) {
      /* More than requests (a bulk load's stream): what waited goes now, and this write as any. */
      c->deferred = 0;
      int flushed = send_pending(c);
      if (flushed < 0) return errno_value(env, -flushed);
      was_waiting = c->pending_end > c->pending_start;
      if (was_waiting) watch(c);
    }
  }
  if (!was_waiting && c->ssl) {
    c->write_wants_read = 0;
    while (count > 0) {
      ERR_clear_error();
      int n = SSL_write(c->ssl, bytes, count > INT_MAX ? INT_MAX : (int)count);
      int saved = errno;
      if (n > 0) {
        bytes += n;
        count -= (size_t)n;
        continue;
      }
      int e = SSL_get_error(c->ssl, n);
      if (e == SSL_ERROR_WANT_WRITE) break;
      if (e == SSL_ERROR_WANT_READ) {
        c->write_wants_read = 1;
        break;
      }
      return errno_value(env, tls_error_code(c, e, saved, "write"));
    }
  } else if (!was_waiting) {
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
    watch(c);
  }
  size_t waiting = c->pending_end - c->pending_start;
  napi_value out;
  napi_create_int32(env, waiting > INT32_MAX ? INT32_MAX : (int32_t)waiting, &out);
  return out;
}

/* The optional boolean argument of sendRing(): 1 true, 0 false, -1 absent (or not a
 * boolean); -2 when N-API failed, with the error thrown. */
static int optional_flag(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_valuetype type = napi_undefined;
  bool value = false;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || (argc >= 1 && napi_typeof(env, argv[0], &type) != napi_ok) ||
      (type == napi_boolean && napi_get_value_bool(env, argv[0], &value) != napi_ok)) {
    napi_throw_error(env, NULL, "headroom reactor: N-API call failed reading the argument");
    return -2;
  }
  return type != napi_boolean ? -1 : value ? 1 : 0;
}

/* sendRing(enabled?: boolean) -> RING_UNTRIED (0) before the first batch with two sends, RING_ON
 * (1) while batches' sends go out in one io_uring_enter, RING_OFF (2) while they go one by one
 * (io_uring cannot be used here, or sendRing(false) said not to). sendRing(true) lets it be
 * tried again. */
static napi_value send_ring(napi_env env, napi_callback_info info) {
  Reactor *r = reactor_of(env);
  if (!r) return NULL;
  int enabled = optional_flag(env, info);
  if (enabled == -2) return NULL;
  if (enabled == 0) {
    send_ring_close(r->ring);
    r->ring = NULL;
    r->ring_state = RING_OFF;
  } else if (enabled == 1 && r->ring_state == RING_OFF) {
    r->ring_state = RING_UNTRIED;
  }
  napi_value out;
  CHECK(env, napi_create_int32(env, r->ring_state, &out));
  return out;
}

static const char *const SPIN_MODES[] = {"auto", "on", "off"};

static napi_status set_number(napi_env env, napi_value object, const char *name, double value) {
  napi_value number;
  napi_status status = napi_create_double(env, value, &number);
  return status != napi_ok ? status : napi_set_named_property(env, object, name, number);
}

/* spin(mode?: 'auto' | 'on' | 'off') -> { mode, polls, windowUs, caught, slept, trials,
 * pollingWon, trialPollingNs, trialSleepingNs, trialPollingRate, trialSleepingRate }: how waits
 * between batches poll before they sleep (spin.c): the mode, whether they poll now, the window
 * the next wait polls for, how many waits ended while polling or slept, and in auto how many
 * trials ended, how many of them polling won, and the CPU per event and events a second each way
 * that the last decision weighed. A mode sets it for this thread, from the start (the counts
 * from 0). */
static napi_value spin_state(napi_env env, napi_callback_info info) {
  Reactor *r = reactor_of(env);
  if (!r) return NULL;
  size_t argc = 1;
  napi_value argv[1];
  napi_valuetype type = napi_undefined;
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc >= 1) CHECK(env, napi_typeof(env, argv[0], &type));
  int mode = -1;
  if (type == napi_string) {
    char asked[8];
    size_t length = 0;
    CHECK(env, napi_get_value_string_utf8(env, argv[0], asked, sizeof asked, &length));
    for (int i = 0; i < 3; i++)
      if (strcmp(asked, SPIN_MODES[i]) == 0) mode = i;
  }
  if (type != napi_undefined && mode < 0) {
    napi_throw_error(env, NULL, "headroom reactor: spin() takes 'auto', 'on' or 'off'");
    return NULL;
  }
  if (mode >= 0) spin_set_mode(&r->spin, (SpinMode)mode);
  napi_value out, mode_name, polls;
  CHECK(env, napi_create_object(env, &out));
  CHECK(env, napi_create_string_utf8(env, SPIN_MODES[r->spin.mode], NAPI_AUTO_LENGTH, &mode_name));
  CHECK(env, napi_set_named_property(env, out, "mode", mode_name));
  CHECK(env, napi_get_boolean(env, r->spin.polls, &polls));
  CHECK(env, napi_set_named_property(env, out, "polls", polls));
  CHECK(env, set_number(env, out, "windowUs", (double)r->spin.window_ns / 1000));
  CHECK(env, set_number(env, out, "caught", (double)r->spin.caught));
  CHECK(env, set_number(env, out, "slept", (double)r->spin.slept));
  CHECK(env, set_number(env, out, "trials", (double)r->spin.trials));
  CHECK(env, set_number(env, out, "pollingWon", (double)r->spin.polling_won));
  CHECK(env, set_number(env, out, "trialPollingNs", r->spin.trial_polling_ns));
  CHECK(env, set_number(env, out, "trialSleepingNs", r->spin.trial_sleeping_ns));
  CHECK(env, set_number(env, out, "trialPollingRate", r->spin.trial_polling_rate));
  CHECK(env, set_number(env, out, "trialSleepingRate", r->spin.trial_sleeping_rate));
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

/* tlsAvailable() -> whether this process has OpenSSL 3 (Node's own copy exports it). */
static napi_value tls_available(napi_env env, napi_callback_info info) {
  unsigned long (*version)(void);
  void *found = dlsym(RTLD_DEFAULT, "OpenSSL_version_num");
  memcpy(&version, &found, sizeof version); /* POSIX's way from an object to a function pointer */
  bool available = version != NULL && dlsym(RTLD_DEFAULT, "SSL_CTX_new") != NULL && version() >= 0x30000000UL;
  napi_value out;
  napi_get_boolean(env, available, &out);
  return out;
}

static void free_tls_context(napi_env env, void *data, void *hint) {
  SSL_CTX_free((SSL_CTX *)data);
}

/* A string argument, or NULL for null/undefined; malloc'ed, for the caller to free. */
static char *optional_string(napi_env env, napi_value value) {
  napi_valuetype type;
  if (napi_typeof(env, value, &type) != napi_ok || type != napi_string) return NULL;
  size_t length;
  if (napi_get_value_string_utf8(env, value, NULL, 0, &length) != napi_ok) return NULL;
  char *text = malloc(length + 1);
  if (text && napi_get_value_string_utf8(env, value, text, length + 1, &length) != napi_ok) {
    free(text);
    return NULL;
  }
  return text;
}

/* An encrypted key must not make OpenSSL ask on the terminal: it fails instead. */
static int no_passphrase(char *buffer, int size, int rwflag, void *u) {
  return -1;
}

/* Loads PEM text into the context; NULL on success, else what failed. */
static const char *load_pem(SSL_CTX *ctx, const char *ca, const char *cert, const char *key, const char *crl) {
  X509_STORE *store = SSL_CTX_get_cert_store(ctx);
  if (ca) {
    BIO *bio = BIO_new_mem_buf(ca, -1);
    int count = 0;
    X509 *x;
    while (bio && (x = PEM_read_bio_X509(bio, NULL, no_passphrase, NULL)) != NULL) {
      X509_STORE_add_cert(store, x);
      X509_free(x);
      count++;
    }
    BIO_free(bio);
    if (count == 0) return "no certificate in the root certificate file";
  }
  if (cert) {
    BIO *bio = BIO_new_mem_buf(cert, -1);
    X509 *leaf = bio ? PEM_read_bio_X509(bio, NULL, no_passphrase, NULL) : NULL;
    int used = leaf != NULL && SSL_CTX_use_certificate(ctx, leaf) == 1;
    X509_free(leaf);
    X509 *x;
    /* What follows the client's certificate in its file is its chain, sent along. */
    while (used && (x = PEM_read_bio_X509(bio, NULL, no_passphrase, NULL)) != NULL) {
      if (SSL_CTX_add0_chain_cert(ctx, x) != 1) X509_free(x);
    }
    BIO_free(bio);
    if (!used) return "cannot use the client certificate";
  }
  if (key) {
    BIO *bio = BIO_new_mem_buf(key, -1);
    EVP_PKEY *pkey = bio ? PEM_read_bio_PrivateKey(bio, NULL, no_passphrase, NULL) : NULL;
    BIO_free(bio);
    int used = pkey != NULL && SSL_CTX_use_PrivateKey(ctx, pkey) == 1 && SSL_CTX_check_private_key(ctx) == 1;
    EVP_PKEY_free(pkey);
    if (!used) return "cannot use the client key";
  }
  if (crl) {
    BIO *bio = BIO_new_mem_buf(crl, -1);
    int count = 0;
    X509_CRL *x;
    while (bio && (x = PEM_read_bio_X509_CRL(bio, NULL, no_passphrase, NULL)) != NULL) {
      X509_STORE_add_crl(store, x);
      X509_CRL_free(x);
      count++;
    }
    BIO_free(bio);
    /* The loop ends at the text's end (no start line) or at a list it cannot parse: a list
     * left out would check less than asked, so that is a failure (Node's path then names it). */
    unsigned long last = ERR_peek_last_error();
    int at_end = ERR_GET_LIB(last) == ERR_LIB_PEM && ERR_GET_REASON(last) == PEM_R_NO_START_LINE;
    if (count == 0) return "no revocation list in the certificate revocation list file";
    if (last != 0 && !at_end) return "a revocation list cannot be parsed";
    ERR_clear_error();
    /* As Node's crl option: every certificate of the chain is checked against the lists. */
    X509_STORE_set_flags(store, X509_V_FLAG_CRL_CHECK | X509_V_FLAG_CRL_CHECK_ALL);
  }
  return NULL;
}

/* tlsContext(ca, cert, key, crl: PEM text or null, cipherList, cipherSuites) -> context; throws
 * with OpenSSL's reason when something cannot be used (the caller then lets Node's tls say it). */
static napi_value tls_context(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value argv[6];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  char *text[6] = {NULL};
  for (int i = 0; i < 6 && (size_t)i < argc; i++) text[i] = optional_string(env, argv[i]);
  ERR_clear_error();
  SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
  const char *failed = ctx ? NULL : "SSL_CTX_new failed";
  if (ctx) {
    /* Node's client defaults: TLS 1.2 or newer, its cipher lists; no renegotiation (PostgreSQL
     * and MariaDB never use it); the peer's certificate is checked after the handshake from
     * SSL_get_verify_result, as Node does, so that the caller can tell why in one line. */
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_IGNORE_UNEXPECTED_EOF);
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_set_read_ahead(ctx, 1);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
    if (text[4] && text[4][0] && SSL_CTX_set_cipher_list(ctx, text[4]) != 1) failed = "the cipher list was refused";
    if (!failed && text[5] && text[5][0] && SSL_CTX_set_ciphersuites(ctx, text[5]) != 1) failed = "the TLS 1.3 cipher suites were refused";
    if (!failed) failed = load_pem(ctx, text[0], text[1], text[2], text[3]);
  }
  for (int i = 0; i < 6; i++) free(text[i]);
  if (failed) {
    char message[400];
    unsigned long code = ERR_get_error();
    char reason[256] = "";
    if (code) ERR_error_string_n(code, reason, sizeof reason);
    ERR_clear_error();
    snprintf(message, sizeof message, "%s%s%s", failed, reason[0] ? ": " : "", reason);
    SSL_CTX_free(ctx);
    napi_throw_error(env, "TLS_CONTEXT", message);
    return NULL;
  }
  napi_value out;
  if (napi_create_external(env, ctx, free_tls_context, NULL, &out) != napi_ok) {
    SSL_CTX_free(ctx);
    napi_throw_error(env, NULL, "headroom reactor: N-API call failed: napi_create_external");
    return NULL;
  }
  return out;
}

/* startTls(id, context, serverName: string, '' for none) -> 0, or -errno. The handshake runs in
 * the loop (its first step once the socket is writable, never inside the JavaScript that asked)
 * and ends in TLS_READY or ERROR. */
static napi_value start_tls(napi_env env, napi_callback_info info) {
  Reactor *r = reactor_of(env);
  if (!r) return NULL;
  size_t argc = 3;
  napi_value argv[3];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  int32_t id;
  void *ctx;
  char name[256];
  size_t name_length;
  CHECK(env, napi_get_value_int32(env, argv[0], &id));
  CHECK(env, napi_get_value_external(env, argv[1], &ctx));
  CHECK(env, napi_get_value_string_utf8(env, argv[2], name, sizeof name, &name_length));
  Conn *c = live_conn(r, id);
  /* Plaintext that waits would follow the handshake encrypted: the protocol's TLS request is
   * answered before TLS starts, so nothing may wait here. */
  if (!c || c->connecting) return errno_value(env, EBADF);
  /* MariaDB's SSL request is written in the same batch, and waits for its end: it goes now. */
  if (c->deferred && !c->ssl && c->deferred_error == 0) {
    int flushed = flush_pending(c);
    if (flushed < 0) return errno_value(env, -flushed);
    if (flushed == 0) c->deferred = 0;
  }
  if (c->ssl || c->pending_end > c->pending_start) return errno_value(env, EBUSY);
  ERR_clear_error();
  SSL *ssl = SSL_new((SSL_CTX *)ctx);
  if (!ssl || SSL_set_fd(ssl, c->fd) != 1 || (name_length > 0 && SSL_set_tlsext_host_name(ssl, name) != 1)) {
    SSL_free(ssl);
    ERR_clear_error();
    return errno_value(env, ENOMEM);
  }
  SSL_set_connect_state(ssl);
  c->ssl = ssl;
  c->handshaking = 1;
  c->wants_write = 1;
  c->tls_error[0] = 0;
  watch(c);
  napi_value out;
  napi_create_int32(env, 0, &out);
  return out;
}

/* Node's names for OpenSSL's verification results (what tls.connect puts in error.code). */
static const char *verify_code(long result) {
  switch (result) {
#define NAME(code) \
  case X509_V_ERR_##code: return #code;
    NAME(UNABLE_TO_GET_ISSUER_CERT) NAME(UNABLE_TO_GET_CRL) NAME(UNABLE_TO_DECRYPT_CERT_SIGNATURE)
    NAME(UNABLE_TO_DECRYPT_CRL_SIGNATURE) NAME(UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY) NAME(CERT_SIGNATURE_FAILURE)
    NAME(CRL_SIGNATURE_FAILURE) NAME(CERT_NOT_YET_VALID) NAME(CERT_HAS_EXPIRED) NAME(CRL_NOT_YET_VALID)
    NAME(CRL_HAS_EXPIRED) NAME(ERROR_IN_CERT_NOT_BEFORE_FIELD) NAME(ERROR_IN_CERT_NOT_AFTER_FIELD)
    NAME(ERROR_IN_CRL_LAST_UPDATE_FIELD) NAME(ERROR_IN_CRL_NEXT_UPDATE_FIELD) NAME(OUT_OF_MEM)
    NAME(DEPTH_ZERO_SELF_SIGNED_CERT) NAME(SELF_SIGNED_CERT_IN_CHAIN) NAME(UNABLE_TO_GET_ISSUER_CERT_LOCALLY)
    NAME(UNABLE_TO_VERIFY_LEAF_SIGNATURE) NAME(CERT_CHAIN_TOO_LONG) NAME(CERT_REVOKED) NAME(INVALID_CA)
    NAME(PATH_LENGTH_EXCEEDED) NAME(INVALID_PURPOSE) NAME(CERT_UNTRUSTED) NAME(CERT_REJECTED) NAME(HOSTNAME_MISMATCH)
#undef NAME
    default: return "UNSPECIFIED";
  }
}

static void set_string(napi_env env, napi_value object, const char *key, const char *value) {
  napi_value text;
  if (value == NULL) napi_get_null(env, &text);
  else napi_create_string_utf8(env, value, NAPI_AUTO_LENGTH, &text);
  napi_set_named_property(env, object, key, text);
}

/* tlsSession(id) -> { protocol, cipher, verifyCode, verifyMessage (null when verified), certificate
 * (DER, or null) }: what the handshake negotiated and how OpenSSL judged the server's chain. */
static napi_value tls_session(napi_env env, napi_callback_info info) {
  Reactor *r = reactor_of(env);
  if (!r) return NULL;
  size_t argc = 1;
  napi_value argv[1];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  int32_t id;
  CHECK(env, napi_get_value_int32(env, argv[0], &id));
  Conn *c = live_conn(r, id);
  if (!c || !c->ssl || c->handshaking) {
    napi_throw_error(env, NULL, "headroom reactor: tlsSession() of a connection without an established TLS session");
    return NULL;
  }
  napi_value out, certificate;
  CHECK(env, napi_create_object(env, &out));
  X509 *peer = SSL_get1_peer_certificate(c->ssl);
  /* As Node: no certificate at all is an unknown issuer. */
  long result = peer ? SSL_get_verify_result(c->ssl) : X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT;
  set_string(env, out, "protocol", SSL_get_version(c->ssl));
  const SSL_CIPHER *cipher = SSL_get_current_cipher(c->ssl);
  set_string(env, out, "cipher", cipher ? SSL_CIPHER_standard_name(cipher) : "unknown");
  set_string(env, out, "verifyCode", result == X509_V_OK ? NULL : verify_code(result));
  set_string(env, out, "verifyMessage", result == X509_V_OK ? NULL : X509_verify_cert_error_string(result));
  int length = peer ? i2d_X509(peer, NULL) : -1;
  if (length > 0) {
    void *data;
    CHECK(env, napi_create_buffer(env, (size_t)length, &data, &certificate));
    unsigned char *cursor = data;
    i2d_X509(peer, &cursor);
  } else {
    napi_get_null(env, &certificate);
  }
  X509_free(peer);
  napi_set_named_property(env, out, "certificate", certificate);
  return out;
}

/* tlsError(id) -> why TLS failed on the connection (after ERROR with EPROTO), or ''. */
static napi_value tls_error(napi_env env, napi_callback_info info) {
  Reactor *r = reactor_of(env);
  if (!r) return NULL;
  size_t argc = 1;
  napi_value argv[1];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  int32_t id;
  CHECK(env, napi_get_value_int32(env, argv[0], &id));
  Conn *c = id >= 0 && id < r->conns_cap ? r->conns[id] : NULL;
  napi_value out;
  napi_create_string_utf8(env, c ? c->tls_error : "", NAPI_AUTO_LENGTH, &out);
  return out;
}

static napi_value module_init(napi_env env, napi_value exports) {
  napi_property_descriptor methods[] = {
      {"init", NULL, init, NULL, NULL, NULL, napi_default, NULL},
      {"connectTcp", NULL, connect_tcp, NULL, NULL, NULL, napi_default, NULL},
      {"connectUnix", NULL, connect_unix, NULL, NULL, NULL, napi_default, NULL},
      {"write", NULL, write_bytes, NULL, NULL, NULL, napi_default, NULL},
      {"close", NULL, close_socket, NULL, NULL, NULL, napi_default, NULL},
      {"sendRing", NULL, send_ring, NULL, NULL, NULL, napi_default, NULL},
      {"spin", NULL, spin_state, NULL, NULL, NULL, napi_default, NULL},
      {"tlsAvailable", NULL, tls_available, NULL, NULL, NULL, napi_default, NULL},
      {"tlsContext", NULL, tls_context, NULL, NULL, NULL, napi_default, NULL},
      {"startTls", NULL, start_tls, NULL, NULL, NULL, napi_default, NULL},
      {"tlsSession", NULL, tls_session, NULL, NULL, NULL, napi_default, NULL},
      {"tlsError", NULL, tls_error, NULL, NULL, NULL, napi_default, NULL},
      {"timerArm", NULL, timer_arm, NULL, NULL, NULL, napi_default, NULL},
      {"monotonicNow", NULL, monotonic_now, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof methods / sizeof methods[0], methods);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, module_init)

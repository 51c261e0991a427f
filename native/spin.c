/*
 * Polling a little before sleeping: after a batch of answers is handled, the reactor's thread
 * keeps polling its sockets without blocking for a short window, and only then lets the event
 * loop sleep in epoll_wait.
 *
 * Why: a sleep is not free. The thread's context switch, the wake-up that the server's send(2)
 * must then do, and on a virtual machine the idle vCPU's exit and re-entry all come between an
 * answer and the next request. Measured against MariaDB (8 clients, point selects, a 2-core
 * virtual machine shared with the server): a sleeping wait cost the client about 10 us of CPU in
 * the kernel's context switch alone, and its answers came 20-100 us after the batch where a
 * polled one came after 10-20. Polling for up to SPIN_MAX_NS took the client's CPU per
 * transaction from about 22 us to 12-17 and raised the transactions per second by 15-30%.
 *
 * The window adapts, as KVM's halt polling does: a wait that slept and still ended within
 * SPIN_MAX_NS widens it (doubling from SPIN_START_NS up to the maximum); a wait longer than that
 * narrows it (halving, and to 0 below the start), because polling would not have caught it. So a
 * workload whose answers take milliseconds (a slow server, -R's gaps between transactions) soon
 * sleeps at once again, and pays at most a few narrowing windows to learn it. A wait that ended
 * while polling leaves the window as it is.
 *
 * The poll is libuv's own: an active idle handle makes the loop's poll phase not block, so
 * Node's timers, other I/O and the reactor's timerfd are all served while it polls, and the
 * idle callback stops the handle once the window is over. The handle is unreferenced: polling
 * never keeps the process alive. HEADROOM_SPIN=off (native-transport.ts) turns it off.
 */
#define _GNU_SOURCE
#include "spin.h"

#include <time.h>

/* The widest window: a wait longer than this would not have been caught by polling. */
#define SPIN_MAX_NS 50000
/* The first window after sleeping at once; narrower than this is 0. */
#define SPIN_START_NS 4000

static uint64_t now_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

/* Polling: the idle handle is active. */
static int polling(Spin *spin) {
  return uv_is_active((uv_handle_t *)&spin->idle);
}

/* Once per loop turn while polling, before the poll phase: past the window, this turn may sleep. */
static void on_idle(uv_idle_t *handle) {
  Spin *spin = (Spin *)handle;
  if (now_ns() - spin->waiting_since >= spin->window_ns) uv_idle_stop(&spin->idle);
}

void spin_init(Spin *spin, uv_loop_t *loop, void *owner) {
  uv_idle_init(loop, &spin->idle);
  spin->idle.data = owner;
  uv_unref((uv_handle_t *)&spin->idle);
  spin->enabled = 1;
  spin->in_batch = 0;
  spin->window_ns = 0;
  spin->waiting_since = 0;
  spin->caught = 0;
  spin->slept = 0;
}

void spin_wait_ended(Spin *spin) {
  if (spin->in_batch || !spin->enabled) return;
  spin->in_batch = 1;
  if (spin->waiting_since == 0) return;
  if (polling(spin)) {
    spin->caught++;
    uv_idle_stop(&spin->idle);
    return;
  }
  spin->slept++;
  if (now_ns() - spin->waiting_since <= SPIN_MAX_NS) {
    spin->window_ns = spin->window_ns == 0 ? SPIN_START_NS : spin->window_ns * 2;
    if (spin->window_ns > SPIN_MAX_NS) spin->window_ns = SPIN_MAX_NS;
  } else {
    spin->window_ns /= 2;
    if (spin->window_ns < SPIN_START_NS) spin->window_ns = 0;
  }
}

void spin_wait_begins(Spin *spin) {
  if (!spin->in_batch) return;
  spin->in_batch = 0;
  spin->waiting_since = now_ns();
  if (spin->window_ns > 0) uv_idle_start(&spin->idle, on_idle);
}

void spin_enable(Spin *spin, int enabled) {
  uv_idle_stop(&spin->idle);
  spin->enabled = enabled;
  spin->in_batch = 0;
  spin->window_ns = 0;
  spin->waiting_since = 0;
}

void spin_close(Spin *spin, uv_close_cb closed) {
  uv_idle_stop(&spin->idle);
  spin->enabled = 0;
  uv_close((uv_handle_t *)&spin->idle, closed);
}

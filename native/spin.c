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
 * Whether to poll at all is measured, not assumed (HEADROOM_SPIN unset, or auto): what polling
 * saves and costs depends on the machine. On one 2-core virtual machine it took the client from
 * 23.8 to 17.5 us of CPU per point select; on another, where a sleep costs less and the polling
 * thread takes the core the server needs, it raised it from 34 to 39 with no gain in throughput.
 * So the reactor runs trials: epochs of EPOCH_EVENTS events, four of them polling and sleeping in
 * turn (ABBA, so that a drift in the load falls on both alike), then the choice holds for
 * HOLD_EPOCHS epochs and is tried again. The first epochs after the start (V8 still compiling)
 * sleep and take no part.
 *
 * What decides is the thread's own CPU time per event and the events a second: polling is kept
 * where it costs MARGIN_PERCENT less CPU per event, or where it answers MARGIN_PERCENT more events
 * a second for no more than MARGIN_PERCENT more CPU per event; sleeping is the way that costs
 * nothing when in doubt. The rate counts because the thread's CPU clock cannot see all that
 * polling saves on a machine the client shares with its server: a sleeping client must be woken
 * by the server's send, on the server's time. Measured against MariaDB (8 clients, point selects,
 * 2 cores): whole runs polling cost 10 us of client CPU a transaction against sleeping's 14.3, at
 * about 65,000 transactions a second against 52,000, yet in 5 of 7 trials the thread's CPU per
 * event came within 13% either way, while polling's epochs answered 14-38% more events a second
 * in 6 of the 7. Against PostgreSQL's tpcb-like, where whole runs polling cost 12% more, its
 * epochs cost 9-24% more CPU per event and answered from 0.3% more to 7.5% fewer.
 *
 * Two things keep a trial from measuring the way it just left instead of the one it tries. Each
 * trial epoch begins with SETTLE_NS that are not counted: a switch carries the last way's state
 * for a while (which threads run where, what the host makes of a vCPU that halts or does not).
 * In 16,384-event epochs against MariaDB (about 0.27 s each) the first sleeping epoch after
 * polling cost 9-12 us an event where the rest cost 14-18; 2,048-event epochs fell inside that
 * carry-over whole. And the decision weighs the earlier trials too, each one KEEP_PERCENT of the
 * weight it had (so about the last four count): a trial's epochs come out cheap or dear at
 * random, and one trial's two epochs a way often fell on the same side.
 *
 * HEADROOM_SPIN=on polls always, off never (native-transport.ts).
 *
 * The poll is libuv's own: an active idle handle makes the loop's poll phase not block, so
 * Node's timers, other I/O and the reactor's timerfd are all served while it polls, and the
 * idle callback stops the handle once the window is over. The handle is unreferenced: polling
 * never keeps the process alive.
 */
#define _GNU_SOURCE
#include "spin.h"

#include <time.h>

/* The widest window: a wait longer than this would not have been caught by polling. */
#define SPIN_MAX_NS 50000
/* The first window after sleeping at once; narrower than this is 0. */
#define SPIN_START_NS 4000
/* auto: an epoch is this many events (at 20,000 answers a second, a tenth of a second). */
#define EPOCH_EVENTS 2048
/* auto: a trial's epochs (polling, sleeping, sleeping, polling, or the other way round), then the
 * choice's; the cycle starts again after both. */
#define TRIAL_EPOCHS 4
/* At 60,000 events a second a hold is about 2 s, against a trial's 0.5 s with its settling. */
#define HOLD_EPOCHS 64
#define CYCLE_EPOCHS (TRIAL_EPOCHS + HOLD_EPOCHS)
/* auto: epochs left out at the start, sleeping. */
#define WARMUP_EPOCHS 4
/* auto: how long a trial epoch runs its way before its events and CPU count. */
#define SETTLE_NS 100000000u
/* auto: the share of the earlier trials' CPU and events kept at each trial's end. */
#define KEEP_PERCENT 75
/* auto: how much less CPU per event polling must cost to be chosen. Where both ways cost about
 * the same, some trials on a busy 2-core machine still put them more than 5% apart. */
#define MARGIN_PERCENT 10

static uint64_t clock_ns(clockid_t clock) {
  struct timespec now;
  clock_gettime(clock, &now);
  return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

static uint64_t now_ns(void) {
  return clock_ns(CLOCK_MONOTONIC);
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
  spin_set_mode(spin, SPIN_AUTO);
}

void spin_wait_ended(Spin *spin, uint32_t events) {
  spin->epoch_events += events;
  if (spin->in_batch || spin->mode == SPIN_OFF) return;
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

/* auto: the epoch's events, CPU and time count from `now` on. */
static void start_counting(Spin *spin, uint64_t now) {
  spin->counting = 1;
  spin->epoch_events = 0;
  spin->epoch_cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  spin->epoch_since_ns = now;
}

/* auto, at the end of a trial: the earlier trials' sums fade to KEEP_PERCENT, this one's join
 * them, and over them all polling is held where it costs MARGIN_PERCENT less CPU per event, or
 * answers MARGIN_PERCENT more events a second for at most MARGIN_PERCENT more CPU per event. */
static void decide(Spin *spin) {
  for (int way = 0; way < 2; way++) {
    spin->kept_cpu_ns[way] = spin->kept_cpu_ns[way] * KEEP_PERCENT / 100 + (double)spin->trial_cpu_ns[way];
    spin->kept_events[way] = spin->kept_events[way] * KEEP_PERCENT / 100 + (double)spin->trial_events[way];
    spin->kept_wall_ns[way] = spin->kept_wall_ns[way] * KEEP_PERCENT / 100 + (double)spin->trial_wall_ns[way];
  }
  spin->trial_polling_ns = spin->kept_cpu_ns[1] / spin->kept_events[1];
  spin->trial_sleeping_ns = spin->kept_cpu_ns[0] / spin->kept_events[0];
  spin->trial_polling_rate = spin->kept_events[1] * 1e9 / spin->kept_wall_ns[1];
  spin->trial_sleeping_rate = spin->kept_events[0] * 1e9 / spin->kept_wall_ns[0];
  int cheaper = spin->trial_polling_ns * 100 < spin->trial_sleeping_ns * (100 - MARGIN_PERCENT);
  int faster = spin->trial_polling_rate * 100 > spin->trial_sleeping_rate * (100 + MARGIN_PERCENT);
  int not_dearer = spin->trial_polling_ns * 100 < spin->trial_sleeping_ns * (100 + MARGIN_PERCENT);
  spin->polls = cheaper || (faster && not_dearer);
  spin->trials++;
  spin->polling_won += (uint64_t)spin->polls;
}

/* auto, at the end of an epoch: its CPU, events and time go to the way it waited if it was a
 * trial's; the next epoch's way is the trial's next, or, the trial over, the one decide() holds.
 * A trial's epoch counts once it has settled, the others (not measured) at once. */
static void next_epoch(Spin *spin, uint64_t now) {
  int polled = spin->polls;
  if (spin->step < TRIAL_EPOCHS) {
    spin->trial_cpu_ns[spin->polls] += clock_ns(CLOCK_THREAD_CPUTIME_ID) - spin->epoch_cpu_ns;
    spin->trial_events[spin->polls] += spin->epoch_events;
    spin->trial_wall_ns[spin->polls] += now - spin->epoch_since_ns;
  }
  spin->step = (spin->step + 1) % CYCLE_EPOCHS;
  if (spin->step == TRIAL_EPOCHS) {
    decide(spin);
  } else if (spin->step < TRIAL_EPOCHS) {
    if (spin->step == 0) spin->trial_cpu_ns[0] = spin->trial_cpu_ns[1] = spin->trial_events[0] = spin->trial_events[1] = spin->trial_wall_ns[0] = spin->trial_wall_ns[1] = 0;
    /* ABBA, A polling in even trials and sleeping in odd ones. */
    int first = spin->trials % 2 == 0;
    spin->polls = spin->step == 0 || spin->step == 3 ? first : !first;
  }
  /* The sleeping epochs' waits, each woken late, will have shut the window: a polling epoch
   * opens it, or it would sleep at once and measure sleeping twice. Answers too late for it
   * shut it again within a few waits. */
  if (spin->polls && !polled) spin->window_ns = SPIN_MAX_NS;
  if (spin->step < TRIAL_EPOCHS) {
    spin->counting = 0;
    spin->epoch_since_ns = now;
  } else {
    start_counting(spin, now);
  }
}

void spin_wait_begins(Spin *spin) {
  if (!spin->in_batch) return;
  spin->in_batch = 0;
  uint64_t now = now_ns();
  if (spin->mode == SPIN_AUTO) {
    if (!spin->counting) {
      if (now - spin->epoch_since_ns >= SETTLE_NS) start_counting(spin, now);
    } else if (spin->epoch_events >= EPOCH_EVENTS) {
      next_epoch(spin, now);
    }
  }
  spin->waiting_since = now;
  if (spin->polls && spin->window_ns > 0) uv_idle_start(&spin->idle, on_idle);
}

void spin_set_mode(Spin *spin, SpinMode mode) {
  uv_idle_stop(&spin->idle);
  spin->mode = mode;
  spin->polls = mode == SPIN_ON;
  spin->in_batch = 0;
  spin->window_ns = 0;
  spin->waiting_since = 0;
  start_counting(spin, now_ns());
  spin->kept_cpu_ns[0] = spin->kept_cpu_ns[1] = spin->kept_events[0] = spin->kept_events[1] = spin->kept_wall_ns[0] = spin->kept_wall_ns[1] = 0;
  spin->caught = 0;
  spin->slept = 0;
  spin->trials = 0;
  spin->polling_won = 0;
  spin->trial_polling_ns = 0;
  spin->trial_sleeping_ns = 0;
  spin->trial_polling_rate = 0;
  spin->trial_sleeping_rate = 0;
  /* The last WARMUP_EPOCHS of a hold: sleeping, then the first trial. */
  spin->step = CYCLE_EPOCHS - WARMUP_EPOCHS;
}

void spin_close(Spin *spin, uv_close_cb closed) {
  uv_idle_stop(&spin->idle);
  spin->mode = SPIN_OFF;
  spin->polls = 0;
  uv_close((uv_handle_t *)&spin->idle, closed);
}

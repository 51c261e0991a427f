/* Polling a little before sleeping, for the reactor's waits between batches; see spin.c. */
#ifndef HEADROOM_SPIN_H
#define HEADROOM_SPIN_H

#include <stdint.h>
#include <uv.h>

/* Whether waits poll: always (on), never (off), or as the trials find cheaper (auto). */
typedef enum { SPIN_AUTO = 0, SPIN_ON = 1, SPIN_OFF = 2 } SpinMode;

typedef struct {
  uv_idle_t idle; /* first: the handle's address is the Spin's */
  SpinMode mode;
  /* Whether the waits poll now: always on, never off, in auto as the last trial chose. */
  int polls;
  /* The batch being handled ended a wait (spin_wait_ended), once per batch. */
  int in_batch;
  /* How long the next wait polls before it sleeps; 0: it sleeps at once. */
  uint64_t window_ns;
  /* When the last wait began (CLOCK_MONOTONIC); 0 before the first. */
  uint64_t waiting_since;
  /* Waits that ended while polling, and waits that slept (after a window, or at once). */
  uint64_t caught;
  uint64_t slept;
  /* auto: the epoch under way (whether it counts yet, a trial's epoch only once it has settled;
   * when it began, or once it counts when counting began; its events, and the thread's CPU time
   * when counting began), the step of the trial or hold it is (see spin.c), each way's CPU,
   * events and time counted over the trial, and over the earlier trials, fading. */
  int counting;
  uint64_t epoch_since_ns;
  uint64_t epoch_events;
  uint64_t epoch_cpu_ns;
  int step;
  uint64_t trial_cpu_ns[2];
  uint64_t trial_events[2];
  uint64_t trial_wall_ns[2];
  double kept_cpu_ns[2];
  double kept_events[2];
  double kept_wall_ns[2];
  /* auto: trials finished, how many of them polling won, and the CPU per event and events a
   * second each way that the last decision weighed (the trials so far, the earlier fading). */
  uint64_t trials;
  uint64_t polling_won;
  double trial_polling_ns;
  double trial_sleeping_ns;
  double trial_polling_rate;
  double trial_sleeping_rate;
} Spin;

/* An idle handle on `loop`, unreferenced (a spin never keeps the process alive); auto, window 0. */
void spin_init(Spin *spin, uv_loop_t *loop, void *owner);

/* `events` came: the wait ended. Adapts the window to how long it was (once per batch); every
 * delivery of the batch counts its events towards auto's epoch. */
void spin_wait_ended(Spin *spin, uint32_t events);

/* The batch is handled: a wait begins, and polls for the window before it may sleep (when the
 * waits poll). In auto, an epoch that is over moves the trial on. */
void spin_wait_begins(Spin *spin);

/* The mode from now on, from a window of 0 (auto: from the start, sleeping until a trial says). */
void spin_set_mode(Spin *spin, SpinMode mode);

/* Stops polling and closes the handle; `closed` gets the handle, whose data is the owner. */
void spin_close(Spin *spin, uv_close_cb closed);

#endif

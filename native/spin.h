/* Polling a little before sleeping, for the reactor's waits between batches; see spin.c. */
#ifndef HEADROOM_SPIN_H
#define HEADROOM_SPIN_H

#include <stdint.h>
#include <uv.h>

typedef struct {
  uv_idle_t idle; /* first: the handle's address is the Spin's */
  int enabled;
  /* The batch being handled ended a wait (spin_wait_ended), once per batch. */
  int in_batch;
  /* How long the next wait polls before it sleeps; 0: it sleeps at once. */
  uint64_t window_ns;
  /* When the last wait began (CLOCK_MONOTONIC); 0 before the first. */
  uint64_t waiting_since;
  /* Waits that ended while polling, and waits that slept (after a window, or at once). */
  uint64_t caught;
  uint64_t slept;
} Spin;

/* An idle handle on `loop`, unreferenced (a spin never keeps the process alive); enabled, window 0. */
void spin_init(Spin *spin, uv_loop_t *loop, void *owner);

/* Events came: the wait ended. Adapts the window to how long it was (once per batch). */
void spin_wait_ended(Spin *spin);

/* The batch is handled: a wait begins, and polls for the window before it may sleep. */
void spin_wait_begins(Spin *spin);

/* Off: every wait sleeps at once, the window stays 0. On: it adapts again from 0. */
void spin_enable(Spin *spin, int enabled);

/* Stops polling and closes the handle; `closed` gets the handle, whose data is the owner. */
void spin_close(Spin *spin, uv_close_cb closed);

#endif

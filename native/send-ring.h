/* Several sockets' sends in one system call (io_uring); see send-ring.c. */
#ifndef HEADROOM_SEND_RING_H
#define HEADROOM_SEND_RING_H

#include <stddef.h>
#include <stdint.h>

typedef struct SendRing SendRing;

/* A ring for up to `entries` sends at a time; NULL where io_uring or its send cannot be used. */
SendRing *send_ring_open(unsigned entries);
void send_ring_close(SendRing *ring);

/* Queues a send of `length` bytes at `bytes` on `fd` (MSG_DONTWAIT); -1 when the ring is full. The
 * bytes must stay where they are until send_ring_submit() returns. */
int send_ring_add(SendRing *ring, int fd, const void *bytes, size_t length, uint64_t tag);

/* Sends what was queued, in one io_uring_enter, and calls done(context, tag, result) for each send
 * as send(2) would have answered: bytes sent, or -errno (-EAGAIN: the socket took nothing).
 * Returns 0; or -1 when the ring failed and must be closed: then done() was called only for the
 * sends the kernel took (-EIO for one whose end could not be waited for), and the others did not
 * happen. */
int send_ring_submit(SendRing *ring, void (*done)(void *context, uint64_t tag, int result), void *context);

#endif

/**
 * 0 held as a floating-point number. V8 keeps a field whose first value is a small integer as one,
 * and compiles the arithmetic that feeds it as integer arithmetic; the first sum that outgrows 2^31
 * (a sum of squared latencies does within seconds; the square of one latency past 46 ms already
 * overflows the multiply) turns the field into a double, and every optimized function that touches
 * it is thrown away and compiled again. The terminal loop inlines the recorder: compiling it took
 * 50-170 ms of CPU on a 2-core machine shared with the server, each time. A field first set to
 * DOUBLE_ZERO is a double from the start; its value is 0 all the same (0 === DOUBLE_ZERO, and it
 * prints and serializes as 0).
 */
export const DOUBLE_ZERO = Number.MIN_VALUE * 0;

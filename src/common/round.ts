/** Rounds to `digits` decimal places, for figures stored in results and shown in reports. */
export function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

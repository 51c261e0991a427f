import { deflateSync, inflateSync } from 'node:zlib';
import { DOUBLE_ZERO } from '../common/double-zero.js';

/*
 * Latencies are recorded in microseconds into HDR histograms (HdrHistogram, Gil Tene) with
 * lowest discernible value 1 and 3 significant digits: 0.1% precision from 1 us up to hours,
 * constant memory, mergeable across jobs. Results store them in HdrHistogram's compressed V2
 * encoding (base64), which HdrHistogram's own tools in any language read.
 *
 * The layout: sub-buckets of 2048, half of 1024, unit magnitude 0. A value v >= 1 lands in
 * bucket b = max(floor(log2 v) - 10, 0) at sub-bucket v >> b, counts index
 * (b + 1) * 1024 + (v >> b) - 1024; each index covers 2^b values from its lowest one.
 *
 * Recording is a few integer operations (the hot loop records twice a transaction), and every
 * figure below follows HdrHistogram's definitions exactly (test/metrics/histogram.test.ts
 * checks them against hdr-histogram-js): percentiles are the highest value equivalent to the
 * bucket reached, mean and deviation use each bucket's median value, the maximum is the highest
 * value equivalent to the top bucket.
 */
const HALF_MAGNITUDE = 10;
const HALF_COUNT = 1 << HALF_MAGNITUDE;
const SIGNIFICANT_DIGITS = 3;
const FAST_LIMIT = 2 ** 32;
/** Counts for values below 2^32 us (71 minutes); the array grows for longer ones. */
const INITIAL_COUNTS = (31 - HALF_MAGNITUDE + 2) * HALF_COUNT;

const V2_COOKIE = 0x1c849303 | 0x10;
const V2_COMPRESSED_COOKIE = 0x1c849304 | 0x10;
const COOKIE_BASE_MASK = ~0xf0;

export class Histogram {
  private counts = new Float64Array(INITIAL_COUNTS);
  /** A double from the start (double-zero.ts): merging adds counts read from a Float64Array, which are doubles. */
  totalCount = DOUBLE_ZERO;
  /** Lowest and highest counts index in use (-1 and -1 when empty). */
  private lowestIndex = -1;
  private highestIndex = -1;

  /** `value` is a whole number of microseconds (0 is kept as 0). */
  recordValue(value: number): void {
    const index = value < FAST_LIMIT ? fastIndex(value) : this.grownIndex(value);
    this.counts[index]!++;
    this.totalCount++;
    if (index > this.highestIndex) this.highestIndex = index;
    if (index < this.lowestIndex || this.lowestIndex < 0) this.lowestIndex = index;
  }

  recordValueWithCount(value: number, count: number): void {
    if (count <= 0) return;
    const index = value < FAST_LIMIT ? fastIndex(value) : this.grownIndex(value);
    this.addAt(index, count);
  }

  add(other: Histogram): void {
    if (other.totalCount === 0) return;
    if (other.counts.length > this.counts.length) this.grow(other.counts.length);
    for (let i = other.lowestIndex; i <= other.highestIndex; i++) {
      const count = other.counts[i]!;
      if (count > 0) this.addAt(i, count);
    }
  }

  reset(): void {
    if (this.totalCount === 0) return;
    this.counts.fill(0, this.lowestIndex, this.highestIndex + 1);
    this.totalCount = 0;
    this.lowestIndex = this.highestIndex = -1;
  }

  /** The highest value equivalent to the top bucket in use (0 when empty). */
  get maxValue(): number {
    return this.highestIndex < 0 ? 0 : highestEquivalent(this.highestIndex);
  }

  /** The lowest non-zero value equivalent to the lowest bucket in use. */
  get minNonZeroValue(): number {
    if (this.highestIndex < 0) return Number.MAX_SAFE_INTEGER;
    for (let i = this.lowestIndex; i <= this.highestIndex; i++) if (this.counts[i]! > 0 && valueAt(i) > 0) return valueAt(i);
    return Number.MAX_SAFE_INTEGER;
  }

  get mean(): number {
    if (this.totalCount === 0) return 0;
    return this.sumOfMedians(undefined) / this.totalCount;
  }

  get stdDeviation(): number {
    return this.stdDeviationAround(this.mean);
  }

  /** The standard deviation given the mean already taken (summarize: one pass fewer). */
  stdDeviationAround(mean: number): number {
    if (this.totalCount === 0) return 0;
    return Math.sqrt(this.sumOfMedians(mean) / this.totalCount);
  }

  /**
   * Over the counts in use, each weighted by its index's median-equivalent value m: the sum of
   * count * m, or with `around`, of count * (m - around)^2. Row by row of 1024 indices, each
   * index's value worked out in place rather than by a call per count: the per-second interval is
   * summarized once a second, by code that runs too seldom to be compiled early in a run, where
   * the calls made each pass take a millisecond or more. m is HdrHistogram's median-equivalent
   * value, valueAt(i) + floor(2^bucket / 2), and the sums add the same terms in the same order.
   */
  private sumOfMedians(around: number | undefined): number {
    const { counts, lowestIndex, highestIndex } = this;
    let total = 0;
    for (let row = lowestIndex >> HALF_MAGNITUDE; row <= highestIndex >> HALF_MAGNITUDE; row++) {
      // Row 0 holds the values 0-1023 one to an index; row r >= 1, 1024 indices of 2^(r-1) values each from 1024 * 2^(r-1).
      const unit = row === 0 ? 1 : 2 ** (row - 1);
      const half = Math.floor(unit / 2);
      const first = row << HALF_MAGNITUDE;
      const offset = row === 0 ? 0 : HALF_COUNT - first;
      const last = Math.min(first + HALF_COUNT - 1, highestIndex);
      for (let i = Math.max(first, lowestIndex); i <= last; i++) {
        const count = counts[i]!;
        if (count === 0) continue;
        const median = (i + offset) * unit + half;
        if (around === undefined) total += median * count;
        else total += (median - around) * (median - around) * count;
      }
    }
    return total;
  }

  /** HdrHistogram's getValueAtPercentile: the value that `percentile`% of the recorded ones are at or below. */
  getValueAtPercentile(percentile: number): number {
    return this.valuesAtPercentiles([percentile])[0]!;
  }

  /**
   * getValueAtPercentile of each of `percentiles` (ascending) in one pass over the counts: the
   * per-second interval's figures are taken between transactions by code that runs too seldom to
   * be compiled, where each pass over some thousand counts took a millisecond.
   */
  valuesAtPercentiles(percentiles: readonly number[]): number[] {
    // Filled as doubles, whatever the percentiles' array holds: once compiled, a store that changes
    // an array's kind of elements throws the code away (double-zero.ts).
    const out = new Float64Array(percentiles.length);
    const { counts, highestIndex } = this;
    let next = 0;
    let countAtPercentile = this.countAt(percentiles[0] ?? 0);
    let total = 0;
    for (let i = Math.max(this.lowestIndex, 0); i <= highestIndex && next < percentiles.length; i++) {
      total += counts[i]!;
      while (total >= countAtPercentile && next < percentiles.length) {
        out[next] = percentiles[next] === 0 ? valueAt(i) : highestEquivalent(i);
        next++;
        if (next < percentiles.length) countAtPercentile = this.countAt(percentiles[next]!);
      }
    }
    return Array.from(out);
  }

  /** How many recorded values a percentile covers: rounded up, but a floating-point result one ulp above an integer must not skip a count. */
  private countAt(percentile: number): number {
    const fpCount = (Math.min(percentile, 100) / 100) * this.totalCount;
    return Math.max(Math.ceil(fpCount - ulp(fpCount)), 1);
  }

  /**
   * HdrHistogram's V2 encoding in base64, compressed (results) or not (`compressed` false: the
   * per-second interval between jobs, where deflate's state, set up afresh for each call, took a
   * millisecond or more of the event loop, and with it the start of any transaction due then).
   */
  encode(compressed = true): string {
    const length = this.highestIndex + 1;
    // The header's 40 bytes, then at most 9 bytes a count.
    if (encoding.length < 40 + 9 * length) encoding = Buffer.allocUnsafe(40 + 9 * length);
    const plain = encoding.subarray(0, encodeCounts(this.counts, length, encoding, 40));
    plain.writeInt32BE(V2_COOKIE, 0);
    plain.writeInt32BE(plain.length - 40, 4);
    plain.writeInt32BE(1, 8); // normalizing index offset, as hdr-histogram-js writes it
    plain.writeInt32BE(SIGNIFICANT_DIGITS, 12);
    writeInt64(plain, 16, 1); // lowest discernible value
    writeInt64(plain, 24, Math.max(2, highestEquivalent(this.counts.length - 1))); // highest trackable value
    writeInt64(plain, 32, 1); // integer-to-double ratio
    if (!compressed) return plain.toString('base64');
    const deflated = deflateSync(plain);
    const out = Buffer.allocUnsafe(8 + deflated.length);
    out.writeInt32BE(V2_COMPRESSED_COOKIE, 0);
    out.writeInt32BE(deflated.length, 4);
    deflated.copy(out, 8);
    return out.toString('base64');
  }

  static decode(encoded: string): Histogram {
    const histogram = new Histogram();
    histogram.addEncoded(encoded);
    return histogram;
  }

  /**
   * Adds the counts of an encoded histogram (V2, compressed or not) into this one: the per-second
   * merge reuses one histogram rather than allocate and zero a new 184 KB of counts each second.
   */
  addEncoded(encoded: string): void {
    const data = Buffer.from(encoded.trim(), 'base64');
    const cookie = data.length < 8 ? 0 : data.readInt32BE(0) & COOKIE_BASE_MASK;
    if (cookie !== (V2_COMPRESSED_COOKIE & COOKIE_BASE_MASK) && cookie !== (V2_COOKIE & COOKIE_BASE_MASK)) {
      throw new Error('not an HdrHistogram in V2 encoding');
    }
    const inflated = cookie === (V2_COOKIE & COOKIE_BASE_MASK) ? data : inflateSync(data.subarray(8, 8 + data.readInt32BE(4)));
    if (inflated.length < 40 || (inflated.readInt32BE(0) & COOKIE_BASE_MASK) !== (V2_COOKIE & COOKIE_BASE_MASK))
      throw new Error('not an HdrHistogram in V2 encoding');
    const payloadLength = inflated.readInt32BE(4);
    const digits = inflated.readInt32BE(12);
    const lowest = readInt64(inflated, 16);
    if (digits !== SIGNIFICANT_DIGITS || lowest !== 1) {
      throw new Error(`an HdrHistogram with ${digits} significant digits and lowest value ${lowest}: headroom writes 3 and 1 and reads only those`);
    }
    decodeCounts(inflated, 40, 40 + payloadLength, (index, count) => this.addAt(index, count));
  }

  private addAt(index: number, count: number): void {
    if (index >= this.counts.length) this.grow(index + 1);
    this.counts[index]! += count;
    this.totalCount += count;
    if (index > this.highestIndex) this.highestIndex = index;
    if (index < this.lowestIndex || this.lowestIndex < 0) this.lowestIndex = index;
  }

  /** The index of a value of 2^32 or more, with the counts grown to hold it. */
  private grownIndex(value: number): number {
    let bucket = Math.floor(Math.log2(value));
    // log2 of a large integer may round to the next power of two: correct it by comparison.
    while (2 ** bucket > value) bucket--;
    while (2 ** (bucket + 1) <= value) bucket++;
    bucket -= HALF_MAGNITUDE;
    const index = ((bucket + 1) << HALF_MAGNITUDE) + Math.floor(value / 2 ** bucket) - HALF_COUNT;
    if (index >= this.counts.length) this.grow(index + 1);
    return index;
  }

  private grow(length: number): void {
    const grown = new Float64Array(Math.ceil(length / HALF_COUNT) * HALF_COUNT);
    grown.set(this.counts);
    this.counts = grown;
  }
}

function fastIndex(value: number): number {
  const bucket = Math.max(31 - Math.clz32(value) - HALF_MAGNITUDE, 0);
  return ((bucket + 1) << HALF_MAGNITUDE) + (value >>> bucket) - HALF_COUNT;
}

function bucketOf(index: number): number {
  return Math.max((index >> HALF_MAGNITUDE) - 1, 0);
}

/** The lowest value of counts index `i` (HdrHistogram's valueFromIndex). */
function valueAt(index: number): number {
  let bucket = (index >> HALF_MAGNITUDE) - 1;
  let subBucket = (index & (HALF_COUNT - 1)) + HALF_COUNT;
  if (bucket < 0) {
    subBucket -= HALF_COUNT;
    bucket = 0;
  }
  return subBucket * 2 ** bucket;
}

function highestEquivalent(index: number): number {
  return valueAt(index) + 2 ** bucketOf(index) - 1;
}

function ulp(x: number): number {
  return 2 ** (Math.floor(Math.log2(x)) - 52);
}

function writeInt64(buffer: Buffer, at: number, value: number): void {
  buffer.writeUInt32BE(Math.floor(value / 2 ** 32), at);
  buffer.writeUInt32BE(value % 2 ** 32, at + 4);
}

function readInt64(buffer: Buffer, at: number): number {
  return buffer.readUInt32BE(at) * 2 ** 32 + buffer.readUInt32BE(at + 4);
}

/**
 * Where encode() writes, reused and grown as needed: the per-second interval is encoded every
 * second between transactions, where an array of a number per byte, then a Buffer of it, then a
 * second Buffer with the header, cost more than the words themselves.
 */
let encoding = Buffer.allocUnsafe(64 * 1024);

/** Counts as ZigZag LEB128 words into `out` from `at`; a run of zeros is one negative word (V2 encoding). Returns the end. */
function encodeCounts(counts: Float64Array, length: number, out: Buffer, at: number): number {
  for (let i = 0; i < length;) {
    const count = counts[i++]!;
    if (count !== 0) {
      at = putWord(out, at, count);
      continue;
    }
    let zeros = 1;
    while (i < length && counts[i] === 0) {
      zeros++;
      i++;
    }
    at = putWord(out, at, zeros > 1 ? -zeros : 0);
  }
  return at;
}

/** One ZigZag LEB128-64b9B word (the ninth byte carries eight bits). */
function putWord(out: Buffer, at: number, word: number): number {
  let v = word >= 0 ? word * 2 : -word * 2 - 1;
  for (let i = 0; i < 8 && v >= 0x80; i++) {
    out[at++] = (v % 0x80) | 0x80;
    v = Math.floor(v / 0x80);
  }
  out[at++] = v;
  return at;
}

function decodeCounts(data: Buffer, start: number, end: number, add: (index: number, count: number) => void): void {
  let at = start;
  let index = 0;
  while (at < end) {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 9; i++) {
      const byte = data[at++]!;
      // The ninth byte of a word carries eight bits (LEB128-64b9B).
      value += (i < 8 ? byte & 0x7f : byte) * scale;
      scale *= 0x80;
      if (i === 8 || (byte & 0x80) === 0) break;
    }
    const word = value % 2 === 0 ? value / 2 : -(value + 1) / 2;
    if (word < 0) index += -word;
    else {
      if (word > 0) add(index, word);
      index++;
    }
  }
}

export function createHistogram(): Histogram {
  return new Histogram();
}

export function encodeHistogram(histogram: Histogram): string {
  return histogram.encode();
}

export function decodeHistogram(encoded: string): Histogram {
  return Histogram.decode(encoded);
}

export interface LatencySummaryMs {
  avg: number;
  stddev: number;
  p50: number;
  p95: number;
  p99: number;
  p99_9: number;
  max: number;
}

export function summarize(histogram: Histogram): LatencySummaryMs {
  const ms = (us: number): number => Math.round(us) / 1000;
  if (histogram.totalCount === 0) return { avg: 0, stddev: 0, p50: 0, p95: 0, p99: 0, p99_9: 0, max: 0 };
  const mean = histogram.mean;
  const [p50, p95, p99, p99_9] = histogram.valuesAtPercentiles([50, 95, 99, 99.9]);
  return {
    avg: ms(mean),
    stddev: ms(histogram.stdDeviationAround(mean)),
    p50: ms(p50!),
    p95: ms(p95!),
    p99: ms(p99!),
    p99_9: ms(p99_9!),
    max: ms(histogram.maxValue),
  };
}

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as hdr from 'hdr-histogram-js';
import { Histogram, decodeHistogram, summarize } from '../../src/metrics/histogram.js';

/** The reference: HdrHistogram's JavaScript port, built as headroom built its histograms before. */
function reference(): hdr.Histogram {
  return hdr.build({ bitBucketSize: 32, numberOfSignificantValueDigits: 3, lowestDiscernibleValue: 1, autoResize: true, useWebAssembly: false });
}

const PERCENTILES = [0, 1, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99, 100];

/** Ours and the reference agree on every figure, for a histogram fresh from recording and after encoding both ways. */
function agree(values: number[]): void {
  const ours = new Histogram();
  const theirs = reference();
  for (const v of values) {
    ours.recordValue(v);
    theirs.recordValue(v);
  }
  // Results are always read back from their encoding, so that is what must match: ours decoded
  // by the reference, the reference's decoded by ours, and ours decoded by ours.
  const viaReference = hdr.decodeFromCompressedBase64(ours.encode(), 32, false);
  const theirsDecoded = hdr.decodeFromCompressedBase64(hdr.encodeIntoCompressedBase64(theirs), 32, false);
  const fromReference = decodeHistogram(hdr.encodeIntoCompressedBase64(theirs));
  const roundTrip = decodeHistogram(ours.encode());
  for (const [name, h] of [
    ['ours', ours],
    ['ours after the reference decoded it', viaReference],
    ["the reference's, decoded by ours", fromReference],
    ['ours, round trip', roundTrip],
  ] as const) {
    assert.equal(h.totalCount, values.length, `${name}: count`);
    assert.equal(h.maxValue, theirsDecoded.maxValue, `${name}: max`);
    assert.equal(h.mean, theirsDecoded.mean, `${name}: mean`);
    assert.equal(h.stdDeviation, theirsDecoded.stdDeviation, `${name}: stddev`);
    for (const p of PERCENTILES) assert.equal(h.getValueAtPercentile(p), theirsDecoded.getValueAtPercentile(p), `${name}: p${p}`);
  }
  assert.deepEqual(summarize(roundTrip), summarize(fromReference));
}

test('histograms agree with HdrHistogram on every figure headroom reports, through its V2 encoding', () => {
  let seed = 42;
  const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  agree([1]);
  agree([7, 7, 7]);
  // Bucket edges: the end of bucket 0 (2047), the first values of the next buckets, powers of two.
  agree([1, 2, 1023, 1024, 1025, 2046, 2047, 2048, 2049, 4095, 4096, 4097, 2 ** 20, 2 ** 20 + 1, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1]);
  // Beyond 2^32 us (71 minutes) the counts grow.
  agree([5, 2 ** 32, 2 ** 32 + 12345, 3 * 2 ** 33, 2 ** 40 + 7]);
  // Log-uniform from 1 us to 100 s, the shape of real latencies, and a tight cluster with runs of zeros.
  agree(Array.from({ length: 20_000 }, () => Math.max(1, Math.round(Math.exp(random() * Math.log(1e8))))));
  agree(Array.from({ length: 5_000 }, (_, i) => (i % 2 === 0 ? 120 + (i % 7) : 90_000 + (i % 13))));
  // 99.9% of 1000 is 999.0000000000001 in floating point: p99.9 must still be the 999th value, not the 1000th.
  agree(Array.from({ length: 1000 }, (_, i) => i + 1));
});

test('merging, resetting and recording with counts give what recording one by one gives', () => {
  const a = new Histogram();
  const b = new Histogram();
  const both = new Histogram();
  for (let i = 1; i <= 3000; i++) {
    (i % 3 === 0 ? a : b).recordValue(i * 37);
    both.recordValue(i * 37);
  }
  b.recordValueWithCount(5_000_000, 4);
  for (let i = 0; i < 4; i++) both.recordValue(5_000_000);
  const merged = new Histogram();
  merged.add(a);
  merged.add(b);
  assert.equal(merged.encode(), both.encode());
  assert.deepEqual(summarize(merged), summarize(both));
  merged.reset();
  assert.equal(merged.totalCount, 0);
  assert.equal(merged.maxValue, 0);
  assert.equal(merged.getValueAtPercentile(99), 0);
  merged.recordValue(42);
  assert.deepEqual([merged.totalCount, merged.maxValue, merged.getValueAtPercentile(50)], [1, 42, 42]);
});

test('the uncompressed encoding (the per-second interval) decodes to the same histogram as the compressed one', () => {
  const h = new Histogram();
  for (let i = 1; i <= 5000; i++) h.recordValue((i * 7919) % 200_000);
  h.recordValueWithCount(9_000_000_000, 2);
  const plain = h.encode(false);
  assert.notEqual(plain, h.encode(), 'two encodings');
  assert.equal(decodeHistogram(plain).encode(), h.encode());
  assert.deepEqual(summarize(decodeHistogram(plain)), summarize(h));
  assert.equal(decodeHistogram(new Histogram().encode(false)).totalCount, 0);
});

test('one histogram reused second after second (reset, then the next interval added in) reads as that interval alone', () => {
  const reused = new Histogram();
  const intervals = [[5, 70, 70, 1_500, 9_000_000_000], [3, 40_000, 123_456, 2_000_000], [], [1, 2, 1023, 1024, 2047, 2048, 4097]];
  for (const values of intervals) {
    const one = new Histogram();
    for (const v of values) one.recordValue(v);
    // Each interval's encoding written in turn into the one scratch buffer the encoder reuses.
    const encoded = one.encode(false);
    reused.reset();
    reused.addEncoded(encoded);
    // (Its counts array stays grown after a value of 2^32 us or more, which only its encoding's header tells.)
    const label = `interval ${values.join(',')}`;
    assert.equal(reused.totalCount, values.length, label);
    assert.deepEqual(summarize(reused), summarize(one), label);
    for (const p of PERCENTILES) assert.equal(reused.getValueAtPercentile(p), one.getValueAtPercentile(p), `${label}: p${p}`);
  }
});

test('a histogram that is not HdrHistogram V2, or has other parameters, is refused with a reason', () => {
  assert.throws(() => decodeHistogram(Buffer.from('not a histogram at all').toString('base64')), /not an HdrHistogram in V2 encoding/);
  assert.throws(() => decodeHistogram(Buffer.from([0x1c, 0x84, 0x93, 0x13, 0, 0]).toString('base64')), /not an HdrHistogram in V2 encoding/);
  const twoDigits = hdr.build({ numberOfSignificantValueDigits: 2, useWebAssembly: false });
  twoDigits.recordValue(10);
  assert.throws(() => decodeHistogram(hdr.encodeIntoCompressedBase64(twoDigits)), /2 significant digits/);
});

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Every message on the bus, either way, is an envelope: the body as JSON text, when it was sent,
 * a nonce, and an HMAC-SHA256 over all three with the secret both sides were given at start
 * (--trust). A message without a valid signature, too old or too far in the future, or whose
 * nonce was seen before (a replay) is refused, so only a coordinator holding the secret can make
 * an agent run load.
 */
export interface Envelope {
  body: string;
  sentAt: number;
  nonce: string;
  sig: string;
}

/** How far a message's time may be from the receiver's clock: agents' clocks drift, replays are refused by nonce within it. */
export const MAX_SKEW_MS = 60_000;

export class Signer {
  private readonly seen = new Map<string, number>();

  constructor(private readonly secret: string) {
    if (secret.length < 16) throw new Error('the --trust secret is shorter than 16 characters');
  }

  seal(body: unknown, now = Date.now()): Uint8Array {
    const text = JSON.stringify(body);
    const nonce = randomBytes(12).toString('hex');
    const envelope: Envelope = { body: text, sentAt: now, nonce, sig: this.mac(text, now, nonce) };
    return Buffer.from(JSON.stringify(envelope));
  }

  /** The body of a genuine, fresh message; otherwise throws saying why (the caller logs it). */
  open<T>(data: Uint8Array, now = Date.now()): T {
    return this.openSent<T>(data, now).body;
  }

  /** open(), with the time the sender put on the message (the signature vouches for it). */
  openSent<T>(data: Uint8Array, now = Date.now()): { body: T; sentAt: number } {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(Buffer.from(data).toString('utf8')) as Envelope;
    } catch {
      throw new Error('not a signed message (not JSON)');
    }
    if (typeof envelope?.body !== 'string' || typeof envelope.sentAt !== 'number' || typeof envelope.nonce !== 'string' || typeof envelope.sig !== 'string') {
      throw new Error('not a signed message (no body, time, nonce and signature)');
    }
    const expected = Buffer.from(this.mac(envelope.body, envelope.sentAt, envelope.nonce), 'hex');
    const given = Buffer.from(envelope.sig, 'hex');
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      throw new Error('bad signature (tampered, or signed with another --trust secret)');
    if (Math.abs(now - envelope.sentAt) > MAX_SKEW_MS)
      throw new Error(`stale or future message (sent ${Math.round((now - envelope.sentAt) / 1000)} s from now)`);
    if (this.seen.has(envelope.nonce)) throw new Error('replayed message (nonce seen before)');
    this.seen.set(envelope.nonce, envelope.sentAt);
    this.forgetOld(now);
    return { body: JSON.parse(envelope.body) as T, sentAt: envelope.sentAt };
  }

  private mac(body: string, sentAt: number, nonce: string): string {
    return createHmac('sha256', this.secret).update(`${sentAt}\n${nonce}\n${body}`).digest('hex');
  }

  /** A nonce older than the skew window can no longer pass the time check, so it need not be kept. */
  private forgetOld(now: number): void {
    if (this.seen.size < 10_000) return;
    for (const [nonce, sentAt] of this.seen) if (now - sentAt > MAX_SKEW_MS) this.seen.delete(nonce);
  }
}

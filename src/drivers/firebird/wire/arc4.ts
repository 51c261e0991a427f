/**
 * RC4, the cipher of Firebird's Arc4 wire encryption (its key: the Srp session key), one state
 * per direction. Node's OpenSSL 3 no longer offers rc4, so it is here: a few lines, applied in
 * place to each packet written and each batch of bytes read.
 */
export class Arc4 {
  private readonly s = new Uint8Array(256);
  private i = 0;
  private j = 0;

  constructor(key: Buffer) {
    const s = this.s;
    for (let i = 0; i < 256; i++) s[i] = i;
    for (let i = 0, j = 0; i < 256; i++) {
      j = (j + s[i]! + key[i % key.length]!) & 0xff;
      const t = s[i]!;
      s[i] = s[j]!;
      s[j] = t;
    }
  }

  apply(buffer: Buffer, start: number, end: number): void {
    const s = this.s;
    let { i, j } = this;
    for (let n = start; n < end; n++) {
      i = (i + 1) & 0xff;
      j = (j + s[i]!) & 0xff;
      const t = s[i]!;
      s[i] = s[j]!;
      s[j] = t;
      buffer[n]! ^= s[(s[i]! + s[j]!) & 0xff]!;
    }
    this.i = i;
    this.j = j;
  }
}

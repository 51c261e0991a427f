import { decodeText } from './values.js';

/*
 * The backend messages of PostgreSQL's protocol v3 read from bytes, with no socket and no request
 * state: WireConnection feeds them what its transport delivered, and test/drivers/postgres-messages
 * feeds them hand-built bytes. Every read stays within its message: a message shorter than its
 * fields throws MalformedMessage rather than reading the next message's bytes.
 */

/** A message that cannot be read (corrupt length, fields past its end): the stream cannot go on. */
export class MalformedMessage extends RangeError {
  override readonly name = 'MalformedMessage';
}

/**
 * libpq's limits: a message other than these types is never longer than 30,000 bytes, and none
 * is longer than 1 GB; a longer length is a corrupt stream, not a message to wait for.
 */
const LONG_TYPES = new Set([0x44, 0x54, 0x64, 0x56, 0x45, 0x4e, 0x41]); // D T d V E N A
const MAX_SHORT_MESSAGE = 30_000;
const MAX_MESSAGE = 1 << 30;

/** Where each whole message goes: its type byte and its body [start, end). */
export interface MessageSink {
  message(type: number, data: Buffer, start: number, end: number): void;
}

/**
 * Hands each whole message in [start, end) to `sink`; returns where the first incomplete one
 * begins (or `end`). A length no server sends throws MalformedMessage.
 */
export function scanMessages(data: Buffer, start: number, end: number, sink: MessageSink): number {
  let at = start;
  while (end - at >= 5) {
    const length = (data[at + 1]! << 24) | (data[at + 2]! << 16) | (data[at + 3]! << 8) | data[at + 4]!;
    if ((length < 4 || length > MAX_SHORT_MESSAGE) && (length < 4 || length > MAX_MESSAGE || !LONG_TYPES.has(data[at]!))) {
      throw new MalformedMessage(`type 0x${data[at]!.toString(16)} with invalid length ${length}`);
    }
    const next = at + 1 + length;
    if (next > end) break;
    sink.message(data[at]!, data, at + 5, next);
    at = next;
  }
  return at;
}

/** A signed int32 of the message [.., end) at `at`. */
function int32(data: Buffer, at: number, end: number, what: string): number {
  if (at + 4 > end) throw new MalformedMessage(`${what} runs past the message`);
  return (data[at]! << 24) | (data[at + 1]! << 16) | (data[at + 2]! << 8) | data[at + 3]!;
}

/** DataRow: each column decoded from text by its type OID (`types`, from the RowDescription); NULL as null. */
export function readDataRow(types: readonly number[], data: Buffer, start: number, end: number): unknown[] {
  if (start + 2 > end) throw new MalformedMessage('a DataRow without its column count');
  const columns = (data[start]! << 8) | data[start + 1]!;
  const row: unknown[] = new Array(columns);
  let at = start + 2;
  for (let i = 0; i < columns; i++) {
    const length = int32(data, at, end, `a DataRow's column ${i + 1}`);
    at += 4;
    // A row longer than its message is a corrupt stream (libpq: "insufficient data in D message").
    if (at + (length > 0 ? length : 0) > end) throw new MalformedMessage(`a DataRow's column ${i + 1} runs past the message`);
    if (length < 0) row[i] = null;
    else {
      row[i] = decodeText(types[i] ?? 0, data, at, at + length);
      at += length;
    }
  }
  return row;
}

/** CommandComplete: the tag's last word is the row count ("UPDATE 1", "INSERT 0 1", "COPY 5"); -1 for a tag without one ("BEGIN"). */
export function commandCompleteCount(data: Buffer, start: number, end: number): number {
  let i = end - 2; // before the tag's NUL
  let count = 0;
  for (let scale = 1; i >= start && data[i]! >= 0x30 && data[i]! <= 0x39; i--, scale *= 10) count += (data[i]! - 0x30) * scale;
  return i < end - 2 && i >= start && data[i] === 0x20 ? count : -1;
}

/** RowDescription: each column's type OID; its name pushed to `names` when given. */
export function readRowDescription(data: Buffer, start: number, end: number, names: string[] | undefined): number[] {
  if (start + 2 > end) throw new MalformedMessage('a RowDescription without its column count');
  const columns = (data[start]! << 8) | data[start + 1]!;
  const types: number[] = new Array(columns);
  let at = start + 2;
  for (let i = 0; i < columns; i++) {
    const nameEnd = data.indexOf(0, at);
    if (nameEnd < 0 || nameEnd + 19 > end) throw new MalformedMessage(`a RowDescription's column ${i + 1} runs past the message`);
    names?.push(data.toString('utf8', at, nameEnd));
    at = nameEnd + 1 + 6; // name, table OID, column number
    types[i] = (data[at]! << 24) | (data[at + 1]! << 16) | (data[at + 2]! << 8) | data[at + 3]!;
    at += 12; // type OID, size, modifier, format
  }
  return types;
}

/** ParameterStatus: a setting's name and value, each NUL-terminated. */
export function readParameterStatus(data: Buffer, start: number, end: number): [name: string, value: string] {
  const split = data.indexOf(0, start);
  if (split < 0 || split >= end - 1 || data[end - 1] !== 0) throw new MalformedMessage('a ParameterStatus without its name and value');
  return [data.toString('utf8', start, split), data.toString('utf8', split + 1, end - 1)];
}

/** Authentication: which request (0 ok, 3 cleartext, 5 MD5, 10/11/12 SASL); its data follows at start + 4. */
export function readAuthenticationKind(data: Buffer, start: number, end: number): number {
  return int32(data, start, end, 'an Authentication request');
}

/** BackendKeyData: the backend's process id (the secret key that follows is not used). */
export function readBackendProcessId(data: Buffer, start: number, end: number): number {
  return int32(data, start, end, 'a BackendKeyData');
}

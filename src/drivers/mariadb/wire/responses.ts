import { MariadbServerError } from './errors.js';
import type { PacketReader } from './packets.js';
import type { Column } from './protocol.js';

/*
 * The server's packets of the MariaDB/MySQL protocol read from bytes, with no socket and no
 * request state: MariadbWireConnection feeds them what its transport delivered, and
 * test/drivers/mariadb-packets feeds them hand-built bytes. A packet shorter than its fields
 * throws MalformedPacket rather than passing the next packet's bytes off as its own.
 */

/** A packet that cannot be read (fields past its end): the stream cannot go on. */
export class MalformedPacket extends RangeError {
  override readonly name = 'MalformedPacket';
}

/** Where each whole packet goes: its payload [start, end), sequence id and payload length. */
export interface PacketSink {
  packet(data: Buffer, start: number, end: number, sequence: number, length: number): void;
}

/** Hands each whole packet in [start, end) to `sink`; returns where the first incomplete one begins (or `end`). */
export function scanPackets(data: Buffer, start: number, end: number, sink: PacketSink): number {
  let at = start;
  while (end - at >= 4) {
    const length = data[at]! | (data[at + 1]! << 8) | (data[at + 2]! << 16);
    const next = at + 4 + length;
    if (next > end) break;
    sink.packet(data, at + 4, next, data[at + 3]!, length);
    at = next;
  }
  return at;
}

/** Throws MalformedPacket when the reader went past its packet's end. */
export function checkWithin(r: PacketReader, what: string): void {
  if (r.at > r.end) throw new MalformedPacket(`${what} runs past the packet`);
}

/** OK_Packet's fields (also the end of a result set under DEPRECATE_EOF): one object per connection, refilled. */
export interface OkFields {
  affectedRows: number;
  lastInsertId: number;
  status: number;
}

/** OK_Packet (header 0x00, or 0xfe ending a result set): affected rows, last insert id, status flags. */
export function readOk(r: PacketReader, into: OkFields): OkFields {
  r.at++;
  into.affectedRows = r.lenenc() ?? 0;
  into.lastInsertId = r.lenenc() ?? 0;
  into.status = r.u16();
  checkWithin(r, 'an OK packet');
  return into;
}

/** EOF_Packet (before DEPRECATE_EOF): warnings, then the status flags it returns. */
export function readEofStatus(r: PacketReader): number {
  r.at++;
  r.u16(); // warnings
  const status = r.u16();
  checkWithin(r, 'an EOF packet');
  return status;
}

/** Protocol::ColumnDefinition41: six names, then collation, length, type, flags, decimals. */
export function readColumn(r: PacketReader): Column {
  for (let i = 0; i < 6; i++) {
    // A cut name's length would be read from the next packet (possibly past the buffer).
    if (r.at >= r.end) throw new MalformedPacket('a column definition runs past the packet');
    r.skipLenencString();
  }
  r.lenenc(); // length of the fixed fields (0x0c)
  const collation = r.u16();
  r.at += 4; // column length
  const type = r.u8();
  const flags = r.u16();
  checkWithin(r, 'a column definition');
  return { type, flags, collation };
}

/** ERR_Packet: errno, '#' and SQLSTATE (4.1 protocol), message. */
export function readError(r: PacketReader, fatal = false): MariadbServerError {
  r.at++;
  const errno = r.u16();
  let sqlState: string | undefined;
  if (r.at < r.end && r.data[r.at] === 0x23) {
    sqlState = r.data.toString('latin1', r.at + 1, r.at + 6);
    r.at += 6;
  }
  checkWithin(r, 'an ERR packet');
  return new MariadbServerError(r.restString(), errno, sqlState, fatal);
}

import { CAPS } from './protocol.js';
import { MalformedPacket } from './responses.js';

/**
 * The server's first packet, Protocol::HandshakeV10 (MariaDB's "Connection" page; MySQL's
 * "Protocol::Handshake"), read from bytes with no socket: MariadbWire hands it the greeting's
 * payload, test/drivers/mariadb-handshake feeds it hand-built and cut ones. A greeting shorter
 * than its fields throws MalformedPacket (the connection names it a malformed packet from the
 * server) rather than reading the scramble or the plugin's name from whatever follows it.
 */

/** The greeting's fields as the client uses them. */
export interface ServerHandshake {
  /** As the server sends it: MariaDB 10.x prefixes its own with "5.5.5-" for old clients. */
  serverVersion: string;
  /** The connection's id on the server. */
  threadId: number;
  /** The authentication plugin's challenge: auth-plugin-data parts 1 and 2, without part 2's closing NUL. */
  scramble: Buffer;
  /** Capability flags, bits 0-31 (CAPS). */
  capabilities: number;
  /** MariaDB's extended capabilities (bits 32-63), sent in the filler when bit 0 (CLIENT_MYSQL) is off; 0 otherwise. */
  extendedCapabilities: number;
  /** The server's default collation id. */
  collation: number;
  /** Server status flags. */
  status: number;
  /** The plugin the scramble is for; mysql_native_password when the server names none (no PLUGIN_AUTH). */
  authPlugin: string;
}

const PROTOCOL_VERSION = 10;
/** Thread id 4, scramble part 1 8, filler 1, capabilities 2, collation 1, status 2, capabilities 2, scramble length 1, reserved 6, extended capabilities 4. */
const FIXED_FIELDS = 31;
/** Part 2 of the scramble is at least 13 bytes (12 and a NUL): MySQL's and MariaDB's servers send 20 in all. */
const MIN_SCRAMBLE_PART_2 = 13;

/** Reads a greeting's payload in [start, end); throws MalformedPacket when it is not a whole HandshakeV10. */
export function readHandshake(data: Buffer, start: number, end: number): ServerHandshake {
  if (end <= start) throw new MalformedPacket('an empty greeting');
  if (data[start] !== PROTOCOL_VERSION) throw new MalformedPacket(`a greeting of protocol ${data[start]} (${PROTOCOL_VERSION} expected)`);
  const versionEnd = nulAt(data, start + 1, end, "the server's version");
  const serverVersion = data.toString('utf8', start + 1, versionEnd);
  let at = versionEnd + 1;
  if (at + FIXED_FIELDS > end) throw new MalformedPacket('a greeting cut short in its fixed fields');
  const threadId = data.readUInt32LE(at);
  const part1 = data.subarray(at + 4, at + 12);
  at += 13; // after the filler
  const low = data.readUInt16LE(at);
  const collation = data[at + 2]!;
  const status = data.readUInt16LE(at + 3);
  const capabilities = low + data.readUInt16LE(at + 5) * 0x10000;
  const scrambleLength = data[at + 7]!;
  at += 14; // after the six reserved bytes
  const extendedCapabilities = capabilities & CAPS.LONG_PASSWORD ? 0 : data.readUInt32LE(at);
  at += 4;
  const part2Length = Math.max(MIN_SCRAMBLE_PART_2, scrambleLength - 8);
  if (at + part2Length > end) throw new MalformedPacket('a greeting cut short in its scramble');
  const part2 = data.subarray(at, at + part2Length - 1); // without its NUL
  at += part2Length;
  let authPlugin = 'mysql_native_password';
  if (capabilities & CAPS.PLUGIN_AUTH) {
    const pluginEnd = nulAt(data, at, end, "the authentication plugin's name");
    authPlugin = data.toString('utf8', at, pluginEnd);
  }
  // Copied: the transport reuses its buffer for the next read, and the scramble outlives this packet.
  const scramble = Buffer.concat([part1, part2]);
  return { serverVersion, threadId, scramble, capabilities, extendedCapabilities, collation, status, authPlugin };
}

/** Where the NUL closing the string at `from` is, inside the packet. */
function nulAt(data: Buffer, from: number, end: number, what: string): number {
  const at = data.subarray(from, end).indexOf(0);
  if (at < 0) throw new MalformedPacket(`a greeting cut short in ${what} (no closing NUL)`);
  return from + at;
}

/**
 * Constants of the MariaDB/MySQL client/server protocol (MariaDB's "Client/Server Protocol"
 * pages; MySQL's "Protocol Basics"), the ones headroom's client uses.
 */

/** Capability flags (Protocol::CapabilityFlags); MariaDB's own start at bit 32. */
export const CAPS = {
  LONG_PASSWORD: 1,
  FOUND_ROWS: 2,
  LONG_FLAG: 4,
  CONNECT_WITH_DB: 8,
  PROTOCOL_41: 512,
  SSL: 2048,
  TRANSACTIONS: 8192,
  SECURE_CONNECTION: 32768,
  MULTI_RESULTS: 1 << 17,
  PS_MULTI_RESULTS: 1 << 18,
  PLUGIN_AUTH: 1 << 19,
  PLUGIN_AUTH_LENENC_CLIENT_DATA: 1 << 21,
  DEPRECATE_EOF: 1 << 24,
} as const;

/** MariaDB's extended capabilities (bits 32-63, sent apart): execute answers without repeated column metadata. */
export const MARIADB_CACHE_METADATA = 1 << 4;

export const COM_QUIT = 0x01;
export const COM_QUERY = 0x03;
export const COM_STMT_PREPARE = 0x16;
export const COM_STMT_EXECUTE = 0x17;

/** Server status flags carried by OK and EOF packets. */
export const STATUS_MORE_RESULTS = 0x0008;
export const STATUS_NO_BACKSLASH_ESCAPES = 0x0200;

/** Column types (enum_field_types). */
export const TYPE = {
  DECIMAL: 0,
  TINY: 1,
  SHORT: 2,
  LONG: 3,
  FLOAT: 4,
  DOUBLE: 5,
  NULL: 6,
  TIMESTAMP: 7,
  LONGLONG: 8,
  INT24: 9,
  DATE: 10,
  TIME: 11,
  DATETIME: 12,
  YEAR: 13,
  VARCHAR: 15,
  BIT: 16,
  JSON: 245,
  NEWDECIMAL: 246,
  ENUM: 247,
  SET: 248,
  TINY_BLOB: 249,
  MEDIUM_BLOB: 250,
  LONG_BLOB: 251,
  BLOB: 252,
  VAR_STRING: 253,
  STRING: 254,
  GEOMETRY: 255,
} as const;

/** Column flag: the integer is unsigned. */
export const FLAG_UNSIGNED = 0x20;
/** Collation id of binary strings (BLOB, BINARY, VARBINARY): returned as bytes. */
export const BINARY_COLLATION = 63;
/** utf8mb4_general_ci: what the client asks for at the handshake. */
export const UTF8MB4_GENERAL_CI = 45;

/** A packet this long continues in the next one. */
export const MAX_PACKET_PAYLOAD = 0xffffff;

/** A result column as decoding needs it. */
export interface Column {
  type: number;
  flags: number;
  collation: number;
}

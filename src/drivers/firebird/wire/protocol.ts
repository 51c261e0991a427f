/** Operation codes and constants of Firebird's remote protocol (src/remote/protocol.h). */
export const op = {
  connect: 1,
  accept: 3,
  reject: 4,
  disconnect: 6,
  response: 9,
  attach: 19,
  detach: 21,
  transaction: 29,
  commit: 30,
  rollback: 31,
  allocateStatement: 62,
  execute: 63,
  fetch: 65,
  fetchResponse: 66,
  freeStatement: 67,
  prepareStatement: 68,
  infoSql: 70,
  dummy: 71,
  execute2: 76,
  sqlResponse: 78,
  contAuth: 92,
  acceptData: 94,
  crypt: 96,
  condAccept: 98,
} as const;

const FB_PROTOCOL_FLAG = 0x8000;
/** Firebird 3 (authentication plugins), 4 (statement timeouts), 4.0.1/5 (batch sync): the newest the server knows wins. */
export const PROTOCOL_13 = FB_PROTOCOL_FLAG | 13;
export const PROTOCOL_16 = FB_PROTOCOL_FLAG | 16;
export const PROTOCOL_17 = FB_PROTOCOL_FLAG | 17;
export const OFFERED_PROTOCOLS = [PROTOCOL_13, PROTOCOL_16, PROTOCOL_17];
export const CONNECT_VERSION3 = 3;
export const ARCH_GENERIC = 1;
/** The lowest packet type offered; every request answered in order (under ptype_lazy_send too: the server still answers each request, in order). */
export const PTYPE_RPC = 2;
export const PTYPE_BATCH_SEND = 3;
/**
 * Deferred packets (protocol 11 and later, what fbclient and Jaybird ask for): requests still get
 * their answers in order, and a request may name "the object the last request made" as
 * INVALID_OBJECT, so an op_allocate_statement and its op_prepare_statement go in one write.
 */
export const PTYPE_LAZY_SEND = 5;
/** The handle that means, under ptype_lazy_send, the last object the server allocated on this connection. */
export const INVALID_OBJECT = 0xffff;
export const PTYPE_MASK = 0xff;
export const PFLAG_COMPRESS = 0x100;

/** Connect-block tags (CNCT_*). */
export const cnct = { user: 1, host: 4, userVerification: 6, specificData: 7, pluginName: 8, login: 9, pluginList: 10, clientCrypt: 11 } as const;
/** CNCT_client_crypt levels. */
export const WIRE_CRYPT_DISABLED = 0;
export const WIRE_CRYPT_ENABLED = 1;
/** isc_wirecrypt_required: "Client attempted to attach unencrypted but wire encryption is required". */
export const WIRECRYPT_REQUIRED = 335545065;
/** isc_wirecrypt_incompatible: what Firebird 3 answers a client that asks for no encryption when WireCrypt is Required. */
export const WIRECRYPT_INCOMPATIBLE = 335545064;

/** Attachment parameter block tags (isc_dpb_*). */
export const dpb = { version1: 1, userName: 28, lcCtype: 48, processId: 71, processName: 74, utf8Filename: 77, specificAuthData: 84 } as const;

/** Transaction parameter block tags (isc_tpb_*). */
export const tpb = { version3: 3, concurrency: 2, wait: 6, nowait: 7, read: 8, write: 9, readCommitted: 15, recVersion: 17 } as const;

export const DSQL_CLOSE = 1;
export const DSQL_DROP = 2;
export const SQL_DIALECT_3 = 3;
/** isc_info_sql_records and isc_info_end: the affected-row counts of the last execute. */
export const RECORDS_ITEMS = Buffer.from([23, 1]);
export const LEGACY_SALT = '9z';

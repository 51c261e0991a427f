import type FirebirdModule from 'node-firebird';
import type WireConnectionClass from 'node-firebird/lib/wire/connection.js';
import type wireConstants from 'node-firebird/lib/wire/const.js';
import type { parseRecordCounts as ParseRecordCounts } from 'node-firebird/lib/wire/xsqlvar.js';

/** The parts of node-firebird the driver uses. */
export interface FirebirdLibrary {
  Firebird: typeof FirebirdModule;
  WireConnection: typeof WireConnectionClass;
  wire: typeof wireConstants;
  parseRecordCounts: typeof ParseRecordCounts;
}

let library: FirebirdLibrary | undefined;

/**
 * Loads node-firebird on first use: it takes a seventh of a second to load, which every command
 * on another DBMS (and every run's client CPU figure) would otherwise pay.
 */
export async function loadFirebird(): Promise<FirebirdLibrary> {
  if (library) return library;
  const [{ default: Firebird }, { default: WireConnection }, { default: wire }, { parseRecordCounts }] = await Promise.all([
    import('node-firebird'),
    import('node-firebird/lib/wire/connection.js'),
    import('node-firebird/lib/wire/const.js'),
    import('node-firebird/lib/wire/xsqlvar.js'),
  ]);
  library = { Firebird, WireConnection, wire, parseRecordCounts };
  return library;
}

/** node-firebird, once loadFirebird() has run (every connection is made after it). */
export function firebird(): FirebirdLibrary {
  if (!library) throw new Error('node-firebird was used before loadFirebird()');
  return library;
}

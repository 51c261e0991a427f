import type FirebirdModule from 'node-firebird';

let library: typeof FirebirdModule | undefined;

/**
 * node-firebird, kept for creating and dropping database files (op_create, op_drop_database),
 * which tests and setup do and no workload times. Loaded on first use: it takes a seventh of a
 * second to load.
 */
export async function loadFirebird(): Promise<typeof FirebirdModule> {
  library ??= (await import('node-firebird')).default;
  return library;
}

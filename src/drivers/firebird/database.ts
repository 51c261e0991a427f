import type { ServerTarget } from '../../config/target.js';
import { classifyAttachError, firebirdOptions } from './driver.js';
import { loadFirebird } from './library.js';

/**
 * Creates and drops whole database files through the server (what CREATE DATABASE and DROP
 * DATABASE do in isql): Firebird has no SQL to create a database from another attachment.
 */
export async function createFirebirdDatabase(target: ServerTarget, pageSize = 8192): Promise<void> {
  const Firebird = await loadFirebird();
  try {
    const db = await Firebird.createAsync({ ...firebirdOptions(target), pageSize });
    await db.detachAsync();
  } catch (error) {
    throw await classifyAttachError(error, target);
  }
}

export async function dropFirebirdDatabase(target: ServerTarget): Promise<void> {
  const Firebird = await loadFirebird();
  try {
    await Firebird.dropAsync(firebirdOptions(target));
  } catch (error) {
    throw await classifyAttachError(error, target);
  }
}

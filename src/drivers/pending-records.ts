import type { PendingChange, PendingRecord } from './driver.js';

/** Names go into SQL when a change is put back: a record naming anything else is not one of headroom's. */
const NAME = /^[A-Za-z_][A-Za-z0-9_.]*$/;

function isChange(value: unknown): value is PendingChange {
  const c = value as PendingChange;
  return (
    typeof c === 'object' &&
    c !== null &&
    (c.kind === 'global' || c.kind === 'table') &&
    NAME.test(c.name) &&
    typeof c.set === 'string' &&
    (c.restoreTo === null || typeof c.restoreTo === 'string') &&
    typeof c.previous === 'string' &&
    (c.kind === 'global' || (typeof c.table === 'string' && NAME.test(c.table) && typeof c.database === 'string'))
  );
}

function isRecord(value: unknown): value is PendingRecord {
  const r = value as PendingRecord;
  return (
    typeof r === 'object' && r !== null && typeof r.id === 'string' && typeof r.holder === 'string' && Array.isArray(r.changes) && r.changes.every(isChange)
  );
}

/** Records from JSON (one record or a list); what does not have their shape is left out. */
export function parsePendingRecords(text: string): PendingRecord[] {
  if (text.trim() === '') return [];
  try {
    const value: unknown = JSON.parse(text);
    return (Array.isArray(value) ? value : [value]).filter(isRecord);
  } catch {
    return [];
  }
}

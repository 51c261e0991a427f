import type { ServerSettingsRecord } from '../result/server-settings-record.js';

/** "--set synchronous_commit=off (per session), checkpoint_timeout=10min (server-wide, put back to 5min)". */
export function settingsLine(record: ServerSettingsRecord | undefined): string | undefined {
  if (!record || record.applied.length === 0) return undefined;
  const parts = record.applied.map((s) => {
    if (s.scope === 'session') return `${s.name}=${s.value} (per session)`;
    // Changed by someone else while the run went on: the run did not have `value` all its time.
    if (s.changedTo !== undefined) {
      return `${s.name}=${s.value} (server-wide, changed to ${s.changedTo} during the run by someone else, ${s.restored ? 'its old value' : `left at that, not put back to ${s.previous}`})`;
    }
    return `${s.name}=${s.value} (server-wide, ${s.restored ? `put back to ${s.previous}` : `NOT put back to ${s.previous}`})`;
  });
  return `--set ${parts.join(', ')}`;
}

import type { Connection, LagSample } from '../driver.js';

/**
 * How far each streaming replica is behind: the bytes of WAL between the primary's current
 * position and what the replica has replayed, and the age of the last transaction it replayed
 * (which also grows while the primary is idle, so read it beside the bytes).
 */
export async function postgresLag(primary: Connection, replicas: readonly Connection[]): Promise<LagSample[]> {
  const [[lsn]] = (await primary.query('SELECT pg_current_wal_lsn()::text')) as [[string]];
  return Promise.all(
    replicas.map(async (replica) => {
      const [[bytes, ageMs]] = (await replica.query(
        'SELECT pg_wal_lsn_diff(?::pg_lsn, pg_last_wal_replay_lsn())::float8, (EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()) * 1000)::float8',
        [lsn],
      )) as [[unknown, unknown]];
      return { bytes: Math.max(0, Number(bytes)), replayAgeMs: ageMs === null ? null : Math.round(Number(ageMs)) };
    }),
  );
}

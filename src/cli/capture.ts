import { defineOptions } from '../config/options.js';
import { parseArgs } from '../config/args.js';
import { describeTarget, resolveTarget, serverTargetOf } from '../config/target.js';
import { loadDriver } from '../drivers/registry.js';
import type { DbmsName } from '../drivers/driver.js';
import { serverIdentity } from '../drivers/server-identity.js';
import { UserError } from '../errors.js';
import { CLOSING_OPTIONS } from '../session/options.js';
import type { CaptureFile, CaptureSource } from '../workloads/replay/capture-file.js';
import { writeCaptureFile } from '../workloads/replay/capture-io.js';
import { captureLogs, LOG_FORMATS, type Captured } from '../workloads/replay/capture-logs.js';
import { CaptureBuilder } from '../workloads/replay/capture-builder.js';
import { readGeneralLogTable } from '../workloads/replay/mariadb/general-log-table.js';
import { STATEMENTS_LEFT_OUT } from '../workloads/replay/skip-reasons.js';
import { writeWorkloadModule } from '../workloads/replay/module/write-module.js';

export const CAPTURE_OPTIONS = defineOptions([
  { long: 'out', short: 'o', type: 'string', value: 'FILE', help: 'where to write the capture file', default: 'capture.json' },
  {
    long: 'module',
    type: 'string',
    value: 'FILE.ts',
    help: 'also write a workload module of the top statement shapes, their mix and their values (headroom run FILE.ts)',
  },
  { long: 'top', type: 'integer', min: 1, value: 'N', help: 'transaction shapes the module keeps, the most frequent first', default: 10 },
  { long: 'format', type: 'string', value: 'KIND', choices: LOG_FORMATS, help: "the log's kind (default: told from its first lines)" },
  {
    long: 'prefix',
    type: 'string',
    value: 'PREFIX',
    help: "the server's log_line_prefix, for a PostgreSQL stderr log (default: pgreplay's '%m|%u|%d|%c|' or its %t form, whichever the log has)",
  },
  {
    long: 'server',
    type: 'string',
    value: 'URL',
    help: "the logged server, to record its identity (PostgreSQL's system identifier, MariaDB's host and port) so replay can refuse to run on it",
  },
  { long: 'db', type: 'string', value: 'URL', help: 'with --from-table: the MariaDB server whose mysql.general_log to read' },
  { long: 'from-table', type: 'boolean', help: 'read mysql.general_log (log_output = TABLE) of --db instead of log files' },
  ...CLOSING_OPTIONS,
]);

/** The log tables capture reads, per DBMS: MariaDB's mysql.general_log. */
const LOG_TABLES: Partial<Record<DbmsName, { dbms: CaptureSource['dbms']; read: typeof readGeneralLogTable }>> = {
  mariadb: { dbms: 'mariadb', read: readGeneralLogTable },
};

/** `headroom capture LOG... -o capture.json`: a real load from the server's own log, for headroom replay. */
export async function captureCommand(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs(argv, CAPTURE_OPTIONS, 'capture');
  const fromTable = values['from-table'] === true;
  if (fromTable && positionals.length > 0)
    throw new UserError("--from-table reads the server's table, not log files", `leave out ${positionals.join(' ')}, or --from-table`);
  if (fromTable && values.db === undefined)
    throw new UserError('--from-table needs --db URL of the MariaDB server', 'headroom capture --db mariadb://root@host/ --from-table');
  if (!fromTable && values.db !== undefined)
    throw new UserError('--db is for --from-table', 'give --from-table to read mysql.general_log, or --server URL to record the logged server');
  if (!fromTable && positionals.length === 0) throw new UserError('headroom capture needs the log files to read', 'headroom capture LOG... -o capture.json');
  const captured = fromTable
    ? await captureTable(values.db!)
    : captureLogs({
        files: positionals,
        ...(values.format ? { format: values.format } : {}),
        ...(values.prefix !== undefined ? { prefix: values.prefix } : {}),
      });
  const { capture } = captured;
  // Asked only once the log is read: the server logs the question too, and it is no part of the load.
  if (values.server !== undefined) capture.source.server = await identify(values.server);
  if (capture.summary.statements === 0)
    throw new UserError(
      `no statement could be captured from ${fromTable ? 'mysql.general_log' : positionals.join(' ')}${skippedText(capture)}`,
      "the server must log every statement: PostgreSQL log_statement = 'all' (or log_min_duration_statement = 0), MariaDB general_log = ON",
    );
  await writeCaptureFile(capture, values.out);
  process.stdout.write(`${summaryLines(capture, captured.notes, values.out).join('\n')}\n`);
  if (values.module !== undefined) {
    const written = writeWorkloadModule(capture, values.module, values.top);
    process.stdout.write(`${written}\n`);
  }
  return 0;
}

async function captureTable(url: string): Promise<Captured> {
  const target = resolveTarget(url);
  const table = LOG_TABLES[target.dbms];
  if (!table) throw new UserError(`--from-table reads MariaDB's mysql.general_log; ${describeTarget(target)} is not MariaDB`, 'give the log files instead');
  const driver = await loadDriver(target);
  const conn = await driver.connect();
  try {
    const builder = new CaptureBuilder();
    await table.read(conn, builder);
    const identity = await identityOf(target, conn);
    const capture = builder.build({
      dbms: table.dbms,
      kind: 'general-log-table',
      files: [describeTarget(target)],
      ...(identity ? { server: identity } : {}),
    });
    return { capture, notes: builder.noteLines };
  } finally {
    await conn.close();
    await driver.close();
  }
}

/** --server URL: the logged server's identity, with the host and port it was reached at (never its password). */
async function identify(url: string): Promise<CaptureSource['server']> {
  const target = resolveTarget(url);
  const driver = await loadDriver(target);
  const conn = await driver.connect();
  try {
    const identity = await identityOf(target, conn);
    if (!identity)
      throw new UserError(`--server: ${describeTarget(target)} gives no server identity`, 'give the PostgreSQL or MariaDB server the log came from');
    return identity;
  } finally {
    await conn.close();
    await driver.close();
  }
}

async function identityOf(target: ReturnType<typeof resolveTarget>, conn: Parameters<typeof serverIdentity>[1]): Promise<CaptureSource['server']> {
  const identity = await serverIdentity(target.dbms, conn);
  const at = serverTargetOf(target);
  return identity ? { systemId: identity.systemId, ...(at ? { host: at.host, port: at.port } : {}) } : undefined;
}

function skippedText(capture: CaptureFile): string {
  return capture.skipped.length === 0 ? '' : ` (${capture.skipped.map((s) => `${s.count} ${s.reason}, first at ${s.first}`).join('; ')})`;
}

const DBMS_TITLES: Record<CaptureSource['dbms'], string> = { postgres: 'PostgreSQL', mariadb: 'MariaDB' };

const number = (n: number): string => n.toLocaleString('en-US');

/** The capture in a few lines: what it holds, what it could not keep and how many statements that leaves out. */
export function summaryLines(capture: CaptureFile, notes: readonly string[], file: string): string[] {
  const { summary } = capture;
  const perSecond = summary.perSecond;
  const mean = capture.durationS > 0 ? summary.statements / capture.durationS : summary.statements;
  const errors = capture.sessions.reduce((n, s) => n + s.statements.filter((st) => st.error !== undefined).length, 0);
  const source = `${DBMS_TITLES[capture.source.dbms]} ${capture.source.kind}`;
  const lines = [
    `captured ${number(summary.statements)} statements in ${number(summary.sessions)} sessions over ${capture.durationS.toFixed(1)} s (${source}) into ${file}`,
    `  ${Object.entries(summary.byKind)
      .map(([kind, n]) => `${kind} ${number(n)}`)
      .join(', ')}`,
    `  reads ${number(summary.reads)}, writes ${number(summary.writes)}, transactions ${number(summary.transactions)}; statements per second: mean ${mean.toFixed(1)}, peak ${number(perSecond.reduce((peak, n) => Math.max(peak, n), 0))}`,
  ];
  if (errors > 0) lines.push(`  ${number(errors)} statement${errors === 1 ? '' : 's'} failed when recorded (their errors are kept)`);
  if (capture.source.server) lines.push(`  server: ${capture.source.server.systemId} (replay refuses to run on it)`);
  if (capture.skipped.length > 0) {
    lines.push('not captured:');
    for (const skip of capture.skipped) lines.push(`  ${number(skip.count)} ${skip.reason}; first at ${skip.first}`);
    const left = capture.skipped.filter((s) => STATEMENTS_LEFT_OUT.has(s.reason)).reduce((n, s) => n + s.count, 0);
    const all = summary.statements + left;
    lines.push(`  that leaves out ${number(left)} of ${number(all)} statements (${((left / all) * 100).toFixed(1)}%)`);
  }
  for (const note of notes) lines.push(`note: ${note}`);
  return lines;
}

import type { RunResult } from '../result/result.js';
import { table } from './table.js';
import { tablesBytes } from '../drivers/observation.js';

/** Where the time went: the server's CPU and I/O beside the client's, sizes, top statements, waits. */
export function serverLines(result: RunResult, cores: number): string[] {
  const { server } = result;
  const lines = [verdict(result, cores), ...planningLines(result)];
  if (server === null) return lines;
  if (server.host) {
    // /proc/PID/io of every database's sessions, not this one's alone. Written: bytes given to write
    // calls, not write_bytes, which counts whole large folios each time one is dirtied again (many
    // times what reaches the disk); the disks' own count is on the machine line.
    const written = server.host.writeCallBytes === undefined ? '' : `, wrote ${mb(server.host.writeCallBytes)} through write calls (files and sockets)`;
    lines.push(
      `server cpu: ${server.host.cpuPercentOfOneCore.toFixed(0)}% of one core (${server.host.processes} processes); its processes (all databases) read ${mb(server.host.readBytes)} from disk${written}`,
    );
  }
  if (server.machine) {
    const m = server.machine;
    const cpu = `CPUs busy ${m.cpuPercentOfOneCore.toFixed(0)}% of one core (of ${cores * 100}%), this client ${m.clientCpuPercentOfOneCore.toFixed(0)}%`;
    const disks = `disks (${m.disks.join(', ') || 'none'}) read ${mb(m.diskReadBytes)}, wrote ${mb(m.diskWriteBytes)}`;
    lines.push(`machine: ${cpu}; ${disks}, for every process on the machine`);
  }
  if (server.activity) lines.push(activityLine(server.activity, result));
  if (server.sizesBefore.databaseBytes !== null && server.sizesAfter?.databaseBytes != null) {
    lines.push(`database size (all its tables): ${beforeAfter(server.sizesBefore.databaseBytes, server.sizesAfter.databaseBytes)}`);
  }
  // The workload's own tables (the observer asks for those only): other tables in the database are not the run's.
  const tablesBefore = tablesBytes(server.sizesBefore);
  const tablesAfter = server.sizesAfter && tablesBytes(server.sizesAfter);
  if (tablesBefore !== null && tablesAfter != null) {
    const dead = server.sizesAfter!.tables.filter((t) => (t.deadRows ?? 0) > 0).map((t) => `${t.name} ${t.deadRows}`);
    lines.push(`${result.config.workload}'s tables: ${beforeAfter(tablesBefore, tablesAfter)}${dead.length > 0 ? `; dead rows: ${dead.join(', ')}` : ''}`);
  }
  if (server.waits && server.waits.length > 0) {
    const totals = new Map<string, number>();
    for (const sample of server.waits) for (const [event, count] of Object.entries(sample.counts)) totals.set(event, (totals.get(event) ?? 0) + count);
    const all = [...totals.values()].reduce((a, b) => a + b, 0);
    if (all > 0) {
      const shares = [...totals.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 6)
        .map(([event, n]) => `${event} ${((n / all) * 100).toFixed(0)}%`);
      lines.push(`sessions were (sampled once a second): ${shares.join(', ')}`);
    }
  }
  if ('unavailable' in server.statements) lines.push(`statements: ${server.statements.unavailable}`);
  else if (server.statements.top.length > 0) {
    const top = server.statements.top;
    const counted = top.filter((s) => s.planMs !== undefined);
    if (counted.length > 0) {
      // The server's own counters: planning apart from execution over the run, as PostgreSQL timed it.
      const plan = counted.reduce((n, s) => n + s.planMs!, 0);
      const all = plan + counted.reduce((n, s) => n + s.totalMs, 0);
      lines.push(
        `planning (the server's counters, pg_stat_statements with track_planning): ${plan.toFixed(0)} of ${all.toFixed(0)} ms of the top statements' server time` +
          ` (${all > 0 ? ((plan / all) * 100).toFixed(0) : '0'}%)${all > 0 && plan / all >= 0.5 ? ": most of the server's time went to planning" : ''}`,
      );
    }
    lines.push('top statements by total time:');
    const planned = counted.length > 0;
    const rows = top
      .slice(0, 5)
      .map((s) => [
        oneLine(s.statement),
        String(s.calls),
        s.totalMs.toFixed(0),
        ...(planned ? [(s.planMs ?? 0).toFixed(0)] : []),
        s.meanMs.toFixed(3),
        String(s.rows),
      ]);
    lines.push(...table([['statement', 'calls', 'total ms', ...(planned ? ['plan ms'] : []), 'mean ms', 'rows'], ...rows]).map((l) => `  ${l}`));
  }
  return lines;
}

/** Above this share of the machine's CPUs (percent) used by other processes, the run's figures are called unreliable. */
const OTHERS_UNRELIABLE = 25;

/**
 * How much of the server's time went to planning the statements, measured apart from executing
 * them, and what avoids it. Where the joins went as literal text, the verdict rests on parsing and
 * planning the text together (the planner's own time leaves out parsing and analysing it).
 */
export function planningLines(result: RunResult): string[] {
  const p = result.planning;
  if (!p) return [];
  const ms = (v: number): string => v.toFixed(3);
  const percent = (share: number): string => `${(Math.min(share, 9.99) * 100).toFixed(0)}%`;
  const joins = p.statements.map((s) => `${s.name}: ${ms(s.planningMs)} + ${ms(s.executionMs)} ms`).join('; ');
  const ofJoins =
    p.planningMsPerUnit + p.executionMsPerUnit > 0
      ? `${percent(p.planningMsPerUnit / (p.planningMsPerUnit + p.executionMsPerUnit))} of the joins' server time; `
      : '';
  const text = p.textOverheadMsPerUnit;
  const textCost = text === undefined ? '' : `parsing and planning the joins' literal text cost ${ms(text)} ms per unit beyond running them prepared`;
  let share: string;
  if (p.shareOfServerCpu === null) {
    const unmeasured = "the server's CPU per unit was not measured (server elsewhere, or a run shorter than the one-second sampling)";
    share = text === undefined ? unmeasured : `${textCost}; ${unmeasured}`;
  } else {
    const used = `the server's processes used ${ms(p.serverCpuMsPerUnit!)} ms of CPU per unit`;
    share =
      p.textShareOfServerCpu === undefined
        ? `${used}, so planning took ${mostOrPart(p.shareOfServerCpu)}: about ${percent(p.shareOfServerCpu)}`
        : `${used}; ${textCost}: ${mostOrPart(p.textShareOfServerCpu)}, about ${percent(p.textShareOfServerCpu)} ` +
          `(the planner alone about ${percent(p.shareOfServerCpu)})`;
  }
  return [
    `planning: ${ms(p.planningMsPerUnit)} ms planning and ${ms(p.executionMsPerUnit)} ms executing per unit (${ofJoins}${joins})`,
    `  ${share}`,
    `  measured by ${p.method}; what avoids it: ${p.avoidedBy}`,
    ...(p.statistics === undefined ? [] : [`  statistics: ${p.statistics}`]),
  ];
}

function mostOrPart(share: number): string {
  return share >= 0.5 ? "most of the server's time" : "part of the server's time";
}

/**
 * One line that says who was saturated. The client's main thread can use one core per job;
 * the machine has `cores` for client and server together when both run on it.
 */
export function verdict(result: RunResult, cores: number): string {
  const client = result.summary.clientCpu.percentOfOneCore;
  const jobs = result.config.jobs;
  const server = result.server?.host?.cpuPercentOfOneCore;
  const aborted = result.terminals.filter((t) => t.aborted !== undefined);
  if (aborted.length > 0) {
    // The client's share is over the measured period, part of which the aborted clients did not run.
    return `verdict: ${aborted.length} of ${result.terminals.length} client(s) aborted (${aborted[0]!.aborted}): the run did not put the load it was asked to, so it says nothing about saturation; fix the error and run again`;
  }
  const failing = result.failedWork?.[0];
  if (failing) {
    // A failed try costs the server less than a commit: its tps and CPU figures are of the failures.
    return `verdict: ${failing.failedPercent}% of ${failing.type}'s tries failed: the run measured failing work, not the load it was asked to, so it says nothing about saturation; ${failing.firstError?.errorClass === 'retryable' ? 'let its conflicts be tried again (--max-tries)' : 'fix what fails'} and run again`;
  }
  const machine = result.server?.machine;
  if (machine) {
    const others = Math.max(0, machine.cpuPercentOfOneCore - machine.clientCpuPercentOfOneCore - (server ?? 0));
    if (others > OTHERS_UNRELIABLE * cores) {
      const beside = `this client (${machine.clientCpuPercentOfOneCore.toFixed(0)}%)${server === undefined ? '' : ` and the server (${server.toFixed(0)}%)`}`;
      const used = `other processes used ${others.toFixed(0)}% of one core (${(others / cores).toFixed(0)}% of the machine's ${cores} cores) beside ${beside}`;
      return `verdict: unreliable: ${used}: they took CPU from the run, so its figures are unreliable; measure on a quiet machine`;
    }
  }
  if (client >= 90 * jobs) {
    return `verdict: the client was saturated (${client.toFixed(0)}% of a core with ${jobs} job(s)): the server could do more; raise -j or run the client on another machine`;
  }
  if (server === undefined) {
    return `verdict: the client used ${client.toFixed(0)}% of one core, so it was not the limit${result.target.embedded ? ` (${result.target.embedded} runs inside the client: its work is in that figure)` : '; the server runs elsewhere, so its CPU is not known'}`;
  }
  if (client + server >= 90 * cores) {
    return `verdict: the machine's ${cores} cores were saturated (server ${server.toFixed(0)}%, client ${client.toFixed(0)}% of one core): client and server compete for them`;
  }
  return `verdict: neither the client (${client.toFixed(0)}%) nor the server (${server.toFixed(0)}% of one core) used up the CPUs: the time went to waiting (commits, I/O, locks; see the sessions line)`;
}

/**
 * The server's own counters over the run, per transaction where that means something: the
 * counters cover connecting too, so not after a warm-up, whose transactions the summary leaves out.
 */
function activityLine(activity: Record<string, number>, result: RunResult): string {
  const transactions = result.summary.transactions;
  const perTransaction = result.config.warmupSeconds === 0 && transactions > 0;
  const items = Object.entries(activity).map(([name, grew]) => {
    const per = perTransaction ? ` (${(grew / transactions).toFixed(grew < transactions ? 3 : 1)} per transaction)` : '';
    return `${name.replace(/_/g, ' ')} ${grew.toLocaleString('en-US')}${per}`;
  });
  return `server activity (this database, every session, over the run): ${items.join(', ')}`;
}

function beforeAfter(before: number, after: number): string {
  const grew = after - before;
  return `${mb(before)} before, ${mb(after)} after (${grew >= 0 ? '+' : ''}${mb(grew)})`;
}

function mb(bytes: number): string {
  return `${(bytes / 1048576).toFixed(1)} MB`;
}

function oneLine(sql: string): string {
  const flat = sql.replace(/\s+/g, ' ').trim();
  return flat.length > 70 ? `${flat.slice(0, 67)}...` : flat;
}

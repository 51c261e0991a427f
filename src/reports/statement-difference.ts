import type { LoadedResult } from './input.js';

/**
 * Where runs sent their statements differently (chain --statements), what that did: the server's
 * CPU per unit and how much of its change the sampled planning accounts for, each run against the first.
 */
export function statementDifferenceLines(runs: readonly LoadedResult[]): string[] {
  const styles = runs.map((r) => r.result.config.statements?.style ?? '-');
  if (new Set(styles).size <= 1) return [];
  const described = runs.map(
    (r, i) => `${i + 1}: ${r.result.config.statements ? `${r.result.config.statements.style} (${r.result.config.statements.description})` : '-'}`,
  );
  const lines = [`statements sent differ: ${described.join('; ')}`];
  const first = runs[0]!.result;
  for (const [i, run] of runs.entries()) {
    if (i === 0 || styles[i] === styles[0]) continue;
    const r = run.result;
    const a = first.planning;
    const b = r.planning;
    const tps = first.summary.tps > 0 ? ` tps x${(r.summary.tps / first.summary.tps).toFixed(2)};` : '';
    if (!a || !b) {
      lines.push(`  ${i + 1} against 1:${tps} planning was not measured in both runs, so its part cannot be told`);
      continue;
    }
    const planning = b.planningMsPerUnit - a.planningMsPerUnit;
    const cpu = a.serverCpuMsPerUnit !== null && b.serverCpuMsPerUnit !== null ? b.serverCpuMsPerUnit - a.serverCpuMsPerUnit : null;
    const part =
      cpu !== null && cpu !== 0 && Math.sign(cpu) === Math.sign(planning)
        ? `, planning ${signed(planning)} ms of it (${Math.min(999, Math.round((planning / cpu) * 100))}%)`
        : '';
    lines.push(
      `  ${i + 1} against 1:${tps} planning per unit ${a.planningMsPerUnit.toFixed(3)} -> ${b.planningMsPerUnit.toFixed(3)} ms (${signed(planning)} ms, sampled)` +
        (cpu === null
          ? '; server CPU per unit not measured in both'
          : `; server CPU per unit ${a.serverCpuMsPerUnit!.toFixed(3)} -> ${b.serverCpuMsPerUnit!.toFixed(3)} ms (${signed(cpu)} ms${part})`) +
        `: the difference is ${Math.abs(planning) >= 0.05 ? 'planning the two joins at every call (literal text) against reusing a prepared plan' : 'not in planning'}`,
    );
  }
  return lines;
}

function signed(v: number): string {
  return `${v >= 0 ? '+' : ''}${v.toFixed(3)}`;
}

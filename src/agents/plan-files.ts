import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import type { OptionValues } from '../config/options.js';
import { isModulePath, moduleFiles } from '../module/load-module.js';
import { splitWeight } from '../workloads/pgbench-script/mix.js';
import type { AgentPlan } from './messages.js';

/** A file a run reads from disk, and why (for a refusal). */
interface RunFile {
  path: string;
  role: string;
}

/**
 * The files a run of `workload` reads from disk: its -f scripts, and for a workload module every
 * file esbuild builds it from (the module and the files it imports, at any depth). Paths are
 * given as the command line gave them (relative to the working folder when it did), so that an
 * agent finds them at the same place from its own.
 */
async function runFiles(workload: string, options: OptionValues): Promise<RunFile[]> {
  const given = options['file'];
  const files = (Array.isArray(given) ? given : []).map((spec) => ({ path: splitWeight(spec)[0], role: 'a -f script of the run' }));
  if (isModulePath(workload)) {
    const folder = dirname(resolve(workload));
    for (const file of await moduleFiles(workload)) {
      files.push({ path: join(dirname(workload), relative(folder, file)), role: `a file workload module ${workload} is built from` });
    }
  }
  return files;
}

function sha256Of(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** The coordinator's side: every file the run reads, by path and sha256, for each agent to hold the same. */
export async function planFiles(workload: string, options: OptionValues): Promise<AgentPlan['files']> {
  return (await runFiles(workload, options)).map(({ path }) => ({ path, sha256: sha256Of(path) }));
}

/**
 * The agent's side: nothing that runs comes over the bus, so each file the plan names must be on
 * this agent's disk with the plan's sha256, and every file the run would read here (each -f
 * script, the module and each file it imports) must be among them: the check covers only what is
 * listed. Undefined when the plan may run; else why not.
 */
export async function fileRefusal(plan: Pick<AgentPlan, 'files' | 'workload' | 'options'>): Promise<string | undefined> {
  for (const file of plan.files) {
    let sha256: string;
    try {
      sha256 = sha256Of(file.path);
    } catch {
      return `${file.path} is not on this agent's disk`;
    }
    if (sha256 !== file.sha256) return `${file.path} differs from the coordinator's (sha256 ${sha256.slice(0, 12)}, plan says ${file.sha256.slice(0, 12)})`;
  }
  let needed: RunFile[];
  try {
    needed = await runFiles(plan.workload, plan.options);
  } catch (error) {
    return `cannot tell which files its workload reads on this agent: ${(error as Error).message}`;
  }
  const listed = new Set(plan.files.map((file) => resolve(file.path)));
  const unlisted = needed.find((file) => !listed.has(resolve(file.path)));
  return unlisted && `the plan does not list ${unlisted.path}, ${unlisted.role}: every file an agent reads must be listed with its sha256`;
}

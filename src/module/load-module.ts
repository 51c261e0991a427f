import { createHash } from 'node:crypto';
import { existsSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { threadId } from 'node:worker_threads';
import { UserError } from '../errors.js';
import { registerModuleWorkload } from '../workloads/registry.js';
import { adaptDefinition, type ModuleWorkload } from './adapt.js';
import { validateDefinition } from './validate.js';
import { bundleLocator, withoutSourceMap } from './error-origin.js';
import { isModulePath } from './module-path.js';
import { keepLoadedModule, loadedModule, loadedModules } from './module-workload.js';
import type { WorkloadDefinition } from './api.js';

/** The import path of the public API, as a module names it. */
export const PACKAGE_NAME = 'headroom-oltp';

export { isModulePath };

export { loadedModule, loadedModules };

export interface Reserved {
  /** Built-in workloads' names, which a module may not take. */
  names: readonly string[];
  /** headroom's own option names, which a module's options may not shadow. */
  options: readonly string[];
}

/**
 * Loads a workload module (TypeScript or JavaScript) once per thread: bundles it with esbuild so
 * that its `import ... from 'headroom-oltp'` reaches this very copy of headroom wherever it is
 * installed, imports the bundle, checks its default export, and maps it onto the internal
 * workload contract. Anything wrong is a UserError naming the file and what is wrong.
 */
export async function loadWorkloadModule(text: string, reserved: Reserved): Promise<ModuleWorkload> {
  const known = loadedModule(text);
  if (known) return known;
  const path = resolve(text);
  if (!existsSync(path))
    throw new UserError(`workload module ${text} does not exist`, 'give the path of a .ts, .js or .mjs file, or a built-in workload (headroom list)');
  const source = readFileSync(path);
  const sha256 = createHash('sha256').update(source).digest('hex');
  const { code } = await bundle(path, text);
  const file = bundleFile(path);
  const exports = await importBundle(file, text, code);
  const definition = validateDefinition(text, exports['default'], reserved.names, reserved.options);
  const workload = adaptDefinition(
    definition,
    { path, sha256, loadSha256: loadCodeSha256(code, definition) },
    bundleLocator(pathToFileURL(file).href, code, dirname(path)),
  );
  keepLoadedModule(text, path, workload);
  registerModuleWorkload(text, path, workload);
  return workload;
}

/** The public API's file as the bundle imports it (its one import of headroom). */
const API_URL = pathToFileURL(fileURLToPath(new URL('../index.js', import.meta.url))).href;

/**
 * Every file a workload module is built from, by absolute path: the module and the files it
 * imports, at any depth, as esbuild bundles them (its npm packages stay imports, resolved from
 * beside it). An agent runs a module only when the plan vouches for each of them.
 */
export async function moduleFiles(text: string): Promise<string[]> {
  const path = resolve(text);
  if (!existsSync(path)) throw new UserError(`workload module ${text} does not exist`, 'give the path of a .ts, .js or .mjs file');
  const { inputs } = await bundle(path, text, true);
  // The module first: esbuild lists a file after the files it imports.
  return [path, ...inputs.filter((input) => input !== path)];
}

async function bundle(path: string, text: string, metafile = false): Promise<{ code: string; inputs: string[] }> {
  const esbuild = await import('esbuild');
  try {
    const built = await esbuild.build({
      entryPoints: [path],
      // The source map's paths and the bundle's file comments relative to the module's folder, wherever headroom is run from.
      absWorkingDir: dirname(path),
      bundle: true,
      // The module's own npm packages stay imports, resolved from beside the module as Node would.
      packages: 'external',
      format: 'esm',
      platform: 'node',
      target: 'node20',
      write: false,
      logLevel: 'silent',
      sourcemap: 'inline',
      metafile,
      plugins: [
        {
          name: 'headroom-api',
          setup(build) {
            build.onResolve({ filter: /^headroom-oltp$/ }, () => ({ path: API_URL, external: true }));
          },
        },
      ],
    });
    // The metafile names each input relative to absWorkingDir.
    const inputs = Object.keys(built.metafile?.inputs ?? {}).map((input) => resolve(dirname(path), input));
    return { code: built.outputFiles[0]!.text, inputs };
  } catch (error) {
    const first = (error as { errors?: { text: string; location?: { file: string; line: number; column: number } | null }[] }).errors?.[0];
    if (!first) throw error;
    const where = first.location ? `${first.location.line}:${first.location.column + 1}` : '';
    throw new UserError(`${text}${where ? `:${where}` : ''}: ${first.text}`, 'fix the module and run again', { cause: error });
  }
}

/**
 * Imports the bundle from a hidden file beside the module, so that the module's own imports of npm
 * packages resolve from its folder; the file is removed once imported. One name per process and
 * thread: -j's threads compile and import side by side.
 */
function bundleFile(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}-${threadId}.headroom.mjs`);
}

async function importBundle(file: string, text: string, code: string): Promise<Record<string, unknown>> {
  try {
    writeFileSync(file, code);
  } catch (error) {
    throw new UserError(`cannot write the compiled ${text} beside it (${(error as Error).message})`, 'put the module in a folder you can write to', {
      cause: error,
    });
  }
  try {
    return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    throw new UserError(
      `${text} threw when imported: ${error instanceof Error ? error.message : String(error)}`,
      'fix the module (--verbose shows the stack)',
      { cause: error },
    );
  } finally {
    try {
      unlinkSync(file);
    } catch {
      // Already gone: nothing to tidy.
    }
  }
}

/**
 * What load() is, as a sha256 kept with the data it loaded (load-marker.ts): the module's compiled
 * code (esbuild drops comments and prints the code its own way, so neither layout, comments nor
 * the file's name count) less the text of each transaction's prepare() and of check(), which do not make the data.
 * An edit of a transaction leaves it alone; an edit of load(), of a table's DDL, of the scale or
 * of a helper that load() may call changes it. Hashing load()'s own text alone would miss the
 * helpers it calls (the starter's rows()), and data that no longer matches its loader is the
 * worse error than a note after an edit that did not matter.
 */
function loadCodeSha256(code: string, definition: WorkloadDefinition): string {
  // esbuild heads each bundled file's code with a comment naming the file: a rename is no edit of load().
  let text = withoutSourceMap(code)
    .split(API_URL)
    .join('headroom-oltp')
    .replace(/^\/\/ .*\n/gm, '');
  const skipped = [...Object.values(definition.transactions).map((t) => t.prepare), ...(definition.check ? [definition.check] : [])];
  for (const fn of skipped) text = text.split(Function.prototype.toString.call(fn)).join('');
  return createHash('sha256').update(text).digest('hex');
}

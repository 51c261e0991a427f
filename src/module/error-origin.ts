import { SourceMap } from 'node:module';
import { isAbsolute, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const INLINE_MAP = /\n\/\/# sourceMappingURL=data:application\/json;base64,([A-Za-z0-9+/=]+)\s*$/;

/** The bundle's code without its inline source map: what ran, as esbuild printed it. */
export function withoutSourceMap(code: string): string {
  return code.replace(INLINE_MAP, '\n');
}

/**
 * Where in a module's own source an error was raised: the first frame of its stack (or of its
 * causes') in the hidden bundle, mapped back through the bundle's inline source map, as
 * `file:line:column` with the file relative to the working folder (as the user names it). Read
 * only when an error is first sampled, never per transaction; Node's own source-map support
 * (--enable-source-maps) is left off, so that no other stack pays for it. `folder`: what esbuild's
 * `sources` are relative to (its absWorkingDir).
 */
export function bundleLocator(bundleUrl: string, code: string, folder: string): (error: unknown) => string | undefined {
  let map: SourceMap | null | undefined;
  const sources = (): SourceMap | null => {
    if (map !== undefined) return map;
    const payload = INLINE_MAP.exec(code)?.[1];
    map =
      payload === undefined ? null : new SourceMap(JSON.parse(Buffer.from(payload, 'base64').toString('utf8')) as ConstructorParameters<typeof SourceMap>[0]);
    return map;
  };
  const frame = new RegExp(`${escape(bundleUrl)}:(\\d+):(\\d+)`);
  return (error) => {
    for (let e: unknown = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
      const found = frame.exec(e.stack ?? '');
      if (!found) continue;
      const entry = sources()?.findEntry(Number(found[1]) - 1, Number(found[2]) - 1) as
        { originalSource?: string; originalLine?: number; originalColumn?: number } | undefined;
      if (entry?.originalSource === undefined || entry.originalLine === undefined || entry.originalColumn === undefined) return undefined;
      return `${displayPath(entry.originalSource, folder)}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
    }
    return undefined;
  };
}

/** A source as the user would name it: relative to the working folder, unless it lies outside it. */
function displayPath(source: string, folder: string): string {
  const absolute = source.startsWith('file:') ? fileURLToPath(source) : resolve(folder, source);
  const near = relative(process.cwd(), absolute);
  return near === '' || near.startsWith('..') || isAbsolute(near) ? absolute : near;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

import { createRequire } from 'node:module';

/** headroom's version, from package.json; apart from build.ts so that `headroom --version` loads nothing else. */
export const TOOL_VERSION = (createRequire(import.meta.url)('../../../package.json') as { version: string }).version;

// `npm run lint`'s format step: prettier --check over the code (.prettierignore leaves out prose,
// data and build output); `npx prettier --write .` formats it.
import { spawnSync } from 'node:child_process';

const check = spawnSync('npx', ['prettier', '--check', '.'], { stdio: 'inherit' });
process.exit(check.status ?? 1);

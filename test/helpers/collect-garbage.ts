import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// V8's gc() without starting node with --expose-gc: the flag is set, then a new context gets the function.
setFlagsFromString('--expose-gc');

/** A full garbage collection now, for tests of what a structure keeps alive or lets go of. */
export const collectGarbage = runInNewContext('gc') as () => void;

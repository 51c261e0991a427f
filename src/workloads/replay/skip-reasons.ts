import { BEFORE_THE_LOG } from './capture-builder.js';
import { COPY_FROM_STDIN, PARAMETERS_NOT_LOGGED } from './postgres/records.js';

/** The skip reasons that each stand for a statement the server ran (the others are lines or protocol messages). */
export const STATEMENTS_LEFT_OUT: ReadonlySet<string> = new Set([BEFORE_THE_LOG, COPY_FROM_STDIN, PARAMETERS_NOT_LOGGED]);

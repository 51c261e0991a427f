import { UserError } from '../errors.js';
import { MAX_INT4 } from './limits.js';

/** More steps than this is a typo (`-c 1:10000:1`), not a plan anyone waits for. */
export const MAX_SWEEP_STEPS = 200;

const HINT = 'give -c N, a list -c 10,20,40, or a range -c START:END:STEP (additive) or START:END:xFACTOR (multiplicative), e.g. -c 10:200:10 or -c 1:256:x2';

/**
 * -c as the user wrote it: one count of clients, a comma list, or a range START:END:STEP
 * (START, START+STEP, ... up to END) or START:END:xF (each step the previous one times F, rounded,
 * and at least one more, up to END). Several counts make a sweep; counts must rise.
 */
export function parseClientSteps(text: string): number[] {
  const fail = (what: string): never => {
    throw new UserError(`-c ${text}: ${what}`, HINT);
  };
  const count = (part: string, name: string): number => {
    const value = Number(part);
    if (!/^-?\d+$/.test(part.trim())) fail(`${name} "${part}" is not a whole number`);
    if (value < 1) fail(`${name} must be at least 1, not ${value}`);
    if (value > MAX_INT4) fail(`${name} must be at most ${MAX_INT4}, not ${part.trim()}`);
    return value;
  };
  if (!/[,:]/.test(text)) {
    // One count, as -c always took: the messages every getopt-style option gives.
    if (!/^\s*-?\d+\s*$/.test(text)) throw new UserError(`--clients needs a whole number, not "${text}"`, HINT);
    if (Number(text) < 1) throw new UserError(`--clients must be at least 1, not ${text}`, HINT);
    if (Number(text) > MAX_INT4) throw new UserError(`--clients must be at most ${MAX_INT4}, not ${text.trim()}`, HINT);
    return [Number(text)];
  }
  let steps: number[];
  if (text.includes(':')) {
    const parts = text.split(':');
    if (parts.length !== 3) fail('a range has three parts, START:END:STEP or START:END:xFACTOR');
    const start = count(parts[0]!, 'the start');
    const end = count(parts[1]!, 'the end');
    if (end < start) fail(`the end ${end} is below the start ${start}`);
    const step = parts[2]!.trim();
    steps = [start];
    if (/^x/i.test(step)) {
      const factor = Number(step.slice(1));
      if (step.length === 1 || !Number.isFinite(factor)) fail(`the factor "${step}" is not a number (e.g. x2)`);
      if (factor <= 1) fail(`the factor must be more than 1, not ${step.slice(1)}`);
      for (
        let next = Math.max(start + 1, Math.round(start * factor));
        next <= end && steps.length <= MAX_SWEEP_STEPS;
        next = Math.max(next + 1, Math.round(next * factor))
      )
        steps.push(next);
    } else {
      const increment = count(step, 'the step');
      for (let next = start + increment; next <= end && steps.length <= MAX_SWEEP_STEPS; next += increment) steps.push(next);
    }
  } else {
    steps = text.split(',').map((part, _, all) => count(part, all.length > 1 ? 'every count of clients' : 'the count of clients'));
    for (let i = 1; i < steps.length; i++) if (steps[i]! <= steps[i - 1]!) fail(`list the counts in rising order (${steps[i]} after ${steps[i - 1]})`);
  }
  if (steps.length > MAX_SWEEP_STEPS) fail(`that is more than ${MAX_SWEEP_STEPS} steps`);
  return steps;
}

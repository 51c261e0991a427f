/**
 * A test whose prerequisite (a server, a tool, root) is missing: under CI=true it fails, so that a
 * green CI run means every test ran; elsewhere it is skipped. Either way `why` says what is missing
 * and how to get it. Returns true when the test must not go on.
 */
export function skipOrFail(t: { skip(message: string): void }, why: string | undefined): boolean {
  if (why === undefined) return false;
  if (process.env['CI'] === 'true') throw new Error(why);
  t.skip(why);
  return true;
}

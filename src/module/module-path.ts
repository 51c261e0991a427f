/** A command-line word that names a workload module rather than a built-in workload. */
export function isModulePath(text: string): boolean {
  return /\.(m?ts|m?js|cts|cjs)$/.test(text) && !text.startsWith('-');
}

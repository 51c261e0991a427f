/**
 * A wait on a server that may never answer: `work()`'s value, or `fallback` once `cut` aborts. When
 * `cut` has aborted already, `work` is not started (its request would only queue behind the one
 * that never came back). A rejection after the cut has nobody to tell and is dropped.
 */
export async function unlessCut<T>(work: () => Promise<T>, cut: AbortSignal | undefined, fallback: T): Promise<T> {
  if (cut === undefined) return work();
  if (cut.aborted) return fallback;
  const running = work();
  let onCut!: () => void;
  const cutShort = new Promise<T>((resolve) => {
    onCut = () => resolve(fallback);
    cut.addEventListener('abort', onCut, { once: true });
  });
  running.catch(() => undefined);
  try {
    return await Promise.race([running, cutShort]);
  } finally {
    cut.removeEventListener('abort', onCut);
  }
}

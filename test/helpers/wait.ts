/**
 * Waiting in tests. Wait on an event where there is one (a socket's 'data' or 'close', a child's
 * line); `until` is for state that has none, such as a store another process writes: it asks
 * again every few milliseconds. Its bound only stops a test that would otherwise hang, so it is
 * wide: a loaded machine must never decide an outcome.
 */
export async function until(check: () => boolean | Promise<boolean>, what: string, boundMs = 30_000): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > boundMs) throw new Error(`timed out after ${boundMs} ms waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

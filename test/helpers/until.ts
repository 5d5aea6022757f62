/**
 * Waits for a condition in end-to-end tests: polls `fn` until it gives a truthy value (returned) or `ms` pass (an
 * error naming `what`, with `detail()` appended, e.g. a process's log). Generous limits: a loaded CI machine is slow,
 * and the limit only matters when the test fails anyway.
 */
export async function until<T>(what: string, fn: () => T | Promise<T>, ms = 45_000, detail?: () => string): Promise<Exclude<T, undefined | null | false>> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v as Exclude<T, undefined | null | false>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${detail ? `; ${detail()}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

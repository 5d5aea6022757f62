/**
 * The child side of the bench's process protocol: arguments arrive as JSON in BENCH_ARGS (no argv length
 * limits), and the child reports with `@@<tag> <json>` lines on stdout, which the parent (lib/proc.ts) parses.
 */
import { createInterface } from 'node:readline';

/** The JSON arguments the parent passed. */
export function childArgs<T>(): T {
  return JSON.parse(process.env.BENCH_ARGS ?? '{}') as T;
}

/** Sends one tagged message to the parent. */
export function emit(tag: string, payload: unknown): void {
  process.stdout.write(`@@${tag} ${JSON.stringify(payload)}\n`);
}

/** Runs `main`, reports its value as `@@result`, and exits; any error exits 1 with the message on stderr. */
export function runMain(main: () => Promise<unknown>): void {
  main().then(
    (r) => {
      emit('result', r);
      process.exit(0);
    },
    (e: unknown) => {
      process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exit(1);
    },
  );
}

/** Resolves on the first stdin line that starts with `word` (the parent's "finish" signal); gives the rest. */
export function onStdinCommand(word: string): Promise<string> {
  return new Promise((resolve) => {
    let buf = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (d: string) => {
      buf += d;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (line.startsWith(word)) resolve(line.slice(word.length).trim());
      }
    });
  });
}

/** Wall-clock milliseconds with sub-µs resolution, comparable across processes on one host. */
export function nowMs(): number {
  return performance.timeOrigin + performance.now();
}

/** The parent's commands on stdin, one line each, until stdin ends (for children that run several rounds). */
export function stdinLines(): AsyncIterable<string> {
  return createInterface({ input: process.stdin, crlfDelay: Infinity });
}

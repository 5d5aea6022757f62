/**
 * A klog-style structured logger, writing kube-apiserver's default text format:
 *
 *   I1122 03:04:05.123456   12345 server.ts:42] "Message" key="value" key2=3
 *
 * Severity letter, month and day, local time with microseconds, process id padded to 7, source `file:line`
 * of the caller (or a fixed tag from `withSource`), then the quoted message and key=value pairs (strings
 * quoted as Go's strconv.Quote, multi-line strings in klog's `key=<` block form). Owned rather than pino:
 * kube's operators expect klog text, and pino's transports run in a worker thread.
 *
 * Lines are buffered and written together once per event-loop turn (or at 64 KiB, on an error line,
 * on `flush()` and at process exit), so that a burst of log lines costs one write.
 */
import { writeSync } from 'node:fs';
import { basename } from 'node:path';
import { goQuote } from './goquote.ts';

export type KeyValues = Readonly<Record<string, unknown>>;

/** Where lines go: a file descriptor (written synchronously) or anything with `write(string)`. */
export type LogOutput = number | { write(chunk: string): unknown };

/** Logging calls that take a message and optional key/value pairs. */
export interface Logger {
  info(msg: string, kv?: KeyValues): void;
  warning(msg: string, kv?: KeyValues): void;
  error(msg: string, kv?: KeyValues): void;
  /** klog's V(level): `info` writes only when the verbosity is at least `level`. */
  V(level: number): { enabled: boolean; info(msg: string, kv?: KeyValues): void };
  /** The same calls with a fixed source tag (e.g. `storage`) instead of the caller's file:line. */
  withSource(source: string): Logger;
}

const FLUSH_BYTES = 64 * 1024;
const PID = String(process.pid).padStart(7);

let verbosity = 0;
let output: LogOutput = 2;
let pending = '';
let flushScheduled = false;

/** Writes out what is buffered. */
function flush(): void {
  flushScheduled = false;
  if (pending === '') return;
  const chunk = pending;
  pending = '';
  if (typeof output !== 'number') {
    output.write(chunk);
    return;
  }
  const bytes = Buffer.from(chunk);
  for (let off = 0; off < bytes.length;) {
    try {
      off += writeSync(output, bytes, off);
    } catch (e) {
      // A non-blocking pipe may be full for a moment; anything else (closed stderr) drops the logs.
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') return;
    }
  }
}

process.on('exit', flush);

function emit(severity: 'I' | 'W' | 'E', source: string, msg: string, kv: KeyValues | undefined): void {
  pending += formatLine(severity, nowMicros(), source, msg, kv);
  if (severity === 'E' || pending.length >= FLUSH_BYTES) flush();
  else if (!flushScheduled) {
    flushScheduled = true;
    setImmediate(flush).unref();
  }
}

/** Wall-clock time in microseconds since the epoch. */
function nowMicros(): number {
  return Math.floor((performance.timeOrigin + performance.now()) * 1000);
}

const pad2 = (n: number) => String(n).padStart(2, '0');

/** One log line in klog text format, including the trailing newline. */
export function formatLine(severity: string, micros: number, source: string, msg: string, kv?: KeyValues): string {
  const d = new Date(Math.floor(micros / 1000));
  const us = String(micros % 1_000_000).padStart(6, '0');
  let line =
    `${severity}${pad2(d.getMonth() + 1)}${pad2(d.getDate())} ` +
    `${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}.${us} ${PID} ${source}] ${goQuote(msg)}`;
  if (kv) for (const key of Object.keys(kv)) line += ` ${key}=${formatValue(kv[key])}`;
  return line + '\n';
}

/** A value as klog's text format writes it. */
function formatValue(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return v.includes('\n') ? `<\n\t${v.replace(/\n$/, '').split('\n').join('\n\t')}\n >` : goQuote(v);
    case 'number':
    case 'bigint':
    case 'boolean':
      return String(v);
    case 'undefined':
      return '<nil>';
    case 'symbol':
    case 'function':
      return goQuote(String(v));
  }
  if (v === null) return '<nil>';
  if (v instanceof Error) return goQuote(v.message); // klog writes errors as their quoted Error()
  if (v instanceof Date) return goQuote(v.toISOString());
  // Objects with their own toString are Go Stringers; the rest are printed as JSON.
  if (!Array.isArray(v) && !(v instanceof Map) && (v as object).toString !== Object.prototype.toString) {
    return goQuote(String(v));
  }
  try {
    return JSON.stringify(v instanceof Map ? Object.fromEntries(v) : v) ?? '<nil>';
  } catch {
    return goQuote(String(v));
  }
}

const STACK_FRAME = /\(?(?:file:\/\/)?([^\s()]+):(\d+):\d+\)?$/;

/** `file.ts:line` of the frame that called `fn`, as klog prints `file.go:line`. */
function callerSource(fn: Function): string {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 1;
  const holder: { stack?: string } = {};
  Error.captureStackTrace(holder, fn);
  Error.stackTraceLimit = limit;
  const frame = holder.stack?.split('\n')[1]?.trim() ?? '';
  const m = STACK_FRAME.exec(frame);
  return m ? `${basename(m[1]!)}:${m[2]}` : '???:1';
}

const DISABLED: ReturnType<Logger['V']> = Object.freeze({ enabled: false, info: () => {} });

function makeLogger(source: string | undefined): Logger {
  const logger: Logger = {
    info: function info(msg, kv) {
      emit('I', source ?? callerSource(info), msg, kv);
    },
    warning: function warning(msg, kv) {
      emit('W', source ?? callerSource(warning), msg, kv);
    },
    error: function error(msg, kv) {
      emit('E', source ?? callerSource(error), msg, kv);
    },
    V(level) {
      // Asked on every request (the request log's -v=3): below the level there is nothing to build.
      if (verbosity < level) return DISABLED;
      return {
        enabled: true,
        info: function info(msg, kv) {
          emit('I', source ?? callerSource(info), msg, kv);
        },
      };
    },
    withSource: (tag) => makeLogger(tag),
  };
  return logger;
}

/** The process-wide logger. */
export const log: Logger & {
  setVerbosity(level: number): void;
  setOutput(out: LogOutput): void;
  flush(): void;
} = {
  ...makeLogger(undefined),
  /** Sets the `-v` level. */
  setVerbosity(level: number) {
    verbosity = level;
  },
  /** Redirects lines (after writing out what was buffered for the previous output). */
  setOutput(out: LogOutput) {
    flush();
    output = out;
  },
  flush,
};

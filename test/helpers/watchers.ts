/**
 * Many concurrent watch streams for the shutdown test, over HTTP/1.1 (one connection each) or multiplexed on
 * HTTP/2 sessions. Each records how it ended: cleanly (the response's end, for HTTP/2 with NO_ERROR) or broken
 * off, and whether any frame was an ERROR or not JSON.
 */
import http2 from 'node:http2';
import https from 'node:https';

export interface WatchRecord {
  transport: 'HTTP/1.1' | 'HTTP/2';
  path: string;
  status: number;
  frames: number;
  errorFrames: string[];
  badLines: number;
  /** Date.now() when the stream finished; undefined while open. */
  endedAt?: number;
  /** True when the server ended the response normally. */
  clean?: boolean;
  detail?: string;
}

export interface OpenWatch {
  record: WatchRecord;
  /** Resolves once the response headers arrived (or the request failed). */
  opened: Promise<void>;
  /** Resolves when the stream finished, one way or another. */
  done: Promise<void>;
  cancel(): void;
}

/** Splits a chunked NDJSON stream into frames and tallies them on the record. */
function frameCounter(record: WatchRecord): (chunk: Buffer | string) => void {
  let buf = '';
  return (chunk) => {
    buf += chunk.toString();
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (!line) continue;
      try {
        const frame = JSON.parse(line);
        record.frames++;
        if (frame.type === 'ERROR') record.errorFrames.push(line.slice(0, 300));
      } catch {
        record.badLines++;
      }
    }
  };
}

export function openH1Watch(port: number, agent: https.Agent, path: string): OpenWatch {
  const record: WatchRecord = { transport: 'HTTP/1.1', path, status: 0, frames: 0, errorFrames: [], badLines: 0 };
  let markOpened = () => {};
  const opened = new Promise<void>((r) => (markOpened = r));
  let req: ReturnType<typeof https.request>;
  const done = new Promise<void>((resolve) => {
    const finish = (clean: boolean, detail?: string) => {
      if (record.endedAt !== undefined) return;
      record.endedAt = Date.now();
      record.clean = clean;
      if (detail) record.detail = detail;
      markOpened();
      resolve();
    };
    req = https.request({ host: '127.0.0.1', port, method: 'GET', path, agent }, (res) => {
      record.status = res.statusCode ?? 0;
      markOpened();
      const count = frameCounter(record);
      res.on('data', count);
      res.on('end', () => finish(res.complete, res.complete ? undefined : 'incomplete response'));
      res.on('error', (e) => finish(false, e.message));
      res.on('close', () => finish(res.complete, res.complete ? undefined : 'closed before the end'));
    });
    req.on('error', (e) => finish(false, e.message));
    req.end();
  });
  return { record, opened, done, cancel: () => req.destroy() };
}

export function openH2Watch(session: http2.ClientHttp2Session, path: string): OpenWatch {
  const record: WatchRecord = { transport: 'HTTP/2', path, status: 0, frames: 0, errorFrames: [], badLines: 0 };
  let markOpened = () => {};
  const opened = new Promise<void>((r) => (markOpened = r));
  const stream = session.request({ ':method': 'GET', ':path': path }, { endStream: true });
  const done = new Promise<void>((resolve) => {
    let ended = false;
    stream.on('response', (h) => {
      record.status = Number(h[':status']);
      markOpened();
    });
    stream.on('data', frameCounter(record));
    stream.on('end', () => (ended = true));
    stream.on('error', (e) => (record.detail = e.message));
    stream.on('close', () => {
      record.endedAt = Date.now();
      record.clean = ended && stream.rstCode === http2.constants.NGHTTP2_NO_ERROR;
      if (!record.clean) record.detail ??= `rstCode ${stream.rstCode}, end ${ended}`;
      markOpened();
      resolve();
    });
  });
  return { record, opened, done, cancel: () => stream.close(http2.constants.NGHTTP2_CANCEL) };
}

/**
 * Test doubles for the filters: a request and a response that record what was written, without a socket. Only
 * tests import this.
 */
import { EventEmitter } from 'node:events';
import type { IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import type { Request, Response } from '../http-types.ts';

export function fakeRequest(method: string, url: string, headers: IncomingHttpHeaders = {}, socket: object = {}): Request {
  return { method, url, headers, socket: socket as Socket } as unknown as Request;
}

/** What a FakeResponse received. */
export interface Written {
  status: number;
  headers: Record<string, string | string[]>;
  body: string;
  destroyed: boolean;
}

export type FakeResponse = Response & { written: Written; closed: Promise<void> };

/** A response that emits 'close' (on the next turn) once ended or destroyed, as node's do. */
export function fakeResponse(): FakeResponse {
  const written: Written = { status: 0, headers: {}, body: '', destroyed: false };
  const ee = new EventEmitter();
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    setImmediate(() => ee.emit('close'));
  };
  const res = Object.assign(ee, {
    written,
    closed: new Promise<void>((resolve) => ee.once('close', resolve)),
    statusCode: 200,
    headersSent: false,
    setHeader(name: string, value: string | string[]) {
      written.headers[name.toLowerCase()] = value;
      return res;
    },
    getHeader(name: string) {
      return written.headers[name.toLowerCase()];
    },
    writeHead(status: number, headers?: Record<string, string | string[]>) {
      if (res.headersSent) throw Object.assign(new Error('Cannot write headers after they are sent to the client'), { code: 'ERR_HTTP_HEADERS_SENT' });
      res.statusCode = status;
      written.status = status;
      for (const [k, v] of Object.entries(headers ?? {})) written.headers[k.toLowerCase()] = v;
      res.headersSent = true;
      return res;
    },
    write(chunk: Buffer | string) {
      if (!res.headersSent) res.writeHead(res.statusCode);
      written.body += chunk.toString();
      return true;
    },
    end(body?: Buffer | string) {
      if (!res.headersSent) res.writeHead(res.statusCode);
      if (body !== undefined) written.body += body.toString();
      close();
      return res;
    },
    destroy() {
      written.destroyed = true;
      close();
      return res;
    },
  });
  return res as unknown as FakeResponse;
}

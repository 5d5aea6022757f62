/** Reading request bodies with upstream's size limit (3 MiB, `MaxRequestBodyBytes`). */
import { newRequestEntityTooLarge } from '../../apimachinery/errors.ts';
import type { Request } from '../http-types.ts';
import type { RequestContext } from './context.ts';

export const MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

export function readBody(req: Request, limit = MAX_REQUEST_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared > limit) {
    req.resume();
    return Promise.reject(newRequestEntityTooLarge(`Request entity too large: limit is ${limit}`));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (c: Buffer) => {
      if (failed) return;
      size += c.length;
      if (size > limit) {
        failed = true;
        chunks.length = 0;
        reject(newRequestEntityTooLarge(`Request entity too large: limit is ${limit}`));
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (!failed) resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    });
    req.on('error', (e) => {
      if (!failed) reject(e);
    });
  });
}

/** The request's body, its size noted for the metrics (upstream records only a body read in full). */
export async function readRequestBody(ctx: RequestContext): Promise<Buffer> {
  const body = await readBody(ctx.req);
  ctx.bodyBytes = body.length;
  return body;
}

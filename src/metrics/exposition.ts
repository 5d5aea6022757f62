/**
 * A registry's metrics in the format an Accept header picks, as promhttp picks it (negotiation.ts): shared by every
 * component that serves a metrics endpoint (the API server's /metrics and /metrics/slis, the corelet's endpoints).
 */
import { type Family } from './registry.ts';
import { negotiateExposition } from './negotiation.ts';
import { writeProtoText, writeProtobuf } from './protobuf.ts';
import { writeText } from './text.ts';

export interface Exposition {
  contentType: string;
  body: Buffer;
}

export function expose(families: readonly Family[], accept: string | undefined): Exposition {
  const { format, contentType } = negotiateExposition(accept);
  switch (format) {
    case 'protobuf-delimited': {
      const u8 = writeProtobuf(families);
      return { contentType, body: Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength) };
    }
    case 'protobuf-text':
      return { contentType, body: Buffer.from(writeProtoText(families, false)) };
    case 'protobuf-compact':
      return { contentType, body: Buffer.from(writeProtoText(families, true)) };
    case 'text':
      return { contentType, body: Buffer.from(writeText(families)) };
  }
}

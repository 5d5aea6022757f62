/**
 * One HTTP/2 frame as bytes (RFC 9113 §4.1), written out independently of the code under test, for tests that play a
 * raw peer: the etcd client's against a fake etcd, the server's against a client that ignores a GOAWAY.
 */
export function rawFrame(type: number, flags: number, id: number, payload: Buffer): Buffer {
  const h = Buffer.alloc(9);
  h.writeUIntBE(payload.length, 0, 3);
  h[3] = type;
  h[4] = flags;
  h.writeUInt32BE(id, 5);
  return Buffer.concat([h, payload]);
}

/**
 * A minimal protobuf (proto3) message writer: varint, 64-bit and length-delimited fields.
 * Hand-written because no protobuf library, .proto compiler or generated code is available offline, and the
 * one message tree we emit (gnostic OpenAPI v2) needs only these three wire types.
 */

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_LEN = 2;

export class ProtoWriter {
  private readonly parts: Buffer[] = [];

  private varint(value: bigint): void {
    // Negative int64 values are written as their 64-bit two's complement (10 bytes), as protobuf does.
    let v = value < 0n ? value + (1n << 64n) : value;
    const bytes: number[] = [];
    while (v > 0x7fn) {
      bytes.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    bytes.push(Number(v));
    this.parts.push(Buffer.from(bytes));
  }

  private tag(field: number, wire: number): void {
    this.varint(BigInt((field << 3) | wire));
  }

  /** A string field; proto3 leaves out the empty string. */
  string(field: number, value: string | undefined): this {
    if (value) this.bytes(field, Buffer.from(value, 'utf8'));
    return this;
  }

  /** One field per element (repeated strings are never packed). */
  strings(field: number, values: readonly string[] | undefined): this {
    for (const v of values ?? []) {
      this.tag(field, WIRE_LEN);
      const b = Buffer.from(v, 'utf8');
      this.varint(BigInt(b.length));
      this.parts.push(b);
    }
    return this;
  }

  bool(field: number, value: boolean | undefined): this {
    if (value) {
      this.tag(field, WIRE_VARINT);
      this.varint(1n);
    }
    return this;
  }

  /** A bool that is written even when false: a member of a oneof, whose presence carries meaning. */
  oneofBool(field: number, value: boolean): this {
    this.tag(field, WIRE_VARINT);
    this.varint(value ? 1n : 0n);
    return this;
  }

  int64(field: number, value: number | undefined): this {
    if (value) {
      this.tag(field, WIRE_VARINT);
      this.varint(BigInt(Math.trunc(value)));
    }
    return this;
  }

  double(field: number, value: number | undefined): this {
    if (value) {
      this.tag(field, WIRE_FIXED64);
      const b = Buffer.alloc(8);
      b.writeDoubleLE(value);
      this.parts.push(b);
    }
    return this;
  }

  bytes(field: number, value: Buffer): this {
    this.tag(field, WIRE_LEN);
    this.varint(BigInt(value.length));
    this.parts.push(value);
    return this;
  }

  /** An embedded message; written even when empty, since presence of a message field is meaningful. */
  message(field: number, value: ProtoWriter): this {
    return this.bytes(field, value.finish());
  }

  finish(): Buffer {
    return Buffer.concat(this.parts);
  }
}

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { encodeLiterals, HpackDecoder, HpackError, huffmanDecode } from './hpack.ts';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');

describe('HPACK decoder: RFC 7541 Appendix C', () => {
  it('C.4: requests with Huffman coding, the dynamic table carried from block to block', () => {
    const d = new HpackDecoder();
    assert.deepEqual(d.decode(hex('8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff')), [
      [':method', 'GET'], [':scheme', 'http'], [':path', '/'], [':authority', 'www.example.com'],
    ]);
    assert.deepEqual(d.decode(hex('8286 84be 5886 a8eb 1064 9cbf')), [
      [':method', 'GET'], [':scheme', 'http'], [':path', '/'], [':authority', 'www.example.com'], ['cache-control', 'no-cache'],
    ]);
    assert.deepEqual(d.decode(hex('8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf')), [
      [':method', 'GET'], [':scheme', 'https'], [':path', '/index.html'], [':authority', 'www.example.com'], ['custom-key', 'custom-value'],
    ]);
  });

  it('C.6: responses with Huffman coding in a 256-byte table, entries evicted as it fills', () => {
    const d = new HpackDecoder(256);
    d.decode(hex('4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3'));
    assert.deepEqual(d.decode(hex('4883 640e ffc1 c0bf')), [
      [':status', '307'], ['cache-control', 'private'], ['date', 'Mon, 21 Oct 2013 20:13:21 GMT'], ['location', 'https://www.example.com'],
    ]);
    assert.deepEqual(
      d.decode(hex('88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07')),
      [
        [':status', '200'], ['cache-control', 'private'], ['date', 'Mon, 21 Oct 2013 20:13:22 GMT'], ['location', 'https://www.example.com'],
        ['content-encoding', 'gzip'], ['set-cookie', 'foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1'],
      ],
    );
  });

  it('a table size update shrinks the table; one above what was advertised is an error', () => {
    const d = new HpackDecoder(256);
    d.decode(hex('4882 6402')); // :status 302, indexed as 62
    assert.deepEqual(d.decode(hex('20')), []); // size 0: the entry goes
    assert.throws(() => d.decode(hex('be')), HpackError);
    assert.throws(() => new HpackDecoder(256).decode(hex('3fe1 1f')), /above the advertised/); // 4096
  });

  it('refuses bad Huffman: EOS in the string, or padding that is not the EOS prefix', () => {
    assert.equal(huffmanDecode(hex('f1e3 c2e5 f23a 6ba0 ab90 f4ff')), 'www.example.com');
    assert.throws(() => huffmanDecode(hex('ffff ffff')), /EOS|invalid/);
    assert.throws(() => huffmanDecode(hex('00')), /padding/); // '0' (00000) then 000: padding of zeros
    assert.throws(() => huffmanDecode(hex('f1e3 c2e5 f23a 6ba0 ab90 f4ff ff')), /padding/); // 8 bits of padding
  });

  it('refuses truncated blocks and indexes beyond the tables', () => {
    assert.throws(() => new HpackDecoder().decode(hex('44 85')), HpackError);
    assert.throws(() => new HpackDecoder().decode(hex('ff 80')), HpackError);
    assert.throws(() => new HpackDecoder().decode(hex('80')), /index 0/);
  });
});

describe('HPACK literals without indexing', () => {
  it('round-trips through the decoder, static names by index, and leaves the dynamic table empty', () => {
    const fields = [[':method', 'POST'], [':scheme', 'http'], [':path', '/etcdserverpb.KV/Txn'], [':authority', '127.0.0.1:2379'], ['content-type', 'application/grpc'], ['te', 'trailers']] as const;
    const block = encodeLiterals(fields);
    assert.equal(block[0], 0x83, ':method POST is static entry 3');
    const d = new HpackDecoder();
    assert.deepEqual(d.decode(block), fields);
    assert.throws(() => d.decode(hex('be')), /beyond the table/);
    const long = 'x'.repeat(300);
    assert.deepEqual(new HpackDecoder().decode(encodeLiterals([['x-long', long]])), [['x-long', long]]);
  });
});

/**
 * A CA and a 127.0.0.1 serving certificate for test servers, made with @peculiar/x509 the way src/cmd/x509gen.ts
 * makes the server's own (ECDSA P-256, SHA-256). Kept here rather than imported: the auth layer may not depend on
 * cmd, test support included.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { KeyObject, randomBytes, webcrypto } from 'node:crypto';

x509.cryptoProvider.set(webcrypto as never);

const EC_P256 = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING = { name: 'ECDSA', hash: 'SHA-256' } as const;

export interface LoopbackPKI {
  readonly caPem: string;
  readonly certPem: string;
  readonly keyPem: string;
}

export async function newLoopbackPKI(): Promise<LoopbackPKI> {
  const gen = () => webcrypto.subtle.generateKey(EC_P256, true, ['sign', 'verify']) as Promise<webcrypto.CryptoKeyPair>;
  const [caKey, leafKey] = await Promise.all([gen(), gen()]);
  const now = Date.now();
  const validity = { notBefore: new Date(now - 60_000), notAfter: new Date(now + 86_400_000) };
  const caName = new x509.Name([{ CN: ['test-oidc-ca'] }]);
  const ca = await x509.X509CertificateGenerator.create({
    serialNumber: randomBytes(8).toString('hex').replace(/^./, '1'),
    subject: caName,
    issuer: caName,
    ...validity,
    signingAlgorithm: SIGNING,
    publicKey: caKey.publicKey,
    signingKey: caKey.privateKey,
    extensions: [new x509.BasicConstraintsExtension(true, undefined, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.digitalSignature, true)],
  });
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: randomBytes(8).toString('hex').replace(/^./, '2'),
    subject: new x509.Name([{ CN: ['127.0.0.1'] }]),
    issuer: caName,
    ...validity,
    signingAlgorithm: SIGNING,
    publicKey: leafKey.publicKey,
    signingKey: caKey.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([{ type: 'ip', value: '127.0.0.1' }]),
    ],
  });
  const keyPem = KeyObject.from(leafKey.privateKey).export({ type: 'pkcs8', format: 'pem' }) as string;
  return { caPem: ca.toString('pem') + '\n', certPem: leaf.toString('pem') + '\n', keyPem };
}

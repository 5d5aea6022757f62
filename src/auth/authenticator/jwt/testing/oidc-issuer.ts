/**
 * A test-only OIDC issuer on loopback HTTPS: its own CA and serving certificate (made as the server makes its
 * own, with @peculiar/x509; loopback-pki.ts), a discovery document and a JWKS whose keys can be rotated, and tokens signed with
 * jose. Counts its requests so tests can see when the authenticator fetched keys.
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';
import { newLoopbackPKI } from './loopback-pki.ts';

export interface SigningKeyPair {
  readonly kid: string;
  readonly alg: 'RS256' | 'ES256';
  readonly privateKey: Parameters<SignJWT["sign"]>[0];
  readonly publicJWK: JWK;
}

export async function newKeyPair(kid: string, alg: 'RS256' | 'ES256'): Promise<SigningKeyPair> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const publicJWK = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return { kid, alg, privateKey, publicJWK };
}

export class TestOIDCIssuer {
  /** The issuer URL (also the `iss` of its tokens), `https://127.0.0.1:<port>[/path]`. */
  url = '';
  caPem = '';
  /** Keys published in the JWKS. */
  published: SigningKeyPair[] = [];
  requests = { discovery: 0, jwks: 0 };
  /** Overrides of the discovery document (e.g. a wrong issuer). */
  discoveryOverride: Record<string, unknown> = {};
  /** Extra response headers of the JWKS (e.g. Cache-Control). */
  jwksHeaders: Record<string, string> = {};
  /** The JWKS answer's status (anything but 200 is an issuer in trouble: the body is then an error text). */
  jwksStatus = 200;
  #server: Server | undefined;
  #serving: { certPem: string; keyPem: string } | undefined;

  constructor(
    private readonly path = '',
    readonly discoveryPath = '/.well-known/openid-configuration',
  ) {}

  /** Listens on `port` (0: any); a restarted issuer keeps its CA and certificate, as a real one would. */
  async start(port = 0): Promise<this> {
    if (!this.#serving) {
      const pki = await newLoopbackPKI();
      this.caPem = pki.caPem;
      this.#serving = { certPem: pki.certPem, keyPem: pki.keyPem };
    }
    this.#server = createServer({ cert: this.#serving.certPem, key: this.#serving.keyPem }, (req, res) => {
      const jwksPath = `${this.path}/keys`;
      if (req.url === this.discoveryPath || req.url === `${this.path}${this.discoveryPath}`) {
        this.requests.discovery++;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ issuer: this.url, jwks_uri: `${this.origin}${jwksPath}`, ...this.discoveryOverride }));
      } else if (req.url === jwksPath) {
        this.requests.jwks++;
        if (this.jwksStatus !== 200) {
          res.writeHead(this.jwksStatus).end('key set unavailable');
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json', ...this.jwksHeaders });
        res.end(this.jwksBody());
      } else {
        res.writeHead(404).end('not found');
      }
    });
    await new Promise<void>((resolve) => this.#server!.listen(port, '127.0.0.1', resolve));
    this.url = `${this.origin}${this.path}`;
    return this;
  }

  /** The JWKS document as served. */
  jwksBody(): string {
    return JSON.stringify({ keys: this.published.map((k) => k.publicJWK) });
  }

  get origin(): string {
    return `https://127.0.0.1:${(this.#server!.address() as AddressInfo).port}`;
  }

  get port(): number {
    return (this.#server!.address() as AddressInfo).port;
  }

  /** A token with `claims` (iss defaults to this issuer, exp to an hour from now) signed by `key`. */
  sign(key: SigningKeyPair, claims: JWTPayload, header: Record<string, unknown> = {}): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ iss: this.url, iat: now, exp: now + 3600, ...claims }).setProtectedHeader({ alg: key.alg, kid: key.kid, ...header }).sign(key.privateKey);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (!this.#server) return resolve();
      this.#server.closeAllConnections();
      this.#server.close(() => resolve());
      this.#server = undefined;
    });
  }
}

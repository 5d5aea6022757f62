/**
 * An API server in this process, serving whatever resource scopes a test registers (the CLI serves only Events):
 * the same PKI, kubeconfig, filter chain, routing, discovery and OpenAPI as `npm start`, with the test's resources.
 */
import https from 'node:https';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensurePki } from '../../src/cmd/certs.ts';
import { writeAdminKubeconfig } from '../../src/cmd/kubeconfig.ts';
import type { ResourceScope } from '../../src/registry/rest/scope.ts';
import { installAPIs } from '../../src/server/apis.ts';
import { HealthChecks } from '../../src/server/healthz.ts';
import { APIServer } from '../../src/server/server.ts';
import type { AdmissionChain } from '../../src/admission/chain.ts';
import { UnionAuthenticator } from '../../src/auth/authenticator/union.ts';
import { GROUP_MASTERS } from '../../src/auth/authenticator/user.ts';
import { X509Authenticator } from '../../src/auth/authenticator/x509.ts';
import { PrivilegedGroupsAuthorizer } from '../../src/auth/authorizer/privileged-groups.ts';
import { UnionAuthorizer } from '../../src/auth/authorizer/union.ts';
import type { HttpResult } from './server.ts';

export interface InProcessServer {
  port: number;
  dataDir: string;
  kubeconfig: string;
  request(method: string, path: string, body?: string | object, headers?: Record<string, string>): Promise<HttpResult>;
  stop(): Promise<void>;
}

export async function startInProcessServer(scopes: ResourceScope[], opts: { admission?: AdmissionChain } = {}): Promise<InProcessServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'core-apiserver-inproc-'));
  const pki = await ensurePki(dataDir, { hosts: ['127.0.0.1'] });
  let address = '127.0.0.1:0';
  const apis = installAPIs(scopes, { serverAddress: () => address });
  const server = new APIServer({
    bindAddress: '127.0.0.1',
    port: 0,
    tls: { cert: pki.serverCertPem, key: pki.serverKeyPem, clientCA: pki.caCertPem },
    scopes,
    ...(opts.admission ? { admission: opts.admission } : {}),
    health: new HealthChecks(),
    authenticator: new UnionAuthenticator([new X509Authenticator()]),
    authorizer: new UnionAuthorizer([new PrivilegedGroupsAuthorizer([GROUP_MASTERS])]),
    ...apis,
    maxRequestsInflight: 0,
    maxMutatingRequestsInflight: 0,
    requestTimeoutMs: 60_000,
  });
  const port = await server.listen();
  address = `127.0.0.1:${port}`;
  const kubeconfig = join(dataDir, 'admin.kubeconfig');
  writeAdminKubeconfig(kubeconfig, { server: `https://127.0.0.1:${port}`, caPem: pki.caCertPem, certPem: pki.adminCertPem, keyPem: pki.adminKeyPem });
  const agent = new https.Agent({ keepAlive: true, ca: pki.caCertPem, cert: pki.adminCertPem, key: pki.adminKeyPem });
  return {
    port,
    dataDir,
    kubeconfig,
    request(method, path, body, headers = {}) {
      const payload = body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
      return new Promise((resolve, reject) => {
        const req = https.request(
          { host: '127.0.0.1', port, method, path, agent, headers: { ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}), ...headers } },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => {
              const raw = Buffer.concat(chunks);
              const text = raw.toString('utf8');
              resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, raw, json: () => JSON.parse(text) });
            });
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        if (payload) req.write(payload);
        req.end();
      });
    },
    async stop() {
      agent.destroy();
      await server.shutdown(5000);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

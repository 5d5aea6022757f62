/**
 * The layering the README describes, checked on the import graph of src/ (test files excluded): lower layers never
 * import upper ones, and no module imports itself through others (a cycle makes load order and refactoring
 * fragile).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const SRC = resolve(import.meta.dirname, '..', 'src');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sources(p);
    // Test support (fixtures, conformance suites) may use any layer: it is not part of the server.
    if (name === 'testing' || name === 'testing.ts') return [];
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [p] : [];
  });
}

/** Module → the src modules it imports (type-only imports count: they tie the layers together just the same). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sources(SRC)) {
    const text = readFileSync(file, 'utf8');
    const deps = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+\.ts)'/g)].map((m) => relative(SRC, resolve(dirname(file), m[1]!)));
    graph.set(relative(SRC, file), [...new Set(deps)]);
  }
  return graph;
}

const graph = importGraph();
const layer = (module: string) => module.split('/')[0]!;

/** The build's version and feature gates: facts every layer may read. */
const BASE = ['util', 'version.ts', 'features.ts'];

/** What each top-level folder may import besides itself. */
const ALLOWED: Record<string, string[]> = {
  util: [],
  metrics: [...BASE],
  // The process's tracer and span helpers: the OpenTelemetry API, nothing of the server.
  tracing: [...BASE],
  // Configuration files (TracingConfiguration, AuthenticationConfiguration): decoding and upstream's validation
  // texts; CEL expressions in them are compiled at load.
  config: ['apis', 'apimachinery', 'cel', ...BASE],
  // CEL environments and the Kubernetes function library (its format library checks names with apimachinery's
  // validation, as upstream's does).
  cel: ['apimachinery', ...BASE],
  apis: ['apimachinery', ...BASE],
  apimachinery: ['apis', ...BASE],
  storage: ['apis', 'apimachinery', 'metrics', 'tracing', ...BASE],
  admission: ['apis', 'apimachinery', ...BASE],
  auth: ['apis', 'apimachinery', 'cel', 'config', ...BASE],
  registry: ['apis', 'apimachinery', 'storage', 'admission', 'metrics', ...BASE],
  server: ['apis', 'apimachinery', 'storage', 'admission', 'auth', 'registry', 'metrics', 'tracing', ...BASE],
  // A client of the API server (kubeconfig, REST, the EventRecorder): speaks the API types, knows no server part.
  client: ['apis', 'apimachinery', ...BASE],
  // The node agent: its own process, reading quantities (cel's parser) and names as the API server does, reaching
  // the API server as a client, serving its metrics from the same registry and catalogue, and authenticating and
  // authorizing its own API with the authenticators and authorizers of auth (kubelet builds on apiserver's
  // authentication and authorization packages the same way).
  corelet: ['apimachinery', 'cel', 'client', 'metrics', 'auth', ...BASE],
  cmd: ['apis', 'apimachinery', 'storage', 'admission', 'auth', 'registry', 'server', 'metrics', 'tracing', 'cel', 'config', 'corelet', 'client', ...BASE],
};

describe('architecture', () => {
  it('has the layers the README names', () => {
    for (const l of ['apimachinery', 'apis', 'storage', 'registry', 'server', 'cmd', 'admission', 'tracing', 'config', 'client']) assert.ok([...graph.keys()].some((m) => layer(m) === l), l);
  });

  it('lower layers never import upper ones', () => {
    const bad: string[] = [];
    for (const [module, deps] of graph) {
      const allowed = ALLOWED[layer(module)];
      if (!allowed) continue;
      for (const d of deps) if (layer(d) !== layer(module) && !allowed.includes(layer(d))) bad.push(`${module} → ${d}`);
    }
    assert.deepEqual(bad, []);
  });

  it('apimachinery knows no resource: of the API types it uses only meta/v1', () => {
    const bad = [...graph].flatMap(([m, deps]) => (layer(m) === 'apimachinery' ? deps.filter((d) => layer(d) === 'apis' && !d.startsWith('apis/meta/')) : []).map((d) => `${m} → ${d}`));
    assert.deepEqual(bad, []);
  });

  it('only the tracing provider loads the OpenTelemetry SDK, and only when tracing is turned on', () => {
    // Everything else may use the API (no-op until a provider is set): a server without --tracing-config-file
    // (and without a KMS provider) never loads the SDK, the exporter or gRPC.
    const bad: string[] = [];
    for (const file of sources(SRC)) {
      const module = relative(SRC, file);
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/^import\s+(type\s+)?[^;]*?from\s*'([^']+)'/gm)) {
        const [, typeOnly, pkg] = m;
        // The etcd3 backend's client is gRPC: cmd loads the backend (dynamically) only with --storage-backend=etcd3.
        if (module === 'storage/etcd3/client.ts' && pkg === '@grpc/grpc-js') continue;
        if ((pkg!.startsWith('@opentelemetry/') && pkg !== '@opentelemetry/api') || pkg!.startsWith('@grpc/')) {
          if (!typeOnly) bad.push(`${module} imports ${pkg} at load`);
        }
      }
      for (const m of text.matchAll(/import\(\s*'([^']+)'\s*\)/g)) {
        // The KMS v2 client loads gRPC on demand too, only when an encryption configuration names a KMS provider.
        const onDemand = module === 'tracing/provider.ts' || (module === 'storage/value/kmsv2/service.ts' && m[1] === '@grpc/grpc-js');
        if (!onDemand && (m[1]!.startsWith('@opentelemetry/') || m[1]!.startsWith('@grpc/'))) bad.push(`${module} loads ${m[1]}`);
      }
    }
    assert.deepEqual(bad, []);
  });

  it('no import cycles', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'active' | 'done'>();
    const stack: string[] = [];
    const visit = (m: string): void => {
      state.set(m, 'active');
      stack.push(m);
      for (const d of graph.get(m) ?? []) {
        if (state.get(d) === 'active') cycles.push([...stack.slice(stack.indexOf(d)), d].join(' → '));
        else if (!state.has(d)) visit(d);
      }
      stack.pop();
      state.set(m, 'done');
    };
    for (const m of [...graph.keys()].sort()) if (!state.has(m)) visit(m);
    assert.deepEqual(cycles, []);
  });
});

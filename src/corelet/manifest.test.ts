import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseManifest } from './manifest.ts';

const ok = `apiVersion: v1
kind: Pod
metadata: {name: web, namespace: kube-system}
spec:
  restartPolicy: OnFailure
  containers:
  - name: app
    command: [node, server.js]
    args: [--port, "8080"]
    workingDir: /srv
    env: [{name: MODE, value: prod}, {name: EMPTY}]
    resources: {limits: {cpu: "1.5", memory: 128Mi}, requests: {cpu: 250m}}
    livenessProbe: {httpGet: {path: /healthz, port: 8080}, periodSeconds: 5}
    readinessProbe: {exec: {command: ["true"]}}
`;

describe('static pod manifests', () => {
  it('decodes what the corelet uses, naming the pod <name>-<node>', () => {
    const p = parseManifest(ok, '/etc/pods/web.yaml', 'node-a');
    assert.equal(p.name, 'web-node-a');
    assert.equal(p.namespace, 'kube-system');
    assert.equal(p.restartPolicy, 'OnFailure');
    assert.equal(p.terminationGracePeriodSeconds, 30);
    assert.equal(p.qos, 'Burstable');
    const c = p.containers[0]!;
    assert.deepEqual(c.command, ['node', 'server.js']);
    assert.deepEqual(c.args, ['--port', '8080']);
    assert.deepEqual(c.env, [{ name: 'MODE', value: 'prod' }, { name: 'EMPTY', value: '' }]);
    assert.deepEqual(c.limits, { cpu: 1500, memory: 128 * 1024 * 1024 });
    assert.deepEqual(c.requests, { cpu: 250 });
    assert.equal(c.livenessProbe?.httpGet?.port, 8080);
    assert.equal(c.livenessProbe?.periodSeconds, 5);
    assert.equal(c.livenessProbe?.failureThreshold, 3);
    assert.deepEqual(c.readinessProbe?.exec, { command: ['true'] });
    // 0 and absent are the API server's defaults.
    assert.deepEqual(c.readinessProbe, { exec: { command: ['true'] }, initialDelaySeconds: 0, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
    assert.deepEqual(c.livenessProbe?.httpGet, { path: '/healthz', port: 8080, scheme: 'HTTP', httpHeaders: [] });
    assert.match(p.uid, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  it('reads JSON too; the UID follows the content, the node and the file', () => {
    const json = JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'j' }, spec: { containers: [{ name: 'c', command: ['true'] }] } });
    const a = parseManifest(json, '/m/j.json', 'n');
    assert.equal(a.restartPolicy, 'Always');
    assert.equal(a.namespace, 'default');
    assert.equal(a.qos, 'BestEffort');
    assert.equal(parseManifest(json, '/m/j.json', 'n').uid, a.uid);
    assert.notEqual(parseManifest(json, '/m/k.json', 'n').uid, a.uid);
    assert.notEqual(parseManifest(json.replace('"true"', '"false"'), '/m/j.json', 'n').uid, a.uid);
  });

  it('a pod whose containers all have equal requests and limits is Guaranteed', () => {
    const g = parseManifest(ok.replace('requests: {cpu: 250m}', 'requests: {cpu: 1500m}'), 'f', 'n');
    assert.equal(g.qos, 'Guaranteed');
  });

  it('refuses what it cannot run, naming the field', () => {
    const bad: Array<[string, RegExp]> = [
      ['garbage: [', /^could not decode/],
      ['apiVersion: v1\nkind: Service\n', /expected apiVersion "v1" and kind "Pod"/],
      ['apiVersion: v1\nkind: Pod\nspec: {}\n', /metadata\.name: Required value/],
      ['apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: []}\n', /spec\.containers: Required value/],
      ['apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: [{name: A, command: [x]}]}\n', /spec\.containers\[0\]\.name: Invalid value: "A"/],
      ['apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: [{name: a}]}\n', /spec\.containers\[0\]\.command: Required value/],
      ['apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: [{name: a, command: [x]}, {name: a, command: [y]}]}\n', /spec\.containers\[1\]\.name: Duplicate value/],
      ['apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {restartPolicy: Sometimes, containers: [{name: a, command: [x]}]}\n', /spec\.restartPolicy: Unsupported value: "Sometimes"/],
      ['apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: [{name: a, command: [x], resources: {limits: {memory: lots}}}]}\n', /resources\.limits\.memory: Invalid value: "lots"/],
      ['apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: [{name: a, command: [x], resources: {limits: {cpu: 1}, requests: {cpu: 2}}}]}\n', /must be less than or equal to cpu limit/],
      ['apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: [{name: a, command: [x], env: [{name: E, valueFrom: {}}]}]}\n', /env\[0\]\.valueFrom: Unsupported value/],
      [`apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: [{name: a, command: [x], livenessProbe: {periodSeconds: -1, exec: {command: [y]}}}]}\n`, /^spec\.containers\[0\]\.livenessProbe\.periodSeconds: Invalid value: -1: must be greater than or equal to 0$/],
      [`apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: [{name: a, command: [x], livenessProbe: {}}]}\n`, /^spec\.containers\[0\]\.livenessProbe: Required value: must specify a handler type$/],
      [`apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: [{name: a, command: [x], livenessProbe: {exec: {command: [y]}, tcpSocket: {port: 1}}}]}\n`, /^spec\.containers\[0\]\.livenessProbe\.tcpSocket: Forbidden: may not specify more than 1 handler type$/],
      [`apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: [{name: a, command: [x], livenessProbe: {successThreshold: 2, exec: {command: [y]}}}]}\n`, /^spec\.containers\[0\]\.livenessProbe\.successThreshold: Invalid value: 2: must be 1$/],
      [`apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: [{name: a, command: [x], startupProbe: {successThreshold: 3, exec: {command: [y]}}}]}\n`, /^spec\.containers\[0\]\.startupProbe\.successThreshold: Invalid value: 3: must be 1$/],
      [`apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: [{name: a, command: [x], readinessProbe: {exec: {command: []}}}]}\n`, /^spec\.containers\[0\]\.readinessProbe\.exec\.command: Required value$/],
      [`apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: [{name: a, command: [x], readinessProbe: {httpGet: {port: 70000}}}]}\n`, /^spec\.containers\[0\]\.readinessProbe\.httpGet\.port: Invalid value: 70000: must be between 1 and 65535, inclusive$/],
      [`apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: [{name: a, command: [x], readinessProbe: {httpGet: {port: Web_Port}}}]}\n`, /httpGet\.port: Invalid value: "Web_Port": must contain only alpha-numeric characters \(a-z, 0-9\), and hyphens \(-\)/],
      [`apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: [{name: a, command: [x], readinessProbe: {httpGet: {port: 80, scheme: FTP}}}]}\n`, /^spec\.containers\[0\]\.readinessProbe\.httpGet\.scheme: Unsupported value: "FTP": supported values: "HTTP", "HTTPS"$/],
      [`apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: [{name: a, command: [x], readinessProbe: {httpGet: {port: 80, httpHeaders: [{name: 'a b', value: x}]}}}]}\n`, /httpGet\.httpHeaders: Invalid value: "a b": a valid HTTP header must consist of alphanumeric characters or '-'/],
      [`apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: [{name: a, command: [x], readinessProbe: {grpc: {port: 80}}}]}\n`, /^spec\.containers\[0\]\.readinessProbe\.grpc: Unsupported value/],
      [`apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: [{name: a, command: [x], livenessProbe: {terminationGracePeriodSeconds: 0, exec: {command: [y]}}}]}\n`, /livenessProbe\.terminationGracePeriodSeconds: Invalid value: 0: must be greater than 0$/],
      [`apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: [{name: a, command: [x], ports: [{containerPort: 0}]}]}\n`, /^spec\.containers\[0\]\.ports\[0\]\.containerPort: Required value$/],
    ];
    for (const [text, re] of bad) assert.throws(() => parseManifest(text, 'f', 'n'), { name: 'ManifestError', message: re }, text);
  });
});

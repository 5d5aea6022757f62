/**
 * CSR validation (upstream texts and field paths), the node certificate shapes (IsKubeletClientCSR /
 * IsKubeletServingCSR) and the approver's decisions, on real PKCS#10 requests made with real keys.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CertificateSigningRequest } from '../../apis/certificates/v1/types.ts';
import { makeCSR, type CSRRequest } from '../../corelet/certificates.ts';
import { SERVING_APPROVAL_MESSAGE, decideApproval } from './approver.ts';
import { validateKubeletClientCSR, validateKubeletServingCSR } from './kubelet-csr.ts';
import { parseCSR } from './request.ts';
import { csrCondition } from './table.ts';
import { validateCertificateSigningRequest, validateCertificateSigningRequestApprovalUpdate, validateCertificateSigningRequestStatusUpdate, validateCertificateSigningRequestUpdate } from './validation.ts';

const CLIENT: CSRRequest = { signerName: 'kubernetes.io/kube-apiserver-client-kubelet', commonName: 'system:node:n1', organizations: ['system:nodes'], usages: ['digital signature', 'client auth'] };
const SERVING: CSRRequest = { ...CLIENT, signerName: 'kubernetes.io/kubelet-serving', dnsNames: ['n1'], ipAddresses: ['10.0.0.5'], usages: ['digital signature', 'server auth'] };

async function csrObject(r: CSRRequest, extra: Partial<CertificateSigningRequest['spec']> = {}): Promise<CertificateSigningRequest> {
  const { csrPem } = await makeCSR(r);
  return { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'c1' }, spec: { request: Buffer.from(csrPem).toString('base64'), signerName: r.signerName, usages: r.usages, ...extra } };
}

const texts = (errs: { text(): string }[]) => errs.map((e) => e.text());

describe('CertificateSigningRequest validation', () => {
  it('accepts a signed request with known usages and a signer name', async () => {
    assert.deepEqual(texts(validateCertificateSigningRequest(await csrObject(CLIENT))), []);
  });

  it('refuses what upstream refuses, with its field paths and texts', async () => {
    const good = await csrObject(CLIENT);
    const bad = { ...good, spec: { ...good.spec, request: Buffer.from('invalid data').toString('base64'), usages: ['client auth', 'client auth', 'flying'], signerName: 'no-slash', expirationSeconds: 60 } };
    const errs = texts(validateCertificateSigningRequest(bad));
    assert.ok(errs.some((e) => /^spec\.request: Invalid value: .*PEM block type must be CERTIFICATE REQUEST$/.test(e)), errs.join('\n'));
    assert.ok(errs.includes('spec.usages[1]: Duplicate value: "client auth"'), errs.join('\n'));
    assert.ok(errs.some((e) => e.startsWith('spec.usages[2]: Unsupported value: "flying": supported values: "any", "cert sign"')), errs.join('\n'));
    assert.ok(errs.includes(`spec.signerName: Invalid value: "no-slash": must be a fully qualified domain and path of the form 'example.com/signer-name'`), errs.join('\n'));
    assert.ok(errs.includes('spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 600 seconds (10 minutes)'), errs.join('\n'));
    const none = texts(validateCertificateSigningRequest({ ...good, spec: { ...good.spec, usages: [], signerName: '' } }));
    assert.ok(none.includes('spec.usages: Required value: usages must be provided'), none.join('\n'));
    assert.ok(none.includes('spec.signerName: Required value: signerName must be provided'), none.join('\n'));
    const legacy = texts(validateCertificateSigningRequest({ ...good, spec: { ...good.spec, signerName: 'kubernetes.io/legacy-unknown' } }));
    assert.deepEqual(legacy, ['spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version']);
  });

  it('refuses a request whose signature does not verify', async () => {
    const a = await makeCSR(CLIENT);
    const der = Buffer.from(a.csrPem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
    der[der.length - 5] = der[der.length - 5]! ^ 0xff;
    const pem = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
    assert.throws(() => parseCSR(pem), /verification failure|asn1/);
  });

  it('keeps approval to /approval and the certificate to /status; conditions never go away', async () => {
    const old = await csrObject(CLIENT);
    const approved = structuredClone(old);
    approved.status = { conditions: [{ type: 'Approved', status: 'True', reason: 'r', message: 'm' }] };
    assert.deepEqual(texts(validateCertificateSigningRequestUpdate(approved, old)), ['status.conditions: Forbidden: updates may not add a condition of type "Approved"']);
    assert.deepEqual(texts(validateCertificateSigningRequestApprovalUpdate(approved, old)), []);
    assert.deepEqual(texts(validateCertificateSigningRequestApprovalUpdate(old, approved)), ['status.conditions: Forbidden: updates may not remove a condition of type "Approved"']);
    const both = structuredClone(approved);
    both.status!.conditions!.push({ type: 'Denied', status: 'True' });
    assert.ok(texts(validateCertificateSigningRequestApprovalUpdate(both, approved)).includes('status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive'));
    const withCert = structuredClone(approved);
    withCert.status!.certificate = Buffer.from('not a certificate').toString('base64');
    assert.deepEqual(texts(validateCertificateSigningRequestUpdate(withCert, approved)), [
      'status.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block',
      'status.certificate: Forbidden: updates may not set certificate content',
    ]);
    assert.deepEqual(texts(validateCertificateSigningRequestStatusUpdate(withCert, approved)), ['status.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block']);
    const falseApproved = structuredClone(old);
    falseApproved.status = { conditions: [{ type: 'Approved', status: 'False' }] };
    assert.ok(texts(validateCertificateSigningRequestApprovalUpdate(falseApproved, old)).includes('status.conditions[0].status: Unsupported value: "False": supported values: "True"'));
  });

  it('prints the Condition column as kubectl get csr does', async () => {
    const c = await csrObject(CLIENT);
    assert.equal(csrCondition(c), 'Pending');
    c.status = { conditions: [{ type: 'Approved', status: 'True' }], certificate: 'eA==' };
    assert.equal(csrCondition(c), 'Approved,Issued');
    c.status = { conditions: [{ type: 'Denied', status: 'True' }, { type: 'Failed', status: 'True' }] };
    assert.equal(csrCondition(c), 'Denied,Failed');
  });
});

describe('node certificate shapes (IsKubeletClientCSR / IsKubeletServingCSR)', () => {
  const parsed = async (r: CSRRequest) => parseCSR((await makeCSR(r)).csrPem);

  it('a client request: O system:nodes, CN system:node:<name>, no SANs, client usages', async () => {
    assert.equal(validateKubeletClientCSR(await parsed(CLIENT), CLIENT.usages), '');
    assert.equal(validateKubeletClientCSR(await parsed(CLIENT), ['digital signature', 'key encipherment', 'client auth']), '');
    assert.equal(validateKubeletClientCSR(await parsed({ ...CLIENT, organizations: ['other'] }), CLIENT.usages), 'subject organization is not system:nodes');
    assert.equal(validateKubeletClientCSR(await parsed({ ...CLIENT, dnsNames: ['n1'] }), CLIENT.usages), 'DNS subjectAltNames are not allowed');
    assert.equal(validateKubeletClientCSR(await parsed({ ...CLIENT, ipAddresses: ['10.0.0.1'] }), CLIENT.usages), 'IP subjectAltNames are not allowed');
    assert.equal(validateKubeletClientCSR(await parsed({ ...CLIENT, commonName: 'n1' }), CLIENT.usages), 'subject common name does not begin with system:node:');
    assert.equal(validateKubeletClientCSR(await parsed(CLIENT), ['digital signature', 'server auth']), 'usages did not match [client auth digital signature key encipherment]');
  });

  it('a serving request: O system:nodes, a DNS or IP SAN, serving usages, CN system:node:<name>', async () => {
    assert.equal(validateKubeletServingCSR(await parsed(SERVING), SERVING.usages), '');
    assert.equal(validateKubeletServingCSR(await parsed({ ...SERVING, dnsNames: [], ipAddresses: [] }), SERVING.usages), 'DNS or IP subjectAltName is required');
    assert.equal(validateKubeletServingCSR(await parsed(SERVING), ['digital signature', 'client auth']), 'usages did not match [digital signature key encipherment server auth]');
    assert.equal(validateKubeletServingCSR(await parsed({ ...SERVING, commonName: 'system:nodes:n1x' }), SERVING.usages), 'subject common name does not begin with system:node:');
  });
});

describe('the approver', () => {
  const asked: string[] = [];
  const allow = (subresources: string[]) => (csr: CertificateSigningRequest, a: { subresource: string }) => {
    asked.push(`${csr.spec.username}:${a.subresource}`);
    return subresources.includes(a.subresource);
  };

  it('approves a bootstrap identity\'s node client request when it may create nodeclient', async () => {
    asked.length = 0;
    const csr = await csrObject(CLIENT, { username: 'system:bootstrap:abc', groups: ['system:bootstrappers', 'system:authenticated'] });
    assert.deepEqual(await decideApproval(csr, allow(['nodeclient'])), { approve: true, reason: 'AutoApproved', message: 'Auto approving kubelet client certificate after SubjectAccessReview.' });
    assert.deepEqual(asked, ['system:bootstrap:abc:nodeclient'], 'not its own name: selfnodeclient is not asked');
    const refused = await decideApproval(csr, allow([]));
    assert.deepEqual(refused, { approve: false, why: 'recognized csr "c1" as [nodeclient] but subject access review was not approved' });
  });

  it('approves a node renewing its own client certificate through selfnodeclient first', async () => {
    asked.length = 0;
    const csr = await csrObject(CLIENT, { username: 'system:node:n1', groups: ['system:nodes'] });
    assert.deepEqual(await decideApproval(csr, allow(['selfnodeclient'])), { approve: true, reason: 'AutoApproved', message: 'Auto approving self kubelet client certificate after SubjectAccessReview.' });
    assert.deepEqual(asked, ['system:node:n1:selfnodeclient']);
  });

  it('approves a serving request only from the node it names', async () => {
    const own = await csrObject(SERVING, { username: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] });
    assert.deepEqual(await decideApproval(own, allow([])), { approve: true, reason: 'AutoApproved', message: SERVING_APPROVAL_MESSAGE });
    const other = await csrObject(SERVING, { username: 'system:node:n2', groups: ['system:nodes'] });
    assert.equal((await decideApproval(other, allow(['selfnodeclient', 'nodeclient']))).approve, false);
    const notNode = await csrObject(SERVING, { username: 'system:node:n1', groups: ['system:authenticated'] });
    assert.equal((await decideApproval(notNode, allow([]))).approve, false);
    const admin = await csrObject(SERVING, { username: 'admin', groups: ['system:masters'] });
    assert.equal((await decideApproval(admin, allow(['selfnodeclient', 'nodeclient']))).approve, false);
  });

  it('leaves other signers, non-node requests and decided requests alone', async () => {
    const other = await csrObject({ ...CLIENT, signerName: 'example.com/x' }, { username: 'system:bootstrap:abc' });
    assert.equal((await decideApproval(other, allow(['nodeclient', 'selfnodeclient']))).approve, false);
    const notNodeShape = await csrObject({ ...CLIENT, organizations: ['ops'] }, { username: 'system:bootstrap:abc' });
    assert.equal((await decideApproval(notNodeShape, allow(['nodeclient', 'selfnodeclient']))).approve, false);
    const denied = await csrObject(CLIENT, { username: 'system:bootstrap:abc' });
    denied.status = { conditions: [{ type: 'Denied', status: 'True' }] };
    assert.equal((await decideApproval(denied, allow(['nodeclient']))).approve, false);
  });
});

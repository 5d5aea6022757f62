/**
 * certificates.k8s.io/v1 CertificateSigningRequest: its definition and registration (upstream
 * `pkg/registry/certificates/certificates/storage`) with the `status` and `approval` subresources, each a store over
 * the same watch cache with its own strategy.
 */
import { CSR_PROTOBUF } from '../../apis/certificates/v1/protobuf.ts';
import { CSR, CSR_DEFS, CSR_LIST } from '../../apis/certificates/v1/schema.ts';
import { CSR_KIND, CSR_RESOURCE, GROUP, VERSION, type CertificateSigningRequest } from '../../apis/certificates/v1/types.ts';
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import { encode } from '../../apimachinery/codec/encode.ts';
import { spliceResourceVersion } from '../../apimachinery/codec/resource-version-splice.ts';
import type { Codec } from '../../storage/interface.ts';
import { type Registered, type RegisterOptions, type ResourceDefinition, registerResource, registerSubresource } from '../generic/registration.ts';
import { csrApprovalStrategy, csrStatusStrategy, csrStrategy } from './strategy.ts';
import { CSR_TABLE } from './table.ts';

const csrCodec: Codec & { decode(value: Buffer): CertificateSigningRequest } = {
  encode: (obj: KubeObject) => encode(obj, CSR_DEFS, CSR),
  decode: (value: Buffer) => JSON.parse(value.toString('utf8')) as CertificateSigningRequest,
  setResourceVersion: spliceResourceVersion,
};

export function csrDefinition(): ResourceDefinition<CertificateSigningRequest> {
  return {
    group: GROUP,
    version: VERSION,
    kind: CSR_KIND,
    resource: CSR_RESOURCE,
    shortNames: ['csr'],
    strategy: csrStrategy,
    codec: csrCodec,
    defs: CSR_DEFS,
    definition: CSR,
    listDefinition: CSR_LIST,
    table: CSR_TABLE,
    protobuf: CSR_PROTOBUF,
  };
}

export interface CSRResources {
  csrs: Registered<CertificateSigningRequest>;
  status: Registered<CertificateSigningRequest>;
  approval: Registered<CertificateSigningRequest>;
}

export async function registerCertificateSigningRequests(opts: RegisterOptions): Promise<CSRResources> {
  const csrs = await registerResource(csrDefinition(), opts);
  const status = registerSubresource({ ...csrDefinition(), strategy: csrStatusStrategy, verbs: ['get', 'patch', 'update'] }, 'status', csrs);
  const approval = registerSubresource({ ...csrDefinition(), strategy: csrApprovalStrategy, verbs: ['get', 'patch', 'update'] }, 'approval', csrs);
  return { csrs, status, approval };
}

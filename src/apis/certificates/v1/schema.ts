/**
 * CertificateSigningRequest definitions (kubernetes/api `certificates/v1/types.go`), in Go struct order, with
 * upstream's list types (conditions a map keyed by type; usages, groups, request and certificate atomic).
 */
import { type Definition, type Definitions, defineAll, prop, ref, str } from '../../../apimachinery/schema.ts';
import { OBJECT_META, TIME, listDefinition, metaDefinitions, typeMeta } from '../../meta/v1/schema.ts';
import { CSR_KIND, GROUP, VERSION } from './types.ts';

export const CSR = 'io.k8s.api.certificates.v1.CertificateSigningRequest';
export const CSR_LIST = 'io.k8s.api.certificates.v1.CertificateSigningRequestList';
const CSR_SPEC = 'io.k8s.api.certificates.v1.CertificateSigningRequestSpec';
const CSR_STATUS = 'io.k8s.api.certificates.v1.CertificateSigningRequestStatus';
const CSR_CONDITION = 'io.k8s.api.certificates.v1.CertificateSigningRequestCondition';

/** Field docs the Table columns reuse (upstream's columns carry the fields' SwaggerDoc). */
export const SIGNER_NAME_DOC = 'signerName indicates the requested signer, and is a qualified name.';
export const REQUEST_DOC = 'request contains an x509 certificate signing request encoded in a "CERTIFICATE REQUEST" PEM block. When serialized as JSON or YAML, the data is additionally base64-encoded.';
export const EXPIRATION_SECONDS_DOC = 'expirationSeconds is the requested duration of validity of the issued certificate. The certificate signer may issue a certificate with a different validity duration so a client must check the delta between the notBefore and and notAfter fields in the issued certificate to determine the actual duration.';
export const CONDITIONS_DOC = 'conditions applied to the request. Known conditions are "Approved", "Denied", and "Failed".';

const bytes = (description: string) => ({ type: 'string' as const, format: 'byte' as const, description });

export const csrDefinitions: Definition[] = [
  {
    name: CSR_CONDITION,
    description: 'CertificateSigningRequestCondition describes a condition of a CertificateSigningRequest object',
    required: ['type', 'status'],
    properties: [
      prop('type', str('type of the condition. Known conditions are "Approved", "Denied", and "Failed".'), true),
      prop('status', str('status of the condition, one of True, False, Unknown. Approved, Denied, and Failed conditions may not be "False" or "Unknown".'), true),
      prop('reason', str('reason indicates a brief reason for the request state')),
      prop('message', str('message contains a human readable message with details about the request state')),
      prop('lastUpdateTime', ref(TIME, 'lastUpdateTime is the time of the last update to this condition')),
      prop('lastTransitionTime', ref(TIME, 'lastTransitionTime is the time the condition last transitioned from one status to another. If unset, when a new condition type is added or an existing condition\'s status is changed, the server defaults this to the current time.')),
    ],
  },
  {
    name: CSR_SPEC,
    description: 'CertificateSigningRequestSpec contains the certificate request.',
    required: ['request', 'signerName'],
    properties: [
      prop('request', { ...bytes('request contains an x509 certificate signing request encoded in a "CERTIFICATE REQUEST" PEM block. When serialized as JSON or YAML, the data is additionally base64-encoded.') }, true),
      prop('signerName', str('signerName indicates the requested signer, and is a qualified name.'), true),
      prop('expirationSeconds', { type: 'integer', format: 'int32', pointer: true, description: 'expirationSeconds is the requested duration of validity of the issued certificate. The certificate signer may issue a certificate with a different validity duration so a client must check the delta between the notBefore and and notAfter fields in the issued certificate to determine the actual duration.' }),
      prop('usages', { type: 'array', items: str(), description: 'usages specifies a set of key usages requested in the issued certificate.', listType: 'atomic' }),
      prop('username', str('username contains the name of the user that created the CertificateSigningRequest. Populated by the API server on creation and immutable.')),
      prop('uid', str('uid contains the uid of the user that created the CertificateSigningRequest. Populated by the API server on creation and immutable.')),
      prop('groups', { type: 'array', items: str(), description: 'groups contains group membership of the user that created the CertificateSigningRequest. Populated by the API server on creation and immutable.', listType: 'atomic' }),
      prop('extra', { type: 'map', values: { type: 'array', items: str() }, description: 'extra contains extra attributes of the user that created the CertificateSigningRequest. Populated by the API server on creation and immutable.' }),
    ],
  },
  {
    name: CSR_STATUS,
    description: 'CertificateSigningRequestStatus contains conditions used to indicate approved/denied/failed status of the request, and the issued certificate.',
    properties: [
      prop('conditions', { type: 'array', items: ref(CSR_CONDITION), description: 'conditions applied to the request. Known conditions are "Approved", "Denied", and "Failed".', listType: 'map', listMapKeys: ['type'] }),
      prop('certificate', { ...bytes('certificate is populated with an issued certificate by the signer after an Approved condition is present. This field is set via the /status subresource. Once populated, this field is immutable.') }),
    ],
  },
  {
    name: CSR,
    description: 'CertificateSigningRequest objects provide a mechanism to obtain x509 certificates by submitting a certificate signing request, and having it asynchronously approved and issued.',
    gvk: [{ group: GROUP, version: VERSION, kind: CSR_KIND }],
    required: ['spec'],
    properties: [
      ...typeMeta,
      prop('metadata', ref(OBJECT_META), true),
      prop('spec', ref(CSR_SPEC, 'spec contains the certificate request, and is immutable after creation. Only the request, signerName, expirationSeconds, and usages fields can be set on creation. Other fields are derived by Kubernetes and cannot be modified by users.'), true),
      prop('status', ref(CSR_STATUS, 'status contains information about whether the request is approved or denied, and the certificate issued by the signer, or the failure condition indicating signer failure.'), true),
    ],
  },
  listDefinition(CSR_LIST, CSR, { group: GROUP, version: VERSION, kind: 'CertificateSigningRequestList' }, 'CertificateSigningRequestList is a collection of CertificateSigningRequest objects', 'items is a collection of CertificateSigningRequest objects'),
];

export const CSR_DEFS: Definitions = defineAll([...metaDefinitions, ...csrDefinitions]);

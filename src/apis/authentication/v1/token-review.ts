/**
 * authentication.k8s.io/v1 TokenReview (also as authentication.cluster.io/v1): a bearer token in, the user it names
 * out. Node agents (`--authentication-token-webhook`) and other delegating servers send one per new token.
 * Definitions under upstream's OpenAPI names, descriptions after k8s.io/api; protobuf field numbers of its
 * generated.proto (Go clients send reviews in protobuf).
 */
import { ProtobufKind } from '../../../apimachinery/codec/protobuf.ts';
import { type Definition, type Definitions, bool, defineAll, prop, ref, str } from '../../../apimachinery/schema.ts';
import { metaDefinitions, OBJECT_META, typeMeta } from '../../meta/v1/schema.ts';
import type { ObjectMeta } from '../../meta/v1/types.ts';
import { GROUP, type UserInfo } from './types.ts';

export const TOKEN_REVIEW_KIND = 'TokenReview';
export const TOKEN_REVIEW_RESOURCE = 'tokenreviews';

export interface TokenReview {
  kind: string;
  apiVersion: string;
  metadata: ObjectMeta;
  spec?: { token?: string; audiences?: string[] };
  status?: { authenticated?: boolean; user?: UserInfo; audiences?: string[]; error?: string };
}

function names(group: string) {
  const root = group === GROUP ? 'io.k8s.api.authentication.v1' : 'io.cluster.api.authentication.v1';
  return { review: `${root}.TokenReview`, spec: `${root}.TokenReviewSpec`, status: `${root}.TokenReviewStatus`, userInfo: `${root}.UserInfo` };
}

export function tokenReviewDefinitionName(group: string): string {
  return names(group).review;
}

const strings = (description: string) => ({ type: 'array' as const, items: { type: 'string' as const }, description, listType: 'atomic' as const });

export function tokenReviewDefinitions(group: string): Definitions {
  const n = names(group);
  const defs: Definition[] = [
    ...metaDefinitions,
    {
      name: n.userInfo,
      description: 'UserInfo holds the information about the user needed to implement the user.Info interface.',
      properties: [
        prop('username', str('The name that uniquely identifies this user among all active users.')),
        prop('uid', str('A unique value that identifies this user across time. If this user is deleted and another user by the same name is added, they will have different UIDs.')),
        prop('groups', strings('The names of groups this user is a part of.')),
        prop('extra', { type: 'map', values: { type: 'array', items: { type: 'string' } }, description: 'Any additional information provided by the authenticator.' }),
      ],
    },
    {
      name: n.spec,
      description: 'TokenReviewSpec is a description of the token authentication request.',
      properties: [
        prop('token', str('Token is the opaque bearer token.')),
        prop('audiences', strings('Audiences is a list of the identifiers that the resource server presented with the token identifies as. Audience-aware token authenticators will verify that the token was intended for at least one of the audiences in this list. If no audiences are provided, the audience will default to the audience of the Kubernetes apiserver.')),
      ],
    },
    {
      name: n.status,
      description: 'TokenReviewStatus is the result of the token authentication request.',
      properties: [
        prop('authenticated', bool('Authenticated indicates that the token was associated with a known user.')),
        prop('user', ref(n.userInfo, 'User is the UserInfo associated with the provided token.'), true),
        prop('audiences', strings("Audiences are audience identifiers chosen by the authenticator that are compatible with both the TokenReview and token. An identifier is any identifier in the intersection of the TokenReviewSpec audiences and the token's audiences.")),
        prop('error', str("Error indicates that the token couldn't be checked")),
      ],
    },
    {
      name: n.review,
      description: 'TokenReview attempts to authenticate a token to a known user. Note: TokenReview requests may be cached by the webhook token authenticator plugin in the kube-apiserver.',
      required: ['spec'],
      gvk: [{ group, version: 'v1', kind: TOKEN_REVIEW_KIND }],
      properties: [
        ...typeMeta,
        prop('metadata', ref(OBJECT_META, 'Standard object metadata.'), true),
        prop('spec', ref(n.spec, 'Spec holds information about the request being evaluated'), true),
        prop('status', ref(n.status, 'Status is filled in by the server and indicates whether the request can be authenticated.'), true),
      ],
    },
  ];
  return defineAll(defs);
}

const PROTO = `
syntax = "proto2";
package k8s.io.api.authentication.v1;
message ExtraValue { repeated string items = 1; }
message UserInfo { optional string username = 1; optional string uid = 2; repeated string groups = 3; map<string, ExtraValue> extra = 4; }
message TokenReviewSpec { optional string token = 1; repeated string audiences = 2; }
message TokenReviewStatus { optional bool authenticated = 1; optional UserInfo user = 2; optional string error = 3; repeated string audiences = 4; }
message TokenReview {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional TokenReviewSpec spec = 2;
  optional TokenReviewStatus status = 3;
}
`;

export const TOKEN_REVIEW_PROTOBUF = new ProtobufKind(PROTO, 'k8s.io.api.authentication.v1.TokenReview');

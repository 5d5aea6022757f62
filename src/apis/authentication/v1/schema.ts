/** SelfSubjectReview definitions (descriptions after k8s.io/api authentication/v1). */
import { type Definition, type Definitions, defineAll, prop, ref, str } from '../../../apimachinery/schema.ts';
import { metaDefinitions, OBJECT_META, typeMeta } from '../../meta/v1/schema.ts';
import { GROUP, KIND } from './types.ts';

/** Definition names of one group/version: `io.k8s.api.authentication.v1.*`, or `io.cluster.api.authentication.v1.*`. */
export function definitionNames(group: string, version: string): { review: string; status: string; userInfo: string } {
  const root = group === GROUP ? 'io.k8s.api.authentication' : 'io.cluster.api.authentication';
  // Upstream's v1beta1 status refers to the v1 UserInfo.
  return { review: `${root}.${version}.${KIND}`, status: `${root}.${version}.${KIND}Status`, userInfo: `${root}.v1.UserInfo` };
}

export function selfSubjectReviewDefinitions(group: string, version: string): Definitions {
  const n = definitionNames(group, version);
  const defs: Definition[] = [
    ...metaDefinitions,
    {
      name: n.userInfo,
      description: 'The information about the user needed to implement the user.Info interface.',
      properties: [
        prop('username', str('The name that uniquely identifies this user among all active users.')),
        prop('uid', str('A unique value that identifies this user across time. If this user is deleted and another user by the same name is added, they will have different UIDs.')),
        prop('groups', { type: 'array', items: { type: 'string' }, listType: 'atomic', description: 'The names of groups this user is a part of.' }),
        prop('extra', { type: 'map', values: { type: 'array', items: { type: 'string' } }, description: 'Any additional information provided by the authenticator.' }),
      ],
    },
    {
      name: n.status,
      description: 'Filled by the server with the user attributes.',
      properties: [prop('userInfo', ref(n.userInfo, 'User attributes of the user making this request.'), true)],
    },
    {
      name: n.review,
      description:
        'SelfSubjectReview contains the user information that the kube-apiserver has about the user making this request. When using impersonation, users will receive the user info of the user being impersonated. If impersonation or request header authentication is used, any extra keys will have their case ignored and returned as lowercase.',
      gvk: [{ group, version, kind: KIND }],
      properties: [
        ...typeMeta,
        prop('metadata', ref(OBJECT_META, 'Standard object metadata.'), true),
        prop('status', ref(n.status, 'Status is filled in by the server with the user attributes.')),
      ],
    },
  ];
  return defineAll(defs);
}

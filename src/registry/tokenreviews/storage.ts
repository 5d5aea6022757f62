/**
 * TokenReview (upstream `pkg/registry/authentication/tokenreview`): create-only and stored nowhere; the answer is the
 * request with its status filled in by the server's bearer-token authenticators (token file, JWT issuers, behind the
 * token cache), asked as for a request carrying only `Authorization: Bearer <token>`. Served in
 * authentication.k8s.io/v1 and as authentication.cluster.io/v1.
 *
 * Unlike kube-apiserver, which runs its whole request authenticator on that request, anonymous never answers a
 * review: a token no authenticator knows is `authenticated: false`, so a node agent asking about a made-up token
 * never lets it in as system:anonymous (kube-apiserver always has token authenticators, so the case does not arise
 * there). The server has no API audiences: `spec.audiences` is passed on by nobody and the status carries none.
 */
import { CLUSTER_GROUP, GROUP, type UserInfo } from '../../apis/authentication/v1/types.ts';
import { TOKEN_REVIEW_KIND, TOKEN_REVIEW_PROTOBUF, TOKEN_REVIEW_RESOURCE, type TokenReview, tokenReviewDefinitionName, tokenReviewDefinitions } from '../../apis/authentication/v1/token-review.ts';
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import { newBadRequest } from '../../apimachinery/errors.ts';
import { registerCreateOnly } from '../generic/create-only.ts';
import type { ResourceScope } from '../rest/scope.ts';

/** A user as the authenticators name it. */
export interface TokenUser {
  name: string;
  uid?: string;
  groups: readonly string[];
  extra?: Record<string, readonly string[]>;
}

export interface TokenReviewOptions {
  /** The user `token` names, null when none does; `error` when it was refused with a reason (read at each review). */
  authenticate(token: string): Promise<{ readonly user: TokenUser | null; readonly error?: Error | null | undefined }>;
}

export async function reviewToken(review: TokenReview, opts: TokenReviewOptions): Promise<TokenReview> {
  const token = review.spec?.token ?? '';
  if (token === '') throw newBadRequest('token is required for TokenReview in authentication');
  const r = await opts.authenticate(token);
  const status: NonNullable<TokenReview['status']> = { authenticated: r.user !== null };
  const user: UserInfo = {};
  if (r.user) {
    user.username = r.user.name;
    if (r.user.uid) user.uid = r.user.uid;
    if (r.user.groups.length) user.groups = [...r.user.groups];
    if (r.user.extra && Object.keys(r.user.extra).length) user.extra = Object.fromEntries(Object.entries(r.user.extra).map(([k, v]) => [k, [...v]]));
  }
  status.user = user;
  if (r.error) status.error = r.error.message;
  return { ...review, spec: review.spec ?? {}, status };
}

export function registerTokenReviews(opts: TokenReviewOptions): ResourceScope[] {
  return [GROUP, CLUSTER_GROUP].map((group) =>
    registerCreateOnly<KubeObject>({
      group,
      version: 'v1',
      kind: TOKEN_REVIEW_KIND,
      resource: TOKEN_REVIEW_RESOURCE,
      singular: 'tokenreview',
      namespaced: false,
      defs: tokenReviewDefinitions(group),
      definition: tokenReviewDefinitionName(group),
      create: async (obj) => (await reviewToken({ ...(obj as unknown as TokenReview), apiVersion: `${group}/v1`, kind: TOKEN_REVIEW_KIND }, opts)) as unknown as KubeObject,
      protobuf: TOKEN_REVIEW_PROTOBUF,
    }),
  );
}

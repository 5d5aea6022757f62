/**
 * Upstream's authorizerfactory AlwaysAllow and AlwaysDeny (`--authorization-mode=AlwaysAllow|AlwaysDeny`). AlwaysDeny
 * abstains with a reason rather than denying, as upstream's does, so a later authorizer can still allow.
 */
import { ALLOW, type AuthorizationResult, type Authorizer } from './interface.ts';

export const alwaysAllow: Authorizer = { authorize: () => ALLOW };

const EVERYTHING_FORBIDDEN: AuthorizationResult = Object.freeze({ decision: 'NoOpinion', reason: 'Everything is forbidden.' });
export const alwaysDeny: Authorizer = { authorize: () => EVERYTHING_FORBIDDEN };

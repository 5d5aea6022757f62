/**
 * The decisions kube-apiserver makes around an AuthenticationConfiguration file besides loading it
 * (`pkg/kubeapiserver/options/authentication.go`), as pure functions, so that the server's wiring only adds the
 * file watch, the swap and the metrics:
 *
 * - the file's `anonymous` and an explicitly set `--anonymous-auth` exclude each other;
 * - on a change, the same bytes are no change; bytes that do not decode or validate are a failure never retried
 *   (until the file changes again); a changed `anonymous` is refused (it is fixed at start); otherwise the new
 *   configuration is ready to be built.
 */
import { isDeepStrictEqual } from 'node:util';
import { aggregateText, type FieldError, forbidden } from '../apimachinery/field.ts';
import type { AnonymousAuthConfig } from './authentication-types.ts';
import { decodeAuthenticationConfiguration } from './authentication.ts';
import { compileAndValidateAuthenticationConfiguration, type CompiledAuthenticationConfiguration, type ValidationOptions } from './authentication-validation.ts';

/** `anonymous: Forbidden: --anonymous-auth flag cannot be set when anonymous field is configured in …`. */
export function anonymousFlagConflict(fileAnonymous: AnonymousAuthConfig | undefined, anonymousFlagSet: boolean): FieldError | undefined {
  if (!fileAnonymous || !anonymousFlagSet) return undefined;
  return forbidden('anonymous', '--anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file');
}

export type ReloadDecision =
  /** Same bytes as the configuration in force (or as the last refused ones): nothing to do. */
  | { readonly kind: 'unchanged' }
  /** Refused for good: log `message`, count a failure, and remember `data` so it is not tried again. */
  | { readonly kind: 'invalid'; readonly message: string }
  /** Build authenticators from `compiled`; if that fails, count a failure but do not remember `data` (retry). */
  | { readonly kind: 'valid'; readonly compiled: CompiledAuthenticationConfiguration };

/**
 * What to do with the file's new content `data`, given the content last acted on (`tracked`) and the `anonymous`
 * of the file the server started with. Messages are upstream's log texts.
 */
export function decideReload(data: string, tracked: string, initialAnonymous: AnonymousAuthConfig | undefined, opts: ValidationOptions = {}): ReloadDecision {
  if (data === tracked) return { kind: 'unchanged' };
  let config;
  try {
    config = decodeAuthenticationConfiguration(data);
  } catch (e) {
    return { kind: 'invalid', message: `failed to load authentication config: ${(e as Error).message}` };
  }
  const compiled = compileAndValidateAuthenticationConfiguration(config, opts);
  const errs = [...compiled.errors];
  if (!isDeepStrictEqual(initialAnonymous, config.anonymous)) errs.push(forbidden('anonymous', 'changed from initial configuration file'));
  if (errs.length) return { kind: 'invalid', message: `failed to validate authentication config: ${aggregateText(errs)}` };
  return { kind: 'valid', compiled };
}

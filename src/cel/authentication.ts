/**
 * CEL for AuthenticationConfiguration (upstream `apiserver/pkg/authentication/cel`): claim expressions see
 * `claims` (map(string, dyn), the token's JSON claims) and user validation rules see `user`
 * (kubernetes.UserInfo: username, uid, groups, extra). Validation expressions must be statically `bool`; mappings
 * compile as any type and are checked when they run. Both see escaped names (`claims.foo__dot__bar`) as upstream's
 * do (escaping.ts).
 */
import type { ASTNode } from '@marcbachmann/cel-js';
import { compile, evaluate, newEnvironment, type CompiledExpression, type CompileOutcome } from './environment.ts';
import { PER_CALL_LIMIT } from './cost.ts';
import { withEscapedLookup } from './escaping.ts';

export const CLAIMS_VAR = 'claims';
export const USER_VAR = 'user';

/** The value of `user` in user validation rules (cel type `kubernetes.UserInfo`). */
export class CELUserInfo {
  constructor(
    readonly username: string,
    readonly uid: string,
    readonly groups: string[],
    readonly extra: Record<string, string[]>,
  ) {}
}

const claimsEnv = newEnvironment((env) => env.registerVariable(CLAIMS_VAR, 'map<string, dyn>'));
const userEnv = newEnvironment((env) => {
  env.registerType('kubernetes.UserInfo', {
    ctor: CELUserInfo,
    fields: { username: 'string', uid: 'string', groups: 'list<string>', extra: 'map<string, list<string>>' },
  });
  env.registerVariable(USER_VAR, 'kubernetes.UserInfo');
});

/** What an expression must produce: `bool` for validation rules, anything for mappings. */
export type ExpressionType = 'bool' | 'any';

/** A compiled expression, or upstream's detail for an Invalid field error (`compilation failed: …`). */
export type CompileResult = { readonly compiled: CompiledExpression; readonly error?: undefined } | { readonly compiled?: undefined; readonly error: string };

function check(outcome: CompileOutcome, returnType: ExpressionType): CompileResult {
  if (outcome.error !== undefined) return { error: `compilation failed: ${outcome.error}` };
  // cel-go compares the checked type itself: `dyn` (e.g. `claims.admin`) is not `bool`.
  if (returnType === 'bool' && outcome.compiled.outputType !== 'bool') return { error: 'must evaluate to bool' };
  return { compiled: outcome.compiled };
}

export function compileClaimsExpression(expression: string, returnType: ExpressionType): CompileResult {
  return check(compile(claimsEnv, expression), returnType);
}

export function compileUserExpression(expression: string): CompileResult {
  return check(compile(userEnv, expression), 'bool');
}

/** Evaluates a claims expression on the token's claims (cost limit: upstream's PerCallLimit). */
export function evaluateClaims(compiled: CompiledExpression, claims: Record<string, unknown>, limit = PER_CALL_LIMIT): unknown {
  return evaluate(compiled, { [CLAIMS_VAR]: withEscapedLookup(claims) }, limit);
}

export function evaluateUser(compiled: CompiledExpression, user: CELUserInfo, limit = PER_CALL_LIMIT): unknown {
  const escaped = new CELUserInfo(user.username, user.uid, user.groups, withEscapedLookup(user.extra));
  return evaluate(compiled, { [USER_VAR]: escaped }, limit);
}

function isNode(x: unknown): x is ASTNode {
  return typeof x === 'object' && x !== null && 'op' in x && 'args' in x;
}

/**
 * Whether the expression selects `claims.<field>` or `claims.?<field>` anywhere (upstream's hasSelectExp, used for
 * the email/email_verified rule). An index (`claims["email"]`) does not count, as upstream's AST walk does not
 * count it either.
 */
export function usesClaim(ast: ASTNode, field: string): boolean {
  const visit = (x: unknown): boolean => {
    if (Array.isArray(x)) return x.some(visit);
    if (!isNode(x)) return false;
    if ((x.op === '.' || x.op === '.?') && isNode(x.args[0]) && x.args[0].op === 'id' && x.args[0].args === CLAIMS_VAR && x.args[1] === field) return true;
    return visit(x.args);
  };
  return visit(ast);
}

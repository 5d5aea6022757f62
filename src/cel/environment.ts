/**
 * CEL environments as upstream's base environment sets them up (`apiserver/pkg/cel/environment/base.go`), on
 * @marcbachmann/cel-js: optional types, the Kubernetes library (library.ts), mixed-type literals allowed as
 * cel-go's heterogeneous literals are, and a per-evaluation cost budget (cost.ts).
 *
 * Compile errors are printed in cel-go's form (`ERROR: <input>:1:8: <message>` followed by the source line and a
 * caret), since that is what upstream puts after `compilation failed: `; the messages themselves are cel-js's.
 */
import { Environment, type ASTNode, type ParseResult } from '@marcbachmann/cel-js';
import { charge, withBudget } from './cost.ts';
import { registerTwoVariableComprehensions } from './comprehensions.ts';
import { registerKubernetesLibrary } from './library.ts';
import { registerSemverLibrary } from './library-semver.ts';
import { registerFormatLibrary } from './library-format.ts';
import { registerIPLibrary } from './library-ip.ts';
import { registerQuantityLibrary } from './library-quantity.ts';

/** The name of the function used once to reach the library's evaluator (see instrument()). */
const PROBE = '__cost_probe__';

/** An environment with the Kubernetes library and metered evaluation; `declare` adds the variables. */
export function newEnvironment(declare: (env: Environment) => void): Environment {
  const env = new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: false });
  registerKubernetesLibrary(env);
  registerSemverLibrary(env);
  registerFormatLibrary(env);
  registerIPLibrary(env);
  registerQuantityLibrary(env);
  registerTwoVariableComprehensions(env);
  declare(env);
  instrument(env);
  return env;
}

type Evaluator = { run(ast: ASTNode, ctx: unknown): unknown };

/**
 * Routes every node evaluation through the cost meter. cel-js keeps its evaluator private but calls function
 * handlers with it as `this`, so one evaluation of a probe function hands it over; its `run` (through which every
 * sub-expression is evaluated) is then wrapped on that instance only.
 */
function instrument(env: Environment): void {
  let evaluator: Evaluator | undefined;
  env.registerFunction(`${PROBE}(): bool`, function (this: Evaluator) {
    evaluator = this;
    return true;
  });
  env.evaluate(`${PROBE}()`);
  if (!evaluator || typeof evaluator.run !== 'function') throw new Error('cel: cannot meter evaluation: the library evaluator is not reachable');
  evaluator.run = function (this: Evaluator, ast: ASTNode, ctx: unknown) {
    charge(1);
    return (ast as unknown as { evaluate(ev: Evaluator, ast: ASTNode, ctx: unknown): unknown }).evaluate(this, ast, ctx);
  };
}

export interface CompiledExpression {
  readonly expression: string;
  readonly program: ParseResult;
  /** The checked result type as cel-js names it (`bool`, `string`, `dyn`, `list<string>`, …). */
  readonly outputType: string;
  readonly ast: ASTNode;
}

export type CompileOutcome = { readonly compiled: CompiledExpression; readonly error?: undefined } | { readonly compiled?: undefined; readonly error: string };

interface LocatedError {
  message: string;
  summary?: string;
  range?: { start: number; end: number };
}

/** cel-go's issue text for one error at `pos` of `source`. */
export function formatIssue(source: string, pos: number, message: string): string {
  const before = source.slice(0, pos);
  const line = before.split('\n').length;
  const lineStart = before.lastIndexOf('\n') + 1;
  const column = pos - lineStart;
  const sourceLine = source.slice(lineStart).split('\n')[0]!;
  const pad = [...sourceLine.slice(0, column)].map((c) => (c === '\t' ? '\t' : '.')).join('');
  return `ERROR: <input>:${line}:${column + 1}: ${message}\n | ${sourceLine}\n | ${pad}^`;
}

/** cel-go's words for the errors users meet most, where cel-js words them differently. */
function celGoMessage(message: string): string {
  const unknown = /^Unknown variable: (.*)$/.exec(message);
  if (unknown) return `undeclared reference to '${unknown[1]}' (in container '')`;
  return message;
}

/** Parses and type-checks `expression` in `env`; the error is cel-go's issues text. */
export function compile(env: Environment, expression: string): CompileOutcome {
  const describe = (e: unknown): string => {
    const err = e as LocatedError;
    const message = celGoMessage(err.summary ?? err.message.split('\n')[0]!);
    return formatIssue(expression, err.range?.start ?? 0, message);
  };
  let program: ParseResult;
  try {
    program = env.parse(expression);
  } catch (e) {
    return { error: describe(e) };
  }
  const checked = program.check();
  if (!checked.valid) return { error: describe(checked.error) };
  return { compiled: { expression, program, outputType: checked.type ?? 'dyn', ast: program.ast } };
}

/** Evaluates a compiled expression with `vars` under a cost budget of `limit`; throws the evaluation error. */
export function evaluate(compiled: CompiledExpression, vars: Record<string, unknown>, limit: number): unknown {
  return withBudget(limit, () => compiled.program(vars)).value;
}

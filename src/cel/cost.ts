/**
 * A per-evaluation cost budget for CEL (upstream's PerCallLimit). @marcbachmann/cel-js has structural parse limits
 * but no runtime cost, and a nested `all`/`exists` over large claims would otherwise run unbounded. The meter
 * charges one unit per evaluated expression node (every sub-evaluation passes through the evaluator's `run`, which
 * environment.ts wraps) plus the size of the data the library functions walk, which is close to cel-go's runtime
 * cost model (one per operation and call, plus traversal cost of strings and lists) without being identical.
 *
 * Evaluation is synchronous (no async functions are registered), so one module-wide meter serves every
 * environment: it is reset at the start of each evaluation.
 */

/** cel-go's text when the budget runs out; authenticators wrap it with their own prefix. */
export const COST_EXCEEDED_MESSAGE = 'operation cancelled: actual cost limit exceeded';

export class CostLimitExceededError extends Error {
  override readonly name = 'CostLimitExceededError';
  constructor() {
    super(COST_EXCEEDED_MESSAGE);
  }
}

/** Upstream's per-call limit for authentication expressions (`PerCallLimit`). */
export const PER_CALL_LIMIT = 1_000_000;

const meter = { used: 0, limit: Infinity, exceeded: false };

/**
 * Adds `units` to the running evaluation's cost. Once over the limit every later charge throws as well: the
 * library swallows errors inside `||`, `&&` and quantifiers (CEL's error semantics), so a single throw could be
 * absorbed, but the loop that absorbed it then stops at its next step.
 */
export function charge(units: number): void {
  if (meter.exceeded) throw new CostLimitExceededError();
  meter.used += units;
  if (meter.used > meter.limit) {
    meter.exceeded = true;
    throw new CostLimitExceededError();
  }
}

/** Cost of walking a string of `length` characters, as cel-go charges traversal: a tenth of a unit each. */
export const traversalCost = (length: number): number => Math.ceil(length * 0.1);

/** Runs `evaluate` under a fresh budget of `limit`; a budget overrun is thrown even if the library absorbed it. */
export function withBudget<T>(limit: number, evaluate: () => T): { value: T; cost: number } {
  meter.used = 0;
  meter.limit = limit;
  meter.exceeded = false;
  try {
    let value: T;
    try {
      value = evaluate();
    } catch (e) {
      if (meter.exceeded) throw new CostLimitExceededError();
      throw e;
    }
    if (meter.exceeded) throw new CostLimitExceededError();
    return { value, cost: meter.used };
  } finally {
    meter.limit = Infinity;
    meter.exceeded = false;
  }
}

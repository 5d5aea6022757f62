/**
 * cel-go's two-variable comprehensions (`ext.TwoVarComprehensions`, in upstream's base environment), as cel-js
 * macros: `all(i, v, p)`, `exists(i, v, p)`, `existsOne(i, v, p)`, `transformList(i, v, [filter,] e)` and
 * `transformMap(k, v, [filter,] e)`. Over a list the first variable is the index and the second the element; over a
 * map, the key and the value. Each step is evaluated through the library's evaluator, so the cost meter sees it.
 */
import type { ASTNode, Environment } from '@marcbachmann/cel-js';

interface Type {
  kind: string;
  keyType?: Type;
  valueType?: Type;
}
interface Checker {
  check(node: ASTNode, ctx: Ctx): Type;
  getType(name: string): Type;
  registry: { getListType(t: Type): Type; getMapType(k: Type, v: Type): Type };
  createError(code: string, message: string, node: ASTNode): Error;
}
interface Ctx {
  forkWithVariable(name: string, type: Type): Ctx;
  reuse(parent: Ctx): Ctx;
  setIterValue(v: unknown, ev: Evaluator): Ctx;
}
interface Evaluator {
  run(node: ASTNode, ctx: Ctx): unknown;
  createError(code: string, message: string, node: ASTNode): Error;
}

interface Macro {
  receiver: ASTNode;
  first: string;
  second: string;
  filter?: ASTNode;
  body: ASTNode;
  node: ASTNode;
  firstCtx?: Ctx;
  secondCtx?: Ctx;
}

type Kind = 'all' | 'exists' | 'existsOne' | 'transformList' | 'transformMap';

function identifier(node: ASTNode, checkerOrName: string): string {
  if (node.op !== 'id') throw new Error(`${checkerOrName}() variable names must be simple identifiers`);
  return node.args;
}

/** The pairs a range yields: (index, element) of a list, (key, value) of a map. */
function pairs(range: unknown): [unknown, unknown][] {
  if (Array.isArray(range)) return range.map((v, i) => [BigInt(i), v]);
  if (range instanceof Map) return [...range.entries()];
  if (range !== null && typeof range === 'object') return Object.entries(range);
  throw new TypeError('not a list or map');
}

function macro(kind: Kind) {
  return ({ ast, args, receiver }: { ast: ASTNode; args: ASTNode[]; receiver: ASTNode }) => {
    const m: Macro = {
      receiver,
      first: identifier(args[0]!, kind),
      second: identifier(args[1]!, kind),
      filter: args.length === 4 ? args[2] : undefined,
      body: args[args.length - 1]!,
      node: ast,
    };
    if (m.first === m.second) throw new Error(`${kind}() variable names must be different`);
    return {
      ...m,
      typeCheck(chk: Checker, mm: Macro, ctx: Ctx): Type {
        const range = chk.check(mm.receiver, ctx);
        const dyn = chk.getType('dyn');
        const [k, v] = range.kind === 'list' ? [chk.getType('int'), range.valueType ?? dyn] : range.kind === 'map' ? [range.keyType ?? dyn, range.valueType ?? dyn] : [dyn, dyn];
        if (range.kind !== 'list' && range.kind !== 'map' && range.kind !== 'dyn') {
          throw chk.createError('invalid_comprehension_range', `${kind}() needs a list or map, not ${range.kind}`, mm.node);
        }
        mm.firstCtx = ctx.forkWithVariable(mm.first, k);
        mm.secondCtx = mm.firstCtx.forkWithVariable(mm.second, v);
        if (mm.filter) chk.check(mm.filter, mm.secondCtx);
        const body = chk.check(mm.body, mm.secondCtx);
        if (kind === 'transformList') return chk.registry.getListType(body);
        if (kind === 'transformMap') return chk.registry.getMapType(k, body);
        return chk.getType('bool');
      },
      evaluate(ev: Evaluator, mm: Macro, ctx: Ctx): unknown {
        let items: [unknown, unknown][];
        try {
          items = pairs(ev.run(mm.receiver, ctx));
        } catch (e) {
          if (e instanceof TypeError) throw ev.createError('invalid_comprehension_range', `${kind}() needs a list or map`, mm.node);
          throw e;
        }
        const step = (k: unknown, v: unknown, node: ASTNode) => ev.run(node, mm.secondCtx!.reuse(mm.firstCtx!.reuse(ctx).setIterValue(k, ev)).setIterValue(v, ev));
        switch (kind) {
          case 'all':
          case 'exists': {
            // CEL's error semantics: an error decides nothing if another element decides the result.
            const decisive = kind === 'exists';
            let error: unknown;
            for (const [k, v] of items) {
              try {
                if (step(k, v, mm.body) === decisive) return decisive;
              } catch (e) {
                error ??= e;
              }
            }
            if (error) throw error;
            return !decisive;
          }
          case 'existsOne':
            return items.filter(([k, v]) => step(k, v, mm.body) === true).length === 1;
          case 'transformList':
            return items.filter(([k, v]) => !mm.filter || step(k, v, mm.filter) === true).map(([k, v]) => step(k, v, mm.body));
          case 'transformMap': {
            const out = new Map<unknown, unknown>();
            for (const [k, v] of items) if (!mm.filter || step(k, v, mm.filter) === true) out.set(k, step(k, v, mm.body));
            return Object.fromEntries(out);
          }
        }
      },
    };
  };
}

export function registerTwoVariableComprehensions(env: Environment): void {
  const reg = (sig: string, kind: Kind) => env.registerFunction(sig, macro(kind) as never);
  reg('list.all(ast, ast, ast): bool', 'all');
  reg('list.exists(ast, ast, ast): bool', 'exists');
  reg('list.existsOne(ast, ast, ast): bool', 'existsOne');
  reg('list.transformList(ast, ast, ast): list<dyn>', 'transformList');
  reg('list.transformList(ast, ast, ast, ast): list<dyn>', 'transformList');
  reg('list.transformMap(ast, ast, ast): map<dyn, dyn>', 'transformMap');
  reg('list.transformMap(ast, ast, ast, ast): map<dyn, dyn>', 'transformMap');
}

/**
 * `--token-auth-file` (upstream `authentication/token/tokenfile`): a CSV file read once at start-up, one token per
 * record: `token,user,uid[,"group1,group2"]` (the fourth field is split on commas, so it is quoted when it names
 * several groups; further fields are ignored). Changes to the file need a restart, as upstream.
 */
import { readFileSync } from 'node:fs';
import { readGoCSV } from '../../util/gocsv.ts';
import { type AuthenticationResult, NO_CREDENTIALS } from './interface.ts';
import type { TokenAuthenticator } from './token.ts';
import { addAuthenticatedGroup, type UserInfo } from './user.ts';

export class TokenFileAuthenticator implements TokenAuthenticator {
  readonly #tokens: Map<string, AuthenticationResult>;

  constructor(tokens: ReadonlyMap<string, UserInfo>) {
    this.#tokens = new Map([...tokens].map(([token, user]) => [token, Object.freeze({ user: addAuthenticatedGroup({ ...user, groups: [...user.groups] }) })]));
  }

  get size(): number {
    return this.#tokens.size;
  }

  /**
   * Reads and parses `path`. Errors carry upstream's texts: the file's (`open <path>: no such file or directory`),
   * Go's CSV parse errors, `token file '<path>' must have at least 3 columns (token, user name, user uid), found N`.
   * An empty token is skipped and a repeated one replaces the earlier record; both are reported to `warn`.
   */
  static fromFile(path: string, warn: (msg: string) => void): TokenFileAuthenticator {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (e) {
      throw new Error(`open ${path}: ${goErrorText(e)}`);
    }
    const tokens = new Map<string, UserInfo>();
    let recordNum = 0;
    for (const record of readGoCSV(text)) {
      if (record.length < 3) throw new Error(`token file '${path}' must have at least 3 columns (token, user name, user uid), found ${record.length}`);
      recordNum++;
      const [token, name, uid] = record as [string, string, string];
      if (token === '') {
        warn(`empty token has been found in token file '${path}', record number '${recordNum}'`);
        continue;
      }
      if (tokens.has(token)) warn(`duplicate token has been found in token file '${path}', record number '${recordNum}'`);
      const user: UserInfo = { name, groups: [] };
      if (uid) user.uid = uid;
      // Go's strings.Split: an empty fourth field is one empty group name, as upstream has it.
      if (record.length >= 4) user.groups = record[3]!.split(',');
      tokens.set(token, user);
    }
    return new TokenFileAuthenticator(tokens);
  }

  authenticateToken(token: string): AuthenticationResult {
    return this.#tokens.get(token) ?? NO_CREDENTIALS;
  }
}

/** The part of a Node file-system error that Go's os.PathError prints after the path. */
function goErrorText(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ENOENT':
      return 'no such file or directory';
    case 'EACCES':
      return 'permission denied';
    case 'EISDIR':
      return 'is a directory';
    default:
      return (e as Error).message;
  }
}

/**
 * Go's encoding/csv Reader with its defaults (comma `,`, no comments, strict quotes, any number of fields per
 * record), for files kube-apiserver reads with it (`--token-auth-file`): the same records, and the same
 * `parse error on line L, column C: …` texts for a malformed file, which operators compare with upstream's.
 */

export class CSVParseError extends Error {
  override name = 'CSVParseError';
}

const ERR_BARE_QUOTE = 'bare " in non-quoted-field';
const ERR_QUOTE = 'extraneous or missing " in quoted-field';

/** Every record of `text`; throws CSVParseError as Go's ReadAll would fail. Empty lines are skipped, as Go does. */
export function readGoCSV(text: string): string[][] {
  // Go's readLine: lines end at \n; \r\n counts as \n; a last line without newline gets one.
  const lines = text.split('\n').map((l, i, all) => (i < all.length - 1 || l.length > 0 ? (l.endsWith('\r') ? l.slice(0, -1) : l) : null));
  if (lines[lines.length - 1] === null) lines.pop();
  const records: string[][] = [];
  let n = 0; // index of the next line to read
  while (n < lines.length) {
    const recLine = n + 1;
    let line = lines[n++]!;
    if (line.length === 0) continue;
    const fields: string[] = [];
    let col = 1;
    let lineNo = recLine;
    const fail = (err: string, atLine: number, atCol: number): never => {
      throw new CSVParseError(atLine !== recLine ? `record on line ${recLine}; parse error on line ${atLine}, column ${atCol}: ${err}` : `parse error on line ${atLine}, column ${atCol}: ${err}`);
    };
    for (;;) {
      if (line[0] !== '"') {
        const i = line.indexOf(',');
        const field = i >= 0 ? line.slice(0, i) : line;
        const q = field.indexOf('"');
        if (q >= 0) fail(ERR_BARE_QUOTE, lineNo, col + bytes(field.slice(0, q)));
        fields.push(field);
        if (i < 0) break;
        col += bytes(field) + 1;
        line = line.slice(i + 1);
        continue;
      }
      // A quoted field: `""` is a quote, `",` ends the field, `"` at the end of the line ends the record; it may
      // run over several lines, each keeping its newline.
      let value = '';
      line = line.slice(1);
      col += 1;
      let ended: 'field' | 'record' | undefined;
      while (!ended) {
        const i = line.indexOf('"');
        if (i >= 0) {
          value += line.slice(0, i);
          col += bytes(line.slice(0, i)) + 1;
          line = line.slice(i + 1);
          if (line[0] === '"') {
            value += '"';
            line = line.slice(1);
            col += 1;
          } else if (line[0] === ',') {
            line = line.slice(1);
            col += 1;
            ended = 'field';
          } else if (line.length === 0) ended = 'record';
          else fail(ERR_QUOTE, lineNo, col - 1);
        } else if (n < lines.length) {
          value += line + '\n';
          line = lines[n++]!;
          lineNo++;
          col = 1;
        } else {
          // End of file inside the quotes.
          fail(ERR_QUOTE, lineNo, col + bytes(line) + 1);
        }
      }
      fields.push(value);
      if (ended === 'record') break;
    }
    records.push(fields);
  }
  return records;
}

function bytes(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

// Unknown option names (issue 10, "Options users mistype"): a mistyped name such as
// `comandTimeout` would otherwise be ignored and its default silently used, so it is an error
// naming it, with the closest known name when one is an obvious typo away.
import { RespireConfigurationError } from '../errors.js';

/** Edits (insert, delete, replace, swap two neighbours) within which a known name is suggested. */
const MAX_SUGGESTION_EDITS = 2;

/**
 * Throws a RespireConfigurationError for the first own key of `options` not in `known`, whatever
 * its value (`undefined` included: the name itself is the mistake). `prefix` is the path of
 * `options` in the user's configuration (`''`, `'circuitBreaker.'`, `'endpoints[0].'`). The value
 * is never echoed: under a mistyped name nothing says whether it is a credential.
 */
export function rejectUnknownOptions(options: object, known: readonly string[], prefix: string): void {
  for (const name of Object.keys(options)) {
    if (known.includes(name)) continue;
    const option = prefix + name;
    const allowed = `one of ${known.join(', ')}`;
    const suggestion = closestName(name, known);
    const hint = suggestion === undefined ? `allowed: ${allowed}` : `did you mean ${suggestion}?`;
    throw new RespireConfigurationError(option, undefined, allowed, {
      message: `unknown option ${option}; ${hint}`,
    });
  }
}

/** The known name fewest edits from `name` (ignoring case), if close enough to be a typo. */
function closestName(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestEdits = MAX_SUGGESTION_EDITS + 1;
  for (const candidate of known) {
    const edits = editDistance(name.toLowerCase(), candidate.toLowerCase());
    // Short names are a couple of edits from anything: a suggestion must keep most of the name.
    if (edits < bestEdits && edits * 2 < Math.min(name.length, candidate.length)) {
      best = candidate;
      bestEdits = edits;
    }
  }
  return best;
}

/** Optimal string alignment distance: Levenshtein plus the swap of two neighbouring characters. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      }
      row.push(d);
    }
    rows.push(row);
  }
  return rows[a.length]![b.length]!;
}

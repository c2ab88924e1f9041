// Redaction of credentials in an option value that an error echoes (issue 10 #5, API.md
// "Metrics": never credentials). Secrets reach options in three shapes: a credential field
// (`password`, `sentinel.password`, `tls.passphrase`), the user info of a URL or `user:pass@host`
// string, and either of those nested in an object or array. Only error paths call this.

/** What stands in for a credential, in an error's `value` and message. */
export const REDACTED = '[redacted]';

/**
 * Field names that hold or may hold a credential: passwords, usernames (a password is often
 * given as a URL's user name by mistake), TLS private keys, passphrases and PFX bundles, tokens.
 */
const CREDENTIAL_NAME = /pass|secret|token|auth|cred|pwd|pfx|^user(?:name)?$|key$/i;

/** Objects nested deeper than this are not searched but replaced: what is not searched is not shown. */
const MAX_DEPTH = 8;

/** Whether a field or option called `name` (the last part of a path like `sentinel.password`) is a credential. */
export function isCredentialName(name: string): boolean {
  return CREDENTIAL_NAME.test(name);
}

/**
 * `value` as an error may show it for the option at `path`: `REDACTED` for a credential option,
 * else with every credential inside replaced. The same value (same identity) when there is
 * nothing to hide; a copy (plain objects and arrays) when there is.
 */
export function redactOption(path: string, value: unknown): unknown {
  if (value === undefined) return undefined;
  const name = /([^.[\]]*)(?:\[\d+\])*$/.exec(path)?.[1] ?? path;
  return isCredentialName(name) ? REDACTED : redactValue(value, 0, new Set());
}

/**
 * A URL's scheme and `//`, as `redis://` or `rediss://` URLs and other clients' start, after the
 * blanks `new URL` ignores (a URL with them is still a URL, its query still secret).
 */
const SCHEME = /^\s*[A-Za-z][A-Za-z0-9+.-]*:\/\//;

/** A string with the user info of a URL (`redis://user:pass@host`) or of `user:pass@host` replaced. */
export function redactUserInfo(text: string): string {
  const at = text.lastIndexOf('@');
  if (at === -1) return text;
  const scheme = SCHEME.exec(text)?.[0] ?? '';
  return `${scheme}${REDACTED}${text.slice(at)}`;
}

/**
 * `redactUserInfo`, and a URL's query and fragment replaced too: other clients read options from
 * the query (ioredis: `?password=`), and Respire refuses such a URL, echoing it.
 */
export function redactUrl(text: string): string {
  const redacted = redactUserInfo(text);
  const scheme = SCHEME.exec(redacted)?.[0].length;
  if (scheme === undefined) return redacted;
  const query = redacted.slice(scheme).search(/[?#]/);
  return query === -1 ? redacted : `${redacted.slice(0, scheme + query + 1)}${REDACTED}`;
}

function redactValue(value: unknown, depth: number, seen: Set<object>): unknown {
  if (typeof value === 'string') return redactUrl(value);
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof URL) return redactUrl(value.href);
  // Bytes, dates and the like hold no named fields; under a credential name they are replaced whole.
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer || value instanceof Date) return value;
  if (depth >= MAX_DEPTH || seen.has(value)) return REDACTED;
  seen.add(value);
  try {
    return redactFields(value, depth, seen);
  } catch {
    // A getter or a proxy that throws: show nothing of it rather than fail to report the error.
    return REDACTED;
  } finally {
    seen.delete(value);
  }
}

/** `value` itself when no field changes, else a plain copy with the credentials replaced. */
function redactFields(value: object, depth: number, seen: Set<object>): unknown {
  const source = value as Record<string, unknown>;
  let copy: Record<string, unknown> | unknown[] | undefined;
  for (const key of Object.keys(source)) {
    const field = source[key];
    const shown =
      isCredentialName(key) && field !== undefined ? REDACTED : redactValue(field, depth + 1, seen);
    if (shown === field) continue;
    copy ??= Array.isArray(value) ? [...value] : { ...source };
    (copy as Record<string, unknown>)[key] = shown;
  }
  return copy ?? value;
}

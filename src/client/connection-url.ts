// `redis://` and `rediss://` URLs (API.md "RespireOptions": `url`, URL endpoints), as ioredis and
// node-redis users write REDIS_URL: `redis://[user[:password]@]host[:port][/database]`. A URL
// carries more than an address, so its credentials, database and TLS are merged with the options
// here, once, and any disagreement is a RespireConfigurationError naming the option at fault
// (never echoing the password: errors.ts redacts user info).
import { RespireConfigurationError, type RespireEndpoint } from '../errors.js';
import { DEFAULT_PORT } from './endpoint.js';

/** What a URL says beyond its address. `undefined` where the URL says nothing. */
export interface UrlSettings {
  readonly username: string | undefined;
  readonly password: string | undefined;
  readonly database: number | undefined;
  /** `true` for `rediss://`, `false` for `redis://`. */
  readonly tls: boolean;
}

const FORM = 'redis://[user[:password]@]host[:port][/database] or rediss://… (TLS)';

/** Whether an endpoint string is a URL rather than `host:port`. */
export function isUrl(input: unknown): input is string {
  // Leading blanks too: `new URL` trims them (an env file's `REDIS_URL= redis://…`).
  return typeof input === 'string' && /^\s*[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(input);
}

/**
 * Parses one URL given at `option` (`url`, `endpoints[1]`). Percent-encoded user info is decoded
 * (`p%40ss` is the password `p@ss`). A query or fragment is refused rather than ignored: other
 * clients read options from it that Respire would silently drop.
 * @throws RespireConfigurationError naming `option`.
 */
export function parseRedisUrl(given: string, option: string): { endpoint: RespireEndpoint } & UrlSettings {
  // Trimmed as `new URL` does, so that an error echoes a URL whose query redact.ts recognises.
  const input = given.trim();
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new RespireConfigurationError(option, input, FORM);
  }
  const scheme = url.protocol;
  if (scheme !== 'redis:' && scheme !== 'rediss:') {
    const allowed =
      scheme === 'unix:' || scheme === 'redis+unix:' ? `${FORM}; a Unix socket is { path }` : FORM;
    throw new RespireConfigurationError(option, input, allowed);
  }
  const problem = addressProblem(url);
  if (problem !== undefined) throw new RespireConfigurationError(option, input, `${FORM}: ${problem}`);
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const port = url.port === '' ? DEFAULT_PORT : Number(url.port);
  const username = decode(url.username, option, input);
  const password = decode(url.password, option, input);
  // `redis://user@host` names a user without a password; AUTH needs both (PROTOCOL.md §1.4).
  if (username !== undefined && password === undefined) {
    throw new RespireConfigurationError(option, input, `${FORM}: a user name needs a password`);
  }
  const path = url.pathname;
  let database: number | undefined;
  if (path !== '' && path !== '/') {
    const digits = /^\/(\d{1,10})$/.exec(path)?.[1];
    database = digits === undefined ? Number.NaN : Number(digits);
    if (!Number.isInteger(database) || database > 2 ** 31 - 1) {
      throw new RespireConfigurationError(
        option,
        input,
        `${FORM}: the database a number from 0 through 2147483647`,
      );
    }
  }
  return { endpoint: { host, port }, username, password, database, tls: scheme === 'rediss:' };
}

/** Query parameters other clients read (ioredis), named when refused; others are only counted. */
const KNOWN_PARAMETERS = new Set(['db', 'password', 'username', 'user', 'tls', 'ssl', 'family', 'name']);

/** Why a parsed URL names no usable address, or undefined when it does. */
function addressProblem(url: URL): string | undefined {
  if (url.search !== '') {
    // Names only, never values (a password may be one); unknown names may be secrets too.
    const names = [...new Set(url.searchParams.keys())];
    const known = names.filter((name) => KNOWN_PARAMETERS.has(name));
    const others = names.length - known.length;
    const listed = [...known, ...(others > 0 ? [`${others} other${others > 1 ? 's' : ''}`] : [])];
    return `no query (${listed.join(', ')}): give the database as the path (/2), credentials as user info, TLS as rediss://, anything else as an option`;
  }
  if (url.hash !== '') return 'no fragment';
  if (url.hostname === '') return 'a host (a Unix socket is { path })';
  // A non-special scheme keeps percent-escapes in its host: no DNS name or address has them.
  if (url.hostname.includes('%')) return 'a host name or IP address, not percent-encoded';
  if (url.port === '0') return 'a port from 1 through 65535';
  return undefined;
}

function decode(part: string, option: string, input: string): string | undefined {
  if (part === '') return undefined;
  try {
    return decodeURIComponent(part);
  } catch {
    throw new RespireConfigurationError(option, input, `${FORM}: user info percent-encoded`);
  }
}

/** The options a URL can also set, as given. */
export interface UrlMergeInput {
  username?: unknown;
  password?: unknown;
  database?: unknown;
  tls?: unknown;
}

/**
 * Each URL's settings merged with the options: a value set in two places must be the same, and
 * two URLs must agree with each other. `rediss://` with `tls: false`, or a plain `redis://` next
 * to a `rediss://`, is a conflict; `tls` given as an object with a `rediss://` URL is kept.
 * @throws RespireConfigurationError naming the option that disagrees with a URL.
 */
export function mergeUrlSettings(
  options: UrlMergeInput,
  urls: readonly { option: string; settings: UrlSettings }[],
): UrlMergeInput {
  const merged: UrlMergeInput = { ...options };
  const first = urls[0];
  for (const { option, settings } of urls) {
    agree(merged, 'username', settings.username, option);
    agree(merged, 'password', settings.password, option);
    agree(merged, 'database', settings.database, option);
    if (settings.tls !== first!.settings.tls) {
      throw new RespireConfigurationError(option, undefined, `the same scheme as ${first!.option}`, {
        message: `invalid option ${option}: ${first!.option} and ${option} disagree on TLS (redis:// and rediss://)`,
      });
    }
  }
  if (first?.settings.tls === true) {
    if (options.tls === false) {
      throw new RespireConfigurationError('tls', false, `not false with a rediss:// URL (${first.option})`);
    }
    merged.tls = options.tls ?? true;
  }
  return merged;
}

function agree(
  merged: UrlMergeInput,
  name: 'username' | 'password' | 'database',
  fromUrl: unknown,
  option: string,
): void {
  if (fromUrl === undefined) return;
  const given = merged[name];
  if (given !== undefined && given !== fromUrl) {
    // Named by the option, never by the value: both may be secrets.
    throw new RespireConfigurationError(name, given, `the same ${name} as the URL in ${option}, or unset`, {
      message: `invalid option ${name}: it differs from the ${name} in ${option}; set it in one place`,
    });
  }
  merged[name] = fromUrl;
}

/** The `url` and `endpoints` options, and what the URLs among them set. */
export interface UrlOptionsInput extends UrlMergeInput {
  url?: unknown;
  endpoints?: unknown;
}

/**
 * `url` or `endpoints` with every URL in it replaced by its address, and the options a URL also
 * sets merged (mergeUrlSettings). `url` is one more way to give `endpoints` (one standalone
 * server, or one Cluster seed), so the two are not set together.
 * @throws RespireConfigurationError naming the option at fault.
 */
export function resolveUrls(
  options: UrlOptionsInput,
  mode: 'standalone' | 'cluster' | 'sentinel',
): UrlMergeInput & { endpoints: unknown } {
  const { url } = options;
  if (url === undefined) {
    if (!Array.isArray(options.endpoints)) return { ...options, endpoints: options.endpoints };
  } else if (typeof url !== 'string' && !(url instanceof URL)) {
    throw new RespireConfigurationError('url', url, FORM);
  } else if (mode === 'sentinel') {
    throw new RespireConfigurationError(
      'url',
      url,
      'not set with sentinel: the sentinels name the data nodes',
    );
  } else if (options.endpoints !== undefined) {
    throw new RespireConfigurationError(
      'url',
      url,
      'not set together with endpoints: give the URL in endpoints',
    );
  }
  // API.md: `url` is a redis:// URL; `host:port` text there is a mistake, not an endpoint.
  if (url !== undefined && !isUrl(String(url))) throw new RespireConfigurationError('url', url, FORM);
  const given: unknown[] = url === undefined ? (options.endpoints as unknown[]) : [String(url)];
  const urls: { option: string; settings: UrlSettings }[] = [];
  const endpoints = given.map((input, i) => {
    if (!isUrl(input)) return input;
    const option = url === undefined ? `endpoints[${i}]` : 'url';
    const { endpoint, ...settings } = parseRedisUrl(input, option);
    // Cluster has database 0 only (API.md "Cluster"): a URL that selects another is a mistake.
    if (mode === 'cluster' && settings.database !== undefined && settings.database !== 0) {
      throw new RespireConfigurationError(option, input, 'a URL without a database (or /0) with useCluster');
    }
    urls.push({ option, settings });
    return endpoint;
  });
  return { ...mergeUrlSettings(options, urls), endpoints };
}

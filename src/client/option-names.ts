// Unknown and unbuilt RespireOptions (issue 10, "Options users mistype or that are not built"): a
// name outside RespireOptions is refused as mistyped, and the options of features not built yet
// (API.md lists them) are refused until they work, instead of quietly giving a standalone client.
import { RespireConfigurationError } from '../errors.js';
import { rejectUnknownOptions } from '../util/unknown-options.js';

/**
 * Options of API.md whose feature is not built yet, with the value each may keep (its default,
 * a no-op) and what to say. Absent (`undefined`) is always accepted.
 */
const NOT_BUILT: Readonly<Record<string, { noOp?: unknown; allowed: string }>> = {
  url: { allowed: "not set: URLs are not supported yet; use endpoints ['host:port'] and username/password" },
};

/**
 * Refuses names outside `known` (the RespireOptions names) and the options of features not built
 * yet. `replicaEndpoints` together with `circuitBreaker` keeps its own message (seed 000
 * "Limits": rejected even once replicas work).
 * @throws RespireConfigurationError naming the option.
 */
export function refuseUnknownOptions(options: object, known: readonly string[]): void {
  rejectUnknownOptions(options, [...known, ...Object.keys(NOT_BUILT)], '');
  const given = options as Record<string, unknown>;
  const breaker = given.circuitBreaker;
  if (given.replicaEndpoints !== undefined && breaker !== undefined && breaker !== null) {
    throw new RespireConfigurationError(
      'replicaEndpoints',
      given.replicaEndpoints,
      'not set together with circuitBreaker (seed 000 "Limits")',
    );
  }
  for (const [name, { noOp, allowed }] of Object.entries(NOT_BUILT)) {
    const value = given[name];
    if (value !== undefined && value !== noOp) throw new RespireConfigurationError(name, value, allowed);
  }
}

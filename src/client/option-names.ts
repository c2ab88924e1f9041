// Unknown RespireOptions (issue 10, "Options users mistype or that are not built"): a name outside
// RespireOptions is refused as mistyped instead of quietly ignored. Every option API.md lists is
// built now, so none is refused as "not supported yet" any more.
import { RespireConfigurationError } from '../errors.js';
import { rejectUnknownOptions } from '../util/unknown-options.js';

/**
 * Refuses names outside `known` (the RespireOptions names). `replicaEndpoints` together with
 * `circuitBreaker` keeps its own message (seed 000 "Limits": rejected even once replicas work).
 * @throws RespireConfigurationError naming the option.
 */
export function refuseUnknownOptions(options: object, known: readonly string[]): void {
  rejectUnknownOptions(options, known, '');
  const given = options as Record<string, unknown>;
  const breaker = given.circuitBreaker;
  if (given.replicaEndpoints !== undefined && breaker !== undefined && breaker !== null) {
    throw new RespireConfigurationError(
      'replicaEndpoints',
      given.replicaEndpoints,
      'not set together with circuitBreaker (seed 000 "Limits")',
    );
  }
}

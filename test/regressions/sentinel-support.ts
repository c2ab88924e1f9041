// Set-up shared by the Sentinel regression tests: a client of a kit sentinel group that reconnects
// quickly and waits long for queue room and dedicated connections (a failover takes seconds).
import { RespireClient, type RespireOptions } from '../../src/index.js';
import type { RedisSentinelGroup } from '../kit/redis-sentinel.js';

/** A client of `group` with a short connect timeout and a 50 ms reconnect, `extra` on top. */
export function sentinelClient(
  group: RedisSentinelGroup,
  extra: Partial<RespireOptions> = {},
): Promise<RespireClient> {
  return RespireClient.connect({
    sentinel: { serviceName: group.serviceName, endpoints: [...group.sentinels] },
    connectTimeout: 1_000,
    acquireTimeout: 60_000,
    reconnect: () => 50,
    ...extra,
  });
}

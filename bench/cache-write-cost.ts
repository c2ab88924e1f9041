// What the client-side cache's tracking connection costs on a write-heavy server (README
// "Client-side cache"): in BCAST mode every write sends an invalidation to every tracking
// connection, whoever read the key. `node build/bench/cache-write-cost.js` (after
// `tsc -p tsconfig.bench.json`) runs redis-benchmark's SET on random keys against a fresh
// redis-server with no cache client, then with one idle Respire client with `clientSideCache`
// (RESP3, then RESP2), and prints the write rate, the server's CPU per write and the client's.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { RespireClient } from '../src/index.js';
import { startRedisServer } from '../test/kit/redis-server.js';
import { findRedisBenchmark, parseRequestsPerSecond } from './clients/redis-benchmark.js';

const run = promisify(execFile);
const WRITES = 1_000_000;

async function serverCpuSeconds(admin: RespireClient): Promise<number> {
  const info = String(await admin.send(['INFO', 'cpu']));
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)![1]);
  return field('used_cpu_sys') + field('used_cpu_user');
}

async function main(): Promise<void> {
  const binary = findRedisBenchmark();
  if (binary === undefined) throw new Error('redis-benchmark is not on PATH');
  const server = await startRedisServer();
  const endpoint = { host: server.host, port: server.port };
  const admin = await RespireClient.connect({ endpoints: [endpoint] });
  try {
    // No cache client first and last, to see the noise of a shared machine.
    const modes = [
      'no cache client',
      'clientSideCache RESP3',
      'clientSideCache RESP2',
      'no cache client',
    ] as const;
    for (const mode of modes) {
      const cached =
        mode === 'no cache client'
          ? undefined
          : await RespireClient.connect({
              endpoints: [endpoint],
              protocol: mode.endsWith('RESP3') ? 3 : 2,
              clientSideCache: { maxEntries: 1000 },
            });
      if (cached !== undefined) {
        await cached.set('armed', '1');
        while (cached.cacheStats!.hits === 0) await cached.get('armed');
      }
      const serverBefore = await serverCpuSeconds(admin);
      const clientBefore = process.cpuUsage();
      const args = ['-h', server.host, '-p', String(server.port), '-c', '4', '-P', '16'];
      const { stdout } = await run(binary, [
        ...args,
        ...['-t', 'set', '-r', '1000000', '-n', String(WRITES), '-d', '16', '--csv'],
      ]);
      // Let the last invalidations reach the client before its CPU is read.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const client = process.cpuUsage(clientBefore);
      const serverSeconds = (await serverCpuSeconds(admin)) - serverBefore;
      const rate = parseRequestsPerSecond(stdout, 'set');
      const clientNs = ((client.user + client.system) * 1000) / WRITES;
      console.log(
        `${mode.padEnd(22)} ${Math.round(rate).toLocaleString('en-US').padStart(9)} SET/s   server ` +
          `${((serverSeconds * 1e9) / WRITES).toFixed(0)} ns CPU/write   this process ${clientNs.toFixed(0)} ns CPU/write`,
      );
      await cached?.close();
    }
  } finally {
    await admin.close();
    await server.stop();
  }
}

await main();

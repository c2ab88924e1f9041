// Vitest glue for redis-server.ts: one server per test file (or describe block), started in
// beforeAll and stopped in afterAll, with its log printed when a test fails.
import { afterAll, afterEach, beforeAll } from 'vitest';
import {
  type RedisExit,
  type RedisServer,
  type RedisServerOptions,
  startRedisServer,
} from './redis-server.js';
import type { TlsCertificate } from './tls-certificate.js';

/**
 * Registers hooks that start a server before the tests of the current scope and stop it after.
 * The returned handle forwards to that server; reading it outside a test or hook throws.
 */
export function useRedisServer(options: RedisServerOptions = {}): RedisServer {
  const handle = new LazyRedisServer();
  beforeAll(async () => {
    handle.target = await startRedisServer(options);
  });
  afterAll(async () => {
    await handle.target?.stop();
    handle.target = undefined;
  });
  afterEach((context) => {
    if (context.task.result?.state === 'fail' && handle.target) {
      console.error(`redis-server ${handle.target.url} log:\n${handle.target.log()}`);
    }
  });
  return handle;
}

class LazyRedisServer implements RedisServer {
  target: RedisServer | undefined;

  private get server(): RedisServer {
    if (this.target === undefined) throw new Error('the redis-server is not running (used outside a test?)');
    return this.target;
  }

  get host(): string {
    return this.server.host;
  }
  get port(): number {
    return this.server.port;
  }
  get busPort(): number {
    return this.server.busPort;
  }
  get url(): string {
    return this.server.url;
  }
  get pid(): number {
    return this.server.pid;
  }
  get dir(): string {
    return this.server.dir;
  }
  get tls(): TlsCertificate | undefined {
    return this.server.tls;
  }
  stop(): Promise<void> {
    return this.server.stop();
  }
  kill(signal?: NodeJS.Signals): void {
    this.server.kill(signal);
  }
  waitForExit(): Promise<RedisExit> {
    return this.server.waitForExit();
  }
  restart(): Promise<void> {
    return this.server.restart();
  }
  log(): string {
    return this.server.log();
  }
  [Symbol.asyncDispose](): Promise<void> {
    return this.server.stop();
  }
}

// Starts real redis-server processes on free loopback ports in fresh temp dirs, and always stops them.
// No vitest import here: `npm run bench` compiles and uses this file too (see vitest-redis.ts).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findFreePort, LOOPBACK } from './free-port.js';
import { onProcessExit } from './process-cleanup.js';
import { probeRedis } from './redis-probe.js';
import { type TlsCertificate, testCertificate } from './tls-certificate.js';

/** An ACL user created at start (a `user` directive in the server's config file). */
export interface AclUser {
  name: string;
  /** Omitted: the user has `nopass`. */
  password?: string;
  /** ACL rules after `reset on >password`. Default `['~*', '&*', '+@all']`. */
  rules?: readonly string[];
}

export interface RedisTlsOptions {
  /** Require client certificates (`tls-auth-clients yes`); the kit's certificate works as one. Default false. */
  authClients?: boolean;
}

export interface RedisServerOptions {
  /** Extra command-line arguments, e.g. `['--maxmemory', '10mb']` or `['--cluster-enabled', 'yes']`. */
  args?: readonly string[];
  /** Extra lines for the config file (which the server may rewrite, as Cluster and Sentinel do). */
  configLines?: readonly string[];
  aclUsers?: readonly AclUser[];
  /** Serve TLS only: `port` is the TLS port and the plain port is disabled. */
  tls?: boolean | RedisTlsOptions;
  /** Deadline for the server to answer PING after spawning. Default 10,000 ms. */
  readyTimeoutMs?: number;
  /**
   * Cluster mode (`cluster-enabled yes`) with the bus on a second free port (`cluster-port`): the
   * default bus port, data port + 10,000, may be taken or above 65,535 for a kernel-chosen port.
   */
  cluster?: boolean;
  /**
   * The port to try first (one from `findFreePort()`, so that other servers' config can name it
   * before this one starts); if another process takes it meanwhile, a free one is picked instead.
   */
  preferredPort?: number;
}

export interface RedisExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface RedisServer {
  readonly host: string;
  readonly port: number;
  /** The cluster bus port with `cluster: true`, else 0. Kept by `restart()`, like `port`. */
  readonly busPort: number;
  /** `redis://127.0.0.1:<port>`, or `rediss://` with TLS. */
  readonly url: string;
  /** Pid of the current process; changes on `restart()`. */
  readonly pid: number;
  /** The server's working directory (config, RDB, nodes.conf); removed by `stop()`. */
  readonly dir: string;
  /** The certificate the server presents, when started with `tls`. */
  readonly tls: TlsCertificate | undefined;
  /** SIGTERM (then SIGKILL after 5 s), wait for exit, remove `dir`. Safe to call twice. */
  stop(): Promise<void>;
  /** Send a signal to the current process (`SIGKILL` by default; `SIGSTOP`/`SIGCONT` to freeze). */
  kill(signal?: NodeJS.Signals): void;
  /** Resolves when the current process exits. */
  waitForExit(): Promise<RedisExit>;
  /** Stop the process and start a new one on the same port, dir and config (data is not kept). */
  restart(): Promise<void>;
  /** The last 20,000 characters the server wrote to stdout/stderr (loglevel warning). */
  log(): string;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Override with `REDIS_SERVER=/path/to/redis-server`. */
const REDIS_SERVER_PATH = process.env.REDIS_SERVER ?? '/usr/bin/redis-server';
const LOG_TAIL_CHARS = 20_000;
const STOP_GRACE_MS = 5_000;
const START_ATTEMPTS = 8;
const PID_FILE = 'redis.pid';

/** Start one standalone server and wait until it answers PING. */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const tlsOptions = options.tls === true ? {} : options.tls || undefined;
  const certificate = tlsOptions ? await testCertificate() : undefined;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'respire-redis-'));
  const server = new RedisServerProcess(options, dir, certificate);
  writeFileSync(server.configFile, configText(options, dir, certificate, tlsOptions));
  try {
    await server.startOnFreePort();
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}

class RedisServerProcess implements RedisServer {
  readonly host = LOOPBACK;
  readonly configFile: string;
  port = 0;
  busPort = 0;
  private child: ChildProcess | undefined;
  private exited: Promise<RedisExit> = Promise.resolve({ code: null, signal: null });
  private output = '';
  private stopped = false;

  constructor(
    private readonly options: RedisServerOptions,
    readonly dir: string,
    readonly tls: TlsCertificate | undefined,
  ) {
    this.configFile = path.join(dir, 'redis.conf');
    live.add(this);
    installExitCleanup();
  }

  get url(): string {
    return `${this.tls ? 'rediss' : 'redis'}://${this.host}:${this.port}`;
  }

  get pid(): number {
    return this.child?.pid ?? -1;
  }

  async startOnFreePort(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const preferred = attempt === 1 ? this.options.preferredPort : undefined;
      this.port = preferred ?? (await findFreePort());
      if (this.options.cluster) this.busPort = await findFreePort();
      const outcome = await this.launch();
      if (outcome === 'ready') return;
      // Another process took the port between our probe and the server's bind: pick another.
      if (attempt === START_ATTEMPTS) throw this.startError(`port still taken after ${attempt} attempts`);
    }
  }

  async restart(): Promise<void> {
    await this.terminate();
    const deadline = Date.now() + (this.options.readyTimeoutMs ?? 10_000);
    // Same port: a client's reconnect must find the new process where the old one was.
    while ((await this.launch()) === 'port-taken') {
      if (Date.now() > deadline) throw this.startError(`port ${this.port} stayed taken`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  kill(signal: NodeJS.Signals = 'SIGKILL'): void {
    this.child?.kill(signal);
  }

  waitForExit(): Promise<RedisExit> {
    return this.exited;
  }

  log(): string {
    return this.output;
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.terminate();
    live.delete(this);
    rmSync(this.dir, { recursive: true, force: true });
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  /** Spawn on `this.port`; resolves once PING answers, or 'port-taken' if the bind failed. */
  private async launch(): Promise<'ready' | 'port-taken'> {
    const portArgs = this.tls
      ? ['--port', '0', '--tls-port', String(this.port)]
      : ['--port', String(this.port)];
    if (this.busPort !== 0) portArgs.push('--cluster-port', String(this.busPort));
    const child = spawn(REDIS_SERVER_PATH, [this.configFile, ...portArgs, ...(this.options.args ?? [])], {
      cwd: this.dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    let exitedNow = false;
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        exitedNow = true;
        resolve({ code, signal });
      });
      child.once('error', (error) => {
        this.append(`spawn ${REDIS_SERVER_PATH} failed: ${error.message}\n`);
        exitedNow = true;
        resolve({ code: null, signal: null });
      });
    });
    const keep = (chunk: Buffer) => this.append(chunk.toString('utf8'));
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    // A forgotten server must not hold the test process open; the exit hook kills it.
    child.unref();
    (child.stdout as unknown as { unref?: () => void } | null)?.unref?.();
    (child.stderr as unknown as { unref?: () => void } | null)?.unref?.();

    const deadline = Date.now() + (this.options.readyTimeoutMs ?? 10_000);
    let backoffMs = 5;
    for (;;) {
      const answer = await Promise.race([
        probeRedis({ host: this.host, port: this.port, tls: this.tls }),
        this.exited.then(() => 'exited' as const),
      ]);
      // A PONG alone could come from another process that won a race for the port; redis writes
      // its pidfile only after it has bound the port, so our pid there proves the answer is ours.
      if (answer === 'ready' && this.pidFileNames(child.pid)) return 'ready';
      if (exitedNow || answer === 'exited') {
        await this.exited;
        if (this.output.includes('Address already in use')) return 'port-taken';
        throw this.startError('redis-server exited during start');
      }
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw this.startError('redis-server did not answer PING in time');
      }
      // Refused or still loading: the server has not bound yet; ask again shortly.
      await new Promise((resolve) => setTimeout(resolve, backoffMs));
      backoffMs = Math.min(backoffMs * 2, 50);
    }
  }

  private pidFileNames(pid: number | undefined): boolean {
    try {
      return Number(readFileSync(path.join(this.dir, PID_FILE), 'utf8').trim()) === pid;
    } catch {
      return false;
    }
  }

  private async terminate(): Promise<void> {
    const child = this.child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    child.kill('SIGCONT'); // a SIGSTOPped server would never act on SIGTERM
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await this.exited;
    clearTimeout(timer);
  }

  private append(text: string): void {
    this.output = (this.output + text).slice(-LOG_TAIL_CHARS);
  }

  private startError(reason: string): Error {
    return new Error(`${reason} (port ${this.port}, dir ${this.dir}); server log:\n${this.output}`);
  }

  /** Synchronous, for the process exit hook. */
  killNowSync(): void {
    if (this.child && this.child.exitCode === null && this.child.signalCode === null)
      this.child.kill('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function configText(
  options: RedisServerOptions,
  dir: string,
  certificate: TlsCertificate | undefined,
  tlsOptions: RedisTlsOptions | undefined,
): string {
  const lines = [
    `bind ${LOOPBACK}`,
    `dir ${quote(dir)}`,
    `pidfile ${quote(path.join(dir, PID_FILE))}`,
    'daemonize no',
    'save ""',
    'appendonly no',
    'enable-debug-command yes',
    'protected-mode no',
    'loglevel warning',
    'logfile ""',
    // 7.0: no lagging-replica wait and no save on SIGTERM, so stop() is quick.
    'shutdown-on-sigterm nosave now',
  ];
  if (options.cluster) lines.push('cluster-enabled yes');
  if (certificate) {
    lines.push(
      `tls-cert-file ${quote(certificate.certFile)}`,
      `tls-key-file ${quote(certificate.keyFile)}`,
      `tls-ca-cert-file ${quote(certificate.caFile)}`,
      `tls-auth-clients ${tlsOptions?.authClients ? 'yes' : 'no'}`,
    );
  }
  for (const user of options.aclUsers ?? []) {
    const secret = user.password === undefined ? 'nopass' : `>${user.password}`;
    const rules = user.rules ?? ['~*', '&*', '+@all'];
    lines.push(['user', user.name, 'reset', 'on', secret, ...rules].map(quote).join(' '));
  }
  lines.push(...(options.configLines ?? []));
  return `${lines.join('\n')}\n`;
}

/** A config-file token in double quotes (redis splits config lines like a shell, sdssplitargs). */
function quote(token: string): string {
  return `"${token.replace(/[\\"]/g, (c) => `\\${c}`).replace(/\n/g, '\\n')}"`;
}

const live = new Set<RedisServerProcess>();
let cleanupInstalled = false;

/**
 * SIGKILL every server this process started and has not stopped, and remove their dirs. The kit
 * runs it on process exit and on SIGINT/SIGTERM/SIGHUP (process-cleanup.ts); callers may run it
 * too (a bench runner about to exit, a test of the kit).
 */
export function killAllServersSync(): void {
  for (const server of live) server.killNowSync();
  live.clear();
}

/** How many servers this process started and has not stopped or killed. */
export function liveServerCount(): number {
  return live.size;
}

function installExitCleanup(): void {
  if (cleanupInstalled) return;
  cleanupInstalled = true;
  onProcessExit(killAllServersSync);
}

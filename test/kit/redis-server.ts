// Starts real redis-server processes on free loopback ports in fresh temp dirs, and always stops them.
// A server can also be handed over to another process (cluster-pool.ts): it then outlives this one.
// No vitest import here: `npm run bench` compiles and uses this file too (see vitest-redis.ts).
import { type ChildProcess, spawn } from 'node:child_process';
import {
  appendFileSync,
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { findFreePort, LOOPBACK } from './free-port.js';
import { isProcessAlive } from './process-alive.js';
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

/** What another process needs to take over a running server (`handOver`, `adoptRedisServer`). */
export interface RedisServerHandover {
  readonly pid: number;
  readonly port: number;
  readonly busPort: number;
  readonly dir: string;
  readonly options: RedisServerOptions;
}

/** Override with `REDIS_SERVER=/path/to/redis-server`. */
const REDIS_SERVER_PATH = process.env.REDIS_SERVER ?? '/usr/bin/redis-server';
const LOG_TAIL_CHARS = 20_000;
const STOP_GRACE_MS = 5_000;
const START_ATTEMPTS = 8;
const PID_FILE = 'redis.pid';
/** stdout and stderr of every process the server dir has seen: a file, so an adopter can read it. */
const LOG_FILE = 'redis.log';
const EXIT_POLL_MS = 25;

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

/**
 * Take over a server another process started and handed over: from here this process stops it (or
 * kills it at exit), as if it had started it. Its exit is seen by polling, as it is not our child.
 */
export function adoptRedisServer(handover: RedisServerHandover): RedisServer {
  const server = new RedisServerProcess(handover.options, handover.dir, undefined);
  server.port = handover.port;
  server.busPort = handover.busPort;
  server.adoptedPid = handover.pid;
  return server;
}

class RedisServerProcess implements RedisServer {
  readonly host = LOOPBACK;
  readonly configFile: string;
  readonly logFile: string;
  port = 0;
  busPort = 0;
  /** The process when another process started it (adoptRedisServer); -1 once we spawn our own. */
  adoptedPid = -1;
  private child: ChildProcess | undefined;
  private childExit: Promise<RedisExit> = Promise.resolve({ code: null, signal: null });
  private adoptedExit: Promise<RedisExit> | undefined;
  /** The log as it was when `stop()` removed the dir. */
  private lastLog = '';
  private stopped = false;

  constructor(
    private readonly options: RedisServerOptions,
    readonly dir: string,
    readonly tls: TlsCertificate | undefined,
  ) {
    this.configFile = path.join(dir, 'redis.conf');
    this.logFile = path.join(dir, LOG_FILE);
    live.add(this);
    installExitCleanup();
  }

  get url(): string {
    return `${this.tls ? 'rediss' : 'redis'}://${this.host}:${this.port}`;
  }

  get pid(): number {
    return this.child?.pid ?? this.adoptedPid;
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
    if (this.child) {
      this.child.kill(signal);
      return;
    }
    try {
      if (this.adoptedPid > 0) process.kill(this.adoptedPid, signal);
    } catch {
      // Already gone.
    }
  }

  waitForExit(): Promise<RedisExit> {
    if (this.child || this.adoptedPid <= 0) return this.childExit;
    this.adoptedExit ??= untilGone(this.adoptedPid);
    return this.adoptedExit;
  }

  log(): string {
    return this.stopped ? this.lastLog : this.logSince(0).slice(-LOG_TAIL_CHARS);
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    await this.terminate();
    this.lastLog = this.log();
    this.stopped = true;
    live.delete(this);
    rmSync(this.dir, { recursive: true, force: true });
  }

  /**
   * Leave the running server to another process (adoptRedisServer): this one no longer stops it,
   * nor kills it at exit. Only a server started without TLS (its certificate is this process's).
   */
  handOver(): RedisServerHandover {
    if (this.tls) throw new Error('a TLS server cannot be handed over');
    // Even one that just died: the adopter finds it gone and starts afresh.
    this.stopped = true;
    live.delete(this);
    this.child?.unref();
    return { pid: this.pid, port: this.port, busPort: this.busPort, dir: this.dir, options: this.options };
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
    const logFrom = this.logSize();
    const output = openSync(this.logFile, 'a');
    let child: ChildProcess;
    try {
      child = spawn(REDIS_SERVER_PATH, [this.configFile, ...portArgs, ...(this.options.args ?? [])], {
        cwd: this.dir,
        stdio: ['ignore', output, output],
      });
    } finally {
      closeSync(output); // the child holds its own copy
    }
    this.child = child;
    this.adoptedPid = -1;
    let exitedNow = false;
    this.childExit = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        exitedNow = true;
        resolve({ code, signal });
      });
      child.once('error', (error) => {
        appendFileSync(this.logFile, `spawn ${REDIS_SERVER_PATH} failed: ${error.message}\n`);
        exitedNow = true;
        resolve({ code: null, signal: null });
      });
    });
    // A forgotten server must not hold the test process open; the exit hook kills it.
    child.unref();

    const deadline = Date.now() + (this.options.readyTimeoutMs ?? 10_000);
    let backoffMs = 5;
    for (;;) {
      const answer = await Promise.race([
        probeRedis({ host: this.host, port: this.port, tls: this.tls }),
        this.childExit.then(() => 'exited' as const),
      ]);
      // A PONG alone could come from another process that won a race for the port; redis writes
      // its pidfile only after it has bound the port, so our pid there proves the answer is ours.
      if (answer === 'ready' && pidInDir(this.dir) === child.pid) return 'ready';
      if (exitedNow || answer === 'exited') {
        await this.childExit;
        if (this.logSince(logFrom).includes('Address already in use')) return 'port-taken';
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

  private running(): boolean {
    if (this.child) return this.child.exitCode === null && this.child.signalCode === null;
    return this.adoptedPid > 0 && isProcessAlive(this.adoptedPid);
  }

  private async terminate(): Promise<void> {
    if (!this.running()) return;
    this.kill('SIGTERM');
    this.kill('SIGCONT'); // a SIGSTOPped server would never act on SIGTERM
    const timer = setTimeout(() => this.kill('SIGKILL'), STOP_GRACE_MS);
    await this.waitForExit();
    clearTimeout(timer);
  }

  private logSize(): number {
    try {
      return statSync(this.logFile).size;
    } catch {
      return 0;
    }
  }

  private logSince(offset: number): string {
    try {
      return readFileSync(this.logFile).subarray(offset).toString('utf8');
    } catch {
      return '';
    }
  }

  private startError(reason: string): Error {
    return new Error(`${reason} (port ${this.port}, dir ${this.dir}); server log:\n${this.log()}`);
  }

  /** Synchronous, for the process exit hook. */
  killNowSync(): void {
    if (this.running()) this.kill('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Resolves once a process that is not our child has exited (its code and signal are unknown). */
async function untilGone(pid: number): Promise<RedisExit> {
  while (isProcessAlive(pid)) await delay(EXIT_POLL_MS);
  return { code: null, signal: null };
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

/** `server.handOver()` for a server this kit started (see `RedisServerHandover`). */
export function handOver(server: RedisServer): RedisServerHandover {
  if (!(server instanceof RedisServerProcess))
    throw new Error('only a server the kit started can be handed over');
  return server.handOver();
}

/** The pid a server wrote to its dir's pid file (once it has bound its port), or 0 when none. */
export function pidInDir(dir: string): number {
  try {
    return Number(readFileSync(path.join(dir, PID_FILE), 'utf8').trim()) || 0;
  } catch {
    return 0;
  }
}

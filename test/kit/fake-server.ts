// A scripted RESP server on 127.0.0.1 for what Redis 7.0 cannot send: malformed frames, streamed
// strings and aggregates, attributes before pushes or inside aggregates, maintenance pushes, exact
// reply splits and timing (PROTOCOL.md §7). Anything a real redis-server can produce is tested
// against a real one (redis-server.ts) instead.
import net from 'node:net';
import { LOOPBACK } from './free-port.js';
import { readRequest } from './resp-wire.js';

/** The reply of a redis-server 7.0.15 to `HELLO 3`, for fakes that pass the client's handshake. */
export const HELLO_3_REPLY =
  '%7\r\n+server\r\n+redis\r\n+version\r\n+7.0.15\r\n+proto\r\n:3\r\n+id\r\n:1\r\n' +
  '+mode\r\n+standalone\r\n+role\r\n+master\r\n+modules\r\n*0\r\n';

/** Bytes to write; strings are written as UTF-8 (write RESP by hand: `'+OK\r\n'`). */
export type FakeBytes = string | Uint8Array;

/** Matches a received command: its arguments as UTF-8 strings, command name case-insensitive. */
export type FakeExpectation = readonly string[] | ((args: string[]) => boolean);

export type FakeStep =
  /** Wait for the next command, check it, then write `reply` (none: swallow it, e.g. for timeouts). */
  | { expect: FakeExpectation; reply?: FakeBytes; splitAt?: readonly number[] }
  /** Write bytes now, without waiting for a command (pushes, garbage, a reply ahead of time). */
  | { send: FakeBytes; splitAt?: readonly number[] }
  /** Pause the script until the cue settles (a promise the test resolves), never a fixed sleep. */
  | { waitFor: PromiseLike<unknown> | (() => PromiseLike<unknown>) }
  /** `end`: FIN after pending writes; `destroy`: close now; `reset`: send RST. */
  | { close: 'end' | 'destroy' | 'reset' };

export interface FakeServerOptions {
  /** The steps each accepted connection runs from its first; or a script per connection index. */
  script: readonly FakeStep[] | ((connectionIndex: number) => readonly FakeStep[]);
  /** Answers commands that arrive after the script ran out; `undefined` means no answer. */
  fallback?: (args: string[]) => FakeBytes | undefined;
}

export interface FakeConnection {
  readonly index: number;
  readonly socket: net.Socket;
  /** Commands this connection received, in order. */
  readonly commands: string[][];
  /** Resolves when the script has run to its end; rejects on a command that did not match. */
  readonly done: Promise<void>;
  /** Resolves when the socket has closed. */
  readonly closed: Promise<void>;
  /** Write bytes now, one socket write per piece when `splitAt` offsets are given. */
  send(bytes: FakeBytes, splitAt?: readonly number[]): Promise<void>;
}

export interface FakeServer {
  readonly host: string;
  readonly port: number;
  readonly url: string;
  /** Every command received, across connections, in arrival order. */
  readonly commands: string[][];
  /**
   * Script mismatches, unreadable requests, and scripts cut short by a closed connection; a passing
   * test expects this to stay empty.
   */
  readonly failures: Error[];
  readonly connectionCount: number;
  /** The connection accepted `index`-th (from 0), once it is accepted. */
  connection(index: number): Promise<FakeConnection>;
  /** Stop listening and destroy every connection. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Listen on 127.0.0.1 port 0 and run the script on every accepted connection. */
export async function startFakeServer(options: FakeServerOptions): Promise<FakeServer> {
  const server = new ScriptedServer(options);
  await server.listen();
  return server;
}

class ScriptedServer implements FakeServer {
  readonly host = LOOPBACK;
  port = 0;
  readonly commands: string[][] = [];
  readonly failures: Error[] = [];
  private readonly connections: ScriptedConnection[] = [];
  private readonly waiting = new Map<number, ((connection: FakeConnection) => void)[]>();
  private readonly server = net.createServer((socket) => this.accept(socket));

  constructor(private readonly options: FakeServerOptions) {}

  get url(): string {
    return `redis://${this.host}:${this.port}`;
  }

  get connectionCount(): number {
    return this.connections.length;
  }

  listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen({ host: this.host, port: 0 }, () => {
        const address = this.server.address();
        this.port = typeof address === 'object' && address !== null ? address.port : 0;
        resolve();
      });
    });
  }

  connection(index: number): Promise<FakeConnection> {
    const existing = this.connections[index];
    if (existing) return Promise.resolve(existing);
    return new Promise((resolve) => {
      const list = this.waiting.get(index) ?? [];
      list.push(resolve);
      this.waiting.set(index, list);
    });
  }

  close(): Promise<void> {
    for (const connection of this.connections) connection.socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  private accept(socket: net.Socket): void {
    const index = this.connections.length;
    const script =
      typeof this.options.script === 'function' ? this.options.script(index) : this.options.script;
    const connection = new ScriptedConnection(index, socket, script, this.options.fallback, {
      record: (args) => this.commands.push(args),
      fail: (error) => this.failures.push(error),
    });
    this.connections.push(connection);
    for (const resolve of this.waiting.get(index) ?? []) resolve(connection);
    this.waiting.delete(index);
  }
}

class ScriptedConnection implements FakeConnection {
  readonly commands: string[][] = [];
  readonly done: Promise<void>;
  readonly closed: Promise<void>;
  private received: Buffer = Buffer.alloc(0);
  /** Commands not yet taken by an `expect` step, and the step waiting for one. */
  private readonly queue: string[][] = [];
  private taker: ((args: string[] | undefined) => void) | undefined;
  private scriptEnded = false;
  private isClosed = false;

  constructor(
    readonly index: number,
    readonly socket: net.Socket,
    private readonly script: readonly FakeStep[],
    private readonly fallback: FakeServerOptions['fallback'],
    private readonly owner: { record(args: string[]): void; fail(error: Error): void },
  ) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', () => {}); // a client reset is a normal test event; `closed` reports it
    this.closed = new Promise((resolve) =>
      socket.once('close', () => {
        this.isClosed = true;
        this.taker?.(undefined);
        resolve();
      }),
    );
    this.done = this.run();
    this.done.catch((error: Error) => {
      owner.fail(error);
      socket.destroy();
    });
  }

  async send(bytes: FakeBytes, splitAt: readonly number[] = []): Promise<void> {
    const data = typeof bytes === 'string' ? Buffer.from(bytes) : Buffer.from(bytes);
    const cuts = [...new Set(splitAt)].filter((cut) => cut > 0 && cut < data.length).sort((a, b) => a - b);
    let start = 0;
    for (const end of [...cuts, data.length]) {
      await this.writePiece(data.subarray(start, end));
      start = end;
      // Two turns of the event loop: a client in this process reads the piece in the poll phase
      // between them, so the next piece arrives as its own `data` event (another process: likely).
      if (end < data.length) {
        await new Promise((resolve) => setImmediate(resolve));
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
  }

  private writePiece(piece: Buffer): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.socket.destroyed) return reject(new Error('fake server: write after close'));
      this.socket.write(piece, (error) => (error ? reject(error) : resolve()));
    });
  }

  private async run(): Promise<void> {
    for (const [stepIndex, step] of this.script.entries()) {
      if ('expect' in step) {
        const args = await this.nextCommand();
        if (args === undefined) throw new Error(`fake server: connection closed before step ${stepIndex}`);
        if (!matches(step.expect, args)) {
          throw new Error(
            `fake server: step ${stepIndex} expected ${describe(step.expect)}, got ${JSON.stringify(args)}`,
          );
        }
        if (step.reply !== undefined) await this.send(step.reply, step.splitAt);
      } else if ('send' in step) {
        await this.send(step.send, step.splitAt);
      } else if ('waitFor' in step) {
        await (typeof step.waitFor === 'function' ? step.waitFor() : step.waitFor);
      } else if (step.close === 'end') {
        this.socket.end();
      } else if (step.close === 'reset') {
        this.socket.resetAndDestroy();
      } else {
        this.socket.destroy();
      }
    }
    this.scriptEnded = true;
    for (const args of this.queue.splice(0)) this.answerFromFallback(args);
  }

  private nextCommand(): Promise<string[] | undefined> {
    const queued = this.queue.shift();
    if (queued !== undefined || this.isClosed) return Promise.resolve(queued);
    return new Promise((resolve) => {
      this.taker = (args) => {
        this.taker = undefined;
        resolve(args);
      };
    });
  }

  private onData(chunk: Buffer): void {
    this.received = this.received.length === 0 ? chunk : Buffer.concat([this.received, chunk]);
    let offset = 0;
    for (;;) {
      let request: ReturnType<typeof readRequest>;
      try {
        request = readRequest(this.received, offset);
      } catch (error) {
        this.received = Buffer.alloc(0);
        this.owner.fail(new Error(`fake server: unreadable request: ${(error as Error).message}`));
        this.socket.destroy();
        return;
      }
      if (request === undefined) break;
      offset = request.end;
      const args = request.args.map((arg) => arg.toString('utf8'));
      this.commands.push(args);
      this.owner.record(args);
      if (this.scriptEnded) this.answerFromFallback(args);
      else if (this.taker) this.taker(args);
      else this.queue.push(args);
    }
    this.received = this.received.subarray(offset);
  }

  private answerFromFallback(args: string[]): void {
    const reply = this.fallback?.(args);
    if (reply !== undefined && !this.socket.destroyed) this.socket.write(reply);
  }
}

function matches(expectation: FakeExpectation, args: string[]): boolean {
  if (typeof expectation === 'function') return expectation(args);
  if (expectation.length !== args.length) return false;
  return expectation.every((want, i) =>
    i === 0 ? want.toUpperCase() === args[0]!.toUpperCase() : want === args[i],
  );
}

function describe(expectation: FakeExpectation): string {
  return typeof expectation === 'function'
    ? 'a command accepted by the predicate'
    : JSON.stringify(expectation);
}

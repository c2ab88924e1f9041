// A plain socket to a server that keeps every byte it receives, for tests below any client:
// send hand-encoded commands, take replies as raw bytes cut at frame boundaries.
import net from 'node:net';
import tls from 'node:tls';
import { encodePipeline, frameEnd, type WireArgument } from './resp-wire.js';
import type { TlsCertificate } from './tls-certificate.js';

export interface RawConnectionTarget {
  host: string;
  port: number;
  /** Connect with TLS, trusting (and presenting) this certificate. */
  tls?: TlsCertificate | undefined;
}

interface FrameWaiter {
  count: number;
  resolve(bytes: Buffer): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

export class RawConnection {
  private buffered: Buffer = Buffer.alloc(0);
  private waiter: FrameWaiter | undefined;
  private failure: Error | undefined;

  private constructor(readonly socket: net.Socket) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
      this.settle();
    });
    socket.on('error', (error) => this.fail(error));
    socket.on('close', () => this.fail(new Error('connection closed')));
  }

  /** Connect (TLS when `target.tls` is set) and resolve once the socket is ready to write. */
  static open(target: RawConnectionTarget): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const options = { host: target.host, port: target.port };
      const socket = target.tls
        ? tls.connect({ ...options, ca: target.tls.ca, cert: target.tls.cert, key: target.tls.key })
        : net.connect(options);
      socket.once('error', reject);
      socket.once(target.tls ? 'secureConnect' : 'connect', () => {
        socket.removeListener('error', reject);
        resolve(new RawConnection(socket));
      });
    });
  }

  /** Write commands back to back (one pipeline, one write). */
  send(...commands: (readonly WireArgument[])[]): void {
    this.socket.write(encodePipeline(commands));
  }

  /** Write bytes as they are. */
  write(bytes: Uint8Array | string): void {
    this.socket.write(bytes);
  }

  /** Send commands and take the bytes of `frames` reply frames (default: one per command). */
  request(commands: readonly (readonly WireArgument[])[], frames = commands.length): Promise<Buffer> {
    this.send(...commands);
    return this.readFrames(frames);
  }

  /**
   * Take the bytes of the next `count` complete frames (a push is a frame; an attribute belongs to
   * the frame after it), as the server sent them. Rejects on close, error or after `timeoutMs`.
   */
  readFrames(count: number, timeoutMs = 5_000): Promise<Buffer> {
    if (this.waiter) return Promise.reject(new Error('readFrames is already waiting'));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        if (this.waiter)
          this.finish(this.waiter, new Error(`no ${count} frames in ${timeoutMs} ms: ${this.describe()}`));
      }, timeoutMs);
      this.waiter = { count, resolve, reject, timer };
      this.settle();
    });
  }

  /** Bytes received and not yet taken. */
  get received(): Buffer {
    return this.buffered;
  }

  close(): void {
    this.socket.destroy();
  }

  private settle(): void {
    const waiter = this.waiter;
    if (!waiter) return;
    let end = 0;
    try {
      for (let i = 0; i < waiter.count && end !== -1; i++) end = frameEnd(this.buffered, end);
    } catch (error) {
      this.finish(waiter, error as Error);
      return;
    }
    if (end === -1) {
      if (this.failure) this.finish(waiter, new Error(`${this.failure.message}; have ${this.describe()}`));
      return;
    }
    const taken = this.buffered.subarray(0, end);
    this.buffered = this.buffered.subarray(end);
    this.finish(waiter, taken);
  }

  private finish(waiter: FrameWaiter, outcome: Buffer | Error): void {
    clearTimeout(waiter.timer);
    this.waiter = undefined;
    if (outcome instanceof Error) waiter.reject(outcome);
    else waiter.resolve(outcome);
  }

  private fail(error: Error): void {
    this.failure ??= error;
    this.settle();
  }

  private describe(): string {
    return JSON.stringify(this.buffered.toString('latin1').slice(0, 400));
  }
}

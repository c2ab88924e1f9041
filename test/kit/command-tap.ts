// A TCP tap for circuit tests and the breaker-shared bench: forwards every connection to a target
// and reads both directions (requests with the kit's own RESP reader, replies by frame), so it can say which
// commands reached the server side while the client's circuit was open or half-open, and how many
// were in flight there at once. Replies are counted before they are passed on, so the client never
// learns of a reply before the tap does.
import net from 'node:net';
import type { ClientCircuit } from '../../src/client/node/circuit-gate.js';
import { frameEnd, readRequest } from './resp-wire.js';

/** What the client sends on its own when it connects: never admitted, so never counted. */
const SETUP_COMMANDS = new Set(['HELLO', 'CLIENT', 'SELECT', 'AUTH', 'QUIT']);

export class CommandTap {
  /** User commands that arrived, by name, with the circuit's state at arrival: `GET@half_open`. */
  readonly arrivals: string[] = [];
  /** Most user commands in flight at once while the circuit was half-open. */
  maxInFlightHalfOpen = 0;
  private inFlight = 0;
  private readonly sockets = new Set<net.Socket>();
  private readonly server = net.createServer((socket) => this.accept(socket));
  circuit: ClientCircuit | undefined;

  private constructor(private readonly target: { host: string; port: number }) {}

  static async start(target: { host: string; port: number }): Promise<CommandTap> {
    const tap = new CommandTap(target);
    await new Promise<void>((resolve) => tap.server.listen({ host: '127.0.0.1', port: 0 }, resolve));
    return tap;
  }

  get port(): number {
    return (this.server.address() as net.AddressInfo).port;
  }

  /** User commands that arrived while the circuit was in `state`. */
  arrivedWhile(state: string): string[] {
    return this.arrivals.filter((arrival) => arrival.endsWith(`@${state}`));
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: net.Socket): void {
    const upstream = net.connect(this.target);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.setNoDelay(true);
      socket.on('error', () => {});
      socket.on('close', () => {
        this.sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    /** Per connection, in order: whether each request awaiting its reply is a user command. */
    const owed: boolean[] = [];
    let requests = Buffer.alloc(0);
    let replies = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      requests = Buffer.concat([requests, chunk]);
      for (let request = readRequest(requests); request !== undefined; request = readRequest(requests)) {
        requests = requests.subarray(request.end);
        const name = request.args[0]!.toString('latin1').toUpperCase();
        const user = !SETUP_COMMANDS.has(name);
        owed.push(user);
        if (user) this.arrived(name);
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      replies = Buffer.concat([replies, chunk]);
      for (let end = frameEnd(replies); end !== -1; end = frameEnd(replies)) {
        replies = replies.subarray(end);
        if (owed.shift() === true) this.inFlight--;
      }
      client.write(chunk);
    });
    client.on('close', () => {
      // The connection died with replies owed: those commands are no longer in flight.
      for (const user of owed.splice(0)) if (user) this.inFlight--;
    });
  }

  private arrived(name: string): void {
    const state = this.circuit?.state ?? 'closed';
    this.arrivals.push(`${name}@${state}`);
    this.inFlight++;
    if (state === 'half_open' && this.inFlight > this.maxInFlightHalfOpen) {
      this.maxInFlightHalfOpen = this.inFlight;
    }
  }
}

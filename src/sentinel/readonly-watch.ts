// A READONLY reply from the node the client takes for the primary means it was demoted (PROTOCOL.md
// §3.10: "-READONLY … after a failover means re-resolve now"; issue 12: resolve again on a READONLY
// reply). The router hooks each command it sends to the primary through its error sink, which a
// command calls once with what its caller receives: no per-command allocation. The write itself
// still fails to its caller: the server refused it, and replaying it is the caller's decision.
// Transactions and WATCH sessions do not pass through the router's send: the router hands their
// errors to `observe` (a write refused at queue time comes back as the cause of EXECABORT).
import { RespireServerError } from '../errors.js';

type ErrorSink = (error: unknown) => void;

export class ReadonlyWatch {
  /** The wrapped form of each sink seen, so a command's sink is wrapped once per sink, not per command. */
  private readonly wrapped = new WeakMap<ErrorSink, ErrorSink>();
  private readonly bare: ErrorSink;

  constructor(private readonly onReadonly: () => void) {
    this.bare = (error) => this.observe(error);
  }

  /** The error sink a command sent to the primary gets: `sink` (if any) after the READONLY check. */
  sinkFor(sink: ErrorSink | undefined): ErrorSink {
    if (sink === undefined) return this.bare;
    let wrapped = this.wrapped.get(sink);
    if (wrapped === undefined) {
      wrapped = (error) => {
        this.observe(error);
        sink(error);
      };
      this.wrapped.set(sink, wrapped);
    }
    return wrapped;
  }

  /** An error some caller received from the primary: a READONLY (or EXECABORT for one) starts a lookup. */
  observe(error: unknown): void {
    if (!(error instanceof RespireServerError)) return;
    const refusal = error.code === 'EXECABORT' ? error.cause : error;
    if (refusal instanceof RespireServerError && refusal.code === 'READONLY') this.onReadonly();
  }
}

// Where an endpoint's new connections go after a MOVING (PROTOCOL.md §5 item 2, as redis-py): the
// announced endpoint until the announced time has passed, then the configured one again (by then
// the configured address leads to the new server). One per endpoint, shared by its channels like
// its maintenance windows, so a reconnect of the shared pipeline, a new dedicated connection or a
// resubscribe all follow the move. An announced endpoint that refuses a connection is forgotten:
// the next attempt goes to the configured endpoint, as a handoff that cannot open its replacement
// carries on with the configured one. A MOVING without an endpoint means the configured one.
import type { RespireEndpoint } from '../../errors.js';
import type { Clock } from '../../util/clock.js';

export class MovedEndpoint {
  private to: RespireEndpoint | undefined;
  /** Clock time the announcement ends. */
  private until = 0;

  constructor(private readonly clock: Clock) {}

  /** A MOVING announced `to` (null: the configured endpoint) for `timeS` seconds. */
  announce(to: RespireEndpoint | null, timeS: number): void {
    this.to = to ?? undefined;
    this.until = this.clock.now() + timeS * 1000;
  }

  /** The endpoint a new connection goes to instead of the configured one, if any now. */
  get target(): RespireEndpoint | undefined {
    if (this.to !== undefined && this.clock.now() >= this.until) this.to = undefined;
    return this.to;
  }

  /** A connection to `endpoint` could not be opened: forget it if it is still the announced one. */
  refused(endpoint: RespireEndpoint): void {
    if (this.to === endpoint) this.to = undefined;
  }
}

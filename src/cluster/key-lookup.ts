// The slot of a command the command table cannot resolve (issue 11 "Routing": `COMMAND GETKEYS`
// for movable-key shapes, cached per shape; PROTOCOL.md §2.2). Every movable-key command of the
// generated table (Redis 7.0: EVAL/FCALL numkeys, ZUNIONSTORE, XREAD STREAMS, GEORADIUS STORE,
// LMPOP…, and SORT, SORT_RO, MIGRATE through their native extractors) is resolved from the table
// with no round trip; what is left are commands the table does not know: a module's, a newer
// server's, a renamed one. For those:
// - `COMMAND INFO <name>` once per command name: the server's own key specs are the shape (the
//   argument positions and keywords that hold keys), cached for every later call whatever its
//   values, so those calls are routed at once, in order, like any table command. At most
//   NAMES_KEPT names are kept (oldest dropped first); a name the server does not know is kept too.
// - Only where those specs cannot say either (`unknown`, `incomplete`: keys found by a module's
//   own code), `COMMAND GETKEYS <the command line>` for that call: such keys depend on the values,
//   so there is no shape to cache.
// - A lookup that fails (no answer, a rejection) routes the command as a keyless one: the server
//   redirects it (MOVED) if it must. Failures are not cached.
// Both lookups are sent on behalf of a caller's command, through the ordinary pipeline of a
// primary, so that node's circuit admits them like any command (seed 000: only background topology
// refresh goes unchecked); the caller's command is then admitted on its own node.

import { specKeys } from '../client/command-keys.js';
import { commandRows } from '../client/command-rows.js';
import { argumentText, type CommandSpec, specFromRow } from '../client/command-table.js';
import type { EndpointNode } from '../client/node/endpoint-node.js';
import { type RespireEndpoint, RespireTimeoutError } from '../errors.js';
import type { RespArgument } from '../resp/encoder.js';
import type { RespValue } from '../resp/types.js';
import { Command } from '../transport/command.js';
import { ANY_SLOT, sharedSlot, slotOfArguments } from './command-slot.js';
import { keySlot } from './key-slot.js';

/**
 * A COMMAND INFO or COMMAND GETKEYS for a caller's command on `node` (a primary): on its pipeline,
 * admitted by its circuit like any command (not background work: seed 000), not traced on its own.
 */
export function lookupOn(
  node: EndpointNode | Error,
  args: readonly RespArgument[],
  timeoutMs: number,
): Promise<RespValue> {
  if (node instanceof Error) return Promise.reject(node);
  const command = new Command<RespValue>(args, 0, undefined, undefined, timeoutMs);
  node.send(command as Command<unknown>, false);
  return command.promise;
}

/** The caller's deadline ran out while its command's keys were looked up: the command was not sent. */
export function lookupTimeout(
  args: readonly RespArgument[],
  timeoutMs: number,
  endpoint: RespireEndpoint,
): RespireTimeoutError {
  const name = args[0] === undefined ? '' : argumentText(args[0]);
  return new RespireTimeoutError(
    `${name} was not sent: looking up its keys (COMMAND INFO/GETKEYS) took its whole ${timeoutMs} ms deadline`,
    'acquire',
    { endpoint, timeoutMs, written: false },
  );
}

/** Command names whose server key specs are kept. */
export const NAMES_KEPT = 256;

/** Sends a lookup command to some primary under a reply deadline (ms); resolves with its reply. */
export type LookupSender = (args: readonly RespArgument[], timeoutMs: number) => Promise<RespValue>;

export class KeyLookup {
  /** Specs by lower-case command name; null: the server does not know the command. */
  private readonly specs = new Map<string, CommandSpec | null>();
  /** COMMAND INFO in flight by name, so that a burst of calls asks once. */
  private readonly asking = new Map<string, Promise<CommandSpec | null>>();

  constructor(private readonly send: LookupSender) {}

  /**
   * The slot (or ANY_SLOT / CROSS_SLOT) when the server's specs are known and resolve `args`;
   * undefined when a lookup is needed (`slotOf`).
   */
  slotNow(args: readonly RespArgument[]): number | undefined {
    const spec = this.specs.get(nameOf(args));
    if (spec === undefined) return undefined;
    if (spec === null) return ANY_SLOT;
    const keys = specKeys(governing(spec, args), args, { includeNotKeys: true });
    if (keys === undefined) return undefined;
    return keys.length === 0 ? ANY_SLOT : slotOfArguments(args, keys);
  }

  /**
   * The server's spec for `args` (its subcommand's, if it names one) once COMMAND INFO told it:
   * a keyless command's request and response policy tips come from it (issue 11 "Routing").
   */
  specNow(args: readonly RespArgument[]): CommandSpec | undefined {
    const spec = this.specs.get(nameOf(args));
    return spec === undefined || spec === null ? undefined : governing(spec, args);
  }

  /**
   * The slot of `args`, asking the server what it must under the caller's deadline `timeoutMs`;
   * ANY_SLOT when it cannot be told.
   */
  async slotOf(args: readonly RespArgument[], timeoutMs = 0): Promise<number> {
    try {
      await this.specOf(nameOf(args), timeoutMs);
      const now = this.slotNow(args);
      if (now !== undefined) return now;
      const reply = await this.send(['COMMAND', 'GETKEYS', ...args], timeoutMs);
      if (!Array.isArray(reply)) return ANY_SLOT;
      return sharedSlot(
        reply.map((key) => (typeof key === 'string' || Buffer.isBuffer(key) ? keySlot(key) : ANY_SLOT)),
      );
    } catch {
      return ANY_SLOT;
    }
  }

  /** A burst of calls shares one COMMAND INFO, under the first one's deadline. */
  private specOf(name: string, timeoutMs: number): Promise<CommandSpec | null> {
    const known = this.specs.get(name);
    if (known !== undefined) return Promise.resolve(known);
    let pending = this.asking.get(name);
    if (pending === undefined) {
      pending = this.send(['COMMAND', 'INFO', name], timeoutMs)
        .then((reply) => {
          const first = Array.isArray(reply) ? reply[0] : undefined;
          const spec = first === null || first === undefined ? null : specFromRow(commandRows([first])[0]!);
          this.keep(name, spec);
          return spec;
        })
        .finally(() => this.asking.delete(name));
      this.asking.set(name, pending);
    }
    return pending;
  }

  private keep(name: string, spec: CommandSpec | null): void {
    if (this.specs.size >= NAMES_KEPT) this.specs.delete(this.specs.keys().next().value!);
    this.specs.set(name, spec);
  }
}

function nameOf(args: readonly RespArgument[]): string {
  return args[0] === undefined ? '' : argumentText(args[0]).toLowerCase();
}

/** The subcommand's spec when the command has subcommands and names one. */
function governing(spec: CommandSpec, args: readonly RespArgument[]): CommandSpec {
  if (spec.subcommands === undefined || args.length < 2) return spec;
  return spec.subcommands.get(argumentText(args[1]!).toLowerCase()) ?? spec;
}

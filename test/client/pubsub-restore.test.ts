// restoreCommands (src/client/pubsub/pubsub-restore.ts) without a server: the commands it builds for the
// confirmed subscriptions, the check of the count the server confirms, and a refusal's handling.
import { describe, expect, it } from 'vitest';
import type { PubSubErrorEvent } from '../../src/client/pubsub/pubsub-errors.js';
import { SubscriptionRegistry } from '../../src/client/pubsub/pubsub-registry.js';
import { restoreCommands } from '../../src/client/pubsub/pubsub-restore.js';
import { RespireServerError } from '../../src/index.js';

function confirmedRegistry(): SubscriptionRegistry {
  const registry = new SubscriptionRegistry();
  const listener = () => {};
  for (const [kind, names] of [
    ['channel', ['a', 'b']],
    ['pattern', ['p*']],
    ['shard', ['s1', 's2']],
  ] as const) {
    for (const entry of registry.add(kind, names, listener).fresh) entry.confirmed = true;
  }
  registry.add('channel', ['unconfirmed'], listener);
  return registry;
}

function context(registry: SubscriptionRegistry) {
  const reports: [unknown, PubSubErrorEvent][] = [];
  const sent: string[][] = [];
  return {
    reports,
    sent,
    restore: () =>
      restoreCommands({
        registry,
        endpoint: { host: '127.0.0.1', port: 6379 },
        commandTimeout: 0,
        send: (kind, names) => {
          sent.push([kind, ...names]);
          return Promise.resolve(1);
        },
        report: (error, event) => reports.push([error, event]),
      }),
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

/** Confirms each command with the count the server would report, in order. */
function confirm(
  commands: readonly { resolve(count: unknown): void }[],
  counts: readonly number[],
): Promise<unknown> {
  for (const [i, command] of commands.entries()) command.resolve(counts[i]);
  return settle();
}

describe('restoreCommands', () => {
  it('subscribes again to every confirmed name: channels, patterns, then shard channels one by one', () => {
    const commands = context(confirmedRegistry()).restore();
    expect(commands.map((command) => command.args)).toEqual([
      ['SUBSCRIBE', 'a', 'b'],
      ['PSUBSCRIBE', 'p*'],
      ['SSUBSCRIBE', 's1'],
      ['SSUBSCRIBE', 's2'],
    ]);
  });

  it('is silent when the server confirms the counts restored', async () => {
    const rig = context(confirmedRegistry());
    await confirm(rig.restore(), [2, 3, 1, 2]);
    expect(rig.reports).toEqual([]);
  });

  it('reports a count that differs from the names restored', async () => {
    const rig = context(confirmedRegistry());
    await confirm(rig.restore(), [2, 2, 1, 2]);
    expect(rig.reports).toHaveLength(1);
    const [error, event] = rig.reports[0]!;
    expect((error as Error).message).toMatch(
      /confirmed 2 channel and pattern subscriptions of the 3 restored/,
    );
    expect(event).toEqual({ source: 'restore', kind: undefined, names: [] });
  });

  it('retries the names of a refused command one by one, and forgets a refused single name', async () => {
    const registry = confirmedRegistry();
    const rig = context(registry);
    const [channels, , s1] = rig.restore();
    const refusal = RespireServerError.fromReply('NOPERM no permissions');
    channels!.reject(refusal);
    s1!.reject(refusal);
    await settle();
    expect(rig.sent).toEqual([
      ['channel', 'a'],
      ['channel', 'b'],
    ]);
    expect(rig.reports).toEqual([[refusal, { source: 'restore', kind: 'shard', names: ['s1'] }]]);
    expect(registry.names('shard')).toEqual(['s2']);
    expect(registry.names('channel')).toEqual(['a', 'b', 'unconfirmed']);
  });
});

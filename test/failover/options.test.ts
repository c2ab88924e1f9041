// RespireFailoverGroup's options (API.md "Failover group"): bad options are refused with
// RespireConfigurationError naming the option, before anything connects.
import { describe, expect, it } from 'vitest';
import { RespireConfigurationError, RespireFailoverGroup } from '../../src/index.js';

const member = (name: unknown, weight: unknown = 1) => ({
  name,
  weight,
  options: { endpoints: ['127.0.0.1:1'] },
});

async function refusal(options: unknown): Promise<RespireConfigurationError> {
  const error = await RespireFailoverGroup.connect(options as never).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(RespireConfigurationError);
  return error as RespireConfigurationError;
}

describe('RespireFailoverGroup options', () => {
  it('refuses no members, or members that are not an array', async () => {
    expect((await refusal({ members: [] })).option).toBe('members');
    expect((await refusal({ members: 'east' })).option).toBe('members');
    expect((await refusal({})).option).toBe('members');
  });

  it('refuses duplicate and empty names', async () => {
    const duplicate = await refusal({ members: [member('east'), member('east')] });
    expect(duplicate.option).toBe('members[1].name');
    expect(duplicate.message).toContain('a name no other member has');
    expect((await refusal({ members: [member('')] })).option).toBe('members[0].name');
    expect((await refusal({ members: [member(7)] })).option).toBe('members[0].name');
  });

  it('refuses weights that are not finite numbers', async () => {
    for (const weight of [Number.NaN, Number.POSITIVE_INFINITY, '2']) {
      expect((await refusal({ members: [member('east', weight)] })).option).toBe('members[0].weight');
    }
    const unweighted = { name: 'east', options: { endpoints: ['127.0.0.1:1'] } };
    expect((await refusal({ members: [unweighted] })).option).toBe('members[0].weight');
  });

  it("names a member's own bad option under members[i].options", async () => {
    const bad = { name: 'west', weight: 1, options: { endpoints: ['127.0.0.1:1'], commandTimeout: -1 } };
    expect((await refusal({ members: [member('east'), bad] })).option).toBe(
      'members[1].options.commandTimeout',
    );
  });

  it('refuses bad health-check settings and unknown names', async () => {
    const members = [member('east')];
    expect((await refusal({ members, healthCheck: { interval: 0 } })).option).toBe('healthCheck.interval');
    expect((await refusal({ members, healthCheck: { failuresToSwitch: 1.5 } })).option).toBe(
      'healthCheck.failuresToSwitch',
    );
    expect((await refusal({ members, healthCheck: { probe: 'PING' } })).option).toBe('healthCheck.probe');
    expect((await refusal({ members, failbackDelay: -1 })).option).toBe('failbackDelay');
    expect((await refusal({ members, failback: 1 })).option).toBe('failback');
  });
});

// RespireFailoverGroup.connect checked each member with `members.forEach`, which skips the holes
// of a sparse array: `[, member]` passed validation and then failed with a TypeError while the
// members were being built, where bad options must give a RespireConfigurationError naming the
// option (issue 14). Validation fails before anything connects, so no server is needed.
import { describe, expect, it } from 'vitest';
import {
  RespireConfigurationError,
  RespireFailoverGroup,
  type RespireFailoverMember,
} from '../../src/index.js';

const member: RespireFailoverMember = {
  name: 'east',
  weight: 1,
  options: { endpoints: [{ host: '127.0.0.1', port: 1 }] },
};

describe('a failover group with a hole among its members', () => {
  it('is rejected with a RespireConfigurationError naming the hole', async () => {
    const members: RespireFailoverMember[] = [];
    members[1] = member;
    const error = await RespireFailoverGroup.connect({ members }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RespireConfigurationError);
    expect((error as RespireConfigurationError).option).toBe('members[0]');
  });
});

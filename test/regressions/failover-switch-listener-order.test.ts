// onSwitch listeners were told of a switch in a loop that a listener could re-enter: a listener
// that called switchTo() made a second switch whose listeners were all told before the rest of
// the first switch's were, so a later listener heard "west → east" and then "east → west", and
// believed west active while east was (issue 14: onSwitch(from, to, reason) after each switch).
// Now switches are told in the order they happened, to every listener.
import { describe, expect, it } from 'vitest';
import { useGroups } from '../failover/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const east = useRedisServer();
const west = useRedisServer();
const groups = useGroups();

describe('a switch made by an onSwitch listener', () => {
  it('is told to every listener after the switch that prompted it', async () => {
    const group = await groups.connect({ east: east.port, west: west.port }, { failbackDelay: 600_000 });
    let bounced = false;
    group.onSwitch((_from, to) => {
      if (to === 'west' && !bounced) {
        bounced = true;
        group.switchTo('east');
      }
    });
    const heard: string[] = [];
    group.onSwitch((from, to, reason) => heard.push(`${from}>${to}:${reason}`));
    group.switchTo('west');
    expect(group.active).toBe('east');
    expect(heard).toEqual(['east>west:manual', 'west>east:manual']);
    expect(await group.client.set('fg:order', '1')).toBe('OK');
  });
});

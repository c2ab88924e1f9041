// Sentinel event messages (PROTOCOL.md §3.8; redis docs "Sentinel API", "Pub/Sub messages"): the
// channels Respire subscribes to and the one-line payloads it reads. Events are hints only: the
// watcher confirms every one by asking sentinels and checking ROLE (issue 12 "Discovery").
import type { RespireEndpoint } from '../errors.js';
import type { RespValue } from '../resp/types.js';
import { endpointOf } from './replies.js';

/**
 * `+switch-master` (the primary changed), `+sdown`/`+odown` (an instance is down: of the primary,
 * a hint that a switch is near; of a replica, it leaves the list), `-sdown` (back), `+slave` (a new
 * replica), `+convert-to-slave` and `+role-change` (an instance changed role), `+sentinel` (a new
 * sentinel: learn it with SENTINEL SENTINELS).
 */
export const EVENT_CHANNELS = [
  '+switch-master',
  '+sdown',
  '-sdown',
  '+odown',
  '+slave',
  '+convert-to-slave',
  '+role-change',
  '+sentinel',
] as const;
export type EventChannel = (typeof EVENT_CHANNELS)[number];

export type SentinelEvent =
  /** `<name> <old-ip> <old-port> <new-ip> <new-port>` */
  | { readonly channel: '+switch-master'; readonly service: string; readonly to: RespireEndpoint }
  /** `<instance-type> <name> <ip> <port> [@ <master-name> <master-ip> <master-port>]` */
  | {
      readonly channel: Exclude<EventChannel, '+switch-master'>;
      /** `master`, `slave` or `sentinel`. */
      readonly instance: string;
      /** The service the instance belongs to (its own name for a master). */
      readonly service: string;
    };

/** The event a `message` frame (RESP3 push or RESP2 array) carries, or undefined when it is none. */
export function readEvent(frame: readonly RespValue[]): SentinelEvent | undefined {
  const [kind, channel, payload] = frame;
  if (kind !== 'message' || typeof channel !== 'string' || typeof payload !== 'string') return undefined;
  if (!(EVENT_CHANNELS as readonly string[]).includes(channel)) return undefined;
  const words = payload.split(' ');
  if (channel === '+switch-master') {
    const to = endpointOf(words[3], words[4]);
    return words.length >= 5 && to !== undefined ? { channel, service: words[0]!, to } : undefined;
  }
  const [instance, name] = words;
  if (instance === undefined || name === undefined) return undefined;
  const at = words.indexOf('@');
  const service = instance === 'master' || at === -1 ? name : words[at + 1];
  if (service === undefined) return undefined;
  return { channel: channel as Exclude<EventChannel, '+switch-master'>, instance, service };
}

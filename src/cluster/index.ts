// `respire/cluster`: what Cluster users may compute without a client, such as a key's hash slot.

export { keySlot, SLOT_COUNT } from './key-slot.js';

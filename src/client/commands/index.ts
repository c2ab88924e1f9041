// Every typed command family, merged into Commander.
import { type ConnectionCommands, connectionCommands } from './connection.js';
import { type PubSubCommands, pubSubCommands } from './pubsub.js';
import { type ScanCommands, scanCommands } from './scan.js';
import { type ScriptingCommands, scriptingCommands } from './scripting.js';
import { type StringCommands, stringCommands } from './strings.js';

export interface RedisCommands
  extends ConnectionCommands,
    StringCommands,
    PubSubCommands,
    ScanCommands,
    ScriptingCommands {}

export const commandFamilies: readonly object[] = [
  connectionCommands,
  stringCommands,
  pubSubCommands,
  scanCommands,
  scriptingCommands,
];

// Every typed command family, merged into Commander.
import { type ConnectionCommands, connectionCommands } from './connection.js';
import { type StringCommands, stringCommands } from './strings.js';

export interface RedisCommands extends ConnectionCommands, StringCommands {}

export const commandFamilies: readonly object[] = [connectionCommands, stringCommands];

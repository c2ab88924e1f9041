// What the `client` suite asks of each Redis client it compares. One module per client, each
// imported only inside that client's own worker process (bench/isolation.ts).

export interface ClientDriver {
  get(key: string): Promise<unknown>;
  set(key: string, value: string): Promise<unknown>;
  /** One explicit pipeline of a GET per key, in the client's own pipeline API; the values in order. */
  pipelineGets(keys: readonly string[]): Promise<unknown[]>;
  close(): Promise<void>;
}

/** Opens a driver on `redis://host:port`, connected and ready for commands. */
export type ConnectDriver = (url: string) => Promise<ClientDriver>;

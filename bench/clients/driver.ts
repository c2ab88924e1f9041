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

/** What the `cluster` suite asks of each Redis Cluster client. */
export interface ClusterDriver {
  get(key: string): Promise<unknown>;
  set(key: string, value: string): Promise<unknown>;
  /** MGET of keys in several slots, as the client's users write it; the values in key order. */
  mget(keys: readonly string[]): Promise<unknown[]>;
  close(): Promise<void>;
}

/** Opens a driver on the cluster of these seed nodes, with the topology read and ready for commands. */
export type ConnectClusterDriver = (
  seeds: readonly { host: string; port: number }[],
) => Promise<ClusterDriver>;

/**
 * The fleet's store: one Postgres database shared by every gateway instance, through a pool of
 * connections. Migrations run at open under an advisory lock.
 *
 * Every write of a record bumps a records version in `meta` and sends a notification
 * (`pg_notify`) in one statement, after the write committed; each instance listens on its own
 * connection and announces what another instance changed, so caches everywhere drop a replaced
 * record within moments. The version is the fallback: an instance whose listening connection was
 * down meanwhile sees it moved and drops everything (`external`).
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import { withoutPassword } from "../../connection-url.js";
import { LocalChangeFeed } from "../change-feed.js";
import { recordRepositories } from "../sql/repositories.js";
import { StoreError } from "../errors.js";
import type { ChangeEvent, MetaRepository, Store } from "../repository.js";
import { PgDatasets } from "./datasets.js";
import { PgLogs } from "./logs.js";
import { migratePostgres } from "./migrations.js";
import { LogPartitions } from "./partitions.js";
import { PgDriver } from "./driver.js";
import { atomically, PG_TYPES, rows, run } from "./sql.js";

/** Options of `openPostgresStore`. */
export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database`. */
  url: string;
  /** Connections in the pool. Default 10. */
  poolSize?: number;
  /** How often to compare the records version, in ms; 0 turns it off. Default 1000. */
  externalChangePollMs?: number;
  /** Days request logs are kept (whole day partitions are dropped); undefined keeps them all. */
  logRetentionDays?: number;
}

/** The notification channel of record changes. */
const CHANNEL = "guardgate_changes";
const RECORDS_VERSION = "records_version";
const HOUR_MS = 3_600_000;
/** The advisory lock key of `exclusively` (any fixed number, the same for every instance). */
const EXCLUSIVE_LOCK = 0x66697273;

/** What one instance tells the others about a write. */
interface Notice {
  origin: string;
  version: number;
  event: ChangeEvent;
}

class PgMeta implements MetaRepository {
  constructor(private readonly db: pg.Pool) {}

  async get(key: string): Promise<string | undefined> {
    const [row] = await rows<{ value: string }>(this.db, "SELECT value FROM meta WHERE key = $1", [key]);
    return row?.value;
  }

  async set(key: string, value: string): Promise<void> {
    await run(this.db, "INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [
      key,
      value,
    ]);
  }
}

/** Listens for other instances' notices on one connection of its own, reconnecting when it drops. */
class NoticeListener {
  #client: pg.Client | undefined;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(
    private readonly url: string,
    private readonly onNotice: (notice: Notice) => void,
    private readonly onReconnect: () => void,
  ) {}

  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url });
    client.on("error", () => this.#retry(client));
    client.on("end", () => this.#retry(client));
    client.on("notification", (message) => {
      if (message.channel !== CHANNEL || !message.payload) return;
      try {
        this.onNotice(JSON.parse(message.payload) as Notice);
      } catch {
        // Not ours (someone else notifying on the channel): the version poll still catches writes.
      }
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    this.#client = client;
  }

  #retry(client: pg.Client): void {
    if (this.#closed || this.#client !== client) return;
    this.#client = undefined;
    client.end().catch(() => {});
    this.#schedule();
  }

  #schedule(): void {
    if (this.#closed) return;
    this.#timer = setTimeout(() => {
      this.start().then(this.onReconnect, () => this.#schedule());
    }, 500);
    this.#timer.unref();
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#client?.end().catch(() => {});
  }
}

/** Opens a Postgres store, migrating its schema first. */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<Store> {
  const location = withoutPassword(options.url, "postgres (unparsable URL)");
  const pool = new pg.Pool({ connectionString: options.url, max: options.poolSize ?? 10, types: PG_TYPES });
  // An idle connection that breaks is replaced on next use; without a handler it would crash the process.
  pool.on("error", () => {});
  try {
    await migratePostgres(pool);
  } catch (error) {
    await pool.end().catch(() => {});
    if (error instanceof StoreError) throw error;
    throw new StoreError("store_open_failed", `cannot open the store at ${location}: ${(error as Error).message}`, {
      cause: error,
    });
  }

  const origin = randomUUID();
  const feed = new LocalChangeFeed();
  const readVersion = async () =>
    Number((await rows<{ value: string }>(pool, "SELECT value FROM meta WHERE key = $1", [RECORDS_VERSION]))[0]?.value ?? 0);
  let seen = await readVersion();
  let missed = false;
  const announce = async (event: ChangeEvent): Promise<void> => {
    feed.emit(event);
    const [row] = await rows<{ version: string }>(
      pool,
      `WITH bumped AS (
         INSERT INTO meta (key, value) VALUES ($1, '1')
         ON CONFLICT (key) DO UPDATE SET value = (meta.value::bigint + 1)::text RETURNING value)
       SELECT value AS version, pg_notify($2, json_build_object('origin', $3::text, 'version', value::bigint, 'event', $4::json)::text)
       FROM bumped`,
      [RECORDS_VERSION, CHANNEL, origin, JSON.stringify(event)],
    );
    const version = Number(row?.version ?? 0);
    // Not one past the version last seen: another instance wrote meanwhile.
    if (version !== seen + 1) missed = true;
    seen = Math.max(seen, version);
  };
  const listener = new NoticeListener(
    options.url,
    (notice) => {
      if (notice.origin === origin) return;
      if (notice.version === seen + 1) seen = notice.version;
      else if (notice.version > seen) {
        missed = true;
        seen = notice.version;
      }
      feed.emit(notice.event);
    },
    // Notices sent while the connection was down are lost: drop every cache.
    () => feed.emit({ entity: "external" }),
  );
  const partitions = new LogPartitions(pool, options.logRetentionDays);
  try {
    await listener.start();
    await partitions.dropExpired();
  } catch (error) {
    await listener.close();
    await pool.end().catch(() => {});
    throw new StoreError("store_open_failed", `cannot open the store at ${location}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const pollMs = options.externalChangePollMs ?? 1000;
  let polling = false;
  const poll =
    pollMs > 0
      ? setInterval(() => {
          if (polling) return;
          polling = true;
          readVersion()
            .then((version) => {
              if (version === seen && !missed) return;
              seen = Math.max(seen, version);
              missed = false;
              feed.emit({ entity: "external" });
            })
            // The database is unreachable: the next look tries again.
            .catch(() => {})
            .finally(() => {
              polling = false;
            });
        }, pollMs)
      : undefined;
  poll?.unref();
  const retention =
    options.logRetentionDays !== undefined
      ? setInterval(() => void partitions.dropExpired().catch(() => {}), HOUR_MS)
      : undefined;
  retention?.unref();

  let closed = false;
  return {
    kind: "postgres",
    location,
    ...recordRepositories(new PgDriver(pool), announce, new PgDatasets(pool)),
    logs: new PgLogs(pool, partitions),
    meta: new PgMeta(pool),
    changes: feed,
    atomically: (work) => atomically(pool, work),
    exclusively: (work) =>
      atomically(pool, async () => {
        // Held until the transaction ends; an instance waiting for it then reads what this one wrote.
        await run(pool, "SELECT pg_advisory_xact_lock($1)", [EXCLUSIVE_LOCK]);
        return work();
      }),
    async close() {
      if (closed) return;
      closed = true;
      if (poll) clearInterval(poll);
      if (retention) clearInterval(retention);
      await listener.close();
      await pool.end();
    },
  };
}

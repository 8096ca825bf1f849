import { Client } from 'pg';
import { createTestDatabase, type TestDatabase } from './test-database';

async function connect(url: string): Promise<Client> {
  const client = new Client({ connectionString: url });
  await client.connect();
  return client;
}

async function databaseExists(adminUrl: string, name: string): Promise<boolean> {
  const admin = await connect(adminUrl);
  try {
    const result = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    return result.rowCount === 1;
  } finally {
    await admin.end();
  }
}

describe('createTestDatabase', () => {
  const created: TestDatabase[] = [];
  const create = async (): Promise<TestDatabase> => {
    const db = await createTestDatabase();
    created.push(db);
    return db;
  };

  afterAll(async () => {
    await Promise.all(created.map((db) => db.drop()));
  });

  it('creates a database with a safe unique name that accepts queries', async () => {
    const db = await create();
    expect(db.name).toMatch(new RegExp(`^t_${process.pid}_[0-9a-f]{16}$`));
    expect(new URL(db.url).pathname).toBe(`/${db.name}`);

    const client = await connect(db.url);
    try {
      const current = await client.query<{ name: string }>('SELECT current_database() AS name');
      expect(current.rows[0].name).toBe(db.name);
      await client.query('CREATE TABLE item (id int PRIMARY KEY, label text NOT NULL)');
      await client.query("INSERT INTO item VALUES (1, 'one'), (2, 'two')");
      const rows = await client.query<{ label: string }>('SELECT label FROM item ORDER BY id');
      expect(rows.rows.map((row) => row.label)).toEqual(['one', 'two']);
    } finally {
      await client.end();
    }
  });

  it('gives each call its own database', async () => {
    const [a, b] = await Promise.all([create(), create()]);
    expect(a.name).not.toBe(b.name);
    expect(a.url).not.toBe(b.url);

    const clientA = await connect(a.url);
    const clientB = await connect(b.url);
    try {
      await clientA.query('CREATE TABLE only_in_a (id int)');
      const inB = await clientB.query("SELECT to_regclass('public.only_in_a') AS found");
      expect(inB.rows[0].found).toBeNull();
    } finally {
      await clientA.end();
      await clientB.end();
    }
  });

  it('drop() removes the database even while a session is still connected, and is idempotent', async () => {
    const observer = await create();
    const doomed = await create();
    expect(await databaseExists(observer.url, doomed.name)).toBe(true);

    const lingering = await connect(doomed.url);
    lingering.on('error', () => undefined);
    await doomed.drop();
    await lingering.end().catch(() => undefined);

    // Any connection to the server can read the catalogue; a sibling test database serves as the admin connection.
    expect(await databaseExists(observer.url, doomed.name)).toBe(false);
    await expect(doomed.drop()).resolves.toBeUndefined();
  });
});

/**
 * A realistic, valid definitions directory of a chosen size for the benchmarks: systems with
 * three objects (one with a typed group), syncs with filters, preconditions, JSONata mappings and
 * match rules, webhooks of three actions with conditions and request schemas, flows and API
 * clients — spread over many files, as a real installation keeps them. Every webhook's schemas
 * differ (by title), so no cache makes a cold load look cheaper than a real one.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface DefinitionCounts {
  systems: number;
  syncs: number;
  webhooks: number;
  flows: number;
  apiClients: number;
}

/** 1,000 definitions: 100 + 500 + 300 + 50 + 50. */
export const thousand: DefinitionCounts = { systems: 100, syncs: 500, webhooks: 300, flows: 50, apiClients: 50 };

/** Definitions per file, per kind: 1,000 definitions land in 50 files. */
const perFile = { systems: 10, syncs: 25, webhooks: 30, flows: 10, apiClients: 10 };

type ObjectName = 'Customer' | 'Order' | 'Product';
const objectNames: readonly ObjectName[] = ['Customer', 'Order', 'Product'];

/** How a sync between two objects of one name reads, checks, maps and matches. */
const syncShape: Record<ObjectName, { where: string; precondition: string; mapping: string; match: string; order: string }> = {
  Customer: {
    where: "active = 1 AND updated_at > '2024-01-01T00:00:00Z'",
    precondition: "#email# <> '' AND #name# <> ''",
    mapping:
      '{\n  "id": id,\n  "name": $trim(name),\n  "email": $lowercase(email),\n  "active": active,\n  "city": addresses.main.city,\n  "updated_at": $now()\n}',
    match: 'email = #email#',
    order: 'updated_at desc, id asc',
  },
  Order: {
    where: "status IN ('paid', 'shipped') AND total > 0",
    precondition: '#total# > 0',
    mapping:
      '{\n  "id": id,\n  "customer_id": customer_id,\n  "total": $round(total, 2),\n  "status": $uppercase(status),\n  "created_at": created_at\n}',
    match: 'id = #id#',
    order: 'created_at asc',
  },
  Product: {
    where: "stock > 0 AND title LIKE 'A%'",
    precondition: '#price# > 0',
    mapping: '{\n  "sku": sku,\n  "title": title,\n  "price": price * 1.19,\n  "stock": stock,\n  "active": stock > 0\n}',
    match: 'sku = #sku#',
    order: 'sku',
  },
};

const pad = (n: number) => String(n).padStart(4, '0');
const systemId = (i: number) => `system-${pad(i)}`;
const syncId = (i: number) => `sync-${pad(i)}`;

function system(i: number): string {
  return `kind: System
id: ${systemId(i)}
name: System ${i}
connector: sql
connection:
  client: sqlite3
  filename: \${env:BENCH_DB_${i}:-data/system-${i}.sqlite}
objects:
  Customer:
    table: customers
    key: [id]
    fields:
      id: { type: Integer, readOnly: true }
      name: { type: String, required: true, maxLength: 200 }
      email: { type: String }
      active: { type: Boolean }
      city: { type: String }
      updated_at: { type: DateTime }
    groups:
      addresses:
        table: customer_addresses
        foreignKey: customer_id
        typeField: type
        types: [main, invoice]
        fields:
          street: { type: String }
          city: { type: String }
          zip: { type: String }
          country: { type: String }
  Order:
    table: orders
    key: [id]
    fields:
      id: { type: Integer }
      customer_id: { type: Integer }
      total: { type: Number }
      status: { type: String }
      created_at: { type: DateTime }
  Product:
    table: products
    key: [sku]
    fields:
      sku: { type: String, required: true }
      title: { type: String }
      price: { type: Number }
      stock: { type: Integer }
      active: { type: Boolean }
`;
}

/** Syncs 0..flows-1 read the record store (each starts a flow); the rest read a system. */
function sync(i: number, counts: DefinitionCounts): string {
  const object = objectNames[i % objectNames.length]!;
  const shape = syncShape[object];
  const target = `target: { system: ${systemId((i * 7 + 1) % counts.systems)}, object: ${object} }`;
  const mapping = `mapping: |\n${shape.mapping.replace(/^/gm, '  ')}`;
  const schedule = i % 2 === 0 ? 'schedule: { every: 15m }' : `schedule: { cron: "${i % 60} 2 * * *", timezone: Europe/Berlin }`;
  if (i < counts.flows) {
    return `kind: Sync
id: ${syncId(i)}
name: Stored ${object} intake ${i}
source: { recordStore: true }
${target}
${mapping}
match: { where: "${shape.match}", onNoMatch: create, onMatch: update }
`;
  }
  return `kind: Sync
id: ${syncId(i)}
name: ${object} replication ${i}
source:
  system: ${systemId(i % counts.systems)}
  object: ${object}
  where: "${shape.where}"
  order: ${shape.order}
${target}
precondition: "${shape.precondition}"
${mapping}
match:
  where: "${shape.match}"
  onNoMatch: create
  onMatch: update
${schedule}
retries: { max: 3, backoff: 30s }
batchSize: 500
timeout: 10m
`;
}

function webhook(i: number, counts: DefinitionCounts, salt: string): string {
  const id = `wh_bench${pad(i)}_k7Vd2LrX9sPz`;
  const system = systemId((i * 3) % counts.systems);
  switch (i % 3) {
    case 0:
      return `kind: Webhook
id: ${id}
name: Order event ${i}
secret: \${env:BENCH_WEBHOOK_SECRET:-bench-secret-${i}}
condition: "#event# <> 'order.deleted' AND #total# > 0"
logPayload: true
action: startSync
sync: ${syncId(counts.flows + ((i * 11) % (counts.syncs - counts.flows)))}
requestSchema:
  title: Order event ${i}${salt}
  type: object
  required: [id, event]
  properties:
    id: { type: integer }
    event: { type: string, enum: [order.created, order.updated, order.deleted] }
    total: { type: number, minimum: 0 }
    customer: { type: object, properties: { email: { type: string, format: email } } }
`;
    case 1:
      return `kind: Webhook
id: ${id}
name: Customer lookup ${i}
condition: "#email# <> ''"
action: readWithSystem
system: ${system}
object: Customer
search: "email = #email# AND active = 1"
order: name asc
firstOnly: true
requestSchema:
  title: Customer lookup ${i}${salt}
  type: object
  required: [email]
  properties:
    email: { type: string, format: email }
responseSchema:
  title: Customer ${i}${salt}
  type: object
  properties:
    id: { type: integer }
    name: { type: string }
    email: { type: string }
readMapping: '{ "id": id, "name": name, "email": email }'
`;
    default:
      return `kind: Webhook
id: ${id}
name: Customer upsert ${i}
condition: "#email# <> '' AND #name# <> ''"
action: saveWithSystem
system: ${system}
object: Customer
targetSearch: "email = #email#"
onNoMatch: create
onMatch: update
writeMapping: '{ "name": $trim(name), "email": $lowercase(email), "active": true }'
requestSchema:
  title: Customer upsert ${i}${salt}
  type: object
  required: [email, name]
  properties:
    email: { type: string }
    name: { type: string, minLength: 1 }
`;
  }
}

function flow(i: number, counts: DefinitionCounts): string {
  const rest = counts.syncs - counts.flows;
  return `kind: Flow
id: flow-${pad(i)}
name: Intake flow ${i}
steps:
  - sync: ${syncId(i)}
  - sync: ${syncId(counts.flows + ((i * 13) % rest))}
    continueOnError: true
  - sync: ${syncId(counts.flows + ((i * 17 + 5) % rest))}
schedule: { every: 1h }
`;
}

function apiClient(i: number, counts: DefinitionCounts): string {
  const hash = `${i.toString(16).padStart(2, '0')}ab`.repeat(16);
  return `kind: ApiClient
id: client-${pad(i)}
name: Partner ${i}
tokenSha256: "${hash}"
scopes: [queue:read, queue:write, systems:read]
systems: [${systemId(i % counts.systems)}, ${systemId((i + 1) % counts.systems)}]
syncs: [${syncId(counts.flows + (i % (counts.syncs - counts.flows)))}]
`;
}

/**
 * Writes the definitions into `dir` and returns the paths of the files written. A different `salt`
 * gives every webhook schema a different title: new content, as after a real edit.
 */
export async function generateDefinitions(dir: string, counts: DefinitionCounts = thousand, salt = ''): Promise<string[]> {
  const files: string[] = [];
  const emit = async (
    kind: keyof DefinitionCounts,
    folder: string,
    make: (i: number, counts: DefinitionCounts, salt: string) => string,
  ) => {
    await mkdir(join(dir, folder), { recursive: true });
    for (let start = 0; start < counts[kind]; start += perFile[kind]) {
      const documents = [];
      for (let i = start; i < Math.min(start + perFile[kind], counts[kind]); i++) documents.push(make(i, counts, salt));
      const path = join(dir, folder, `${kind}-${pad(start / perFile[kind])}.yaml`);
      await writeFile(path, `# generated for the benchmarks\n${documents.join('---\n')}`);
      files.push(path);
    }
  };
  await emit('systems', 'systems', system);
  await emit('syncs', 'syncs', sync);
  await emit('webhooks', 'webhooks', webhook);
  await emit('flows', 'flows', flow);
  await emit('apiClients', 'clients', apiClient);
  return files;
}

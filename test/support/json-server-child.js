// A json-server 0.17 on a free port of 127.0.0.1, in a process of its own, serving the collections
// of a db.json held in memory (writes change this process's copy only, never the file).
//   node json-server-child.js DB_FILE [OPTIONS_JSON]
// OPTIONS_JSON: { "ids": { "<collection>": "<id property>" } } — json-server finds records by `id`;
// a collection listed here gets a router of its own that finds them by another property.
// Prints {"port": N} on one line once it listens, and exits when its standard input closes
// (the test process that started it ended, however it ended).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const jsonServer = require('json-server');

const [dbFile, optionsText = '{}'] = process.argv.slice(2);
const options = JSON.parse(optionsText);
const db = JSON.parse(readFileSync(dbFile, 'utf8'));
const server = jsonServer.create();
server.use(jsonServer.defaults({ logger: false, noCors: true }));
for (const [name, id] of Object.entries(options.ids ?? {})) {
  const router = jsonServer.router({ [name]: db[name] });
  router.db._.id = id;
  delete db[name];
  // Every router answers what it does not know with a 404: each is asked only for its collection.
  server.use((req, res, next) => (req.path === `/${name}` || req.path.startsWith(`/${name}/`) ? router(req, res, next) : next()));
}
server.use(jsonServer.router(db));
const listener = server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: listener.address().port })}\n`);
});
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();

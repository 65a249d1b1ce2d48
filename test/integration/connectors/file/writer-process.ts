/**
 * A writer in a process of its own, for the tests of writers across processes and of a crash in
 * the middle of a rewrite: `node --import tsx writer-process.ts BASE create WORKER COUNT` writes
 * COUNT new contacts one write at a time; `… BASE touch` writes one contact into the file once.
 * Prints `done` when it has finished.
 */
import * as fileConnector from '../../../../connectors/file/index.js';
import type { SystemDefinition } from '../../../../definitions/types.js';

export const contactsSystem = {
  kind: 'System',
  id: 'files',
  connector: 'file',
  connection: { directory: 'data', lockWait: '60s' },
  queries: {},
  objects: {
    Contact: {
      path: 'contacts.csv',
      key: ['id'],
      fields: { id: { type: 'Integer' }, name: { type: 'String' }, worker: { type: 'Integer' } },
    },
  },
} as unknown as SystemDefinition;

const [base, mode, worker, count] = process.argv.slice(2);
if (base !== undefined && mode !== undefined) {
  const connection = fileConnector.createConnection(contactsSystem, { baseDirectory: base });
  if (mode === 'create') {
    for (let index = 0; index < Number(count); index++) {
      await connection.write('Contact', { values: { name: `w${worker}-${index}`, worker: Number(worker) } });
    }
  } else {
    process.stdout.write('writing\n');
    await connection.write('Contact', { values: { name: 'from the child' } });
  }
  await connection.close();
  process.stdout.write('done\n');
}

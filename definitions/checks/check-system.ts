/** Semantic checks of a System: keys name declared fields; query columns are unique. */
import type { SystemDefinition } from '../types.js';
import type { CheckContext, Registered } from './check-context.js';
import { list } from './check-context.js';

export function checkSystem(context: CheckContext, { definition, source }: Registered<SystemDefinition>): void {
  for (const [name, object] of Object.entries(definition.objects)) {
    object.key.forEach((field, index) => {
      if (!Object.hasOwn(object.fields, field)) {
        context.report(source, ['objects', name, 'key', index], 'unknown-field', `objects.${name}.key: '${field}' is not one of the object's fields (${list(Object.keys(object.fields))})`);
      }
    });
    for (const [groupName, group] of Object.entries(object.groups ?? {})) {
      if (Object.hasOwn(object.fields, groupName)) {
        context.report(source, ['objects', name, 'groups', groupName], 'name-clash', `objects.${name}.groups.${groupName}: a field of the object has the same name; groups and fields share one namespace in records`, { key: true });
      }
      void group;
    }
  }
  for (const [name, query] of Object.entries(definition.queries)) {
    const seen = new Set<string>();
    query.columns.forEach((column, index) => {
      if (seen.has(column.name)) {
        context.report(source, ['queries', name, 'columns', index, 'name'], 'duplicate-column', `queries.${name}.columns: '${column.name}' is listed twice`);
      }
      seen.add(column.name);
    });
  }
}

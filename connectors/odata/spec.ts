/**
 * The `odata` connector's spec: OData v4 services. The connection is the web connectors' shared
 * block (baseUrl = the service root, auth, headers, retries, rateLimit, maxResponseBytes) with
 * OData's own settings; an object is an entity set, a typed group a collection of its entities —
 * a navigation property or a collection of complex type — with the property holding the type.
 */
import type { ConnectorProblem, ConnectorSpec, JsonSchema } from '../../definitions/connector-spec.js';
import type { SystemDefinition } from '../../definitions/types.js';
import { webConnectionProperties, webConnectionRequired } from '../web/index.js';

/** An OData simple identifier (CSDL §16.2), as entity sets and properties are named. */
const identifier: JsonSchema = { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]{0,127}$' };

/** Entities asked for in one request when connection.maxPageSize is not set. */
export const DEFAULT_MAX_PAGE_SIZE = 1000;

export const spec: ConnectorSpec = Object.freeze({
  name: 'odata',
  description:
    'OData v4 services: entity sets read with $filter, $orderby, $top/$skip and server paging, written with POST/PATCH and $batch.',
  connectionSchema: {
    type: 'object',
    additionalProperties: false,
    required: [...webConnectionRequired],
    description: 'How to reach the OData service: baseUrl is its service root (where $metadata lives).',
    properties: {
      ...webConnectionProperties,
      batch: {
        enum: ['auto', 'json', 'multipart', 'never'],
        default: 'auto',
        description:
          'How writeMany and writes with group entries are sent: auto (a JSON $batch, then a multipart one, then single requests, whichever the service takes first), json or multipart (that $batch format only), never (one request at a time: the entries of a group are then not written atomically with their record).',
      },
      maxPageSize: {
        type: 'integer',
        minimum: 1,
        maximum: 100000,
        default: DEFAULT_MAX_PAGE_SIZE,
        description: 'Most entities asked for in one request ($top); larger pages of a read are made of several requests.',
      },
    },
  },
  objectProperties: {
    entitySet: { ...identifier, description: 'The entity set holding the records, as $metadata names it (e.g. Customers).' },
  },
  requiredObjectProperties: ['entitySet'],
  groupProperties: {
    navigation: {
      ...identifier,
      description:
        'A collection-valued navigation property holding the entries (e.g. addresses of a Customers entity). Give this or property.',
    },
    property: {
      ...identifier,
      description: 'A collection of complex type holding the entries, when they are not entities of their own. Give this or navigation.',
    },
    typeField: { ...identifier, default: 'type', description: 'Property of an entry holding its group type.' },
  },
  requiredGroupProperties: [],
  capabilities: Object.freeze({
    filterPushDown: true,
    limit: true,
    skip: true,
    order: true,
    count: true,
    typedGroups: true,
    transactions: true,
    readOnlyQuery: true,
  }),
  checkSystem,
});

/** Each group names exactly one collection: a navigation property or a complex collection property. */
function checkSystem(system: SystemDefinition): ConnectorProblem[] {
  const problems: ConnectorProblem[] = [];
  for (const [objectName, object] of Object.entries(system.objects ?? {})) {
    for (const [groupName, group] of Object.entries(object.groups ?? {})) {
      const given = ['navigation', 'property'].filter((option) => group[option] !== undefined);
      if (given.length === 1) continue;
      problems.push({
        path: ['objects', objectName, 'groups', groupName],
        code: given.length === 0 ? 'missing-collection' : 'ambiguous-collection',
        message:
          given.length === 0
            ? `group ${groupName} of ${objectName} needs navigation (a navigation property holding its entries) or property (a collection of complex type)`
            : `group ${groupName} of ${objectName} sets both navigation and property; give the one that holds its entries`,
      });
    }
  }
  return problems;
}
